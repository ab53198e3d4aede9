#!/usr/bin/env python3
"""Crash safety: write at full speed, SIGKILL the server at random moments, restart, check.

Every round (bounded: --rounds, default 5, at most 100):
  1. start `listdelta serve` on the same temporary data directory (large --retention, nothing is pruned),
  2. one writer thread per list (--lists, default 4) sends PUTs and JSON Patches at full speed, each a random
     edit of the document it last saw acknowledged, and records every acknowledged (list, revision, content),
  3. after a random 0.5-2 s the server is killed with SIGKILL,
  4. it is started again and every revision acknowledged so far (all rounds) is fetched with
     GET /v1/lists/{id}?revision=N and compared with what was written; then batch diffs between random pairs of
     acknowledged revisions (and from 0) are replayed with the normative procedure (Tests/e2e/listdelta_apply.py)
     on document a and compared with document b.

Prints one line per round and finally exactly
  crash rounds=<n> revisions_checked=<k> losses=<l> replay_failures=<f>
and exits 1 when anything was lost or failed to replay (2 on a setup error).

Binary: $LISTDELTA_BIN, default .build/release/listdelta (built with `swift build -c release --product listdelta`
when missing). Loopback only.
"""

import argparse
import atexit
import copy
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests" / "e2e"))
from listdelta_apply import apply_batch_diff, apply_json_patch, canon_sections, json_equal  # noqa: E402

SERVERS = []  # every Popen we started, killed at exit


def kill_all():
    for p in SERVERS:
        if p.poll() is None:
            p.kill()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                pass


atexit.register(kill_all)
for _sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(_sig, lambda *_: (kill_all(), os._exit(3)))


def binary():
    b = os.environ.get("LISTDELTA_BIN")
    if b:
        return b
    b = REPO / ".build" / "release" / "listdelta"
    if not b.exists():
        print("building the release binary ...", flush=True)
        subprocess.run(["swift", "build", "-c", "release", "--product", "listdelta"], cwd=REPO, check=True,
                       timeout=3600)
    return str(b)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, bin_path, data_dir, log_path):
        self.bin = bin_path
        self.data = data_dir
        self.log_path = log_path
        self.proc = None
        self.port = None

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def start(self):
        self.port = free_port()
        log = open(self.log_path, "ab")
        cmd = [self.bin, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--data", self.data,
               "--retention", "10000000"]
        self.proc = subprocess.Popen(cmd, stdout=log, stderr=log)
        log.close()
        SERVERS.append(self.proc)
        t0 = time.monotonic()
        deadline = t0 + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}; see {self.log_path}")
            try:
                if requests.get(self.url("/healthz"), timeout=1).status_code == 200:
                    return time.monotonic() - t0
            except requests.RequestException:
                pass
            time.sleep(0.05)
        raise RuntimeError("server not ready in 60 s")

    def kill9(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)


# ---------------------------------------------------------------------------
# random edits of {"sections": [...]}


