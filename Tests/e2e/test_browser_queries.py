"""The live page's query bar in headless Chromium: a filter, a sort, "Show 20 more" (a larger `limit`) and a window
moved by `offset` (API.md "Live queries").

After every change the test waits (bounded) until the page shows exactly what `GET /v1/lists/{id}?q=` answers for
the query the bar shows, then checks that the change arrived as a diff (a line of the page's diff log naming what
was inserted or deleted, the items that entered flashed as inserted) and not as a reset (no reset reported, the
follower's reset count unchanged).
"""

import json
from urllib.parse import parse_qs, urlparse

import pytest

from browser_support import browser_errors, check_served_web_files, chrome, save_screenshot, wait_for
from conftest import uid
from test_browser import click, uncaught

COLOURS = ["red", "green", "blue"]

STATE_JS = """
const sections = [...document.querySelectorAll('#sections > [data-section-id]')].map((s) =>
  [s.getAttribute('data-section-id'), [...s.querySelectorAll('[data-item-id]')].map((i) => i.getAttribute('data-item-id'))]);
const inserted = [...document.querySelectorAll('#sections [data-item-id].inserted')].map((i) => i.getAttribute('data-item-id'));
return {
  revision: document.getElementById('revision').getAttribute('data-revision'),
  sections,
  inserted,
  log: [...document.querySelectorAll('#log li')].map((x) => x.textContent),
  resets: window.listdelta.resets.map((r) => r.reason),
  followerResets: window.listdelta.follower ? window.listdelta.follower.resets : null,
  query: window.listdelta.query,
  followerQuery: window.listdelta.follower ? window.listdelta.follower.query : null,
  windowText: document.getElementById('query-window').textContent,
  queryText: document.getElementById('query-text').textContent,
  error: document.getElementById('query-error').hidden ? null : document.getElementById('query-error').textContent,
  busy: document.getElementById('query-bar').getAttribute('aria-busy'),
  disabled: Object.fromEntries(['query-first', 'query-more', 'query-prev', 'query-next', 'query-all', 'query-clear']
    .map((id) => [id, document.getElementById(id).disabled])),
  url: location.href,
};
"""


def q_text(query):
    return json.dumps(query, separators=(",", ":"))


