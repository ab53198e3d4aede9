"""The live page (/) in headless Chromium: it follows a list through client.js and shows the server's order.

After every write the test waits (bounded) until the page's `data-revision` is the server's revision, then
asserts that the page's `data-section-id` order and each section's `data-item-id` order, titles and item texts
equal the server's document.
"""

import time

import pytest

from browser_support import (
    browser_errors,
    check_served_web_files,
    chrome,
    page_state,
    save_screenshot,
    wait_for,
)
from conftest import uid

PAGE_JS = """
const r = document.querySelectorAll('[data-revision]');
return {
  revision: r.length ? r[0].getAttribute('data-revision') : null,
  nRevision: r.length,
  sections: [...document.querySelectorAll('[data-section-id]')].map(s => ({
    id: s.getAttribute('data-section-id'),
    title: s.querySelector('header h2')?.textContent,
    indexTitle: s.querySelector('header .index-title')?.textContent,
    items: [...s.querySelectorAll('[data-item-id]')].map(i => [i.getAttribute('data-item-id'), i.querySelector('.item-text')?.textContent]),
  })),
  resets: window.listdelta ? window.listdelta.resets.map(x => x.reason) : null,
};
"""


def item(iid, text):
    return {"id": iid, "type": "Text", "model": {"text": text}}


def start_document():
    names = [("inbox", "Inbox"), ("today", "Today"), ("later", "Later"), ("archive", "Archive")]
    return {
        "kind": "sections",
        "cells": {"Text": "TextCell"},
        "sections": [
            {"id": sid, "title": title, "indexTitle": title[0],
             "items": [item(f"{sid}-{k}", f"{title} item {k}") for k in range(4)]}
            for sid, title in names
        ],
    }


def expected(server, list_id):
    doc = server.doc(list_id)
    secs = []
    for s in doc["sections"]:
        secs.append({
            "id": s["id"],
            "title": s["title"] if s["title"] is not None else "(untitled)",
            "indexTitle": s["indexTitle"] or "",
            "items": [[i["id"], (i.get("model") or {}).get("text") or "(no text)"] for i in s["items"]],
        })
    return doc["revision"], secs


def until_shown(want, shown, key, timeout):
    """Polls `want()` (the server) and `shown()` (the page) until `key(shown)` equals `want`; returns
    (matched, want, shown)."""
    deadline = time.monotonic() + timeout
    last = goal = None
    while time.monotonic() < deadline:
        goal = want()
        last = shown()
        if key(last) == goal:
            return True, goal, last
        time.sleep(0.05)
    return False, goal, last


def sync(driver, server, list_id, what, timeout=10):
    """Waits until the page shows the server's current document; returns the page state."""
    def shown():
        state = driver.execute_script(PAGE_JS)
        assert state["nRevision"] == 1, f"exactly one element carries data-revision, found {state['nRevision']}"
        return state

    def want():
        rev, secs = expected(server, list_id)
        return str(rev), secs

    ok, want, last = until_shown(want, shown, lambda st: (st["revision"], st["sections"]), timeout)
    if ok:
        return last
    pytest.fail(
        f"after {what!r}: the page did not show the server's document in {timeout} s\n"
        f"server: r{want[0]} {want[1]}\npage:   r{last['revision']} {last['sections']}\n"
        f"console: {browser_errors(driver)}"
    )


def patch(server, list_id, ops):
    r = server.patch(list_id, ops)
    assert r.status_code == 200, (ops, r.status_code, r.text)
    return r.json()


def click(driver, element):
    """A real click, on an element scrolled to the middle of the window (clear of the sticky bar)."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def click_css(driver, selector, tries=5):
    """Clicks the element `selector` names, finding it again if a refresh replaced it (the list index)."""
    from selenium.common.exceptions import StaleElementReferenceException

    for _ in range(tries):
        try:
            return click(driver, driver.find_element("css selector", selector))
        except StaleElementReferenceException:
            time.sleep(0.05)
    pytest.fail(f"{selector} kept going stale")


def list_text(driver, list_id):
    """The text of the list index's entry for `list_id` ("" when absent)."""
    return driver.execute_script(
        "const e = [...document.querySelectorAll('[data-list-id]')].find(x => x.dataset.listId === arguments[0]);"
        "return e ? e.textContent : ''", list_id)


def uncaught(driver):
    return [m for m in browser_errors(driver) if "Uncaught" in m or "TypeError" in m or "ReferenceError" in m]


