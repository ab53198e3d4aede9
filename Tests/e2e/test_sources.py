"""Lists fed by sources (docs/api.md, Sources): `PUT/GET/DELETE /v1/lists/{id}/source` against a feed server of the
test's own (http.server on 127.0.0.1, a free port) whose content the tests change between fetches and which
records every request it gets (its headers, when it began and ended).

The servers under test allow that feed server with LISTDELTA_SOURCE_HOSTS=127.0.0.1; the default host policy
(public addresses only) is checked on the suite's plain `server`. A fetch-now (a PUT of the same source) makes
every fetch happen when the test wants it; one test waits for a scheduled fetch (interval 1 s, on a server whose
LISTDELTA_SOURCE_MIN_INTERVAL is 1). The lease test needs the throwaway PostgreSQL cluster (as test_scale_out.py).
"""

import gzip
import json
import re
import threading
import time
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from xml.sax.saxutils import escape, quoteattr

import pytest

import pg_support
from conftest import held_diff_poll, Server, assert_problem, uid
from browser_support import wait_for
from listdelta_apply import apply_batch_diff, canon_sections

STATE_KEYS = {"url", "interval", "sections", "maxItems", "lastFetch", "lastError", "nextFetchAt", "consecutiveFailures"}
FETCH_KEYS = {"at", "status", "items", "bytes", "parseMs", "changed"}
MODEL_KEYS = {"title", "link", "summary", "content", "published", "updated", "authors", "categories", "enclosure"}
FETCH_TIMEOUT = 3  # LISTDELTA_SOURCE_TIMEOUT_SECONDS of the servers here: a slow feed fails in bounded time
ALLOW_LOOPBACK = {"LISTDELTA_SOURCE_HOSTS": "127.0.0.1", "LISTDELTA_SOURCE_TIMEOUT_SECONDS": str(FETCH_TIMEOUT)}


# ---------------------------------------------------------------------------
# The feed server


class FeedServer:
    """An HTTP server on 127.0.0.1 (or another loopback address) answering each path as `set` says, recording
    every request: {"path", "headers" (lower-case names), "start", "end", "status", "gzipped"}."""

    def __init__(self, host="127.0.0.1"):
        self.host = host
        self.routes = {}
        self.requests = []
        self.lock = threading.Lock()
        self.active = 0
        self.max_active = 0
        feed = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                feed._handle(self)

        self.httpd = ThreadingHTTPServer((host, 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path):
        return f"http://{self.host}:{self.port}{path}"

    def set(self, path, body=b"", status=200, headers=None, etag=None, last_modified=None, gzip_body=False, delay=0.0,
            content_type="application/rss+xml; charset=utf-8"):
        """What `path` answers from now on. With `etag` / `last_modified`, a matching conditional GET is a 304;
        with `gzip_body`, the body is gzip'd for a client that accepts it; `delay` seconds before answering."""
        if isinstance(body, str):
            body = body.encode()
        with self.lock:
            self.routes[path] = {"body": body, "status": status, "headers": dict(headers or {}), "etag": etag,
                                 "last_modified": last_modified, "gzip": gzip_body, "delay": delay,
                                 "content_type": content_type}

    def redirect(self, path, location, status=302):
        self.set(path, b"", status=status, headers={"Location": location}, content_type="text/plain")

    def seen(self, path=None):
        with self.lock:
            return [dict(r) for r in self.requests if path is None or r["path"] == path]

    def count(self, path=None):
        return len(self.seen(path))

    def _handle(self, h):
        path = h.path.split("?", 1)[0]
        record = {"path": path, "headers": {k.lower(): v for k, v in h.headers.items()}, "start": time.monotonic(),
                  "end": None, "status": None, "gzipped": False}
        with self.lock:
            self.requests.append(record)
            self.active += 1
            self.max_active = max(self.max_active, self.active)
            route = self.routes.get(path)
        try:
            if route is None:
                status, body, headers = 404, b"not found", {"Content-Type": "text/plain"}
            else:
                if route["delay"]:
                    time.sleep(route["delay"])
                status, body = route["status"], route["body"]
                headers = {"Content-Type": route["content_type"], **route["headers"]}
                if route["etag"]:
                    headers["ETag"] = route["etag"]
                if route["last_modified"]:
                    headers["Last-Modified"] = route["last_modified"]
                inm = record["headers"].get("if-none-match")
                ims = record["headers"].get("if-modified-since")
                if status == 200 and ((route["etag"] and inm and route["etag"] in [t.strip() for t in inm.split(",")])
                                      or (not inm and route["last_modified"] and ims == route["last_modified"])):
                    status, body = 304, b""
                elif status == 200 and route["gzip"] and "gzip" in record["headers"].get("accept-encoding", ""):
                    body = gzip.compress(body)
                    headers["Content-Encoding"] = "gzip"
                    record["gzipped"] = True
            record["status"] = status
            h.send_response(status)
            for k, v in headers.items():
                h.send_header(k, v)
            if status != 304:
                h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            if status != 304 and body:
                h.wfile.write(body)
            h.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass
        finally:
            with self.lock:
                self.active -= 1
                record["end"] = time.monotonic()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def feed():
    f = FeedServer()
    yield f
    f.close()


# ---------------------------------------------------------------------------
# Feeds


def day(d, hour=10, minute=0):
    """A UTC time on a November 2025 day."""
    return datetime(2025, 11, d, hour, minute, tzinfo=timezone.utc)


def entry(eid, title=None, date=None, categories=(), summary=None, link=True, enclosure=None, guid=True):
    return {"id": eid, "title": title if title is not None else f"Title {eid}",
            "link": f"https://example.com/posts/{eid}" if link is True else link,
            "summary": summary if summary is not None else f"About {eid}", "date": date,
            "categories": list(categories), "enclosure": enclosure, "guid": guid}


def rss(title, entries):
    """RSS 2.0 of `entries` (see `entry`)."""
    items = []
    for e in entries:
        parts = []
        if e["guid"]:
            parts.append(f'<guid isPermaLink="false">{escape(e["id"])}</guid>')
        if e["title"] is not None:
            parts.append(f"<title>{escape(e['title'])}</title>")
        if e["link"]:
            parts.append(f"<link>{escape(e['link'])}</link>")
        if e["summary"] is not None:
            parts.append(f"<description>{escape(e['summary'])}</description>")
        if e["date"] is not None:
            parts.append(f"<pubDate>{format_datetime(e['date'], usegmt=True)}</pubDate>")
        parts += [f"<category>{escape(c)}</category>" for c in e["categories"]]
        if e["enclosure"]:
            parts.append(f'<enclosure url={quoteattr(e["enclosure"])} type="audio/mpeg" length="1234"/>')
        items.append("<item>" + "".join(parts) + "</item>")
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel>'
            f"<title>{escape(title)}</title><link>https://example.com/</link><description>Test feed</description>"
            + "\n".join(items) + "</channel></rss>\n").encode()


