// The demo writer: the list view's panel writes a random change to the open list through its follower, client.js's
// writable ListFollower (`insert`, `update`, `remove` and `move` of an item by id; `patch` for the sections, `put`
// for "Shuffle"), once, as a burst of five or every second. The page shows each change at once (the follower is
// optimistic) and the server's answer confirms it; a change that finds its item, anchor or section gone meanwhile
// (a ConflictError: another writer got there first) is rolled back and logged. While a live query is shown, its
// follower cannot write: each change goes through a follower of the whole list made for it. "Create a demo list"
// makes a new list (client.js's createList) to try it on.
import { ConflictError, createList, follow } from "/client.js";
import { $ } from "/app/dom.js";
import { currentToken } from "/app/connection.js";
import { page } from "/app/page-state.js";
import { log, problemText } from "/app/diff-log.js";

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

/** A random element of `a`, and its index. */
function pickAt(a) {
  const i = rnd(a.length);
  return [a[i], i];
}

/** The indexes of `doc`'s sections that hold more than `n` items. */
const holding = (doc, n = 0) => doc.sections.map((x, i) => i).filter((i) => doc.sections[i].items.length > n);

/**
 * Where to put an item among `items` (which do not hold it) at index `k`, as the writer's `{section, after}`: after
 * the item before it, `null` (first) at 0, and no `after` at the end (last).
 */
function place(section, items, k) {
  if (k >= items.length) return { section: section.id };
  return { section: section.id, after: k === 0 ? null : items[k - 1].id };
}

// Each writes a change to `doc` (the open list's whole document as `f` holds it) through `f`, a writable follower of
// the open list, and resolves to its answer ({revision}); null when it does not apply.
const actions = {
  insertItem(f, doc) {
    if (!doc.sections.length) return actions.insertSection(f, doc);
    const section = pick(doc.sections);
    return f.insert(newItem(), place(section, section.items, rnd(section.items.length + 1)));
  },
  deleteItem(f, doc) {
    const full = holding(doc);
    if (!full.length) return null;
    return f.remove(pick(doc.sections[pick(full)].items).id);
  },
  moveItem(f, doc) {
    const full = holding(doc, 1);
    if (!full.length) return null;
    const section = doc.sections[pick(full)];
    const [item, i] = pickAt(section.items);
    const rest = section.items.filter((x) => x !== item);
    let k = rnd(rest.length); // a place other than its own (i)
    if (k >= i) k += 1;
    return f.move(item.id, place(section, rest, k));
  },
  moveAcross(f, doc) {
    const full = holding(doc);
    if (!full.length || doc.sections.length < 2) return null;
    const s = pick(full);
    let t = rnd(doc.sections.length - 1);
    if (t >= s) t += 1;
    const to = doc.sections[t];
    return f.move(pick(doc.sections[s].items).id, place(to, to.items, rnd(to.items.length + 1)));
  },
  updateItem(f, doc) {
    const full = holding(doc);
    if (!full.length) return null;
    return f.update(pick(doc.sections[pick(full)].items).id, { model: { text: phrase(), edited: randomTag() } });
  },
  // The sections' changes are JSON Patches; each `test`s the id of the section it names first, so that one written
  // over a change it has not seen yet is refused rather than applied to another section.
  renameSection(f, doc) {
    if (!doc.sections.length) return null;
    const [section, s] = pickAt(doc.sections);
    const title = `${capitalized(pick(WORDS))} ${rnd(100)}`;
    return f.patch([{ op: "test", path: ptr("sections", s, "id"), value: section.id },
      { op: "replace", path: ptr("sections", s, "title"), value: title },
      { op: "replace", path: ptr("sections", s, "indexTitle"), value: title[0] }]);
  },
  moveSection(f, doc) {
    const n = doc.sections.length;
    if (n < 2) return null;
    const [section, i] = pickAt(doc.sections);
    let j = rnd(n - 1);
    if (j >= i) j += 1;
    return f.patch([{ op: "test", path: ptr("sections", i, "id"), value: section.id },
      { op: "move", from: ptr("sections", i), path: ptr("sections", j) }]);
  },
  insertSection(f, doc) {
    return f.patch([{ op: "add", path: ptr("sections", rnd(doc.sections.length + 1)), value: newSection() }]);
  },
  deleteSection(f, doc) {
    if (doc.sections.length < 2) return null;
    const [section, s] = pickAt(doc.sections);
    return f.patch([{ op: "test", path: ptr("sections", s, "id"), value: section.id },
      { op: "remove", path: ptr("sections", s) }]);
  },
  shuffle(f, doc) {
    const sections = doc.sections.map((s) => ({ ...s, items: [...s.items] }));
    const all = sections.flatMap((s) => s.items);
    for (const s of sections) s.items = [];
    for (const item of all) if (Math.random() > 0.15) pick(sections).items.push(item);
    for (const s of sections) s.items.sort(() => Math.random() - 0.5);
    if (Math.random() < 0.5) sections.push(newSection());
    const document = { kind: doc.kind, sections };
    if (doc.cells) document.cells = doc.cells;
    return f.put(document);
  },
};

