// How the page reaches the server: the follow mode (`?mode=events`: Server-Sent Events, else long poll) and the token
// field (a bearer token for a server whose lists need one, kept in session storage: this tab only). The page makes
// no request of its own: every one goes through client.js (its followers, and its one-shot requests), which is
// given the token field's token (`token: currentToken`, or `token: currentToken()` for one request).
import { $ } from "/app/dom.js";

const TOKEN_KEY = "listdelta.token";

/** How the followers get changes: "events" or "poll". */
export const mode = new URLSearchParams(location.search).get("mode") === "events" ? "events" : "poll";

/** The mode as the status bar names it. */
export const modeName = mode === "events" ? "events" : "long poll";

/** The token field's token, or null when it is empty. */
export const currentToken = () => $("token").value.trim() || null;

/** Fills the token field from session storage and keeps it there; `onChange()` runs after every change. */
export function keepToken(onChange) {
  const field = $("token");
  field.value = sessionStorage.getItem(TOKEN_KEY) ?? "";
  field.addEventListener("change", () => {
    const token = currentToken();
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
    onChange();
  });
}
