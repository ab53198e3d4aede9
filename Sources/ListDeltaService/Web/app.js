// The live page: lists the lists, follows one through client.js and animates its changes (FLIP); `/?lists=a,b,c`
// is a dashboard that follows several lists side by side over one connection (client.js's followMany).
// Every piece of data reaches the DOM through textContent or attributes, never through innerHTML.
import { ListFollower, ManyListFollower, diffSize } from "./client.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const mode = params.get("mode") === "events" ? "events" : "poll";
const reduceMotion = matchMedia("(prefers-reduced-motion: reduce)").matches;

const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
};

const api = (path) => `/v1/lists${path}`;

// The token field: a bearer token for a server with `readAccess: token` (or write tokens), kept in session storage
// (this tab only). Every request of the page and of its followers sends it.
const TOKEN_KEY = "listdelta.token";
const currentToken = () => $("token").value.trim() || null;
const authorized = (init = {}) => {
  const token = currentToken();
  return token ? { ...init, headers: { ...(init.headers ?? {}), Authorization: `Bearer ${token}` } } : init;
};
const request = (url, init) => fetch(url, authorized(init));

// ---------------------------------------------------------------------------
// The lists on the left, refreshed every few seconds.

const state = { listID: null, follower: null, lists: [], resets: [], dashboard: null };
/** The open list's source (its last state read, or null) and its timers. Reads and fetch-now answers are numbered
 * as they begin (a fetch now's as it is answered): one older than what is shown is dropped. */
const sourceState = { current: null, timer: null, again: null, started: 0, shown: 0 };

async function refreshLists() {
  try {
    const res = await request(api("?limit=200"), { cache: "no-store" });
    if (!res.ok) return;
    const body = await res.json();
    state.lists = body.lists ?? [];
    renderLists(body.next != null);
  } catch {
    /* the next refresh tries again */
  }
}

function renderLists(more) {
  const ul = $("lists");
  const rows = state.lists.map((l) => {
    const a = el("a", { href: `/?list=${encodeURIComponent(l.id)}`, class: "list-link" },
      el("span", { class: "list-id", text: l.id }),
      el("span", { class: "list-meta", text: `r${l.revision} · ${l.sections} sec · ${l.items} items` }));
    a.addEventListener("click", (e) => {
      if (e.metaKey || e.ctrlKey || e.shiftKey) return;
      e.preventDefault();
      open(l.id, true);
    });
    const li = el("li", { "data-list-id": l.id }, a);
    if (l.id === state.listID) li.classList.add("current");
    return li;
  });
  if (more) rows.push(el("li", { class: "muted", text: "… more lists" }));
  ul.replaceChildren(...rows);
  $("lists-empty").hidden = state.lists.length > 0;
}

// ---------------------------------------------------------------------------
// Rendering one document, keyed by id, with FLIP animations.

const content = new WeakMap(); // element -> JSON of what it shows, to spot updates

// An item's model as a person reads it: its `title`, `name` or `text` as the main text, the other members as
// compact details ("key: value"), never raw JSON.
const MAIN_KEYS = ["title", "name", "text"];
const MAX_DETAILS = 6;
const isMain = (v) => (typeof v === "string" && v.trim() !== "") || typeof v === "number";
const blank = (v) => v === null || v === undefined || v === "" || (Array.isArray(v) && v.length === 0)
  || (typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0);

function clip(text, max = 80) {
  const s = text.replace(/\s+/g, " ").trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** A JSON value in words: strings as they are (clipped), yes/no, lists joined, objects as "key: value; …". */
function brief(v, depth = 0) {
  if (v === null || v === undefined) return "–";
  if (typeof v === "string") return clip(v);
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v !== "object") return String(v);
  if (depth >= 2) return Array.isArray(v) ? `${v.length} items` : "…";
  if (Array.isArray(v)) {
    const shown = v.slice(0, 5).map((x) => brief(x, depth + 1)).join(", ");
    return v.length > 5 ? `${shown} +${v.length - 5} more` : shown;
  }
  const parts = Object.entries(v).filter(([, x]) => !blank(x)).map(([k, x]) => `${k}: ${brief(x, depth + 1)}`);
  return clip(`(${parts.join("; ")})`, 120);
}

/** `{main, details: [[key, text]]}` for an item's model. */
function readable(model) {
  if (model === null || model === undefined) return { main: "", details: [] };
  if (typeof model !== "object") return { main: brief(model), details: [] };
  if (Array.isArray(model)) return { main: brief(model), details: [] };
  const mainKey = MAIN_KEYS.find((k) => isMain(model[k]));
  const details = Object.entries(model).filter(([k, v]) => k !== mainKey && !blank(v)).map(([k, v]) => [k, brief(v)]);
  return { main: mainKey ? String(model[mainKey]) : "", details };
}