def atom(title, entries):
    """Atom 1.0 of `entries` (each may carry "authors", "content", "updated")."""
    out = ['<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">',
           f"<title>{escape(title)}</title><id>urn:listdelta:test</id><updated>2025-11-25T12:00:00Z</updated>"]
    for e in entries:
        parts = [f"<id>{escape(e['id'])}</id>", f"<title>{escape(e['title'])}</title>",
                 f'<link href={quoteattr(e["link"])}/>', f"<summary>{escape(e['summary'])}</summary>"]
        if e.get("content"):
            parts.append(f'<content type="text">{escape(e["content"])}</content>')
        if e["date"] is not None:
            parts.append(f"<published>{rfc3339(e['date'])}</published>")
        parts.append(f"<updated>{rfc3339(e.get('updated') or e['date'] or day(25))}</updated>")
        parts += [f"<author><name>{escape(a)}</name></author>" for a in e.get("authors", ())]
        parts += [f"<category term={quoteattr(c)}/>" for c in e["categories"]]
        out.append("<entry>" + "".join(parts) + "</entry>")
    out.append("</feed>\n")
    return "\n".join(out).encode()


def rfc3339(dt):
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text):
    assert isinstance(text, str) and re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$", text), text
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def utc_z(text):
    """A model time: RFC 3339 in UTC with "Z"; its value."""
    assert isinstance(text, str) and text.endswith("Z"), text
    return parse_time(text)


# ---------------------------------------------------------------------------
# Requests


def put_source(server, list_id, body, token=None, content_type="application/json"):
    headers = {"Content-Type": content_type}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return server.request("PUT", f"/v1/lists/{list_id}/source", data=data, headers=headers, timeout=FETCH_TIMEOUT + 20)


def get_source(server, list_id):
    return server.get(f"/v1/lists/{list_id}/source")


def delete_source(server, list_id, token=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return server.request("DELETE", f"/v1/lists/{list_id}/source", headers=headers)


def check_state(state, url=None, interval=300, sections="none", max_items=1000):
    """The state's shape (docs/api.md, Sources) and its settings; returns it."""
    assert set(state) == STATE_KEYS, state
    if url is not None:
        assert state["url"] == url
    assert (state["interval"], state["sections"], state["maxItems"]) == (interval, sections, max_items), state
    assert isinstance(state["consecutiveFailures"], int) and state["consecutiveFailures"] >= 0
    parse_time(state["nextFetchAt"])
    fetch = state["lastFetch"]
    if fetch is not None:
        assert set(fetch) == FETCH_KEYS, fetch
        parse_time(fetch["at"])
        assert fetch["status"] is None or isinstance(fetch["status"], int), fetch
        assert isinstance(fetch["items"], int) and fetch["items"] >= 0, fetch
        assert isinstance(fetch["bytes"], int) and fetch["bytes"] >= 0, fetch
        assert fetch["parseMs"] is None or (isinstance(fetch["parseMs"], (int, float)) and fetch["parseMs"] >= 0), fetch
        assert isinstance(fetch["changed"], bool), fetch
    if state["lastError"] is not None:
        for k in ("type", "title", "status", "detail"):
            assert k in state["lastError"], state["lastError"]
    return state


def attach(server, list_id, url, expect=201, **settings):
    """PUTs the source (settings given by their API names); asserts the status; returns the state."""
    r = put_source(server, list_id, {"url": url, **settings})
    assert r.status_code == expect, (r.status_code, r.text[:1000])
    assert r.headers["Content-Type"].split(";")[0] == "application/json", r.headers
    return check_state(r.json(), url, settings.get("interval", 300), settings.get("sections", "none"),
                       settings.get("maxItems", 1000))


def fetch_now(server, list_id, state):
    """A PUT of the same settings (a fetch now): 200; the new state."""
    settings = {k: state[k] for k in ("url", "interval", "sections", "maxItems")}
    r = put_source(server, list_id, settings)
    assert r.status_code == 200, (r.status_code, r.text[:1000])
    return check_state(r.json(), state["url"], state["interval"], state["sections"], state["maxItems"])


def revisions(server, list_id):
    r = server.get(f"/v1/lists/{list_id}/revisions", params={"limit": 100})
    assert r.status_code == 200, r.text
    return r.json()["revisions"]


def ok_fetch(state, changed, status=200):
    fetch = state["lastFetch"]
    assert fetch is not None and fetch["status"] == status and fetch["changed"] is changed, state
    assert state["lastError"] is None and state["consecutiveFailures"] == 0, state
    return fetch


def check_items(doc_items, entries):
    """The list's items are the feed's entries, in order, with the FeedEntry model."""
    assert [i["id"] for i in doc_items] == [e["id"] if e["guid"] else e["link"] for e in entries]
    for item, e in zip(doc_items, entries):
        assert item["type"] == "FeedEntry" and item["cell"] is None, item
        model = item["model"]
        assert set(model) == MODEL_KEYS, model
        assert (model["title"], model["link"], model["summary"]) == (e["title"], e["link"], e["summary"]), model
        assert model["content"] is None and model["updated"] is None, model
        if e["date"] is None:
            assert model["published"] is None, model
        else:
            assert utc_z(model["published"]) == e["date"], model
        if e["categories"]:
            assert model["categories"] == e["categories"], model
        else:
            assert model["categories"] in (None, []), model
        assert model["authors"] in (None, []), model
        if e["enclosure"]:
            assert model["enclosure"]["url"] == e["enclosure"], model
        else:
            assert model["enclosure"] is None, model


def counts(diff):
    return {part: {k: len(diff[part][k]) for k in ("deleted", "inserted", "moved", "updated")} for part in ("sections", "items")}


def metric(server, name, **labels):
    """A sample's value from /metrics (None when absent)."""
    text = server.get("/metrics").text
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z_:][\w:]*)(\{[^}]*\})?\s+(\S+)", line)
        if m and m.group(1) == name and all(f'{k}="{v}"' in (m.group(2) or "") for k, v in labels.items()):
            return float(m.group(3))
    return None


# ---------------------------------------------------------------------------
# Servers


@pytest.fixture(scope="module")
def source_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("sources")


