"""Client-side reference code for the ListDelta contract (docs/api.md).

- apply_batch_diff: the normative diff-application procedure, steps 1-4 (docs/api.md, Applying a batch diff).
- check_batch_rules: the rules that keep UIKit from throwing, plus counts and minimality.
- apply_json_patch: a small RFC 6902 applier (add/remove/replace/move/copy/test).
- canon_*: comparable forms of documents, sections and items.

Only the standard library is used.
"""

import copy
import json


class DiffError(AssertionError):
    """A diff that cannot be applied or breaks a rule."""


class PatchError(AssertionError):
    """A JSON Patch that cannot be applied."""


# ---------------------------------------------------------------------------
# canonical forms


def canon_item(item):
    return {
        "id": item["id"],
        "type": item.get("type"),
        "cell": item.get("cell"),
        "model": copy.deepcopy(item.get("model")),
    }


def canon_header(section):
    return {"id": section["id"], "title": section.get("title"), "indexTitle": section.get("indexTitle")}


def canon_section(section):
    out = canon_header(section)
    out["items"] = [canon_item(i) for i in section.get("items") or []]
    return out


def canon_sections(doc):
    """The sections of a document (None or {} is the empty list of revision 0)."""
    if not doc:
        return []
    return [canon_section(s) for s in doc.get("sections") or []]


def item_content(item):
    c = canon_item(item)
    del c["id"]
    return c


