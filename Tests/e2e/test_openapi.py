"""The OpenAPI description (Sources/ListDeltaService/Web/openapi.yaml) against the service.

- The spec is a valid OpenAPI 3.1 document.
- Its (method, path) operations are exactly the routes the service registers (read from the Swift sources:
  `router.add(.METHOD, "/path")` calls and the static file table of StaticRoutes.swift).
- Every operation answers a running server with something other than 404/405 (with valid ids).
- GET /openapi.yaml serves the file byte for byte.
- Every module of the page (Web/app/*.js) is served byte for byte as /app/{module}; an unknown one is a 404 problem.
"""

import re
from pathlib import Path

import pytest
import yaml
from openapi_spec_validator import validate

from conftest import uid

REPO = Path(__file__).resolve().parents[2]
SERVICE = REPO / "Sources" / "ListDeltaService"
WEB = SERVICE / "Web"
SPEC_PATH = WEB / "openapi.yaml"
METHODS = ("get", "put", "post", "patch", "delete", "head", "options", "trace")
# Static files the API reference (docs/api.md) requires; the others of the table (the page's own script and style)
# are served only when the build ships them.
REQUIRED_STATIC = {"/", "/client.js", "/openapi.yaml"}
# The page's ES modules, served as /app/{module}.
PAGE_MODULES = sorted(p.name for p in (WEB / "app").glob("*.js"))


@pytest.fixture(scope="module")
def spec():
    with open(SPEC_PATH, "rb") as f:
        return yaml.safe_load(f)


def spec_operations(spec):
    return {(m.upper(), path) for path, item in spec["paths"].items() for m in item if m in METHODS}


def static_table():
    """(url path, file) from StaticRoutes.files."""
    text = (SERVICE / "Routes" / "StaticRoutes.swift").read_text()
    table = re.search(r"static let files[^=]*=\s*\[(.*?)\n\s*\]", text, re.S)
    assert table, "StaticRoutes.files not found"
    rows = re.findall(r'\(\s*"(/[^"]*)"\s*,\s*"([^"]+)"\s*,\s*"[^"]*"\s*\)', table.group(1))
    assert rows, "StaticRoutes.files is empty"
    return rows


def source_routes():
    """Every (METHOD, pattern) the service registers: router.add calls plus the static file table."""
    routes = set()
    for swift in sorted(SERVICE.rglob("*.swift")):
        for method, pattern in re.findall(r'router\.add\(\s*\.([A-Z]+)\s*,\s*"([^"]+)"', swift.read_text()):
            routes.add((method, pattern))
    assert routes, "no router.add(...) calls found"
    routes |= {("GET", path) for path, _ in static_table()}
    return routes


def test_spec_is_valid_openapi_31(spec):
    assert spec["openapi"].startswith("3.1.")
    validate(spec)


def test_spec_operations_equal_registered_routes(spec):
    in_spec = spec_operations(spec)
    in_source = source_routes()
    assert in_spec - in_source == set(), f"in the spec but not registered: {sorted(in_spec - in_source)}"
    assert in_source - in_spec == set(), f"registered but not in the spec: {sorted(in_source - in_spec)}"


def test_spec_path_parameters_are_declared(spec):
    for path, item in spec["paths"].items():
        names = set(re.findall(r"{([^}]+)}", path))
        for method in (m for m in item if m in METHODS):
            params = item.get("parameters", []) + item[method].get("parameters", [])
            declared = set()
            for p in params:
                if "$ref" in p:
                    p = spec["components"]["parameters"][p["$ref"].rsplit("/", 1)[1]]
                if p["in"] == "path":
                    declared.add(p["name"])
            assert declared == names, (method, path, declared)


def test_every_operation_documents_its_problems(spec):
    """Each operation lists 503 (shutdown) and 414 (long target); writes list their auth and body problems."""
    for path, item in spec["paths"].items():
        for method in (m for m in item if m in METHODS):
            codes = set(item[method]["responses"])
            assert {"400", "414", "503"} <= codes, (method, path, codes)
            if method in ("put", "patch", "delete"):
                assert {"401", "403"} <= codes, (method, path, codes)
                # A source and a view definition have no revisions, so their writes take no If-Match: no 412.
                if not path.endswith(("/source", "/view")):
                    assert "412" in codes, (method, path, codes)
            if method in ("put", "patch"):
                assert {"413", "415", "422"} <= codes, (method, path, codes)
            if path.startswith("/v1/lists/{id}"):
                assert "404" in codes or method == "put", (method, path, codes)


# -- against a running server


def _shipped(file):
    return (WEB / file).is_file()


@pytest.fixture(scope="module")
def live_list(server):
    list_id = uid("oa")
    r = server.put(list_id, {"kind": "sections", "sections": [{"id": "s", "title": "S", "items": [{"id": "a", "cell": "C"}]}]})
    assert r.status_code == 201, r.text
    return list_id


class RouteStatus(int):
    """A status the operation's route answered itself (a 404 naming what is missing), so the route is served."""


