// ListDelta web client: an ES module with no dependencies and no build step.
//
//   import { follow } from "/client.js";
//   const follower = follow("https://lists.example", "inbox", target, { onReset: (e) => console.log(e.reason) });
//
// A follower loads the document (GET /v1/lists/{id}), then follows its changes by long poll (the default,
// GET /v1/lists/{id}/diff?from=R&wait=S, then verbatim the poll each answer names in its
// `Link: <…>; rel="next"`, so that every client at one revision polls the same URL and a CDN or proxy cache
// collapses their polls) or by Server-Sent Events (`mode: "events"`). Every batch diff is
// checked against the section counts the follower holds (`counts.from`), applied to its copy with the
// procedure of docs/api.md ("Applying a batch diff"), and handed to the target with the operations of the Swift
// core's `ListUpdateTarget`:
//
//   beginUpdates()
//   deleteSections([oldIndex])            insertSections([{at, section}])     moveSection(from, to)
//   deleteItems([[s, i]])                 insertItems([{at: [s, i], item}])   moveItem([s, i], [s, i])
//   endUpdates()
//   updateSectionHeaders([{at, section}])  reconfigureItems([{at: [s, i], item}])
//   reset(document, reason)               (initial load, 410, failed check, `event: reset`)
//
// Every target method is optional. When `endUpdates` runs, `follower.document` already is the new document.
// On a 410, a diff that does not fit (counts or indexes), an `event: reset` or a target that throws, the
// follower fetches the document again, calls `target.reset(document, reason)` and `options.onReset(info)`.
// Network errors and other failed requests are retried with capped exponential backoff and jitter (each delay
// is half the capped delay plus a random part of the other half).
// Live queries: `follow(baseURL, listID, target, {query})` follows a part of the list instead of the whole, the result
// of a query (`{where, sort, offset, limit, sections}`, an object or its JSON text; docs/api.md "Live queries") sent
// as `q` on the document, the polls and the event stream. `follower.setQuery(q)` (null: the whole list) changes it as
// a diff (GET .../diff?from=R&fromQuery=OLD&q=NEW, OLD being `{}` for the whole list) that drives the target like any
// other, so growing `limit` inserts the next page, moving `offset` scrolls a window and changing a filter animates the
// items that leave and enter.
//
// Followers are independent: follow as many lists as you like. But each holds a connection of its own, and a
// browser opens at most six HTTP/1.1 connections to a host: to follow several lists, use one connection for all:
//
//   import { followMany } from "/client.js";
//   const many = followMany("", { inbox: inboxTarget, today: todayTarget }, { mode: "events" });
//   many.add("later", laterTarget);  many.remove("today");  many.get("inbox").document;
//
// A ManyListFollower long-polls GET /v1/diffs?lists=inbox:7,today:3 (or streams GET /v1/events?lists=...) and
// treats every list as a ListFollower would (counts checked, target driven, refetch on a reset or a bad diff);
// its callbacks get the list id as their last argument. See ManyListFollower below.
//
// Access: `token` (an option of every follower, and of fetchHistory and revert) is a string, or a function returning
// one (or a promise of one), called before each request with `{fresh: false}` and, after a 401 or a broken event
// stream, with `{fresh: true}`: return a newly minted token then. It is sent as `Authorization: Bearer <token>`,
// and to an EventSource (which cannot send headers) as `?access_token=<token>`. A server with
// `readAccess: token` ends a long poll (401) or an event stream when its token expires; the follower then asks
// for a fresh token and goes on from the revisions it holds.
//
// History and undo: `fetchHistory(baseURL, listID, {before, limit})` reads a page of the list's revisions
// (newest first, with commit times, the write that made each one and the size of its diff), and
// `revert(baseURL, listID, to, {ifMatch})` writes a new revision with revision `to`'s content (undo; a later
// revert is redo). A follower has both as `follower.history()` and `follower.revert(to)`; its revert sends the
// revision it shows as If-Match, so a revert never undoes a change its user has not seen.
//
// Writes: a follower made with `{writable: true}` writes by item id: `insert(item, {section, after})`, `update(id,
// changes)`, `remove(id)`, `move(id, {section, after})`, and `put(document)` / `patch(operations)` for the whole
// document and raw JSON Patch. Each write is optimistic (the target sees it at once, as a batch like any other:
// `follower.document` is the server's document with the pending writes on top), sent as one request at a time in the
// order made, as a JSON Patch whose `test` operations guard the ids at the indexes it uses (rebuilt from the newer
// document and sent again after a failed guard), with an `Idempotency-Key` (the same key again when an answer was
// lost, so nothing is applied twice). Its promise resolves with `{revision}` once the server acknowledged it, and
// rejects with a ConflictError when its item, anchor or section is gone (the target then gets the rollback as a
// diff). While requests fail with network errors the writes queue and the state is "offline". With `storage`
// (`indexedDBStorage(name)`, `memoryStorage()`, or any `{get(key), set(key, value)}` of promises) the server's
// document, its revision and the pending writes are kept: a later follower on that storage shows them at once
// (`target.reset(document, "restored")`), catches up by a diff and sends the writes. See ListFollower.

/** A diff that does not fit the document it is applied to. */
export class DiffError extends Error {
  constructor(message) {
    super(message);
    this.name = "DiffError";
  }
}

/** An HTTP answer the follower did not expect. */
export class HTTPError extends Error {
  constructor(status, body) {
    super(`HTTP ${status}`);
    this.name = "HTTPError";
    this.status = status;
    this.body = body;
  }
}

/**
 * A write that cannot apply: its item, its anchor or its section is gone (`reason`: "item", "anchor", "section";
 * "list" when the list itself is gone; "patch" for a raw JSON Patch the server could not apply). `write` is the write
 * as `pendingWrites` showed it; `body` the server's problem when it answered one.
 */
export class ConflictError extends Error {
  constructor(message, { reason, write = null, body = null } = {}) {
    super(message);
    this.name = "ConflictError";
    this.reason = reason;
    this.write = write;
    this.body = body;
  }
}

const PARTS = ["deleted", "inserted", "moved", "updated"];

/** The number of operations in a batch diff (0 for an empty one). */
export function diffSize(diff) {
  let n = 0;
  for (const part of ["sections", "items"]) for (const key of PARTS) n += (diff?.[part]?.[key] ?? []).length;
  return n;
}

/** Throws a DiffError unless `diff.counts.from` equals the item counts of `document`'s sections. */
export function checkCounts(document, diff) {
  const have = (document.sections ?? []).map((s) => (s.items ?? []).length);
  const from = diff?.counts?.from;
  if (!Array.isArray(from)) throw new DiffError("the diff carries no counts.from");
  if (from.length !== have.length || from.some((c, i) => c !== have[i])) {
    throw new DiffError(`counts.from [${from}] does not match the document's [${have}]`);
  }
}

const key = (s, i) => `${s}:${i}`;

function isPath(p) {
  return Array.isArray(p) && p.length === 2 && Number.isInteger(p[0]) && Number.isInteger(p[1]);
}

/**
 * The document `diff` leads to from `document`, by the procedure of docs/api.md, Applying a batch diff (steps 1-4), after
 * checking `counts.from`. Pure: `document` is not modified (unchanged items are shared, not copied).
 * `id`, `kind` and `cells` are kept; `revision` becomes `diff.to`. Throws DiffError when the diff does not fit.
 */
export function applyBatchDiff(document, diff) {
  checkCounts(document, diff);
  const old = document.sections ?? [];
  const secs = diff.sections ?? {};
  const its = diff.items ?? {};
  const sd = secs.deleted ?? [], si = secs.inserted ?? [], sm = secs.moved ?? [], su = secs.updated ?? [];
  const id = its.deleted ?? [], ii = its.inserted ?? [], im = its.moved ?? [], iu = its.updated ?? [];

  // Step 1: remove the deleted sections, the deleted items and the items that move.
  const deletedSections = new Set();
  for (const s of sd) {
    if (!Number.isInteger(s) || s < 0 || s >= old.length || deletedSections.has(s)) {
      throw new DiffError(`bad deleted section ${s}`);
    }
    deletedSections.add(s);
  }
  const movedSections = new Map(); // old index -> new index
  for (const m of sm) {
    const f = m.from;
    if (!Number.isInteger(f) || f < 0 || f >= old.length || deletedSections.has(f) || movedSections.has(f)) {
      throw new DiffError(`bad moved section ${JSON.stringify(m)}`);
    }
    movedSections.set(f, m.to);
  }
  const removed = new Set();
  const checkOld = (p, what) => {
    if (!isPath(p) || p[0] < 0 || p[0] >= old.length || p[1] < 0 || p[1] >= (old[p[0]].items ?? []).length) {
      throw new DiffError(`${what} ${JSON.stringify(p)} out of range`);
    }
    if (deletedSections.has(p[0])) throw new DiffError(`${what} ${JSON.stringify(p)} inside a deleted section`);
    if (removed.has(key(p[0], p[1]))) throw new DiffError(`item ${JSON.stringify(p)} removed twice`);
    removed.add(key(p[0], p[1]));
  };
  for (const p of id) checkOld(p, "deleted item");
  const incoming = new Map(); // "s:i" (new) -> item
  for (const m of im) {
    checkOld(m.from, "moved item");
    if (!isPath(m.to)) throw new DiffError(`bad item move ${JSON.stringify(m)}`);
    const k = key(m.to[0], m.to[1]);
    if (incoming.has(k)) throw new DiffError(`two items land at ${JSON.stringify(m.to)}`);
    incoming.set(k, old[m.from[0]].items[m.from[1]]);
  }
  for (const ins of ii) {
    if (!isPath(ins.at) || !ins.item) throw new DiffError(`bad item insertion ${JSON.stringify(ins)}`);
    const k = key(ins.at[0], ins.at[1]);
    if (incoming.has(k)) throw new DiffError(`two items land at ${JSON.stringify(ins.at)}`);
    incoming.set(k, ins.item);
  }

  // Step 2: the new sections.
  const count = old.length - deletedSections.size + si.length;
  const slots = new Array(count).fill(null);
  for (const ins of si) {
    const at = ins.at;
    if (!Number.isInteger(at) || at < 0 || at >= count || slots[at] || !ins.section) {
      throw new DiffError(`bad inserted section ${JSON.stringify(ins)}`);
    }
    slots[at] = { inserted: ins.section };
  }
  for (const [f, t] of movedSections) {
    if (!Number.isInteger(t) || t < 0 || t >= count || slots[t]) throw new DiffError(`bad section move to ${t}`);
    slots[t] = { old: f };
  }
  const rest = [];
  for (let i = 0; i < old.length; i++) if (!deletedSections.has(i) && !movedSections.has(i)) rest.push(i);
  let r = 0;
  for (let j = 0; j < count; j++) if (!slots[j]) slots[j] = r < rest.length ? { old: rest[r++] } : null;
  if (r !== rest.length || slots.some((x) => !x)) throw new DiffError("the sections do not fill the new document");

  // Step 3: the items of every section that is not inserted.
  const byNewSection = new Map();
  for (const [k, item] of incoming) {
    const [s, i] = k.split(":").map(Number);
    if (s < 0 || s >= count) throw new DiffError(`item path [${s}, ${i}] names no section`);
    if (slots[s].inserted) throw new DiffError(`item operation inside inserted section ${s}`);
    if (!byNewSection.has(s)) byNewSection.set(s, new Map());
    byNewSection.get(s).set(i, item);
  }
  const sections = slots.map((slot, j) => {
    if (slot.inserted) {
      const s = slot.inserted;
      return { ...s, items: [...(s.items ?? [])] };
    }
    const o = old[slot.old];
    const keep = (o.items ?? []).filter((_, i) => !removed.has(key(slot.old, i)));
    const here = byNewSection.get(j) ?? new Map();
    const size = keep.length + here.size;
    const row = new Array(size);
    for (const [i, item] of here) {
      if (i < 0 || i >= size) throw new DiffError(`item index [${j}, ${i}] out of range (section size ${size})`);
      row[i] = item;
    }
    let k = 0;
    for (let i = 0; i < size; i++) if (row[i] === undefined) row[i] = keep[k++];
    return { ...o, items: row };
  });

  // Step 4: replace the updated headers and items.
  for (const u of su) {
    const at = u.at;
    if (!Number.isInteger(at) || at < 0 || at >= count) throw new DiffError(`updated section ${at} out of range`);
    if (u.section?.id !== sections[at].id) throw new DiffError(`updated section ${at} is not ${sections[at].id}`);
    const { items: _ignored, ...header } = u.section;
    sections[at] = { ...sections[at], title: null, indexTitle: null, ...header };
  }
  for (const u of iu) {
    const p = u.at;
    if (!isPath(p) || p[0] < 0 || p[0] >= count || p[1] < 0 || p[1] >= sections[p[0]].items.length) {
      throw new DiffError(`updated item ${JSON.stringify(p)} out of range`);
    }
    if (u.item?.id !== sections[p[0]].items[p[1]].id) throw new DiffError(`updated item ${JSON.stringify(p)} has another id`);
    sections[p[0]].items[p[1]] = u.item;
  }
  const to = diff.counts?.to;
  if (Array.isArray(to) && (to.length !== count || to.some((c, i) => c !== sections[i].items.length))) {
    throw new DiffError(`the result's counts do not match counts.to [${to}]`);
  }
  return { ...document, revision: diff.to ?? document.revision, sections };
}

