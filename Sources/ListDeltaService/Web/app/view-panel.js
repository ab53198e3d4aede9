// The view panel of the list view, for a list that is a view of another (client.js's fetchView: GET .../view, null
// for none): which list it is a view of (a link that opens that list), its definition in a compact form (conditions,
// sort keys, window, sections) and `basedOn`, the base revision its content was computed from. The definition is
// read when the list opens, whenever it gets a new revision, and every few seconds while it is shown (a base
// revision that changes nothing in the view moves `basedOn` without a view revision). A view refuses writes and
// reverts: the writer's buttons are disabled and the timeline offers no revert.
import { fetchView } from "/client.js";
import { $, el } from "/app/dom.js";
import { currentToken } from "/app/connection.js";
import { page } from "/app/page-state.js";
import { renderTimeline } from "/app/history.js";
import { setWritable } from "/app/demo-writer.js";

/** How often a shown view is read again (ms). */
const REFRESH_MS = 5000;

/** The timer of the next read. Reads are numbered as they begin: one older than what is shown is dropped. */
const viewState = { timer: null, started: 0, shown: 0 };

/** A JSON value as compact text. */
const text = (value) => JSON.stringify(value);

/** The conditions as one line: `/model/read eq false and /model/date gte "2026"`. */
export function whereText(where) {
  if (!where.length) return "every item";
  return where.map((c) => `${c.path} ${c.op} ${text(c.value)}`).join(" and ");
}

/** The sort keys as one line: `/model/date desc, /id asc`. */
export function sortText(sort) {
  if (!sort.length) return "the base's order";
  return sort.map((key) => `${key.path} ${key.order}`).join(", ");
}

/** The sections mode: `keep`, `none` or `by /model/category`. */
export function sectionsText(sections) {
  return typeof sections === "string" ? sections : `by ${sections.by}`;
}

/** Shows the view `v` (null: the list is none) and reads it again a little later. */
function showView(v) {
  page.view = v;
  clearTimeout(viewState.timer);
  const panel = $("view");
  panel.hidden = !v;
  setWritable(!v && !page.source);
  renderTimeline();
  if (!v) {
    panel.removeAttribute("data-view-of");
    panel.removeAttribute("data-based-on");
    return;
  }
  panel.setAttribute("data-view-of", v.of);
  panel.setAttribute("data-based-on", String(v.basedOn));
  const link = $("view-of");
  link.textContent = v.of;
  link.setAttribute("href", `/?list=${encodeURIComponent(v.of)}`);
  link.setAttribute("data-list-link", v.of);
  $("view-where").textContent = whereText(v.where);
  $("view-sort").textContent = sortText(v.sort);
  $("view-limit").textContent = v.offset ? `${v.limit} after the first ${v.offset}` : String(v.limit);
  $("view-sections").textContent = sectionsText(v.sections);
  $("view-based-on").textContent = v.basedOn === 0 ? "0 (no base)" : `r${v.basedOn}`;
  viewState.timer = setTimeout(loadView, REFRESH_MS);
}

/** Reads the open list's view definition and shows it (unless a later read is shown already). */
export async function loadView() {
  const id = page.listID;
  if (!id) return;
  const seq = ++viewState.started;
  let view;
  try {
    view = await fetchView("", id, { token: currentToken() });
  } catch {
    return; // refused or unreachable for now: keep what is shown
  }
  if (id !== page.listID || seq < viewState.shown) return;
  viewState.shown = seq;
  showView(view);
}

/** After a new revision: the definition and `basedOn` now. */
export function refreshView() {
  loadView();
}

/** Shows no view, for a list that opens or closes (a read begun before is not shown). */
export function clearView() {
  viewState.shown = ++viewState.started;
  showView(null);
}
