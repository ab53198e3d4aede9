// The list view (`/?list=ID`): follows one list through client.js's ListFollower (writable: the demo writer writes
// through it) and shows it as it changes (its sections, section index, revision, counts and diff log), with the
// history, source and view panels of that list and its query bar (`/?list=ID&q=…`: a live query of the list, shown
// instead of the whole list).
import { HTTPError, diffDocuments, diffSize, follow } from "/client.js";
import { $, el, reduceMotion } from "/app/dom.js";
import { currentToken, mode, modeName } from "/app/connection.js";
import { dropSideWriter } from "/app/demo-writer.js";
import { page } from "/app/page-state.js";
import { describe, log } from "/app/diff-log.js";
import { itemCount, pageTarget, renderSections } from "/app/document-view.js";
import { loadHistory, resetHistory } from "/app/history.js";
import { clearSource, loadSource, refreshSource } from "/app/source-panel.js";
import { clearView, loadView, refreshView } from "/app/view-panel.js";
import { notePaths, pageURL, resetQueryBar, showWindow } from "/app/query-bar.js";

/** Renders the single list view: `doc` into #sections, its section index and counts. */
function render(doc, hints = null) {
  renderSections($("sections"), doc, hints, true);
  renderIndex(doc);
  $("section-count").textContent = String(doc.sections.length);
  $("item-count").textContent = String(itemCount(doc));
}

/** The section index: a link to every section with an index title. */
function renderIndex(doc) {
  const nav = $("section-index");
  const links = [];
  doc.sections.forEach((section, s) => {
    if (section.indexTitle == null || section.indexTitle === "") return;
    links.push(el("a", {
      href: `#section-${s}`, text: section.indexTitle, title: section.title ?? section.id,
      onclick: (e) => {
        e.preventDefault();
        $(`section-${s}`)?.scrollIntoView({ behavior: reduceMotion ? "auto" : "smooth", block: "start" });
      },
    }));
  });
  nav.replaceChildren(...links);
  nav.hidden = links.length === 0;
}

let shownRevision = null; // the revision on show

/** Shows `revision` as the one on show, and the size of `diff`, the last one shown (null: none; undefined: as is). */
function showRevision(revision, diff) {
  shownRevision = revision;
  const r = $("revision");
  r.textContent = revision == null ? "–" : String(revision);
  r.setAttribute("data-revision", revision == null ? "" : String(revision));
  if (diff !== undefined) $("diff-size").textContent = diff ? `${diffSize(diff)} ops (r${diff.from}→r${diff.to})` : "–";
}

/**
 * Shows list `id` (instead of the list shown before) and follows it, through the live query `query` when one is given
 * (null: the whole list); `push` adds a browser history entry.
 */
export function openListView(id, push, query = null) {
  page.follower?.stop();
  dropSideWriter();
  page.follower = null;
  page.listID = id;
  page.query = query;
  if (push) history.pushState({ list: id }, "", pageURL(id, query));
  $("welcome").hidden = true;
  $("viewer").hidden = false;
  $("list-title").textContent = id;
  document.title = `${id} · ListDelta`;
  $("sections").replaceChildren();
  $("ghosts").replaceChildren();
  $("log").replaceChildren();
  resetHistory();
  clearSource();
  loadSource();
  clearView();
  loadView();
  showRevision(null, null);
  resetQueryBar(query);
  page.follower = startFollower(id, query);
  if (page.paused) page.follower.pause();
}

/**
 * Starts a follower of list `id` for the list view: a writable one for the whole list (`query` null: the demo writer
 * writes through it), else one that follows `query` (a writable follower follows no query). Without `swap` it is the
 * follower on show. With `swap` (`{from, resolve, reject}`) it takes over from `swap.from` once its document is
 * loaded, the change shown as one animated diff, and resolves to itself (null when `swap.from` is no longer on
 * show); its first error before that gives it up (`reject(error)`).
 */