STEPS = [
    ("move within a section", [{"op": "move", "from": "/sections/0/items/0", "path": "/sections/0/items/3"}]),
    ("move across sections", [{"op": "move", "from": "/sections/1/items/1", "path": "/sections/2/items/0"}]),
    ("insert an item", [{"op": "add", "path": "/sections/1/items/1", "value": item("new-1", "Freshly inserted")}]),
    ("delete an item", [{"op": "remove", "path": "/sections/3/items/2"}]),
    ("rename a section", [{"op": "replace", "path": "/sections/2/title", "value": "Someday"},
                          {"op": "replace", "path": "/sections/2/indexTitle", "value": "S"}]),
    ("update an item's content", [{"op": "replace", "path": "/sections/0/items/1/model", "value": {"text": "Edited <b>&amp; escaped</b>"}}]),
    ("move a section", [{"op": "move", "from": "/sections/3", "path": "/sections/0"}]),
    ("insert a section", [{"op": "add", "path": "/sections/2", "value": {
        "id": "fresh", "title": "Fresh", "indexTitle": "F", "items": [item("fresh-0", "In a new section")]}}]),
    ("delete a section", [{"op": "remove", "path": "/sections/4"}]),
    ("everything at once", [
        {"op": "move", "from": "/sections/0/items/0", "path": "/sections/1/items/0"},
        {"op": "move", "from": "/sections/2", "path": "/sections/0"},
        {"op": "add", "path": "/sections/3/items/0", "value": item("new-2", "Another one")},
        {"op": "replace", "path": "/sections/1/items/0/model", "value": {"text": "Moved and edited"}},
        {"op": "replace", "path": "/sections/3/title", "value": None},
    ]),
]


@pytest.mark.parametrize("mode", ["poll", "events"])
def test_live_page_follows_every_kind_of_change(make_server, mode):
    server = make_server(args=["--retention", "3"])
    check_served_web_files(server)
    list_id = uid("page")
    r = server.put(list_id, start_document())
    assert r.status_code == 201, r.text
    driver = chrome()
    try:
        suffix = "&mode=events" if mode == "events" else ""
        driver.get(server.url(f"/?list={list_id}{suffix}"))
        sync(driver, server, list_id, "the first load")

        for what, ops in STEPS:
            patch(server, list_id, ops)
            sync(driver, server, list_id, what)

        # A whole-document PUT that reorders sections and items and drops one.
        doc = server.doc(list_id)
        doc["sections"].reverse()
        for s in doc["sections"]:
            s["items"].reverse()
        doc["sections"][0]["items"].pop()
        assert server.put(list_id, doc).status_code == 200
        sync(driver, server, list_id, "a PUT that reverses everything")

        # Several writes in quick succession, without waiting in between.
        for k in range(4):
            patch(server, list_id, [{"op": "add", "path": "/sections/0/items/0", "value": item(f"burst-{k}", f"Burst {k}")}])
        sync(driver, server, list_id, "four quick writes")

        # Several writes between two polls: the page is paused, two writes land, then one diff covers both.
        # (Four quick writes may outrun retention 3 and reset already; count the resets from here on.)
        resets = driver.execute_script(PAGE_JS)["resets"]
        driver.execute_script("window.listdelta.pause()")
        patch(server, list_id, [{"op": "move", "from": "/sections/0/items/0", "path": "/sections/1/items/0"}])
        patch(server, list_id, [{"op": "remove", "path": "/sections/0/items/0"}])
        driver.execute_script("window.listdelta.resume()")
        state = sync(driver, server, list_id, "two writes between polls")
        assert state["resets"] == resets, "two retained revisions must not reset"
        log = driver.execute_script("return [...document.querySelectorAll('#log li')].map(x => x.textContent)")
        assert any("→ r" in line for line in log), log

        # The revision the page holds is pruned away (retention 3, five writes): 410 or event: reset, then reset.
        driver.execute_script("window.listdelta.pause()")
        held = int(page_state(driver)["revision"])
        for k in range(5):
            body = patch(server, list_id, [{"op": "add", "path": f"/sections/{k % 2}/items/0", "value": item(f"pruned-{k}", f"Unseen {k}")}])
            assert body["revision"] == held + k + 1, "every write makes a revision"
        assert server.get(f"/v1/lists/{list_id}/diff", params={"from": held}).status_code == 410
        driver.execute_script("window.listdelta.resume()")
        state = sync(driver, server, list_id, "a reset after the held revision was pruned")
        assert state["resets"] == resets + (["gone"] if mode == "poll" else ["event"]), state["resets"]

        # And it keeps following after the reset.
        patch(server, list_id, [{"op": "move", "from": "/sections/0", "path": "/sections/2"},
                                {"op": "add", "path": "/sections/0/items/-", "value": item("after-reset", "After the reset")}])
        sync(driver, server, list_id, "a write after the reset")

        # The revision on show and the last diff's size are displayed.
        rev = driver.find_element("css selector", "[data-revision]").text
        assert rev == str(server.doc(list_id)["revision"])
        assert "ops" in driver.find_element("id", "diff-size").text
        # No markup from the data: the item text with tags is shown as text.
        assert driver.execute_script("return document.querySelectorAll('#sections b').length") == 0
        time.sleep(0.5)  # let the last animation settle for the screenshot
        save_screenshot(driver, "browser.png" if mode == "poll" else f"browser-{mode}.png")
        assert uncaught(driver) == []
    finally:
        driver.quit()


def layout(doc):
    """Each section's id and its items' ids, in order."""
    return [(sec["id"], [i["id"] for i in sec["items"]]) for sec in doc["sections"]]


def item_ids(doc):
    return [i["id"] for sec in doc["sections"] for i in sec["items"]]


