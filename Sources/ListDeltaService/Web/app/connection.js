// How the page reaches the server: the follow mode (`?mode=events`: Server-Sent Events, else long poll), the token
// field (a bearer token for a server whose lists need one, kept in session storage: this tab only) and the page's own
// requests under /v1/lists, which send that token.
import { $ } from "/app/dom.js";

const TOKEN_KEY = "listdelta.token";

/** How the followers get changes: "events" or "poll". */
export const mode = new URLSearchParams(location.search).get("mode") === "events" ? "events" : "poll";

/** The mode as the status bar names it. */
export const modeName = mode === "events" ? "events" : "long poll";

/** The path `path` under /v1/lists. */
export const api = (path) => `/v1/lists${path}`;

/** The token field's token, or null when it is empty. */
export const currentToken = () => $("token").value.trim() || null;

/** `fetch(url, init)`, with the token field's token as `Authorization: Bearer` when there is one. */
export function request(url, init = {}) {
  const token = currentToken();
  return fetch(url, token ? { ...init, headers: { ...(init.headers ?? {}), Authorization: `Bearer ${token}` } } : init);
}

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
