// The live page's entry module: wires the page's parts (the modules of /app/) together. `/?list=ID` shows a list
// (the list view, with its history, source and view panels and its query bar; `&q=…` a live query of it instead of
// the whole list), `/?lists=a,b,c` a dashboard of several lists followed over one connection, `/` a welcome; the
// lists on the left open either. `window.listdelta` is a small handle for people and tests. Every piece of data
// reaches the DOM through textContent or attributes, never through innerHTML.
import { $ } from "/app/dom.js";
import { keepToken } from "/app/connection.js";
import { page } from "/app/page-state.js";
import { listedIDs, markCurrentList, refreshLists } from "/app/lists-sidebar.js";
import { closeListView, followQuery, openListView } from "/app/list-view.js";
import { loadHistory, onTimelineClick } from "/app/history.js";
import { fetchSourceNow, loadSource } from "/app/source-panel.js";
import { loadView } from "/app/view-panel.js";
import { applyQuery, initQueryBar, queryOfURL } from "/app/query-bar.js";
import {
  addToDashboard, closeDashboard, currentDashboard, onAddSubmit, onGridClick, openDashboard, parseLists, removeFromDashboard,
} from "/app/dashboard.js";
import { busyAction, createDemo, onPanelClick, toggleAuto, write } from "/app/demo-writer.js";

function showList(id, push, query = null) {
  closeDashboard();
  openListView(id, push, query);
  markCurrentList(id);
}

function showDashboard(ids, push) {
  closeListView();
  openDashboard(ids, push);
  markCurrentList(null);
}

function showWelcome() {
  closeDashboard();
  closeListView();
  $("welcome").hidden = false;
  document.title = "ListDelta";
}

/** Shows what the URL names. */
function route() {
  const p = new URLSearchParams(location.search);
  const many = p.get("lists");
  const id = p.get("list");
  if (many !== null) showDashboard(parseLists(many), false);
  else if (id) showList(id, false, queryOfURL(p.get("q")));
  else showWelcome();
}

// A link to a list (on the left, or a dashboard panel's title) opens it in the page, unless it is meant for another tab.
document.addEventListener("click", (e) => {
  const link = e.target.closest("a[data-list-link]");
  if (!link || e.metaKey || e.ctrlKey || e.shiftKey) return;
  e.preventDefault();
  showList(link.dataset.listLink, true);
});
window.addEventListener("popstate", route);

$("open-dashboard").addEventListener("click", () => {
  const ids = listedIDs().slice(0, 12);
  if (ids.length) showDashboard(ids, true);
});
$("create-demo").addEventListener("click", async () => {
  const id = await createDemo();
  if (!id) return;
  await refreshLists();
  showList(id, true);
});
$("viewer").querySelector(".panel").addEventListener("click", onPanelClick);
$("auto").addEventListener("change", (e) => toggleAuto(e.target.checked));
$("timeline").addEventListener("click", onTimelineClick);
$("history-more").addEventListener("click", () => loadHistory(true));
$("source-fetch").addEventListener("click", fetchSourceNow);
$("dashboard-grid").addEventListener("click", onGridClick);
$("dash-add").addEventListener("submit", onAddSubmit);
initQueryBar(followQuery);

window.listdelta = {
  get follower() { return page.follower; },
  /** The dashboard's ManyListFollower, or null. */
  get dashboard() { return currentDashboard(); },
  get resets() { return page.resets; },
  get paused() { return page.paused; },
  /** The panel action being written, or null. */
  get busy() { return busyAction(); },
  /** Stops asking the server for changes (aborting the request in flight) until resume(). */
  pause() { page.paused = true; page.follower?.pause(); currentDashboard()?.pause(); },
  resume() { page.paused = false; page.follower?.resume(); currentDashboard()?.resume(); },
  open: (id) => showList(id, true),
  openDashboard: (ids) => showDashboard(ids, true),
  addToDashboard,
  removeFromDashboard,
  /** Reloads the history panel's first page. */
  loadHistory: () => loadHistory(),
  /** The open list's source state as last read (null: none), and a fresh read of it. */
  get source() { return page.source; },
  loadSource,
  fetchSourceNow,
  /** The open list's view definition and basedOn as last read (null: it is no view), and a fresh read of it. */
  get view() { return page.view; },
  loadView,
  write,
  /** The live query the list view shows (null: the whole list), and a change of it (animated as a diff). */
  get query() { return page.query; },
  setQuery: applyQuery,
};

keepToken(() => {
  refreshLists();
  route(); // follow again with the new token
});
refreshLists();
setInterval(refreshLists, 3000);
route();
