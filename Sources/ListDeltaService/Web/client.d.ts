// TypeScript declarations of client.js, ListDelta's web client (an ES module with no dependencies): every export.
// The contract these types describe is docs/api.md; the behaviour, the comments of client.js and docs/clients.md.
//
//   import { follow, type ListDocument } from "./client.js";   // with client.d.ts beside client.js

// ---- The document and its diffs (docs/api.md) ----

/** Any JSON value. */
export type JSONValue = null | boolean | number | string | JSONValue[] | { [key: string]: JSONValue };

/** An item: `id` is unique in the whole list; `cell` is resolved from the list's `cells[type]` when absent. */
export interface Item {
  id: string;
  type?: string;
  cell?: string | null;
  model?: JSONValue;
}

/** What `sections.updated` carries: a section without its items. */
export interface SectionHeader {
  id: string;
  title: string | null;
  indexTitle: string | null;
}

export interface Section extends SectionHeader {
  items: Item[];
}

/** A list's document as the service serves it (`GET /v1/lists/{id}`). */
export interface ListDocument {
  id: string;
  kind?: "array" | "sections";
  revision: number;
  /** The canonical live query, on the document of a query's result. */
  query?: Query;
  /** The cell registry: item `type` -> cell identifier. */
  cells?: Record<string, string>;
  sections: Section[];
}

/** A section as a write gives it (title and index title may be left out). */
export interface SectionBody {
  id: string;
  title?: string | null;
  indexTitle?: string | null;
  items?: Item[];
}

/** A document as PUT takes it: the long form (`sections`) or the short array form (`{kind: "array", title, items}`). */
export interface DocumentBody {
  id?: string;
  kind?: "array" | "sections";
  cells?: Record<string, string>;
  sections?: SectionBody[];
  title?: string | null;
  items?: Item[];
}

/** `[section, item]` indexes. */
export type IndexPath = [number, number];

export interface SectionInsertion {
  at: number;
  section: Section;
}

export interface SectionUpdate {
  at: number;
  section: SectionHeader;
}

export interface ItemAt {
  at: IndexPath;
  item: Item;
}

/** A batch diff (`format=batch`): the updates of one `performBatchUpdates`, then the reconfigured items. */
export interface BatchDiff {
  id: string | null;
  from: number;
  to: number;
  sections: {
    deleted: number[];
    inserted: SectionInsertion[];
    moved: { from: number; to: number }[];
    updated: SectionUpdate[];
  };
  items: {
    deleted: IndexPath[];
    inserted: ItemAt[];
    moved: { from: IndexPath; to: IndexPath }[];
    updated: ItemAt[];
  };
  /** The item count of each section before and after. */
  counts: { from: number[]; to: number[] };
}

/** An RFC 6902 JSON Patch operation. */
export type JSONPatchOperation =
  | { op: "add" | "replace" | "test"; path: string; value: JSONValue }
  | { op: "remove"; path: string }
  | { op: "move" | "copy"; from: string; path: string };

/** An RFC 9457 problem, as the service answers errors. */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  /** A JSON Pointer to the offending value (`/q/limit`, `/Idempotency-Key`, ...). */
  pointer?: string;
  /** The list's current revision, with a 410. */
  current?: number;
  [member: string]: unknown;
}

/** What PUT, PATCH and revert answer. */
export interface WriteAnswer {
  id: string;
  revision: number;
  diff: BatchDiff;
}

// ---- Live queries (docs/api.md, Live queries) ----

export interface Condition {
  path: string;
  op: "eq" | "ne" | "lt" | "lte" | "gt" | "gte" | "in" | "contains" | "prefix" | "exists";
  value?: JSONValue;
}

export interface SortKey {
  path: string;
  order?: "asc" | "desc";
}

export interface Query {
  where?: Condition[];
  sort?: SortKey[];
  offset?: number;
  limit?: number;
  sections?: "keep" | "none" | { by: string };
}

// ---- Errors ----

/** A diff that does not fit the document it is applied to. */
export class DiffError extends Error {
  constructor(message: string);
  name: "DiffError";
}

/** An HTTP answer the client did not expect; `body` is the problem (or the text) the service answered. */
export class HTTPError extends Error {
  constructor(status: number, body: Problem | string | null);
  name: "HTTPError";
  readonly status: number;
  readonly body: Problem | string | null;
}

/** Why a write cannot apply: what it names is gone ("patch": an operation of a raw JSON Patch failed). */
export type ConflictReason = "item" | "anchor" | "section" | "list" | "patch";