def placed(doc):
    """Item id -> (section id, index in the section)."""
    return {i["id"]: (sec["id"], k) for sec in doc["sections"] for k, i in enumerate(sec["items"])}


def one_item_inserted(old, new):
    added = set(item_ids(new)) - set(item_ids(old))
    assert len(added) == 1 and set(item_ids(old)) <= set(item_ids(new)), (layout(old), layout(new))
    (new_id,) = added
    # The others keep their sections and order.
    assert [(s, [i for i in ids if i != new_id]) for s, ids in layout(new)] == layout(old)


def one_item_removed(old, new):
    gone = set(item_ids(old)) - set(item_ids(new))
    assert len(gone) == 1 and set(item_ids(new)) <= set(item_ids(old)), (layout(old), layout(new))
    assert layout(new) == [(s, [i for i in ids if i not in gone]) for s, ids in layout(old)]


def one_item_moved_within(old, new):
    before, after = layout(old), layout(new)
    assert [(s, sorted(ids)) for s, ids in before] == [(s, sorted(ids)) for s, ids in after], (before, after)
    assert sum(a != b for a, b in zip(before, after)) == 1, (before, after)


def one_item_moved_across(old, new):
    was, now = placed(old), placed(new)
    assert sorted(was) == sorted(now)
    moved = [i for i in was if was[i][0] != now[i][0]]
    assert len(moved) == 1, (layout(old), layout(new))
    without = lambda d: [(sec, [i for i in ids if i != moved[0]]) for sec, ids in layout(d)]
    assert without(old) == without(new)


def one_item_updated(old, new):
    assert layout(old) == layout(new)
    models = lambda d: {i["id"]: i.get("model") for sec in d["sections"] for i in sec["items"]}
    changed = [i for i, m in models(old).items() if models(new)[i] != m]
    assert len(changed) == 1, changed
    assert set(models(new)[changed[0]]) == {"text", "edited"}


def one_section_renamed(old, new):
    assert layout(old) == layout(new)
    titles = lambda d: [(sec["title"], sec["indexTitle"]) for sec in d["sections"]]
    changed = [k for k, (a, b) in enumerate(zip(titles(old), titles(new))) if a != b]
    assert len(changed) == 1, (titles(old), titles(new))
    title, index_title = titles(new)[changed[0]]
    assert index_title == title[0]


def one_section_moved(old, new):
    assert sorted(layout(old)) == sorted(layout(new)) and layout(old) != layout(new)


def one_section_inserted(old, new):
    assert len(new["sections"]) == len(old["sections"]) + 1
    assert [x for x in layout(new) if x in layout(old)] == layout(old)


def one_section_removed(old, new):
    assert len(new["sections"]) == len(old["sections"]) - 1
    assert [x for x in layout(old) if x in layout(new)] == layout(new)


def shuffled(old, new):
    """The same sections in the same order, perhaps one more at the end, holding some of the items."""
    sections = [sec for sec, _ in layout(new)]
    assert sections[:len(old["sections"])] == [sec for sec, _ in layout(old)]
    assert len(sections) - len(old["sections"]) in (0, 1)
    fresh = {i for sec, ids in layout(new)[len(old["sections"]):] for i in ids}
    assert set(item_ids(new)) - fresh <= set(item_ids(old))


# What each button of the demo writer changes, checked on the documents before and after its one write.
WRITER_CHANGES = {
    "insertItem": one_item_inserted,
    "deleteItem": one_item_removed,
    "moveItem": one_item_moved_within,
    "moveAcross": one_item_moved_across,
    "updateItem": one_item_updated,
    "renameSection": one_section_renamed,
    "moveSection": one_section_moved,
    "insertSection": one_section_inserted,
    "deleteSection": one_section_removed,
    "shuffle": shuffled,
}

LOG_JS = "return [...document.querySelectorAll('#log li')].map(x => [x.className, x.textContent])"


def writer_errors(driver):
    """The list view's log lines that report a failed write (class "error")."""
    return [text for cls, text in driver.execute_script(LOG_JS) if "error" in cls.split()]