def _call(server, method, path, list_id):
    """One request to an operation with valid values; returns the status."""
    target = path.replace("{id}", list_id).replace("{index}", "0").replace("{module}", PAGE_MODULES[0])
    if method == "GET" and target.endswith("/events"):
        stream = server.sse(target + "?from=0", timeout=5)
        try:
            return stream.status
        finally:
            stream.close()
    if target.endswith("/source"):
        # The list has no source (GET, DELETE: 404); a refused URL attaches none (PUT: 422, nothing fetched).
        if method == "PUT":
            return server.request("PUT", target, json={"url": "ftp://example.com/feed.xml"}).status_code
        response = server.request(method, target)
        # The route's own 404 (a problem naming the missing source), not the router's for an unknown path.
        if response.status_code == 404 and "has no source" in response.json().get("detail", ""):
            return RouteStatus(404)
        return response.status_code
    if target.endswith("/view"):
        # The list is no view (GET, DELETE: 404); a view of itself is refused (PUT: 422), so it stays no view.
        if method == "PUT":
            return server.request("PUT", target, json={"of": list_id}).status_code
        response = server.request(method, target)
        # The route's own 404 (a problem saying the list is no view), not the router's for an unknown path.
        if response.status_code == 404 and not response.json().get("detail", "").startswith("No resource at"):
            return RouteStatus(404)
        return response.status_code
    if method == "GET" and target.endswith("/diff"):
        return server.get(target, params={"from": 0}).status_code
    if method == "GET":
        return server.get(target).status_code
    if method == "PUT":
        return server.put(list_id, {"items": [{"id": "a", "cell": "C"}]}).status_code
    if method == "PATCH":
        return server.patch(list_id, [{"op": "replace", "path": "/sections/0/title", "value": "T"}]).status_code
    if method == "DELETE":
        return server.delete(list_id).status_code
    if method == "POST" and target.endswith("/revert"):
        return server.request("POST", target, json={"to": 1}).status_code
    raise AssertionError(f"no request for {method} {path}")


def test_every_spec_operation_is_served(spec, server, live_list):
    static = dict(static_table())
    answered = {}
    skipped = []
    # DELETE last: the others need the list.
    operations = sorted(spec_operations(spec), key=lambda op: (op[0] == "DELETE", op[1], op[0]))
    for method, path in operations:
        if path in static and path not in REQUIRED_STATIC and not _shipped(static[path]):
            skipped.append(path)
            continue
        answered[(method, path)] = _call(server, method, path, live_list)
    wrong = {op: status for op, status in answered.items() if status in (404, 405) and not isinstance(status, RouteStatus)}
    assert not wrong, f"operations of the spec the server does not serve: {wrong}"
    for (method, path), status in answered.items():
        documented = spec["paths"][path][method.lower()]["responses"]
        assert str(status) in documented, (method, path, status, sorted(documented))


def test_openapi_yaml_is_served_byte_for_byte(server):
    r = server.get("/openapi.yaml")
    assert r.status_code == 200, r.text[:300]
    assert r.headers["Content-Type"].split(";")[0] == "application/yaml"
    assert r.content == SPEC_PATH.read_bytes(), "the served /openapi.yaml differs from the file (stale build?)"
    etag = r.headers["ETag"]
    again = server.get("/openapi.yaml", headers={"If-None-Match": etag})
    assert again.status_code == 304


def test_every_page_module_is_served_and_an_unknown_one_is_a_404_problem(spec, server):
    assert PAGE_MODULES, f"no modules in {WEB / 'app'}"
    parameter = next(p for p in spec["paths"]["/app/{module}"]["get"]["parameters"] if p.get("name") == "module")
    for name in PAGE_MODULES:
        assert re.match(parameter["schema"]["pattern"], name), f"{name} does not match the spec's module pattern"
        r = server.get(f"/app/{name}")
        assert r.status_code == 200, (name, r.status_code)
        assert r.headers["Content-Type"].split(";")[0] == "text/javascript", (name, r.headers["Content-Type"])
        assert r.content == (WEB / "app" / name).read_bytes(), f"the served /app/{name} differs from the file"
        assert server.get(f"/app/{name}", headers={"If-None-Match": r.headers["ETag"]}).status_code == 304, name
    r = server.get("/app/no-such-module.js")
    assert r.status_code == 404, r.text[:300]
    assert r.headers["Content-Type"].split(";")[0] == "application/problem+json"
    assert r.json()["status"] == 404


@pytest.mark.parametrize("revision", [
    "0", "7", "2147483647", "0002147483647", "000000002147483647",  # taken: up to 2^31-1, in at most 18 digits
    "2147483648", "6789047601", "9999999999", "0000000002147483647", "",  # refused: too large, too long, none
])
def test_the_cursor_pattern_admits_exactly_the_revisions_the_server_takes(spec, server, live_list, revision):
    """`lists` (and a many-lists stream's Last-Event-ID) is a ListCursor: its pattern bounds each revision as the
    server does, so a schema-valid cursor is never 400 for its revision."""
    cursor = f"{live_list}:{revision}"
    admitted = re.match(spec["components"]["schemas"]["ListCursor"]["pattern"], cursor) is not None
    status = server.get("/v1/diffs", params={"lists": cursor}).status_code
    assert status == (200 if admitted else 400), (cursor, admitted, status)