/** A write that cannot apply: its item, its anchor or its section is gone. */
export class ConflictError extends Error {
  constructor(message: string, details?: { reason?: ConflictReason; write?: PendingWrite | null; body?: Problem | null });
  name: "ConflictError";
  readonly reason: ConflictReason;
  /** The write, as `pendingWrites` showed it. */
  readonly write: PendingWrite | null;
  /** The service's problem, when it answered one. */
  readonly body: Problem | null;
}

// ---- Diffs ----

/** The number of operations in a batch diff (0 for an empty one). */
export function diffSize(diff: BatchDiff | null | undefined): number;

/** Throws a DiffError unless `diff.counts.from` equals the item counts of `document`'s sections. */
export function checkCounts(document: Pick<ListDocument, "sections">, diff: BatchDiff): void;

/** The document `diff` leads to from `document` (pure; `revision` becomes `diff.to`); a DiffError when it does not fit. */
export function applyBatchDiff<D extends Pick<ListDocument, "sections">>(document: D, diff: BatchDiff): D & { revision: number };

/** Drives `target` through `diff` in UIKit's order. */
export function performBatchDiff(diff: BatchDiff, target: ListUpdateTarget | null | undefined): void;

/** The batch diff from document `from` to document `to`, by section and item id (what the service would send). */
export function diffDocuments(
  from: Pick<ListDocument, "sections"> & Partial<ListDocument> | null | undefined,
  to: Pick<ListDocument, "sections"> & Partial<ListDocument> | null | undefined,
): BatchDiff;

/** The `rel="next"` target of a `Link` field, or null. */
export function nextLink(field: string | null | undefined): string | null;

/** The text a query travels as in `q`, or null for the whole list (null, undefined, "" and `{}`). */
export function queryText(query: Query | string | null | undefined): string | null;

// ---- Following ----

/** The operations of the Swift core's `ListUpdateTarget`; every one is optional. */
export interface ListUpdateTarget {
  beginUpdates?(): void;
  deleteSections?(indexes: number[]): void;
  insertSections?(insertions: SectionInsertion[]): void;
  moveSection?(from: number, to: number): void;
  deleteItems?(paths: IndexPath[]): void;
  insertItems?(insertions: ItemAt[]): void;
  moveItem?(from: IndexPath, to: IndexPath): void;
  endUpdates?(): void;
  updateSectionHeaders?(updates: SectionUpdate[]): void;
  reconfigureItems?(updates: ItemAt[]): void;
  /** Draws a whole document: the first load ("initial"), one restored from storage ("restored"), or a reset. */
  reset?(document: ListDocument, reason: ResetReason): void;
}

export type ResetReason =
  | "initial" | "restored" | "gone" | "check" | "mismatch" | "target" | "event" | "deleted" | "missing";

export type FollowerState = "idle" | "loading" | "live" | "offline" | "retrying" | "paused" | "stopped";

/** A bearer token, or a function giving one (`fresh`: after a 401 or a broken event stream, a new one is wanted). */
export type Token =
  | string
  | null
  | undefined
  | ((context: { fresh: boolean }) => string | null | undefined | Promise<string | null | undefined>);

export type FetchFunction = (url: string, init?: RequestInit) => Promise<Response>;

export interface BackoffOptions {
  /** Milliseconds before the first retry (default 500). */
  initial?: number;
  /** The longest delay (default 15000). */
  max?: number;
}

/** The options both followers take. */
export interface FollowOptions {
  mode?: "poll" | "events";
  /** Long-poll seconds (default 25). */
  wait?: number;
  backoff?: BackoffOptions;
  headers?: Record<string, string>;
  fetch?: FetchFunction;
  token?: Token;
}

export interface ResetInfo {
  reason: ResetReason;
  detail?: string;
  from: number | null;
  document: ListDocument;
}

/** Where a follower keeps its document and pending writes: values are JSON; `get` gives undefined or null when none. */
export interface FollowerStorage {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown): Promise<unknown>;
  /** Names a storage the tabs of an origin share: one follower of a list at a time stores it (a Web Lock). */
  readonly lockName?: string;
}

