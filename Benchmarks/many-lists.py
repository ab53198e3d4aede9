#!/usr/bin/env python3
"""Clients following many lists: over one event stream each, or over one stream per list (stdlib asyncio, raw
HTTP/1.1, loopback only).

--clients (default 1000) clients each follow --per-client (default 10) of --lists (default 100) lists:
  --mode many:   one GET /v1/events?lists=a:R,b:R,... per client            (1,000 connections)
  --mode single: one GET /v1/lists/<id>/events?from=R per list per client   (10,000 connections)
Once every stream is open, one writer PUTs changes to random lists at --rate writes per second for --seconds,
recording when it sent each write; every client records when each diff event arrives. Every event is checked
(each list's revisions in order, once each per follower). Prints exactly one line:
  many_lists mode=<m> connections=<n> writes=<w> events=<delivered>/<expected> events_per_s=<r>
    delay_p50_ms=<x> delay_p99_ms=<y> rss_mb=<connected> rss_peak_mb=<during> server_cpu_s=<s>
(delay: from sending the write to the event's arrival; rss: the server's VmRSS with every stream open, and its
peak while events flowed), plus details on stderr. Bounded by --deadline seconds.
"""

import argparse
import asyncio
import json
import os
import random
import re
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from importlib import import_module

polls = import_module("parked-polls")  # vm(), cpu_seconds(), http()

EVENT_HEAD = re.compile(rb'^data: \{"id":"([^"]+)","from":(\d+),"to":(\d+)')


def document(n):
    return json.dumps({"kind": "array", "items": [{"id": f"i{(n + k) % 50}", "model": {"n": n}} for k in range(20)]}).encode()


async def follow(port, paths, arrivals, opened, errors):
    """One client: opens its streams, then records (list, from, to, time) for every diff event."""
    async def stream(path):
        try:
            for attempt in range(20):
                reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
                writer.write(f"GET {path} HTTP/1.1\r\nHost: b\r\nAccept: text/event-stream\r\n\r\n".encode())
                await writer.drain()
                status = await reader.readline()
                if b" 503 " not in status:
                    break
                # A burst of connections can fill the server's queue: retry as EventSource would, with jitter.
                writer.close()
                await asyncio.sleep(random.uniform(0.1, 0.5))
            if b" 200 " not in status:
                errors.append(status)
                return
            while (await reader.readline()) not in (b"\r\n", b""):
                pass
            opened.append(1)
            while True:
                line = await reader.readline()
                if not line:
                    return
                if line.startswith(b"data: {"):
                    match = EVENT_HEAD.match(line)
                    if match:
                        arrivals.append((match.group(1), int(match.group(2)), int(match.group(3)), time.monotonic()))
        except (OSError, asyncio.IncompleteReadError) as error:
            errors.append(repr(error))

    await asyncio.gather(*(stream(path) for path in paths))


