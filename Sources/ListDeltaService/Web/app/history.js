// The history panel of the list view: the list's revisions as a timeline (read with client.js's fetchHistory), a
// comparison of any two (picked as A and B: the diff between them marked on both documents), and a revert to one
// (client.js's revert, after a confirmation; it sends the revision on show as If-Match). The comparison reads the
// diff and both documents with client.js's fetchDiff and fetchDocument.
import { fetchDiff, fetchDocument, fetchHistory, revert } from "/client.js";
import { $, el } from "/app/dom.js";
import { currentToken } from "/app/connection.js";
import { page } from "/app/page-state.js";
import { log, problemText } from "/app/diff-log.js";
import { itemText } from "/app/document-view.js";

const historyState = { entries: [], next: null, from: null, to: null, confirming: null };
const OPS = ["deleted", "inserted", "moved", "updated"];

function changeTotal(entry) {
  if (!entry.changes) return 0;
  return OPS.reduce((n, k) => n + entry.changes.sections[k] + entry.changes.items[k], 0);
}

function changeText(changes) {
  if (!changes) return "changes not recorded";
  const signs = { deleted: "−", inserted: "+", moved: "↕", updated: "✎" };
  const parts = [];
  for (const k of OPS) {
    const n = changes.items[k], s = changes.sections[k];
    if (n) parts.push(`${signs[k]}${n}`);
    if (s) parts.push(`${signs[k]}${s}§`);
  }
  return parts.join(" ") || "no change";
}

function byText(by) {
  if (!by) return "unknown write";
  if (by.op === "revert") return `revert to r${by.to}`;
  if (by.op === "view") return `view of ${by.of} r${by.revision}`;
  return by.op;
}

/** Empties the panel for a list that opens. */
export function resetHistory() {
  $("compare").hidden = true;
  Object.assign(historyState, { entries: [], next: null, from: null, to: null, confirming: null });
  $("timeline").replaceChildren();
}

/** Reads the open list's newest revisions again (`older`: the page after those shown) and shows them. */
export async function loadHistory(older = false) {
  const id = page.listID;
  if (!id) return;
  const before = older ? historyState.next : null;
  let historyPage;
  try {
    historyPage = await fetchHistory("", id, { before, limit: 50, token: currentToken() });
  } catch {
    return; // refused or unreachable: the timeline stays as it is until the next revision reads it again
  }
  if (id !== page.listID) return;
  historyState.entries = older ? historyState.entries.concat(historyPage.revisions) : historyPage.revisions;
  historyState.next = historyPage.next;
  renderTimeline();
}

/** Shows the revisions read as a timeline, with the picks, the revision on show and the revert buttons. */
export function renderTimeline() {
  const largest = Math.max(1, ...historyState.entries.map(changeTotal));
  const current = page.follower?.revision;
  $("timeline").replaceChildren(...historyState.entries.map((entry) => {
    const r = entry.revision;
    const li = el("li", { class: "rev", "data-rev": String(r), "data-op": entry.by?.op ?? "unknown" });
    if (r === current) li.classList.add("current");
    if (r === historyState.from) li.classList.add("pick-a");
    if (r === historyState.to) li.classList.add("pick-b");
    const when = entry.committedAt ? new Date(entry.committedAt) : null;
    li.append(
      el("span", { class: "rev-bar", style: { "--size": String(changeTotal(entry) / largest) } }),
      el("span", { class: "rev-number", text: `r${r}` }),
      el("span", { class: `rev-op op-${entry.by?.op ?? "unknown"}`, text: byText(entry.by) }),
      el("time", { class: "rev-time", text: when ? when.toLocaleString() : "time not recorded", ...(when ? { datetime: entry.committedAt } : {}) }),
      el("span", { class: "rev-changes", text: changeText(entry.changes) }),
      el("span", { class: "rev-size muted", text: entry.items == null ? "" : `${entry.items} items in ${entry.sections} sections` }),
      el("button", { type: "button", class: "pick", "data-pick": "a", "aria-label": `Compare from r${r}`, text: "A" }),
      el("button", { type: "button", class: "pick", "data-pick": "b", "aria-label": `Compare to r${r}`, text: "B" }),
    );
    if (historyState.confirming === r) {
      li.append(
        el("span", { class: "confirm-text", text: `Write a new revision with r${r}'s content?` }),
        el("button", { type: "button", class: "danger", "data-revert-confirm": String(r), text: "Revert" }),
        el("button", { type: "button", class: "secondary", "data-revert-cancel": "", text: "Cancel" }),
      );
    } else if (r !== current && !page.source && !page.view) {
      // (A list fed by a source, or a view, refuses reverts: no button then.)
      li.append(el("button", { type: "button", class: "secondary", "data-revert": String(r), text: "Revert to this…" }));
    }
    return li;
  }));
  $("history-more").hidden = historyState.next == null;
}

const itemTitle = (item) => itemText(item) || item.id;