// While a live query is shown (its follower follows the query and cannot write): one writable follower of the whole
// open list, `{listID, follower, ready}`, made at the first write and kept for the next ones until the list view
// opens another list, closes, or follows the whole list again (`dropSideWriter`).
let side = null;

/** Stops the side writer, if any: the list view calls it whenever the list or the follower on show changes. */
export function dropSideWriter() {
  side?.follower.stop();
  side = null;
}

/** The side writer of the open list, made (and the previous one stopped) when there is none for it. */
function sideWriter() {
  if (side?.listID === page.listID) return side;
  side?.follower.stop();
  const follower = follow("", page.listID, {}, { writable: true, token: currentToken });
  side = { listID: page.listID, follower, ready: follower.start() };
  return side;
}

/**
 * Runs `write(f)` with a writable follower of the open list: the one on show, or while a live query is shown, the
 * side writer. Resolves to what `write` resolves to; undefined when no list is open or its document could not be read
 * within 10 s.
 */
async function withWriter(write) {
  const shown = page.follower;
  if (!shown || !page.listID) return undefined;
  if (shown.writable) return shown.document ? write(shown) : undefined;
  const { follower, ready } = sideWriter();
  await Promise.race([ready, new Promise((resolve) => setTimeout(resolve, 10000))]);
  return follower.document ? write(follower) : undefined;
}

/**
 * Writes the change `actions[name]` makes to the open list's whole document as a writable follower holds it (the
 * server's with the writes not yet acknowledged on top); resolves once the server acknowledged it (or refused it:
 * the follower then rolls it back, and the refusal is logged).
 */
export async function write(name) {
  let answer;
  try {
    answer = await withWriter((f) => actions[name](f, f.document));
  } catch (error) {
    if (error instanceof ConflictError) return log(`${name}: ${error.message} (changed meanwhile)`, "muted");
    return log(`${name}: ${problemText(error)}`, "error");
  }
  if (answer === undefined) log(`${name}: the list is not loaded yet`, "muted");
  else if (answer === null) log(`${name}: nothing to do`, "muted");
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

let autoWriting = false;

/** Writes a random change every second while `on`; a second whose previous write has not ended (offline, say) is skipped. */
export function toggleAuto(on) {
  clearInterval(autoTimer);
  autoTimer = on
    ? setInterval(async () => {
      if (autoWriting) return;
      autoWriting = true;
      try {
        await write(randomAction());
      } finally {
        autoWriting = false;
      }
    }, 1000)
    : null;
}

/** Creates a demo list of four sections with a few items each; resolves to its id, or null when it was refused. */
export async function createDemo() {
  const id = `demo-${randomTag()}`;
  const names = ["Inbox", "Today", "Later", "Archive"];
  const document = {
    kind: "sections",
    sections: names.map((title) => ({
      id: title.toLowerCase(), title, indexTitle: title[0],
      items: Array.from({ length: 3 + rnd(3) }, newItem),
    })),
  };
  try {
    await createList("", id, document, { token: currentToken() });
    return id;
  } catch (error) {
    log(`create a demo list: ${problemText(error)}`, "error");
    return null;
  }
}
