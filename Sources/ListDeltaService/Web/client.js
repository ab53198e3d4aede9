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

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => { clearTimeout(t); resolve(); }, { once: true });
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
    this._retrying(list);
    this.options.onError?.(error, ms, list ? list.id : this.listID ?? null);
    await sleep(ms, signal);
  }

  _retrying() {
    this._setState("retrying");
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
 * - callbacks: `onLoad(document)`, `onDiff(diff, document)`, `onReset({reason, detail, from, document})`,
 *   `onError(error, retryInMs)`, `onState(state)` with state "loading" | "live" | "retrying" | "paused" | "stopped".
 *   (Each callback also gets the list id as a last argument, as ManyListFollower's do.)
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

  async _run() {
    const signal = this._begin();
    const alive = () => this._alive(signal);
    try {
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
  _take(document, reason, detail) {
    const from = this.revision;
    this._stale = null;
    this.document = document;
    this.revision = document.revision;
    this.lastDiff = null;
    this.target?.reset?.(document, reason);
    if (reason === "initial") {
      this.options.onLoad?.(document, this.listID);
    } else {
      this.resets += 1;
      this.options.onReset?.({ reason, detail, from, document }, this.listID);
    }
    this._resolveReady?.(document);
    this._resolveReady = null;
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
 * `options` are ListFollower's; every callback gets the list id as its last argument: `onLoad(document, id)`,
 * `onDiff(diff, document, id)`, `onReset({id, reason, detail, from, document}, id)` with reason "deleted" (reset to
 * 0), "event" (event stream) or "gone" (long poll) for a reset, "check", "mismatch" or "target" for a diff that did
 * not fit, `onError(error, retryInMs, id)` (id null for the connection), `onState(state, id)` for each list
 * ("loading" or "retrying" while its document is fetched, else the connection's state) and with id null for the
 * connection itself. `follower.get(id)` is a list's `{id, document, revision, lastDiff, state, resets}`;
 * `follower.documents` maps ids to documents.
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

  _retrying(list) {
    if (!list) return super._retrying();
    list.loadState = "retrying";
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