/** Drives `target` through `diff` in UIKit's order, as the Swift core's `ListDiff.perform(on:)` does. */
export function performBatchDiff(diff, target) {
  const call = (name, ...args) => (typeof target?.[name] === "function" ? target[name](...args) : undefined);
  const s = diff.sections ?? {}, i = diff.items ?? {};
  call("beginUpdates");
  if (s.deleted?.length) call("deleteSections", s.deleted);
  if (s.inserted?.length) call("insertSections", s.inserted);
  for (const m of s.moved ?? []) call("moveSection", m.from, m.to);
  if (i.deleted?.length) call("deleteItems", i.deleted);
  if (i.inserted?.length) call("insertItems", i.inserted);
  for (const m of i.moved ?? []) call("moveItem", m.from, m.to);
  call("endUpdates");
  if (s.updated?.length) call("updateSectionHeaders", s.updated);
  if (i.updated?.length) call("reconfigureItems", i.updated);
}

/**
 * The batch diff from document `from` to document `to`, found by section and item id: the diff the server would send
 * between them (docs/api.md, The batch diff), UIKit-safe. Items come and go with their sections, an item that changes
 * section moves, moves are as few as a longest increasing subsequence allows, updates are the items (and section
 * headers) whose content differs, every list is sorted, and `counts` are set. `from` and `to` of the result are the
 * documents' revisions (0 for a document without one). Pure: the documents are not modified.
 */
export function diffDocuments(from, to) {
  const oldSections = from?.sections ?? [];
  const newSections = to?.sections ?? [];
  const sections = sectionChanges(oldSections, newSections);
  return {
    id: to?.id ?? from?.id ?? null,
    from: from?.revision ?? 0,
    to: to?.revision ?? 0,
    sections: sections.diff,
    items: itemChanges(oldSections, newSections, sections),
    counts: { from: itemCounts(oldSections), to: itemCounts(newSections) },
  };
}

const itemCounts = (sections) => sections.map((s) => (s.items ?? []).length);

/** `{id: index}` of `entries` (sections or items) as a Map. */
const indexByID = (entries) => new Map(entries.map((e, i) => [e.id, i]));

/** A section's header: what `sections.updated` carries. */
const sectionHeader = (s) => ({ id: s.id, title: s.title ?? null, indexTitle: s.indexTitle ?? null });

/** JSON equality: objects compare without regard to key order. */
function sameJSON(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => sameJSON(x, b[i]));
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameJSON(a[k], b[k]));
}

/** Whether an item's content (`type`, `cell`, `model`; absent as null) differs. */
const itemChanged = (a, b) =>
  (a.type ?? null) !== (b.type ?? null) ||
  (a.cell ?? null) !== (b.cell ?? null) ||
  !sameJSON(a.model ?? null, b.model ?? null);

const headerChanged = (a, b) =>
  (a.title ?? null) !== (b.title ?? null) || (a.indexTitle ?? null) !== (b.indexTitle ?? null);

/** The positions (a Set of indexes into `values`) of one longest strictly increasing subsequence of `values`. */
function longestIncreasing(values) {
  const tails = []; // tails[k]: the index of the smallest last value of an increasing run of length k + 1
  const before = new Array(values.length).fill(-1);
  values.forEach((v, i) => {
    let lo = 0, hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (values[tails[mid]] < v) lo = mid + 1; else hi = mid;
    }
    if (lo > 0) before[i] = tails[lo - 1];
    tails[lo] = i;
  });
  const run = new Set();
  for (let i = tails.length ? tails[tails.length - 1] : -1; i >= 0; i = before[i]) run.add(i);
  return run;
}

const byIndexPath = (a, b) => a[0] - b[0] || a[1] - b[1];

// The sections part of diffDocuments, with what the items part needs: the old and new index of every section id and
// the deleted (old) and inserted (new) indexes.
function sectionChanges(oldSections, newSections) {
  const oldAt = indexByID(oldSections);
  const newAt = indexByID(newSections);
  const deleted = [], inserted = [], moved = [], updated = [];
  oldSections.forEach((s, i) => { if (!newAt.has(s.id)) deleted.push(i); });
  newSections.forEach((s, j) => {
    if (!oldAt.has(s.id)) inserted.push({ at: j, section: s });
    else if (headerChanged(oldSections[oldAt.get(s.id)], s)) updated.push({ at: j, section: sectionHeader(s) });
  });
  const surviving = [];
  oldSections.forEach((s, i) => { if (newAt.has(s.id)) surviving.push(i); });
  const staying = longestIncreasing(surviving.map((i) => newAt.get(oldSections[i].id)));
  surviving.forEach((i, k) => { if (!staying.has(k)) moved.push({ from: i, to: newAt.get(oldSections[i].id) }); });
  moved.sort((a, b) => a.to - b.to);
  return {
    diff: { deleted, inserted, moved, updated },
    oldAt,
    deletedSet: new Set(deleted),
    insertedSet: new Set(inserted.map((x) => x.at)),
  };
}

/** `{itemID: [section, index]}` of `sections` as a Map. */
function itemPaths(sections) {
  const paths = new Map();
  sections.forEach((s, si) => (s.items ?? []).forEach((item, ii) => paths.set(item.id, [si, ii])));
  return paths;
}

// The items part of diffDocuments. An item leaves (deleted) when it is not in the new document or lands in an inserted
// section, and comes (inserted) when it was not in the old one or comes from a deleted section; the others stay or
// move: those that change section move, those of one section keep a longest increasing run in place.
function itemChanges(oldSections, newSections, sections) {
  const { oldAt, deletedSet, insertedSet } = sections;
  const oldPaths = itemPaths(oldSections);
  const newPaths = itemPaths(newSections);
  const deleted = [], inserted = [], moved = [], updated = [];
  oldSections.forEach((section, si) => {
    if (deletedSet.has(si)) return;
    (section.items ?? []).forEach((item, ii) => {
      const at = newPaths.get(item.id);
      if (!at || insertedSet.has(at[0])) deleted.push([si, ii]);
    });
  });
  newSections.forEach((section, sj) => {
    if (insertedSet.has(sj)) return;
    const os = oldAt.get(section.id);
    const stay = []; // [old index, new index] of the items this section held before too
    (section.items ?? []).forEach((item, ij) => {
      const at = oldPaths.get(item.id);
      if (!at || deletedSet.has(at[0])) return void inserted.push({ at: [sj, ij], item });
      if (itemChanged(oldSections[at[0]].items[at[1]], item)) updated.push({ at: [sj, ij], item });
      if (at[0] === os) stay.push([at[1], ij]);
      else moved.push({ from: [at[0], at[1]], to: [sj, ij] });
    });
    stay.sort((a, b) => a[0] - b[0]);
    const kept = longestIncreasing(stay.map((pair) => pair[1]));
    stay.forEach(([ii, ij], k) => { if (!kept.has(k)) moved.push({ from: [os, ii], to: [sj, ij] }); });
  });
  moved.sort((a, b) => byIndexPath(a.to, b.to));
  return { deleted, inserted, moved, updated };
}

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const stop = () => { clearTimeout(t); resolve(); };
    const t = setTimeout(() => { signal?.removeEventListener("abort", stop); resolve(); }, ms);
    signal?.addEventListener("abort", stop, { once: true });
  });

/** Resolves once any of `signals` is aborted. */
const aborted = (...signals) =>
  new Promise((resolve) => {
    for (const s of signals) {
      if (s.aborted) return resolve();
      s.addEventListener("abort", resolve, { once: true });
    }
  });