const itemText = (item) => readable(item.model).main;

function fillItem(li, item) {
  const sig = JSON.stringify([item.type ?? null, item.cell ?? null, item.model ?? null]);
  if (content.get(li) === sig) return false;
  const changed = content.has(li);
  content.set(li, sig);
  const meta = [item.cell, item.type].filter(Boolean).join(" · ");
  const { main, details } = readable(item.model);
  const shown = details.slice(0, MAX_DETAILS).map(([k, v]) =>
    el("span", { class: "item-detail", "data-key": k }, el("span", { class: "detail-key", text: k }), el("span", { class: "detail-value", text: v })));
  if (details.length > MAX_DETAILS) shown.push(el("span", { class: "item-detail more", text: `+${details.length - MAX_DETAILS} more` }));
  li.replaceChildren(
    el("span", { class: main ? "item-text" : "item-text untitled", text: main || "(no text)" }),
    el("span", { class: "item-details" }, ...shown),
    el("span", { class: "item-id", text: item.id, title: meta }),
  );
  return changed;
}

function fillHeader(sectionEl, section) {
  const sig = JSON.stringify([section.title ?? null, section.indexTitle ?? null]);
  if (content.get(sectionEl) === sig) return false;
  const changed = content.has(sectionEl);
  content.set(sectionEl, sig);
  const h = sectionEl.querySelector(":scope > header");
  h.replaceChildren(
    el("h2", { text: section.title ?? "(untitled)", class: section.title == null ? "untitled" : "" }),
    el("span", { class: "index-title", text: section.indexTitle ?? "" }),
    el("span", { class: "section-id", text: section.id }),
  );
  return changed;
}

function rects(root) {
  const out = new Map();
  for (const node of root.querySelectorAll("[data-section-id], [data-item-id]")) {
    out.set(node, node.getBoundingClientRect());
  }
  return out;
}

function ghost(node, rect) {
  // Take a leaving element out of the document order (no data-* id any more) and fade it out where it was.
  node.removeAttribute("data-section-id");
  node.removeAttribute("data-item-id");
  for (const inner of node.querySelectorAll("[data-item-id]")) inner.removeAttribute("data-item-id");
  if (reduceMotion || !rect) return node.remove();
  const layer = $("ghosts");
  Object.assign(node.style, {
    position: "absolute", margin: "0",
    left: `${rect.left + scrollX}px`, top: `${rect.top + scrollY}px`, width: `${rect.width}px`, height: `${rect.height}px`,
  });
  node.classList.add("leaving");
  layer.append(node);
  const anim = node.animate([{ opacity: 1, transform: "scale(1)" }, { opacity: 0, transform: "scale(0.92)" }],
    { duration: 280, easing: "ease-in" });
  anim.onfinish = () => node.remove();
}

function flash(node, cls) {
  node.classList.remove(cls);
  void node.offsetWidth; // restart the CSS animation
  node.classList.add(cls);
}

/** Renders the single list view: `doc` into #sections, its section index and counts. */
function render(doc, hints = null) {
  renderSections($("sections"), doc, hints, true);
  renderIndex(doc);
  $("section-count").textContent = String(doc.sections.length);
  $("item-count").textContent = String(itemCount(doc));
}

const itemCount = (doc) => doc.sections.reduce((n, s) => n + (s.items ?? []).length, 0);

/**
 * Renders `doc`'s sections into `root`, reusing elements by id; `hints` marks what the diff inserted or updated.
 * `anchors` gives sections the ids the section index jumps to (the single list view only).
 */