@pytest.fixture(scope="module")
def src(tmp_path_factory, source_dir):
    """A server that may fetch from 127.0.0.1 and read files under `source_dir`; otherwise the defaults."""
    d = tmp_path_factory.mktemp("src") / "db"
    d.mkdir()
    s = Server(d, env={**ALLOW_LOOPBACK, "LISTDELTA_SOURCE_DIRECTORY": str(source_dir)}).start()
    yield s
    s.stop()


FRUITS = [
    entry("a", "Apple", day(25, 9), ["fruit"], enclosure="https://example.com/a.mp3"),
    entry("b", "Banana", day(24, 8)),
    entry("c", "Cherry", None, ["fruit", "red"]),
    entry("d", "Date", day(23, 7)),
]


# ---------------------------------------------------------------------------
# Attaching, reading, the document


def test_attach_fetches_at_once_and_the_list_is_the_feed(src, feed):
    lid = uid("src")
    no_guid = entry("plain", "No guid", day(22), guid=False)  # named by its link
    duplicate = entry("a", "Apple again", day(21))
    body = rss("Fruits", FRUITS + [no_guid, duplicate])
    feed.set("/fruits.xml", body)
    before = datetime.now(timezone.utc)
    r = put_source(src, lid, {"url": feed.url("/fruits.xml"), "extra": "unknown members are ignored"})
    assert r.status_code == 201, r.text
    state = check_state(r.json(), feed.url("/fruits.xml"))  # the defaults: 300 s, sections none, 1000 items
    fetch = ok_fetch(state, changed=True)
    assert fetch["items"] == 5 and fetch["bytes"] == len(body), fetch
    assert isinstance(fetch["parseMs"], (int, float)), fetch
    at = parse_time(fetch["at"])
    assert before - timedelta(seconds=5) <= at <= datetime.now(timezone.utc) + timedelta(seconds=5)
    assert parse_time(state["nextFetchAt"]) > at + timedelta(seconds=100), state
    # The feed server was asked once, for gzip.
    seen = feed.seen("/fruits.xml")
    assert len(seen) == 1 and "gzip" in seen[0]["headers"].get("accept-encoding", ""), seen

    # The list was created by the fetch: an array titled with the feed's title, the entries in order, the
    # first of two entries with one id kept, an entry without guid named by its link.
    doc = src.doc(lid)
    assert (doc["id"], doc["kind"], doc["revision"]) == (lid, "array", 1), doc
    assert len(doc["sections"]) == 1
    section = doc["sections"][0]
    assert (section["id"], section["title"]) == ("main", "Fruits"), section
    check_items(section["items"], FRUITS + [no_guid])
    assert section["items"][0]["model"]["title"] == "Apple"

    # GET answers the same state; the revision was made by the source.
    got = get_source(src, lid)
    assert got.status_code == 200 and got.headers["Content-Type"].split(";")[0] == "application/json"
    assert got.json() == state
    assert [h["by"] for h in revisions(src, lid)] == [{"op": "source"}]


def test_a_changed_feed_makes_a_revision_whose_diff_is_the_change(src, feed):
    lid = uid("src")
    feed.set("/f.xml", rss("Fruits", FRUITS))
    state = attach(src, lid, feed.url("/f.xml"))
    assert src.doc(lid)["revision"] == 1
    old = src.doc(lid)
    # e added at the top, b removed, c and d swapped, a's title edited.
    edited = dict(FRUITS[0], title="Green apple")
    new_entries = [entry("e", "Elderberry", day(26)), edited, FRUITS[3], FRUITS[2]]
    feed.set("/f.xml", rss("Fruits", new_entries))
    state = fetch_now(src, lid, state)
    assert ok_fetch(state, changed=True)["items"] == 4
    doc = src.doc(lid)
    assert doc["revision"] == 2
    check_items(doc["sections"][0]["items"], new_entries)
    d = src.diff(lid, 1)
    assert counts(d) == {"sections": {"deleted": 0, "inserted": 0, "moved": 0, "updated": 0},
                         "items": {"deleted": 1, "inserted": 1, "moved": 1, "updated": 1}}, d
    assert d["items"]["deleted"] == [[0, 1]]
    assert [(i["at"], i["item"]["id"]) for i in d["items"]["inserted"]] == [([0, 0], "e")]
    assert [(u["at"], u["item"]["id"]) for u in d["items"]["updated"]] == [([0, 1], "a")]
    assert d["items"]["updated"][0]["item"]["model"]["title"] == "Green apple"
    assert d["counts"] == {"from": [4], "to": [4]}
    assert canon_sections(apply_batch_diff(old, d)) == canon_sections(doc)
    assert [h["by"] for h in revisions(src, lid)] == [{"op": "source"}, {"op": "source"}]
    assert revisions(src, lid)[0]["changes"]["items"] == {"deleted": 1, "inserted": 1, "moved": 1, "updated": 1}


def test_an_unchanged_feed_makes_no_revision(src, feed):
    lid = uid("src")
    anonymous = entry("x", "No guid, no link", None, guid=False, link=None)  # named by a hash: the same every time
    feed.set("/same.xml", rss("Same", FRUITS[:2] + [anonymous]))
    state = attach(src, lid, feed.url("/same.xml"))
    ids = [i["id"] for i in src.doc(lid)["sections"][0]["items"]]
    assert len(ids) == 3 and ids[:2] == ["a", "b"] and ids[2], ids
    for _ in range(2):
        state = fetch_now(src, lid, state)
        fetch = ok_fetch(state, changed=False)
        assert fetch["items"] == 3, fetch
    assert src.doc(lid)["revision"] == 1
    assert [i["id"] for i in src.doc(lid)["sections"][0]["items"]] == ids
    assert len(revisions(src, lid)) == 1
    assert feed.count("/same.xml") == 3


