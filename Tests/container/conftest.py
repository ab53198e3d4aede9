"""The container tests' harness: podman with the flags this machine needs, the image built from the repository's
own Dockerfile (with local stand-ins for its FROM images), and small helpers.

Facts about podman here: crun refuses ("cgroups in hybrid mode"), so every call names runc and cgroupfs; podman's
default ulimits are refused, so every container gets explicit nofile/nproc limits; health checks are not scheduled
without systemd, so they are run with `podman healthcheck run`, as an orchestrator's probe would."""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Tests" / "e2e"))

IMAGE = "localhost/listdelta:latest"
BASE = "docker.io/library/debian:bookworm-slim"
PODMAN = ["podman", "--runtime", "runc", "--cgroup-manager", "cgroupfs", "--events-backend", "file"]
LIMITS = ["--ulimit", "nofile=20000:20000", "--ulimit", "nproc=8192:8192"]
TOKEN = "container-test-token"


def podman(*args, check=True, timeout=120, **kw):
    """Runs podman with this machine's flags; the completed process (stdout and stderr as text)."""
    result = subprocess.run([*PODMAN, *map(str, args)], capture_output=True, text=True, timeout=timeout, **kw)
    if check and result.returncode != 0:
        raise AssertionError(f"podman {' '.join(map(str, args))} failed ({result.returncode}): {result.stderr.strip()}")
    return result


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def image_mb(name):
    return int(json.loads(podman("image", "inspect", name).stdout)[0]["Size"]) / 1e6


def wait_healthy(url, timeout=60, process_check=None):
    """Polls `url` + /healthz until it answers 200; the seconds it took."""
    started = time.monotonic()
    while True:
        try:
            if requests.get(url + "/healthz", timeout=1).status_code == 200:
                return time.monotonic() - started
        except requests.RequestException:
            pass
        if process_check:
            process_check()
        if time.monotonic() - started > timeout:
            raise AssertionError(f"{url} was not healthy within {timeout} s")
        time.sleep(0.02)


def wait_until(condition, timeout, message, interval=0.1):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(message() if callable(message) else message)
        time.sleep(interval)


def logs(container):
    result = podman("logs", container, check=False)
    return (result.stdout + result.stderr)[-4000:]


class Figures:
    """Figures the tests measure, printed as one `container ...` line at the end of the session."""

    values = {}


@pytest.fixture(scope="session")
def image():
    """The image, built from a clean copy of the repository as a user builds it, with the stand-ins in place."""
    subprocess.run(["bash", str(REPO / "Tests" / "container" / "standins.sh")], check=True, timeout=1800)
    started = time.monotonic()
    build = subprocess.run(
        ["buildah", "bud", "--isolation", "chroot", "--format", "docker", "--pull=never", "--layers",
         "-v", "/opt/swift:/opt/swift:ro", "-v", "/opt/swift-packages:/opt/swift-packages:ro",
         "-t", IMAGE, str(REPO)],
        capture_output=True, text=True, timeout=3600)
    assert build.returncode == 0, f"the image does not build:\n{build.stdout[-6000:]}\n{build.stderr[-3000:]}"
    Figures.values["build_s"] = round(time.monotonic() - started)
    Figures.values["image_mb"] = round(image_mb(IMAGE))
    Figures.values["base_mb"] = round(image_mb(BASE))
    return IMAGE


@pytest.fixture(scope="session", autouse=True)
def print_figures():
    yield
    if Figures.values:
        order = ["build_s", "image_mb", "base_mb", "start_ms", "stop_ms"]
        line = " ".join(f"{key}={Figures.values[key]}" for key in order if key in Figures.values)
        print(f"\ncontainer {line}", flush=True)
        rollout = Figures.values.get("rollout")
        if rollout:
            print(f"rollout {rollout}", flush=True)


class Container:
    """One container of the image, run as users run it: detached, a published port, a named volume."""

    def __init__(self, name, image, env=None, volumes=(), args=(), network=None, port=None):
        self.name = name
        self.image = image
        self.env = {"LISTDELTA_WRITE_TOKENS": TOKEN, **(env or {})}
        self.volumes = list(volumes)
        self.args = list(args)
        self.network = network
        self.port = port or free_port()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def run(self):
        command = ["run", "-d", "--name", self.name, *LIMITS]
        if self.network == "host":
            command += ["--network", "host"]
            self.env.setdefault("LISTDELTA_PORT", str(self.port))
        else:
            command += ["-p", f"127.0.0.1:{self.port}:8080"]
        for key, value in self.env.items():
            command += ["-e", f"{key}={value}"]
        for volume in self.volumes:
            command += ["-v", volume]
        podman(*command, self.image, *self.args)
        return self

    def remove(self):
        podman("rm", "-f", "-v", "-t", "0", self.name, check=False)

    def state(self):
        return json.loads(podman("inspect", self.name).stdout)[0]["State"]

    def exec(self, *command):
        return podman("exec", self.name, *command, check=False)

    def wait_healthy(self, timeout=60):
        def still_running():
            if not self.state()["Running"]:
                raise AssertionError(f"{self.name} exited: {logs(self.name)}")
        return wait_healthy(self.url, timeout, still_running)

    def headers(self, extra=None):
        return {"Authorization": f"Bearer {TOKEN}", **(extra or {})}