def json_equal(a, b):
    """JSON equality that tells true from 1 (Python does not)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


# ---------------------------------------------------------------------------
# the normative procedure


def apply_batch_diff(old_doc, diff):
    """Apply a batch diff to old_doc; returns {"sections": [...]} in canonical form."""
    old = canon_sections(old_doc)
    secs = diff["sections"]
    items = diff["items"]

    # step 1: remove deleted sections, deleted items, moving items
    deleted_secs = set()
    for s in secs["deleted"]:
        if not (0 <= s < len(old)) or s in deleted_secs:
            raise DiffError(f"bad deleted section {s}")
        deleted_secs.add(s)
    moved_secs = {}
    for m in secs["moved"]:
        f = m["from"]
        if not (0 <= f < len(old)) or f in deleted_secs or f in moved_secs:
            raise DiffError(f"bad moved section {m}")
        moved_secs[f] = m["to"]

    removed = set()
    for p in items["deleted"]:
        s, i = p
        if not (0 <= s < len(old)) or not (0 <= i < len(old[s]["items"])):
            raise DiffError(f"deleted item {p} out of range")
        if s in deleted_secs:
            raise DiffError(f"deleted item {p} inside a deleted section")
        if (s, i) in removed:
            raise DiffError(f"item {p} removed twice")
        removed.add((s, i))
    moving = {}  # new path -> item
    for m in items["moved"]:
        s, i = m["from"]
        if not (0 <= s < len(old)) or not (0 <= i < len(old[s]["items"])):
            raise DiffError(f"moved item {m} out of range")
        if s in deleted_secs:
            raise DiffError(f"moved item {m} from a deleted section")
        if (s, i) in removed:
            raise DiffError(f"item {m} removed twice")
        removed.add((s, i))
        to = tuple(m["to"])
        if to in moving:
            raise DiffError(f"two items move to {to}")
        moving[to] = old[s]["items"][i]

    # step 2: the new sections
    n_new = len(old) - len(deleted_secs) + len(secs["inserted"])
    slots = [None] * n_new
    inserted_new = set()
    for ins in secs["inserted"]:
        at = ins["at"]
        if not (0 <= at < n_new) or slots[at] is not None:
            raise DiffError(f"bad inserted section {ins}")
        slots[at] = ("ins", canon_section(ins["section"]))
        inserted_new.add(at)
    for f, t in moved_secs.items():
        if not (0 <= t < n_new) or slots[t] is not None:
            raise DiffError(f"bad moved section to {t}")
        slots[t] = ("old", f)
    rest = [i for i in range(len(old)) if i not in deleted_secs and i not in moved_secs]
    free = [j for j in range(n_new) if slots[j] is None]
    if len(rest) != len(free):
        raise DiffError("sections do not fill the new document")
    for j, i in zip(free, rest):
        slots[j] = ("old", i)

    # step 3: the items of each section that is not inserted
    incoming = {}
    for ins in items["inserted"]:
        at = tuple(ins["at"])
        if at in moving or at in incoming:
            raise DiffError(f"two items land at {at}")
        incoming[at] = canon_item(ins["item"])
    for at, it in moving.items():
        incoming[at] = it
    new = []
    for j, (kind, v) in enumerate(slots):
        if kind == "ins":
            if any(p[0] == j for p in incoming):
                raise DiffError(f"item operation inside inserted section {j}")
            new.append(v)
            continue
        o = old[v]
        keep = [it for i, it in enumerate(o["items"]) if (v, i) not in removed]
        here = {p[1]: it for p, it in incoming.items() if p[0] == j}
        size = len(keep) + len(here)
        row = [None] * size
        for i, it in here.items():
            if not (0 <= i < size):
                raise DiffError(f"item index {(j, i)} out of range (section size {size})")
            row[i] = it
        k = iter(keep)
        for i in range(size):
            if row[i] is None:
                row[i] = next(k)
        sec = canon_header(o)
        sec["items"] = [copy.deepcopy(x) for x in row]
        new.append(sec)
    for p in incoming:
        if not (0 <= p[0] < n_new):
            raise DiffError(f"item path {p} names no section")

    # step 4: updated headers and items
    for u in secs["updated"]:
        at = u["at"]
        if not (0 <= at < n_new):
            raise DiffError(f"updated section {at} out of range")
        h = canon_header(u["section"])
        if h["id"] != new[at]["id"]:
            raise DiffError(f"updated section {at} has id {h['id']}, expected {new[at]['id']}")
        new[at].update(h)
    for u in items["updated"]:
        s, i = u["at"]
        if not (0 <= s < n_new) or not (0 <= i < len(new[s]["items"])):
            raise DiffError(f"updated item {u['at']} out of range")
        it = canon_item(u["item"])
        if it["id"] != new[s]["items"][i]["id"]:
            raise DiffError(f"updated item at {u['at']} has id {it['id']}, expected {new[s]['items'][i]['id']}")
        new[s]["items"][i] = it
    return {"sections": new}


# ---------------------------------------------------------------------------
# rules


def lis_length(seq):
    import bisect

    tails = []
    for x in seq:
        k = bisect.bisect_left(tails, x)
        if k == len(tails):
            tails.append(x)
        else:
            tails[k] = x
    return len(tails)


def _assert_sorted(values, what):
    if values != sorted(values):
        raise DiffError(f"{what} not sorted ascending: {values}")


def check_batch_rules(old_doc, new_doc, diff):
    """Check the shape and every rule of docs/api.md (The batch diff, Guarantees) against the two documents."""
    old = canon_sections(old_doc)
    new = canon_sections(new_doc)
    for part in ("sections", "items"):
        for key in ("deleted", "inserted", "moved", "updated"):
            if not isinstance(diff[part][key], list):
                raise DiffError(f"{part}.{key} is not an array")
    secs, items = diff["sections"], diff["items"]

    # sorted
    _assert_sorted(secs["deleted"], "sections.deleted")
    _assert_sorted([x["at"] for x in secs["inserted"]], "sections.inserted")
    _assert_sorted([x["at"] for x in secs["updated"]], "sections.updated")
    _assert_sorted([x["to"] for x in secs["moved"]], "sections.moved")
    _assert_sorted([list(x) for x in items["deleted"]], "items.deleted")
    _assert_sorted([list(x["at"]) for x in items["inserted"]], "items.inserted")
    _assert_sorted([list(x["at"]) for x in items["updated"]], "items.updated")
    _assert_sorted([list(x["to"]) for x in items["moved"]], "items.moved")

    # counts
    counts = diff["counts"]
    if counts["from"] != [len(s["items"]) for s in old]:
        raise DiffError(f"counts.from {counts['from']} != {[len(s['items']) for s in old]}")
    if counts["to"] != [len(s["items"]) for s in new]:
        raise DiffError(f"counts.to {counts['to']} != {[len(s['items']) for s in new]}")

    # sections: identity
    old_ids = [s["id"] for s in old]
    new_ids = [s["id"] for s in new]
    del_s = set(secs["deleted"])
    ins_s = {x["at"] for x in secs["inserted"]}
    if {old_ids[i] for i in del_s} != set(old_ids) - set(new_ids) or len(del_s) != len(secs["deleted"]):
        raise DiffError("deleted sections are not exactly the sections that left")
    if {new_ids[i] for i in ins_s} != set(new_ids) - set(old_ids) or len(ins_s) != len(secs["inserted"]):
        raise DiffError("inserted sections are not exactly the sections that came")
    for m in secs["moved"]:
        if old_ids[m["from"]] != new_ids[m["to"]]:
            raise DiffError(f"section move {m} does not move one section")
    both = [sid for sid in old_ids if sid in set(new_ids)]
    new_pos = {sid: i for i, sid in enumerate(new_ids)}
    if len(secs["moved"]) != len(both) - lis_length([new_pos[sid] for sid in both]):
        raise DiffError(f"section moves not minimal: {len(secs['moved'])} moves for {both}")
    old_by_id = {s["id"]: s for s in old}
    want_updated = {
        s["id"] for s in new if s["id"] in old_by_id and canon_header(s) != canon_header(old_by_id[s["id"]])
    }
    if {new_ids[u["at"]] for u in secs["updated"]} != want_updated or len(secs["updated"]) != len(want_updated):
        raise DiffError(f"updated sections {secs['updated']} != {sorted(want_updated)}")

    # items: not inside deleted (old) or inserted (new) sections, each at most once
    for p in items["deleted"]:
        if p[0] in del_s:
            raise DiffError(f"items.deleted {p} inside a deleted section")
    for m in items["moved"]:
        if m["from"][0] in del_s or m["to"][0] in ins_s:
            raise DiffError(f"items.moved {m} touches a deleted or inserted section")
    for x in items["inserted"] + items["updated"]:
        if x["at"][0] in ins_s:
            raise DiffError(f"item operation {x['at']} inside an inserted section")
    olds = [tuple(p) for p in items["deleted"]] + [tuple(m["from"]) for m in items["moved"]]
    news = [tuple(x["at"]) for x in items["inserted"]] + [tuple(m["to"]) for m in items["moved"]]
    if len(set(olds)) != len(olds) or len(set(news)) != len(news):
        raise DiffError("an index path appears twice")

    # items: identity
    old_loc = {it["id"]: (s, i) for s, sec in enumerate(old) for i, it in enumerate(sec["items"])}
    new_loc = {it["id"]: (s, i) for s, sec in enumerate(new) for i, it in enumerate(sec["items"])}
    deleted = {tuple(p) for p in items["deleted"]}
    inserted = {tuple(x["at"]) for x in items["inserted"]}
    moved_from = {tuple(m["from"]): tuple(m["to"]) for m in items["moved"]}
    for iid, (s, i) in old_loc.items():
        if s in del_s:
            continue
        goes = iid not in new_loc or new_loc[iid][0] in ins_s
        if goes != ((s, i) in deleted):
            raise DiffError(f"item {iid} at {(s, i)}: deleted={not goes} is wrong")
        if not goes:
            if old_ids[s] != new_ids[new_loc[iid][0]] and (s, i) not in moved_from:
                raise DiffError(f"item {iid} changes section without a move")
            if (s, i) in moved_from and moved_from[(s, i)] != new_loc[iid]:
                raise DiffError(f"item {iid} moves to {moved_from[(s, i)]}, is at {new_loc[iid]}")
    for iid, (s, i) in new_loc.items():
        if s in ins_s:
            continue
        comes = iid not in old_loc or old_loc[iid][0] in del_s
        if comes != ((s, i) in inserted):
            raise DiffError(f"item {iid} at {(s, i)}: inserted={comes} is wrong")
    # minimal moves inside each surviving section
    for sec in new:
        if sec["id"] not in old_by_id:
            continue
        os_ = old_ids.index(sec["id"])
        ns_ = new_ids.index(sec["id"])
        stay = [it["id"] for it in old[os_]["items"] if it["id"] in new_loc and new_loc[it["id"]][0] == ns_]
        n_moved = sum(1 for iid in stay if old_loc[iid] in moved_from)
        if n_moved != len(stay) - lis_length([new_loc[iid][1] for iid in stay]):
            raise DiffError(f"item moves in section {sec['id']} not minimal ({n_moved} for {len(stay)})")
    # updated items: exactly the changed ones that stay or move
    old_items = {it["id"]: it for sec in old for it in sec["items"]}
    want = set()
    for iid, (s, i) in new_loc.items():
        if s in ins_s or iid not in old_loc or old_loc[iid][0] in del_s:
            continue
        if not json_equal(item_content(old_items[iid]), item_content(new[s]["items"][i])):
            want.add(iid)
    got = [new[x["at"][0]]["items"][x["at"][1]]["id"] for x in items["updated"]]
    if set(got) != want or len(got) != len(want):
        raise DiffError(f"updated items {sorted(got)} != changed items {sorted(want)}")


def is_empty_diff(diff):
    return all(diff[p][k] == [] for p in ("sections", "items") for k in ("deleted", "inserted", "moved", "updated"))


# ---------------------------------------------------------------------------
# RFC 6902


def _tokens(pointer):
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PatchError(f"bad pointer {pointer!r}")
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


def _index(container, tok, allow_end):
    if tok == "-" and allow_end:
        return len(container)
    if not tok.isdigit() or (tok != "0" and tok.startswith("0")):
        raise PatchError(f"bad array index {tok!r}")
    i = int(tok)
    limit = len(container) if allow_end else len(container) - 1
    if i > limit:
        raise PatchError(f"array index {i} out of range")
    return i


def _get(doc, pointer):
    cur = doc
    for tok in _tokens(pointer):
        if isinstance(cur, list):
            cur = cur[_index(cur, tok, False)]
        elif isinstance(cur, dict):
            if tok not in cur:
                raise PatchError(f"no member {tok!r} in {pointer}")
            cur = cur[tok]
        else:
            raise PatchError(f"cannot descend into {pointer}")
    return cur


def _parent(doc, pointer):
    toks = _tokens(pointer)
    parent = _get(doc, "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in toks[:-1]))
    return parent, toks[-1]


def _add(doc, pointer, value):
    if pointer == "":
        return value
    parent, tok = _parent(doc, pointer)
    if isinstance(parent, list):
        parent.insert(_index(parent, tok, True), value)
    elif isinstance(parent, dict):
        parent[tok] = value
    else:
        raise PatchError(f"cannot add at {pointer}")
    return doc


def _remove(doc, pointer):
    if pointer == "":
        raise PatchError("cannot remove the root")
    parent, tok = _parent(doc, pointer)
    if isinstance(parent, list):
        return parent.pop(_index(parent, tok, False))
    if isinstance(parent, dict):
        if tok not in parent:
            raise PatchError(f"nothing to remove at {pointer}")
        return parent.pop(tok)
    raise PatchError(f"cannot remove at {pointer}")


def apply_json_patch(doc, ops):
    """Apply an RFC 6902 patch; returns the new document (doc is not modified)."""
    doc = copy.deepcopy(doc)
    if not isinstance(ops, list):
        raise PatchError("a JSON Patch is an array")
    for op in ops:
        kind = op["op"]
        path = op["path"]
        if kind == "add":
            doc = _add(doc, path, copy.deepcopy(op["value"]))
        elif kind == "remove":
            _remove(doc, path)
        elif kind == "replace":
            if path == "":
                doc = copy.deepcopy(op["value"])
            else:
                _get(doc, path)
                _remove(doc, path)
                doc = _add(doc, path, copy.deepcopy(op["value"]))
        elif kind == "move":
            frm = op["from"]
            if path != frm and path.startswith(frm + "/"):
                raise PatchError("cannot move a value into itself")
            value = _remove(doc, frm) if frm != "" else doc
            doc = _add(doc, path, value)
        elif kind == "copy":
            doc = _add(doc, path, copy.deepcopy(_get(doc, op["from"])))
        elif kind == "test":
            if not json_equal(_get(doc, path), op["value"]):
                raise PatchError(f"test failed at {path}")
        else:
            raise PatchError(f"unknown op {kind!r}")
    return doc