def test_index_opens_lists_and_panel_writes_changes(make_server):
    server = make_server()
    check_served_web_files(server)
    first, second = uid("a-list"), uid("b-list")
    assert server.put(first, start_document()).status_code == 201
    assert server.put(second, {"kind": "array", "title": "Fruits", "items": [item("apple", "Apple")]}).status_code == 201
    driver = chrome()
    try:
        driver.get(server.url("/"))
        link = wait_for(
            lambda: driver.find_elements("css selector", f'[data-list-id="{second}"] a'), message="the list index")
        assert "r1 " in list_text(driver, second)
        click_css(driver, f'[data-list-id="{second}"] a')
        wait_for(lambda: f"list={second}" in driver.current_url, message="the URL to name the list")
        sync(driver, server, second, "opening a list from the index")

        click_css(driver, f'[data-list-id="{first}"] a')
        sync(driver, server, first, "opening another list")

        # Every button of the panel writes its kind of change through the open list's follower (insert, update,
        # remove and move of an item; a JSON Patch for the sections; a PUT for "Shuffle"), which the page then shows.
        buttons = driver.find_elements("css selector", ".panel button[data-action]")
        names = [b.get_attribute("data-action") for b in buttons]
        assert set(WRITER_CHANGES) | {"burst"} <= set(names), names
        for button, name in zip(buttons, names):
            old = server.doc(first)
            before = old["revision"]
            click(driver, button)
            wait_for(lambda: server.doc(first)["revision"] > before, timeout=10, message=f"the {name} button to write")
            if name == "burst":
                wait_for(lambda: "Burst" not in driver.execute_script("return window.listdelta.busy || ''"),
                         timeout=10, message="the burst to end")
            else:
                wait_for(lambda: driver.execute_script("return window.listdelta.busy") is None,
                         timeout=10, message=f"the {name} button to finish")
                assert server.doc(first)["revision"] == before + 1, f"{name}: one write"
                WRITER_CHANGES[name](old, server.doc(first))
            sync(driver, server, first, f"the {name} button")
        assert not writer_errors(driver), writer_errors(driver)

        # The index on the left shows revisions, refreshed periodically.
        rev = server.doc(first)["revision"]
        wait_for(lambda: f"r{rev} " in list_text(driver, first),
                 timeout=8, message="the index to show the new revision")
        # The section index jumps to sections.
        letters = [a.text for a in driver.find_elements("css selector", "#section-index a")]
        want_letters = [s["indexTitle"] for s in server.doc(first)["sections"] if s["indexTitle"]]
        assert letters == want_letters
        assert uncaught(driver) == []
    finally:
        driver.quit()


# Calls the open list's follower's write `op` with `args`: {answer} or {error: {name, message, conflict}}, `conflict`
# telling whether it is client.js's ConflictError.
FOLLOWER_WRITE_JS = """
const [op, args, done] = arguments;
const f = window.listdelta.follower;
f[op](...args).then(
  (answer) => done({ answer }),
  (error) => import('/client.js').then((m) => done({
    error: { name: error.name, message: String(error.message ?? error), conflict: error instanceof m.ConflictError },
  })));
"""


def follower_write(driver, op, *args):
    return driver.execute_async_script(FOLLOWER_WRITE_JS, op, list(args))


def test_open_lists_follower_writes_items_by_id(make_server):
    """The page follows the open list with a writable follower: insert (after an item, first, last), update, remove
    and move by id; each change is the server's document and shows on the page; a write whose item, anchor or
    section is gone is a ConflictError and changes nothing."""
    server = make_server()
    list_id = uid("writer")
    assert server.put(list_id, start_document()).status_code == 201
    want = dict((sec, ids) for sec, ids in layout(server.doc(list_id)))
    driver = chrome()
    try:
        driver.get(server.url(f"/?list={list_id}"))
        sync(driver, server, list_id, "the first load")

        def place(iid, section, after="last"):
            ids = want[section]
            if after is None:
                ids.insert(0, iid)
            elif after == "last":
                ids.append(iid)
            else:
                ids.insert(ids.index(after) + 1, iid)

        def take(iid):
            for ids in want.values():
                if iid in ids:
                    ids.remove(iid)

        steps = [
            ("insert after an item", ("insert", item("w-1", "Written one"), {"section": "today", "after": "today-1"}),
             lambda: place("w-1", "today", "today-1")),
            ("insert first", ("insert", item("w-first", "First of later"), {"section": "later", "after": None}),
             lambda: place("w-first", "later", None)),
            ("insert last", ("insert", item("w-last", "Last of archive"), {"section": "archive"}),
             lambda: place("w-last", "archive")),
            ("update", ("update", "w-1", {"model": {"text": "Rewritten"}}), lambda: None),
            ("move to another section", ("move", "inbox-0", {"section": "today", "after": "w-1"}),
             lambda: (take("inbox-0"), place("inbox-0", "today", "w-1"))),
            ("move first", ("move", "today-3", {"section": "today", "after": None}),
             lambda: (take("today-3"), place("today-3", "today", None))),
            ("move last of another section", ("move", "later-0", {"section": "inbox"}),
             lambda: (take("later-0"), place("later-0", "inbox"))),
            ("remove", ("remove", "later-2"), lambda: take("later-2")),
        ]
        for what, (op, *args), expect in steps:
            before = server.doc(list_id)["revision"]
            result = follower_write(driver, op, *args)
            assert "answer" in result, (what, result)
            expect()
            doc = server.doc(list_id)
            assert doc["revision"] == before + 1 and result["answer"]["revision"] == doc["revision"], (what, result)
            assert layout(doc) == list(want.items()), (what, layout(doc))
            sync(driver, server, list_id, what)
        texts = {i["id"]: i["model"]["text"] for sec in server.doc(list_id)["sections"] for i in sec["items"]}
        assert texts["w-1"] == "Rewritten"

        # Writes whose item, anchor or section is gone: ConflictError, and no revision.
        revision = server.doc(list_id)["revision"]
        for what, (op, *args) in [
            ("remove a removed item", ("remove", "later-2")),
            ("update a missing item", ("update", "nope", {"model": {"text": "x"}})),
            ("insert after a missing item", ("insert", item("w-x", "X"), {"section": "today", "after": "nope"})),
            ("insert into a missing section", ("insert", item("w-y", "Y"), {"section": "nope"})),
            ("move into a missing section", ("move", "inbox-1", {"section": "nope"})),
        ]:
            result = follower_write(driver, op, *args)
            assert result.get("error", {}).get("conflict") is True, (what, result)
        assert server.doc(list_id)["revision"] == revision
        sync(driver, server, list_id, "the refused writes")
        assert uncaught(driver) == []
    finally:
        driver.quit()