async def writer(port, lists, rate, seconds, sent):
    """PUTs at `rate` per second over one keep-alive connection; records (list, revision) -> send time."""
    reader, conn = await asyncio.open_connection("127.0.0.1", port)
    rng = random.Random(7)
    end = time.monotonic() + seconds
    n = 0
    next_at = time.monotonic()
    while time.monotonic() < end:
        await asyncio.sleep(max(0, next_at - time.monotonic()))
        next_at += 1 / rate
        lid = rng.choice(lists)
        n += 1
        body = document(n)
        started = time.monotonic()
        conn.write(f"PUT /v1/lists/{lid} HTTP/1.1\r\nHost: b\r\nContent-Type: application/json\r\n"
                   f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        await conn.drain()
        await reader.readline()
        length = 0
        while True:
            line = await reader.readline()
            if line == b"\r\n":
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        answer = json.loads(await reader.readexactly(length))
        sent[(lid.encode(), answer["revision"])] = started
    conn.close()


async def run(args):
    rng = random.Random(args.seed)
    lists = [f"{args.prefix}-{k}" for k in range(args.lists)]
    revisions = {}
    for lid in lists:
        status, body = polls.http(args.port, "PUT", f"/v1/lists/{lid}", document(0))
        revisions[lid] = json.loads(body)["revision"]
    follows = [rng.sample(lists, args.per_client) for _ in range(args.clients)]
    if args.mode == "many":
        paths = [[("/v1/events?lists=" + ",".join(f"{lid}:{revisions[lid]}" for lid in chosen))] for chosen in follows]
    else:
        paths = [[f"/v1/lists/{lid}/events?from={revisions[lid]}" for lid in chosen] for chosen in follows]
    connections = sum(len(p) for p in paths)
    arrivals, opened, errors, sent = [], [], [], {}
    started = time.monotonic()
    clients = [asyncio.ensure_future(follow(args.port, p, arrivals, opened, errors)) for p in paths]
    while len(opened) + len(errors) < connections and time.monotonic() - started < args.deadline / 3:
        await asyncio.sleep(0.1)
    print(f"opened {len(opened)}/{connections} streams in {time.monotonic() - started:.1f}s, errors {len(errors)} "
          f"{errors[:3]}", file=sys.stderr)
    await asyncio.sleep(1)
    rss_connected = polls.vm(args.pid, "VmRSS") / 1024
    cpu_before = polls.cpu_seconds(args.pid)
    peak = [rss_connected]

    async def sample():
        while True:
            peak[0] = max(peak[0], polls.vm(args.pid, "VmRSS") / 1024)
            await asyncio.sleep(0.2)

    sampler = asyncio.ensure_future(sample())
    await writer(args.port, lists, args.rate, args.seconds, sent)
    followers = {}
    for chosen in follows:
        for lid in chosen:
            followers[lid.encode()] = followers.get(lid.encode(), 0) + 1
    expected = sum(followers[lid] for lid, _ in sent)
    drain_until = time.monotonic() + 10
    while len(arrivals) < expected and time.monotonic() < drain_until:
        await asyncio.sleep(0.1)
    sampler.cancel()
    cpu = polls.cpu_seconds(args.pid) - cpu_before
    for client in clients:
        client.cancel()
    await asyncio.gather(*clients, return_exceptions=True)

    delays = sorted((at - sent[(lid, to)]) * 1000 for lid, _, to, at in arrivals if (lid, to) in sent)
    # Every event continues its list's sequence: from equals the previous event's to for that stream's list.
    per_list = {}
    for lid, frm, to, _ in arrivals:
        per_list.setdefault(lid, []).append((frm, to))
    broken = sum(1 for lid, pairs in per_list.items() for frm, to in pairs if to != frm + 1)
    if arrivals:
        span = max(at for *_, at in arrivals) - min(sent.values())
    else:
        span = 1
    pct = lambda p: delays[min(len(delays) - 1, int(len(delays) * p))] if delays else -1
    print(f"events that skipped a revision: {broken}", file=sys.stderr)
    print(f"many_lists mode={args.mode} connections={connections} writes={len(sent)} events={len(delays)}/{expected} "
          f"events_per_s={len(delays) / span:.0f} delay_p50_ms={pct(0.5):.1f} delay_p99_ms={pct(0.99):.1f} "
          f"rss_mb={rss_connected:.1f} rss_peak_mb={peak[0]:.1f} server_cpu_s={cpu:.2f}")
    return 0 if len(delays) == expected and broken == 0 and not errors else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--mode", choices=["many", "single"], required=True)
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--per-client", type=int, default=10)
    parser.add_argument("--lists", type=int, default=100)
    parser.add_argument("--rate", type=float, default=20)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--prefix", default="many")
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--deadline", type=float, default=120)
    args = parser.parse_args()
    try:
        return asyncio.run(asyncio.wait_for(run(args), args.deadline))
    except asyncio.TimeoutError:
        print(f"many_lists mode={args.mode} did not finish within {args.deadline}s", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