def test_etag_and_last_modified_make_conditional_gets_and_a_304_changes_nothing(src, feed):
    lid = uid("src")
    feed.set("/etag.xml", rss("Tagged", FRUITS), etag='"v1"')
    state = attach(src, lid, feed.url("/etag.xml"))
    assert "if-none-match" not in feed.seen("/etag.xml")[0]["headers"]
    state = fetch_now(src, lid, state)
    second = feed.seen("/etag.xml")[1]
    assert second["headers"].get("if-none-match") == '"v1"' and second["status"] == 304, second
    fetch = ok_fetch(state, changed=False, status=304)
    assert fetch["bytes"] == 0 and fetch["parseMs"] is None and fetch["items"] == 4, fetch
    assert src.doc(lid)["revision"] == 1
    # New content, new tag: the conditional GET gets a 200 and a revision.
    feed.set("/etag.xml", rss("Tagged", FRUITS[:3]), etag='"v2"')
    state = fetch_now(src, lid, state)
    assert ok_fetch(state, changed=True)["items"] == 3
    assert feed.seen("/etag.xml")[2]["headers"].get("if-none-match") == '"v1"'
    assert src.doc(lid)["revision"] == 2
    state = fetch_now(src, lid, state)
    assert feed.seen("/etag.xml")[3]["headers"].get("if-none-match") == '"v2"'
    ok_fetch(state, changed=False, status=304)

    # Last-Modified alone: If-Modified-Since carries it back.
    lid2 = uid("src")
    stamp = "Tue, 25 Nov 2025 10:00:00 GMT"
    feed.set("/lm.xml", rss("Dated", FRUITS), last_modified=stamp)
    state = attach(src, lid2, feed.url("/lm.xml"))
    state = fetch_now(src, lid2, state)
    second = feed.seen("/lm.xml")[1]
    assert second["headers"].get("if-modified-since") == stamp and second["status"] == 304, second
    ok_fetch(state, changed=False, status=304)


def test_a_gzip_body_is_inflated(src, feed):
    lid = uid("src")
    body = rss("Zipped", FRUITS * 1 + [entry(f"z{n}", f"Zipped {n}", day(20)) for n in range(50)])
    feed.set("/gz.xml", body, gzip_body=True)
    state = attach(src, lid, feed.url("/gz.xml"))
    assert feed.seen("/gz.xml")[0]["gzipped"], "the server did not accept gzip"
    fetch = ok_fetch(state, changed=True)
    assert fetch["bytes"] == len(body) and fetch["items"] == 54, fetch
    assert [i["id"] for i in src.doc(lid)["sections"][0]["items"]][:5] == ["a", "b", "c", "d", "z0"]


def test_max_items_keeps_the_first_entries(src, feed):
    lid = uid("src")
    feed.set("/many.xml", rss("Many", FRUITS))
    state = attach(src, lid, feed.url("/many.xml"), maxItems=2)
    assert state["lastFetch"]["items"] == 2
    assert [i["id"] for i in src.doc(lid)["sections"][0]["items"]] == ["a", "b"]


def test_a_json_feed(src, feed):
    lid = uid("src")
    body = {"version": "https://jsonfeed.org/version/1.1", "title": "Jason", "items": [
        {"id": "j1", "url": "https://example.com/j1", "title": "First", "summary": "One", "content_text": "Body one",
         "date_published": "2025-11-25T10:00:00+01:00", "authors": [{"name": "Ada"}], "tags": ["x"]},
        {"id": "j2", "url": "https://example.com/j2", "title": "Second", "content_html": "<p>Two</p>"},
    ]}
    feed.set("/feed.json", json.dumps(body), content_type="application/feed+json")
    attach(src, lid, feed.url("/feed.json"))
    doc = src.doc(lid)
    assert doc["sections"][0]["title"] == "Jason"
    first, second = doc["sections"][0]["items"]
    assert (first["id"], second["id"]) == ("j1", "j2")
    m = first["model"]
    assert set(m) == MODEL_KEYS
    assert (m["title"], m["link"], m["summary"], m["content"]) == ("First", "https://example.com/j1", "One", "Body one")
    assert utc_z(m["published"]) == datetime(2025, 11, 25, 9, tzinfo=timezone.utc)
    assert m["authors"] == ["Ada"] and m["categories"] == ["x"], m
    assert second["model"]["content"] == "<p>Two</p>" and second["model"]["published"] is None


def test_sections_by_day_and_by_category(src, feed):
    entries = [
        entry("p1", "Tuesday early", day(25, 8), ["news"]),
        entry("p2", "Monday", day(24, 12), ["sport", "news"]),
        entry("p3", "No date", None, []),
        entry("p4", "Tuesday late", day(25, 18), ["news"]),
        entry("p5", "Sunday", day(23, 9), ["weather"]),
    ]
    feed.set("/sections.xml", rss("Sectioned", entries))
    by_day = uid("day")
    attach(src, by_day, feed.url("/sections.xml"), sections="day")
    doc = src.doc(by_day)
    assert doc["kind"] == "sections" and doc["revision"] == 1
    got = [(s["id"], s["title"], s["indexTitle"], sorted(i["id"] for i in s["items"])) for s in doc["sections"]]
    assert got == [("2025-11-25", "2025-11-25", "25", ["p1", "p4"]), ("2025-11-24", "2025-11-24", "24", ["p2"]),
                   ("2025-11-23", "2025-11-23", "23", ["p5"]), ("undated", got[3][1], got[3][2], ["p3"])], got
    for s in doc["sections"]:
        for item in s["items"]:
            assert item["type"] == "FeedEntry" and set(item["model"]) == MODEL_KEYS

    by_category = uid("cat")
    attach(src, by_category, feed.url("/sections.xml"), sections="category")
    doc = src.doc(by_category)
    assert doc["kind"] == "sections"
    sections = doc["sections"]
    assert [s["title"] for s in sections[:3]] == ["news", "sport", "weather"], sections
    assert sections[-1]["id"] == "uncategorized" and len(sections) == 4, sections
    assert [[i["id"] for i in s["items"]] for s in sections] == [["p1", "p4"], ["p2"], ["p5"], ["p3"]]
    # A new day's entry inserts a section at the top.
    feed.set("/sections.xml", rss("Sectioned", [entry("p0", "Wednesday", day(26, 7))] + entries))
    state = fetch_now(src, by_day, get_source(src, by_day).json())
    assert state["lastFetch"]["changed"] is True
    d = src.diff(by_day, 1)
    assert [(i["at"], i["section"]["id"]) for i in d["sections"]["inserted"]] == [(0, "2025-11-26")], d
    assert counts(d)["items"] == {"deleted": 0, "inserted": 0, "moved": 0, "updated": 0}, d


# ---------------------------------------------------------------------------
# Failures change nothing


