"""Polls that a shared cache collapses (docs/api.md, "Shared caches and CDNs"), through a real nginx running
Config/nginx-cache.conf: followers of one list cost the origin about one request per revision, not one per
follower, counted from the origin's own /metrics. The servers run with cursorSeconds=2 so intervals pass quickly."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from cdn_support import Cache, cursor_of, next_link, requests_to_origin
from conftest import Server, assert_problem, sections_doc, uid
from listdelta_apply import apply_batch_diff, canon_sections

CURSOR_SECONDS = 2
DIFF_ROUTE = "/v1/lists/{id}/diff"
DOCUMENT_ROUTE = "/v1/lists/{id}"


@pytest.fixture(scope="module")
def origin(tmp_path_factory):
    d = tmp_path_factory.mktemp("cdn-origin") / "db"
    d.mkdir()
    # Behind the cache every follower is the cache's one address: limit clients there (docs/deployment.md).
    s = Server(d, env={"LISTDELTA_CURSOR_SECONDS": str(CURSOR_SECONDS), "LISTDELTA_DURABLE_SYNC": "false",
                       "LISTDELTA_MAX_CONNECTIONS_PER_CLIENT": "0"}).start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def cache(origin, tmp_path_factory):
    c = Cache(origin, tmp_path_factory.mktemp("cdn-nginx"))
    yield c
    c.stop()


def interval():
    return int(time.time() // CURSOR_SECONDS)


def doc_of(revision_items):
    return sections_doc(("s", "S", revision_items))


class Follower:
    """Fetches the document through the cache, then follows `next` verbatim, applying each diff."""

    def __init__(self, cache, list_id, wait):
        self.cache, self.list_id, self.wait = cache, list_id, wait
        self.session = requests.Session()
        self.polled = []

    def run(self, final_revision, deadline):
        r = self.session.get(self.cache.url(f"/v1/lists/{self.list_id}"), timeout=10)
        assert r.status_code == 200, r.text
        self.document = r.json()
        target = f"/v1/lists/{self.list_id}/diff?from={self.document['revision']}&wait={self.wait}"
        while self.document["revision"] < final_revision:
            assert time.monotonic() < deadline, f"stuck at {self.document['revision']} after {self.polled[-3:]}"
            self.polled.append(target)
            r = self.session.get(self.cache.url(target), timeout=self.wait + 15)
            assert r.status_code == 200, (target, r.status_code, r.text)
            diff = r.json()
            assert diff["from"] == self.document["revision"], (target, diff["from"])
            self.document = apply_batch_diff(self.document, diff)
            self.document["revision"] = diff["to"]
            target = next_link(r)
            assert target is not None and cursor_of(target) is not None, r.headers
        return self.document


def test_200_followers_over_20_revisions_cost_the_origin_about_one_poll_per_revision(origin, cache):
    lid = uid("crowd")
    items = ["a"]
    origin.put(lid, doc_of(items))
    followers = [Follower(cache, lid, wait=5) for _ in range(200)]
    revisions = 20
    final = 1 + revisions
    diffs_before = requests_to_origin(origin, DIFF_ROUTE)
    documents_before = requests_to_origin(origin, DOCUMENT_ROUTE)
    started = time.monotonic()
    deadline = started + 60
    with ThreadPoolExecutor(max_workers=len(followers)) as pool:
        futures = [pool.submit(f.run, final, deadline) for f in followers]
        time.sleep(1.0)  # every follower holds the document and polls
        for n in range(revisions):
            items = items + [f"i{n}"] if n % 3 else items[1:] + [f"i{n}"]
            assert origin.put(lid, doc_of(items)).status_code == 200
            time.sleep(0.25)
        documents = [f.result(timeout=60) for f in futures]
    # The intervals the run spanned: 200 follower threads share one interpreter with the writer, so on a busy
    # machine the 20 writes take 30 s rather than 6, and every interval boundary crossed costs a request.
    intervals = int((time.monotonic() - started) // CURSOR_SECONDS) + 2
    final_doc = origin.doc(lid)
    assert final_doc["revision"] == final
    for document in documents:
        assert canon_sections(document) == canon_sections(final_doc)
    origin_diffs = requests_to_origin(origin, DIFF_ROUTE) - diffs_before
    origin_documents = requests_to_origin(origin, DOCUMENT_ROUTE) - documents_before
    client_polls = sum(len(f.polled) for f in followers)
    # Without the cache each follower's every poll reaches the origin (>= 200 x 20); with it, about one request per
    # revision plus one per interval boundary crossed while held, whatever the number of followers.
    assert client_polls >= len(followers) * revisions
    assert revisions / 4 <= origin_diffs <= 2 * (revisions + intervals) + 10, (origin_diffs, client_polls, intervals)
    # The followers opened the document within a second: shared for a second, it cost at most a few requests.
    assert 1 <= origin_documents <= 3, origin_documents


def test_1000_followers_of_one_live_query_cost_the_origin_about_one_poll_per_change(origin, tmp_path_factory):
    """Followers of one live query (API.md, "Live queries") collapse as followers of a list do: their polls carry
    one canonical `q` in every `next`, so the cache keeps one entry per revision and interval. Benchmarks/cdn-followers.py
    runs the 1,000 followers (asyncio, two processes) and checks each ends on the query's final result."""
    import json
    import resource
    import subprocess
    import sys

    from conftest import REPO

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < 8192:
        resource.setrlimit(resource.RLIMIT_NOFILE, (8192 if hard == resource.RLIM_INFINITY else min(hard, 8192), hard))
    followers, writes = 1000, 10
    cache = Cache(origin, tmp_path_factory.mktemp("cdn-query"), worker_connections=followers + 500)
    try:
        lid = uid("qcrowd")
        before = requests_to_origin(origin, DIFF_ROUTE)
        started = time.monotonic()
        # The query's result (the 10 items of highest n) changes with every write of the benchmark's moving window.
        query = '{"sort":[{"path":"/model/n","order":"desc"}],"limit":10}'
        out = subprocess.run(
            [sys.executable, str(REPO / "Benchmarks" / "cdn-followers.py"), "--port", str(cache.port), "--origin", str(origin.port),
             "--list", lid, "--followers", str(followers), "--processes", "2", "--wait", "4", "--writes", str(writes),
             "--rate", "2", "--gap", "5", "--timeout", "120", "--query", query],
            capture_output=True, text=True, timeout=180)
        assert out.returncode == 0, out.stderr[-3000:]
        result = json.loads(out.stdout)
        assert result["exact"] == followers and result["error_count"] == 0, result
        intervals = int((time.monotonic() - started) // CURSOR_SECONDS) + 2
        origin_diffs = requests_to_origin(origin, DIFF_ROUTE) - before
        # Without the cache: every follower's every poll (>= 1000 x 10); with it, about one per change plus one per
        # interval boundary crossed while held.
        assert result["polls"] >= followers * writes
        assert writes / 4 <= origin_diffs <= 2 * (writes + intervals) + 10, (origin_diffs, result["polls"], intervals)
        print(f"query followers={followers} revisions={writes} origin_diff_requests={int(origin_diffs)} polls={result['polls']} "
              f"delivery_p99_ms={result['delivery_p99_ms']}")
    finally:
        cache.stop()


def test_more_than_1024_requests_for_one_held_poll_cost_the_origin_one(origin, tmp_path_factory):
    """nginx counts an entry's uses in 10 bits: without `proxy_cache_min_uses 0` every 1024th request for one URL
    goes to the origin while the first is still held there."""
    import asyncio
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < 8192:
        resource.setrlimit(resource.RLIMIT_NOFILE, (8192 if hard == resource.RLIM_INFINITY else min(hard, 8192), hard))
    crowd = 1500
    cache = Cache(origin, tmp_path_factory.mktemp("cdn-1500"), worker_connections=crowd + 500)
    try:
        lid = uid("uses")
        origin.put(lid, doc_of(["a"]))
        # A cursor far ahead: every request is held for its whole wait, long enough for all of them to arrive.
        target = f"/v1/lists/{lid}/diff?from=1&wait=4&cursor={interval() + 50}"
        before = requests_to_origin(origin, DIFF_ROUTE)

        async def one(i):
            await asyncio.sleep(i / crowd)
            reader, writer = await asyncio.open_connection("127.0.0.1", cache.port)
            writer.write(f"GET {target} HTTP/1.1\r\nHost: cache\r\nConnection: close\r\n\r\n".encode())
            answer = await reader.read()
            writer.close()
            return answer.split(b"\r\n", 1)[0]

        async def everyone():
            return await asyncio.gather(*[one(i) for i in range(crowd)])

        statuses = asyncio.run(everyone())
        assert set(statuses) == {b"HTTP/1.1 200 OK"}
        assert requests_to_origin(origin, DIFF_ROUTE) - before == 1
    finally:
        cache.stop()


def test_a_poll_that_times_out_names_a_next_poll_with_a_later_cursor(origin, cache):
    lid = uid("quiet")
    origin.put(lid, doc_of(["a"]))
    first = f"/v1/lists/{lid}/diff?from=1&wait=1"
    r = requests.get(cache.url(first), timeout=10)
    assert r.status_code == 200 and (r.json()["from"], r.json()["to"]) == (1, 1)
    assert r.headers["Cache-Control"] == f"public, max-age={CURSOR_SECONDS}"
    assert r.headers["Vary"] == "Accept-Encoding"
    assert r.headers["ETag"] == '"1-1"'
    target = next_link(r)
    assert target.startswith(f"/v1/lists/{lid}/diff?from=1&wait=1&cursor=")
    # Held to the end of its interval (or its wait), then moved on: the next poll is never the same URL.
    seen = {first}
    for _ in range(3):
        assert target not in seen
        seen.add(target)
        before = cursor_of(target)
        r = requests.get(cache.url(target), timeout=10)
        assert r.status_code == 200 and r.json()["to"] == 1
        target = next_link(r)
        assert cursor_of(target) > before
    # A second client asking the first URL again gets the cached answer, which also moves it on.
    again = requests.get(cache.url(first), timeout=10)
    assert again.headers.get("X-Cache-Status") in ("HIT", "UPDATING", "STALE")
    assert next_link(again) != first


def test_two_requests_in_one_interval_get_the_same_next(origin, cache):
    lid = uid("same")
    origin.put(lid, doc_of(["a"]))
    origin.put(lid, doc_of(["a", "b"]))
    for _ in range(5):
        start = interval()
        # One client that polls for the first time, one that carries an old cursor: both are told the same URL.
        fresh = requests.get(cache.url(f"/v1/lists/{lid}/diff?from=1&wait=3"), timeout=10)
        old = requests.get(cache.url(f"/v1/lists/{lid}/diff?from=1&wait=3&cursor={start - 7}"), timeout=10)
        if interval() != start:
            continue  # the interval ended between them: try again within one
        assert fresh.json()["to"] == old.json()["to"] == 2
        assert next_link(fresh) == next_link(old) == f"/v1/lists/{lid}/diff?from=2&wait=3&cursor={start}"
        break
    else:
        pytest.fail("no two requests fell in one interval")


@pytest.mark.parametrize("cursor", ["abc", "-1", "1.5", "2147483648", "12345678901", ""])
def test_a_malformed_cursor_is_a_bad_request_naming_it(origin, cache, cursor):
    lid = uid("bad")
    origin.put(lid, doc_of(["a"]))
    r = requests.get(cache.url(f"/v1/lists/{lid}/diff?from=1&cursor={cursor}"), timeout=10)
    body = assert_problem(r, 400)
    assert body["pointer"] == "/cursor"
    assert requests.get(cache.url(f"/v1/lists/{lid}/diff?from=1&cursor=2147483647"), timeout=10).status_code == 200


def test_browsers_may_read_link_and_etag(origin, cache):
    lid = uid("cors")
    origin.put(lid, doc_of(["a"]))
    r = requests.get(cache.url(f"/v1/lists/{lid}/diff?from=0"), headers={"Origin": "https://app.example"}, timeout=10)
    exposed = {h.strip() for h in r.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"Link", "ETag"} <= exposed


def test_a_crowd_that_opens_the_document_at_once_costs_the_origin_about_one_request(origin, cache):
    lid = uid("join")
    origin.put(lid, doc_of(["a", "b"]))
    before = requests_to_origin(origin, DOCUMENT_ROUTE)
    barrier = threading.Barrier(100)

    def fetch():
        barrier.wait()
        return requests.get(cache.url(f"/v1/lists/{lid}"), timeout=10)

    with ThreadPoolExecutor(max_workers=100) as pool:
        answers = list(pool.map(lambda _: fetch(), range(100)))
    assert all(a.status_code == 200 and a.json()["revision"] == 1 for a in answers)
    assert answers[0].headers["Cache-Control"] == "public, max-age=0, s-maxage=1"
    assert 1 <= requests_to_origin(origin, DOCUMENT_ROUTE) - before <= 3
    # The shared copy expires within two seconds (nginx counts whole seconds): a write is seen by later crowds.
    origin.put(lid, doc_of(["b"]))
    written = time.monotonic()
    seen = []
    while (not seen or seen[-1] != 2) and time.monotonic() < written + 4:
        seen.append(requests.get(cache.url(f"/v1/lists/{lid}"), timeout=10).json()["revision"])
        time.sleep(0.1)
    assert seen[-1] == 2 and time.monotonic() - written < 2.6, seen


def test_private_lists_do_not_collapse(tmp_path_factory):
    d = tmp_path_factory.mktemp("cdn-private") / "db"
    d.mkdir()
    server = Server(d, env={"LISTDELTA_CURSOR_SECONDS": str(CURSOR_SECONDS), "LISTDELTA_READ_ACCESS": "token",
                            "LISTDELTA_MAX_CONNECTIONS_PER_CLIENT": "0",
                            "LISTDELTA_WRITE_TOKENS": "secret"}).start()
    cache = Cache(server, tmp_path_factory.mktemp("cdn-private-nginx"))
    try:
        auth = {"Authorization": "Bearer secret"}
        lid = uid("private")
        assert server.put(lid, doc_of(["a"]), headers=auth).status_code == 201
        before = requests_to_origin(server, DIFF_ROUTE)
        answers = [requests.get(cache.url(f"/v1/lists/{lid}/diff?from=0&wait=1"), headers=auth, timeout=10) for _ in range(3)]
        assert all(a.status_code == 200 for a in answers)
        assert all(a.headers["Cache-Control"] == f"private, max-age={CURSOR_SECONDS}" for a in answers)
        assert [a.headers.get("X-Cache-Status") for a in answers] == ["MISS"] * 3
        assert requests_to_origin(server, DIFF_ROUTE) - before == 3
        assert next_link(answers[0]).startswith(f"/v1/lists/{lid}/diff?from=1&wait=1&cursor=")
        # Without a token the cache has nothing to give away.
        assert requests.get(cache.url(f"/v1/lists/{lid}/diff?from=0&wait=1"), timeout=10).status_code == 401
    finally:
        cache.stop()
        server.stop()


def test_client_js_follows_next_through_the_cache_in_chromium(origin, cache):
    from browser_support import chrome

    lid = uid("page")
    items = ["a"]
    origin.put(lid, doc_of(items))
    driver = chrome()
    try:
        driver.get(cache.url("/"))
        driver.set_script_timeout(20)
        # Four followers of one list in one page (cache: "default" for polls): they poll the same URLs.
        driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            import("/client.js").then(async ({ follow }) => {
              window.__followers = [0, 1, 2, 3].map(() => follow("", arguments[0], {}, { wait: 5 }));
              await Promise.all(window.__followers.map((f) => f.start()));
              done(true);
            });
        """, lid)
        before = requests_to_origin(origin, DIFF_ROUTE)
        for n in range(6):
            items = items + [f"p{n}"]
            origin.put(lid, doc_of(items))
            time.sleep(0.4)
        final = origin.doc(lid)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            shown = driver.execute_script("return window.__followers.map((f) => f.document)")
            if all(d["revision"] == final["revision"] for d in shown):
                break
            time.sleep(0.2)
        assert all(canon_sections(d) == canon_sections(final) for d in shown), shown
        driver.execute_script("window.__followers.forEach((f) => f.stop())")
    finally:
        driver.quit()
    polls = [uri for uri, _, _ in cache.access_log() if uri.startswith(f"/v1/lists/{lid}/diff")]
    followed = [uri for uri in polls if "cursor=" in uri]
    assert followed and all(uri.startswith(f"/v1/lists/{lid}/diff?from=") and "&wait=5&cursor=" in uri for uri in followed)
    # The browser's own cache already collapses its four followers' identical polls (they share it, and follow the
    # same URLs); nginx lets at most what it received through.
    assert len(polls) < 4 * 6
    assert 1 <= requests_to_origin(origin, DIFF_ROUTE) - before <= len(polls)


def test_listdelta_kit_follows_next_through_the_cache(origin, cache):
    from test_swift_follower import FOLLOW, _read_until
    import subprocess
    from pathlib import Path

    if not Path(FOLLOW).exists():
        pytest.fail(f"listdelta-follow not found at {FOLLOW} (swift build --product listdelta-follow)")
    lid = uid("kit")
    origin.put(lid, doc_of(["a"]))
    proc = subprocess.Popen([FOLLOW, cache.url(""), lid, "--mode", "poll", "--count", "4", "--wait", "5"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _read_until(proc, "revision 1: first document")
        for n in range(3):
            origin.put(lid, doc_of(["a"] + [f"k{m}" for m in range(n + 1)]))
            _read_until(proc, f"revision {n + 2}: diff from {n + 1}")
        proc.stdout.read()
        proc.wait(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 0, proc.stderr.read()
    polls = [uri for uri, _, _ in cache.access_log() if uri.startswith(f"/v1/lists/{lid}/diff")]
    assert polls[0] == f"/v1/lists/{lid}/diff?from=1&wait=5"
    assert all("&cursor=" in uri for uri in polls[1:]) and len(polls) >= 3, polls