def test_demo_writer_reports_a_change_whose_item_is_gone(make_server):
    """A button whose item was removed meanwhile (by another writer, while the page was paused) logs the conflict and
    writes nothing."""
    server = make_server()
    list_id = uid("gone")
    doc = {"kind": "sections", "sections": [
        {"id": "a", "title": "A", "indexTitle": "A", "items": [item("x", "The only item")]},
        {"id": "b", "title": "B", "indexTitle": "B", "items": []},
    ]}
    assert server.put(list_id, doc).status_code == 201
    driver = chrome()
    try:
        driver.get(server.url(f"/?list={list_id}"))
        sync(driver, server, list_id, "the first load")
        driver.execute_script("window.listdelta.pause()")
        patch(server, list_id, [{"op": "remove", "path": "/sections/0/items/0"}])
        click_css(driver, '.panel button[data-action="deleteItem"]')
        wait_for(lambda: driver.execute_script("return window.listdelta.busy") is None, message="the write to end")
        lines = driver.execute_script(LOG_JS)
        assert any("deleteItem" in text and "muted" in cls.split() for cls, text in lines), lines
        assert not writer_errors(driver), lines
        assert server.doc(list_id)["revision"] == 2
        driver.execute_script("window.listdelta.resume()")
        sync(driver, server, list_id, "resuming")
        assert uncaught(driver) == []
    finally:
        driver.quit()


class ReadingWithToken:
    """`server` read with a bearer token (for `sync` on a server whose reads need one)."""

    def __init__(self, server, token):
        self.server = server
        self.headers = {"Authorization": f"Bearer {token}"}

    def doc(self, list_id, revision=None):
        params = {"revision": revision} if revision is not None else None
        r = self.server.get(list_id, params=params, headers=self.headers)
        assert r.status_code == 200, (r.status_code, r.text)
        return r.json()


SET_TOKEN_JS = """
const field = document.getElementById('token');
field.value = arguments[0];
field.dispatchEvent(new Event('change'));
"""


def test_page_sends_the_token_fields_token(make_server):
    """On a server whose reads and writes need a token, the token field's token goes with every request the page
    makes through client.js: the list index, following, the demo writer, history, the comparison and revert."""
    server = make_server(args=["--write-token", "secret"], env={"LISTDELTA_READ_ACCESS": "token"})
    reader = ReadingWithToken(server, "secret")
    list_id = uid("tok")
    assert server.put(list_id, start_document(), headers=reader.headers).status_code == 201
    assert server.get(list_id).status_code == 401
    driver = chrome()
    try:
        driver.get(server.url("/"))
        time.sleep(0.5)
        assert list_text(driver, list_id) == "", "no token: the index shows nothing"
        driver.execute_script(SET_TOKEN_JS, "secret")
        wait_for(lambda: "r1 " in list_text(driver, list_id), message="the index, read with the token")
        click_css(driver, f'[data-list-id="{list_id}"] a')
        sync(driver, reader, list_id, "opening the list with the token")

        click_css(driver, '.panel button[data-action="insertItem"]')
        wait_for(lambda: reader.doc(list_id)["revision"] == 2, message="the demo writer to write with the token")
        sync(driver, reader, list_id, "the insert")
        wait_for(lambda: [r for r, _ in driver.execute_script(HISTORY_JS)["revs"]] == [2, 1], message="the timeline")

        click_css(driver, '#timeline li[data-rev="1"] button[data-pick="a"]')
        click_css(driver, '#timeline li[data-rev="2"] button[data-pick="b"]')
        wait_for(lambda: driver.execute_script(HISTORY_JS)["compared"] == "1-2", message="the comparison")
        assert driver.execute_script(HISTORY_JS)["counts"]["items"]["inserted"] == 1

        click_css(driver, '#timeline li[data-rev="1"] button[data-revert]')
        click_css(driver, '#timeline li[data-rev="1"] button[data-revert-confirm]')
        wait_for(lambda: reader.doc(list_id)["revision"] == 3, message="the revert")
        sync(driver, reader, list_id, "the revert")
        assert not writer_errors(driver), driver.execute_script(LOG_JS)
        assert uncaught(driver) == []
    finally:
        driver.quit()