def test_a_500_is_a_failure_that_changes_nothing_and_backs_off(src, feed):
    lid = uid("src")
    feed.set("/flaky.xml", rss("Flaky", FRUITS))
    state = attach(src, lid, feed.url("/flaky.xml"), interval=60)
    doc = src.doc(lid)
    feed.set("/flaky.xml", "oops", status=500, content_type="text/plain")
    now = datetime.now(timezone.utc)
    state = fetch_now(src, lid, state)
    fetch = state["lastFetch"]
    assert fetch["status"] == 500 and fetch["changed"] is False and fetch["parseMs"] is None, state
    assert state["consecutiveFailures"] == 1, state
    problem = state["lastError"]
    assert isinstance(problem["detail"], str) and problem["detail"] and isinstance(problem["status"], int), problem
    assert parse_time(state["nextFetchAt"]) > now + timedelta(seconds=60), state
    assert src.doc(lid) == doc
    assert len(revisions(src, lid)) == 1
    assert get_source(src, lid).json() == state
    # A second failure backs off further; a success clears the error.
    state = fetch_now(src, lid, state)
    assert state["consecutiveFailures"] == 2 and state["lastError"] is not None
    feed.set("/flaky.xml", rss("Flaky", FRUITS[:1]))
    state = fetch_now(src, lid, state)
    ok_fetch(state, changed=True)
    assert src.doc(lid)["revision"] == 2


def test_a_429_with_retry_after_is_honoured(src, feed):
    lid = uid("src")
    feed.set("/busy.xml", rss("Busy", FRUITS))
    state = attach(src, lid, feed.url("/busy.xml"), interval=10)
    feed.set("/busy.xml", "slow down", status=429, headers={"Retry-After": "120"}, content_type="text/plain")
    now = datetime.now(timezone.utc)
    state = fetch_now(src, lid, state)
    assert state["lastFetch"]["status"] == 429 and state["consecutiveFailures"] == 1 and state["lastError"], state
    assert parse_time(state["nextFetchAt"]) >= now + timedelta(seconds=100), state
    assert src.doc(lid)["revision"] == 1


def test_unparsable_and_too_slow_feeds_fail_without_creating_the_list(src, feed):
    lid = uid("src")
    feed.set("/junk.xml", "<html><body>not a feed</body></html>", content_type="text/html")
    state = attach(src, lid, feed.url("/junk.xml"))
    assert state["lastError"] is not None and state["consecutiveFailures"] == 1 and state["lastFetch"]["changed"] is False
    assert_problem(src.get(lid), 404)
    # Slow but within the fetch timeout: fine.
    feed.set("/junk.xml", rss("Slow", FRUITS), delay=1.0)
    state = fetch_now(src, lid, state)
    ok_fetch(state, changed=True)
    assert src.doc(lid)["revision"] == 1
    # Slower than LISTDELTA_SOURCE_TIMEOUT_SECONDS: a network error (status null), answered in bounded time.
    feed.set("/junk.xml", rss("Slow", FRUITS[:1]), delay=FETCH_TIMEOUT + 3)
    started = time.monotonic()
    state = fetch_now(src, lid, state)
    assert time.monotonic() - started < FETCH_TIMEOUT + 2.5
    assert state["lastFetch"]["status"] is None and state["lastError"] is not None, state
    assert state["consecutiveFailures"] == 1
    assert len(src.doc(lid)["sections"][0]["items"]) == 4


def test_a_redirect_to_the_metadata_address_is_refused(src, feed):
    lid = uid("src")
    feed.set("/ok.xml", rss("Redirected", FRUITS))
    state = attach(src, lid, feed.url("/ok.xml"))
    doc = src.doc(lid)
    feed.redirect("/ok.xml", "http://169.254.169.254/latest/meta-data/")
    state = fetch_now(src, lid, state)
    assert state["lastError"] is not None and state["consecutiveFailures"] == 1, state
    assert state["lastFetch"]["changed"] is False
    assert src.doc(lid) == doc

    # A loopback address the policy does not name (only 127.0.0.1 is allowed): refused, never contacted.
    try:
        other = FeedServer("127.0.0.2")
    except OSError:
        pytest.skip("cannot bind 127.0.0.2")
    try:
        other.set("/stolen.xml", rss("Stolen", FRUITS[:1]))
        feed.redirect("/ok.xml", other.url("/stolen.xml"))
        state = fetch_now(src, lid, state)
        assert state["lastError"] is not None and state["consecutiveFailures"] == 2, state
        assert other.count() == 0, other.seen()
        assert src.doc(lid) == doc
        # Attaching it directly is a 422 on /url.
        body = assert_problem(put_source(src, uid("src"), {"url": other.url("/stolen.xml")}), 422)
        assert body["pointer"] == "/url"
        assert other.count() == 0
    finally:
        other.close()


def test_a_redirect_to_another_path_is_followed(src, feed):
    lid = uid("src")
    feed.set("/new.xml", rss("Moved", FRUITS))
    feed.redirect("/old.xml", feed.url("/new.xml"), status=301)
    state = attach(src, lid, feed.url("/old.xml"))
    ok_fetch(state, changed=True)
    assert [r["path"] for r in feed.seen()] == ["/old.xml", "/new.xml"]
    assert len(src.doc(lid)["sections"][0]["items"]) == 4
    # A redirect loop ends after at most 5 redirects, as a failure.
    lid2 = uid("src")
    feed.redirect("/loop1.xml", feed.url("/loop2.xml"))
    feed.redirect("/loop2.xml", feed.url("/loop1.xml"))
    state = attach(src, lid2, feed.url("/loop1.xml"))
    assert state["lastError"] is not None and state["consecutiveFailures"] == 1
    assert feed.count("/loop1.xml") + feed.count("/loop2.xml") <= 6
    assert_problem(src.get(lid2), 404)


# ---------------------------------------------------------------------------
# Followers, scheduling


def test_a_fetch_now_wakes_a_long_poll(src, feed):
    lid = uid("src")
    feed.set("/poll.xml", rss("Polled", FRUITS))
    state = attach(src, lid, feed.url("/poll.xml"))
    t, result = held_diff_poll(src, lid, 1)
    time.sleep(1.0)
    assert t.is_alive(), f"the poll answered before any change: {result}"
    feed.set("/poll.xml", rss("Polled", FRUITS + [entry("new", "Fresh", day(27))]))
    fetch_now(src, lid, state)
    fetched = time.monotonic()
    t.join(10)
    assert result.get("status") == 200, result
    assert result["at"] - fetched < 2.0
    d = result["body"]
    assert (d["from"], d["to"]) == (1, 2) and [i["item"]["id"] for i in d["items"]["inserted"]] == ["new"], d


