"""Writers and followers for the rolling-restart test, on threads, through one base URL (nginx).

Writers PUT their own lists and record every acknowledged revision with the items it left. Followers fetch a list
and follow it by long polls or by its event stream, applying each batch diff to their copy. Every answer a client
gets is classified: an answer (2xx, or 410 asking for a refetch), a 503 with `Retry-After` (the client waits that
long and tries again), or a client error (anything else, a broken connection included), which the test counts."""

import json
import random
import threading
import time

import requests

from listdelta_apply import apply_batch_diff, canon_sections


class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.errors = []
        self.retried_503 = 0

    def error(self, what):
        with self.lock:
            self.errors.append(f"{time.strftime('%H:%M:%S')}.{int(time.time() * 1000) % 1000:03d} {what}")

    def retry_after(self, response):
        """True (after waiting as told) for a 503 with Retry-After; False for any other answer."""
        if response.status_code == 503 and response.headers.get("Retry-After"):
            with self.lock:
                self.retried_503 += 1
            time.sleep(min(float(response.headers["Retry-After"]), 1.0) * random.uniform(0.2, 1.0))
            return True
        return False


def document(items):
    return {"kind": "array", "title": "Rollout", "items": [{"id": i, "model": {"v": i}} for i in items]}


class Writer(threading.Thread):
    def __init__(self, base, token, lists, tally, stop, pause=0.03):
        super().__init__(daemon=True)
        self.base, self.lists, self.tally, self.stop = base, lists, tally, stop
        self.headers = {"Authorization": f"Bearer {token}"}
        self.pause = pause
        self.acknowledged = []  # (list, revision, items)

    def run(self):
        session = requests.Session()
        step = 0
        while not self.stop.is_set():
            lid = self.lists[step % len(self.lists)]
            items = [f"w{step}-{k}" for k in range(step % 5 + 1)]
            while True:
                try:
                    r = session.put(f"{self.base}/v1/lists/{lid}", json=document(items), headers=self.headers, timeout=30)
                except requests.RequestException as error:
                    self.tally.error(f"write {lid}: {error!r}")
                    session = requests.Session()
                    time.sleep(0.2)
                    break
                if r.status_code in (200, 201):
                    self.acknowledged.append((lid, r.json()["revision"], items))
                    break
                if not self.tally.retry_after(r):
                    self.tally.error(f"write {lid}: {r.status_code} {r.text[:200]}")
                    break
            step += 1
            time.sleep(self.pause)


class Follower(threading.Thread):
    """Follows one list until `stop` is set and its copy is at `finals[list]`."""

    def __init__(self, base, lid, mode, tally, stop, finals):
        super().__init__(daemon=True)
        self.base, self.lid, self.mode, self.tally, self.stop, self.finals = base, lid, mode, tally, stop, finals
        self.doc = None
        self.session = requests.Session()

    def done(self):
        final = self.finals.get(self.lid)
        return self.stop.is_set() and final is not None and self.doc is not None and self.doc["revision"] >= final

    def get(self, path, **kw):
        """GET with the rules above: the response, or None after a 503 (waited) or an error (counted)."""
        try:
            r = self.session.get(f"{self.base}{path}", timeout=40, **kw)
        except requests.RequestException as error:
            self.tally.error(f"{self.mode} {path}: {error!r}")
            self.session = requests.Session()
            time.sleep(0.2)
            return None
        if r.status_code == 503 and self.tally.retry_after(r):
            return None
        return r

    def fetch(self):
        while not self.done():
            r = self.get(f"/v1/lists/{self.lid}")
            if r is None:
                continue
            if r.status_code == 200:
                self.doc = r.json()
                return
            if r.status_code == 404:  # not written yet
                time.sleep(0.1)
                continue
            self.tally.error(f"document {self.lid}: {r.status_code}")
            time.sleep(0.2)

    def apply(self, diff):
        if diff["from"] != self.doc["revision"]:
            return False
        if diff["to"] != diff["from"]:
            self.doc = {**apply_batch_diff(self.doc, diff), "revision": diff["to"]}
        return True

    def run(self):
        self.fetch()
        while not self.done():
            if self.mode == "poll":
                self.poll_once()
            else:
                self.stream_once()

    def poll_once(self):
        r = self.get(f"/v1/lists/{self.lid}/diff", params={"from": self.doc["revision"], "wait": 5})
        if r is None:
            return
        if r.status_code == 200:
            if not self.apply(r.json()):
                self.fetch()
        elif r.status_code == 410:
            self.fetch()
        else:
            self.tally.error(f"poll {self.lid}: {r.status_code} {r.text[:80]!r}")
            time.sleep(0.2)

    def stream_once(self):
        r = self.get(f"/v1/lists/{self.lid}/events", params={"from": self.doc["revision"]}, stream=True)
        if r is None:
            return
        if r.status_code != 200:
            self.tally.error(f"stream {self.lid}: {r.status_code}")
            time.sleep(0.2)
            return
        event, data = None, None
        try:
            for line in r.iter_lines(decode_unicode=True):
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    data = line[6:]
                elif line == "" and event:
                    if event == "diff" and not self.apply(json.loads(data)):
                        self.fetch()
                        break
                    if event == "reset":
                        self.fetch()
                        break
                    event, data = None, None
                    if self.done():
                        break
        except requests.RequestException as error:
            # A stream that ends when its instance stops is an answer; one cut in the middle of an event is not.
            if event is not None:
                self.tally.error(f"stream {self.lid} cut mid-event: {error!r}")
        finally:
            r.close()

    def converged(self, final_doc):
        return self.doc is not None and self.doc["revision"] == final_doc["revision"] and \
            canon_sections(self.doc) == canon_sections(final_doc)
