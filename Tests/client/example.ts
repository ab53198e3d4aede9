// Uses every export of client.js through its declarations (Sources/ListDeltaService/Web/client.d.ts), the way a page
// written in TypeScript would. Tests/e2e/test_client_types.py checks it with `tsc --strict --noEmit`: it must compile,
// and every line marked @ts-expect-error must be refused (so the declarations are not looser than the API).

import {
  ConflictError,
  DiffError,
  HTTPError,
  ListFollower,
  ManyListFollower,
  applyBatchDiff,
  checkCounts,
  createList,
  diffDocuments,
  diffSize,
  fetchDiff,
  fetchDocument,
  fetchHistory,
  fetchSource,
  fetchView,
  follow,
  followMany,
  indexedDBStorage,
  listLists,
  memoryStorage,
  nextLink,
  performBatchDiff,
  putSource,
  queryText,
  request,
  revert,
} from "../../Sources/ListDeltaService/Web/client.js";
import type {
  BatchDiff,
  FollowerState,
  FollowerStorage,
  IndexPath,
  Item,
  ListDocument,
  ListUpdateTarget,
  PendingWrite,
  Query,
  ResetReason,
  Token,
  WriteOutcome,
  WriteResult,
} from "../../Sources/ListDeltaService/Web/client.js";

const base = "https://lists.example";

// A target that keeps the ids it shows.
const shown: string[][] = [];
const target: ListUpdateTarget = {
  reset(document: ListDocument, reason: ResetReason) {
    shown.length = 0;
    for (const section of document.sections) shown.push(section.items.map((item) => item.id));
    console.log("drawn", reason);
  },
  deleteItems(paths: IndexPath[]) {
    for (const [s, i] of [...paths].reverse()) shown[s].splice(i, 1);
  },
  insertItems(insertions) {
    for (const { at, item } of insertions) shown[at[0]].splice(at[1], 0, item.id);
  },
  moveItem(from, to) {
    console.log(from[0], from[1], to[0], to[1]);
  },
  reconfigureItems(updates) {
    for (const { item } of updates) console.log(item.model);
  },
};

// A token that is minted again when the service refuses the last one.
let cached: string | null = null;
const token: Token = async ({ fresh }) => (fresh || !cached ? (cached = await (await fetch("/token")).text()) : cached);

async function writes(): Promise<void> {
  const storage: FollowerStorage = typeof indexedDB === "undefined" ? memoryStorage() : indexedDBStorage("my-app");
  const states: FollowerState[] = [];
  const follower = follow(base, "inbox", target, {
    writable: true,
    storage,
    token,
    writeTimeout: 10000,
    backoff: { initial: 200, max: 5000 },
    onState: (state) => states.push(state),
    onWrite: (outcome: WriteOutcome) => {
      if (outcome.error) console.log("refused", outcome.write.kind, outcome.error.message);
      else console.log("acknowledged at", outcome.revision);
    },
  });
  await follower.start();

  const item: Item = { id: "m9", type: "TextViewModel", model: { text: "Hello" } };
  const inserted: WriteResult = await follower.insert(item, { section: "today", after: "m1" });
  console.log(inserted.revision);
  await follower.insert({ id: "m10" }, { section: "today", after: null });
  await follower.insert({ id: "m11" }, { section: "today" });
  await follower.update("m9", { model: { text: "Hello again" }, cell: "TextCell" });
  await follower.move("m9", { after: "m10" });
  await follower.put({ kind: "array", title: "Fruits", items: [{ id: "apple" }] });
  await follower.patch([{ op: "replace", path: "/sections/0/title", value: "Fresh fruit" }]);
  try {
    await follower.remove("m9");
  } catch (error) {
    if (error instanceof ConflictError) console.log(error.reason, error.write?.kind, error.body?.detail);
    else if (error instanceof HTTPError && typeof error.body === "object" && error.body !== null) console.log(error.body.pointer);
  }

  for (const write of follower.pendingWrites as PendingWrite[]) {
    if (write.kind === "insert") console.log(write.item.id, write.section, write.after, write.key);
    else if (write.kind === "update") console.log(write.id, write.changes.model);
    else if (write.kind === "put") console.log(write.document.kind);
    else if (write.kind === "patch") console.log(write.operations.length);
    else console.log(write.id);
  }
  console.log(follower.document?.revision, follower.confirmedDocument?.sections.length, states);
  follower.stop();

  // @ts-expect-error: an item needs an id.
  await follower.insert({ model: 1 }, { section: "today" });
  // @ts-expect-error: update changes model, cell and type only.
  await follower.update("m9", { id: "other" });
  // @ts-expect-error: a place's anchor is an item id or null.
  await follower.move("m9", { after: 3 });
  // @ts-expect-error: the state is a known one.
  const wrong: FollowerState = "asleep";
  console.log(wrong);
}