/** The `rel="next"` target of a `Link` field (RFC 8288), or null. */
export function nextLink(field) {
  for (const match of String(field ?? "").matchAll(/<([^>]*)>([^,<]*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(match[2]);
    if (rel && (rel[1] ?? rel[2]).toLowerCase().split(/\s+/).includes("next")) return match[1];
  }
  return null;
}

const listURL = (baseURL, listID) => `${String(baseURL ?? "").replace(/\/+$/, "")}/v1/lists/${encodeURIComponent(listID)}`;

/** A list id as the API takes it in a path or in `lists=`. */
const LIST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** What a follower holds for a list that does not exist (a 404, or a reset to revision 0). */
const emptyDocument = (id) => ({ id, revision: 0, sections: [] });

/**
 * Applies `diff` to what `holder` ({document, revision, lastDiff, target}) holds and drives its target; null when
 * done, else why the holder must fetch its document again ({reason, detail}: "mismatch", "check" or "target").
 */
function advance(holder, diff) {
  if (diff.from !== holder.revision) {
    return { reason: "mismatch", detail: `diff from ${diff.from}, holding ${holder.revision}` };
  }
  let next;
  try {
    next = applyBatchDiff(holder.document, diff);
  } catch (error) {
    return { reason: "check", detail: error.message };
  }
  const previous = holder.document;
  holder.document = next;
  holder.revision = next.revision;
  holder.lastDiff = diff;
  try {
    performBatchDiff(diff, holder.target);
  } catch (error) {
    holder.document = previous;
    holder.revision = previous.revision;
    return { reason: "target", detail: String(error?.message ?? error) };
  }
  return null;
}

/**
 * The text a query travels as in `q` (JSON), or null for the whole list: null, undefined, "" and `{}`. A string is
 * sent as it is (the server answers 400 when it is no query), anything else as its JSON.
 */
export function queryText(query) {
  if (query === null || query === undefined) return null;
  const text = typeof query === "string" ? query.trim() : JSON.stringify(query);
  if (text === undefined) throw new TypeError(`not a query: ${String(query)}`);
  if (text === "") return null;
  try {
    const value = JSON.parse(text);
    if (value && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0) return null;
  } catch {
    // Not JSON: the server says what is wrong with it (400, pointer /q).
  }
  return text;
}

/** `document` with `"query"` as the server names the query `text` (canonical, from a `next` link), or without one. */
function withQuery(document, link, text) {
  const { query: _old, ...rest } = document;
  if (text === null) return rest;
  let query;
  try {
    const q = link ? new URL(link, "http://localhost/").searchParams.get("q") : null;
    query = JSON.parse(q ?? text);
  } catch {
    return rest;
  }
  // "query" comes after "revision", as in the server's documents.
  const out = {};
  for (const [k, v] of Object.entries(rest)) {
    if (k === "sections") out.query = query;
    out[k] = v;
  }
  if (!("query" in out)) out.query = query;
  return out;
}

/** Whether `error` is a request that got no answer: a network error (fetch's TypeError), an abort or a timeout. */
const isNetworkError = (error) =>
  error instanceof TypeError || error?.name === "AbortError" || error?.name === "TimeoutError";

/** The state a follower is in while it retries after `error`. */
const failedState = (error) => (isNetworkError(error) ? "offline" : "retrying");

/** Capped exponential backoff with jitter: each delay is half the capped delay plus a random part of the other half. */
class Backoff {
  constructor({ initial = 500, max = 15000 } = {}) {
    this.initial = initial;
    this.max = max;
    this.attempt = 0;
  }

  next() {
    const cap = Math.min(this.max, this.initial * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 30);
    return Math.round(cap / 2 + (Math.random() * cap) / 2);
  }

  reset() {
    this.attempt = 0;
  }
}

/** What ListFollower and ManyListFollower share: start/stop/pause, requests, retries, long polls, event streams. */
class Follower {
  constructor(baseURL, options = {}) {
    this.baseURL = String(baseURL ?? "").replace(/\/+$/, "");
    this.options = { mode: "poll", wait: 25, ...options };
    this.backoff = { initial: 500, max: 15000, ...(options.backoff ?? {}) };
    this.state = "idle";
    this._backoff = new Backoff(this.backoff);
    this._running = false;
    this._paused = false;
    this._abort = null;
    this._source = null;
    this._loop = null;
  }

  /** Loads and starts following; resolves once the first document (every list's, for many) is held. */
  start() {
    if (this._running) return this._ready;
    this._running = true;
    this._ready = new Promise((resolve) => { this._resolveReady = resolve; });
    if (!this._changing) this._loop = this._run(); // else the query change in flight goes on once it is done
    return this._ready;
  }

  /** Stops following for good; in-flight requests are aborted. */
  stop() {
    this._running = false;
    this._halt();
    this._setState("stopped");
  }

  /** Stops asking for changes (aborting the request in flight) until `resume()`. */
  pause() {
    if (this._paused) return;
    this._paused = true;
    this._halt();
    this._setState("paused");
  }

  /** Asks for changes again, from the revisions held. */
  resume() {
    if (!this._paused) return;
    this._paused = false;
    // A query change in flight goes on following once it is done.
    if (this._running && !this._changing) this._loop = this._run();
  }

  _halt() {
    this._abort?.abort();
    this._abort = null;
    this._source?.close();
    this._source = null;
    this._streams = (this._streams ?? 0) + 1; // a stream still waiting for its token is not opened
  }

  // A new run's abort signal (pause and stop abort it).
  _begin() {
    const abort = new AbortController();
    this._abort = abort;
    return abort.signal;
  }

  _alive(signal) {
    return this._running && !this._paused && !signal?.aborted;
  }

  _setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.options.onState?.(state, this.listID ?? null);
  }

  _fetch(url, init) {
    const f = this.options.fetch ?? globalThis.fetch.bind(globalThis);
    return f(url, init);
  }

  /** A GET with this follower's headers and token; after a 401, once more with a fresh token. */
  _get(url, init = {}) {
    const headers = { Accept: "application/json", ...(this.options.headers ?? {}) };
    return withToken(this.options.token, (auth) => this._fetch(url, { headers: { ...headers, ...auth }, cache: "no-store", ...init }), init.signal);
  }

  /** The document at `url`; throws an HTTPError for any answer but 200. */
  async _getDocument(url, signal) {
    const res = await this._get(url, { signal });
    if (!res.ok) throw new HTTPError(res.status, await res.text().catch(() => ""));
    return res.json();
  }

  /**
   * A long poll of `url` (its query has `wait`), given up after `wait` + 15 s or when a signal aborts. It may be
   * answered from the browser's cache: every URL a follower polls is one it has not polled before (the server's
   * `next` moves on after every answer), and any answer a cache keeps is still a correct diff.
   */
  async _longPoll(url, ...signals) {
    const wait = this.options.wait;
    const timeout = new AbortController();
    const stop = () => timeout.abort();
    for (const s of signals) {
      if (s.aborted) stop();
      s.addEventListener("abort", stop, { once: true });
    }
    const timer = setTimeout(stop, (wait + 15) * 1000);
    try {
      return await this._get(url, { signal: timeout.signal, cache: "default" });
    } finally {
      clearTimeout(timer);
      for (const s of signals) s.removeEventListener("abort", stop);
    }
  }

  /** Reports `error`, waits the next backoff delay (the list's own for a list's document, else the connection's). */
  async _retry(error, signal, list = null) {
    const ms = (list ? list.backoff : this._backoff).next();
    this._retrying(list, error);
    this.options.onError?.(error, ms, list ? list.id : this.listID ?? null);
    await sleep(ms, signal);
  }

  // "offline" while requests get no answer (network errors, timeouts), else "retrying".
  _retrying(_list, error) {
    this._setState(failedState(error));
  }

  /** Runs `attempt` until it returns (→ {value}) or `alive()` turns false (→ null), with backoff between failures. */
  async _persist(attempt, signal, list = null, alive = () => this._alive(signal)) {
    while (alive()) {
      try {
        return { value: await attempt() };
      } catch (error) {
        if (!alive()) break;
        await this._retry(error, signal, list);
      }
    }
    return null;
  }

  /**
   * Opens an EventSource on `url` (with the token as `access_token`) as this follower's one stream. `handlers`
   * maps event names to `(data, broken)`; `broken(error)` (also called when the connection fails or ends, as it
   * does when its token expires) closes the stream, waits the backoff delay and calls `reopen()` unless another
   * stream was opened meanwhile; the reopened stream asks for a fresh token. Resolves to the source, or null when
   * the follower stopped or opened another stream while the token was coming.
   */
  async _stream(url, signal, handlers, reopen) {
    const ticket = (this._streams = (this._streams ?? 0) + 1);
    let token = null;
    try {
      token = await tokenOf(this.options.token, this._freshToken === true);
    } catch (error) {
      if (ticket === this._streams && this._alive(signal)) {
        await this._retry(error, signal);
        if (ticket === this._streams && this._alive(signal)) reopen();
      }
      return null;
    }
    if (ticket !== this._streams || !this._alive(signal)) return null;
    this._freshToken = false;
    const source = new EventSource(token ? `${url}${url.includes("?") ? "&" : "?"}access_token=${encodeURIComponent(token)}` : url);
    this._source = source;
    const current = () => this._source === source;
    const broken = async (error) => {
      source.close();
      if (!current()) return;
      this._source = null;
      this._freshToken = true;
      await this._retry(error, signal);
      if (this._alive(signal) && this._source === null) reopen();
    };
    source.addEventListener("open", () => {
      if (!current()) return;
      this._backoff.reset();
      this._setState("live");
    });
    // Take reconnection into our own hands: backoff with jitter, from the revisions held.
    source.addEventListener("error", () => { if (current()) broken(new Error("event stream interrupted")); });
    for (const [name, handle] of Object.entries(handlers)) {
      source.addEventListener(name, (event) => { if (current()) handle(event.data, broken); });
    }
    return source;
  }
}

/**
 * Follows one list. `options`:
 * - `mode`: "poll" (default, long poll) or "events" (EventSource);
 * - `wait`: long-poll seconds (default 25; the server caps it);
 * - `backoff`: `{initial: 500, max: 15000}` milliseconds (capped exponential, with jitter);
 * - `headers`: extra request headers (poll mode); `fetch`: a fetch function;
 * - `token`: a string, or a function `({fresh}) => token` (or a promise of one), sent as a bearer token;
 * - `query`: a live query (`{where, sort, offset, limit, sections}`, or its JSON text; API.md "Live queries"): the
 *   follower then follows the query's result over the list instead of the whole list (`q` on the document, the
 *   polls and the event stream). `follower.setQuery(q)` changes it as a diff; `follower.query` is the one followed;
 * - `writable`: true to write through the follower (below); `writeTimeout`: milliseconds a write waits for its answer
 *   before it is sent again with the same key (default 20000);
 * - `storage`: where the follower keeps the server's document, its revision and the pending writes, under the key
 *   `listdelta:<listID>`: `indexedDBStorage(name)`, `memoryStorage()`, or any `{get(key), set(key, value)}` returning
 *   promises (`get` gives undefined or null for a missing key; values are JSON). A storage with a `lockName` string
 *   (IndexedDB's) is shared by the tabs of an origin: one follower of a list at a time stores it (a Web Lock);
 *   another made meanwhile follows and writes without storing;
 * - callbacks: `onLoad(document)`, `onDiff(diff, document)`, `onReset({reason, detail, from, document})`,
 *   `onError(error, retryInMs)`, `onState(state)` with state "loading" | "live" | "offline" | "retrying" | "paused" |
 *   "stopped" ("offline": a request got no answer, a network error or a timeout; "retrying": it got an error answer),
 *   `onWrite({write, revision})` when a write is acknowledged and `onWrite({write, error})` when it is refused (also
 *   for the writes a follower restored from storage, which have no promise).
 *   (Each callback also gets the list id as a last argument, as ManyListFollower's do.)
 *
 * Writes (`writable: true`; such a follower follows the whole list, not a query). Items are named by id, sections by
 * id, and a place by `{section, after}`: `after` an item id (right after it), null (first in the section), or absent
 * (last in the section); `section` may be left out when `after` names an item (its section then).
 * - `insert(item, {section, after})`, `update(id, changes)` (`changes` holds any of `model`, `cell`, `type`, and
 *   replaces those members of the item), `remove(id)`, `move(id, {section, after})`; `put(document)` replaces the
 *   whole document and `patch(operations)` sends raw JSON Patch (RFC 6902) as given.
 * - Each returns a promise that resolves with `{revision}` once the server acknowledged the write, and rejects with a
 *   ConflictError when the write cannot apply (its item, its anchor or its section is gone; for `patch`, an operation
 *   the server could not apply), or with an HTTPError when the server refuses it otherwise (a 422, a 403, a list fed by
 *   a source). A refused write is rolled back: the target gets the diff that undoes it. A TypeError for bad arguments.
 * - Optimistic: the target sees each write at once, as a batch like any other (checked counts, UIKit-safe).
 *   `document` is the server's document (`confirmedDocument`) with the pending writes on top; each diff that comes is
 *   applied to the server's document, the writes are applied again on top, and the target gets the diff from what it
 *   showed to the result (computed by id with `diffDocuments`; the server's diff itself when no write is on top).
 * - By id: a write goes out as one JSON Patch (PATCH, `application/json-patch+json`) built against the newest document
 *   held, with `test` operations guarding the ids at the paths it uses. A failed guard (409) means the indexes moved:
 *   the follower catches up (GET .../diff?from=R) and sends the write rebuilt, as a new request with a new
 *   Idempotency-Key, after a backoff, until it applies or its item, anchor or section is gone.
 * - Once: every write carries an `Idempotency-Key`; one whose answer was lost (network error, 5xx, `writeTimeout`) is
 *   sent again with the same key, and the server answers a repeat with the first answer. A 409 whose problem names
 *   `/Idempotency-Key` (the first still in flight) is sent again with the same key after its Retry-After.
 * - In order: one request at a time, in the order the writes were made. `pendingWrites` lists them.
 * - Offline: while requests get no answer the writes queue and the state is "offline". With `storage`, every change
 *   is stored; `stop()` leaves the pending writes stored, and a follower made later on the same storage shows the
 *   stored document with its writes at once (`target.reset(document, "restored")`, before any request), catches up
 *   from its revision by a diff, and sends the writes (each again with its stored key and request, until refused).
 */
export class ListFollower extends Follower {
  constructor(baseURL, listID, target = {}, options = {}) {
    super(baseURL, options);
    this.listID = listID;
    this.target = target;
    this.document = null;
    this.revision = null;
    this.lastDiff = null;
    this.resets = 0;
    this._query = queryText(options.query); // the `q` followed (JSON text), null for the whole list
    this._stale = null; // {reason, detail}: the document is to be fetched again before following goes on
    this._changing = null; // the AbortController of a query change in flight
    this._changes = Promise.resolve(); // query changes, one after the other
    this.writable = options.writable === true;
    const local = this.writable || options.storage != null;
    if (local && this._query !== null) throw new TypeError(WHOLE_LIST);
    this._writes = local ? new WriteQueue(this) : null; // the writes on top of the server's document, and the storage
    this._confirmed = null; // with _writes: the server's document (`document` is it with the writes on top)
    this._confirmedAt = new Map(); // with _writes: recent server documents by revision (a diff may start from any)
  }

  get url() {
    return listURL(this.baseURL, this.listID);
  }

  /** The query followed (an object, or the text given when it is no JSON), or null for the whole list. */
  get query() {
    if (this._query === null) return null;
    try {
      return JSON.parse(this._query);
    } catch {
      return this._query;
    }
  }

  // `&q=…` for a URL that has a query string already, "" for the whole list.
  get _qParam() {
    return this._query === null ? "" : `&q=${encodeURIComponent(this._query)}`;
  }

  // The document: the whole list's, or the query's result.
  _documentURL() {
    return this._query === null ? this.url : `${this.url}?q=${encodeURIComponent(this._query)}`;
  }

  /**
   * Follows `query` (an object or its JSON text; null, "" or `{}`: the whole list) instead of the query followed now,
   * as one diff: the poll in flight is given up, `GET .../diff?from=R&fromQuery=<old>&q=<new>` (`fromQuery={}` from
   * the whole list, no `q` to it) answers the diff from the old query's result at the revision R held to the new
   * one's at the list's current revision, and that diff is checked, applied and handed to the target and `onDiff`
   * like any other (so a page animates it). Following then goes on from its `to`, by the `next` link it names.
   * Resolves to the new document once applied. Changes are made one after the other, in the order asked.
   *
   * Rejects, the follower going on with the query it had, when the server refuses the query (an HTTPError 400 whose
   * `body.pointer` names the member, `/q/limit`), when the request fails, or when `pause()` or `stop()` interrupts
   * it (an AbortError). When the revision held is gone (410) or the diff does not fit, the new query's document is
   * fetched instead (`target.reset`, `onReset`). Before the first document is loaded, the query is only swapped (it
   * resolves to null): the document is loaded with it.
   */
  setQuery(query) {
    if (this._writes) return Promise.reject(new TypeError(WHOLE_LIST));
    const change = () => this._changeQuery(query);
    const done = this._changes.then(change, change);
    this._changes = done.catch(() => {});
    return done;
  }

  async _changeQuery(query) {
    const text = queryText(query);
    const following = this._running && !this._paused;
    const abort = new AbortController();
    this._changing = abort; // resume() and start() leave following to the change meanwhile
    try {
      if (following) {
        this._halt(); // the poll, stream or document fetch in flight is given up
        await this._loop?.catch(() => {});
      }
      this._abort = abort; // pause() and stop() interrupt the change
      const signal = abort.signal;
      if (this.document === null || this._stale) {
        // Nothing is shown yet, or what is shown is to be fetched again anyway: the document, with the new query.
        this._query = text;
        this._next = null;
        if (this.document === null) return null; // following loads it (start() or below)
        await this._reload(signal, this._stale.reason, this._stale.detail);
        return this.document;
      }
      const from = this.revision;
      // fromQuery is always sent (`{}` for the whole list): without it the request would be a poll of the new query.
      const params = [`from=${from}`, `fromQuery=${encodeURIComponent(this._query ?? "{}")}`];
      if (text !== null) params.push(`q=${encodeURIComponent(text)}`);
      const res = await this._get(`${this.url}/diff?${params.join("&")}`, { signal });
      if (res.status === 410) {
        this._query = text;
        this._next = null;
        await this._reload(signal, "gone", `revision ${from} is gone (changing the query)`);
        return this.document;
      }
      if (!res.ok) throw new HTTPError(res.status, await res.json().catch(() => null));
      const diff = await res.json();
      if (signal.aborted) throw new DOMException("the query change was interrupted", "AbortError");
      this._query = text;
      const next = nextLink(res.headers.get("Link"));
      this._next = next && Number.isInteger(diff.to) ? { from: diff.to, url: this._resolve(next) } : null;
      const document = this.document;
      this.document = withQuery(document, next, text);
      const failure = advance(this, diff);
      if (failure) {
        this.document = document;
        await this._reload(signal, failure.reason, failure.detail);
        return this.document;
      }
      this._backoff.reset();
      this.options.onDiff?.(diff, this.document, this.listID);
      return this.document;
    } finally {
      if (this._changing === abort) this._changing = null;
      if (this._abort === abort) this._abort = null;
      // Following goes on (with the new query, or the old one after a failure) unless pause() or stop() came.
      if (this._running && !this._paused && !this._changing) this._loop = this._run();
    }
  }

  // After a query change that could not be applied as a diff: the new query's document, fetched whole (a reset).
  // A follower that is not following tries once; when the document is not had, it is fetched before following
  // goes on.
  async _reload(signal, reason, detail) {
    this._stale = { reason, detail };
    if (this._alive(signal)) {
      if (await this._load(signal, reason, detail)) return;
    } else if (!signal.aborted) {
      this._take(await this._getDocument(this._documentURL(), signal), reason, detail);
      return;
    }
    throw new DOMException("the query change was interrupted", "AbortError");
  }

  /** A page of this list's history (see `fetchHistory`), with this follower's token. */
  history(options = {}) {
    return fetchHistory(this.baseURL, this.listID, { token: this.options.token, ...options });
  }

  /** Reverts the list to revision `to`, on condition that it still is at the revision this follower shows. */
  revert(to, options = {}) {
    return revert(this.baseURL, this.listID, to, { ifMatch: this.revision, token: this.options.token, ...options });
  }

  /** The server's document as last heard of: `document` without the pending writes (the same without writes). */
  get confirmedDocument() {
    return this._writes ? this._confirmed : this.document;
  }

  /**
   * The writes not yet acknowledged, in the order made, each as `{kind, key, ...}` with the members of its kind:
   * insert `{item, section, after}`, update `{id, changes}`, remove `{id}`, move `{id, section, after}`, put
   * `{document}`, patch `{operations}`; `key` is its current Idempotency-Key (null until it is first sent).
   */
  get pendingWrites() {
    return this._writes?.pendingWrites() ?? [];
  }

  /** Inserts `item` (`{id, type, cell, model}`) at `{section, after}`; resolves with `{revision}` once acknowledged. */
  insert(item, place = {}) {
    return this._write(() => placedWrite("insert", { item: checkedItem(item) }, place));
  }

  /** Replaces the members `changes` holds (any of `model`, `cell`, `type`) of item `id`. */
  update(id, changes) {
    return this._write(() => ({ kind: "update", id: checkedID(id, "an item id"), changes: checkedChanges(changes) }));
  }

  /** Removes item `id`. */
  remove(id) {
    return this._write(() => ({ kind: "remove", id: checkedID(id, "an item id") }));
  }

  /** Moves item `id` to `{section, after}`. */
  move(id, place = {}) {
    return this._write(() => {
      const write = placedWrite("move", { id: checkedID(id, "an item id") }, place);
      if (write.after === write.id) throw new TypeError("an item cannot move after itself");
      return write;
    });
  }

  /** Replaces the whole document (a PUT; the short `{kind: "array", title, items}` form too). */
  put(document) {
    return this._write(() => {
      if (!isObject(document)) throw new TypeError("put() takes a document object");
      return { kind: "put", document: jsonCopy(document) };
    });
  }

  /** Sends `operations` (RFC 6902 JSON Patch) as they are; a ConflictError when the server cannot apply them. */
  patch(operations) {
    return this._write(() => {
      if (!Array.isArray(operations)) throw new TypeError("patch() takes an array of JSON Patch operations");
      return { kind: "patch", operations: jsonCopy(operations) };
    });
  }

  /** Loads (or restores from `storage`) and starts following and sending writes; resolves with the first document. */
  start() {
    const ready = super.start();
    this._writes?.kick();
    return ready;
  }

  /**
   * Stops following for good, and sending writes: with `storage` they stay stored (their promises stay pending) for
   * the next follower on it (this one, started again, sends only writes made since and stores nothing); without
   * storage (or when another follower holds it), their promises reject with an AbortError.
   */
  stop() {
    super.stop();
    this._writes?.halt();
    // Without storage, nothing will send them: their promises reject (a write in flight may still have landed).
    if (this._writes && !this._writes.keepsWrites) {
      this._writes.abandon(new DOMException("the follower stopped before the write was acknowledged", "AbortError"));
    }
    this._writes?.release();
  }

  // Queues the write `make()` builds (a TypeError for bad arguments rejects the promise).
  _write(make) {
    if (!this.writable) return Promise.reject(new TypeError("this follower was not made with {writable: true}"));
    let write;
    try {
      write = make();
    } catch (error) {
      return Promise.reject(error);
    }
    return this._writes.add(write);
  }

  // Holds `document` as the server's; returns what is shown: it with the writes on top.
  _confirm(document, save = true) {
    this._confirmed = document;
    this._remember(document);
    this._writes.reached(document.revision);
    if (save) this._writes.save();
    return this._writes.overlay(document);
  }

  // Keeps the last 16 server documents by revision, for diffs that start from one the follower has moved past.
  _remember(document) {
    this._confirmedAt.set(document.revision, document);
    if (this._confirmedAt.size > 16) this._confirmedAt.delete(this._confirmedAt.keys().next().value);
  }

  /**
   * With writes: applies a server diff to the server's document it starts from (the one held, or a recent one: a
   * write's answer or a catch-up may have moved the follower on meanwhile), then shows the result with the writes on
   * top. A diff the follower holds already is dropped. Null when done, else why the document must be fetched again.
   */
  _accept(diff) {
    if (Number.isInteger(diff.to) && diff.to <= this.revision) return null;
    const base = diff.from === this.revision ? this._confirmed : this._confirmedAt.get(diff.from);
    if (!base) return { reason: "mismatch", detail: `diff from ${diff.from}, holding ${this.revision}` };
    let next;
    try {
      next = applyBatchDiff(base, diff);
    } catch (error) {
      return { reason: "check", detail: error.message };
    }
    this._confirmed = next;
    this.revision = next.revision;
    this._remember(next);
    this._writes.reached(next.revision);
    this._render(diff, base);
    this._writes.save();
    return null;
  }

  /**
   * Shows the server's document with the writes on top. The target gets the diff from what it showed: `serverDiff`
   * itself when no write is on top before or after (`base` being the document it applies to), else one computed by
   * id. A target that throws is reset with the document (`target.reset(document, "target")`).
   */
  _render(serverDiff = null, base = null) {
    if (this._confirmed === null) return; // nothing is shown yet: the document comes with the writes on top
    const before = this.document;
    const shown = this._writes.overlay(this._confirmed);
    this.document = shown;
    if (before === null) return;
    const plain = serverDiff !== null && before === base && shown === this._confirmed;
    const diff = plain ? serverDiff : diffDocuments(before, shown);
    // A computed diff that changes nothing (a write's own answer, say) is not handed on.
    if (!plain && diffSize(diff) === 0 && sameCounts(before, shown)) return;
    try {
      checkCounts(before, diff);
      // A computed batch must lead exactly to what is shown (UIKit refuses any other).
      if (!plain) applyBatchDiff(before, diff);
      this.lastDiff = diff;
      performBatchDiff(diff, this.target);
    } catch (error) {
      this._resetTarget("target", String(error?.message ?? error));
      return;
    }
    this.options.onDiff?.(diff, shown, this.listID);
  }

  // A write got its answer: no longer "offline" or "retrying".
  _online() {
    if (this.state === "offline" || this.state === "retrying") this._setState(this._paused ? "paused" : "live");
  }

  // Draws the whole document on a target that failed a batch.
  _resetTarget(reason, detail) {
    this.lastDiff = null;
    this.resets += 1;
    try {
      this.target?.reset?.(this.document, reason);
    } catch (error) {
      this.options.onError?.(error, 0, this.listID);
    }
    this.options.onReset?.({ reason, detail, from: this.revision, document: this.document }, this.listID);
  }

  /**
   * Brings the server's document to the list's current revision with one diff (GET .../diff?from=R, answered at once;
   * the document again on a 410 or a diff that does not fit). Throws an HTTPError for other answers (404: no list).
   */
  async _catchUp(signal) {
    const res = await this._get(`${this.url}/diff?from=${this.revision}`, { signal });
    if (res.status === 410) return this._refetch(signal, "gone", `revision ${this.revision} is gone`);
    if (!res.ok) throw new HTTPError(res.status, await res.json().catch(() => null));
    const diff = await res.json();
    if (signal.aborted || (diff.from === diff.to && diffSize(diff) === 0)) return;
    const failure = this._accept(diff);
    if (failure) await this._refetch(signal, failure.reason, failure.detail);
  }

  async _refetch(signal, reason, detail) {
    const document = await this._getDocument(this._documentURL(), signal);
    if (!signal.aborted) this._take(document, reason, detail);
  }

  /**
   * Sends a write's request with its Idempotency-Key; resolves to the answer `{status, ok, headers, body}` (body: the
   * JSON, or null). Throws when no answer came (a network error, `writeTimeout`, `signal`) or a 2xx answer's body was
   * lost: the same request is then sent again with the same key.
   */
  async _sendWrite(entry, signal) {
    const { method, body } = entry.request;
    const headers = {
      Accept: "application/json",
      ...(this.options.headers ?? {}),
      "Content-Type": method === "PATCH" ? "application/json-patch+json" : "application/json",
      "Idempotency-Key": entry.key,
    };
    const payload = JSON.stringify(body);
    const timeout = new AbortController();
    const stop = () => timeout.abort(signal.reason);
    if (signal.aborted) stop();
    signal.addEventListener("abort", stop, { once: true });
    const late = new DOMException("the write got no answer in time", "TimeoutError");
    const timer = setTimeout(() => timeout.abort(late), this.options.writeTimeout ?? 20000);
    try {
      const init = { method, body: payload, signal: timeout.signal, cache: "no-store" };
      const send = (auth) => this._fetch(this.url, { ...init, headers: { ...headers, ...auth } });
      const res = await withToken(this.options.token, send, timeout.signal);
      const text = await res.text();
      let parsed = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // Not JSON: an answer the follower does not read (a proxy's error page).
      }
      if (res.ok && parsed === null) throw new TypeError("the write's answer was lost");
      return { status: res.status, ok: res.ok, headers: res.headers, body: parsed };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", stop);
    }
  }

  async _run() {
    const signal = this._begin();
    const alive = () => this._alive(signal);
    try {
      if (this.document === null && this._writes && this._confirmed === null) {
        // What the storage keeps is shown before any request (once: a follower that held a document since
        // loads it again instead, and never goes back to the stored one).
        const stored = await this._writes.restore();
        if (!alive()) return;
        if (stored && this.document === null) this._take(stored, "restored");
      }
      if (this.document === null) {
        if (!(await this._load(signal, "initial"))) return;
      } else if (this._stale) {
        if (!(await this._load(signal, this._stale.reason, this._stale.detail))) return;
      }
      if (this.options.mode === "events") return this._openEvents(signal);
      while (alive()) {
        let res;
        try {
          res = await this._longPoll(this._pollURL(), signal);
        } catch (error) {
          if (!alive()) return;
          await this._retry(error, signal);
          continue;
        }
        if (!alive()) return;
        if (res.status === 410) {
          const body = await res.json().catch(() => ({}));
          await this._load(signal, "gone", `revision ${this.revision} is gone (current ${body.current})`);
          continue;
        }
        if (!res.ok) {
          const body = await res.text().catch(() => "");
          await this._retry(new HTTPError(res.status, body), signal);
          if (res.status === 404 && alive()) await this._load(signal, "missing", "the list was not found");
          continue;
        }
        let diff;
        try {
          diff = await res.json();
        } catch (error) {
          if (!alive()) return;
          await this._retry(error, signal);
          continue;
        }
        if (!alive()) return;
        this._backoff.reset();
        this._setState("live");
        const next = nextLink(res.headers.get("Link"));
        this._next = next && typeof diff.to === "number" ? { from: diff.to, url: this._resolve(next) } : null;
        if (!this._applyOrReset(diff)) await this._load(signal, this._failure.reason, this._failure.detail);
      }
    } catch (error) {
      // A target or callback threw outside the guarded paths: wait, then start over from the document.
      if (!alive()) return;
      await this._retry(error, signal);
      if (alive()) {
        this.document = null;
        this._loop = this._run();
      }
    }
  }

  // The next poll: the one the last answer named, when it starts from the revision held; else the first form.
  _pollURL() {
    if (this._next && this._next.from === this.revision) return this._next.url;
    return `${this.url}/diff?from=${this.revision}${this._qParam}&wait=${this.options.wait}`;
  }

  // A `next` target: a path (the server's, `/v1/lists/...`) under baseURL, so a prefix a proxy serves the
  // service under is kept; any other reference resolved against the list's URL.
  _resolve(target) {
    if (target.startsWith("/") && !target.startsWith("//")) return this.baseURL + target;
    return new URL(target, new URL(this.url, globalThis.location?.href ?? "http://localhost/")).href;
  }

  // Applies `diff` and drives the target; false (with this._failure) when it has to reset instead.
  _applyOrReset(diff) {
    if (diff.from === diff.to && diffSize(diff) === 0) return true; // a long poll that timed out
    if (this._writes) {
      this._failure = this._accept(diff);
      return !this._failure;
    }
    this._failure = advance(this, diff);
    if (this._failure) return false;
    this.options.onDiff?.(diff, this.document, this.listID);
    return true;
  }

  // Fetches the document until it succeeds (or the follower stops); true when loaded.
  async _load(signal, reason, detail) {
    this._setState("loading");
    const done = await this._persist(async () => {
      const document = await this._getDocument(this._documentURL(), signal);
      if (signal.aborted) return false;
      this._backoff.reset();
      this._setState("live");
      this._take(document, reason, detail);
      return true;
    }, signal);
    return done?.value === true;
  }

  // Holds `document`, fetched whole: the target and the callbacks are told.
  // With writes, `document` is the server's: what is shown is it with the writes on top.
  _take(document, reason, detail) {
    const from = this.revision;
    this._stale = null;
    const shown = this._writes ? this._confirm(document, reason !== "restored") : document;
    this.document = shown;
    this.revision = document.revision;
    this.lastDiff = null;
    this.target?.reset?.(shown, reason);
    if (reason === "initial" || reason === "restored") {
      this.options.onLoad?.(shown, this.listID);
    } else {
      this.resets += 1;
      this.options.onReset?.({ reason, detail, from, document: shown }, this.listID);
    }
    this._resolveReady?.(shown);
    this._resolveReady = null;
    this._writes?.kick();
  }

  _openEvents(signal) {
    if (!this._alive(signal)) return;
    let source = null;
    const restart = async (reason, detail) => {
      source?.close();
      if (this._source === source) this._source = null;
      if (!(await this._load(signal, reason, detail))) return;
      this._openEvents(signal);
    };
    this._stream(`${this.url}/events?from=${this.revision}${this._qParam}`, signal, {
      diff: (data) => {
        let diff;
        try {
          diff = JSON.parse(data);
        } catch (error) {
          return void restart("check", `unreadable event: ${error.message}`);
        }
        if (!this._applyOrReset(diff)) restart(this._failure.reason, this._failure.detail);
      },
      reset: (data) => {
        let current = null;
        try { current = JSON.parse(data).current; } catch { /* keep null */ }
        restart("event", `event: reset (current ${current})`);
      },
    }, () => this._openEvents(signal)).then((opened) => { source = opened; });
  }
}