function sectionsView(doc, marks, side) {
  return doc.sections.map((section, s) => {
    const box = el("div", { class: "cmp-section", "data-cmp-section": section.id });
    const sectionMark = marks.sections.get(s);
    if (sectionMark) box.classList.add(`mark-${sectionMark}`);
    box.append(el("h4", { text: section.title ?? section.id }));
    const ol = el("ol", { class: "cmp-items" });
    section.items.forEach((item, i) => {
      const li = el("li", { class: "cmp-item", "data-cmp-item": item.id, "data-cmp-path": `${s},${i}`, "data-cmp-side": side });
      const mark = marks.items.get(`${s},${i}`);
      if (mark) {
        li.classList.add(`mark-${mark}`);
        li.setAttribute("data-mark", mark);
      }
      li.append(el("span", { class: "item-title", text: itemTitle(item) }));
      ol.append(li);
    });
    box.append(ol);
    return box;
  });
}

async function compare() {
  const { from, to } = historyState;
  const id = page.listID;
  if (from == null || to == null || !id) return;
  const token = currentToken();
  let diff, oldDoc, newDoc;
  try {
    [diff, oldDoc, newDoc] = await Promise.all([
      fetchDiff("", id, from, { to, token }), fetchDocument("", id, { revision: from, token }),
      fetchDocument("", id, { revision: to, token }),
    ]);
  } catch (error) {
    return log(`compare r${from} and r${to}: ${problemText(error)}`, "error");
  }
  if (id !== page.listID) return;
  // Deletions and move sources are marked in A's numbering; insertions, move targets and updates in B's.
  const key = (p) => `${p[0]},${p[1]}`;
  const oldMarks = { sections: new Map(), items: new Map() };
  const newMarks = { sections: new Map(), items: new Map() };
  for (const s of diff.sections.deleted) oldMarks.sections.set(s, "deleted");
  for (const m of diff.sections.moved) { oldMarks.sections.set(m.from, "moved"); newMarks.sections.set(m.to, "moved"); }
  for (const u of diff.sections.updated) newMarks.sections.set(u.at, "updated");
  for (const i of diff.sections.inserted) newMarks.sections.set(i.at, "inserted");
  for (const p of diff.items.deleted) oldMarks.items.set(key(p), "deleted");
  for (const m of diff.items.moved) { oldMarks.items.set(key(m.from), "moved"); newMarks.items.set(key(m.to), "moved"); }
  for (const i of diff.items.inserted) newMarks.items.set(key(i.at), "inserted");
  for (const u of diff.items.updated) newMarks.items.set(key(u.at), newMarks.items.get(key(u.at)) === "moved" ? "moved-updated" : "updated");
  const counts = {};
  for (const part of ["sections", "items"]) counts[part] = Object.fromEntries(OPS.map((k) => [k, diff[part][k].length]));
  const summary = $("compare-summary");
  summary.textContent = `r${from} → r${to}: items ${OPS.map((k) => `${counts.items[k]} ${k}`).join(", ")}; `
    + `sections ${OPS.map((k) => `${counts.sections[k]} ${k}`).join(", ")}`;
  summary.setAttribute("data-counts", JSON.stringify(counts));
  $("compare-from-title").textContent = `A: r${from}`;
  $("compare-to-title").textContent = `B: r${to}`;
  $("compare-from").replaceChildren(...sectionsView(oldDoc, oldMarks, "a"));
  $("compare-to").replaceChildren(...sectionsView(newDoc, newMarks, "b"));
  $("compare").hidden = false;
  $("compare").setAttribute("data-compared", `${from}-${to}`);
}

/** Writes revision `revision`'s content as a new revision, if the list still is at the revision on show. */
async function revertTo(revision) {
  let body;
  try {
    body = await revert("", page.listID, revision, { ifMatch: page.follower?.revision, token: currentToken() });
  } catch (error) {
    return log(`revert to r${revision}: ${problemText(error)}`, "error");
  }
  log(body.diff && body.diff.from === body.diff.to ? `revert to r${revision}: already that content` : `reverted to r${revision} as r${body.revision}`);
  await loadHistory();
}

/** A click in the timeline: pick A or B (then compare), ask to revert, cancel, or confirm a revert. */
export async function onTimelineClick(e) {
  const li = e.target.closest("li[data-rev]");
  if (!li) return;
  const revision = Number(li.dataset.rev);
  const button = e.target.closest("button");
  if (!button) return;
  if (button.dataset.pick === "a") historyState.from = revision;
  else if (button.dataset.pick === "b") historyState.to = revision;
  else if (button.dataset.revert !== undefined) historyState.confirming = revision;
  else if (button.dataset.revertCancel !== undefined) historyState.confirming = null;
  else if (button.dataset.revertConfirm !== undefined) {
    historyState.confirming = null;
    renderTimeline();
    return revertTo(revision);
  }
  renderTimeline();
  if (button.dataset.pick) await compare();
}