async function following(): Promise<void> {
  const query: Query = { where: [{ path: "/model/read", op: "eq", value: false }], sort: [{ path: "/model/date", order: "desc" }], limit: 20 };
  const follower = new ListFollower(base, "inbox", target, {
    mode: "events",
    query,
    onDiff: (diff: BatchDiff, document: ListDocument) => console.log(diff.to, document.revision),
    onReset: ({ reason, from }) => console.log(reason, from),
  });
  await follower.start();
  await follower.setQuery({ ...query, limit: 40 });
  follower.pause();
  follower.resume();
  const history = await follower.history({ limit: 10 });
  for (const revision of history.revisions) {
    if (revision.by.op === "revert") console.log(revision.by.to);
  }
  await follower.revert(history.revisions[1].revision);
  console.log(queryText(query), queryText(null), follower.query);

  const many = followMany(base, { inbox: target, today: {} }, {
    onState: (state, id) => console.log(id ?? "connection", state),
    onReset: (info) => console.log(info.id, info.reason),
  });
  await many.start();
  await many.add("later", target);
  many.remove("today");
  console.log(many.ids, many.documents, many.revisions, many.get("inbox")?.revision);
  const again = new ManyListFollower(base, ["a", ["b", target]]);
  again.stop();

  // @ts-expect-error: a query's op is one of the API's.
  const bad: Query = { where: [{ path: "/x", op: "like" }] };
  console.log(bad);
}

async function diffs(): Promise<void> {
  const old: ListDocument = await fetchDocument(base, "inbox", { revision: 3 });
  const diff = await fetchDiff(base, "inbox", 3, { to: 5 });
  try {
    checkCounts(old, diff);
    const next = applyBatchDiff(old, diff);
    const back = diffDocuments(next, old);
    performBatchDiff(back, target);
    console.log(diffSize(back), next.revision);
  } catch (error) {
    if (error instanceof DiffError) console.log(error.message);
  }
  console.log(nextLink('</v1/lists/inbox/diff?from=5&cursor=9&wait=25>; rel="next"'));

  const page = await listLists(base, { limit: 10 });
  for (const list of page.lists) console.log(list.id, list.items);
  const created = await createList(base, "fresh", { sections: [{ id: "s", items: [] }] }, { token: "secret" });
  console.log(created.diff.counts.to);
  const source = await fetchSource(base, "news");
  if (source) console.log(source.lastFetch?.status, source.consecutiveFailures);
  await putSource(base, "news", { url: "https://example.org/feed.xml", interval: 600, sections: "day" });
  const view = await fetchView(base, "unread");
  if (view) console.log(view.of, view.basedOn);
  const health = await request<{ status: string }>(base, "/healthz");
  console.log(health.status);
  const older = await fetchHistory(base, "inbox", { before: 10 });
  await revert(base, "inbox", older.oldestRevision, { ifMatch: 12 });
  const error = new HTTPError(409, { status: 409, pointer: "/Idempotency-Key" });
  const conflict = new ConflictError("gone", { reason: "anchor" });
  console.log(error.status, conflict.reason);

  // @ts-expect-error: a batch diff has counts.
  performBatchDiff({ id: "x", from: 1, to: 2 }, target);
}

void writes();
void following();
void diffs();
