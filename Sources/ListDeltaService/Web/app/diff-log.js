// The diff logs (the list view's and the dashboard's): a timestamped line per diff, reset or error, newest first.
import { $, el } from "/app/dom.js";

/** Adds a line to a diff log (the list view's, or `ol`), newest first, keeping the last 60. */
export function log(text, cls = "", ol = $("log")) {
  ol.prepend(el("li", { class: cls, text: `${new Date().toLocaleTimeString()}  ${text}` }));
  while (ol.children.length > 60) ol.lastChild.remove();
}

/** A failed request in words: "HTTP 409 Conflict: the item is gone" (the RFC 9457 problem's title and detail). */
export function problemText(error) {
  const problem = error?.body && typeof error.body === "object" ? error.body : {};
  const said = [problem.title, problem.detail].filter(Boolean).join(": ");
  return `${error?.message ?? error}${said ? ` ${said}` : ""}`;
}

/** What a batch diff does, in words: "1 section moved, 2 items inserted". */
export function describe(diff) {
  const parts = [];
  for (const part of ["sections", "items"]) {
    for (const k of ["deleted", "inserted", "moved", "updated"]) {
      const n = diff[part][k].length;
      if (n) parts.push(`${n} ${part === "sections" ? "section" : "item"}${n > 1 ? "s" : ""} ${k}`);
    }
  }
  return parts.join(", ") || "no visible change";
}