function startFollower(id, query, swap = null) {
  let follower;
  // Whether it is the follower on show (the first one is, from its start; page.follower is set once it returns).
  const onShow = () => page.follower === follower || (page.follower === null && !swap);
  const target = pageTarget(() => follower, render, (doc) => {
    if (!onShow()) return; // a follower taking over shows its first document as a diff (takeOver)
    render(doc, null);
    showRevision(doc.revision, null);
  });
  follower = follow("", id, target, {
    mode,
    token: currentToken,
    ...(query === null ? { writable: true } : { query }),
    onLoad: (doc) => {
      if (swap && !onShow()) return takeOver(follower, swap, doc);
      log(`loaded revision ${doc.revision}${query ? ` of ${JSON.stringify(query)}` : ""}`);
      followed(doc);
    },
    onDiff: (diff) => {
      if (!onShow()) return;
      showRevision(diff.to, diff);
      showWindow();
      // A write shown before the server's answer (or taken back after a refusal) changes what is shown, not the
      // revision; the answer then moves the revision on (onWrite).
      const pending = follower.pendingWrites.length ? ` (${follower.pendingWrites.length} pending)` : "";
      log(`r${diff.from} → r${diff.to}: ${describe(diff)}${pending}`);
      if (diff.from === diff.to) return;
      loadHistory();
      refreshSource();
      refreshView();
    },
    onWrite: ({ write, revision }) => {
      if (!onShow()) return;
      // The revision moves on without a diff when what is shown stays the same (the write was shown already, or the
      // catch-up before a refusal found it done by another writer).
      if (follower.revision !== shownRevision) {
        showRevision(follower.revision);
        loadHistory();
      }
      if (revision !== undefined) log(`${write.kind} acknowledged as r${revision}`); // a refusal: the writer reports it
    },
    onReset: (info) => {
      if (!onShow()) return;
      page.resets.push({ reason: info.reason, detail: info.detail, from: info.from, to: info.document.revision });
      showRevision(info.document.revision, null);
      log(`reset (${info.reason}): ${info.detail ?? ""} → revision ${info.document.revision}`, "reset");
      followed(info.document);
      refreshSource();
      refreshView();
    },
    onError: (error, ms) => {
      if (onShow()) return log(`${error.message ?? error}; retrying in ${(ms / 1000).toFixed(1)} s`, "error");
      if (!swap) return;
      follower.stop(); // it was to take over: it gives up instead
      if (page.follower === swap.from) swap.reject(readableError(error));
      else swap.resolve(null);
    },
    onState: (s) => { if (onShow()) showState(s); },
  });
  return follower;
}

function showState(state) {
  $("status").textContent = `${modeName} · ${state}`;
}

/** After a document fetched whole: the query bar's paths and window, and the history. */
function followed(doc) {
  notePaths(doc);
  showWindow();
  loadHistory();
}

/** `follower` (started by startFollower with `swap`) replaces `swap.from`, its first document `doc` shown as a diff. */
function takeOver(follower, swap, doc) {
  if (page.follower !== swap.from) {
    follower.stop();
    return swap.resolve(null);
  }
  const before = swap.from.document;
  page.follower = follower;
  swap.from.stop();
  if (follower.writable) dropSideWriter(); // the whole list again: the follower on show writes
  const diff = diffDocuments(before, doc);
  const hints = { moved: new Set(diff.items.moved.map((m) => doc.sections[m.to[0]]?.items[m.to[1]]?.id)) };
  render(doc, hints);
  showRevision(doc.revision, diff);
  showState(follower.state);
  log(`r${diff.from} → r${diff.to}: ${describe(diff)}`);
  followed(doc);
  if (page.paused) follower.pause();
  swap.resolve(follower);
}

/** An error with its problem as an object (a document request's answer body comes as text). */
function readableError(error) {
  if (!(error instanceof HTTPError) || typeof error.body !== "string") return error;
  try {
    return new HTTPError(error.status, JSON.parse(error.body));
  } catch {
    return error;
  }
}

/** Resolves once `follower`'s writes are acknowledged or refused (at most `ms`). */
async function settled(follower, ms = 10000) {
  const until = Date.now() + ms;
  while (follower.pendingWrites.length && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
}

/**
 * Shows the open list through `query` (null: the whole list) as one animated diff: the follower on show changes its
 * query (`setQuery`, the server's diff between the two results), or, from the whole list to a query and back, another
 * follower takes over (writable for the whole list). Resolves to the follower on show then (null when another list
 * was opened meanwhile); rejects, the list going on as it was, when the server refuses the query.
 */
export async function followQuery(query) {
  const follower = page.follower;
  const id = page.listID;
  if (!follower || !id) return null;
  if (follower.writable === (query === null)) {
    if (query !== null) await follower.setQuery(query);
    return follower;
  }
  await settled(follower);
  if (page.follower !== follower) return null;
  return new Promise((resolve, reject) => {
    startFollower(id, query, { from: follower, resolve, reject });
  });
}

/** Stops following the list shown (if any) and hides the list view. */
export function closeListView() {
  page.follower?.stop();
  dropSideWriter();
  page.follower = null;
  page.listID = null;
  page.query = null;
  clearSource();
  clearView();
  $("viewer").hidden = true;
}
