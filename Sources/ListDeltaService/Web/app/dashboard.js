// The dashboard (`/?lists=a,b,c`): several lists side by side, one panel each, all followed over one connection
// (client.js's ManyListFollower), with a diff log. Lists are added by id and removed by their panel's button; the
// URL follows. A panel's title links to its list (`a[data-list-link]`, which the entry module handles).
import { ManyListFollower } from "/client.js";
import { $, el } from "/app/dom.js";
import { currentToken, mode, modeName } from "/app/connection.js";
import { page } from "/app/page-state.js";
import { describe, log } from "/app/diff-log.js";
import { itemCount, pageTarget, renderSections } from "/app/document-view.js";

const LIST_ID = /^[A-Za-z0-9._-]{1,128}$/;
const MAX_DASHBOARD = 100; // the server's maxListsPerRequest by default

let dashboard = null; // the ManyListFollower while the dashboard is open

/** The dashboard's ManyListFollower, or null when the dashboard is closed. */
export const currentDashboard = () => dashboard;

/** The list ids of a `lists=` parameter: comma-separated, valid ones only, each once. */
export function parseLists(text) {
  const ids = (text ?? "").split(",").map((s) => s.trim()).filter((s) => LIST_ID.test(s));
  return [...new Set(ids)].slice(0, MAX_DASHBOARD);
}

const dashboardURL = (ids) => `/?lists=${ids.map(encodeURIComponent).join(",")}${mode === "events" ? "&mode=events" : ""}`;

const dashboardIDs = () => (dashboard ? dashboard.ids : []);

const dashLog = (text, cls = "") => log(text, cls, $("dash-log"));

function panelFor(id) {
  return [...$("dashboard-grid").children].find((p) => p.dataset.dashList === id) ?? null;
}

function makePanel(id) {
  return el("article", { class: "dash-panel", "data-dash-list": id, "data-list-revision": "", "data-list-state": "loading" },
    el("header", { class: "dash-head" },
      el("a", { href: `/?list=${encodeURIComponent(id)}`, class: "dash-title", "data-list-link": id, text: id }),
      el("span", { class: "dash-rev", text: "–" }),
      el("span", { class: "dash-meta" }),
      el("button", { type: "button", class: "dash-remove", "data-remove": id, "aria-label": `Stop following ${id}`, text: "×" })),
    el("p", { class: "dash-missing muted", hidden: "", text: "No such list (yet): it appears here once it is created." }),
    el("div", { class: "sections dash-sections" }));
}

/** Renders a list's panel: its document (FLIP-animated when `hints`), revision and counts. */
function drawPanel(id, doc, hints) {
  const panel = panelFor(id);
  if (!panel) return;
  renderSections(panel.querySelector(".dash-sections"), doc, hints, false);
  panel.setAttribute("data-list-revision", String(doc.revision));
  panel.querySelector(".dash-rev").textContent = `r${doc.revision}`;
  panel.querySelector(".dash-meta").textContent = doc.revision === 0 ? "" : `${doc.sections.length} sec · ${itemCount(doc)} items`;
  panel.querySelector(".dash-missing").hidden = doc.revision !== 0;
}

function dashboardStatus() {
  if (!dashboard) return;
  const n = dashboard.lists.size;
  $("status").textContent = `${modeName} · ${dashboard.state} · ${n} list${n === 1 ? "" : "s"} over 1 connection`;
  $("dash-count").textContent = String(n);
}

function followInDashboard(id) {
  const follower = dashboard;
  $("dashboard-grid").append(makePanel(id));
  return follower.add(id, pageTarget(() => follower.get(id), (doc, hints) => drawPanel(id, doc, hints)));
}

/** Shows the dashboard of lists `ids` (instead of the one shown before); `push` adds a browser history entry. */
export function openDashboard(ids, push) {
  closeDashboard();
  if (push) history.pushState({ lists: ids }, "", dashboardURL(ids));
  $("welcome").hidden = true;
  $("dashboard").hidden = false;
  $("dashboard-grid").replaceChildren();
  $("dash-log").replaceChildren();
  document.title = `${ids.length} lists · ListDelta`;
  const follower = new ManyListFollower("", {}, {
    mode,
    token: currentToken,
    onDiff: (diff, doc, id) => dashLog(`${id}: r${diff.from} → r${diff.to}: ${describe(diff)}`),
    onReset: (info, id) => {
      page.resets.push({ id, reason: info.reason, detail: info.detail, from: info.from, to: info.document.revision });
      dashLog(`${id}: reset (${info.reason}) → revision ${info.document.revision}`, "reset");
    },
    onError: (error, ms, id) => dashLog(`${id ?? "connection"}: ${error.message ?? error}; retrying in ${(ms / 1000).toFixed(1)} s`, "error"),
    onState: (s, id) => {
      if (id === null) return dashboardStatus();
      panelFor(id)?.setAttribute("data-list-state", s);
    },
  });
  dashboard = follower;
  for (const id of ids) followInDashboard(id);
  follower.start();
  if (page.paused) follower.pause();
  dashboardStatus();
}

/** Stops following the dashboard's lists (if it is open) and hides it. */
export function closeDashboard() {
  dashboard?.stop();
  dashboard = null;
  $("dashboard").hidden = true;
  $("dashboard-grid").replaceChildren();
}

/** Follows list `id` on the open dashboard too (at most MAX_DASHBOARD lists). */
export function addToDashboard(id) {
  if (!dashboard || !LIST_ID.test(id) || dashboard.get(id)) return;
  if (dashboardIDs().length >= MAX_DASHBOARD) return dashLog(`at most ${MAX_DASHBOARD} lists over one connection`, "error");
  followInDashboard(id);
  history.replaceState({ lists: dashboardIDs() }, "", dashboardURL(dashboardIDs()));
  dashboardStatus();
}

/** Stops following list `id` on the dashboard and removes its panel. */
export function removeFromDashboard(id) {
  if (!dashboard?.remove(id)) return;
  panelFor(id)?.remove();
  history.replaceState({ lists: dashboardIDs() }, "", dashboardURL(dashboardIDs()));
  dashboardStatus();
}

/** A click on the dashboard's grid: a panel's remove button removes it. */
export function onGridClick(e) {
  const button = e.target.closest("button[data-remove]");
  if (button) removeFromDashboard(button.dataset.remove);
}

/** The "Follow another list" form: adds the list it names. */
export function onAddSubmit(e) {
  e.preventDefault();
  const input = $("dash-add-id");
  addToDashboard(input.value.trim());
  input.value = "";
}
