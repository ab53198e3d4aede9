#!/usr/bin/env python3
"""Followers of one list through a cache (or straight at the origin), and a writer at the origin: the part of
Benchmarks/cdn.sh that runs one size. Loopback only; bounded in time.

Each follower is a plain HTTP/1.1 keep-alive connection in asyncio: it fetches the document, then polls
`diff?from=R&wait=S` and follows every answer's `Link: <…>; rel="next"` verbatim, applying each batch diff (the
normative procedure of Tests/e2e/listdelta_apply.py, memoised: every follower gets the same bytes). The followers
run in several processes (one per core by default). Once all of them poll, a writer in this process writes the
list at the origin at a steady rate, with one quiet gap longer than the poll's wait, and at the end every follower
must reach the origin's final document.

Prints one JSON object: followers, revisions, exact (followers whose document equals the origin's final one),
polls (the followers' requests), delivery_p99_ms (from the moment a write was sent to the moment a follower held
it, over every follower and revision) and seconds.
"""

import argparse
import asyncio
import json
import multiprocessing
import os
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests" / "e2e"))
from listdelta_apply import apply_batch_diff, canon_sections  # noqa: E402


class Connection(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection (an asyncio protocol: the followers' CPU is what bounds a run on a small
    machine); reopened when the server closes it."""

    def __init__(self, host, port):
        self.host, self.port = host, port
        self.transport = None
        self.buffer = bytearray()
        self.waiter = None

    def connection_made(self, transport):
        self.transport = transport

    def data_received(self, data):
        self.buffer += data
        self._complete()

    def connection_lost(self, exc):
        self.transport = None
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(ConnectionError("closed"))

    def _complete(self):
        """Resolves the waiter once the buffer holds a whole response (Content-Length framed, as nginx and the
        service send these)."""
        if self.waiter is None or self.waiter.done():
            return
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return
        head = bytes(self.buffer[:end]).decode("latin-1")
        lines = head.split("\r\n")
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        if len(self.buffer) < end + 4 + length:
            return
        body = bytes(self.buffer[end + 4:end + 4 + length])
        del self.buffer[:end + 4 + length]
        self.waiter.set_result((int(lines[0].split(" ", 2)[1]), headers, body))

    async def get(self, target):
        loop = asyncio.get_running_loop()
        for attempt in range(3):
            try:
                if self.transport is None:
                    self.buffer.clear()
                    await loop.create_connection(lambda: self, self.host, self.port)
                self.waiter = loop.create_future()
                self.transport.write(f"GET {target} HTTP/1.1\r\nHost: {self.host}\r\n\r\n".encode())
                status, headers, body = await self.waiter
                if headers.get("connection", "").lower() == "close":
                    self.close()
                return status, headers, body
            except (ConnectionError, OSError):
                self.close()
                if attempt == 2:
                    raise
                await asyncio.sleep(0.05 * (attempt + 1))

    def close(self):
        if self.transport is not None:
            self.transport.close()
        self.transport = None


class Documents:
    """Parsed bodies and applied diffs, memoised: every follower at one revision gets the same bytes."""

    def __init__(self):
        self.parsed = {}
        self.applied = {}

    def json(self, body):
        value = self.parsed.get(body)
        if value is None:
            value = self.parsed[body] = json.loads(body)
        return value

    def apply(self, document, body):
        key = (id(document), body)
        result = self.applied.get(key)
        if result is None:
            diff = self.json(body)
            result = apply_batch_diff(document, diff)
            result["revision"] = diff["to"]
            self.applied[key] = result
        return result


def next_target(link):
    if not link or not link.startswith("<"):
        return None
    end = link.find(">")
    return link[1:end] if end > 0 and 'rel="next"' in link[end:] else None


def query_parameter(query, first="&"):
    """`&q=…` (or `?q=…`) for a live query's JSON text, encoded as encodeURIComponent does; "" for none."""
    return f"{first}q={urllib.parse.quote(query, safe='-_.!~*()' + chr(39))}" if query else ""


async def follow(host, port, list_id, wait, docs, received, state, started, holder, query=None):
    """Follows until cancelled; `holder` always has the document held and the polls sent. With `query`, follows
    that live query of the list (the document and every poll carry `q`; the `next` links carry its canonical form)."""
    connection = Connection(host, port)
    status, _, body = await connection.get(f"/v1/lists/{list_id}{query_parameter(query, '?')}")
    assert status == 200, (status, body[:200])
    document = docs.json(body)
    target = f"/v1/lists/{list_id}/diff?from={document['revision']}{query_parameter(query)}&wait={wait}"
    holder["document"], holder["polls"] = document, 0
    started()
    # The last write wakes every held poll: a follower stops once it holds the final revision, with no poll left
    # in flight (a cancelled poll would abort the origin request other followers wait for behind the cache lock).
    while document["revision"] < state["final"] and time.monotonic() < state["deadline"]:
        status, headers, body = await connection.get(target)
        holder["polls"] += 1
        if status != 200:
            await asyncio.sleep(0.2)
            continue
        diff = docs.json(body)
        if diff["to"] != document["revision"]:
            now = time.time()
            for revision in range(document["revision"] + 1, diff["to"] + 1):
                received.append((revision, now))
            document = holder["document"] = docs.apply(document, body)
        target = next_target(headers.get("link")) or \
            f"/v1/lists/{list_id}/diff?from={document['revision']}{query_parameter(query)}&wait={wait}"
    connection.close()


def follower_process(args, count, ready, control, results):
    """Runs `count` followers; reports readiness, waits for the final revision, sends its results."""

    async def main():
        docs, received = Documents(), []
        state = {"final": args.final, "deadline": time.monotonic() + args.timeout}
        polling = 0

        def started():
            nonlocal polling
            polling += 1
            if polling == count:
                ready.put(count)

        tasks, holders = [], [{"document": {"revision": -1}, "polls": 0} for _ in range(count)]
        for i in range(count):
            tasks.append(asyncio.create_task(
                follow("127.0.0.1", args.port, args.list, args.wait, docs, received, state, started, holders[i], args.query)))
            if i % 200 == 199:
                await asyncio.sleep(0.02)  # open connections in small bursts
        loop = asyncio.get_running_loop()
        final = json.loads(await loop.run_in_executor(None, control.get))
        outcomes = await asyncio.gather(*tasks, return_exceptions=True)
        documents = [h["document"] for h in holders]
        errors = [repr(o) for o in outcomes if isinstance(o, BaseException)]
        # Followers at one revision share one memoised document: each distinct one is compared once.
        final_sections, verdicts = canon_sections(final), {}
        for d in documents:
            if id(d) not in verdicts:
                verdicts[id(d)] = d["revision"] == final["revision"] and canon_sections(d) == final_sections
        results.put({
            "followers": count,
            "exact": sum(1 for d in documents if verdicts[id(d)]),
            "polls": sum(h["polls"] for h in holders),
            "received": received,
            "errors": errors[:5],
            "error_count": len(errors),
        })

    asyncio.run(main())


def document(i, width=40):
    """Revision i of the benchmark's list: a window of `width` items moving along, one section."""
    items = [{"id": f"i{n}", "model": {"n": n}} for n in range(i, i + width)]
    return {"kind": "sections", "sections": [{"id": "s", "title": "S", "indexTitle": "S", "items": items}]}


def put(origin, list_id, body):
    request = urllib.request.Request(f"http://127.0.0.1:{origin}/v1/lists/{list_id}", data=json.dumps(body).encode(),
                                     method="PUT", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())["revision"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True, help="where followers connect (the cache, or the origin)")
    parser.add_argument("--origin", type=int, required=True, help="the origin's port (the writer's)")
    parser.add_argument("--list", required=True)
    parser.add_argument("--followers", type=int, required=True)
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--wait", type=int, default=10, help="the polls' wait (default 10)")
    parser.add_argument("--rate", type=float, default=1.0, help="writes per second (default 1)")
    parser.add_argument("--writes", type=int, default=20, help="writes, half before the quiet gap and half after")
    parser.add_argument("--gap", type=float, default=None, help="the quiet gap in seconds (default wait + 5)")
    parser.add_argument("--timeout", type=float, default=180, help="the most a run may take (default 180)")
    parser.add_argument("--query", default=None, help="follow this live query of the list (a view definition without of, as JSON)")
    args = parser.parse_args()
    gap = args.gap if args.gap is not None else args.wait + 5

    started = time.monotonic()
    revision = put(args.origin, args.list, document(0))
    args.final = revision + args.writes
    ctx = multiprocessing.get_context("fork")
    ready, control, results = ctx.Queue(), ctx.Queue(), ctx.Queue()
    shares = [args.followers // args.processes + (1 if p < args.followers % args.processes else 0) for p in range(args.processes)]
    shares = [s for s in shares if s > 0]
    workers = [ctx.Process(target=follower_process, args=(args, share, ready, control, results)) for share in shares]
    for w in workers:
        w.start()
    for _ in workers:
        ready.get(timeout=args.timeout)
    sent = {}
    for n in range(1, args.writes + 1):
        sent[revision + 1] = time.time()
        revision = put(args.origin, args.list, document(n))
        pause = 1.0 / args.rate
        if n == args.writes // 2:
            pause = gap
        if n < args.writes:
            time.sleep(pause)
    with urllib.request.urlopen(f"http://127.0.0.1:{args.origin}/v1/lists/{args.list}{query_parameter(args.query, '?')}", timeout=30) as answer:
        final = json.loads(answer.read())
    assert final["revision"] == args.final, (final["revision"], args.final)
    for _ in workers:
        control.put(json.dumps(final))
    merged = {"exact": 0, "polls": 0, "received": [], "errors": [], "error_count": 0}
    for _ in workers:
        part = results.get(timeout=args.timeout + 30)
        merged["exact"] += part["exact"]
        merged["polls"] += part["polls"]
        merged["received"] += part["received"]
        merged["errors"] += part["errors"]
        merged["error_count"] += part["error_count"]
    for w in workers:
        w.join(30)
    delays = sorted((t - sent[r]) * 1000 for r, t in merged["received"] if r in sent)
    p99 = delays[min(len(delays) - 1, int(len(delays) * 0.99))] if delays else float("nan")
    print(json.dumps({
        "followers": args.followers, "revisions": args.writes, "final_revision": final["revision"],
        "exact": merged["exact"], "polls": merged["polls"], "delivery_p99_ms": round(p99),
        "errors": merged["errors"], "error_count": merged["error_count"],
        "seconds": round(time.monotonic() - started, 1),
    }))


if __name__ == "__main__":
    main()
