// ListDelta web client: an ES module with no dependencies and no build step.
//
//   import { follow } from "/client.js";
//   const follower = follow("https://lists.example", "inbox", target, { onReset: (e) => console.log(e.reason) });
//
// A follower loads the document (GET /v1/lists/{id}), then follows its changes by long poll (the default,
// GET /v1/lists/{id}/diff?from=R&wait=S) or by Server-Sent Events (`mode: "events"`). Every batch diff is
// checked against the section counts the follower holds (`counts.from`), applied to its copy with the
// normative procedure of API.md ("The batch diff"), and handed to the target with the operations of the Swift
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
// Followers are independent: follow as many lists as you like.
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
 * The document `diff` leads to from `document`, by the normative procedure of API.md (steps 1-4), after
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

/**
 * Follows one list. `options`:
 * - `mode`: "poll" (default, long poll) or "events" (EventSource);
 * - `wait`: long-poll seconds (default 25; the server caps it);
 * - `backoff`: `{initial: 500, max: 15000}` milliseconds (capped exponential, with jitter);
 * - `headers`: extra request headers (poll mode); `fetch`: a fetch function;
 * - callbacks: `onLoad(document)`, `onDiff(diff, document)`, `onReset({reason, detail, from, document})`,
 *   `onError(error, retryInMs)`, `onState(state)` with state "loading" | "live" | "retrying" | "paused" | "stopped".
 */
export class ListFollower {
  constructor(baseURL, listID, target = {}, options = {}) {
    this.baseURL = String(baseURL ?? "").replace(/\/+$/, "");
    this.listID = listID;
    this.target = target;
    this.options = { mode: "poll", wait: 25, ...options };
    this.backoff = { initial: 500, max: 15000, ...(options.backoff ?? {}) };
    this.document = null;
    this.revision = null;
    this.lastDiff = null;
    this.state = "idle";
    this.resets = 0;
    this._attempt = 0;
    this._running = false;
    this._paused = false;
    this._abort = null;
    this._source = null;
    this._loop = null;
  }

  get url() {
    return `${this.baseURL}/v1/lists/${encodeURIComponent(this.listID)}`;
  }

  /** A page of this list's history (see `fetchHistory`). */
  history(options = {}) {
    return fetchHistory(this.baseURL, this.listID, options);
  }

  /** Reverts the list to revision `to`, on condition that it still is at the revision this follower shows. */
  revert(to, options = {}) {
    return revert(this.baseURL, this.listID, to, { ifMatch: this.revision, ...options });
  }

  /** Loads the document and starts following; resolves once the first document is shown. */
  start() {
    if (this._running) return this._ready;
    this._running = true;
    this._ready = new Promise((resolve) => { this._resolveReady = resolve; });
    this._loop = this._run();
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

  /** Asks for changes again, from the revision held. */
  resume() {
    if (!this._paused) return;
    this._paused = false;
    if (this._running) this._loop = this._run();
  }

  _halt() {
    this._abort?.abort();
    this._abort = null;
    this._source?.close();
    this._source = null;
  }

  _setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.options.onState?.(state);
  }

  _fetch(url, init) {
    const f = this.options.fetch ?? globalThis.fetch.bind(globalThis);
    return f(url, init);
  }

  _delay() {
    const cap = Math.min(this.backoff.max, this.backoff.initial * 2 ** this._attempt);
    this._attempt = Math.min(this._attempt + 1, 30);
    return Math.round(cap / 2 + (Math.random() * cap) / 2);
  }

  async _retry(error, signal) {
    const ms = this._delay();
    this._setState("retrying");
    this.options.onError?.(error, ms);
    await sleep(ms, signal);
  }