def base_document(count=150):
    """Three sections, `count` items in all: each has a distinct `n` and a colour (51 of 150 red)."""
    sections = [{"id": f"s{k}", "title": f"Section {k}", "indexTitle": str(k), "items": []} for k in range(3)]
    for k in range(count):
        sections[k % 3]["items"].append(
            {"id": f"i{k}", "model": {"text": f"Item {k}", "n": (k * 37) % count, "colour": COLOURS[(k // 3) % 3]}})
    return {"kind": "sections", "sections": sections}


def expected(server, list_id, query):
    r = server.get(list_id, params={"q": q_text(query)} if query else None)
    assert r.status_code == 200, r.text
    doc = r.json()
    return doc, [[s["id"], [i["id"] for i in s["items"]]] for s in doc["sections"]]


def state(driver):
    return driver.execute_script(STATE_JS)


def shows(driver, server, list_id, query, what, timeout=10):
    """Waits until the page shows GET ?q= of `query` (the bar's query being `query`); returns (state, document)."""
    last = {}

    def check():
        st = state(driver)
        doc, secs = expected(server, list_id, query)
        last.update(st=st, want=secs)
        if st["query"] == query and st["busy"] == "false" and st["sections"] == secs and st["revision"] == str(doc["revision"]):
            return st, doc
        return None

    try:
        return wait_for(check, timeout=timeout, message=what)
    except AssertionError:
        pytest.fail(f"after {what!r}: the page did not show GET ?q={query} in {timeout} s\n"
                    f"server: {last.get('want')}\npage:   {last.get('st')}\nconsole: {browser_errors(driver)}")


def animated_as_diff(before, after, *words):
    """The change came as a diff: no reset, a diff log line naming each of `words` ("inserted", "deleted")."""
    assert after["resets"] == before["resets"], (before["resets"], after["resets"])
    assert after["followerResets"] == before["followerResets"]
    new_lines = after["log"][: len(after["log"]) - len(before["log"])] if len(after["log"]) < 60 else after["log"][:4]
    assert any(line.split("  ", 1)[-1].startswith("query: ") for line in new_lines), new_lines
    diffs = [line for line in new_lines if " → r" in line]
    assert diffs, new_lines
    for word in words:
        assert word in diffs[0], (word, diffs)
    assert not any("reset" in line for line in new_lines), new_lines


def fill(driver, element_id, text):
    field = driver.find_element("id", element_id)
    field.clear()
    if text:
        field.send_keys(text)


def choose(driver, element_id, value):
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", element_id)).select_by_value(value)


def press(driver, element_id):
    click(driver, driver.find_element("id", element_id))


def ids_of(secs):
    return [i for _, items in secs for i in items]


@pytest.mark.parametrize("mode", ["poll", "events"])
def test_query_bar_filters_sorts_pages_and_windows_as_diffs(make_server, mode):
    server = make_server()
    check_served_web_files(server)
    list_id = uid("qbar")
    assert server.put(list_id, base_document()).status_code == 201
    driver = chrome()
    try:
        suffix = "&mode=events" if mode == "events" else ""
        driver.get(server.url(f"/?list={list_id}{suffix}"))
        st, _ = shows(driver, server, list_id, None, "the first load")
        assert st["windowText"] == "Showing all items" and st["queryText"] == "the whole list"
        assert st["disabled"]["query-more"] and st["disabled"]["query-next"] and st["disabled"]["query-clear"]

        # A filter and a sort: red items by n, descending (sections kept).
        before = st
        fill(driver, "query-where-path", "/model/colour")
        choose(driver, "query-where-op", "eq")
        fill(driver, "query-where-value", "red")
        fill(driver, "query-sort-path", "/model/n")
        choose(driver, "query-sort-order", "desc")
        press(driver, "query-apply")
        red = {"where": [{"path": "/model/colour", "op": "eq", "value": "red"}], "sort": [{"path": "/model/n", "order": "desc"}]}
        st, doc = shows(driver, server, list_id, red, "a filter and a sort")
        animated_as_diff(before, st, "deleted")
        assert doc["query"] == red
        assert len(ids_of(st["sections"])) == 51
        assert json.loads(parse_qs(urlparse(st["url"]).query)["q"][0]) == red
        assert st["followerQuery"] == red

        # "First 20": a window of 20 of them.
        before = st
        press(driver, "query-first")
        page20 = {**red, "limit": 20}
        st, _ = shows(driver, server, list_id, page20, "first 20")
        animated_as_diff(before, st, "deleted")
        assert len(ids_of(st["sections"])) == 20 and st["windowText"] == "Showing items 1–20"

        # "Show 20 more": limit 40, the next 20 items inserted (and flashed as inserted), nothing deleted or moved.
        before = st
        press(driver, "query-more")
        page40 = {**red, "limit": 40}
        st, _ = shows(driver, server, list_id, page40, "show 20 more")
        animated_as_diff(before, st, "20 items inserted")
        diff_line = next(line for line in st["log"] if " → r" in line)
        assert "deleted" not in diff_line and "moved" not in diff_line, diff_line
        entered = set(ids_of(st["sections"])) - set(ids_of(before["sections"]))
        assert len(entered) == 20 and entered <= set(st["inserted"]), (entered, st["inserted"])
        assert st["windowText"] == "Showing items 1–40"

        # "Next 20": the window moves by 20 (items 21–51 of 51: 20 leave, 11 enter).
        before = st
        press(driver, "query-next")
        moved = {**red, "offset": 20, "limit": 40}
        st, _ = shows(driver, server, list_id, moved, "next 20")
        animated_as_diff(before, st, "20 items deleted", "11 items inserted")
        assert st["windowText"] == "Showing items 21–51"
        assert st["disabled"]["query-next"], "the window reaches the end"
        assert not st["disabled"]["query-prev"]

        # "Previous 20": back to the first 40.
        before = st
        press(driver, "query-prev")
        st, _ = shows(driver, server, list_id, page40, "previous 20")
        animated_as_diff(before, st, "inserted", "deleted")

        # The query is followed: a base write that brings an item into the window arrives as a diff.
        doc = server.doc(list_id)
        j, first = next((j, i) for j, i in enumerate(doc["sections"][1]["items"]) if i["model"]["colour"] != "red")
        r = server.patch(list_id, [{"op": "replace", "path": f"/sections/1/items/{j}/model",
                                   "value": {"text": "Now red", "n": 1000, "colour": "red"}}])
        assert r.status_code == 200, r.text
        st, _ = shows(driver, server, list_id, page40, "a base write into the window")
        assert first["id"] in ids_of(st["sections"])

        # A query the server refuses (a path it does not know): the error is shown, the list and the query stay.
        before = st
        fill(driver, "query-where-path", "colour")
        press(driver, "query-apply")
        st = wait_for(lambda: (lambda s: s if s["error"] and s["busy"] == "false" else None)(state(driver)),
                      message="the refusal shown")
        assert "/q/where/0/path" in st["error"], st["error"]
        assert st["query"] == page40 and st["followerQuery"] == page40
        assert st["sections"] == before["sections"] and st["resets"] == before["resets"]
        st, _ = shows(driver, server, list_id, page40, "still following after the refusal")

        # A reload of the address shows the same query.
        driver.get(st["url"])
        st, _ = shows(driver, server, list_id, page40, "the address reloaded")
        assert driver.find_element("id", "query-where-value").get_attribute("value") == "red"
        assert driver.find_element("id", "query-sort-order").get_attribute("value") == "desc"

        # "Whole list": the whole list again, as a diff.
        before = st
        press(driver, "query-clear")
        st, _ = shows(driver, server, list_id, None, "the whole list")
        animated_as_diff(before, st, "inserted")
        assert "q" not in parse_qs(urlparse(st["url"]).query)
        save_screenshot(driver, f"browser-queries-{mode}.png")
        assert uncaught(driver) == []
    finally:
        driver.quit()


def test_demo_writer_writes_while_a_query_is_shown(make_server):
    """The whole list's follower is writable and follows no query: with a query shown the follower follows it, and the
    demo writer writes through a follower of the whole list, made at its first write and kept for the next ones; the
    query shows what it brings.
    Back on the whole list, the follower on show is writable again."""
    server = make_server()
    list_id = uid("qwrite")
    assert server.put(list_id, base_document(30)).status_code == 201
    by_id = {"sort": [{"path": "/id", "order": "asc"}]}
    driver = chrome()
    try:
        driver.get(server.url(f"/?list={list_id}&q={q_text(by_id)}"))
        st, _ = shows(driver, server, list_id, by_id, "the first load with a query")
        assert driver.execute_script("return window.listdelta.follower.writable") is False
        for name, grows in (("insertItem", 1), ("updateItem", 0), ("deleteItem", -1)):
            count = len(ids_of(st["sections"]))
            before = server.doc(list_id)["revision"]
            click(driver, driver.find_element("css selector", f'.panel button[data-action="{name}"]'))
            wait_for(lambda: server.doc(list_id)["revision"] == before + 1, message=f"{name} to write")
            st, _ = shows(driver, server, list_id, by_id, f"{name} under the query")
            assert len(ids_of(st["sections"])) == count + grows
        assert not [line for line in st["log"] if "refused" in line or "HTTP" in line], st["log"]

        # The whole list: the writable follower takes over (as a diff), and writes through itself.
        press(driver, "query-clear")
        st, _ = shows(driver, server, list_id, None, "the whole list")
        assert driver.execute_script("return window.listdelta.follower.writable") is True
        before = server.doc(list_id)["revision"]
        click(driver, driver.find_element("css selector", '.panel button[data-action="insertItem"]'))
        wait_for(lambda: server.doc(list_id)["revision"] == before + 1, message="a write on the whole list")
        st, _ = shows(driver, server, list_id, None, "the write on the whole list")

        # A query the server refuses, asked for on the whole list: the follower that was to take over gives up, the
        # error is shown and the writable follower goes on.
        fill(driver, "query-where-path", "colour")
        press(driver, "query-apply")
        refused = wait_for(lambda: (lambda s: s if s["error"] and s["busy"] == "false" else None)(state(driver)),
                           message="the refusal shown")
        assert "/q/where/0/path" in refused["error"], refused["error"]
        assert refused["query"] is None and refused["sections"] == st["sections"]
        assert driver.execute_script("return window.listdelta.follower.writable") is True
        shows(driver, server, list_id, None, "still following after the refusal")
        assert uncaught(driver) == []
    finally:
        driver.quit()
