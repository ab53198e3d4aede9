#!/usr/bin/env python3
"""Reads a corpus of feeds both with ListDelta (a real server, each feed attached as a source and served from a feed
server on loopback) and with Python's feedparser (the oracle, given the same bytes and the URL they were served
from), and prints how far they agree.

The corpus is a directory of feeds, searched recursively (feedparser's own `tests/wellformed`, for instance; not
part of this repository). A feed is valid when feedparser reads it without an error (`bozo` false) and finds at
least one entry. For the valid feeds it prints:

- how many give ListDelta items, and how many give as many items as feedparser has entries;
- titles: of the entries (of feeds whose counts agree) where either reader has a title, how many are equal;
- links: the same for links;

titles and links compared after the rules of docs/sources.md (Tests/e2e/feed_rules.py). `--misses` prints each
feed or entry that differs.

    swift build --product listdelta
    python3 Benchmarks/feed-corpus.py /tmp/feedparser/tests/wellformed [--binary .build/debug/listdelta] [--misses]
"""

import argparse
import os
import sys
import tempfile
import warnings
from pathlib import Path

import feedparser

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests" / "e2e"))

from feed_rules import comparable_link, shown_link, shown_title  # noqa: E402


def main():
    arguments = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    arguments.add_argument("corpus", help="a directory of feeds (searched recursively)")
    arguments.add_argument("--binary", help="the listdelta binary (default: .build/debug/listdelta)")
    arguments.add_argument("--misses", action="store_true", help="print every feed and entry that differs")
    options = arguments.parse_args()
    if options.binary:
        os.environ["LISTDELTA_BIN"] = os.path.abspath(options.binary)
    # conftest reads LISTDELTA_BIN when imported.
    from conftest import Server
    from test_sources import ALLOW_LOOPBACK, FeedServer

    corpus = Path(options.corpus)
    paths = sorted(p for p in corpus.rglob("*") if p.is_file())
    warnings.simplefilter("ignore")
    feeds = FeedServer()
    with tempfile.TemporaryDirectory() as directory:
        data = Path(directory) / "db"
        data.mkdir()
        server = Server(data, env=ALLOW_LOOPBACK).start()
        try:
            tally = Tally(options.misses)
            for index, path in enumerate(paths):
                name = path.relative_to(corpus).as_posix()
                url_path = f"/corpus/{name}"
                body = path.read_bytes()
                feeds.set(url_path, body, content_type="application/xml")
                url = feeds.url(url_path)
                oracle = feedparser.parse(body, response_headers={"content-location": url,
                                                                  "content-type": "application/xml"})
                if oracle.bozo or not oracle.entries:
                    continue
                tally.compare(name, oracle.entries, read(server, f"corpus-{index}", url))
        finally:
            server.stop()
            feeds.close()
    tally.report(len(paths))


def read(server, list_id, url):
    """The items ListDelta makes of the feed at `url` (None when the fetch failed), the list and source removed."""
    response = server.request("PUT", f"/v1/lists/{list_id}/source", json={"url": url, "maxItems": 1000}, timeout=30)
    if response.status_code not in (200, 201) or response.json().get("lastError"):
        return None
    document = server.get(f"/v1/lists/{list_id}").json()
    server.request("DELETE", f"/v1/lists/{list_id}/source", timeout=30)
    server.request("DELETE", f"/v1/lists/{list_id}", timeout=30)
    return [item for section in document.get("sections", []) for item in section["items"]]


class Tally:
    def __init__(self, print_misses):
        self.print_misses = print_misses
        self.valid = self.with_items = self.same_count = 0
        self.titles = [0, 0]
        self.links = [0, 0]

    def miss(self, text):
        if self.print_misses:
            print("miss", text)

    def compare(self, name, entries, items):
        self.valid += 1
        if not items:
            self.miss(f"{name}: no items ({'refused' if items is None else 'none read'})")
            return
        self.with_items += 1
        if len(items) != len(entries):
            self.miss(f"{name}: {len(items)} items, feedparser {len(entries)} entries")
            return
        self.same_count += 1
        for index, (item, entry) in enumerate(zip(items, entries)):
            model = item["model"]
            theirs = shown_title(entry.get("title_detail"), entry.get("title"))
            self.count(self.titles, f"{name} entry {index} title", model["title"], theirs)
            theirs = comparable_link(shown_link(entry.get("link")))
            self.count(self.links, f"{name} entry {index} link", comparable_link(model["link"]), theirs)

    def count(self, counter, what, ours, theirs):
        if ours is None and theirs is None:
            return
        counter[1] += 1
        if ours == theirs:
            counter[0] += 1
        else:
            self.miss(f"{what}: ListDelta {ours!r}, feedparser {theirs!r}")

    def report(self, files):
        def percent(part, whole):
            return f"{100 * part / whole:.1f}" if whole else "-"

        print(f"corpus files={files} valid={self.valid} with_items={self.with_items} "
              f"with_items_pct={percent(self.with_items, self.valid)} same_count={self.same_count}")
        print(f"corpus titles_equal={self.titles[0]}/{self.titles[1]} titles_pct={percent(*self.titles)} "
              f"links_equal={self.links[0]}/{self.links[1]} links_pct={percent(*self.links)}")


if __name__ == "__main__":
    main()
