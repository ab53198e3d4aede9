// The demo writer: the list view's panel writes a random change to the open list over the API (a JSON Patch with
// If-Match, or a PUT for "Shuffle"), once, as a burst of five or every second; "Create a demo list" makes a new
// list to try it on.
import { $ } from "/app/dom.js";
import { api, request } from "/app/connection.js";
import { page } from "/app/page-state.js";
import { log } from "/app/diff-log.js";

let busy = null; // the panel action being written

/** The panel action being written, or null. */
export const busyAction = () => busy;

/** Enables or disables the panel's controls (a list fed by a source refuses writes). */
export function setWritable(writable) {
  for (const control of $("viewer").querySelectorAll(".panel button, .panel input")) control.disabled = !writable;
}

const WORDS = ["amber", "brisk", "cobalt", "dune", "ember", "fjord", "glade", "harbor", "iris", "juniper", "kelp",
  "lumen", "meadow", "nectar", "onyx", "pebble", "quartz", "ripple", "saffron", "tundra", "umber", "velvet", "willow"];
const pick = (a) => a[Math.floor(Math.random() * a.length)];
const rnd = (n) => Math.floor(Math.random() * n);
const randomTag = () => Math.random().toString(36).slice(2, 8);
const phrase = () => `${pick(WORDS)} ${pick(WORDS)}`;
const ptr = (...parts) => "/" + parts.map((p) => String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join("/");

const capitalized = (w) => w[0].toUpperCase() + w.slice(1);

function newItem() {
  return { id: `i-${randomTag()}`, model: { text: capitalized(phrase()) } };
}
function newSection() {
  const title = capitalized(pick(WORDS));
  return { id: `s-${randomTag()}`, title, indexTitle: title[0], items: [newItem(), newItem()] };
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
    return [{ op: "replace", path: ptr("sections", s, "items", i, "model"), value: { text: phrase(), edited: randomTag() } }];
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

/** Writes the change `actions[name]` makes to the open list's document as it is now. */
export async function write(name) {
  const id = page.listID;
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

/** A click on the panel: writes the change of the button clicked (five random ones for "Burst of 5"). */
export async function onPanelClick(e) {
  const button = e.target.closest("button[data-action]");
  if (!button) return;
  const name = button.dataset.action;
  busy = name === "burst" ? "Burst" : name;
  try {
    if (name === "burst") {
      for (let k = 0; k < 5; k++) await write(randomAction());
    } else {
      await write(name);
    }
  } catch (error) {
    log(`${name}: ${error.message ?? error}`, "error");
  } finally {
    busy = null;
  }
}

let autoTimer = null;

/** Writes a random change every second while `on`. */
export function toggleAuto(on) {
  clearInterval(autoTimer);
  autoTimer = on ? setInterval(() => write(randomAction()), 1000) : null;
}

/** Creates a demo list of four sections with a few items each; resolves to its id, or null when it was refused. */
export async function createDemo() {
  const id = `demo-${randomTag()}`;
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
  return res.ok ? id : null;
}
