"""compose.yaml as a deployment: PostgreSQL, two instances on it and nginx in front, started in order of health
with secrets from the environment; then a rolling restart under writers and 500 followers loses nothing."""

import secrets
import threading
import time

import pytest
import requests

from compose import ComposeError, ComposeProject
from conftest import REPO, TOKEN, Figures, free_port, wait_healthy, wait_until
from rollout_load import Follower, Tally, Writer

COMPOSE = REPO / "compose.yaml"
FOLLOWERS = 500
LISTS = 10


@pytest.fixture(scope="module")
def deployment(image):
    port = free_port()
    project = ComposeProject(COMPOSE, {"POSTGRES_PASSWORD": secrets.token_hex(16), "LISTDELTA_WRITE_TOKENS": TOKEN,
                                       "LISTDELTA_PUBLISH": f"127.0.0.1:{port}"})
    project.down()  # what a failed earlier run may have left
    try:
        started = project.up()
        base = f"http://127.0.0.1:{port}"
        wait_healthy(base, timeout=60)
        yield project, base, started
    finally:
        project.down()


def test_compose_refuses_to_start_without_its_secrets():
    with pytest.raises(ComposeError, match="POSTGRES_PASSWORD"):
        ComposeProject(COMPOSE, {"POSTGRES_PASSWORD": "", "LISTDELTA_WRITE_TOKENS": TOKEN})
    with pytest.raises(ComposeError, match="LISTDELTA_WRITE_TOKENS"):
        ComposeProject(COMPOSE, {"POSTGRES_PASSWORD": "x", "LISTDELTA_WRITE_TOKENS": ""})


def test_the_deployment_starts_in_order_of_health_and_serves_through_nginx(deployment):
    project, base, started = deployment
    assert started.index("postgres") < started.index("listdelta-a") < started.index("nginx")
    assert started.index("listdelta-b") < started.index("nginx")
    for service in started:
        assert project.healthy(service), service
    auth = {"Authorization": f"Bearer {TOKEN}"}
    lid = f"compose-{secrets.token_hex(4)}"
    r = requests.put(f"{base}/v1/lists/{lid}", json={"kind": "array", "items": [{"id": "a"}]}, headers=auth, timeout=10)
    assert r.status_code == 201, r.text
    # long polls held by either instance are woken by writes through either (nginx alternates between them)
    for revision in (1, 2, 3, 4):
        answer = {}

        def poll():
            # As a client polls: an empty answer (the poll's cursor interval ended first) is followed by its `next`.
            url = f"{base}/v1/lists/{lid}/diff?from={revision}&wait=20"
            while True:
                answer["poll"] = requests.get(url, timeout=30)
                if answer["poll"].status_code != 200 or answer["poll"].json()["to"] != revision:
                    return
                url = requests.compat.urljoin(base, answer["poll"].links["next"]["url"])

        thread = threading.Thread(target=poll)
        thread.start()
        time.sleep(0.3)
        r = requests.put(f"{base}/v1/lists/{lid}", json={"kind": "array", "items": [{"id": f"v{revision}"}]},
                         headers=auth, timeout=10)
        assert r.status_code == 200 and r.json()["revision"] == revision + 1, r.text
        thread.join(10)
        assert answer["poll"].status_code == 200, answer["poll"].text
        assert (answer["poll"].json()["from"], answer["poll"].json()["to"]) == (revision, revision + 1)
    # the writes are in PostgreSQL: both instances serve them
    for service in ("listdelta-a", "listdelta-b"):
        assert "opening the PostgreSQL store" in project.logs(service)


def test_a_rolling_restart_loses_no_write_and_every_follower_converges(deployment):
    project, base, _ = deployment
    run = secrets.token_hex(3)
    lists = [f"roll-{run}-{k}" for k in range(LISTS)]
    tally, stop = Tally(), threading.Event()
    finals = {}
    writers = [Writer(base, TOKEN, lists[k::5], tally, stop) for k in range(5)]
    for writer in writers:
        writer.start()
    wait_until(lambda: all(writer.acknowledged for writer in writers), 30, "the writers wrote nothing")
    followers = [Follower(base, lists[k % LISTS], "poll" if k % 2 else "stream", tally, stop, finals)
                 for k in range(FOLLOWERS)]
    for follower in followers:
        follower.start()
    wait_until(lambda: all(f.doc is not None for f in followers), 60,
               lambda: f"{sum(f.doc is None for f in followers)} followers never got their document")
    time.sleep(2)

    drains = []
    for service in ("listdelta-a", "listdelta-b"):
        print(f"\n{time.strftime('%H:%M:%S')} restarting {service}", flush=True)
        took, code = project.restart(service)
        print(f"{time.strftime('%H:%M:%S')} {service} healthy again", flush=True)
        # Exit status 0 is the proof that it stopped on its own within stop_grace_period (podman kills it after,
        # which is 137); `took` adds podman's own time, which on a loaded machine has been half a minute.
        assert code == 0, f"{service} exited {code} on SIGTERM: {project.logs(service)[-2000:]}"
        drains.append(took)
        time.sleep(2)  # traffic flows to the restarted instance before the other one goes

    stop.set()
    for writer in writers:
        writer.join(30)
    written = [w for writer in writers for w in writer.acknowledged]
    for lid in lists:
        finals[lid] = max(revision for l, revision, _ in written if l == lid)

    # every acknowledged write is there, with what it wrote
    lost = 0
    session = requests.Session()
    for lid, revision, items in written:
        r = session.get(f"{base}/v1/lists/{lid}", params={"revision": revision}, timeout=10)
        if r.status_code != 200 or [i["id"] for i in r.json()["sections"][0]["items"]] != items:
            lost += 1
    final_docs = {lid: session.get(f"{base}/v1/lists/{lid}", timeout=10).json() for lid in lists}
    for lid in lists:
        assert final_docs[lid]["revision"] == finals[lid], f"{lid} moved past its last acknowledged write"

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not all(f.converged(final_docs[f.lid]) for f in followers):
        time.sleep(0.2)
    converged = sum(f.converged(final_docs[f.lid]) for f in followers)
    Figures.values["rollout"] = (f"writes={len(written)} lost={lost} followers={FOLLOWERS} converged={converged} "
                                 f"client_errors={len(tally.errors)} drain_s={max(drains):.2f}")
    print(f"\nrollout {Figures.values['rollout']} (503 with Retry-After, retried: {tally.retried_503})")
    if lost or tally.errors or converged != FOLLOWERS:
        print("first errors:", *tally.errors[:5], "last errors:", *tally.errors[-5:], sep="\n  ")
        for service in ("nginx", "listdelta-a", "listdelta-b"):
            print(f"--- {service}:\n{project.logs(service)[-3000:]}")
    assert lost == 0
    assert converged == FOLLOWERS
    assert not tally.errors, tally.errors[:10]
