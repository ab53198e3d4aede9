"""client.js writes in headless Chromium, with IndexedDB storage: several writers on one list through a proxy that loses
writes and answers (flaky_proxy.py), writes rebuilt after a failed guard and refused ones rolled back, and a reload
with writes pending while the API is unreachable (shown at once from IndexedDB, sent once it answers again).

The page sits on the proxy's origin (so client.js reaches the service through it) and runs the scenarios of
Tests/client/scenarios.mjs, the same as test_client_writes.py runs under Node, with the same checks.
"""

import pytest

from browser_support import WEB, browser_errors, chrome, wait_for
from client_writes_support import (SCENARIOS, check_conflicting_writes, check_ends_on_the_servers_document,
                                   check_flaky_writers, check_one_body_per_key, check_rebuilt_writes, followers_writes,
                                   new_list, patch_revisions, urls, where)
from conftest import Server
from flaky_proxy import FlakyProxy
from listdelta_apply import canon_sections

# Imports client.js and the scenarios (from their text, as a blob: the page has no other way to them), runs
# `scenario(m, options)`, and answers its result (or the error). `options.storages`/`options.storage` name IndexedDB
# databases; the follower a scenario leaves running (`follower`, `mirror`, `calls`) is kept as window.__kept.
RUN_JS = """
const [source, scenario, options, done] = arguments;
(async () => {
  const m = await import('/client.js');
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  const scenarios = await import(url);
  window.__m = m;
  window.__scenarios = scenarios;
  if (options.storages) options.storages = options.storages.map((name) => m.indexedDBStorage(name));
  if (options.storage) options.storage = m.indexedDBStorage(options.storage);
  const result = await scenarios[scenario](m, options);
  if (result && result.follower) {
    window.__kept = result;
    return result.report;
  }
  return result;
})().then((result) => done({ result }), (e) => done({ error: String(e && e.stack || e) }));
"""

KEPT_JS = """
const { follower, mirror } = window.__kept;
return { document: follower.document, revision: follower.revision, pending: follower.pendingWrites,
         state: follower.state, mirror: mirror.doc, mirrorErrors: mirror.errors, ops: mirror.ops };
"""


@pytest.fixture(scope="module")
def web_server(tmp_path_factory):
    """The service, serving the page files of this checkout (client.js as edited, without a rebuild)."""
    data = tmp_path_factory.mktemp("data") / "db"
    data.mkdir()
    s = Server(data, env={"LISTDELTA_WEB_ROOT": str(WEB)}).start()
    yield s
    s.stop()


@pytest.fixture
def proxy(web_server):
    p = FlakyProxy(web_server.port)
    yield p
    p.close()


@pytest.fixture
def page(web_server, proxy):
    """Headless Chromium on the proxy's origin."""
    assert web_server.get("/client.js").content == (WEB / "client.js").read_bytes(), "the service serves another client.js"
    driver = chrome()
    driver.set_script_timeout(120)
    driver.get(proxy.url("/healthz"))
    yield driver
    driver.quit()


def run(driver, scenario, **options):
    answer = driver.execute_async_script(RUN_JS, SCENARIOS.read_text(), scenario, options)
    assert "error" not in answer, f"{scenario} failed: {answer['error']}\nconsole: {browser_errors(driver)}"
    return answer["result"]


def test_writers_with_indexeddb_through_a_flaky_proxy(web_server, proxy, page):
    list_id = new_list(web_server, "wb-flaky")
    storages = [f"{list_id}-{k}" for k in range(3)]
    result = run(page, "flakyWriters", writers=3, writes=12, seed=5, storages=storages, **urls(web_server, proxy, list_id))
    check_flaky_writers(web_server, list_id, proxy, result)
    # What each follower stored: the service's document, nothing pending.
    stored = page.execute_async_script("""
        const [names, listID, done] = arguments;
        Promise.all(names.map((n) => window.__m.indexedDBStorage(n).get('listdelta:' + listID))).then(done, (e) => done(String(e)));
    """, storages, list_id)
    doc = web_server.doc(list_id)
    for s in stored:
        assert s["pending"] == [] and s["acknowledged"] == [], s
        assert s["revision"] == doc["revision"] and canon_sections(s["document"]) == canon_sections(doc)