/**
 * Follows many lists over one connection: one long poll (GET /v1/diffs?lists=a:5,b:0&wait=S, the default) or one
 * event stream (`mode: "events"`, GET /v1/events?lists=a:5,b:0) for the whole set, at most the server's
 * `maxListsPerRequest` (100) lists. `targets` maps list ids to targets (a plain object, a Map, or an array of ids
 * or of [id, target] pairs); every list is followed as ListFollower follows one, with the same target protocol.
 *
 * - Start: each list's document is fetched (GET /v1/lists/{id}); a 404 holds the list at revision 0 with an empty
 *   document (`{id, revision: 0, sections: []}`), so its creation arrives as a diff from 0. The connection opens
 *   once every list has been tried; a list whose document loads later joins by a reconnect.
 * - Per list: `counts` are checked and the diff applied before the target sees it; a diff that does not fit, a
 *   target that throws or a reset (`event: reset` / an entry of `resets`, the list deleted or its revision not
 *   served) fetches that list's document again, the others go on. While the fetch is out, that list's diffs are
 *   kept; then those whose `to` is at most the revision fetched are dropped and the rest applied in order.
 *   A reset to revision 0 (the list deleted) needs no fetch: the list holds the empty document.
 * - `add(listID, target)` fetches the list's document, then reconnects with the larger set; `remove(listID)`
 *   reconnects without it. The other lists keep their documents: the new connection asks from their revisions.
 * - Network errors and failed requests are retried with capped exponential backoff and jitter, as ListFollower's.
 *
 * `options` are ListFollower's (but `query`, `writable` and `storage`: it only reads whole lists); every callback gets
 * the list id as its last argument: `onLoad(document, id)`, `onDiff(diff, document, id)`, `onReset({id, reason,
 * detail, from, document}, id)` with reason "deleted" (reset to 0), "event" (event stream) or "gone" (long poll) for
 * a reset, "check", "mismatch" or "target" for a diff that did not fit, `onError(error, retryInMs, id)` (id null for
 * the connection), `onState(state, id)` for each list ("loading", "offline" or "retrying" while its document is
 * fetched, else the connection's state) and with id null for the connection itself. `follower.get(id)` is a list's
 * `{id, document, revision, lastDiff, state, resets}`; `follower.documents` maps ids to documents.
 */