HISTORY_JS = """
return {
  revs: [...document.querySelectorAll('#timeline li[data-rev]')].map(li => [Number(li.dataset.rev), li.dataset.op]),
  compared: document.getElementById('compare').getAttribute('data-compared'),
  counts: JSON.parse(document.getElementById('compare-summary').getAttribute('data-counts') || 'null'),
  marks: [...document.querySelectorAll('#compare [data-mark]')].map(e => [e.dataset.cmpSide, e.dataset.cmpPath, e.dataset.mark, e.dataset.cmpItem]),
};
"""


def test_history_panel_compares_two_revisions_and_reverts(make_server):
    server = make_server()
    list_id = uid("hist")
    assert server.put(list_id, start_document()).status_code == 201
    patch(server, list_id, STEPS[0][1])                       # r2: a move
    patch(server, list_id, STEPS[2][1] + STEPS[3][1])         # r3: an insert and a delete
    patch(server, list_id, STEPS[5][1])                       # r4: an update
    driver = chrome()
    try:
        driver.get(server.url(f"/?list={list_id}"))
        sync(driver, server, list_id, "the first load")
        wait_for(lambda: [r for r, _ in driver.execute_script(HISTORY_JS)["revs"]] == [4, 3, 2, 1], message="the timeline")
        assert [op for _, op in driver.execute_script(HISTORY_JS)["revs"]] == ["patch", "patch", "patch", "put"]

        # Compare r1 (A) with r4 (B): the marks are exactly the API's diff, in each side's numbering.
        click_css(driver, '#timeline li[data-rev="1"] button[data-pick="a"]')
        click_css(driver, '#timeline li[data-rev="4"] button[data-pick="b"]')
        wait_for(lambda: driver.execute_script(HISTORY_JS)["compared"] == "1-4", message="the comparison")
        diff = server.diff(list_id, 1, 4)
        state = driver.execute_script(HISTORY_JS)
        assert state["counts"] == {part: {k: len(diff[part][k]) for k in ("deleted", "inserted", "moved", "updated")}
                                   for part in ("sections", "items")}
        path = lambda p: f"{p[0]},{p[1]}"
        want = {("a", path(p), "deleted") for p in diff["items"]["deleted"]}
        want |= {("a", path(m["from"]), "moved") for m in diff["items"]["moved"]}
        want |= {("b", path(m["to"]), "moved") for m in diff["items"]["moved"]}
        want |= {("b", path(i["at"]), "inserted") for i in diff["items"]["inserted"]}
        moved_to = {path(m["to"]) for m in diff["items"]["moved"]}
        want = {w for w in want if not (w[0] == "b" and w[1] in {path(u["at"]) for u in diff["items"]["updated"]} and w[2] == "moved")}
        want |= {("b", path(u["at"]), "moved-updated" if path(u["at"]) in moved_to else "updated") for u in diff["items"]["updated"]}
        assert {(side, p, mark) for side, p, mark, _ in state["marks"]} == want
        assert diff["items"]["deleted"] and diff["items"]["inserted"] and diff["items"]["updated"]
        # The marked items are the ones the documents hold there.
        old, new = server.doc(list_id, 1), server.doc(list_id, 4)
        for side, p, _, item_id in state["marks"]:
            s, i = map(int, p.split(","))
            assert (old if side == "a" else new)["sections"][s]["items"][i]["id"] == item_id

        # Revert to r1, with the confirmation: the list gets r1's content as r5, the page follows it.
        click_css(driver, '#timeline li[data-rev="1"] button[data-revert]')
        click_css(driver, '#timeline li[data-rev="1"] button[data-revert-confirm]')
        wait_for(lambda: server.doc(list_id)["revision"] == 5, message="the revert")
        assert server.doc(list_id)["sections"] == server.doc(list_id, 1)["sections"]
        sync(driver, server, list_id, "the revert")
        wait_for(lambda: driver.execute_script(HISTORY_JS)["revs"][:1] == [[5, "revert"]], message="the timeline after the revert")
        assert not uncaught(driver), browser_errors(driver)
    except Exception:
        save_screenshot(driver, "history-panel")
        raise
    finally:
        driver.quit()


# ---------------------------------------------------------------------------
# The dashboard (/?lists=a,b,c): several lists side by side, followed over one connection.

# Installed before the page's scripts run: records every EventSource and fetch the page opens, and how many
# many-list long polls are out at once.
RECORDER_JS = """
(() => {
  const opened = window.__opened = [];
  window.__pollsOut = 0;
  window.__maxPollsOut = 0;
  const NativeEventSource = window.EventSource;
  window.EventSource = class extends NativeEventSource {
    constructor(url, init) {
      super(url, init);
      opened.push(['stream', String(new URL(url, location.href))]);
    }
  };
  const nativeFetch = window.fetch;
  window.fetch = function (input, init) {
    const url = String(new URL(input instanceof Request ? input.url : input, location.href));
    opened.push(['fetch', url]);
    const res = nativeFetch.call(this, input, init);
    if (url.includes('/v1/diffs?')) {
      window.__pollsOut += 1;
      window.__maxPollsOut = Math.max(window.__maxPollsOut, window.__pollsOut);
      res.finally(() => { window.__pollsOut -= 1; }).catch(() => {});
    }
    return res;
  };
})();
"""