@pytest.mark.parametrize("mode", ["poll", "events"])
@pytest.mark.parametrize("scenario", ["rebuiltWrites", "conflictingWrites"])
def test_rebuilt_and_refused_writes(web_server, proxy, page, scenario, mode):
    list_id = new_list(web_server, f"wb-{scenario.lower()}")
    result = run(page, scenario, mode=mode, **urls(web_server, proxy, list_id))
    if scenario == "rebuiltWrites":
        check_rebuilt_writes(web_server, list_id, proxy, result)
    else:
        check_conflicting_writes(web_server, list_id, result)


def test_reload_with_pending_writes_while_offline(web_server, proxy, page):
    """Writes made while the API is unreachable are in IndexedDB; after a reload (still offline) the new follower shows
    them at once, before any request, and sends each once when the API answers again."""
    list_id = new_list(web_server, "wb-reload")
    storage = f"{list_id}-reload"
    before = run(page, "offlineWrites", storage=storage, **urls(web_server, proxy, list_id))
    assert before["offline"] and before["stored"], before
    assert [w["kind"] for w in before["pending"]] == ["insert", "update", "move"]
    first_key = before["pending"][0]["key"]
    assert first_key, before["pending"]
    assert proxy.offline

    page.refresh()  # the page goes away with its writes unsent; the API is still unreachable
    restored = run(page, "restoreFollower", storage=storage, **urls(web_server, proxy, list_id))
    assert restored["calls"][0] == ["target", "reset", "restored"], restored["calls"][:3]
    assert canon_sections(restored["document"]) == canon_sections(before["document"])
    assert [(w["kind"], w["key"]) for w in restored["pending"]][0] == ("insert", first_key)
    assert len(restored["pending"]) == 3
    wait_for(lambda: page.execute_script(KEPT_JS)["state"] == "offline", message="the restored follower offline")
    assert not [e for e in proxy.writes() if e["fate"] == "forwarded"]

    proxy.offline = False
    doc = None

    def converged():
        nonlocal doc
        doc = web_server.doc(list_id)
        st = page.execute_script(KEPT_JS)
        return st if not st["pending"] and st["revision"] == doc["revision"] else None

    st = wait_for(converged, timeout=20, message=f"the writes sent (console: {browser_errors(page)})")
    check_ends_on_the_servers_document(web_server, list_id, st)
    assert patch_revisions(web_server, list_id) == [(1, "put"), (2, "patch"), (3, "patch"), (4, "patch")]
    at = where(doc)
    assert at["offline-1"][:2] == ("a", 2) and at["b2"][2] == {"text": "offline"} and at["c0"][:2] == ("b", 0)
    forwarded = [e for e in followers_writes(proxy, "PATCH") if e["fate"] == "forwarded"]
    assert [e["status"] for e in forwarded] == [200, 200, 200], forwarded
    assert forwarded[0]["key"] == first_key
    check_one_body_per_key(proxy)
    assert [op[0] for op in st["ops"]].count("reset") == 1


def test_two_tabs_on_one_indexeddb_take_turns_storing_a_list(web_server, proxy, page):
    """Two followers of one list on one IndexedDB database at once (as two tabs of the origin): the first stores the
    list, the second writes without storing, so the stored writes are the first's alone, never overwritten; both
    writes land once; after both stop, a new follower on the database restores what was stored."""
    list_id = new_list(web_server, "wb-tabs")
    result = run(page, "twoTabs", storage=f"{list_id}-tabs", **urls(web_server, proxy, list_id))
    assert result["offline"], result
    assert result["stored"] == ["tab-1"], result
    assert result["converged"], result
    assert [o.get("revision") is not None for o in result["outcomes"]] == [True, True], result["outcomes"]
    items = [i["id"] for s in web_server.doc(list_id)["sections"] for i in s["items"]]
    assert items.count("tab-1") == 1 and items.count("tab-2") == 1
    assert result["firstOp"][:2] == ["reset", "restored"], result["firstOp"]
