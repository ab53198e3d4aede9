"""What ListDelta shows of a feed entry, derived from what feedparser read of it, by the rules of docs/sources.md
("Titles and links"). The differential test (test_feed_differential.py) and the corpus measurement
(Benchmarks/feed-corpus.py) compare ListDelta's items with feedparser's entries through these rules, so that a
difference the documentation gives a reason for is not counted as a miss.
"""

import html
import re
from urllib.parse import quote, urlsplit

HTML_TYPES = {"text/html", "application/xhtml+xml"}
# The content of script and style elements, comments and CDATA sections: never shown as text.
_HIDDEN = re.compile(r"<(script|style)(?=[\s/>])[^>]*>.*?(</\1(?=[\s/>])[^>]*(>|$)|$)|<!--.*?(-->|$)|<!\[CDATA\[.*?(\]\]>|$)",
                     re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[A-Za-z/!?][^>]*>")


def html_as_text(markup):
    """HTML shown as text: hidden parts and tags removed, character references decoded, white space made one space."""
    return " ".join(html.unescape(_TAG.sub("", _HIDDEN.sub("", markup))).split())


def shown_title(detail, value):
    """feedparser's title as ListDelta's model shows it: an HTML title (`title_detail.type` text/html or
    application/xhtml+xml, where feedparser keeps the markup) as text."""
    if value is None:
        return None
    if (detail or {}).get("type") in HTML_TYPES:
        value = html_as_text(value)
    value = value.strip()
    return value or None


def shown_link(value):
    """feedparser's link as ListDelta's model has it: only an `http` or `https` URL is a link (feedparser keeps any
    scheme, and a link it could not make absolute)."""
    if not value:
        return None
    return value if urlsplit(value.strip()).scheme.lower() in ("http", "https") else None


def comparable_link(value):
    """A link with the characters URIs do not hold as written percent-encoded: ListDelta encodes them as it resolves
    a relative link, feedparser keeps them as written."""
    if value is None:
        return None
    return quote(value, safe="!#$%&'()*+,-./:;=?@[]_~")