export class ManyListFollower extends Follower {
  constructor(baseURL, targets = {}, options = {}) {
    super(baseURL, options);
    this.lists = new Map();
    for (const [id, target] of targetEntries(targets)) if (!this.lists.has(id)) this.lists.set(id, this._list(id, target));
    this._signal = null;
    this._connected = false;
    this._openKey = null;
    this._wake = null;
  }

  /** The ids followed, in the order of the connection's `lists`. */
  get ids() {
    return [...this.lists.keys()];
  }

  /** `{listID: document}` (null for a list whose document has not loaded yet). */
  get documents() {
    return Object.fromEntries([...this.lists].map(([id, list]) => [id, list.document]));
  }

  /** `{listID: revision}` (0 for a list that does not exist). */
  get revisions() {
    return Object.fromEntries([...this.lists].map(([id, list]) => [id, list.revision]));
  }

  /** What the follower holds for `listID`, or null when it does not follow it. */
  get(listID) {
    return this.lists.get(listID) ?? null;
  }

  /**
   * Follows `listID` too (nothing changes when it already does); resolves with its document once loaded, when it
   * joins the connection.
   */
  add(listID, target = {}) {
    const known = this.lists.get(listID);
    if (known) return known.ready;
    const list = this._list(listID, target);
    this.lists.set(listID, list);
    if (this._alive(this._signal)) this._load(list, "initial", undefined, this._signal);
    return list.ready;
  }

  /** Stops following `listID` (the others go on); false when it was not followed. */
  remove(listID) {
    const list = this.lists.get(listID);
    if (!list) return false;
    this.lists.delete(listID);
    list.pending = [];
    list.state = "stopped";
    this._reconnect();
    return true;
  }

  _list(id, target) {
    if (typeof id !== "string" || !LIST_ID.test(id)) throw new TypeError(`not a list id: ${JSON.stringify(id)}`);
    const list = {
      id, target, document: null, revision: null, lastDiff: null, state: "idle", resets: 0,
      cursor: null, // the revision the connection has reached for this list (diffs come from there)
      pending: [], // diffs that arrived while the document was being fetched
      loading: null, // {signal} while the document is being fetched
      loadState: "loading",
      epoch: 0, // +1 at every reset: a document asked for before it is not taken
      stale: null, // {reason, detail} of a fetch still to do
      backoff: new Backoff(this.backoff),
    };
    list.ready = new Promise((resolve) => { list.resolveReady = resolve; });
    return list;
  }

  _setState(state) {
    super._setState(state);
    for (const list of this.lists.values()) this._syncList(list);
  }

  _retrying(list, error) {
    if (!list) return super._retrying(list, error);
    list.loadState = failedState(error);
    this._syncList(list);
  }

  _syncList(list) {
    const state = list.loading && this._alive(this._signal) ? list.loadState : this.state;
    if (list.state === state || this.lists.get(list.id) !== list) return;
    list.state = state;
    this.options.onState?.(state, list.id);
  }

  // The connection's `lists` entries: every list whose document has loaded once, from the revision it holds (or,
  // while its document is fetched, from where the connection is).
  _entries() {
    const out = [];
    for (const list of this.lists.values()) {
      if (list.document !== null) out.push(`${list.id}:${list.loading ? list.cursor : list.revision}`);
    }
    return out;
  }

  _key(entries) {
    return entries.map((e) => e.slice(0, e.lastIndexOf(":"))).join(",");
  }

  async _run() {
    const signal = this._begin();
    this._signal = signal;
    this._connected = false;
    this._setState("loading");
    const first = [];
    for (const list of this.lists.values()) {
      if (list.document === null) first.push(new Promise((tried) => this._load(list, "initial", undefined, signal, tried)));
      else if (list.stale) this._load(list, list.stale.reason, list.stale.detail, signal);
    }
    await Promise.all(first);
    if (!this._alive(signal)) return;
    this._checkReady();
    this._connected = true;
    this._setState("live");
    if (this.options.mode === "events") this._openEvents(signal);
    else await this._poll(signal);
  }

  // Resolves start()'s promise once every list's document is held.
  _checkReady() {
    if (!this._resolveReady || [...this.lists.values()].some((l) => l.document === null)) return;
    this._resolveReady(this.documents);
    this._resolveReady = null;
  }

  // Reconnects when the set of lists to follow is not the one the connection follows.
  _reconnect() {
    if (!this._connected || !this._alive(this._signal)) return;
    if (this._key(this._entries()) === this._openKey) return;
    if (this.options.mode === "events") {
      this._source?.close();
      this._source = null;
      this._openEvents(this._signal);
    } else {
      this._wake?.abort();
    }
  }

  async _poll(signal) {
    while (this._alive(signal)) {
      const wake = new AbortController();
      this._wake = wake;
      const entries = this._entries();
      this._openKey = this._key(entries);
      if (!entries.length) {
        await aborted(signal, wake.signal); // nothing to follow until add()
        continue;
      }
      let body;
      try {
        const res = await this._longPoll(`${this.baseURL}/v1/diffs?lists=${entries.join(",")}&wait=${this.options.wait}`, signal, wake.signal);
        if (!res.ok) throw new HTTPError(res.status, await res.text().catch(() => ""));
        body = await res.json();
      } catch (error) {
        if (!this._alive(signal)) return;
        if (wake.signal.aborted) continue; // add() or remove(): ask again for the new set
        await this._retry(error, signal);
        continue;
      }
      if (!this._alive(signal)) return;
      this._backoff.reset();
      this._setState("live");
      for (const reset of body?.resets ?? []) this._receive("reset", reset);
      for (const diff of body?.diffs ?? []) this._receive("diff", diff);
    }
  }

  _openEvents(signal) {
    if (!this._alive(signal)) return;
    const entries = this._entries();
    this._openKey = this._key(entries);
    if (!entries.length) return; // nothing to follow until add()
    const handle = (kind) => (data, broken) => {
      let body;
      try {
        body = JSON.parse(data);
      } catch (error) {
        return void broken(new Error(`unreadable event: ${error.message}`));
      }
      this._receive(kind, body);
    };
    this._stream(`${this.baseURL}/v1/events?lists=${entries.join(",")}`, signal,
      { diff: handle("diff"), reset: handle("reset") }, () => this._openEvents(signal));
  }

  // One diff or reset from the connection.
  _receive(kind, body) {
    const list = this.lists.get(body?.id);
    if (!list || list.document === null) return;
    try {
      if (kind === "reset") return this._reset(list, body.current);
      if (Number.isInteger(body.to)) list.cursor = body.to;
      this._diff(list, body);
    } catch (error) {
      // A target or callback threw: show this list from its document again.
      this._refetch(list, "target", String(error?.message ?? error));
    }
  }

  _diff(list, diff) {
    if (list.loading) {
      // Kept for when the document is in; a long outage keeps the newest (a gap then shows as a mismatch).
      if (list.pending.length >= 1000) list.pending.shift();
      return void list.pending.push(diff);
    }
    if (diff.to <= list.revision) return; // the document fetched already holds it
    const failure = advance(list, diff);
    if (failure) return this._refetch(list, failure.reason, failure.detail);
    this.options.onDiff?.(diff, list.document, list.id);
  }

