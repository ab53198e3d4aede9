"""Headless Chromium for the browser tests: the system chromium + chromedriver, driven by Selenium.

Nothing is downloaded: the driver and browser paths are given explicitly and Selenium Manager runs offline.
A missing browser, driver or Selenium fails the test (CI must install them: see scripts/setup.sh).
"""

import os
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
WEB = REPO / "Sources" / "ListDeltaService" / "Web"
ARTIFACTS = REPO / "artifacts"

CHROMIUM_CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
DRIVER_CANDIDATES = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"]


def _first(env_name, candidates, what, package):
    path = os.environ.get(env_name)
    if path:
        if not os.access(path, os.X_OK):
            pytest.fail(f"{env_name}={path} is not an executable {what}")
        return path
    for c in candidates:
        if os.access(c, os.X_OK):
            return c
    pytest.fail(
        f"no {what} found (looked at {', '.join(candidates)}; set {env_name}). "
        f"Install it: apt-get install -y {package}"
    )


def chrome():
    """A headless Chromium WebDriver; the caller quits it."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail("selenium is not installed: python3 -m pip install selenium")
    browser = _first("LISTDELTA_CHROMIUM", CHROMIUM_CANDIDATES, "Chromium browser", "chromium")
    driver = _first("LISTDELTA_CHROMEDRIVER", DRIVER_CANDIDATES, "chromedriver", "chromium-driver")
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must never fetch anything
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,1400", "--no-first-run", "--no-default-browser-check",
                "--disable-background-networking", "--disable-extensions"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        d = webdriver.Chrome(service=Service(executable_path=driver), options=opts)
    except Exception as e:  # noqa: BLE001 - report why the browser did not start
        pytest.fail(f"could not start headless Chromium ({browser}, {driver}): {e}")
    # Headless Chromium may report prefers-reduced-motion; the page's animations (FLIP) are to be exercised.
    d.execute_cdp_cmd("Emulation.setEmulatedMedia",
                      {"features": [{"name": "prefers-reduced-motion", "value": "no-preference"}]})
    d.set_page_load_timeout(20)
    d.set_script_timeout(20)
    return d


def browser_errors(driver):
    """Severe console messages (uncaught errors) logged by the page so far."""
    try:
        return [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    except Exception:  # noqa: BLE001 - logs are best effort
        return []


def check_served_web_files(server):
    """The service serves this checkout's page files, its ES modules (app/*.js) included (the bundle is stale when
    they differ)."""
    modules = sorted(f"app/{p.name}" for p in (WEB / "app").glob("*.js"))
    for name in ("client.js", "app.js", "style.css", "index.html", *modules):
        path = "/" if name == "index.html" else f"/{name}"
        r = server.get(path)
        assert r.status_code == 200, (name, r.status_code)
        if r.content != (WEB / name).read_bytes():
            pytest.fail(
                f"the binary serves a different {name} than {WEB / name}: rebuild it (swift build) "
                "or run the tests with LISTDELTA_WEB_ROOT pointing at that folder"
            )


def server_state(server, list_id):
    doc = server.get(list_id).json()
    return doc["revision"], [[s["id"], [i["id"] for i in s["items"]]] for s in doc["sections"]]


PAGE_STATE_JS = """
const r = document.querySelector('[data-revision]');
const secs = [...document.querySelectorAll('[data-section-id]')].map(s =>
  [s.getAttribute('data-section-id'), [...s.querySelectorAll('[data-item-id]')].map(i => i.getAttribute('data-item-id'))]);
return {revision: r ? r.getAttribute('data-revision') : null, sections: secs,
        nRevision: document.querySelectorAll('[data-revision]').length};
"""


def page_state(driver):
    return driver.execute_script(PAGE_STATE_JS)


def wait_for(predicate, timeout=10, interval=0.05, message="condition"):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {message}; last: {last!r}")


def save_screenshot(driver, name):
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    driver.save_screenshot(str(path))
    return path