DASHBOARD_JS = """
return [...document.querySelectorAll('[data-dash-list]')].map(p => ({
  id: p.getAttribute('data-dash-list'),
  revision: p.getAttribute('data-list-revision'),
  sections: [...p.querySelectorAll('[data-section-id]')].map(s => ({
    id: s.getAttribute('data-section-id'),
    title: s.querySelector('header h2')?.textContent,
    items: [...s.querySelectorAll('[data-item-id]')].map(i => [i.getAttribute('data-item-id'), i.querySelector('.item-text')?.textContent]),
  })),
}));
"""


def expected_panel(server, list_id):
    """What a dashboard panel shows for `list_id`: revision 0 and no sections while the list does not exist."""
    r = server.get(list_id)
    if r.status_code == 404:
        return {"id": list_id, "revision": "0", "sections": []}
    assert r.status_code == 200, r.text
    doc = r.json()
    return {"id": list_id, "revision": str(doc["revision"]), "sections": [{
        "id": s["id"],
        "title": s["title"] if s["title"] is not None else "(untitled)",
        "items": [[i["id"], (i.get("model") or {}).get("text") or "(no text)"] for i in s["items"]],
    } for s in doc["sections"]]}


def sync_dashboard(driver, server, ids, what, timeout=15):
    """Waits until every panel shows its list's current document, in the order of `ids`."""
    ok, want, last = until_shown(lambda: [expected_panel(server, lid) for lid in ids],
                                 lambda: driver.execute_script(DASHBOARD_JS), lambda x: x, timeout)
    if ok:
        return last
    diff = [(w["id"], w, g) for w, g in zip(want, last or []) if w != g]
    pytest.fail(f"after {what!r}: the dashboard did not show the server's documents in {timeout} s\n"
                f"differing panels: {diff[:2]}\nconsole: {browser_errors(driver)}")


def metric(server, name):
    for line in server.get("/metrics").text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return None


# Fetches issued by the page while it follows: each must complete (a page that held a connection per list would
# exhaust the browser's six connections per host and these would hang).
SIDE_FETCHES_JS = """
const [paths, done] = arguments;
const timeout = new Promise((resolve) => setTimeout(() => resolve('timeout'), 5000));
Promise.all(paths.map((p) => Promise.race([fetch(p, { cache: 'no-store' }).then((r) => r.status), timeout])))
  .then(done, (e) => done(String(e)));
"""


@pytest.mark.parametrize("mode", ["poll", "events"])
def test_dashboard_follows_eight_lists_over_one_connection(make_server, mode):
    server = make_server()
    check_served_web_files(server)
    ids = [uid(f"dash{k}") for k in range(8)]
    for lid in ids[:7]:
        assert server.put(lid, start_document()).status_code == 201
    # The eighth does not exist yet: its panel waits for it.
    driver = chrome()
    try:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORDER_JS})
        suffix = "&mode=events" if mode == "events" else ""
        driver.get(server.url(f"/?lists={','.join(ids)}{suffix}"))
        sync_dashboard(driver, server, ids, "the first load")
        assert driver.execute_script("return window.listdelta.dashboard.ids") == ids

        # The page's other requests complete while the eight lists are followed.
        paths = ["/healthz", f"/v1/lists/{ids[0]}", "/v1/lists?limit=5"] * 4
        assert driver.execute_async_script(SIDE_FETCHES_JS, paths) == [200] * len(paths)

        # A burst of writes to all eight lists (the eighth is created by it), round after round, without waiting.
        r = server.put(ids[7], {"kind": "array", "title": "Late", "items": [item("late-0", "Created late")]})
        assert r.status_code == 201
        for k in range(4):
            for n, lid in enumerate(ids):
                ops = [{"op": "add", "path": "/sections/0/items/0", "value": item(f"burst-{k}-{n}", f"Burst {k} of {n}")}]
                if k == 1 and n < 7:
                    ops.append({"op": "move", "from": "/sections/1/items/0", "path": "/sections/2/items/1"})
                if k == 2 and n < 7:
                    ops.append({"op": "move", "from": "/sections/3", "path": "/sections/0"})
                if k == 3 and n < 7:
                    ops.append({"op": "remove", "path": "/sections/1/items/1"})
                patch(server, lid, ops)
        state = sync_dashboard(driver, server, ids, "a burst of writes to every list")
        assert all(int(p["revision"]) > 1 for p in state)
        assert driver.execute_async_script(SIDE_FETCHES_JS, paths) == [200] * len(paths)

        # One connection for the eight lists, from the start to now; no list was followed on its own.
        opened = driver.execute_script("return window.__opened")
        streams = [u for kind, u in opened if kind == "stream"]
        polls = [u for kind, u in opened if "/v1/diffs?" in u]
        assert not [u for _, u in opened if "/diff?" in u or "/events?from" in u], opened
        if mode == "events":
            assert len(streams) == 1, streams
            assert polls == []
            assert all(f"{lid}:" in streams[0] for lid in ids), streams[0]
            # The server sees one stream, watching (at least) the eight lists.
            wait_for(lambda: metric(server, "listdelta_event_streams") == 1, message="1 stream")
            assert metric(server, "listdelta_watched_lists") >= 8
        else:
            assert streams == []
            assert polls and all(all(f"{lid}:" in u for lid in ids) for u in polls), polls
            assert driver.execute_script("return window.__maxPollsOut") == 1
            # One poll is parked, on all eight lists at once.
            wait_for(lambda: metric(server, "listdelta_parked_polls") == 1, message="1 poll parked on 8 lists")
            assert metric(server, "listdelta_watched_lists") >= 8
            assert metric(server, "listdelta_event_streams") == 0
        assert "over 1 connection" in driver.find_element("id", "status").text

        # Removing a panel keeps the others (and their revisions); the URL follows.
        before = {p["id"]: p["revision"] for p in driver.execute_script(DASHBOARD_JS)}
        click_css(driver, f'[data-dash-list="{ids[3]}"] button[data-remove]')
        rest = ids[:3] + ids[4:]
        wait_for(lambda: f"lists={','.join(rest)}" in driver.current_url, message="the URL without the removed list")
        patch(server, ids[0], [{"op": "remove", "path": "/sections/0/items/0"}])
        patch(server, ids[3], [{"op": "remove", "path": "/sections/0/items/0"}])
        sync_dashboard(driver, server, rest, "a write after removing a panel")
        resets = driver.execute_script("return window.listdelta.resets")
        assert resets == [], resets
        after = {p["id"]: p["revision"] for p in driver.execute_script(DASHBOARD_JS)}
        assert all(int(after[lid]) >= int(before[lid]) for lid in rest)
        save_screenshot(driver, f"dashboard-{mode}.png")
        assert uncaught(driver) == []
    except Exception:
        save_screenshot(driver, f"dashboard-{mode}-failed.png")
        raise
    finally:
        driver.quit()