class Editor:
    def __init__(self, rnd, tag):
        self.rnd = rnd
        self.tag = tag
        self.counter = 0

    def nid(self, prefix):
        self.counter += 1
        return f"{prefix}{self.tag}-{self.counter}-{self.rnd.randrange(1 << 30):x}"

    def item(self):
        r = self.rnd.random()
        model = {"n": self.counter, "text": "x" * self.rnd.randrange(0, 40)}
        if r < 0.2:
            model = [self.counter, True, None, 1.5, {"k": "v"}]
        elif r < 0.3:
            model = "é ü 日本 " + str(self.counter)
        return {"id": self.nid("i"), "type": None, "cell": None, "model": model}

    def section(self):
        title = self.rnd.choice([None, "Title " + str(self.counter), "Ändern"])
        return {"id": self.nid("s"), "title": title, "indexTitle": title[0] if title else None,
                "items": [self.item() for _ in range(self.rnd.randrange(0, 4))]}

    def initial(self):
        return {"sections": [self.section() for _ in range(self.rnd.randrange(1, 4))]}

    def all_items(self, doc):
        return [(s, i) for s, sec in enumerate(doc["sections"]) for i in range(len(sec["items"]))]

    def put_edit(self, doc):
        """A new document that differs from doc (1-4 random edits, always one model change)."""
        doc = copy.deepcopy(doc)
        secs = doc["sections"]
        for _ in range(self.rnd.randrange(1, 5)):
            op = self.rnd.random()
            items = self.all_items(doc)
            total = len(items)
            if op < 0.25 and total < 40:
                s = self.rnd.randrange(len(secs))
                secs[s]["items"].insert(self.rnd.randrange(len(secs[s]["items"]) + 1), self.item())
            elif op < 0.4 and items:
                s, i = self.rnd.choice(items)
                del secs[s]["items"][i]
            elif op < 0.6 and items:
                s, i = self.rnd.choice(items)
                it = secs[s]["items"].pop(i)
                t = self.rnd.randrange(len(secs))
                secs[t]["items"].insert(self.rnd.randrange(len(secs[t]["items"]) + 1), it)
            elif op < 0.7:
                s = self.rnd.randrange(len(secs))
                title = "T" + self.nid("")
                secs[s]["title"], secs[s]["indexTitle"] = title, title[0]
            elif op < 0.8 and len(secs) < 6:
                secs.insert(self.rnd.randrange(len(secs) + 1), self.section())
            elif op < 0.87 and len(secs) > 1:
                del secs[self.rnd.randrange(len(secs))]
            elif len(secs) > 1:
                sec = secs.pop(self.rnd.randrange(len(secs)))
                secs.insert(self.rnd.randrange(len(secs) + 1), sec)
        items = self.all_items(doc)
        if items:
            s, i = self.rnd.choice(items)
            secs[s]["items"][i]["model"] = {"n": self.nid("m")}
        else:
            secs[0]["items"].append(self.item())
        return doc

    def patch_ops(self, doc):
        """A JSON Patch that changes doc."""
        ops = []
        items = self.all_items(doc)
        if items:
            s, i = self.rnd.choice(items)
            ops.append({"op": "replace", "path": f"/sections/{s}/items/{i}/model", "value": {"p": self.nid("m")}})
        r = self.rnd.random()
        if r < 0.4 and len(items) < 40:
            s = self.rnd.randrange(len(doc["sections"]))
            ops.append({"op": "add", "path": f"/sections/{s}/items/-", "value": self.item()})
        elif r < 0.6 and len(items) > 1:
            s, i = self.rnd.choice(items)
            ops.append({"op": "remove", "path": f"/sections/{s}/items/{i}"})
        elif r < 0.8 and len(items) > 1:
            s, i = self.rnd.choice(items)
            t = self.rnd.randrange(len(doc["sections"]))
            ops.append({"op": "move", "from": f"/sections/{s}/items/{i}", "path": f"/sections/{t}/items/0"})
        else:
            s = self.rnd.randrange(len(doc["sections"]))
            ops.append({"op": "replace", "path": f"/sections/{s}/title", "value": "P" + self.nid("")})
        if not items:
            ops.append({"op": "add", "path": "/sections/0/items/-", "value": self.item()})
        return ops


# ---------------------------------------------------------------------------


def writer(server, lid, editor, start_doc, acked, errors, stop, max_writes):
    """Writes until the server goes away (or stop / max_writes); records acknowledged revisions."""
    sess = requests.Session()
    doc = start_doc
    for _ in range(max_writes):
        if stop.is_set():
            return
        try:
            if doc is not None and editor.rnd.random() < 0.3:
                ops = editor.patch_ops(doc)
                nxt = {"sections": canon_sections(apply_json_patch(doc, ops))}
                r = sess.patch(server.url(f"/v1/lists/{lid}"), data=json.dumps(ops),
                               headers={"Content-Type": "application/json-patch+json"}, timeout=10)
            else:
                nxt = editor.put_edit(doc) if doc is not None else editor.initial()
                nxt = {"sections": canon_sections(nxt)}
                body = {"kind": "sections", "sections": nxt["sections"]}
                r = sess.put(server.url(f"/v1/lists/{lid}"), data=json.dumps(body),
                             headers={"Content-Type": "application/json"}, timeout=10)
        except requests.RequestException:
            return  # the server was killed under us: this write is not acknowledged
        if r.status_code not in (200, 201):
            errors.append(f"{lid}: write answered {r.status_code}: {r.text[:300]}")
            return
        try:
            rev = r.json()["revision"]
        except (ValueError, KeyError):
            return  # a truncated answer is no acknowledgement
        acked.append((lid, rev, nxt))
        doc = nxt


