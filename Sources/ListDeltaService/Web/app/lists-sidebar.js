// The lists on the left (GET /v1/lists through client.js's listLists, up to 200, refreshed every few seconds): each
// one's revision and size, and a link that opens it (`a[data-list-link]`, which the entry module handles); the list
// on show is marked.
import { listLists } from "/client.js";
import { $, el } from "/app/dom.js";
import { currentToken } from "/app/connection.js";
import { page } from "/app/page-state.js";

let lists = []; // as GET /v1/lists last listed them

/** The ids of the lists shown, in order. */
export const listedIDs = () => lists.map((l) => l.id);

/** Reads the lists again and shows them (an unreachable server, or one that refuses, keeps what is shown). */
export async function refreshLists() {
  let body;
  try {
    body = await listLists("", { limit: 200, token: currentToken() });
  } catch {
    return; // the next refresh tries again
  }
  lists = body?.lists ?? [];
  renderLists(body?.next != null);
}

function renderLists(more) {
  const rows = lists.map((l) => {
    const a = el("a", { href: `/?list=${encodeURIComponent(l.id)}`, class: "list-link", "data-list-link": l.id },
      el("span", { class: "list-id", text: l.id }),
      el("span", { class: "list-meta", text: `r${l.revision} · ${l.sections} sec · ${l.items} items` }));
    const li = el("li", { "data-list-id": l.id }, a);
    if (l.id === page.listID) li.classList.add("current");
    return li;
  });
  if (more) rows.push(el("li", { class: "muted", text: "… more lists" }));
  $("lists").replaceChildren(...rows);
  $("lists-empty").hidden = lists.length > 0;
}

/** Marks list `id` as the one on show (null: none). */
export function markCurrentList(id) {
  for (const li of $("lists").children) li.classList.toggle("current", li.dataset.listId === id);
}