function renderSections(root, doc, hints, anchors) {
  const before = hints && !reduceMotion ? rects(root) : new Map();
  const oldSections = new Map([...root.querySelectorAll(":scope > [data-section-id]")].map((n) => [n.dataset.sectionId, n]));
  const oldItems = new Map([...root.querySelectorAll("[data-item-id]")].map((n) => [n.dataset.itemId, n]));
  const usedSections = new Set();
  const usedItems = new Set();
  const entering = [];
  const updated = [];

  doc.sections.forEach((section, s) => {
    let sEl = oldSections.get(section.id);
    if (!sEl) {
      sEl = el("section", { class: "section", "data-section-id": section.id }, el("header"), el("ul", { class: "items" }));
      entering.push(sEl);
    }
    usedSections.add(sEl);
    if (anchors) sEl.id = `section-${s}`;
    if (fillHeader(sEl, section)) updated.push(sEl.querySelector(":scope > header"));
    if (root.children[s] !== sEl) root.insertBefore(sEl, root.children[s] ?? null);
    const ul = sEl.querySelector(":scope > ul");
    (section.items ?? []).forEach((item, i) => {
      let li = oldItems.get(item.id);
      if (!li) {
        li = el("li", { class: "item", "data-item-id": item.id });
        entering.push(li);
      }
      usedItems.add(li);
      if (fillItem(li, item)) updated.push(li);
      if (ul.children[i] !== li) ul.insertBefore(li, ul.children[i] ?? null);
    });
    ul.classList.toggle("empty", (section.items ?? []).length === 0);
  });
  // Whatever was not reused leaves: items first (those of leaving sections go with their section).
  for (const [, li] of oldItems) if (!usedItems.has(li) && li.isConnected) ghost(li, before.get(li));
  for (const [, sEl] of oldSections) if (!usedSections.has(sEl)) ghost(sEl, before.get(sEl));
  // Sections that hold leftovers past the document's end (should not happen) are trimmed.
  for (const sEl of root.querySelectorAll(":scope > [data-section-id]")) {
    const ul = sEl.querySelector(":scope > ul");
    for (const li of [...ul.children]) if (!usedItems.has(li)) li.remove();
  }

  if (!hints || reduceMotion) return;

  // FLIP: every element that stayed plays from where it was to where it is; items net of their section's motion.
  const delta = new Map();
  for (const [node, old] of before) {
    if (!node.isConnected || node.closest("#ghosts")) continue;
    const now = node.getBoundingClientRect();
    delta.set(node, [old.left - now.left, old.top - now.top]);
  }
  for (const [node, [dx, dy]] of delta) {
    let x = dx, y = dy;
    if (node.dataset.itemId !== undefined) {
      const parent = delta.get(node.closest("[data-section-id]"));
      if (parent) { x -= parent[0]; y -= parent[1]; }
    }
    if (Math.abs(x) < 0.5 && Math.abs(y) < 0.5) continue;
    node.animate([{ transform: `translate(${x}px, ${y}px)` }, { transform: "translate(0, 0)" }],
      { duration: 320, easing: "cubic-bezier(.2,.7,.2,1)" });
    if (node.dataset.itemId !== undefined && hints.moved.has(node.dataset.itemId)) flash(node, "moved");
  }
  for (const node of entering) {
    node.animate([{ opacity: 0, transform: "scale(0.96)" }, { opacity: 1, transform: "scale(1)" }],
      { duration: 260, easing: "ease-out" });
    flash(node, "inserted");
  }
  for (const node of updated) flash(node, "updated");
}

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

// ---------------------------------------------------------------------------
// The target client.js drives. It collects what a batch does, then renders the new document at endUpdates.
// `holder()` is what holds the document and the last diff (a ListFollower, or a ManyListFollower's list);
// `draw(doc, hints)` renders; `reset(doc)` shows a document fetched whole.

function pageTarget(holder, draw, reset = (doc) => draw(doc, null)) {
  let hints = null;
  return {
    reset,
    beginUpdates() { hints = { moved: new Set() }; },
    endUpdates() {
      const h = holder();
      for (const m of h.lastDiff?.items?.moved ?? []) {
        const item = h.document.sections[m.to[0]]?.items[m.to[1]];
        if (item) hints.moved.add(item.id);
      }
      draw(h.document, hints);
    },
    updateSectionHeaders() { draw(holder().document, hints); },
    reconfigureItems() { draw(holder().document, hints); },
  };
}

function showRevision(revision, diff) {
  const r = $("revision");
  r.textContent = revision == null ? "–" : String(revision);
  r.setAttribute("data-revision", revision == null ? "" : String(revision));
  $("diff-size").textContent = diff ? `${diffSize(diff)} ops (r${diff.from}→r${diff.to})` : "–";
}

/** Adds a line to a diff log (the list view's, or `ol`), newest first, keeping the last 60. */
function log(text, cls = "", ol = $("log")) {
  ol.prepend(el("li", { class: cls, text: `${new Date().toLocaleTimeString()}  ${text}` }));
  while (ol.children.length > 60) ol.lastChild.remove();
}

function describe(diff) {
  const parts = [];
  for (const part of ["sections", "items"]) {
    for (const k of ["deleted", "inserted", "moved", "updated"]) {
      const n = diff[part][k].length;
      if (n) parts.push(`${n} ${part === "sections" ? "section" : "item"}${n > 1 ? "s" : ""} ${k}`);
    }
  }
  return parts.join(", ") || "no visible change";
}

// ---------------------------------------------------------------------------
// History: the revisions as a timeline, a comparison of any two, and revert.

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
  return by.op === "revert" ? `revert to r${by.to}` : by.op;
}

