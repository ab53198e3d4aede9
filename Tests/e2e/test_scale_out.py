"""Several instances on one PostgreSQL database (issue 12): wake-ups across instances, one truth for revisions,
durability when an instance is killed, and behaviour while the database is down.

Needs the throwaway cluster scripts/test.sh starts (LISTDELTA_TEST_POSTGRES_DIR)."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from conftest import held_diff_poll, assert_problem, metric, sections_doc, uid
from listdelta_apply import apply_batch_diff, canon_sections

pg_support = pytest.importorskip("pg_support")
if pg_support.cluster_dir() is None:
    pytest.skip("no PostgreSQL cluster (scripts/test.sh starts one)", allow_module_level=True)


@pytest.fixture
def pair(make_server):
    """Two instances on one fresh database."""
    url = pg_support.new_database_url()
    return make_server(["--database-url", url]), make_server(["--database-url", url])


def doc(n, extra=()):
    return sections_doc(("s", f"T{n}", [{"id": "first", "cell": "C", "model": {"n": n}}, *extra]))


def test_a_write_on_one_instance_wakes_a_long_poll_on_the_other_within_a_second(pair):
    a, b = pair
    lid = uid()
    rev = a.put(lid, doc(1)).json()["revision"]
    t, result = held_diff_poll(b, lid, rev)
    time.sleep(1.0)
    assert t.is_alive(), f"the poll answered before any write: {result}"
    wrote = a.put(lid, doc(2, ["x"]))
    assert wrote.status_code == 200
    written_at = time.monotonic()
    t.join(10)
    assert result.get("status") == 200, result
    assert result["at"] - written_at < 1.0, result["at"] - written_at
    assert (result["body"]["from"], result["body"]["to"]) == (rev, rev + 1)
    assert len(result["body"]["items"]["inserted"]) == 1


def test_polls_woken_on_the_other_instance_share_one_rendering_of_the_new_revision(pair):
    a, b = pair
    lid = uid()
    rev = a.put(lid, doc(1)).json()["revision"]
    polls = [held_diff_poll(b, lid, rev) for _ in range(40)]
    deadline = time.monotonic() + 10
    while metric(b, "listdelta_parked_polls") != 40:
        assert time.monotonic() < deadline, f"parked: {metric(b, 'listdelta_parked_polls')}"
        time.sleep(0.05)
    rendered_before = metric(b, "listdelta_remote_revisions_rendered_total") or 0
    assert a.put(lid, doc(2, [{"id": "x", "cell": "C", "model": {}}])).status_code == 200
    bodies = []
    for thread, result in polls:
        thread.join(10)
        assert result.get("status") == 200, result
        bodies.append(result["body"])
    assert all(body == bodies[0] for body in bodies)
    assert (bodies[0]["from"], bodies[0]["to"]) == (rev, rev + 1)
    before = a.get(f"/v1/lists/{lid}", params={"revision": rev}).json()
    assert apply_batch_diff(before, bodies[0]) == {"sections": canon_sections(a.get(f"/v1/lists/{lid}").json())}
    # One rendering on b for the forty watchers; a revision nobody on b watches is not rendered at all.
    assert metric(b, "listdelta_remote_revisions_rendered_total") == rendered_before + 1
    assert a.put(lid, doc(3)).status_code == 200
    time.sleep(0.5)
    assert metric(b, "listdelta_remote_revisions_rendered_total") == rendered_before + 1


def test_an_event_stream_sees_every_revision_written_through_both_instances_in_order_once(pair):
    a, b = pair
    lid = uid()
    first = a.put(lid, doc(0)).json()["revision"]
    stream = b.sse(f"/v1/lists/{lid}/events?from={first}", timeout=20)
    try:
        assert stream.status == 200
        time.sleep(0.3)
        expected = {first: canon_sections(doc(0))}
        for n in range(1, 21):
            writer = a if n % 2 else b
            body = doc(n, [f"i{j}" for j in range(n % 4)])
            r = writer.put(lid, body, headers={"If-Match": f'"{first + n - 1}"'})
            assert r.status_code == 200, r.text
            expected[first + n] = canon_sections(body)
        current = doc(0)
        seen = []
        while len(seen) < 20:
            event = stream.next_event(timeout=10)
            assert event is not None and event["event"] == "diff", event
            diff = __import__("json").loads(event["data"])
            seen.append((diff["from"], diff["to"], int(event["id"])))
            current = apply_batch_diff(current, diff)
            assert canon_sections(current) == expected[diff["to"]]
        assert seen == [(first + n - 1, first + n, first + n) for n in range(1, 21)]
    finally:
        stream.close()


def test_of_eight_racing_if_match_writers_over_both_instances_exactly_one_wins(pair):
    a, b = pair
    for round_ in range(3):
        lid = uid()
        rev = a.put(lid, doc(0)).json()["revision"]

        def write(i):
            server = (a, b)[i % 2]
            return server.put(lid, doc(100 + i, [f"w{i}"]), headers={"If-Match": f'"{rev}"'})

        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(write, range(8)))
        statuses = sorted(r.status_code for r in answers)
        assert statuses == [200] + [412] * 7, [(r.status_code, r.text[:200]) for r in answers]
        for r in answers:
            if r.status_code == 412:
                assert assert_problem(r, 412)["current"] == rev + 1
        winner = next(r for r in answers if r.status_code == 200)
        assert winner.json()["revision"] == rev + 1
        for server in (a, b):
            assert server.doc(lid)["revision"] == rev + 1


def test_unconditional_writes_racing_over_both_instances_all_land_without_gaps(pair):
    a, b = pair
    lid = uid()
    a.put(lid, doc(0))

    def write(i):
        return (a, b)[i % 2].put(lid, doc(i, [f"u{i}"]))

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(write, range(1, 25)))
    assert all(r.status_code == 200 for r in answers), [(r.status_code, r.text[:200]) for r in answers if r.status_code != 200]
    revisions = sorted(r.json()["revision"] for r in answers)
    assert revisions == list(range(2, 26))
    history = b.get(f"/v1/lists/{lid}/revisions", params={"limit": 100}).json()
    assert [h["revision"] for h in history["revisions"]] == list(range(25, 0, -1))


def test_writers_on_both_instances_hammering_one_list_all_land_and_neither_is_starved(pair):
    # One instance answers a write in one database round trip (it knows the head and has the document); the
    # other, which lost the last race, must read them first and would lose every race for as long as the first
    # one's client keeps writing. After a few lost races it takes its turn on the list, so every write lands.
    a, b = pair
    lid = uid()
    a.put(lid, doc(0))
    answers = {"a": [], "b": []}
    stop = threading.Event()

    def hammer(server, tag):
        i = 0
        while not stop.is_set():
            i += 1
            r = server.put(lid, doc(i, [f"{tag}{i}"]))
            answers[tag].append((r.status_code, r.json().get("revision") if r.status_code == 200 else r.text[:200]))

    threads = [threading.Thread(target=hammer, args=(s, t), daemon=True) for s, t in ((a, "a"), (b, "b"))]
    for t in threads:
        t.start()
    time.sleep(4.0)
    stop.set()
    for t in threads:
        t.join(20)
    every = answers["a"] + answers["b"]
    assert all(status == 200 for status, _ in every), [a for a in every if a[0] != 200][:5]
    assert len(answers["a"]) >= 20 and len(answers["b"]) >= 20, (len(answers["a"]), len(answers["b"]))
    revisions = sorted(revision for _, revision in every)
    assert revisions == list(range(2, 2 + len(every)))


def test_a_revision_just_written_on_one_instance_is_served_by_the_other(pair):
    a, b = pair
    lid = uid()
    a.put(lid, doc(0))
    b.doc(lid)  # b caches the head at revision 1
    for n in range(1, 6):
        rev = a.put(lid, doc(n, ["new"])).json()["revision"]
        # At once, before b may have been told: b consults the database instead of answering 410.
        r = b.get(f"/v1/lists/{lid}/diff", params={"from": rev})
        assert r.status_code == 200, r.text
        assert (r.json()["from"], r.json()["to"]) == (rev, rev)
        r = b.get(lid, params={"revision": rev})
        assert r.status_code == 200 and r.json()["revision"] == rev
        r = b.get("/v1/diffs", params={"lists": f"{lid}:{rev}"})
        assert r.status_code == 200, r.text


def test_a_source_attached_on_one_instance_stops_direct_writes_on_the_other(make_server, tmp_path):
    # The other instance remembers which lists have no source (a direct write need not ask the database each
    # time): an attach announced by the first must end that at once.
    url = pg_support.new_database_url()
    env = {"LISTDELTA_SOURCE_DIRECTORY": str(tmp_path)}
    a, b = make_server(["--database-url", url], env=env), make_server(["--database-url", url], env=env)
    lid = uid()
    for n in range(3):
        assert b.put(lid, doc(n)).status_code in (200, 201)
    feed = tmp_path / "list.json"
    feed.write_text('{"kind": "sections", "sections": [{"id": "s", "items": [{"id": "from-source", "cell": "C", "model": {}}]}]}')
    attached = a.request("PUT", f"/v1/lists/{lid}/source", json={"url": feed.as_uri()})
    assert attached.status_code == 201, attached.text
    deadline = time.monotonic() + 5
    while True:
        r = b.put(lid, doc(9))
        if r.status_code == 409:
            break
        assert r.status_code == 200 and time.monotonic() < deadline, (r.status_code, r.text[:300])
        time.sleep(0.05)
    assert "fed by a source" in assert_problem(r, 409)["detail"]
    # Detached through the first instance: the second takes direct writes again.
    assert a.request("DELETE", f"/v1/lists/{lid}/source").status_code == 204
    assert b.put(lid, doc(10)).status_code == 200


def test_a_list_deleted_on_one_instance_is_gone_on_the_other(pair):
    a, b = pair
    lid = uid()
    a.put(lid, doc(0))
    assert b.doc(lid)["revision"] == 1
    stream = b.sse(f"/v1/lists/{lid}/events?from=1", timeout=10)
    try:
        time.sleep(0.3)
        assert a.delete(lid).status_code == 204
        event = stream.next_event(timeout=5)
        assert event["event"] == "reset" and __import__("json").loads(event["data"]) == {"current": 0}
    finally:
        stream.close()
    assert_problem(b.get(lid), 404)
    assert lid not in b.all_list_ids()
    # Created again through b: numbering continues after the tombstone, seen by a.
    assert b.put(lid, doc(5)).json()["revision"] == 2
    assert a.doc(lid)["revision"] == 2


def test_the_database_url_and_its_password_can_come_from_the_environment(make_server):
    url = pg_support.new_database_url()
    # postgres://listdelta:<password>@host:port/db?... : the password moves to LISTDELTA_DATABASE_PASSWORD.
    scheme, rest = url.split("://", 1)
    credentials, location = rest.split("@", 1)
    user, password = credentials.split(":", 1)
    a = make_server(env={"LISTDELTA_DATABASE_URL": f"{scheme}://{user}@{location}", "LISTDELTA_DATABASE_PASSWORD": password})
    b = make_server(["--database-url", url])
    lid = uid()
    assert a.put(lid, doc(1)).status_code == 201
    assert b.doc(lid)["revision"] == 1
    assert password not in a.output()


def test_instances_starting_at_once_on_an_empty_database_migrate_it_once(make_server):
    url = pg_support.new_database_url()
    with ThreadPoolExecutor(3) as pool:
        servers = list(pool.map(lambda _: make_server(["--database-url", url]), range(3)))
    lid = uid()
    assert servers[0].put(lid, doc(1)).status_code == 201
    for s in servers:
        assert s.doc(lid)["revision"] == 1


def test_kill9_of_one_instance_loses_no_acknowledged_revision(make_server):
    url = pg_support.new_database_url()
    a = make_server(["--database-url", url, "--retention", "100000"])
    b = make_server(["--database-url", url, "--retention", "100000"])
    lid = uid()
    acked = {}
    lock = threading.Lock()
    stop = threading.Event()

    def writer(server, tag):
        for i in range(1, 100000):
            if stop.is_set():
                return
            body = doc(i, [f"{tag}{i % 9}"])
            try:
                r = server.put(lid, body, timeout=10)
            except requests.RequestException:
                return
            if r.status_code in (200, 201):
                with lock:
                    acked[r.json()["revision"]] = canon_sections(body)

    threads = [threading.Thread(target=writer, args=(s, t), daemon=True) for s, t in ((a, "a"), (b, "b"))]
    for t in threads:
        t.start()
    time.sleep(3.0)
    a.kill9()
    time.sleep(1.0)
    stop.set()
    for t in threads:
        t.join(15)
    assert len(acked) > 20, len(acked)
    survivor = b
    head = survivor.doc(lid)["revision"]
    assert head >= max(acked)
    revisions = sorted(acked)
    for rev in revisions:
        assert canon_sections(survivor.doc(lid, rev)) == acked[rev], rev
    # Diffs between acknowledged revisions replay.
    for old, new in zip(revisions[::7], revisions[3::7]):
        d = survivor.diff(lid, old, new)
        assert canon_sections(apply_batch_diff(survivor.doc(lid, old), d)) == acked[new]


def test_while_postgresql_is_down_clients_get_503s_then_everything_acknowledged_is_there(make_server):
    url = pg_support.new_database_url()
    a = make_server(["--database-url", url])
    b = make_server(["--database-url", url])
    lid = uid()
    a.put(lid, doc(0))
    acked = {}
    answers = []
    lock = threading.Lock()
    stop = threading.Event()

    def load(server, tag):
        i = 0
        while not stop.is_set():
            i += 1
            body = doc(i, [f"{tag}{i}"])
            started = time.monotonic()
            try:
                r = server.put(lid, body, timeout=15)
            except requests.RequestException as e:
                with lock:
                    answers.append(("error", repr(e), time.monotonic() - started))
                continue
            with lock:
                answers.append((r.status_code, r.headers.get("Retry-After") if r.status_code == 503 else r.text[:300], time.monotonic() - started))
                if r.status_code in (200, 201):
                    acked[r.json()["revision"]] = canon_sections(body)
            if r.status_code == 503:
                time.sleep(0.2)

    threads = [threading.Thread(target=load, args=(s, t), daemon=True) for s, t in ((a, "a"), (b, "b"))]
    for t in threads:
        t.start()
    time.sleep(1.5)
    pg_support.pause()
    try:
        # Noticed by the first call that fails: at once when the connections break, at the latest when a call's
        # deadline (databaseTimeoutSeconds, 5 s) passes, or at the listener's next ping (2 s).
        noticed_by = time.monotonic() + 10
        health = a.get("/healthz")
        while health.status_code != 503 and time.monotonic() < noticed_by:
            time.sleep(0.2)
            health = a.get("/healthz")
        assert health.status_code == 503, health.text
        r = b.get(f"/v1/lists/{lid}/revisions")
        assert r.status_code in (200, 404, 503)
        down = b.get(lid, params={"revision": 1})
        assert down.status_code in (200, 503), down.text
        time.sleep(2.0)
    finally:
        pg_support.resume()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not all(s.get("/healthz").status_code == 200 for s in (a, b)):
        time.sleep(0.2)
    assert a.get("/healthz").status_code == 200 and b.get("/healthz").status_code == 200
    time.sleep(2.0)
    stop.set()
    for t in threads:
        t.join(20)
    statuses = {s for s, *_ in answers}
    assert 503 in statuses, statuses
    assert statuses <= {200, 503}, [a for a in answers if a[0] not in (200, 503)][:5]
    assert all(retry == "1" for s, retry, _ in answers if s == 503)
    assert max(took for *_, took in answers) < 12, max(took for *_, took in answers)
    # Everything acknowledged is there, on both instances, and new writes work.
    for server in (a, b):
        for rev, sections in sorted(acked.items())[-50:]:
            assert canon_sections(server.doc(lid, rev)) == sections
    after = a.put(lid, doc(999)).json()["revision"]
    assert b.doc(lid)["revision"] == after
