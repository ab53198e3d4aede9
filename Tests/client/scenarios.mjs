// Scenarios of client.js's writes, run by Tests/e2e/test_client_writes.py under Node (run.mjs) and in headless Chromium
// (imported as a module by the page). Each takes the client module `m` (so it imports nothing and runs anywhere) and
// resolves to JSON the Python test checks against the service and the proxy's log.
//
// The clients talk to the service through Tests/e2e/flaky_proxy.py (`proxyURL`), which they drive with POST
// /__proxy/...; the "other clients" of a scenario write through it too (a page's writes to another origin are refused),
// without an Idempotency-Key, and read the service directly (`serverURL`). The list starts as Tests/e2e's base
// document: sections a [a0..a3], b [b0..b2], c [c0, c1], at revision 1.

const BASE = { a: ["a0", "a1", "a2", "a3"], b: ["b0", "b1", "b2"], c: ["c0", "c1"] };
const BACKOFF = { initial: 50, max: 400 };

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Tells the proxy what to lose (see flaky_proxy.py). */
export async function control(proxyURL, what, params = {}) {
  const res = await fetch(`${proxyURL}/__proxy/${what}?${new URLSearchParams(params)}`, { method: "POST" });
  if (res.status !== 204) throw new Error(`proxy control ${what}: ${res.status}`);
}

/** The list's document as the service holds it now. */
export async function serverDocument(serverURL, listID) {
  const res = await fetch(`${serverURL}/v1/lists/${listID}`, { cache: "no-store" });
  return res.json();
}