async function loadHistory(older = false) {
  const id = state.listID;
  if (!id) return;
  const query = new URLSearchParams({ limit: "50" });
  if (older && historyState.next != null) query.set("before", String(historyState.next));
  const res = await request(api(`/${encodeURIComponent(id)}/revisions?${query}`), { cache: "no-store" });
  if (!res.ok || id !== state.listID) return;
  const page = await res.json();
  historyState.entries = older ? historyState.entries.concat(page.revisions) : page.revisions;
  historyState.next = page.next;
  renderTimeline();
}

function renderTimeline() {
  const largest = Math.max(1, ...historyState.entries.map(changeTotal));
  const current = state.follower?.revision;
  $("timeline").replaceChildren(...historyState.entries.map((entry) => {
    const r = entry.revision;
    const li = el("li", { class: "rev", "data-rev": String(r), "data-op": entry.by?.op ?? "unknown" });
    if (r === current) li.classList.add("current");
    if (r === historyState.from) li.classList.add("pick-a");
    if (r === historyState.to) li.classList.add("pick-b");
    const when = entry.committedAt ? new Date(entry.committedAt) : null;
    li.append(
      el("span", { class: "rev-bar", style: `--size:${changeTotal(entry) / largest}` }),
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
    } else if (r !== current && !sourceState.current) {
      // (A list fed by a source refuses reverts: no button then.)
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
  if (from == null || to == null || !state.listID) return;
  const base = api(`/${encodeURIComponent(state.listID)}`);
  const [diffRes, fromRes, toRes] = await Promise.all([
    request(`${base}/diff?from=${from}&to=${to}`), request(`${base}?revision=${from}`), request(`${base}?revision=${to}`),
  ]);
  if (!diffRes.ok || !fromRes.ok || !toRes.ok) {
    log(`compare r${from} and r${to}: HTTP ${[diffRes, fromRes, toRes].find((r) => !r.ok).status}`, "error");
    return;
  }
  const [diff, oldDoc, newDoc] = await Promise.all([diffRes.json(), fromRes.json(), toRes.json()]);
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

async function revertTo(revision) {
  const id = state.listID;
  const headers = { "Content-Type": "application/json" };
  if (state.follower?.revision != null) headers["If-Match"] = `"${state.follower.revision}"`;
  const res = await request(api(`/${encodeURIComponent(id)}/revert`), { method: "POST", headers, body: JSON.stringify({ to: revision }) });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) return log(`revert to r${revision}: HTTP ${res.status} ${body.detail ?? body.title ?? ""}`, "error");
  log(body.diff && body.diff.from === body.diff.to ? `revert to r${revision}: already that content` : `reverted to r${revision} as r${body.revision}`);
  await loadHistory();
}

async function onTimeline(e) {
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

// ---------------------------------------------------------------------------
// The list's source, when it has one (GET .../source; 404: none): its settings, what the last fetch did, the last
// error, and "Fetch now", a PUT of the same settings. Read when the list opens, whenever it gets a new revision, and
// when the next fetch is due (a failed fetch makes no revision).

function showTime(dd, text) {
  if (!text) {
    dd.textContent = "–";
    return;
  }
  dd.replaceChildren(el("time", { datetime: text, text: new Date(text).toLocaleString() }));
}

function showSource(s) {
  sourceState.current = s;
  clearTimeout(sourceState.timer);
  const panel = $("source");
  panel.hidden = !s;
  for (const control of $("viewer").querySelectorAll(".panel button, .panel input")) control.disabled = !!s;
  renderTimeline();
  if (!s) {
    panel.removeAttribute("data-source-url");
    panel.removeAttribute("data-fetched-at");
    return;
  }
  panel.setAttribute("data-source-url", s.url);
  const link = $("source-url");
  link.textContent = s.url;
  if (/^https?:\/\//i.test(s.url)) link.setAttribute("href", s.url);
  else link.removeAttribute("href");
  $("source-interval").textContent = `${s.interval} s`;
  $("source-sections").textContent = s.sections;
  const f = s.lastFetch;
  panel.setAttribute("data-fetched-at", f?.at ?? "");
  showTime($("source-last"), f?.at);
  $("source-status").textContent = !f ? "–" : f.status != null ? String(f.status) : s.url.startsWith("file:") ? "file" : "no answer";
  $("source-items").textContent = f ? String(f.items) : "–";
  $("source-changed").textContent = f ? (f.changed ? "yes" : "no") : "–";
  showTime($("source-next"), s.nextFetchAt);
  $("source-failures").textContent = String(s.consecutiveFailures);
  const error = $("source-error");
  error.hidden = !s.lastError;
  error.textContent = s.lastError ? s.lastError.detail || s.lastError.title || "the last fetch failed" : "";
  panel.toggleAttribute("data-failing", !!s.lastError);
  // Look again shortly after the next fetch is due (between 5 s and 5 min from now).
  const due = Date.parse(s.nextFetchAt) - Date.now();
  sourceState.timer = setTimeout(loadSource, Math.min(300000, Math.max(5000, (Number.isFinite(due) ? due : 0) + 1000)));
}

async function loadSource() {
  const id = state.listID;
  if (!id) return;
  const seq = ++sourceState.started;
  let res, body = null;
  try {
    res = await request(api(`/${encodeURIComponent(id)}/source`), { cache: "no-store" });
    if (res.ok) body = await res.json();
  } catch {
    return; // unreachable for now: keep what is shown
  }
  if (id !== state.listID || seq < sourceState.shown) return;
  if (res.status === 404) {
    sourceState.shown = seq;
    showSource(null);
  } else if (body) {
    sourceState.shown = seq;
    showSource(body);
  }
}

/** After a new revision: the state now, and once more a moment later (the fetch may finish recording after it). */
function refreshSource() {
  loadSource();
  clearTimeout(sourceState.again);
  if (sourceState.current) sourceState.again = setTimeout(loadSource, 1500);
}

async function fetchSourceNow() {
  const id = state.listID;
  const s = sourceState.current;
  if (!id || !s) return;
  const button = $("source-fetch");
  button.disabled = true;
  try {
    const settings = { url: s.url, interval: s.interval, sections: s.sections, maxItems: s.maxItems };
    const res = await request(api(`/${encodeURIComponent(id)}/source`), {
      method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify(settings),
    });
    const answer = await res.json().catch(() => ({}));
    if (id !== state.listID) return;
    if (!res.ok) return log(`fetch now: HTTP ${res.status} ${answer.detail ?? answer.title ?? ""}`, "error");
    sourceState.shown = ++sourceState.started;
    showSource(answer);
    const f = answer.lastFetch;
    if (answer.lastError) log(`fetch now failed: ${answer.lastError.detail ?? answer.lastError.title}`, "error");
    else log(`fetch now: ${f?.changed ? "a new revision" : "no change"} (${f?.items ?? 0} items)`);
  } catch (error) {
    log(`fetch now: ${error.message ?? error}`, "error");
  } finally {
    button.disabled = false;
  }
}

// ---------------------------------------------------------------------------
// Opening a list.

function open(id, push) {
  closeDashboard();
  if (state.follower) state.follower.stop();
  state.listID = id;
  if (push) history.pushState({ list: id }, "", `/?list=${encodeURIComponent(id)}${mode === "events" ? "&mode=events" : ""}`);
  for (const li of $("lists").children) li.classList.toggle("current", li.dataset.listId === id);
  $("welcome").hidden = true;
  $("viewer").hidden = false;
  $("list-title").textContent = id;
  document.title = `${id} · ListDelta`;
  $("sections").replaceChildren();
  $("ghosts").replaceChildren();
  $("log").replaceChildren();
  $("compare").hidden = true;
  Object.assign(historyState, { entries: [], next: null, from: null, to: null, confirming: null });
  $("timeline").replaceChildren();
  sourceState.shown = ++sourceState.started;
  showSource(null);
  loadSource();
  showRevision(null, null);
  let follower;
  const target = pageTarget(() => follower, render, (doc) => {
    render(doc, null);
    showRevision(doc.revision, null);
  });
  follower = new ListFollower("", id, target, {
    mode,
    token: currentToken,
    onLoad: (doc) => { log(`loaded revision ${doc.revision}`); loadHistory(); },
    onDiff: (diff) => {
      showRevision(diff.to, diff);
      log(`r${diff.from} → r${diff.to}: ${describe(diff)}`);
      loadHistory();
      refreshSource();
    },
    onReset: (info) => {
      state.resets.push({ reason: info.reason, detail: info.detail, from: info.from, to: info.document.revision });
      showRevision(info.document.revision, null);
      log(`reset (${info.reason}): ${info.detail ?? ""} → revision ${info.document.revision}`, "reset");
      loadHistory();
      refreshSource();
    },
    onError: (error, ms) => log(`${error.message ?? error}; retrying in ${(ms / 1000).toFixed(1)} s`, "error"),
    onState: (s) => { $("status").textContent = `${mode === "events" ? "events" : "long poll"} · ${s}`; },
  });
  state.follower = follower;
  follower.start();
  if (state.paused) follower.pause();
}

function close() {
  closeDashboard();
  state.follower?.stop();
  state.follower = null;
  state.listID = null;
  sourceState.shown = ++sourceState.started;
  showSource(null);
  $("viewer").hidden = true;
  $("welcome").hidden = false;
  document.title = "ListDelta";
}

// ---------------------------------------------------------------------------
// The dashboard (`/?lists=a,b,c`): several lists side by side, all followed over one connection.

const LIST_ID = /^[A-Za-z0-9._-]{1,128}$/;
const MAX_DASHBOARD = 100; // the server's maxListsPerRequest by default

/** The list ids of a `lists=` parameter: comma-separated, valid ones only, each once. */
function parseLists(text) {
  const ids = (text ?? "").split(",").map((s) => s.trim()).filter((s) => LIST_ID.test(s));
  return [...new Set(ids)].slice(0, MAX_DASHBOARD);
}

const dashboardURL = (ids) => `/?lists=${ids.map(encodeURIComponent).join(",")}${mode === "events" ? "&mode=events" : ""}`;

function panelFor(id) {
  return [...$("dashboard-grid").children].find((p) => p.dataset.dashList === id) ?? null;
}

function makePanel(id) {
  const link = el("a", { href: `/?list=${encodeURIComponent(id)}`, class: "dash-title", text: id });
  link.addEventListener("click", (e) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey) return;
    e.preventDefault();
    open(id, true);
  });
  return el("article", { class: "dash-panel", "data-dash-list": id, "data-list-revision": "", "data-list-state": "loading" },
    el("header", { class: "dash-head" },
      link,
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
  const d = state.dashboard;
  if (!d) return;
  const n = d.lists.size;
  $("status").textContent = `${mode === "events" ? "events" : "long poll"} · ${d.state} · ${n} list${n === 1 ? "" : "s"} over 1 connection`;
  $("dash-count").textContent = String(n);
}

function followInDashboard(id) {
  const follower = state.dashboard;
  $("dashboard-grid").append(makePanel(id));
  return follower.add(id, pageTarget(() => follower.get(id), (doc, hints) => drawPanel(id, doc, hints)));
}

function openDashboard(ids, push) {
  if (state.follower) state.follower.stop();
  state.follower = null;
  state.listID = null;
  closeDashboard();
  if (push) history.pushState({ lists: ids }, "", dashboardURL(ids));
  for (const li of $("lists").children) li.classList.remove("current");
  $("welcome").hidden = true;
  $("viewer").hidden = true;
  $("dashboard").hidden = false;
  $("dashboard-grid").replaceChildren();
  $("dash-log").replaceChildren();
  document.title = `${ids.length} lists · ListDelta`;
  const follower = new ManyListFollower("", {}, {
    mode,
    token: currentToken,
    onDiff: (diff, doc, id) => dashLog(`${id}: r${diff.from} → r${diff.to}: ${describe(diff)}`),
    onReset: (info, id) => {
      state.resets.push({ id, reason: info.reason, detail: info.detail, from: info.from, to: info.document.revision });
      dashLog(`${id}: reset (${info.reason}) → revision ${info.document.revision}`, "reset");
    },
    onError: (error, ms, id) => dashLog(`${id ?? "connection"}: ${error.message ?? error}; retrying in ${(ms / 1000).toFixed(1)} s`, "error"),
    onState: (s, id) => {
      if (id === null) return dashboardStatus();
      panelFor(id)?.setAttribute("data-list-state", s);
    },
  });
  state.dashboard = follower;
  for (const id of ids) followInDashboard(id);
  follower.start();
  if (state.paused) follower.pause();
  dashboardStatus();
}

function closeDashboard() {
  state.dashboard?.stop();
  state.dashboard = null;
  $("dashboard").hidden = true;
  $("dashboard-grid").replaceChildren();
}

function dashboardIDs() {
  return state.dashboard ? state.dashboard.ids : [];
}

const dashLog = (text, cls = "") => log(text, cls, $("dash-log"));

function addToDashboard(id) {
  if (!state.dashboard || !LIST_ID.test(id) || state.dashboard.get(id)) return;
  if (dashboardIDs().length >= MAX_DASHBOARD) return dashLog(`at most ${MAX_DASHBOARD} lists over one connection`, "error");
  followInDashboard(id);
  history.replaceState({ lists: dashboardIDs() }, "", dashboardURL(dashboardIDs()));
  dashboardStatus();
}

function removeFromDashboard(id) {
  if (!state.dashboard?.remove(id)) return;
  panelFor(id)?.remove();
  history.replaceState({ lists: dashboardIDs() }, "", dashboardURL(dashboardIDs()));
  dashboardStatus();
}

$("dashboard-grid").addEventListener("click", (e) => {
  const button = e.target.closest("button[data-remove]");
  if (button) removeFromDashboard(button.dataset.remove);
});
$("dash-add").addEventListener("submit", (e) => {
  e.preventDefault();
  const input = $("dash-add-id");
  addToDashboard(input.value.trim());
  input.value = "";
});
$("open-dashboard").addEventListener("click", () => {
  const ids = state.lists.slice(0, 12).map((l) => l.id);
  if (ids.length) openDashboard(ids, true);
});

function route() {
  const p = new URLSearchParams(location.search);
  const many = p.get("lists");
  const id = p.get("list");
  if (many !== null) openDashboard(parseLists(many), false);
  else if (id) open(id, false);
  else close();
}

window.addEventListener("popstate", route);

// ---------------------------------------------------------------------------
// The panel: random changes written over the API.

const WORDS = ["amber", "brisk", "cobalt", "dune", "ember", "fjord", "glade", "harbor", "iris", "juniper", "kelp",
  "lumen", "meadow", "nectar", "onyx", "pebble", "quartz", "ripple", "saffron", "tundra", "umber", "velvet", "willow"];
const pick = (a) => a[Math.floor(Math.random() * a.length)];
const rnd = (n) => Math.floor(Math.random() * n);
const token = () => Math.random().toString(36).slice(2, 8);
const phrase = () => `${pick(WORDS)} ${pick(WORDS)}`;
const ptr = (...parts) => "/" + parts.map((p) => String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join("/");

const capitalized = (w) => w[0].toUpperCase() + w.slice(1);

function newItem() {
  return { id: `i-${token()}`, model: { text: capitalized(phrase()) } };
}
function newSection() {
  const title = capitalized(pick(WORDS));
  return { id: `s-${token()}`, title, indexTitle: title[0], items: [newItem(), newItem()] };
}

// Each returns a JSON Patch for `doc` (or null when it does not apply), or {put: document}.
const actions = {
  insertItem(doc) {
    if (!doc.sections.length) return actions.insertSection(doc);
    const s = rnd(doc.sections.length);
    return [{ op: "add", path: ptr("sections", s, "items", rnd(doc.sections[s].items.length + 1)), value: newItem() }];
  },
  deleteItem(doc) {
    const full = doc.sections.map((x, i) => i).filter((i) => doc.sections[i].items.length);
    if (!full.length) return null;
    const s = pick(full);
    const i = rnd(doc.sections[s].items.length);
    return [{ op: "test", path: ptr("sections", s, "items", i, "id"), value: doc.sections[s].items[i].id },
      { op: "remove", path: ptr("sections", s, "items", i) }];
  },
  moveItem(doc) {
    const full = doc.sections.map((x, i) => i).filter((i) => doc.sections[i].items.length > 1);
    if (!full.length) return null;
    const s = pick(full);
    const n = doc.sections[s].items.length;
    const i = rnd(n);
    let j = rnd(n - 1);
    if (j >= i) j += 1;
    return [{ op: "move", from: ptr("sections", s, "items", i), path: ptr("sections", s, "items", j) }];
  },
  moveAcross(doc) {
    const full = doc.sections.map((x, i) => i).filter((i) => doc.sections[i].items.length);
    if (!full.length || doc.sections.length < 2) return null;
    const s = pick(full);
    let t = rnd(doc.sections.length - 1);
    if (t >= s) t += 1;
    const i = rnd(doc.sections[s].items.length);
    return [{ op: "move", from: ptr("sections", s, "items", i), path: ptr("sections", t, "items", rnd(doc.sections[t].items.length + 1)) }];
  },
  updateItem(doc) {
    const full = doc.sections.map((x, i) => i).filter((i) => doc.sections[i].items.length);
    if (!full.length) return null;
    const s = pick(full);
    const i = rnd(doc.sections[s].items.length);
    return [{ op: "replace", path: ptr("sections", s, "items", i, "model"), value: { text: phrase(), edited: token() } }];
  },
  renameSection(doc) {
    if (!doc.sections.length) return null;
    const s = rnd(doc.sections.length);
    const title = `${capitalized(pick(WORDS))} ${rnd(100)}`;
    return [{ op: "replace", path: ptr("sections", s, "title"), value: title },
      { op: "replace", path: ptr("sections", s, "indexTitle"), value: title[0] }];
  },
  moveSection(doc) {
    const n = doc.sections.length;
    if (n < 2) return null;
    const i = rnd(n);
    let j = rnd(n - 1);
    if (j >= i) j += 1;
    return [{ op: "move", from: ptr("sections", i), path: ptr("sections", j) }];
  },
  insertSection(doc) {
    return [{ op: "add", path: ptr("sections", rnd(doc.sections.length + 1)), value: newSection() }];
  },
  deleteSection(doc) {
    if (doc.sections.length < 2) return null;
    const s = rnd(doc.sections.length);
    return [{ op: "test", path: ptr("sections", s, "id"), value: doc.sections[s].id },
      { op: "remove", path: ptr("sections", s) }];
  },
  shuffle(doc) {
    const sections = doc.sections.map((s) => ({ ...s, items: [...s.items] }));
    const all = sections.flatMap((s) => s.items);
    for (const s of sections) s.items = [];
    for (const item of all) if (Math.random() > 0.15) pick(sections).items.push(item);
    for (const s of sections) s.items.sort(() => Math.random() - 0.5);
    if (Math.random() < 0.5) sections.push(newSection());
    return { put: { ...doc, sections } };
  },
};

async function write(name) {
  const id = state.listID;
  if (!id) return;
  const res = await request(api(`/${encodeURIComponent(id)}`), { cache: "no-store" });
  if (!res.ok) return log(`could not read ${id}: HTTP ${res.status}`, "error");
  const doc = await res.json();
  const change = actions[name](doc);
  if (!change) return log(`${name}: nothing to do`, "muted");
  const init = change.put
    ? { method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify(change.put) }
    : { method: "PATCH", headers: { "Content-Type": "application/json-patch+json" }, body: JSON.stringify(change) };
  init.headers["If-Match"] = `"${doc.revision}"`;
  const w = await request(api(`/${encodeURIComponent(id)}`), init);
  if (!w.ok) {
    const p = await w.json().catch(() => ({}));
    log(`${name}: HTTP ${w.status} ${p.title ?? ""}`, "error");
  }
}

const randomAction = () => pick(["insertItem", "deleteItem", "moveItem", "moveAcross", "updateItem", "renameSection",
  "moveSection", "insertSection", "deleteSection", "insertItem", "moveAcross"]);

async function onPanel(e) {
  const button = e.target.closest("button[data-action]");
  if (!button) return;
  const name = button.dataset.action;
  state.busy = name === "burst" ? "Burst" : name;
  try {
    if (name === "burst") {
      for (let k = 0; k < 5; k++) await write(randomAction());
    } else {
      await write(name);
    }
  } catch (error) {
    log(`${name}: ${error.message ?? error}`, "error");
  } finally {
    state.busy = null;
  }
}

let autoTimer = null;
function toggleAuto(on) {
  clearInterval(autoTimer);
  autoTimer = on ? setInterval(() => write(randomAction()), 1000) : null;
}

async function createDemo() {
  const id = `demo-${token()}`;
  const names = ["Inbox", "Today", "Later", "Archive"];
  const body = {
    kind: "sections",
    sections: names.map((title) => ({
      id: title.toLowerCase(), title, indexTitle: title[0],
      items: Array.from({ length: 3 + rnd(3) }, newItem),
    })),
  };
  const res = await request(api(`/${id}`), {
    method: "PUT", headers: { "Content-Type": "application/json", "If-None-Match": "*" }, body: JSON.stringify(body),
  });
  if (!res.ok) return;
  await refreshLists();
  open(id, true);
}

// ---------------------------------------------------------------------------
// Start, and a small handle for people and tests.

$("viewer").querySelector(".panel").addEventListener("click", onPanel);
$("auto").addEventListener("change", (e) => toggleAuto(e.target.checked));
$("create-demo").addEventListener("click", createDemo);
$("timeline").addEventListener("click", onTimeline);
$("history-more").addEventListener("click", () => loadHistory(true));
$("source-fetch").addEventListener("click", fetchSourceNow);

window.listdelta = {
  get follower() { return state.follower; },
  /** The dashboard's ManyListFollower, or null. */
  get dashboard() { return state.dashboard; },
  get resets() { return state.resets; },
  get paused() { return !!state.paused; },
  /** The panel action being written, or null. */
  get busy() { return state.busy ?? null; },
  /** Stops asking the server for changes (aborting the request in flight) until resume(). */
  pause() { state.paused = true; state.follower?.pause(); state.dashboard?.pause(); },
  resume() { state.paused = false; state.follower?.resume(); state.dashboard?.resume(); },
  open: (id) => open(id, true),
  openDashboard: (ids) => openDashboard(ids, true),
  addToDashboard,
  removeFromDashboard,
  /** Reloads the history panel's first page. */
  loadHistory: () => loadHistory(),
  /** The open list's source state as last read (null: none), and a fresh read of it. */
  get source() { return sourceState.current; },
  loadSource,
  fetchSourceNow,
  write,
};

$("token").value = sessionStorage.getItem(TOKEN_KEY) ?? "";
$("token").addEventListener("change", () => {
  const token = currentToken();
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
  refreshLists();
  route(); // follow again with the new token
});

refreshLists();
setInterval(refreshLists, 3000);
route();