  _reset(list, current) {
    list.epoch += 1;
    list.pending = [];
    list.cursor = current;
    const reason = current === 0 ? "deleted" : this.options.mode === "events" ? "event" : "gone";
    const detail = `reset: the list is at revision ${current}`;
    if (current === 0 && !list.loading) {
      if (list.revision !== 0) this._settle(list, emptyDocument(list.id), reason, detail);
      return;
    }
    this._refetch(list, reason, detail);
  }

  _refetch(list, reason, detail) {
    if (this._alive(this._signal)) this._load(list, reason, detail, this._signal);
    else list.stale = { reason, detail };
  }

  // Fetches `list`'s document until it is had (or the list is dropped, or the follower stops); `tried()` is called
  // once the first attempt is over, however it went.
  _load(list, reason, detail, signal, tried = () => {}) {
    if (list.loading?.signal === signal) {
      tried();
      return;
    }
    const loading = { signal };
    list.loading = loading;
    list.loadState = "loading";
    list.stale = { reason, detail };
    this._syncList(list);
    const alive = () => this._alive(signal) && this.lists.get(list.id) === list;
    const url = listURL(this.baseURL, list.id);
    const attempt = async () => {
      try {
        for (;;) {
          list.loading = loading;
          const epoch = list.epoch;
          const document = await this._getDocument(url, signal).catch((error) => {
            if (error instanceof HTTPError && error.status === 404) return null;
            throw error;
          });
          if (!alive()) return;
          // A reset came while the request was out: that document may predate it; ask again.
          if (list.epoch === epoch) return this._settle(list, document ?? emptyDocument(list.id), reason, detail);
        }
      } finally {
        tried();
      }
    };
    this._persist(attempt, signal, list, alive).finally(() => {
      tried();
      if (list.loading === loading) list.loading = null;
      this._syncList(list);
    });
  }

  // `list` holds `document` now: tell its target and callbacks, then apply the diffs kept meanwhile.
  _settle(list, document, reason, detail) {
    const from = list.revision;
    list.loading = null;
    list.stale = null;
    list.document = document;
    list.revision = document.revision;
    list.lastDiff = null;
    if (list.cursor === null || document.revision === 0) list.cursor = document.revision;
    list.backoff.reset();
    this._syncList(list);
    list.target?.reset?.(document, reason);
    if (reason === "initial") {
      this.options.onLoad?.(document, list.id);
    } else {
      list.resets += 1;
      this.options.onReset?.({ id: list.id, reason, detail, from, document }, list.id);
    }
    list.resolveReady(document);
    this._checkReady();
    const pending = list.pending;
    list.pending = [];
    for (const diff of pending) this._diff(list, diff);
    if (reason === "initial") this._reconnect();
  }
}

function targetEntries(targets) {
  if (targets instanceof Map) return [...targets];
  if (Array.isArray(targets)) return targets.map((t) => (Array.isArray(t) ? [t[0], t[1] ?? {}] : [t, {}]));
  return Object.entries(targets ?? {});
}

async function answer(res) {
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new HTTPError(res.status, body);
  return body;
}

/**
 * A page of `listID`'s retained revisions, newest first: `{revisions: [{revision, committedAt, by, sections,
 * items, changes}], oldestRevision, next}`; pass `next` as `before` for the next (older) page.
 * Throws an HTTPError for any answer but 200 (404: no such list).
 */
export async function fetchHistory(baseURL, listID, { before, limit, headers = {}, token } = {}) {
  const query = new URLSearchParams();
  if (before != null) query.set("before", String(before));
  if (limit != null) query.set("limit", String(limit));
  const text = query.toString();
  const suffix = text ? `?${text}` : "";
  const url = `${listURL(baseURL, listID)}/revisions${suffix}`;
  return answer(await withToken(token, (auth) => fetch(url, { cache: "no-store", headers: { ...headers, ...auth } })));
}

/**
 * Writes a new revision of `listID` whose content equals revision `to`'s; resolves to `{id, revision, diff}`
 * (the same revision and an empty diff when the content already is revision `to`'s). `ifMatch` (a revision)
 * makes it conditional: 412 when the list moved on. Throws an HTTPError otherwise (410: `to` is not retained).
 */
export async function revert(baseURL, listID, to, { ifMatch, headers = {}, token } = {}) {
  const all = { "Content-Type": "application/json", ...headers };
  if (ifMatch != null) all["If-Match"] = `"${ifMatch}"`;
  const url = `${listURL(baseURL, listID)}/revert`;
  const body = JSON.stringify({ to });
  return answer(await withToken(token, (auth) => fetch(url, { method: "POST", headers: { ...all, ...auth }, body })));
}

/** The token `token` (a string, or a function `({fresh}) => token` or a promise of one) gives now; null for none. */
async function tokenOf(token, fresh = false) {
  if (typeof token === "function") return (await token({ fresh })) || null;
  return token || null;
}

/**
 * Sends `request(headers)` with the token's Authorization header; after a 401 (unless `signal` aborted), once more
 * with a fresh token when `token` is a function.
 */
async function withToken(token, request, signal = null) {
  const send = async (fresh) => {
    const value = await tokenOf(token, fresh);
    return request(value ? { Authorization: `Bearer ${value}` } : {});
  };
  const res = await send(false);
  return res.status === 401 && typeof token === "function" && !signal?.aborted ? send(true) : res;
}

/** Starts following `listID` at `baseURL` (use "" for the page's own origin); returns the ListFollower. */
export function follow(baseURL, listID, target, options) {
  const follower = new ListFollower(baseURL, listID, target, options);
  follower.start();
  return follower;
}

/**
 * Starts following the lists of `targets` (`{listID: target}`) at `baseURL` over one connection; returns the
 * ManyListFollower (`follower.start()` resolves once every list's document is held).
 */
export function followMany(baseURL, targets, options) {
  const follower = new ManyListFollower(baseURL, targets, options);
  follower.start();
  return follower;
}

// ---- Writes: a writable follower's queue, the patches it sends, the storages it keeps them in ----

/**
 * A writable follower's writes: those not yet acknowledged (`pending`, in the order made, the first one being sent)
 * and those acknowledged at a revision the follower has not reached yet (`acked`, shown on top until it does); the
 * loop that sends them one at a time; and the storage that keeps them with the server's document.
 */
class WriteQueue {
  constructor(follower) {
    this.follower = follower;
    this.pending = []; // {write, key, request, resolve, reject}: `request` ({method, body}) is what `key` was sent with
    this.acked = []; // {write, revision}
    this.backoff = new Backoff(follower.backoff);
    this.storage = follower.options.storage ?? null;
    this.storageKey = `listdelta:${follower.listID}`;
    this.restoring = null; // the promise of the stored document
    this.storedDocument = null; // the document the storage held, kept in what is stored until one is confirmed
    this.restored = this.storage === null; // nothing is stored before what the storage holds has been read
    this.lease = null; // the Web Lock that makes this the one follower storing the list (storage with a lockName)
    this.readDone = this.storage === null; // what the storage holds was read (or never will be): writes may go
    this.released = false; // stop() handed the writes to the storage: this follower stores nothing more
    this.catchUpFirst = false; // after a restore: catch up before the first write is sent
    this.abort = null; // the sending loop's AbortController
    this.sending = false;
    this.saveWanted = false;
    this.saving = null; // the promise of the storing loop
  }

  /** `document` with the writes on top, in order; one that cannot apply (what it names is gone) is left out. */
  overlay(document) {
    let shown = document;
    for (const { write } of [...this.acked, ...this.pending]) {
      const next = applyWrite(shown, write);
      if (next && hasUniqueIDs(next)) shown = next;
    }
    return shown;
  }

  /** The follower holds `revision`: the writes acknowledged at it or before are in the server's document. */
  reached(revision) {
    if (this.acked.length) this.acked = this.acked.filter((a) => a.revision > revision);
  }

  pendingWrites() {
    return this.pending.map(describe);
  }

  /** Queues `write`, shows it, stores it and sends it in its turn; resolves or rejects with its outcome. */
  add(write) {
    return new Promise((resolve, reject) => {
      this.pending.push({ write, key: null, request: null, resolve, reject });
      this.save();
      this.guarded(() => this.follower._render());
      this.kick();
    });
  }

  /** Runs `body` (what calls the target and the callbacks); an error it throws is reported, not thrown. */
  guarded(body) {
    try {
      body();
    } catch (error) {
      this.follower.options.onError?.(error, 0, this.follower.listID);
    }
  }

  /** Settles every pending write with `error` and forgets them (a follower without storage that stops). */
  abandon(error) {
    const abandoned = this.pending;
    this.pending = [];
    for (const entry of abandoned) entry.reject(error);
  }

  /**
   * Starts the sending loop unless it runs, the follower is stopped, nothing is pending, or the first write must wait
   * (`waits()`).
   */
  kick() {
    const f = this.follower;
    if (this.sending || !f._running || !this.pending.length || this.waits()) return;
    const abort = new AbortController();
    this.abort = abort;
    this.sending = true;
    this.run(abort.signal).finally(() => {
      this.sending = false;
      if (this.abort === abort) this.abort = null;
      this.kick(); // writes made meanwhile, or a start() after a stop()
    });
  }

  /** Stops sending: the write in flight is given up (the next loop sends it again, with its key). */
  halt() {
    this.abort?.abort();
  }

  /**
   * Whether the first write must wait: while the storage is read (its writes go first), and until the follower has a
   * document, unless it is a put (sent as it is: on a list that does not exist, it makes it). `_take` kicks again.
   */
  waits() {
    return !this.readDone || (this.follower._confirmed === null && this.pending[0]?.write.kind !== "put");
  }

  async run(signal) {
    while (this.pending.length && !signal.aborted && !this.waits()) {
      const entry = this.pending[0];
      const outcome = await this.deliver(entry, signal);
      if (!outcome || signal.aborted) return;
      this.settle(entry, outcome);
    }
  }

  /**
   * Sends `entry` until it is acknowledged (`{revision, body}`) or refused (`{error}`); null when `signal` aborts.
   * A lost answer sends the same request with the same key again; a failed guard rebuilds it with a new key.
   */
  async deliver(entry, signal) {
    const f = this.follower;
    let fresh = false; // the server's document was brought up to date for this write
    while (!signal.aborted) {
      try {
        if (this.catchUpFirst) {
          await f._catchUp(signal);
          this.catchUpFirst = false;
          fresh = true;
        }
        if (!entry.request) {
          // A put or a raw patch is sent as it is: it needs no document holding the writes acknowledged before it.
          if (entry.write.kind !== "put" && entry.write.kind !== "patch") await this.reach(signal);
          const plan = requestFor(entry.write, f._confirmed);
          if (plan.conflict && !fresh) {
            // Gone from what the follower holds: it may be behind. Ask, then decide.
            await f._catchUp(signal);
            fresh = true;
            continue;
          }
          if (plan.conflict) return { error: conflictError(describe(entry), plan.conflict) };
          entry.request = plan.request;
          entry.key = newKey();
          await this.save(); // the key is stored before it is sent
          if (signal.aborted) return null;
        }
        const verdict = this.judge(entry, await f._sendWrite(entry, signal));
        if (verdict.again !== undefined) {
          if (verdict.error) await this.retry(verdict.error, signal, verdict.again ?? undefined);
          else await sleep(verdict.again, signal);
        } else if (verdict.rebuild) {
          entry.request = null;
          entry.key = null;
          this.save();
          await sleep(this.backoff.next(), signal);
          if (signal.aborted) return null;
          await f._catchUp(signal);
          fresh = true;
        } else {
          this.backoff.reset();
          f._online();
          return verdict;
        }
      } catch (error) {
        if (signal.aborted) return null;
        if (error instanceof HTTPError && error.status === 404) {
          return { error: conflictError(describe(entry), "list", error.body) }; // the list is gone (a catch-up found)
        }
        await this.retry(error, signal);
      }
    }
    return null;
  }

  /**
   * What an answer to `entry` means: `{revision, body}` (acknowledged), `{error}` (refused), `{again: ms, error}` (send
   * it again with the same key: no answer kept, or the first is still in flight) or `{rebuild: true}` (a guard failed).
   */
  judge(entry, { status, ok, headers, body }) {
    if (ok) return { revision: body?.revision, body };
    const problem = body && typeof body === "object" ? body : {};
    if (status === 409 && problem.pointer === "/Idempotency-Key") return { again: retryAfter(headers) ?? 1000 };
    if (status >= 500 || status === 408 || status === 429) {
      return { again: retryAfter(headers), error: new HTTPError(status, body) };
    }
    const kind = entry.write.kind;
    if (status === 409 && failedOperation(problem) && kind !== "put") {
      if (kind === "patch") return { error: conflictError(describe(entry), "patch", body) };
      return { rebuild: true };
    }
    if (status === 404) return { error: conflictError(describe(entry), "list", body) };
    return { error: new HTTPError(status, body) };
  }

