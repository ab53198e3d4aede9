// The query bar of the list view: shows a live query of the open list instead of the whole list (API.md "Live
// queries"): a filter (path, operator, value), a sort (path, order) and a window of 20 items ("First 20", "Show 20
// more" growing `limit` by 20, "Previous 20" and "Next 20" moving `offset` by 20, "All items"). Every change is one
// diff from what is shown to the new result, animated like any other: `follower.setQuery(q)` between two queries,
// another follower taking over from the whole list to a query and back (list-view.js's followQuery: the whole list's
// follower is writable, and a writable follower follows no query). The query is in the page's URL too
// (`/?list=ID&q=…`), so a reload or a shared link shows the same part of the list.
import { $, el } from "/app/dom.js";
import { mode } from "/app/connection.js";
import { page } from "/app/page-state.js";
import { log } from "/app/diff-log.js";
import { itemCount } from "/app/document-view.js";

/** The window's step: "Show 20 more" and "Previous 20" / "Next 20". */
export const STEP = 20;

/** Query changes asked for and not yet applied (the bar's buttons are disabled meanwhile). */
const barState = { pending: 0, paths: new Set() };

/** How a query is applied: list-view.js's followQuery, given to initQueryBar. */
let followQuery = null;

/** The page's address for list `id` showing `query` (null: the whole list). */
export function pageURL(id, query) {
  const q = query ? `&q=${encodeURIComponent(JSON.stringify(query))}` : "";
  return `/?list=${encodeURIComponent(id)}${q}${mode === "events" ? "&mode=events" : ""}`;
}

/** The query a `q` of the page's address names (a JSON object), or null. */
export function queryOfURL(text) {
  if (!text) return null;
  try {
    const query = JSON.parse(text);
    return query && typeof query === "object" && !Array.isArray(query) && Object.keys(query).length ? query : null;
  } catch {
    return null;
  }
}

/** `query` without its members that say nothing (null when nothing is left: the whole list). */
function normalized(query) {
  const out = {};
  if (query.where?.length) out.where = query.where;
  if (query.sort?.length) out.sort = query.sort;
  if (query.offset) out.offset = query.offset;
  if (query.limit != null) out.limit = query.limit;
  if (query.sections != null && query.sections !== "keep") out.sections = query.sections;
  return Object.keys(out).length ? out : null;
}

/** A condition's value as typed: JSON when it reads as JSON (`3`, `true`, `"3"`, `["a","b"]`), else the text. */
function parseValue(op, raw) {
  const text = raw.trim();
  if (op === "exists") return text !== "false";
  const json = (t) => { try { return JSON.parse(t); } catch { return t; } };
  let value = json(text);
  if (op === "in" && !Array.isArray(value)) value = text === "" ? [] : text.split(",").map((x) => json(x.trim()));
  if (op === "prefix" && typeof value !== "string") value = text;
  return value;
}

