"""Access (docs/api.md, Access): scoped tokens (JWTs minted here with PyJWT), private reads, scoped writes, expiry of long
requests, access_token for EventSource in headless Chromium, the page's token field, and no token in the log.

One server for the module: readAccess token, an HS256 secret, a JWKS of an ES256 and an RS256 public key, a
static write token, and logging at trace level, so that the last test can grep everything the server wrote.
"""

import base64
import hashlib
import hmac
import json
import time

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from browser_support import browser_errors, check_served_web_files, chrome, page_state, wait_for
from conftest import Server, assert_problem, hold_cursor, sections_doc

SECRET = "e2e-secret-0123456789-abcdefghijklmnop"
STATIC = "static-e2e-token-42"
EC_KEY = ec.generate_private_key(ec.SECP256R1())
RSA_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
USED_TOKENS = set()  # every token sent in this module, for the log check at the end


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def int_b64url(n):
    return b64url(n.to_bytes((n.bit_length() + 7) // 8, "big"))


def jwks():
    ec_numbers = EC_KEY.public_key().public_numbers()
    rsa_numbers = RSA_KEY.public_key().public_numbers()
    return {"keys": [
        {"kty": "EC", "crv": "P-256", "kid": "ec-1", "x": int_b64url(ec_numbers.x).rjust(43, "A"), "y": int_b64url(ec_numbers.y).rjust(43, "A")},
        {"kty": "RSA", "kid": "rsa-1", "alg": "RS256", "n": int_b64url(rsa_numbers.n), "e": int_b64url(rsa_numbers.e)},
    ]}


def claims(scope="read", lists=("a-*",), lifetime=600, **extra):
    now = int(time.time())
    body = {"exp": now + lifetime, "iat": now, "scope": scope, "lists": list(lists)}
    body.update(extra)
    return {k: v for k, v in body.items() if v is not None}


def mint(scope="read", lists=("a-*",), lifetime=600, alg="HS256", **extra):
    body = claims(scope, lists, lifetime, **extra)
    if alg == "HS256":
        token = jwt.encode(body, SECRET, algorithm="HS256")
    elif alg == "ES256":
        token = jwt.encode(body, EC_KEY, algorithm="ES256", headers={"kid": "ec-1"})
    else:
        token = jwt.encode(body, RSA_KEY, algorithm="RS256", headers={"kid": "rsa-1"})
    USED_TOKENS.add(token)
    return token


def handmade(header, body, key):
    """A JWT signed HS256 by hand (PyJWT refuses the attacks these tests need); `key` None: no signature."""
    signing_input = f"{b64url(json.dumps(header).encode())}.{b64url(json.dumps(body).encode())}"
    signature = b"" if key is None else hmac.new(key, signing_input.encode(), hashlib.sha256).digest()
    token = f"{signing_input}.{b64url(signature)}"
    USED_TOKENS.add(token)
    return token


def bad_tokens():
    """Every token that must be answered 401, by name."""
    public_pem = RSA_KEY.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    return {
        "missing": None,
        "expired": mint(lifetime=-5),
        "not-yet-valid": mint(nbf=int(time.time()) + 300),
        "wrongly-signed": handmade({"alg": "HS256", "typ": "JWT"}, claims(), b"another-secret-0123456789-abcdefghijkl"),
        "alg-none": handmade({"alg": "none", "typ": "JWT"}, claims(), None),
        "alg-confused": handmade({"alg": "HS256", "typ": "JWT", "kid": "rsa-1"}, claims(), public_pem),
        "no-exp": handmade({"alg": "HS256", "typ": "JWT"}, {"scope": "read", "lists": ["a-*"]}, SECRET.encode()),
        "unknown-scope": mint(scope="admin"),
        "malformed": "eyJhbGciOiJIUzI1NiJ9.!!!.x",
    }


def auth(token):
    return {} if token is None else {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    base = tmp_path_factory.mktemp("access")
    keys = base / "jwks.json"
    keys.write_text(json.dumps(jwks()))
    data = base / "db"
    data.mkdir()
    s = Server(data, env={
        "LISTDELTA_JWT_SECRET": SECRET, "LISTDELTA_JWT_PUBLIC_KEYS": str(keys), "LISTDELTA_READ_ACCESS": "token",
        "LISTDELTA_WRITE_TOKENS": STATIC, "LISTDELTA_LOG_LEVEL": "trace", "LISTDELTA_MAX_WAIT_SECONDS": "10",
    }).start()
    admin = auth(STATIC)
    for lid in ("a-1", "a-2", "b-1"):
        assert s.put(lid, sections_doc(("s", "S", ["x", "y"])), headers=admin).status_code == 201
    yield s
    s.stop()


READS = [
    "/v1/lists", "/v1/lists/{id}", "/v1/lists/{id}/sections", "/v1/lists/{id}/sections/0/items",
    "/v1/lists/{id}/diff?from=0", "/v1/lists/{id}/revisions", "/v1/lists/{id}/events?from=0",
    "/v1/events?lists={id}:0", "/v1/diffs?lists={id}:0",
]


def read(s, path, lid, headers):
    r = s.get(path.format(id=lid), headers=headers, stream=True, timeout=10)
    r.close()  # an event stream would go on: the status is all these tests need
    return r


def write(s, method, lid, headers):
    if method == "PUT":
        return s.put(lid, sections_doc(("s", "S", ["x", "y"])), headers=headers)
    if method == "PATCH":
        return s.patch(lid, [{"op": "test", "path": "/id", "value": lid}], headers=headers)
    if method == "POST":
        return s.request("POST", f"/v1/lists/{lid}/revert", json={"to": 1}, headers=headers)
    return s.delete(lid, headers=headers)


@pytest.mark.parametrize("path", READS)
def test_every_read_refuses_every_bad_token_with_401(srv, path):
    for name, token in bad_tokens().items():
        r = read(srv, path, "a-1", auth(token))
        assert r.status_code == 401, (name, r.status_code)
        assert r.headers["WWW-Authenticate"].startswith("Bearer realm=\"listdelta\""), name
        assert r.headers["Content-Type"] == "application/problem+json", name


@pytest.mark.parametrize("method", ["PUT", "PATCH", "DELETE", "POST"])
def test_every_write_refuses_every_bad_token_with_401(srv, method):
    for name, token in bad_tokens().items():
        assert write(srv, method, "a-2", auth(token)).status_code == 401, name
    assert srv.get("a-2", headers=auth(STATIC)).json()["revision"] == 1  # nothing changed


@pytest.mark.parametrize("alg", ["HS256", "ES256", "RS256"])
@pytest.mark.parametrize("path", READS)
def test_a_token_for_a_star_reads_a_1_and_not_b_1(srv, path, alg):
    token = mint(lists=["a-*"], alg=alg)
    if path != "/v1/lists":
        assert read(srv, path, "b-1", auth(token)).status_code == 403
    assert read(srv, path, "a-1", auth(token)).status_code == 200


def test_many_lists_name_the_first_list_not_covered(srv):
    token = mint(lists=["a-*"])
    r = srv.get("/v1/diffs", params={"lists": "a-1:0,b-1:0,c-9:0"}, headers=auth(token))
    assert assert_problem(r, 403)["detail"] == 'the token does not cover the list "b-1"'


def test_the_index_shows_only_covered_lists(srv):
    ids = lambda token: [entry["id"] for entry in srv.get("/v1/lists", headers=auth(token)).json()["lists"]]  # noqa: E731
    assert ids(mint(lists=["a-*"])) == ["a-1", "a-2"]
    assert ids(mint(lists=["b-1", "zzz"])) == ["b-1"]
    assert {"a-1", "a-2", "b-1"} <= set(ids(STATIC))


def test_a_read_token_cannot_write_and_a_write_token_writes_only_its_lists(srv):
    reader, writer = mint(scope="read", lists=["*"]), mint(scope="write", lists=["w-*"])
    for method in ("PUT", "PATCH", "DELETE", "POST"):
        r = write(srv, method, "a-1", auth(reader))
        assert assert_problem(r, 403)["detail"] == 'the token may only read; writing "a-1" needs scope "write"', method
    assert write(srv, "PUT", "w-1", auth(writer)).status_code == 201
    assert write(srv, "PATCH", "w-1", auth(writer)).status_code == 200
    assert write(srv, "PUT", "a-1", auth(writer)).status_code == 403
    assert write(srv, "DELETE", "w-1", auth(writer)).status_code == 204
    # A token in the query is for GETs (EventSource) only.
    r = srv.request("PUT", "/v1/lists/w-2", params={"access_token": writer}, json={"kind": "array", "items": []})
    assert_problem(r, 400)


def test_an_event_stream_ends_when_its_token_expires(srv):
    token = mint(lists=["a-1"], lifetime=2)
    started = time.monotonic()
    stream = srv.sse("/v1/lists/a-1/events?from=0", headers=auth(token))
    assert stream.status == 200
    assert stream.next_event(5)["event"] == "diff"
    assert stream.next_event(8) is None  # the server ended the stream
    elapsed = time.monotonic() - started
    assert 0.5 < elapsed < 5, elapsed
    assert ": the token expired; reconnect with a fresh one" in stream.comments, stream.comments
    # The same through access_token, and a held long poll answers 401 at the expiry.
    token = mint(lists=["a-1"], lifetime=2)
    started = time.monotonic()
    r = srv.get("/v1/lists/a-1/diff", params={"from": 1, "wait": 8, "access_token": token, "cursor": hold_cursor()}, timeout=10)
    assert r.status_code == 401 and time.monotonic() - started < 5


# -- the browser: client.js's token option (EventSource gets access_token) and the page's token field

FOLLOW_JS = """
const [mode, tokens, done] = arguments;
import('/client.js').then((m) => {
  const rec = { asked: [], diffs: [], errors: [], resets: 0 };
  const f = new m.ListFollower('', 'a-1', { reset: () => { rec.resets += 1; } }, {
    mode, wait: 3, backoff: { initial: 100, max: 500 },
    // The first token expires soon; the follower keeps it until it asks for a fresh one (after a 401 or a stream
    // that ended), which lasts.
    token: ({ fresh }) => { rec.asked.push(fresh); return tokens[Math.min(rec.asked.filter(Boolean).length, tokens.length - 1)]; },
    onDiff: (d) => rec.diffs.push(d.to),
    onError: (e) => rec.errors.push(String(e && e.message || e)),
  });
  window.__follow = { f, rec };
  f.start().then(() => done(null), (e) => done(String(e)));
}, (e) => done('import failed: ' + e));
"""


@pytest.mark.parametrize("mode", ["events", "poll"])
def test_client_js_follows_with_tokens_and_renews_them(srv, mode):
    check_served_web_files(srv)
    driver = chrome()
    try:
        driver.get(srv.url("/healthz"))
        tokens = [mint(lists=["a-1"], lifetime=3)] + [mint(lists=["a-1"], lifetime=600) for _ in range(5)]
        assert driver.execute_async_script(FOLLOW_JS, mode, tokens) is None
        start = srv.get("a-1", headers=auth(STATIC)).json()["revision"]
        for n in range(6):  # writes before and after the first token's expiry
            doc = sections_doc(("s", "S", ["x", "y", f"n{n}"]))
            assert srv.put("a-1", doc, headers=auth(STATIC)).status_code == 200
            time.sleep(1)
        state = lambda: driver.execute_script("return {rev: window.__follow.f.revision, rec: window.__follow.rec};")  # noqa: E731
        wait_for(lambda: state()["rev"] == start + 6, timeout=15, message="the follower reaching the last revision")
        rec = state()["rec"]
        assert rec["diffs"][-1] == start + 6, rec
        assert True in rec["asked"], f"no fresh token was asked for after the first expired: {rec}"
        # Chromium logs each refused request (the 401 at the expiry) as a failed load; nothing else may appear.
        assert not [e for e in browser_errors(driver) if "Failed to load resource" not in e]
    finally:
        driver.quit()


def test_the_page_works_with_a_token_in_its_field(srv):
    check_served_web_files(srv)
    driver = chrome()
    try:
        driver.get(srv.url("/?list=a-2"))
        token = mint(lists=["a-*"])
        driver.execute_script(
            "const t = document.getElementById('token'); t.value = arguments[0]; t.dispatchEvent(new Event('change'));", token)
        wait_for(lambda: page_state(driver)["sections"] == [["s", ["x", "y"]]], timeout=10, message="the list rendered")
        listed = lambda: driver.execute_script(  # noqa: E731
            "return [...document.querySelectorAll('#lists [data-list-id]')].map(li => li.dataset.listId);")
        wait_for(lambda: listed() == ["a-1", "a-2"], timeout=10, message="the index filtered by the token")
        assert driver.execute_script("return sessionStorage.getItem('listdelta.token');") == token
        driver.refresh()  # the token stays for the tab
        wait_for(lambda: page_state(driver)["sections"] == [["s", ["x", "y"]]], timeout=10, message="the list after a reload")
    finally:
        driver.quit()


def test_no_token_reaches_the_log(srv):
    """Last in the module: every token used above, in headers and in query strings, is absent from the log."""
    srv.get("/v1/lists/a-1", params={"access_token": mint()})  # one more through the query, for certain
    srv.log.flush()
    log = open(srv.log.name, "rb").read().decode(errors="replace")
    assert "/v1/lists/a-1" in log  # the log does record requests (trace level)
    assert len(USED_TOKENS) > 20
    for token in USED_TOKENS | {STATIC, SECRET}:
        assert token not in log
        signature = token.rsplit(".", 1)[-1]
        if len(signature) > 16:
            assert signature not in log

