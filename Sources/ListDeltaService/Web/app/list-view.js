// The list view (`/?list=ID`): follows one list through client.js's ListFollower and shows it as it changes (its
// sections, section index, revision, counts and diff log), with the history, source and view panels of that list and
// its query bar (`/?list=ID&q=…`: a live query of the list, shown instead of the whole list).
import { ListFollower, diffSize } from "/client.js";
import { $, el, reduceMotion } from "/app/dom.js";
import { currentToken, mode, modeName } from "/app/connection.js";
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

function showRevision(revision, diff) {
  const r = $("revision");
  r.textContent = revision == null ? "–" : String(revision);
  r.setAttribute("data-revision", revision == null ? "" : String(revision));
  $("diff-size").textContent = diff ? `${diffSize(diff)} ops (r${diff.from}→r${diff.to})` : "–";
}

/**
 * Shows list `id` (instead of the list shown before) and follows it, through the live query `query` when one is given
 * (null: the whole list); `push` adds a browser history entry.
 */
export function openListView(id, push, query = null) {
  page.follower?.stop();
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
  let follower;
  const target = pageTarget(() => follower, render, (doc) => {
    render(doc, null);
    showRevision(doc.revision, null);
  });
  follower = new ListFollower("", id, target, {
    mode,
    token: currentToken,
    query,
    onLoad: (doc) => {
      log(`loaded revision ${doc.revision}${query ? ` of ${JSON.stringify(query)}` : ""}`);
      notePaths(doc);
      showWindow();
      loadHistory();
    },
    onDiff: (diff) => {
      showRevision(diff.to, diff);
      showWindow();
      log(`r${diff.from} → r${diff.to}: ${describe(diff)}`);
      loadHistory();
      refreshSource();
      refreshView();
    },
    onReset: (info) => {
      page.resets.push({ reason: info.reason, detail: info.detail, from: info.from, to: info.document.revision });
      showRevision(info.document.revision, null);
      notePaths(info.document);
      showWindow();
      log(`reset (${info.reason}): ${info.detail ?? ""} → revision ${info.document.revision}`, "reset");
      loadHistory();
      refreshSource();
      refreshView();
    },
    onError: (error, ms) => log(`${error.message ?? error}; retrying in ${(ms / 1000).toFixed(1)} s`, "error"),
    onState: (s) => { $("status").textContent = `${modeName} · ${s}`; },
  });
  page.follower = follower;
  follower.start();
  if (page.paused) follower.pause();
}

/** Stops following the list shown (if any) and hides the list view. */
export function closeListView() {
  page.follower?.stop();
  page.follower = null;
  page.listID = null;
  page.query = null;
  clearSource();
  clearView();
  $("viewer").hidden = true;
}