def test_a_source_is_fetched_on_schedule_and_not_after_it_is_detached(make_server, feed):
    server = make_server(env={**ALLOW_LOOPBACK, "LISTDELTA_SOURCE_MIN_INTERVAL": "1"})
    lid = uid("sched")
    feed.set("/tick.xml", rss("Ticking", FRUITS))
    attach(server, lid, feed.url("/tick.xml"), interval=1)
    feed.set("/tick.xml", rss("Ticking", FRUITS[1:]))
    wait_for(lambda: feed.count("/tick.xml") >= 2 and server.doc(lid)["revision"] == 2, timeout=8, interval=0.1, message="a scheduled fetch")
    assert [h["by"] for h in revisions(server, lid)] == [{"op": "source"}, {"op": "source"}]
    state = get_source(server, lid).json()
    assert state["lastFetch"]["status"] == 200 and state["lastFetch"]["items"] == 3
    assert delete_source(server, lid).status_code == 204
    time.sleep(0.5)  # a fetch under way when it was detached may still end
    n = feed.count("/tick.xml")
    time.sleep(2.5)
    assert feed.count("/tick.xml") == n
    assert server.doc(lid)["revision"] == 2


# ---------------------------------------------------------------------------
# The list while fed, detaching


def revert(server, list_id, to):
    return server.request("POST", f"/v1/lists/{list_id}/revert", data=json.dumps({"to": to}),
                          headers={"Content-Type": "application/json"})


def test_writes_to_a_fed_list_are_409_until_the_source_is_detached(src, feed):
    lid = uid("src")
    assert src.put(lid, {"kind": "array", "title": "Mine", "items": [{"id": "mine", "cell": "C"}]}).status_code == 201
    feed.set("/fed.xml", rss("Fed", FRUITS))
    state = attach(src, lid, feed.url("/fed.xml"))
    # The source feeds the existing list: its content is now the feed's, as revision 2.
    doc = src.doc(lid)
    assert doc["revision"] == 2 and [i["id"] for i in doc["sections"][0]["items"]] == ["a", "b", "c", "d"]
    assert [h["by"]["op"] for h in revisions(src, lid)] == ["source", "put"]
    for r in (src.put(lid, {"items": [{"id": "x", "cell": "C"}]}),
              src.patch(lid, [{"op": "remove", "path": "/sections/0/items/0"}]),
              revert(src, lid, 1)):
        problem = assert_problem(r, 409)
        assert "source" in problem["detail"] and "DELETE" in problem["detail"], problem
    assert src.doc(lid) == doc
    # PUT of the source again is 200 (a fetch now), not 201.
    state = fetch_now(src, lid, state)
    r = delete_source(src, lid)
    assert r.status_code == 204 and not r.content
    assert_problem(get_source(src, lid), 404)
    assert_problem(delete_source(src, lid), 404)
    assert src.doc(lid) == doc  # the list and its revisions stay
    assert len(revisions(src, lid)) == 2
    assert src.patch(lid, [{"op": "remove", "path": "/sections/0/items/0"}]).status_code == 200
    assert revert(src, lid, 2).status_code == 200
    assert src.put(lid, {"items": [{"id": "x", "cell": "C"}]}).status_code == 200
    # Attached again: 201 once more.
    attach(src, lid, feed.url("/fed.xml"))


def test_deleting_a_fed_list_detaches_its_source(src, feed):
    lid = uid("src")
    feed.set("/gone.xml", rss("Gone", FRUITS))
    attach(src, lid, feed.url("/gone.xml"))
    assert src.delete(lid).status_code == 204
    assert_problem(src.get(lid), 404)
    assert_problem(get_source(src, lid), 404)
    r = src.put(lid, {"items": [{"id": "x", "cell": "C"}]})
    assert r.status_code == 201, r.text


def test_deleting_a_list_its_source_has_yet_to_create_detaches_the_source(src, feed):
    lid = uid("src")
    feed.set("/never.xml", "oops", status=500)
    state = attach(src, lid, feed.url("/never.xml"))
    assert state["lastError"]["status"] == 502, state
    assert_problem(src.get(lid), 404)
    # The list does not exist yet, but its source would create it: DELETE of the list removes the source.
    assert src.delete(lid).status_code == 204
    assert_problem(get_source(src, lid), 404)
    assert_problem(src.delete(lid), 404)


def test_get_and_delete_of_a_list_without_source_are_404(src):
    lid = uid("src")
    assert src.put(lid, {"items": []}).status_code == 201
    assert_problem(get_source(src, lid), 404)
    assert_problem(delete_source(src, lid), 404)
    assert_problem(get_source(src, uid("none")), 404)


# ---------------------------------------------------------------------------
# Refused requests


@pytest.mark.parametrize("url", ["http://127.0.0.2:1/", "http://127.0.0.1:1/feed.xml", "http://[::1]:1/", "ftp://x",
                                 "file:/etc/passwd", "file:///etc/passwd", "gopher://example.com/", "not a url", ""])
def test_urls_refused_by_the_default_policy_are_422_on_url(server, url):
    lid = uid("ref")
    problem = assert_problem(put_source(server, lid, {"url": url}), 422)
    assert problem["pointer"] == "/url", problem
    assert_problem(get_source(server, lid), 404)
    assert_problem(server.get(lid), 404)