export interface ListFollowerOptions extends FollowOptions {
  /** A live query (an object or its JSON text); not with `writable` or `storage`. */
  query?: Query | string | null;
  /** Write through the follower: insert, update, remove, move, put, patch. */
  writable?: boolean;
  /** Keeps the service's document, its revision and the pending writes (key `listdelta:<listID>`). */
  storage?: FollowerStorage;
  /** Milliseconds a write waits for its answer before it is sent again with the same key (default 20000). */
  writeTimeout?: number;
  onLoad?(document: ListDocument, listID: string): void;
  onDiff?(diff: BatchDiff, document: ListDocument, listID: string): void;
  onReset?(info: ResetInfo, listID: string): void;
  onError?(error: unknown, retryInMs: number, listID: string): void;
  onState?(state: FollowerState, listID: string): void;
  /** A write was acknowledged (`revision`) or refused (`error`); also for writes restored from storage. */
  onWrite?(outcome: WriteOutcome, listID: string): void;
}

/** A place in a section: `after` an item id (right after it), null (first), or absent (last). */
export interface Place {
  /** A section id; may be left out when `after` names an item (its section then). */
  section?: string;
  after?: string | null;
}

/** The members of an item an update replaces. */
export interface ItemChanges {
  model?: JSONValue;
  cell?: string | null;
  type?: string;
}

/** A write not yet acknowledged, by intent; `key` is its current Idempotency-Key (null until first sent). */
export type PendingWrite =
  | { kind: "insert"; item: Item; section?: string; after?: string | null; key: string | null }
  | { kind: "update"; id: string; changes: ItemChanges; key: string | null }
  | { kind: "remove"; id: string; key: string | null }
  | { kind: "move"; id: string; section?: string; after?: string | null; key: string | null }
  | { kind: "put"; document: DocumentBody; key: string | null }
  | { kind: "patch"; operations: JSONPatchOperation[]; key: string | null };

/** What a write's promise resolves with: the revision the service acknowledged it at. */
export interface WriteResult {
  revision: number;
}

export type WriteOutcome =
  | { write: PendingWrite; revision: number; error?: undefined }
  | { write: PendingWrite; error: ConflictError | HTTPError; revision?: undefined };

/** Follows one list (see client.js); with `writable: true` it writes too. */
export class ListFollower {
  constructor(baseURL: string, listID: string, target?: ListUpdateTarget, options?: ListFollowerOptions);
  readonly baseURL: string;
  readonly listID: string;
  target: ListUpdateTarget;
  readonly options: ListFollowerOptions;
  readonly state: FollowerState;
  /** What the target shows: the service's document with the pending writes on top. */
  readonly document: ListDocument | null;
  readonly revision: number | null;
  readonly lastDiff: BatchDiff | null;
  readonly resets: number;
  readonly writable: boolean;
  readonly url: string;
  readonly query: Query | string | null;
  /** The service's document as last heard of (`document` without the pending writes). */
  readonly confirmedDocument: ListDocument | null;
  /** The writes not yet acknowledged, in the order made. */
  readonly pendingWrites: PendingWrite[];
  /** Loads and starts following; resolves once the first document is held. */
  start(): Promise<ListDocument>;
  stop(): void;
  pause(): void;
  resume(): void;
  setQuery(query: Query | string | null): Promise<ListDocument | null>;
  history(options?: HistoryOptions): Promise<HistoryPage>;
  revert(to: number, options?: RevertOptions): Promise<WriteAnswer>;
  insert(item: Item, place: Place): Promise<WriteResult>;
  update(id: string, changes: ItemChanges): Promise<WriteResult>;
  remove(id: string): Promise<WriteResult>;
  move(id: string, place: Place): Promise<WriteResult>;
  put(document: DocumentBody): Promise<WriteResult>;
  patch(operations: JSONPatchOperation[]): Promise<WriteResult>;
}

export interface ManyResetInfo extends ResetInfo {
  id: string;
}

export interface ManyListFollowerOptions extends FollowOptions {
  onLoad?(document: ListDocument, listID: string): void;
  onDiff?(diff: BatchDiff, document: ListDocument, listID: string): void;
  onReset?(info: ManyResetInfo, listID: string): void;
  /** `listID` is null for the connection's errors. */
  onError?(error: unknown, retryInMs: number, listID: string | null): void;
  /** `listID` is null for the connection's state. */
  onState?(state: FollowerState, listID: string | null): void;
}

/** What a ManyListFollower holds for one list. */
export interface FollowedList {
  readonly id: string;
  readonly target: ListUpdateTarget;
  readonly document: ListDocument | null;
  readonly revision: number | null;
  readonly lastDiff: BatchDiff | null;
  readonly state: FollowerState;
  readonly resets: number;
}

export type ManyTargets =
  | Record<string, ListUpdateTarget>
  | Map<string, ListUpdateTarget>
  | Array<string | [string, ListUpdateTarget?]>;