  /** Catches up until the server's document holds every acknowledged write (a write is built against it). */
  async reach(signal) {
    while (this.acked.length && !signal.aborted) {
      await this.follower._catchUp(signal);
      if (this.acked.length && !signal.aborted) await sleep(this.backoff.next(), signal);
    }
  }

  /** Reports `error` (the state turns "offline" or "retrying") and waits `ms` (default: the next backoff delay). */
  async retry(error, signal, ms = this.backoff.next()) {
    const f = this.follower;
    f._retrying(null, error);
    f.options.onError?.(error, ms, f.listID);
    await sleep(ms, signal);
  }

  /** The first write's outcome: it leaves the queue; the target gets the rollback, or the server's answer. */
  settle(entry, outcome) {
    const f = this.follower;
    const at = this.pending.indexOf(entry);
    if (at < 0) return; // handed to the storage by stop() meanwhile
    this.pending.splice(at, 1);
    if (outcome.error) {
      this.guarded(() => f._render());
      entry.reject(outcome.error);
      this.guarded(() => f.options.onWrite?.({ write: describe(entry), error: outcome.error }, f.listID));
    } else {
      const { revision, body } = outcome;
      if (Number.isInteger(revision) && revision > f.revision) this.acked.push({ write: entry.write, revision });
      const diff = body?.diff;
      // The answer's diff, when it fits what the follower holds; else the polls bring the revision.
      this.guarded(() => {
        if (diff && Number.isInteger(diff.from) && Number.isInteger(diff.to)) f._accept(diff);
        f._render();
      });
      entry.resolve({ revision });
      this.guarded(() => f.options.onWrite?.({ write: describe(entry), revision }, f.listID));
    }
    this.save();
  }

  /** Reads what the storage keeps, once: its writes go before those made since; resolves to its document, or null. */
  restore() {
    this.restoring ??= this.read().finally(() => {
      this.readDone = true;
      this.kick();
    });
    return this.restoring;
  }

  async read() {
    const lockName = this.storage?.lockName;
    if (typeof lockName === "string") {
      const lease = await acquireLease(`${lockName}:${this.storageKey}`);
      if (this.released) {
        lease.release(); // stopped meanwhile
        return null;
      }
      this.lease = lease;
      // Another follower (another tab) stores this list in this storage: this one neither restores nor stores; its
      // writes live as long as it does, and the stored ones are left to that follower to send.
      if (!lease.held) return null;
    }
    let stored = null;
    for (let attempt = 0; ; attempt++) {
      try {
        stored = this.storage ? await this.storage.get(this.storageKey) : null;
        break;
      } catch (error) {
        this.follower.options.onError?.(error, 0, this.follower.listID);
        // What the storage holds is never overwritten unread: after a few failures this follower stores nothing.
        if (attempt === 2) return null;
        await sleep(200 * 4 ** attempt);
      }
    }
    if (this.released) return null; // stopped meanwhile: the stored writes stay for the next follower
    this.restored = true;
    if (!stored || stored.version !== 1) return null;
    const document = stored.document;
    const usable = document && Array.isArray(document.sections) && Number.isInteger(document.revision);
    this.storedDocument = usable ? document : null;
    const pending = (stored.pending ?? []).map(({ key = null, request = null, ...write }) =>
      ({ write, key, request, resolve: () => {}, reject: () => {} }));
    this.pending = [...pending, ...this.pending];
    if (usable) this.acked = (stored.acknowledged ?? []).map(({ revision, ...write }) => ({ write, revision }));
    this.catchUpFirst = Boolean(usable);
    this.save();
    return usable ? document : null;
  }

  /** What is stored: the server's document, its revision, the pending writes (key and request too), the acknowledged. */
  snapshot() {
    // Until the follower confirms a document of its own, the stored one stays.
    const document = this.follower._confirmed ?? this.storedDocument;
    return {
      version: 1,
      listID: this.follower.listID,
      revision: document?.revision ?? null,
      document,
      pending: this.pending.map(({ write, key, request }) => ({ ...write, key, request })),
      acknowledged: this.acked.map(({ write, revision }) => ({ ...write, revision })),
    };
  }

  /** Whether the pending writes are stored for the next follower: with storage, unless another follower holds it. */
  get keepsWrites() {
    return this.storage !== null && this.lease?.held !== false;
  }

  /**
   * Hands the pending writes to the storage (stop()): they are stored as they are now, for the next follower on it,
   * and this one forgets them (started again, it sends only writes made since, and stores nothing); then lets another
   * follower store this list (in this tab or another).
   */
  release() {
    this.released = true;
    const lease = this.lease;
    this.lease = { held: false, release() {} };
    const storing = this.storage !== null && this.restored && lease?.held !== false;
    if (!storing) {
      if (lease?.held) lease.release();
      return;
    }
    const last = this.snapshot();
    this.pending = [];
    this.saveWanted = false;
    const { storage, storageKey } = this;
    Promise.resolve(this.saving)
      .then(() => storage.set(storageKey, last))
      .catch((error) => this.follower.options.onError?.(error, 0, this.follower.listID))
      .finally(() => lease?.release?.());
  }

  /** Stores the newest state (one `set` at a time; calls meanwhile are folded into the next); resolves once stored. */
  save() {
    if (!this.storage || !this.restored || this.lease?.held === false) return Promise.resolve();
    this.saveWanted = true;
    this.saving ??= this.store();
    return this.saving;
  }

  async store() {
    await null; // the changes of this turn go into one `set`
    while (this.saveWanted) {
      this.saveWanted = false;
      try {
        await this.storage.set(this.storageKey, this.snapshot());
      } catch (error) {
        this.follower.options.onError?.(error, 0, this.follower.listID);
      }
    }
    this.saving = null;
  }
}

/**
 * Holds the Web Lock `name` until `release()` is called: one follower stores a list in a storage, across the tabs of
 * an origin. Waits up to `ms` for a holder to let go (a follower stopped a moment ago); `{held: false}` when one keeps
 * it, `{held: true}` where Web Locks are missing (Node).
 */
function acquireLease(name, ms = 1000) {
  const locks = globalThis.navigator?.locks;
  if (typeof locks?.request !== "function") return Promise.resolve({ held: true, release() {} });
  return new Promise((resolve) => {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), ms);
    locks.request(name, { signal: abort.signal }, () => {
      clearTimeout(timer);
      return new Promise((release) => resolve({ held: true, release }));
    }).catch(() => resolve({ held: false, release() {} }));
  });
}

/** A pending write as `pendingWrites` and ConflictError show it: its intent and its current key. */
const describe = ({ write, key }) => ({ ...jsonCopy(write), key });

const WHOLE_LIST = "a writable follower, or one with storage, follows the whole list: no query";

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

/** A JSON copy of `value` (what storage keeps; the caller's object is not shared). */
const jsonCopy = (value) => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

/** A fresh Idempotency-Key: a random UUID (hex of 16 random bytes where randomUUID is missing). */
function newKey() {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === "function") return c.randomUUID();
  const bytes = new Uint8Array(16);
  if (typeof c?.getRandomValues === "function") c.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Milliseconds a `Retry-After` field (seconds or an HTTP date) asks to wait, at most a minute; null without one. */
function retryAfter(headers) {
  const field = headers?.get?.("Retry-After");
  if (field == null || field === "") return null;
  const seconds = Number(field);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(field) - Date.now();
  return Number.isFinite(ms) ? Math.min(60000, Math.max(0, ms)) : null;
}

/** Whether a 409's problem is a JSON Patch operation that could not apply (a failed `test`, a missing path). */
const failedOperation = (problem) => Number.isInteger(problem.operation) || typeof problem.op === "string";

function conflictError(write, reason, body = null) {
  const what = { item: `item "${write.id}"`, anchor: `item "${write.after}"`, section: `section "${write.section}"`,
    list: "the list", patch: "what the patch names" }[reason];
  return new ConflictError(`the ${write.kind} cannot apply: ${what} is gone`, { reason, write, body });
}

function checkedID(value, what) {
  if (typeof value !== "string" || value === "") throw new TypeError(`not ${what}: ${JSON.stringify(value)}`);
  return value;
}

function checkedItem(item) {
  if (!isObject(item)) throw new TypeError("insert() takes an item object");
  checkedID(item.id, "an item id");
  return jsonCopy(item);
}

const ITEM_MEMBERS = ["model", "cell", "type"];

function checkedChanges(changes) {
  if (!isObject(changes)) throw new TypeError("update() takes {model, cell, type}");
  const out = {};
  for (const [name, value] of Object.entries(changes)) {
    if (!ITEM_MEMBERS.includes(name)) throw new TypeError(`update() changes model, cell and type, not ${name}`);
    if (value !== undefined) out[name] = jsonCopy(value);
  }
  return out;
}

/** A write with a place: `{kind, ...fields, section, after}` from `place` (`{section, after}`, as the docs say). */
function placedWrite(kind, fields, place) {
  if (!place || typeof place !== "object") throw new TypeError(`${kind}() takes a place {section, after}`);
  const write = { kind, ...fields };
  if (place.section != null) write.section = checkedID(place.section, "a section id");
  if (place.after !== undefined) write.after = place.after === null ? null : checkedID(place.after, "an item id");
  if (write.section === undefined && typeof write.after !== "string") {
    throw new TypeError(`${kind}() needs a section, or an item to go after`);
  }
  return write;
}

/** Where item `id` is in `sections`: [section, index], or null. */
function findItem(sections, id) {
  for (let s = 0; s < sections.length; s++) {
    const i = (sections[s].items ?? []).findIndex((item) => item.id === id);
    if (i >= 0) return [s, i];
  }
  return null;
}

/**
 * Where a write's `{section, after}` is in `sections`: `{section, where: "last" | "first"}`, `{section, where:
 * "after", anchor}` (indexes), or `{conflict: "section" | "anchor"}` when it is gone (an anchor in another section
 * than the one named is gone from it).
 */
function placeIn(sections, write) {
  let section = null;
  if (write.section !== undefined) {
    section = sections.findIndex((s) => s.id === write.section);
    if (section < 0) return { conflict: "section" };
  }
  if (write.after === undefined) return { section, where: "last" };
  if (write.after === null) return { section, where: "first" };
  const at = findItem(sections, write.after);
  if (!at || (section !== null && at[0] !== section)) return { conflict: "anchor" };
  return { section: at[0], where: "after", anchor: at[1] };
}

/** The index an item takes at `place` in a section of `count` items. */
const placeIndex = (place, count) => (place.where === "last" ? count : place.where === "first" ? 0 : place.anchor + 1);

/** `document` with the items of section `s` of `sections` replaced. */
function withItems(document, sections, s, items) {
  const copy = [...sections];
  copy[s] = { ...sections[s], items };
  return { ...document, sections: copy };
}

/** `sections` without the item at `[s, i]`. */
function withoutItem(sections, [s, i]) {
  const copy = [...sections];
  copy[s] = { ...sections[s], items: sections[s].items.filter((_, k) => k !== i) };
  return copy;
}

/** `document` with `item` placed as `write` says in `sections`, or null when its place is gone. */
function placed(document, sections, item, write) {
  const place = placeIn(sections, write);
  if (place.conflict) return null;
  const items = [...(sections[place.section].items ?? [])];
  items.splice(placeIndex(place, items.length), 0, item);
  return withItems(document, sections, place.section, items);
}

/** An item as the server stores it: `cell` from `cells[type]` when absent (else null), `model` null when absent. */
function storedItem(item, cells) {
  const out = { id: item.id };
  if (item.type !== undefined) out.type = item.type;
  const registered = item.type != null && cells && Object.hasOwn(cells, item.type) ? cells[item.type] : null;
  out.cell = item.cell !== undefined ? item.cell : registered;
  out.model = item.model === undefined ? null : item.model;
  return out;
}

/** The document a PUT of `body` makes (the short array form as one section `main`); `id` and `revision` are kept. */
function putDocument(current, body) {
  const short = !Array.isArray(body.sections) && Array.isArray(body.items);
  const sections = short
    ? [{ id: "main", title: body.title ?? null, indexTitle: body.title ? [...body.title][0] : null, items: body.items }]
    : body.sections ?? [];
  const out = { id: current.id, kind: body.kind ?? (short ? "array" : "sections"), revision: current.revision };
  if (body.cells !== undefined) out.cells = body.cells;
  out.sections = sections.map((s) => ({
    id: s.id, title: s.title ?? null, indexTitle: s.indexTitle ?? null,
    items: (s.items ?? []).map((item) => storedItem(item, body.cells)),
  }));
  return out;
}

/** `document` with `write` applied by id (what is shown before the server has it), or null when it cannot apply. */
/** Whether two documents have the same number of sections and of items in each. */
function sameCounts(a, b) {
  const as = a.sections ?? [];
  const bs = b.sections ?? [];
  return as.length === bs.length && as.every((s, i) => (s.items ?? []).length === (bs[i].items ?? []).length);
}