def test_urls_outside_the_policy_of_a_configured_server_are_422(src, source_dir, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "feed.xml"
    outside.write_bytes(rss("Outside", FRUITS))
    for url in ("file:/etc/passwd", outside.as_uri(), f"{source_dir.as_uri()}/../{outside.parent.name}/feed.xml",
                "http://10.1.2.3/feed.xml", "http://169.254.169.254/latest/meta-data/", "ftp://127.0.0.1/x"):
        problem = assert_problem(put_source(src, uid("ref"), {"url": url}), 422)
        assert problem["pointer"] == "/url", (url, problem)


@pytest.mark.parametrize("member, value", [
    ("interval", 1), ("interval", 9), ("interval", 0), ("interval", -5), ("interval", 30.5), ("interval", "300"),
    ("sections", "week"), ("sections", 7), ("maxItems", 0), ("maxItems", 10001), ("maxItems", "10"),
    ("url", 5), ("url", None),
])
def test_bad_members_are_422_with_their_pointer(src, feed, member, value):
    lid = uid("bad")
    feed.set("/valid.xml", rss("Valid", FRUITS))
    body = {"url": feed.url("/valid.xml"), member: value}
    problem = assert_problem(put_source(src, lid, body), 422)
    assert problem["pointer"] == f"/{member}", problem
    assert_problem(get_source(src, lid), 404)
    assert feed.count() == 0


def test_malformed_bodies_and_media_types(src, feed):
    lid = uid("bad")
    feed.set("/valid.xml", rss("Valid", FRUITS))
    problem = assert_problem(put_source(src, lid, {"interval": 300}), 422)
    assert problem["pointer"] == "/url"
    for body in ("[]", '"x"', "null", "not json", '{"url": '):
        assert_problem(put_source(src, lid, body), 400)
    assert_problem(put_source(src, lid, json.dumps({"url": feed.url("/valid.xml")}), content_type="text/plain"), 415)
    assert_problem(get_source(src, lid), 404)
    assert feed.count() == 0


def test_writes_need_a_token_when_tokens_are_configured(make_server, feed):
    server = make_server(["--write-token", "secret"], env=ALLOW_LOOPBACK)
    lid = uid("tok")
    feed.set("/t.xml", rss("Tokens", FRUITS))
    body = {"url": feed.url("/t.xml")}
    assert_problem(put_source(server, lid, body), 401)
    assert_problem(put_source(server, lid, body, token="wrong"), 403)
    assert feed.count() == 0
    r = put_source(server, lid, body, token="secret")
    assert r.status_code == 201, r.text
    assert get_source(server, lid).status_code == 200  # reads stay public
    assert_problem(delete_source(server, lid), 401)
    assert_problem(delete_source(server, lid, token="wrong"), 403)
    assert delete_source(server, lid, token="secret").status_code == 204


def test_the_number_of_sources_is_bounded(make_server, feed):
    server = make_server(env={**ALLOW_LOOPBACK, "LISTDELTA_MAX_SOURCES": "2"})
    feed.set("/n.xml", rss("Bounded", FRUITS))
    first, second = uid("max"), uid("max")
    attach(server, first, feed.url("/n.xml"))
    attach(server, second, feed.url("/n.xml"))
    assert_problem(put_source(server, uid("max"), {"url": feed.url("/n.xml")}), 409)
    # Changing an attached one is not a new source.
    attach(server, second, feed.url("/n.xml"), expect=200, interval=600)
    assert delete_source(server, first).status_code == 204
    attach(server, uid("max"), feed.url("/n.xml"))


# ---------------------------------------------------------------------------
# Files


def test_a_file_source_is_read_again_when_fetched(src, source_dir):
    lid = uid("file")
    path = source_dir / f"{lid}.atom"
    entries = [dict(entry("urn:e1", "One", day(25, 9), ["x"]), authors=["Ada"], content="Full text one",
                    updated=day(25, 11)),
               dict(entry("urn:e2", "Two", day(24, 9)), authors=["Ada", "Grace"])]
    path.write_bytes(atom("Atomic", entries))
    state = attach(src, lid, path.as_uri())
    fetch = state["lastFetch"]
    assert fetch["status"] is None and fetch["changed"] is True and fetch["items"] == 2, state
    assert fetch["bytes"] == path.stat().st_size
    doc = src.doc(lid)
    assert doc["sections"][0]["title"] == "Atomic"
    one, two = doc["sections"][0]["items"]
    assert (one["id"], two["id"]) == ("urn:e1", "urn:e2")
    m = one["model"]
    assert (m["title"], m["link"], m["summary"], m["content"]) == ("One", "https://example.com/posts/urn:e1", "About urn:e1", "Full text one")
    assert utc_z(m["published"]) == day(25, 9) and utc_z(m["updated"]) == day(25, 11)
    assert m["authors"] == ["Ada"] and m["categories"] == ["x"] and two["model"]["authors"] == ["Ada", "Grace"]
    # Unchanged file: no revision; changed file: a revision.
    state = fetch_now(src, lid, state)
    assert state["lastFetch"]["changed"] is False and src.doc(lid)["revision"] == 1
    path.write_bytes(atom("Atomic", entries[1:]))
    state = fetch_now(src, lid, state)
    assert state["lastFetch"]["changed"] is True and state["lastFetch"]["items"] == 1
    assert src.diff(lid, 1)["items"]["deleted"] == [[0, 0]]

    # The source changed to a file holding a ListDelta document: the list is that document.
    json_path = source_dir / f"{lid}.json"
    document = {"kind": "sections", "sections": [
        {"id": "s1", "title": "First", "indexTitle": "F", "items": [{"id": "i1", "cell": "C", "model": {"n": 1}},
                                                                    {"id": "i2", "cell": "C", "model": {"n": 2}}]},
        {"id": "s2", "title": "Second", "indexTitle": "S", "items": [{"id": "i3", "cell": "C", "model": {"n": 3}}]},
    ]}
    json_path.write_text(json.dumps(document))
    state = attach(src, lid, json_path.as_uri(), expect=200)
    assert state["lastFetch"]["changed"] is True and state["lastFetch"]["items"] == 3, state
    assert canon_sections(src.doc(lid)) == canon_sections(document)
    at = src.doc(lid)["revision"]
    document["sections"].reverse()
    document["sections"][0]["items"].append({"id": "i1", "cell": "C", "model": {"n": 10}})
    del document["sections"][1]["items"][0]
    json_path.write_text(json.dumps(document))
    state = fetch_now(src, lid, state)
    assert state["lastFetch"]["changed"] is True
    assert canon_sections(src.doc(lid)) == canon_sections(document)
    d = src.diff(lid, at)
    assert counts(d)["sections"]["moved"] == 1 and counts(d)["items"]["moved"] == 1 and counts(d)["items"]["updated"] == 1, d
    assert revisions(src, lid)[0]["by"] == {"op": "source"}
    # A file that disappears is a failure; the list stays.
    json_path.unlink()
    state = fetch_now(src, lid, state)
    assert state["lastError"] is not None and state["lastFetch"]["status"] is None
    assert canon_sections(src.doc(lid)) == canon_sections(document)


# ---------------------------------------------------------------------------
# Metrics


def test_metrics_count_fetches_by_outcome_and_sources(make_server, feed):
    server = make_server(env=ALLOW_LOOPBACK)
    tagged, plain = uid("m"), uid("m")
    feed.set("/m1.xml", rss("Tagged", FRUITS), etag='"t1"')
    feed.set("/m2.xml", rss("Plain", FRUITS))
    s1 = attach(server, tagged, feed.url("/m1.xml"))        # changed
    fetch_now(server, tagged, s1)                           # not_modified
    s2 = attach(server, plain, feed.url("/m2.xml"))         # changed
    fetch_now(server, plain, s2)                            # unchanged
    feed.set("/m2.xml", "no", status=500, content_type="text/plain")
    fetch_now(server, plain, s2)                            # failed
    name = "listdelta_source_fetches_total"
    assert {o: metric(server, name, outcome=o) for o in ("changed", "unchanged", "not_modified", "failed")} == \
        {"changed": 2, "unchanged": 1, "not_modified": 1, "failed": 1}
    assert metric(server, "listdelta_sources") == 2
    assert metric(server, "listdelta_sources_failing") == 1
    assert delete_source(server, plain).status_code == 204
    assert metric(server, "listdelta_sources") == 1
    assert metric(server, "listdelta_sources_failing") == 0


# ---------------------------------------------------------------------------
# The page's source panel


SOURCE_PANEL_JS = """
const p = document.getElementById('source');
const t = (id) => document.getElementById(id)?.textContent ?? null;
return p ? {hidden: p.hidden, url: p.getAttribute('data-source-url'), shownUrl: t('source-url'),
  fetchedAt: p.getAttribute('data-fetched-at'), status: t('source-status'), items: t('source-items'),
  changed: t('source-changed'), failures: t('source-failures'), error: document.getElementById('source-error').hidden ? null : t('source-error'),
  interval: t('source-interval'), sections: t('source-sections'), next: t('source-next'),
  revision: document.querySelector('[data-revision]')?.getAttribute('data-revision')} : null;
"""


def test_the_page_shows_the_source_and_fetches_now(make_server, feed):
    from browser_support import browser_errors, chrome, check_served_web_files, save_screenshot

    server = make_server(env=ALLOW_LOOPBACK)
    check_served_web_files(server)
    fed, plain = uid("page-src"), uid("page-plain")
    feed.set("/page.xml", rss("Paged", FRUITS))
    state = attach(server, fed, feed.url("/page.xml"), interval=600)
    assert server.put(plain, {"kind": "array", "title": "Plain", "items": [{"id": "p", "model": {"text": "P"}}]}).status_code == 201
    driver = chrome()
    try:
        driver.get(server.url(f"/?list={plain}"))
        wait_for(lambda: (driver.execute_script(SOURCE_PANEL_JS) or {}).get("revision") == "1", message="the plain list")
        time.sleep(0.5)
        assert driver.execute_script(SOURCE_PANEL_JS)["hidden"] is True  # no source: nothing shown

        driver.get(server.url(f"/?list={fed}"))
        panel = wait_for(lambda: (lambda p: p if p and not p["hidden"] and p["items"] == "4" else None)(
            driver.execute_script(SOURCE_PANEL_JS)), message="the source panel")
        assert panel["url"] == feed.url("/page.xml") and panel["shownUrl"] == feed.url("/page.xml")
        assert panel["status"] == "200" and panel["failures"] == "0" and panel["error"] is None, panel
        assert "600" in panel["interval"] or "10 min" in panel["interval"], panel
        assert panel["sections"] == "none" and panel["fetchedAt"] == state["lastFetch"]["at"], panel
        assert panel["next"] and panel["next"] != "–"

        # The feed changes; "Fetch now" PUTs the same settings: a new revision, shown with the new state.
        feed.set("/page.xml", rss("Paged", FRUITS + [entry("e", "Elderberry", day(26))]))
        before = feed.count("/page.xml")
        driver.execute_script("document.getElementById('source-fetch').scrollIntoView({block: 'center'})")
        driver.find_element("id", "source-fetch").click()
        panel = wait_for(lambda: (lambda p: p if p["revision"] == "2" and p["items"] == "5" else None)(
            driver.execute_script(SOURCE_PANEL_JS)), message="the fetch now")
        assert feed.count("/page.xml") == before + 1
        settings = get_source(server, fed).json()
        assert {k: settings[k] for k in ("url", "interval", "sections", "maxItems")} == \
            {"url": feed.url("/page.xml"), "interval": 600, "sections": "none", "maxItems": 1000}
        assert panel["changed"] == "yes", panel
        wait_for(lambda: driver.find_elements("css selector", '[data-item-id="e"]'), message="the new item")

        # A failing fetch shows the error and the failure count.
        feed.set("/page.xml", "down", status=500, content_type="text/plain")
        driver.find_element("id", "source-fetch").click()
        panel = wait_for(lambda: (lambda p: p if p["error"] and p["failures"] == "1" else None)(
            driver.execute_script(SOURCE_PANEL_JS)), message="the failure")
        assert panel["status"] == "500" and panel["error"] == get_source(server, fed).json()["lastError"]["detail"]

        # A revision made by a scheduled (here: another client's fetch-now) fetch refreshes the panel.
        feed.set("/page.xml", rss("Paged", FRUITS[:2]))
        fetch_now(server, fed, settings)
        wait_for(lambda: (lambda p: p if p["revision"] == "3" and p["items"] == "2" and p["error"] is None else None)(
            driver.execute_script(SOURCE_PANEL_JS)), message="the panel after another client's fetch")
        uncaught = [m for m in browser_errors(driver) if "Uncaught" in m or "TypeError" in m or "ReferenceError" in m]
        assert uncaught == []
        save_screenshot(driver, "source-panel.png")
    except Exception:
        save_screenshot(driver, "source-panel-failed.png")
        raise
    finally:
        driver.quit()


# ---------------------------------------------------------------------------
# Several instances on one PostgreSQL database: one fetcher at a time


@pytest.mark.skipif(pg_support.cluster_dir() is None, reason="no PostgreSQL cluster (scripts/test.sh starts one)")
def test_two_instances_on_one_database_never_fetch_a_source_at_once(make_server, feed):
    url = pg_support.new_database_url()
    env = {**ALLOW_LOOPBACK, "LISTDELTA_SOURCE_MIN_INTERVAL": "1"}
    a = make_server(["--database-url", url], env=env)
    b = make_server(["--database-url", url], env=env)
    lid = uid("lease")
    feed.set("/lease.xml", rss("Leased", FRUITS), delay=1.5)
    attach(a, lid, feed.url("/lease.xml"), interval=1)
    started = time.monotonic()
    assert get_source(b, lid).status_code == 200  # both instances know the source
    time.sleep(8)
    window = time.monotonic() - started
    assert delete_source(b, lid).status_code == 204
    time.sleep(2)  # let a fetch under way end
    spans = sorted((r["start"], r["end"]) for r in feed.seen("/lease.xml"))
    assert all(end is not None for _, end in spans), spans
    for (s1, e1), (s2, _) in zip(spans, spans[1:]):
        assert s2 >= e1 - 0.05, f"two fetches overlapped: {spans}"
    assert feed.max_active == 1
    # One fetch per interval + fetch time (2.5 s) over the window, not one per instance.
    scheduled = len(spans) - 1
    assert 1 <= scheduled <= window / 2.5 + 2, (scheduled, window, spans)
    assert a.doc(lid)["revision"] == 1 and b.doc(lid)["revision"] == 1
    assert [h["by"] for h in revisions(b, lid)] == [{"op": "source"}]