/** Follows many lists over one connection (see client.js). */
export class ManyListFollower {
  constructor(baseURL: string, targets?: ManyTargets, options?: ManyListFollowerOptions);
  readonly baseURL: string;
  readonly options: ManyListFollowerOptions;
  readonly state: FollowerState;
  readonly lists: Map<string, FollowedList>;
  readonly ids: string[];
  readonly documents: Record<string, ListDocument | null>;
  readonly revisions: Record<string, number | null>;
  get(listID: string): FollowedList | null;
  add(listID: string, target?: ListUpdateTarget): Promise<ListDocument>;
  remove(listID: string): boolean;
  start(): Promise<Record<string, ListDocument | null>>;
  stop(): void;
  pause(): void;
  resume(): void;
}

/** Starts following `listID` at `baseURL` ("" for the page's own origin). */
export function follow(baseURL: string, listID: string, target?: ListUpdateTarget, options?: ListFollowerOptions): ListFollower;

/** Starts following the lists of `targets` over one connection. */
export function followMany(baseURL: string, targets?: ManyTargets, options?: ManyListFollowerOptions): ManyListFollower;

/** A storage that lives as long as the page (values kept as JSON text). */
export function memoryStorage(): FollowerStorage;

/** A storage in IndexedDB (database `name`, default "listdelta"): it outlives the page. */
export function indexedDBStorage(name?: string): FollowerStorage;

// ---- History and revert ----

export interface ChangeCounts {
  deleted: number;
  inserted: number;
  moved: number;
  updated: number;
}

export interface Revision {
  revision: number;
  committedAt: string | null;
  by:
    | { op: "put" | "patch" | "source" }
    | { op: "revert"; to: number }
    | { op: "view"; of: string; revision: number };
  sections: number;
  items: number;
  changes: { sections: ChangeCounts; items: ChangeCounts };
}

export interface HistoryPage {
  revisions: Revision[];
  oldestRevision: number;
  next: number | null;
}

export interface HistoryOptions {
  before?: number;
  limit?: number;
  headers?: Record<string, string>;
  token?: Token;
}

export interface RevertOptions {
  /** A revision: 412 when the list moved past it. */
  ifMatch?: number;
  headers?: Record<string, string>;
  token?: Token;
}

export function fetchHistory(baseURL: string, listID: string, options?: HistoryOptions): Promise<HistoryPage>;

export function revert(baseURL: string, listID: string, to: number, options?: RevertOptions): Promise<WriteAnswer>;

// ---- One-shot requests ----

/** The options of every one-shot request. */
export interface RequestOptions {
  headers?: Record<string, string>;
  token?: Token;
  signal?: AbortSignal;
}

/** Any request of the API; resolves to the answer's JSON body (null when none), an HTTPError for non-2xx answers. */
export function request<T = unknown>(
  baseURL: string,
  path: string,
  options?: RequestOptions & { method?: string; body?: unknown },
): Promise<T>;

export interface ListSummary {
  id: string;
  kind: "array" | "sections";
  revision: number;
  sections: number;
  items: number;
}

export function listLists(
  baseURL: string,
  options?: RequestOptions & { limit?: number; after?: string },
): Promise<{ lists: ListSummary[]; next: string | null }>;

export function fetchDocument(baseURL: string, listID: string, options?: RequestOptions & { revision?: number }): Promise<ListDocument>;

export function fetchDiff(baseURL: string, listID: string, from: number, options?: RequestOptions & { to?: number }): Promise<BatchDiff>;

export function createList(baseURL: string, listID: string, document: DocumentBody, options?: RequestOptions): Promise<WriteAnswer>;

export interface SourceSettings {
  url: string;
  interval?: number;
  sections?: "none" | "day" | "category";
  maxItems?: number;
}

export interface SourceState {
  url: string;
  interval: number;
  sections: "none" | "day" | "category";
  maxItems: number;
  lastFetch: { at: string; status: number | null; items: number; bytes: number; parseMs: number; changed: boolean } | null;
  lastError: Problem | null;
  nextFetchAt: string | null;
  consecutiveFailures: number;
}

export function fetchSource(baseURL: string, listID: string, options?: RequestOptions): Promise<SourceState | null>;

export function putSource(baseURL: string, listID: string, settings: SourceSettings, options?: RequestOptions): Promise<SourceState>;

export interface ViewDefinition extends Query {
  of: string;
}

export function fetchView(
  baseURL: string,
  listID: string,
  options?: RequestOptions,
): Promise<(ViewDefinition & { basedOn: number }) | null>;
