// A list's document on the page, as the list view and the dashboard show it: sections and items rendered by id and
// reused from one revision to the next, their changes animated (FLIP: what stays slides from where it was, what
// arrives fades in, what leaves fades out where it was), each item's model as a person reads it; and the target a
// client.js follower drives to render a document at each batch diff.
import { $, el, reduceMotion } from "/app/dom.js";

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

/** The main text of an item's model ("" when it has none). */
export const itemText = (item) => readable(item.model).main;

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

/** The number of items in `doc`. */
export const itemCount = (doc) => doc.sections.reduce((n, s) => n + (s.items ?? []).length, 0);

/**
 * Renders `doc`'s sections into `root`, reusing elements by id; `hints` marks what the diff inserted or updated.
 * `anchors` gives sections the ids the section index jumps to (the single list view only).
 */
export function renderSections(root, doc, hints, anchors) {
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

/**
 * The target a follower drives: it collects what a batch does, then renders the new document at endUpdates.
 * `holder()` is what holds the document and the last diff (a ListFollower, or a ManyListFollower's list);
 * `draw(doc, hints)` renders; `reset(doc)` shows a document fetched whole.
 */
export function pageTarget(holder, draw, reset = (doc) => draw(doc, null)) {
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