def get_json(sess, url, params=None):
    for attempt in range(3):
        try:
            r = sess.get(url, params=params, timeout=30)
            return r.status_code, (r.json() if r.headers.get("Content-Type", "").find("json") >= 0 else r.text)
        except (requests.RequestException, ValueError) as e:
            last = e
            time.sleep(0.2)
    return None, repr(last)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--lists", type=int, default=4)
    ap.add_argument("--pairs", type=int, default=40, help="random diff pairs replayed per list and round")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--keep", action="store_true", help="keep the data directory")
    a = ap.parse_args()
    rounds = max(1, min(a.rounds, 100))
    nlists = max(1, min(a.lists, 64))
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    rnd = random.Random(seed)
    bin_path = binary()
    tmp = tempfile.mkdtemp(prefix="listdelta-crash-")
    data = os.path.join(tmp, "data")
    os.mkdir(data)
    log_path = os.path.join(tmp, "server.log")
    print(f"crash-test: binary={bin_path} data={data} seed={seed} rounds={rounds} lists={nlists}", flush=True)

    lists = [f"crash-{k}" for k in range(nlists)]
    editors = {lid: Editor(random.Random(rnd.randrange(1 << 30)), k) for k, lid in enumerate(lists)}
    known = {}  # (lid, rev) -> {"sections": ...}, every acknowledged revision so far
    losses = 0
    replay_failures = 0
    checked_total = 0
    problems = []
    server = Server(bin_path, data, log_path)
    sess = requests.Session()
    try:
        for rnum in range(1, rounds + 1):
            boot = server.start()
            # each writer continues from the list's current document (an unacknowledged write may have committed)
            starts = {}
            for lid in lists:
                st, body = get_json(sess, server.url(f"/v1/lists/{lid}"))
                starts[lid] = {"sections": canon_sections(body)} if st == 200 else None
            acked, errors, stop = [], [], threading.Event()
            threads = [threading.Thread(target=writer, daemon=True,
                                        args=(server, lid, editors[lid], starts[lid], acked, errors, stop, 200000))
                       for lid in lists]
            for t in threads:
                t.start()
            delay = rnd.uniform(0.5, 2.0)
            time.sleep(delay)
            server.kill9()
            stop.set()
            for t in threads:
                t.join(30)
            if any(t.is_alive() for t in threads):
                problems.append(f"round {rnum}: a writer did not stop")
            problems += [f"round {rnum}: {e}" for e in errors]
            for lid, rev, doc in acked:
                if (lid, rev) in known:
                    problems.append(f"round {rnum}: {lid} revision {rev} acknowledged twice")
                    losses += 1  # an acknowledged revision was overwritten: the earlier one is lost
                known[(lid, rev)] = doc

            boot2 = server.start()
            # 1. every acknowledged revision is served again, as written
            round_losses = 0
            per_list = {}
            for (lid, rev), want in sorted(known.items()):
                st, body = get_json(sess, server.url(f"/v1/lists/{lid}"), {"revision": rev})
                if st != 200 or body.get("revision") != rev or not json_equal(canon_sections(body), want["sections"]):
                    round_losses += 1
                    if len(problems) < 50:
                        problems.append(f"round {rnum}: LOST {lid}@{rev}: status {st} "
                                        f"{json.dumps(body)[:300] if st == 200 else body}")
                else:
                    per_list.setdefault(lid, {})[rev] = body
            for lid in lists:
                st, body = get_json(sess, server.url(f"/v1/lists/{lid}"))
                revs = [r for (l2, r) in known if l2 == lid]
                if revs and (st != 200 or body.get("revision", 0) < max(revs)):
                    round_losses += 1
                    problems.append(f"round {rnum}: {lid} current revision {body.get('revision') if st == 200 else st}"
                                    f" < acknowledged {max(revs)}")
            losses += round_losses
            checked_total = len(known)
            # 2. batch diffs between random pairs of acknowledged revisions replay
            round_replay = 0
            pairs = 0
            for lid, docs in per_list.items():
                revs = [0] + sorted(docs)
                for _ in range(a.pairs):
                    x, y = rnd.choice(revs), rnd.choice(revs[1:])
                    if rnd.random() < 0.3:
                        x, y = rnd.choice(revs[1:]), rnd.choice(revs)
                    if y == 0:
                        continue
                    pairs += 1
                    st, diff = get_json(sess, server.url(f"/v1/lists/{lid}/diff"), {"from": x, "to": y})
                    try:
                        if st != 200:
                            raise AssertionError(f"status {st}: {str(diff)[:200]}")
                        got = apply_batch_diff(docs.get(x), diff)
                        if not json_equal(got["sections"], canon_sections(docs[y])):
                            raise AssertionError("result differs from the target document")
                    except AssertionError as e:
                        round_replay += 1
                        if len(problems) < 50:
                            problems.append(f"round {rnum}: REPLAY {lid} {x}->{y}: {e}")
            replay_failures += round_replay
            wrote = len(acked)
            print(f"round {rnum}: killed after {delay:.2f} s, acknowledged {wrote} writes this round "
                  f"({wrote / delay:.0f}/s), restart {boot2 * 1000:.0f} ms; checked {len(known)} revisions "
                  f"(losses {round_losses}), replayed {pairs} diffs (failures {round_replay})", flush=True)
            server.kill9()
    except Exception as e:  # noqa: BLE001 - report and exit 2
        kill_all()
        print(f"crash-test: setup error: {e!r}", flush=True)
        for p in problems[:50]:
            print("  " + p)
        print(f"crash rounds=0 revisions_checked={checked_total} losses={losses} replay_failures={replay_failures}")
        sys.exit(2)
    finally:
        kill_all()
    for p in problems[:50]:
        print("  " + p)
    print(f"crash rounds={rounds} revisions_checked={checked_total} losses={losses} replay_failures={replay_failures}",
          flush=True)
    if not a.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        print(f"data kept in {tmp}")
    sys.exit(1 if (losses or replay_failures or problems) else 0)


if __name__ == "__main__":
    main()