/** Whether no section id and no item id of `document` repeats (a write applied twice would break that). */
function hasUniqueIDs(document) {
  const sections = new Set();
  const items = new Set();
  for (const section of document.sections ?? []) {
    if (sections.has(section.id)) return false;
    sections.add(section.id);
    for (const item of section.items ?? []) {
      if (items.has(item.id)) return false;
      items.add(item.id);
    }
  }
  return true;
}

function applyWrite(document, write) {
  const sections = document.sections ?? [];
  const at = write.id === undefined ? null : findItem(sections, write.id);
  switch (write.kind) {
    case "insert":
      if (findItem(sections, write.item.id)) return null;
      return placed(document, sections, storedItem(write.item, document.cells), write);
    case "move":
      return at && placed(document, withoutItem(sections, at), sections[at[0]].items[at[1]], write);
    case "update": {
      if (!at) return null;
      const items = [...sections[at[0]].items];
      items[at[1]] = { ...items[at[1]], ...write.changes };
      return withItems(document, sections, at[0], items);
    }
    case "remove":
      return at && { ...document, sections: withoutItem(sections, at) };
    case "put":
      return putDocument(document, write.document);
    case "patch":
      try {
        return { ...applyJSONPatch(document, write.operations), id: document.id, revision: document.revision };
      } catch {
        return null;
      }
    default:
      return null;
  }
}

/** The request that sends `write` against `document`: `{request: {method, body}}`, or `{conflict}` (what is gone). */
function requestFor(write, document) {
  if (write.kind === "put") return { request: { method: "PUT", body: write.document } };
  if (write.kind === "patch") return { request: { method: "PATCH", body: write.operations } };
  const plan = guardedPatch(document.sections ?? [], write);
  return plan.conflict ? plan : { request: { method: "PATCH", body: plan.operations } };
}

const test = (path, value) => ({ op: "test", path, value });
const itemPath = ([s, i]) => `/sections/${s}/items/${i}`;

/** `test`s of the section id at `place` and, for "after", of its anchor's id (indexes of `sections`). */
function placeGuards(sections, place, anchor = place.anchor) {
  const s = place.section;
  const guards = [test(`/sections/${s}/id`, sections[s].id)];
  if (place.where === "after") guards.push(test(`${itemPath([s, anchor])}/id`, sections[s].items[anchor].id));
  return guards;
}

/** The `path` of an item added at `place` ("-" for last: the end whatever was added meanwhile). */
const placePath = (place) => `/sections/${place.section}/items/${place.where === "last" ? "-" : placeIndex(place, 0)}`;

/**
 * The JSON Patch of an id-based write against `sections`: `test` operations guard the ids at the paths it uses (its
 * item, its section, its anchor), then the change. `{operations}`, or `{conflict: "item" | "anchor" | "section"}`.
 */
function guardedPatch(sections, write) {
  if (write.kind === "insert") {
    const place = placeIn(sections, write);
    if (place.conflict) return place;
    return { operations: [...placeGuards(sections, place), { op: "add", path: placePath(place), value: write.item }] };
  }
  const at = findItem(sections, write.id);
  if (!at) return { conflict: "item" };
  const guard = test(`${itemPath(at)}/id`, write.id);
  switch (write.kind) {
    case "remove":
      return { operations: [guard, { op: "remove", path: itemPath(at) }] };
    case "update":
      // `add` sets an object member whether it is there or not (`replace` needs it there).
      const set = ([name, value]) => ({ op: "add", path: `${itemPath(at)}/${name}`, value });
      const sets = Object.entries(write.changes).map(set);
      return { operations: [guard, ...sets] };
    case "move": {
      // `path` counts without the item (RFC 6902: a move is a remove, then an add); the guards count with it.
      const place = placeIn(withoutItem(sections, at), write);
      if (place.conflict) return place;
      const shifted = place.where === "after" && place.section === at[0] && place.anchor >= at[1];
      const anchor = shifted ? place.anchor + 1 : place.anchor;
      const move = { op: "move", from: itemPath(at), path: placePath(place) };
      return { operations: [guard, ...placeGuards(sections, place, anchor), move] };
    }
    default:
      throw new TypeError(`unknown write ${write.kind}`);
  }
}

/** The tokens of a JSON Pointer (RFC 6901). */
function pointerTokens(pointer) {
  if (pointer === "") return [];
  if (typeof pointer !== "string" || !pointer.startsWith("/")) throw new Error(`not a JSON pointer: ${pointer}`);
  return pointer.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function arrayIndex(token, limit) {
  if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= limit) throw new Error(`no index ${token}`);
  return Number(token);
}

function pointed(doc, tokens) {
  let value = doc;
  for (const t of tokens) {
    if (Array.isArray(value)) value = value[arrayIndex(t, value.length)];
    else if (value && typeof value === "object" && Object.hasOwn(value, t)) value = value[t];
    else throw new Error(`nothing at /${tokens.join("/")}`);
  }
  return value;
}

// `doc` with `value` added at `tokens` (in place; the root is replaced).
function patchAdd(doc, tokens, value) {
  if (!tokens.length) return value;
  const parent = pointed(doc, tokens.slice(0, -1));
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    parent.splice(last === "-" ? parent.length : arrayIndex(last, parent.length + 1), 0, value);
  } else if (isObject(parent)) {
    parent[last] = value;
  } else {
    throw new Error(`cannot add at /${tokens.join("/")}`);
  }
  return doc;
}

// Removes the value at `tokens` (in place) and returns it.
function patchRemove(doc, tokens) {
  if (!tokens.length) throw new Error("cannot remove the whole document");
  const parent = pointed(doc, tokens.slice(0, -1));
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) return parent.splice(arrayIndex(last, parent.length), 1)[0];
  if (!isObject(parent) || !Object.hasOwn(parent, last)) throw new Error(`nothing at /${tokens.join("/")}`);
  const value = parent[last];
  delete parent[last];
  return value;
}

/** A copy of `document` with the RFC 6902 `operations` applied; throws an Error when one cannot apply. */
function applyJSONPatch(document, operations) {
  let doc = jsonCopy(document);
  for (const op of operations) {
    const path = pointerTokens(op.path);
    switch (op.op) {
      case "add":
        doc = patchAdd(doc, path, jsonCopy(op.value));
        break;
      case "remove":
        patchRemove(doc, path);
        break;
      case "replace":
        if (path.length) patchRemove(doc, path);
        doc = patchAdd(doc, path, jsonCopy(op.value));
        break;
      case "move":
        doc = patchAdd(doc, path, patchRemove(doc, pointerTokens(op.from)));
        break;
      case "copy":
        doc = patchAdd(doc, path, jsonCopy(pointed(doc, pointerTokens(op.from))));
        break;
      case "test":
        if (!sameJSON(pointed(doc, path), op.value)) throw new Error(`test of ${op.path} failed`);
        break;
      default:
        throw new Error(`unknown JSON Patch operation ${op.op}`);
    }
  }
  return doc;
}

/**
 * A storage for a follower's document and writes (`options.storage`) that lives as long as the page: for tests, and
 * for several followers of one page in turn. Values are kept as JSON text.
 */
export function memoryStorage() {
  const values = new Map();
  return {
    async get(key) {
      return values.has(key) ? JSON.parse(values.get(key)) : undefined;
    },
    async set(key, value) {
      values.set(key, JSON.stringify(value));
    },
  };
}

/**
 * A storage in the browser's IndexedDB (`options.storage`): database `name` (default "listdelta"), one object store
 * `values` of the followers' states by key. It outlives the page: a follower made after a reload finds its writes.
 * Its `lockName` makes the followers of one list on it, in every tab of the origin, take turns (a Web Lock): the first
 * stores and restores, another at the same time follows and writes without storing (its writes last as long as it).
 */
export function indexedDBStorage(name = "listdelta") {
  let opening = null;
  const open = () =>
    (opening ??= new Promise((resolve, reject) => {
      const request = globalThis.indexedDB.open(name, 1);
      request.onupgradeneeded = () => request.result.createObjectStore("values");
      request.onsuccess = () => {
        const db = request.result;
        db.onversionchange = () => { db.close(); opening = null; };
        resolve(db);
      };
      request.onerror = () => { opening = null; reject(request.error); };
    }));
  const run = async (mode, act) => {
    const db = await open();
    return new Promise((resolve, reject) => {
      const tx = db.transaction("values", mode);
      const request = act(tx.objectStore("values"));
      tx.oncomplete = () => resolve(request.result);
      tx.onerror = tx.onabort = () => reject(tx.error ?? request.error);
    });
  };
  return {
    lockName: `listdelta-indexeddb:${name}`,
    get: (key) => run("readonly", (store) => store.get(key)),
    set: (key, value) => run("readwrite", (store) => store.put(value, key)).then(() => undefined),
  };
}

// ---- Requests beyond following (used by the live page) ----
//
// One-shot requests of the API, for a page that also follows lists: the list index, a document or a diff at fixed
// revisions, creating a list, a list's source and view. Each takes the options `token` (as a follower's: a string,
// or a function `({fresh}) => token` or a promise of one, asked once more with `{fresh: true}` after a 401),
// `headers` and `signal` (an AbortSignal). Each resolves to the answer's JSON body (null when it has none, as a 204)
// and throws an HTTPError for any answer but 2xx, its `body` being the RFC 9457 problem (`{type, title, status,
// detail, ...}`) when the server sent one. `baseURL` is "" for the page's own origin.

/**
 * Sends `method` (default GET) to `path` (with its query, e.g. "/v1/lists?limit=10") under `baseURL`. `body`, when
 * given, is sent as it is when a string, else as JSON (`Content-Type: application/json` unless `headers` name one).
 */
export async function request(baseURL, path, { method = "GET", body, headers = {}, token, signal } = {}) {
  const all = { Accept: "application/json", ...headers };
  let payload;
  if (body !== undefined) {
    payload = typeof body === "string" ? body : JSON.stringify(body);
    const typed = Object.keys(all).some((name) => name.toLowerCase() === "content-type");
    if (!typed) all["Content-Type"] = "application/json";
  }
  const url = `${String(baseURL ?? "").replace(/\/+$/, "")}${path}`;
  const send = (auth) => fetch(url, { method, headers: { ...all, ...auth }, body: payload, signal, cache: "no-store" });
  return answer(await withToken(token, send, signal));
}

/** The path of list `listID`'s resource `suffix` ("" for the document, "/source", ...), for `request`. */
const listPath = (listID, suffix = "") => `${listURL("", listID)}${suffix}`;

/** A page of the lists, by id: `{lists: [{id, kind, revision, sections, items}], next}`; `next` is the next `after`. */
export function listLists(baseURL, { limit, after, ...options } = {}) {
  const query = new URLSearchParams();
  if (limit != null) query.set("limit", String(limit));
  if (after != null) query.set("after", String(after));
  const text = query.toString();
  return request(baseURL, `/v1/lists${text ? `?${text}` : ""}`, options);
}

/** List `listID`'s document; `revision`: a retained older one (410 when it is not retained). 404: no such list. */
export function fetchDocument(baseURL, listID, { revision, ...options } = {}) {
  const suffix = revision != null ? `?revision=${encodeURIComponent(revision)}` : "";
  return request(baseURL, listPath(listID, suffix), options);
}

/** The batch diff of `listID` from revision `from` to `to` (default: the current one), answered at once. */
export function fetchDiff(baseURL, listID, from, { to, ...options } = {}) {
  const query = new URLSearchParams({ from: String(from) });
  if (to != null) query.set("to", String(to));
  return request(baseURL, listPath(listID, `/diff?${query}`), options);
}

/** Creates list `listID` with `document` (a PUT with If-None-Match: *); `{id, revision, diff}`. 412: it exists. */
export function createList(baseURL, listID, document, { headers = {}, ...options } = {}) {
  const all = { ...headers, "If-None-Match": "*" };
  return request(baseURL, listPath(listID), { ...options, method: "PUT", body: document, headers: all });
}

/**
 * `listID`'s source and its state (`{url, interval, sections, maxItems, lastFetch, lastError, nextFetchAt,
 * consecutiveFailures}`), or null when it has none.
 */
export function fetchSource(baseURL, listID, options = {}) {
  return orNone(request(baseURL, listPath(listID, "/source"), options));
}

/**
 * Attaches a source to `listID`, or changes it: `settings` is `{url, interval, sections, maxItems}`. The service
 * fetches it at once; resolves to the source's state after that fetch.
 */
export function putSource(baseURL, listID, settings, options = {}) {
  return request(baseURL, listPath(listID, "/source"), { ...options, method: "PUT", body: settings });
}

/**
 * `listID`'s view definition with the base revision it was computed from (`{of, where, sort, offset, limit,
 * sections, basedOn}`), or null when it is no view.
 */
export function fetchView(baseURL, listID, options = {}) {
  return orNone(request(baseURL, listPath(listID, "/view"), options));
}

/** What `promise` resolves to, or null when it fails with a 404. */
async function orNone(promise) {
  try {
    return await promise;
  } catch (error) {
    if (error instanceof HTTPError && error.status === 404) return null;
    throw error;
  }
}