ROWS_JS = """
const [root] = arguments;
return [...document.querySelectorAll(root + ' [data-item-id]')].map(li => ({
  id: li.getAttribute('data-item-id'),
  first: li.firstElementChild.className,
  text: li.querySelector('.item-text').textContent,
  details: [...li.querySelectorAll('.item-detail[data-key]')].map(d => [d.dataset.key, d.querySelector('.detail-value').textContent]),
  detailText: li.querySelector('.item-details').textContent,
}));
"""


def test_item_rows_show_the_title_first_then_details(make_server):
    server = make_server()
    check_served_web_files(server)
    list_id = uid("rows")
    models = {
        "milk": {"done": False, "title": "Buy milk", "qty": 2, "tags": ["home", "food"], "note": None},
        "ada": {"role": "engineer", "name": "Ada Lovelace", "team": {"id": "core", "since": 1843}},
        "plain": {"text": "Just <b>text</b>"},
        "both": {"text": "Second", "title": "First", "link": "https://example.com/a"},
        "none": {"count": 3, "ok": True},
        "word": "A bare string",
    }
    doc = {"kind": "array", "title": "Rows", "items": [{"id": k, "model": m} for k, m in models.items()]}
    assert server.put(list_id, doc).status_code == 201
    want = {
        "milk": ("Buy milk", [["done", "no"], ["qty", "2"], ["tags", "home, food"]]),
        "ada": ("Ada Lovelace", [["role", "engineer"], ["team", "(id: core; since: 1843)"]]),
        "plain": ("Just <b>text</b>", []),
        "both": ("First", [["text", "Second"], ["link", "https://example.com/a"]]),
        "none": ("(no text)", [["count", "3"], ["ok", "yes"]]),
        "word": ("A bare string", []),
    }
    driver = chrome()
    try:
        for url, root in ((f"/?list={list_id}", "#sections"), (f"/?lists={list_id}", f'[data-dash-list="{list_id}"]')):
            driver.get(server.url(url))
            rows = wait_for(lambda: (lambda r: r if len(r) == len(models) else None)(driver.execute_script(ROWS_JS, root)),
                            message=f"the rows of {url}")
            for row in rows:
                text, details = want[row["id"]]
                assert row["first"].split()[0] == "item-text", row
                assert (row["text"], row["details"]) == (text, details), row
                assert '{"' not in row["detailText"] and '":' not in row["detailText"], row  # not raw JSON
            # An update shows the new main text and details.
            patch(server, list_id, [{"op": "replace", "path": "/sections/0/items/0/model", "value": {"name": "Oat milk", "qty": 3}}])
            wait_for(lambda: driver.execute_script(ROWS_JS, root)[0]["text"] == "Oat milk", message="the updated row")
            assert driver.execute_script(ROWS_JS, root)[0]["details"] == [["qty", "3"]]
            patch(server, list_id, [{"op": "replace", "path": "/sections/0/items/0/model", "value": models["milk"]}])
        assert driver.execute_script("return document.querySelectorAll('[data-item-id] b').length") == 0
        assert uncaught(driver) == []
    finally:
        driver.quit()