/** A JSON Patch written by another client (through the proxy, which loses nothing unless told to). */
export async function otherClient(proxyURL, listID, operations, token = null) {
  const headers = { "Content-Type": "application/json-patch+json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const body = JSON.stringify(operations);
  const res = await fetch(`${proxyURL}/v1/lists/${listID}`, { method: "PATCH", headers, body });
  if (!res.ok) throw new Error(`the other client's write failed: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Sections as `[[id, [[itemID, model], ...]], ...]`, to compare documents. */
export const shape = (document) =>
  (document?.sections ?? []).map((s) => [s.id, (s.items ?? []).map((i) => [i.id, i.model ?? null])]);

const same = (a, b) => JSON.stringify(shape(a)) === JSON.stringify(shape(b));

/** Resolves once `check()` (sync or async) is truthy; false after `ms`. */
export async function waitFor(check, ms = 20000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(50);
  }
  return false;
}

/** A write's outcome as JSON: `{revision}` or `{error: {name, reason, status, message, write}}`. */
export const outcome = (promise) =>
  promise.then(
    (value) => ({ revision: value.revision }),
    (e) => ({
      error: {
        name: e?.name, reason: e?.reason ?? null, status: e?.status ?? null, message: String(e?.message ?? e),
        write: e?.write ?? null,
      },
    }),
  );

/**
 * A target that keeps a copy of the document and applies every batch it is given with applyBatchDiff (which refuses
 * what UIKit would refuse: paths out of range, items inside deleted or inserted sections, twice-removed items), then
 * the reconfigured items and headers. `doc` must end equal to the follower's document; `errors` collects refusals;
 * `ops` names every call (with the reset's reason); `calls` (optional) gets ["target", name] in order too.
 */
export function mirrorTarget(m, calls = null) {
  const t = { doc: null, batch: null, ops: [], errors: [] };
  const note = (name, ...args) => {
    t.ops.push([name, ...args]);
    calls?.push(["target", name, ...args]);
  };
  const empty = () => ({ deleted: [], inserted: [], moved: [], updated: [] });
  const guard = (name, f) => (...args) => {
    try {
      f(...args);
    } catch (error) {
      t.errors.push(`${name}: ${error.message}`);
    }
  };
  t.reset = (doc, reason) => {
    note("reset", reason);
    t.doc = JSON.parse(JSON.stringify(doc));
  };
  t.beginUpdates = () => {
    note("beginUpdates");
    t.batch = { sections: empty(), items: empty() };
  };
  t.deleteSections = (x) => { note("deleteSections", x); t.batch.sections.deleted.push(...x); };
  t.insertSections = (x) => { note("insertSections", x); t.batch.sections.inserted.push(...x); };
  t.moveSection = (from, to) => { note("moveSection", from, to); t.batch.sections.moved.push({ from, to }); };
  t.deleteItems = (x) => { note("deleteItems", x); t.batch.items.deleted.push(...x); };
  t.insertItems = (x) => { note("insertItems", x); t.batch.items.inserted.push(...x); };
  t.moveItem = (from, to) => { note("moveItem", from, to); t.batch.items.moved.push({ from, to }); };
  t.endUpdates = guard("endUpdates", () => {
    note("endUpdates");
    const counts = { from: t.doc.sections.map((s) => s.items.length) };
    t.doc = JSON.parse(JSON.stringify(m.applyBatchDiff(t.doc, { ...t.batch, counts, to: t.doc.revision })));
    t.batch = null;
  });
  t.updateSectionHeaders = guard("updateSectionHeaders", (x) => {
    note("updateSectionHeaders", x);
    for (const { at, section } of x) {
      if (t.doc.sections[at].id !== section.id) throw new Error(`header ${at} is not ${section.id}`);
      Object.assign(t.doc.sections[at], { title: section.title ?? null, indexTitle: section.indexTitle ?? null });
    }
  });
  t.reconfigureItems = guard("reconfigureItems", (x) => {
    note("reconfigureItems", x);
    for (const { at, item } of x) {
      if (t.doc.sections[at[0]].items[at[1]].id !== item.id) throw new Error(`item ${at} is not ${item.id}`);
      t.doc.sections[at[0]].items[at[1]] = item;
    }
  });
  return t;
}

/** A seeded random number generator (mulberry32). */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const choose = (rng, values) => values[Math.floor(rng() * values.length)];

/** A random place in a base section other than `not`: after a base item (with or without the section), first, last. */
function randomPlace(rng, not) {
  const section = choose(rng, Object.keys(BASE).filter((s) => s !== not));
  const x = rng();
  if (x < 0.25) return { section, after: choose(rng, BASE[section]) };
  if (x < 0.4) return { after: choose(rng, BASE[section]) };
  if (x < 0.7) return { section, after: null };
  return { section };
}

/** Waits until every follower shows the service's document with nothing pending; the document, or null. */
async function converge(followers, serverURL, listID, ms = 30000) {
  let doc = null;
  const ok = await waitFor(async () => {
    doc = await serverDocument(serverURL, listID);
    return followers.every((f) => f.pendingWrites.length === 0 && f.revision === doc.revision && same(f.document, doc));
  }, ms);
  return ok ? doc : null;
}

/** What a follower and its mirror target end with. */
const report = (follower, mirror, extra = {}) => ({
  document: follower.document, revision: follower.revision, pending: follower.pendingWrites,
  mirror: mirror.doc, mirrorErrors: mirror.errors, ops: mirror.ops, state: follower.state, ...extra,
});

/**
 * Several writers on one list through a proxy that loses writes and answers at random. Each writer makes `writes`
 * writes on items of its own (`w<k>-<n>`), placed after base items, first or last, in base sections: inserts, updates
 * (a model no write had before), moves to another section, removes. So every write applies and changes the list:
 * every write must resolve with a revision of its own, and the list end as the writers' last writes say.
 */
export async function flakyWriters(m, options) {
  const { proxyURL, serverURL, listID, writers = 3, writes = 12, seed = 7, storages = [] } = options;
  await control(proxyURL, "random", { before: 0.12, after: 0.12, cut: 0.08, seed });
  const clients = [];
  for (let k = 0; k < writers; k++) {
    const mirror = mirrorTarget(m);
    const states = [];
    const follower = new m.ListFollower(proxyURL, listID, mirror, {
      writable: true, wait: 1, writeTimeout: 5000, backoff: BACKOFF, storage: storages[k],
      onState: (s) => states.push(s),
    });
    clients.push({ k, follower, mirror, states, rng: random(seed * 101 + k), mine: new Map(), outcomes: [] });
  }
  await Promise.all(clients.map((c) => c.follower.start()));
  await Promise.all(clients.map((c) => writeSome(c, writes)));
  await control(proxyURL, "random", {});
  const server = await converge(clients.map((c) => c.follower), serverURL, listID);
  const result = {
    converged: server !== null,
    server: server ?? (await serverDocument(serverURL, listID)),
    clients: clients.map((c) => report(c.follower, c.mirror, {
      outcomes: c.outcomes, expected: Object.fromEntries(c.mine), states: c.states,
    })),
  };
  for (const c of clients) c.follower.stop();
  return result;
}

// One writer's writes; every few it waits for those it made, else it goes on while they are out.
async function writeSome(c, count) {
  const { follower, rng, mine, k } = c;
  const all = [];
  for (let n = 0; n < count; n++) {
    const live = [...mine.keys()];
    const x = live.length < 2 ? 0 : rng();
    let promise, record;
    if (x < 0.35) {
      const id = `w${k}-${n}`;
      const place = randomPlace(rng, null);
      const section = place.section ?? Object.keys(BASE).find((s) => BASE[s].includes(place.after));
      mine.set(id, { section, model: { w: k, n } });
      promise = follower.insert({ id, model: { w: k, n } }, place);
      record = { kind: "insert", id, place };
    } else if (x < 0.6) {
      const id = choose(rng, live);
      const model = { w: k, n, updated: true };
      mine.get(id).model = model;
      promise = follower.update(id, { model });
      record = { kind: "update", id };
    } else if (x < 0.8) {
      const id = choose(rng, live);
      const place = randomPlace(rng, mine.get(id).section);
      mine.get(id).section = place.section ?? Object.keys(BASE).find((s) => BASE[s].includes(place.after));
      promise = follower.move(id, place);
      record = { kind: "move", id, place };
    } else {
      const id = choose(rng, live);
      mine.delete(id);
      promise = follower.remove(id);
      record = { kind: "remove", id };
    }
    all.push(outcome(promise).then((o) => ({ ...record, ...o })));
    if (rng() < 0.3) await all[all.length - 1];
    else await sleep(rng() * 40);
  }
  c.outcomes = await Promise.all(all);
}

/** A write whose answer the proxy loses (`fate` "after" or "cut"), twice: an insert, then a remove. */
export async function lostAnswer(m, { proxyURL, serverURL, listID, fate }) {
  const mirror = mirrorTarget(m);
  const follower = new m.ListFollower(proxyURL, listID, mirror, { writable: true, wait: 1, backoff: BACKOFF });
  await follower.start();
  await control(proxyURL, "lose", { fate, count: 1 });
  const inserted = await outcome(follower.insert({ id: "lost-1", model: { n: 1 } }, { section: "b", after: "b0" }));
  await control(proxyURL, "lose", { fate, count: 1 });
  const removed = await outcome(follower.remove("a1"));
  const server = await converge([follower], serverURL, listID);
  follower.stop();
  return report(follower, mirror, { converged: server !== null, outcomes: [inserted, removed] });
}

/** Another client's write once the follower listens again: it reaches the follower by its polls or its stream. */
const lateWrite = (proxyURL, listID) =>
  otherClient(proxyURL, listID, [{ op: "add", path: "/sections/0/items/-", value: { id: "late", model: {} } }]);

/**
 * Writes built against a document that is behind (`mode`: "poll" or "events"): another client inserted at the top
 * of section a meanwhile, so the guards fail (409) and the writes are rebuilt from the newer document: they must land
 * on the items they name.
 */
export async function rebuiltWrites(m, { proxyURL, serverURL, listID, mode = "poll" }) {
  const mirror = mirrorTarget(m);
  const follower = new m.ListFollower(proxyURL, listID, mirror, { mode, writable: true, wait: 1, backoff: BACKOFF });
  await follower.start();
  follower.pause(); // it holds revision 1 and hears of nothing more while it writes
  await otherClient(proxyURL, listID, [{ op: "add", path: "/sections/0/items/0", value: { id: "other-0", model: {} } }]);
  const updated = await outcome(follower.update("a2", { model: { text: "mine" } }));
  await otherClient(proxyURL, listID, [{ op: "add", path: "/sections/0/items/0", value: { id: "other-1", model: {} } }]);
  const moved = await outcome(follower.move("a3", { after: "a0" }));
  follower.resume();
  await lateWrite(proxyURL, listID);
  const server = await converge([follower], serverURL, listID);
  follower.stop();
  return report(follower, mirror, { converged: server !== null, outcomes: [updated, moved] });
}

/**
 * Writes that cannot apply: another client removed the anchor, the item and the section they name while the follower
 * was not listening. Each shows at once, then is refused with a ConflictError and rolled back by a diff.
 */
export async function conflictingWrites(m, { proxyURL, serverURL, listID, mode = "poll" }) {
  const mirror = mirrorTarget(m);
  const follower = new m.ListFollower(proxyURL, listID, mirror, { mode, writable: true, wait: 1, backoff: BACKOFF });
  await follower.start();
  follower.pause();
  await otherClient(proxyURL, listID, [
    { op: "remove", path: "/sections/0/items/3" }, // a3: the anchor of the move
    { op: "remove", path: "/sections/1/items/1" }, // b1: the item of the update
    { op: "remove", path: "/sections/2" }, // c: the section of the insert
  ]);
  const before = mirror.ops.length;
  const moving = follower.move("a0", { after: "a3" });
  const shownAtOnce = shape(follower.document);
  const opsAtOnce = mirror.ops.slice(before);
  const updating = follower.update("b1", { model: { text: "mine" } });
  const inserting = follower.insert({ id: "new-c", model: {} }, { section: "c" });
  const fine = follower.update("a1", { model: { text: "still fine" } });
  const pendingAtOnce = follower.pendingWrites;
  const outcomes = await Promise.all([moving, updating, inserting, fine].map(outcome));
  follower.resume();
  await lateWrite(proxyURL, listID);
  const server = await converge([follower], serverURL, listID);
  follower.stop();
  return report(follower, mirror, { converged: server !== null, outcomes, shownAtOnce, opsAtOnce, pendingAtOnce });
}

/**
 * Offline, then a new follower on the same storage: writes queue while the API is unreachable ("offline"); stop()
 * leaves them stored; a follower made later shows them at once (reset "restored", before any request) and sends them
 * once the API answers again.
 */
export async function offlineThenRestored(m, { proxyURL, serverURL, listID, storage }) {
  const first = await offlineWrites(m, { proxyURL, listID, storage });
  first.follower.stop();
  await sleep(100);
  const stored = await storage.get(`listdelta:${listID}`);
  const second = await restoreFollower(m, { proxyURL, listID, storage });
  await sleep(500); // still offline: nothing is sent, the writes wait
  const whileOffline = { state: second.follower.state, pending: second.follower.pendingWrites };
  await control(proxyURL, "offline", { on: 0 });
  const server = await converge([second.follower], serverURL, listID);
  const storedAfter = await waitFor(async () => (await storedPending(storage, listID)).length === 0, 5000);
  second.follower.stop();
  return {
    before: first.report, stored, restored: second.report, whileOffline, storedEmptyAfter: storedAfter,
    after: report(second.follower, second.mirror, { converged: server !== null }),
  };
}

/**
 * Two followers of one list on one storage at once, as two tabs on one IndexedDB database: the first stores the list,
 * the second follows and writes without storing (a Web Lock decides), so neither writes over the other's writes. Both
 * write while offline, both writes land once online; once both stopped, a new follower on the storage restores.
 */
export async function twoTabs(m, { proxyURL, serverURL, listID, storage }) {
  const options = { writable: true, wait: 1, backoff: BACKOFF, writeTimeout: 3000, storage };
  const first = new m.ListFollower(proxyURL, listID, mirrorTarget(m), options);
  await first.start();
  const second = new m.ListFollower(proxyURL, listID, mirrorTarget(m), options);
  await second.start();
  await control(proxyURL, "offline", { on: 1 });
  const writes = [
    first.insert({ id: "tab-1", model: {} }, { section: "a" }),
    second.insert({ id: "tab-2", model: {} }, { section: "b" }),
  ].map(outcome);
  const offline = await waitFor(() => first.state === "offline" && second.state === "offline", 10000);
  await sleep(500); // time for both to have stored, were both storing
  const stored = (await storedPending(storage, listID)).map((w) => w.item?.id);
  await control(proxyURL, "offline", { on: 0 });
  const server = await converge([first, second], serverURL, listID);
  const outcomes = await Promise.all(writes);
  // A follower stopped while it waits for the lock never takes it: the next one gets it.
  const late = new m.ListFollower(proxyURL, listID, mirrorTarget(m), options);
  late.start();
  await sleep(100);
  late.stop();
  first.stop();
  second.stop();
  const mirror = mirrorTarget(m);
  const third = new m.ListFollower(proxyURL, listID, mirror, options);
  third.start();
  await waitFor(() => mirror.ops.length > 0, 10000);
  const firstOp = mirror.ops[0];
  third.stop();
  return { offline, stored, converged: server !== null, outcomes, firstOp };
}

/** The pending writes `storage` holds for the list. */
const storedPending = async (storage, listID) => (await storage.get(`listdelta:${listID}`))?.pending ?? [];

/** The first half of offlineThenRestored (also the page's half before a reload): writes made while offline. */
export async function offlineWrites(m, { proxyURL, listID, storage }) {
  const mirror = mirrorTarget(m);
  const states = [];
  const follower = new m.ListFollower(proxyURL, listID, mirror, {
    writable: true, wait: 1, backoff: BACKOFF, writeTimeout: 3000, storage, onState: (s) => states.push(s),
  });
  await follower.start();
  await control(proxyURL, "offline", { on: 1 });
  const outcomes = [
    follower.insert({ id: "offline-1", model: { n: 1 } }, { section: "a", after: "a1" }),
    follower.update("b2", { model: { text: "offline" } }),
    follower.move("c0", { section: "b", after: null }),
  ].map(outcome);
  const offline = await waitFor(() => follower.state === "offline", 10000);
  const stored = await waitFor(async () => (await storedPending(storage, listID)).length === 3, 5000);
  return {
    follower, mirror, outcomes,
    report: report(follower, mirror, { offline, stored, states }),
  };
}

/**
 * The second half: a follower on `storage` whose fetch and target note their calls in order (`calls`); resolves once
 * the target was reset.
 */
export async function restoreFollower(m, { proxyURL, listID, storage }) {
  const calls = [];
  const mirror = mirrorTarget(m, calls);
  const logged = (url, init) => {
    calls.push(["fetch", init?.method ?? "GET", String(url)]);
    return fetch(url, init);
  };
  const follower = new m.ListFollower(proxyURL, listID, mirror, {
    writable: true, wait: 1, backoff: BACKOFF, writeTimeout: 3000, storage, fetch: logged,
  });
  follower.start();
  await waitFor(() => mirror.ops.length > 0, 10000);
  return {
    follower, mirror, calls,
    report: {
      calls: calls.slice(), document: follower.document, pending: follower.pendingWrites, ops: mirror.ops.slice(),
    },
  };
}

/**
 * put() and patch() on a service that wants a write token, the token a function that gives one only when asked for a
 * fresh one (so every write is first refused with a 401, then sent again with the fresh token): the whole document
 * (the short array form), raw JSON Patch, and a raw patch whose `test` fails on the service (another client moved
 * the list on meanwhile): a ConflictError ("patch"), rolled back.
 */
export async function wholeAndRaw(m, { proxyURL, serverURL, listID, token }) {
  const asked = [];
  const mirror = mirrorTarget(m);
  const follower = new m.ListFollower(proxyURL, listID, mirror, {
    writable: true, wait: 1, backoff: BACKOFF,
    token: ({ fresh }) => { asked.push(fresh); return fresh ? token : null; },
  });
  await follower.start();
  const put = follower.put({ kind: "array", title: "Fruits", items: [{ id: "apple", model: { n: 1 } }, { id: "pear" }] });
  const shownAfterPut = follower.document;
  const added = follower.patch([{ op: "add", path: "/sections/0/items/-", value: { id: "plum", model: { n: 3 } } }]);
  const outcomes = [await outcome(put), await outcome(added)];
  follower.pause();
  await otherClient(proxyURL, listID, [{ op: "add", path: "/sections/0/items/0", value: { id: "fig", model: {} } }], token);
  const before = mirror.ops.length;
  const refused = follower.patch([
    { op: "test", path: "/sections/0/items/0/id", value: "apple" },
    { op: "remove", path: "/sections/0/items/0" },
  ]);
  const shownAtOnce = shape(follower.document);
  outcomes.push(await outcome(refused));
  const opsAfter = mirror.ops.slice(before);
  follower.resume();
  const server = await converge([follower], serverURL, listID);
  follower.stop();
  return report(follower, mirror, { converged: server !== null, outcomes, shownAfterPut, shownAtOnce, opsAfter, asked });
}

/**
 * A writable follower of a list that does not exist: its put goes out while the follower still meets 404s and makes
 * the list; the follower then loads it, and a write by id follows.
 */
export async function createdByPut(m, { proxyURL, serverURL, listID }) {
  const mirror = mirrorTarget(m);
  const follower = new m.ListFollower(proxyURL, listID, mirror, { writable: true, wait: 1, backoff: BACKOFF });
  const ready = follower.start();
  // Both at once: the insert (by id) waits behind the put until the follower holds the document the put made.
  const writes = [
    follower.put({ items: [{ id: "a", model: { n: 1 } }] }),
    follower.insert({ id: "b", model: { n: 2 } }, { after: "a" }),
  ].map(outcome);
  await ready;
  const [put, inserted] = await Promise.all(writes);
  const server = await converge([follower], serverURL, listID);
  follower.stop();
  return report(follower, mirror, { converged: server !== null, outcomes: [put, inserted] });
}

/**
 * A put made while the follower still reads its storage, which holds a write from before: the stored write goes first,
 * then the put, each once.
 */
export async function putWhileRestoring(m, { proxyURL, serverURL, listID }) {
  const storage = m.memoryStorage();
  const base = await serverDocument(serverURL, listID);
  await storage.set(`listdelta:${listID}`, {
    version: 1, listID, revision: base.revision, document: base, acknowledged: [],
    pending: [{ kind: "insert", item: { id: "stored", model: {} }, section: "a", key: null, request: null }],
  });
  const mirror = mirrorTarget(m);
  const follower = new m.ListFollower(proxyURL, listID, mirror, { writable: true, wait: 1, backoff: BACKOFF, storage });
  follower.start();
  const put = await outcome(follower.put({ kind: "array", items: [{ id: "p", model: {} }] }));
  const server = await converge([follower], serverURL, listID);
  follower.stop();
  return report(follower, mirror, { converged: server !== null, put, base: base.revision });
}

/** Document pairs for diffDocuments: random documents over a few section and item ids, and the diff between each. */
export function randomDiffs(m, { count = 300, seed = 3 }) {
  const rng = random(seed);
  const document = (revision) => {
    const ids = Array.from({ length: 14 }, (_, k) => `i${k}`).filter(() => rng() < 0.7).sort(() => rng() - 0.5);
    const sections = ["a", "b", "c", "d", "e"].filter(() => rng() < 0.7).sort(() => rng() - 0.5)
      .map((id) => ({ id, title: choose(rng, ["T", "U", null]), indexTitle: null, items: [] }));
    if (sections.length) {
      for (const id of ids) choose(rng, sections).items.push({ id, cell: null, model: { v: rng() < 0.3 ? 1 : 0 } });
    }
    return { id: "x", revision, sections };
  };
  const cases = [];
  for (let n = 0; n < count; n++) {
    const from = document(1), to = document(2);
    cases.push({ from, to, diff: m.diffDocuments(from, to) });
  }
  return cases;
}

/**
 * What a follower survives that it did not cause: restored twice while offline (the second restore shows the stored
 * document too), a storage whose first read fails (the stored writes are kept and sent), a stop without storage (its
 * pending write rejects with an AbortError), a target callback that throws (the write is not rejected for it, and is
 * applied once).
 */
export async function survivals(m, { proxyURL, serverURL, listID }) {
  const storage = m.memoryStorage();
  const quiet = { wait: 1, backoff: BACKOFF, writeTimeout: 3000 };
  // Restored twice while offline.
  const first = new m.ListFollower(proxyURL, listID, mirrorTarget(m), { ...quiet, writable: true, storage });
  await first.start();
  first.stop();
  await sleep(100);
  await control(proxyURL, "offline", { on: 1 });
  const restores = [];
  for (let i = 0; i < 2; i++) {
    const mirror = mirrorTarget(m);
    const f = new m.ListFollower(proxyURL, listID, mirror, { ...quiet, writable: true, storage });
    f.start();
    restores.push(await waitFor(() => mirror.ops.some((op) => op[0] === "reset"), 3000) && f.document?.revision === 1);
    await sleep(300);
    f.stop();
    await sleep(100);
  }
  // A write stored offline, then a storage whose first read fails: the write is kept and sent once online.
  const writer = new m.ListFollower(proxyURL, listID, mirrorTarget(m), { ...quiet, writable: true, storage });
  writer.start();
  await waitFor(() => writer.document !== null, 3000);
  writer.update("a0", { model: { kept: true } });
  await waitFor(async () => ((await storage.get(`listdelta:${listID}`))?.pending ?? []).length === 1, 3000);
  writer.stop();
  await control(proxyURL, "offline", { on: 0 });
  let failures = 1;
  const flaky = {
    get: async (key) => {
      if (failures-- > 0) throw new Error("simulated storage failure");
      return storage.get(key);
    },
    set: (key, value) => storage.set(key, value),
  };
  const reader = new m.ListFollower(proxyURL, listID, mirrorTarget(m), { ...quiet, writable: true, storage: flaky, onError: () => {} });
  reader.start();
  const sent = await waitFor(async () => {
    const doc = await serverDocument(serverURL, listID);
    return doc.sections[0].items.some((item) => item.id === "a0" && item.model?.kept === true);
  }, 15000);
  reader.stop();
  // Stopped without storage, a pending write rejects.
  await control(proxyURL, "offline", { on: 1 });
  const unstored = new m.ListFollower(proxyURL, listID, mirrorTarget(m), { ...quiet, writable: true });
  unstored.start();
  const abandoned = outcome(unstored.update("a1", { model: { never: true } }));
  await sleep(200);
  unstored.stop();
  const abandonedOutcome = await abandoned;
  await control(proxyURL, "offline", { on: 0 });
  // A throwing onDiff: the write resolves, once.
  const throwing = new m.ListFollower(proxyURL, listID, mirrorTarget(m), {
    ...quiet, writable: true, onDiff: () => { throw new Error("a callback's bug"); }, onError: () => {},
  });
  await throwing.start();
  const before = (await serverDocument(serverURL, listID)).revision;
  const thrown = await outcome(throwing.update("a2", { model: { once: true } }));
  await sleep(1500);
  const after = (await serverDocument(serverURL, listID)).revision;
  throwing.stop();
  return { restores, sent, abandoned: abandonedOutcome, thrown, revisionsMade: after - before };
}