  async _run() {
    const abort = new AbortController();
    this._abort = abort;
    const signal = abort.signal;
    const alive = () => this._running && !this._paused && !signal.aborted;
    try {
      if (this.document === null) {
        if (!(await this._load(signal, "initial"))) return;
      }
      if (this.options.mode === "events") return this._openEvents(signal);
      while (alive()) {
        let res;
        const wait = this.options.wait;
        const timeout = new AbortController();
        const onAbort = () => timeout.abort();
        signal.addEventListener("abort", onAbort, { once: true });
        const timer = setTimeout(() => timeout.abort(), (wait + 15) * 1000);
        try {
          res = await this._fetch(`${this.url}/diff?from=${this.revision}&wait=${wait}`, {
            headers: { Accept: "application/json", ...(this.options.headers ?? {}) },
            signal: timeout.signal,
            cache: "no-store",
          });
        } catch (error) {
          if (!alive()) return;
          await this._retry(error, signal);
          continue;
        } finally {
          clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
        }
        if (!alive()) return;
        if (res.status === 410) {
          const body = await res.json().catch(() => ({}));
          await this._reset("gone", `revision ${this.revision} is gone (current ${body.current})`, signal);
          continue;
        }
        if (!res.ok) {
          const body = await res.text().catch(() => "");
          await this._retry(new HTTPError(res.status, body), signal);
          if (res.status === 404 && alive()) await this._reset("missing", "the list was not found", signal);
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
        this._attempt = 0;
        this._setState("live");
        if (!this._applyOrReset(diff)) await this._reset(this._failure.reason, this._failure.detail, signal);
      }
    } catch (error) {
      // A target or callback threw outside the guarded paths: wait, then start over from the document.
      if (!this._running || this._paused || signal.aborted) return;
      await this._retry(error, signal);
      if (this._running && !this._paused && !signal.aborted) {
        this.document = null;
        this._loop = this._run();
      }
    }
  }

  // Applies `diff` and drives the target; false (with this._failure) when it has to reset instead.
  _applyOrReset(diff) {
    if (diff.from === diff.to && diffSize(diff) === 0) return true; // a long poll that timed out
    if (diff.from !== this.revision) {
      this._failure = { reason: "mismatch", detail: `diff from ${diff.from}, holding ${this.revision}` };
      return false;
    }
    let next;
    try {
      next = applyBatchDiff(this.document, diff);
    } catch (error) {
      this._failure = { reason: "check", detail: error.message };
      return false;
    }
    const previous = this.document;
    this.document = next;
    this.revision = next.revision;
    this.lastDiff = diff;
    try {
      performBatchDiff(diff, this.target);
    } catch (error) {
      this.document = previous;
      this._failure = { reason: "target", detail: String(error?.message ?? error) };
      return false;
    }
    this.options.onDiff?.(diff, next);
    return true;
  }

  // Fetches the document until it succeeds (or the follower stops); true when loaded.
  async _load(signal, reason, detail) {
    this._setState("loading");
    while (this._running && !this._paused && !signal.aborted) {
      let res;
      try {
        res = await this._fetch(this.url, {
          headers: { Accept: "application/json", ...(this.options.headers ?? {}) },
          signal,
          cache: "no-store",
        });
        if (!res.ok) throw new HTTPError(res.status, await res.text().catch(() => ""));
        const document = await res.json();
        if (signal.aborted) return false;
        const from = this.revision;
        this.document = document;
        this.revision = document.revision;
        this.lastDiff = null;
        this._attempt = 0;
        this._setState("live");
        this.target?.reset?.(document, reason);
        if (reason === "initial") {
          this.options.onLoad?.(document);
        } else {
          this.resets += 1;
          this.options.onReset?.({ reason, detail, from, document });
        }
        this._resolveReady?.(document);
        this._resolveReady = null;
        return true;
      } catch (error) {
        if (!this._running || this._paused || signal.aborted) return false;
        await this._retry(error, signal);
      }
    }
    return false;
  }

  _reset(reason, detail, signal) {
    return this._load(signal, reason, detail);
  }

  _openEvents(signal) {
    if (!this._running || this._paused || signal.aborted) return;
    const source = new EventSource(`${this.url}/events?from=${this.revision}`);
    this._source = source;
    const restart = async (reason, detail) => {
      source.close();
      if (this._source === source) this._source = null;
      if (reason) {
        if (!(await this._reset(reason, detail, signal))) return;
      }
      this._openEvents(signal);
    };
    source.addEventListener("open", () => {
      this._attempt = 0;
      this._setState("live");
    });
    source.addEventListener("diff", (event) => {
      if (this._source !== source) return;
      let diff;
      try {
        diff = JSON.parse(event.data);
      } catch (error) {
        return void restart("check", `unreadable event: ${error.message}`);
      }
      if (!this._applyOrReset(diff)) restart(this._failure.reason, this._failure.detail);
    });
    source.addEventListener("reset", (event) => {
      if (this._source !== source) return;
      let current = null;
      try { current = JSON.parse(event.data).current; } catch { /* keep null */ }
      restart("event", `event: reset (current ${current})`);
    });
    source.addEventListener("error", async () => {
      if (this._source !== source) return;
      // Take reconnection into our own hands: backoff with jitter, from the revision held.
      source.close();
      this._source = null;
      await this._retry(new Error("event stream interrupted"), signal);
      if (this._running && !this._paused && !signal.aborted) this._openEvents(signal);
    });
  }
}

const listURL = (baseURL, listID) => `${String(baseURL ?? "").replace(/\/+$/, "")}/v1/lists/${encodeURIComponent(listID)}`;

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
export async function fetchHistory(baseURL, listID, { before, limit, headers } = {}) {
  const query = new URLSearchParams();
  if (before != null) query.set("before", String(before));
  if (limit != null) query.set("limit", String(limit));
  const text = query.toString();
  const suffix = text ? `?${text}` : "";
  return answer(await fetch(`${listURL(baseURL, listID)}/revisions${suffix}`, { cache: "no-store", headers }));
}

/**
 * Writes a new revision of `listID` whose content equals revision `to`'s; resolves to `{id, revision, diff}`
 * (the same revision and an empty diff when the content already is revision `to`'s). `ifMatch` (a revision)
 * makes it conditional: 412 when the list moved on. Throws an HTTPError otherwise (410: `to` is not retained).
 */
export async function revert(baseURL, listID, to, { ifMatch, headers = {} } = {}) {
  const all = { "Content-Type": "application/json", ...headers };
  if (ifMatch != null) all["If-Match"] = `"${ifMatch}"`;
  return answer(await fetch(`${listURL(baseURL, listID)}/revert`, { method: "POST", headers: all, body: JSON.stringify({ to }) }));
}

/** Starts following `listID` at `baseURL` (use "" for the page's own origin); returns the ListFollower. */
export function follow(baseURL, listID, target, options) {
  const follower = new ListFollower(baseURL, listID, target, options);
  follower.start();
  return follower;
}
