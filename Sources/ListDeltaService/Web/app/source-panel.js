// The source panel of the list view, for a list that has a source (client.js's fetchSource: GET .../source, null
// for none): its settings, what the last fetch did, the last error, and "Fetch now" (putSource: a PUT of the same
// settings). The source is read when the list opens, whenever it gets a new revision, and when the next fetch is due
// (a failed fetch makes no revision). While a source feeds the list, writes and reverts are refused: the writer's
// buttons are disabled and the timeline offers no revert (the view panel, view-panel.js, does the same for a view).
import { fetchSource, putSource } from "/client.js";
import { $, el } from "/app/dom.js";
import { currentToken } from "/app/connection.js";
import { page } from "/app/page-state.js";
import { log, problemText } from "/app/diff-log.js";
import { renderTimeline } from "/app/history.js";
import { setWritable } from "/app/demo-writer.js";

/** The timers of the source's reads. Reads and fetch-now answers are numbered as they begin (a fetch now's as it is
 * answered): one older than what is shown is dropped. */
const sourceState = { timer: null, again: null, started: 0, shown: 0 };

function showTime(dd, text) {
  if (!text) {
    dd.textContent = "–";
    return;
  }
  dd.replaceChildren(el("time", { datetime: text, text: new Date(text).toLocaleString() }));
}

/** Shows the source state `s` (null: the list has none) and reads it again once its next fetch is due. */
function showSource(s) {
  page.source = s;
  clearTimeout(sourceState.timer);
  const panel = $("source");
  panel.hidden = !s;
  setWritable(!s && !page.view);
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

/** Reads the open list's source and shows it (unless a later read is shown already). */
export async function loadSource() {
  const id = page.listID;
  if (!id) return;
  const seq = ++sourceState.started;
  let source;
  try {
    source = await fetchSource("", id, { token: currentToken() });
  } catch {
    return; // refused or unreachable for now: keep what is shown
  }
  if (id !== page.listID || seq < sourceState.shown) return;
  sourceState.shown = seq;
  showSource(source);
}

/** After a new revision: the state now, and once more a moment later (the fetch may finish recording after it). */
export function refreshSource() {
  loadSource();
  clearTimeout(sourceState.again);
  if (page.source) sourceState.again = setTimeout(loadSource, 1500);
}

/** "Fetch now": PUTs the source's settings again, which fetches it at once, and shows the state it answers. */
export async function fetchSourceNow() {
  const id = page.listID;
  const s = page.source;
  if (!id || !s) return;
  const button = $("source-fetch");
  button.disabled = true;
  try {
    const settings = { url: s.url, interval: s.interval, sections: s.sections, maxItems: s.maxItems };
    const answer = await putSource("", id, settings, { token: currentToken() });
    if (id !== page.listID) return;
    sourceState.shown = ++sourceState.started;
    showSource(answer);
    const f = answer.lastFetch;
    if (answer.lastError) log(`fetch now failed: ${answer.lastError.detail ?? answer.lastError.title}`, "error");
    else log(`fetch now: ${f?.changed ? "a new revision" : "no change"} (${f?.items ?? 0} items)`);
  } catch (error) {
    if (id === page.listID) log(`fetch now: ${problemText(error)}`, "error");
  } finally {
    button.disabled = false;
  }
}

/** Shows no source, for a list that opens or closes (a read begun before is not shown). */
export function clearSource() {
  sourceState.shown = ++sourceState.started;
  showSource(null);
}