/** A value as the value field shows it: text as it is unless it would read as other JSON, else JSON. */
function valueText(value) {
  if (typeof value === "string") {
    try {
      JSON.parse(value);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value);
}

/** The query the form asks for, with the window of the query shown (`offset` back to 0 when the filter changes). */
function formQuery() {
  const shown = page.query ?? {};
  const path = $("query-where-path").value.trim();
  const op = $("query-where-op").value;
  const where = path ? [{ path, op, value: parseValue(op, $("query-where-value").value) }] : [];
  const sortPath = $("query-sort-path").value.trim();
  const sort = sortPath ? [{ path: sortPath, order: $("query-sort-order").value }] : [];
  // The conditions and sort keys after the first (from an address) are kept as they are.
  where.push(...(shown.where ?? []).slice(1));
  sort.push(...(shown.sort ?? []).slice(1));
  const same = JSON.stringify(where) === JSON.stringify(shown.where ?? []) && JSON.stringify(sort) === JSON.stringify(shown.sort ?? []);
  return normalized({ ...shown, where, sort, offset: same ? shown.offset : 0 });
}

/** Fills the form with `query` (null: the whole list) and shows the window's state. */
function showQuery(query) {
  const condition = query?.where?.[0];
  $("query-where-path").value = condition?.path ?? "";
  $("query-where-op").value = condition?.op ?? "eq";
  $("query-where-value").value = condition ? valueText(condition.value) : "";
  const key = query?.sort?.[0];
  $("query-sort-path").value = key?.path ?? "";
  $("query-sort-order").value = key?.order ?? "asc";
  $("query-text").textContent = query ? JSON.stringify(query) : "the whole list";
  $("query-bar").toggleAttribute("data-query", !!query);
  $("query-bar").setAttribute("data-q", query ? JSON.stringify(query) : "");
  showWindow();
}

/** The window's text ("Showing items 21–40") and which of its buttons apply. */
export function showWindow() {
  const query = page.query ?? {};
  const offset = query.offset ?? 0;
  const limit = query.limit ?? null;
  const shown = page.follower?.document ? itemCount(page.follower.document) : 0;
  const busy = barState.pending > 0;
  const text = limit === null
    ? (offset ? `Showing all items after the first ${offset}` : "Showing all items")
    : shown === 0 ? `No items after the first ${offset}` : `Showing items ${offset + 1}–${offset + shown}`;
  $("query-window").textContent = text;
  $("query-more").disabled = busy || limit === null;
  $("query-prev").disabled = busy || offset === 0;
  $("query-next").disabled = busy || limit === null || shown < limit;
  $("query-all").disabled = busy || (limit === null && offset === 0);
  $("query-first").disabled = busy || (limit === STEP && offset === 0);
  $("query-apply").disabled = busy;
  $("query-clear").disabled = busy || !page.query;
  $("query-bar").setAttribute("aria-busy", busy ? "true" : "false");
}

/** Adds the paths of `doc`'s items to the path fields' suggestions. */
export function notePaths(doc) {
  const paths = barState.paths;
  const before = paths.size;
  for (const p of ["/id", "/section", "/type", "/cell"]) paths.add(p);
  let n = 0;
  for (const section of doc?.sections ?? []) {
    for (const item of section.items ?? []) {
      if (++n > 500) break;
      const model = item.model;
      if (!model || typeof model !== "object" || Array.isArray(model)) continue;
      for (const k of Object.keys(model)) paths.add(`/model/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`);
    }
  }
  if (paths.size !== before) $("query-paths").replaceChildren(...[...paths].map((p) => el("option", { value: p })));
}

/** The bar for a list that opens showing `query` (null: the whole list). */
export function resetQueryBar(query) {
  barState.pending = 0;
  barState.paths = new Set();
  $("query-paths").replaceChildren();
  $("query-error").hidden = true;
  showQuery(query);
}

/** What a refused query change says: the server's detail and the member it names. */
function problemText(error) {
  const body = error?.body;
  if (body && typeof body === "object") {
    const where = body.pointer ? ` (${body.pointer})` : "";
    return `${body.detail ?? body.title ?? `HTTP ${error.status}`}${where}`;
  }
  return String(error?.message ?? error);
}

/** Shows the list through `query` instead (null: the whole list), as one animated diff. */
export async function applyQuery(query) {
  const follower = page.follower;
  const id = page.listID;
  if (!follower || !id || !followQuery) return;
  query = query && normalized(query);
  barState.pending += 1;
  showWindow();
  $("query-error").hidden = true;
  let shown = follower; // the follower on show once the change is made (another one from the whole list and back)
  let applied = false;
  try {
    shown = await followQuery(query);
    if (!shown || page.follower !== shown) return;
    applied = true;
    page.query = query;
    history.replaceState(history.state, "", pageURL(id, query));
    log(`query: ${query ? JSON.stringify(query) : "the whole list"}`, "query");
    notePaths(shown.document);
  } catch (error) {
    if (page.follower !== follower) return;
    const text = problemText(error);
    $("query-error").textContent = `The query was not applied: ${text}`;
    $("query-error").hidden = false;
    log(`query refused: ${text}`, "error");
  } finally {
    if (shown && page.follower === shown) {
      barState.pending -= 1;
      // The form shows the query applied; after a refusal it keeps what was typed, to be corrected.
      if (applied) showQuery(page.query);
      else showWindow();
    }
  }
}

/** The window moved or grown by `change(offset, limit)` → `{offset, limit}`. */
function windowed(change) {
  const query = page.query ?? {};
  return { ...query, ...change(query.offset ?? 0, query.limit ?? null) };
}

/**
 * Wires the bar's form and buttons; `follow(query)` makes the list view show `query` (null: the whole list) and
 * resolves to the follower on show then (list-view.js's followQuery).
 */
export function initQueryBar(follow) {
  followQuery = follow;
  $("query-bar").addEventListener("submit", (e) => {
    e.preventDefault();
    applyQuery(formQuery());
  });
  $("query-where-op").addEventListener("change", (e) => {
    // `exists` takes true or false: prefill it.
    if (e.target.value === "exists" && !/^(true|false)$/.test($("query-where-value").value.trim())) $("query-where-value").value = "true";
  });
  $("query-clear").addEventListener("click", () => applyQuery(null));
  $("query-first").addEventListener("click", () => applyQuery(windowed(() => ({ offset: 0, limit: STEP }))));
  $("query-more").addEventListener("click", () => applyQuery(windowed((offset, limit) => ({ limit: (limit ?? 0) + STEP }))));
  $("query-prev").addEventListener("click", () => applyQuery(windowed((offset) => ({ offset: Math.max(0, offset - STEP) }))));
  $("query-next").addEventListener("click", () => applyQuery(windowed((offset) => ({ offset: offset + STEP }))));
  $("query-all").addEventListener("click", () => applyQuery(windowed(() => ({ offset: 0, limit: null }))));
}
