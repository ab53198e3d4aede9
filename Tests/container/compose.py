"""Runs the repository's compose.yaml with podman, as `docker compose up` would, for the tests.

Debian's podman-compose (1.0.3) was tried first: it starts services in order but ignores
`depends_on: {condition: service_healthy}`, and it turns an exec-form health check (`["CMD", "listdelta",
"health"]`) into one quoted word that the shell cannot run. So the tests read the same file and start the same
containers with podman themselves: `${VAR}`, `${VAR:-default}` and `${VAR:?message}` interpolated from the
environment, one network with the file's subnet and fixed addresses, service names as DNS aliases, named volumes,
bind mounts relative to the file, ports, ulimits, capabilities, security options, a read-only root with its tmpfs
mounts, health checks (run with `podman healthcheck run`, since nothing
schedules them here), `stop_grace_period`, and each service started only once the services it depends on with
`condition: service_healthy` are healthy. Only the keys compose.yaml uses are read; any other key is an error, so
the file cannot grow a setting these tests silently skip."""

import json
import os
import re
import time
from pathlib import Path

import yaml

from conftest import LIMITS, podman

KNOWN_KEYS = {"image", "build", "environment", "volumes", "healthcheck", "restart", "ulimits", "stop_grace_period",
              "depends_on", "networks", "ports", "cap_drop", "cap_add", "security_opt", "read_only", "tmpfs"}


class ComposeError(Exception):
    pass


def interpolate(value, env):
    """Compose's variable syntax in every string of `value`."""
    if isinstance(value, dict):
        return {key: interpolate(item, env) for key, item in value.items()}
    if isinstance(value, list):
        return [interpolate(item, env) for item in value]
    if not isinstance(value, str):
        return value

    def replace(match):
        name, operator, argument = match.group(1), match.group(2), match.group(3) or ""
        current = env.get(name, "")
        if operator == ":?" and not current:
            raise ComposeError(f"{name}: {argument}")
        if operator == ":-" and not current:
            return argument
        return current

    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:\?|:-)([^}]*))?\}", replace, value)


def seconds(text):
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|m)?", str(text))
    if not match:
        raise ComposeError(f"cannot read the duration {text!r}")
    value = float(match.group(1))
    return value / 1000 if match.group(2) == "ms" else value * 60 if match.group(2) == "m" else value


class ComposeProject:
    def __init__(self, path, env):
        self.path = Path(path)
        raw = yaml.safe_load(self.path.read_text())
        self.spec = interpolate(raw, {**os.environ, **env})
        self.name = self.spec["name"]
        self.services = self.spec["services"]
        for service, settings in self.services.items():
            unknown = set(settings) - KNOWN_KEYS
            if unknown:
                raise ComposeError(f"{service}: keys these tests do not run: {sorted(unknown)}")
        self.network = f"{self.name}_default"

    def container(self, service):
        return f"{self.name}-{service}-1"

    def order(self):
        """Services, each after the ones it depends on."""
        done, ordered = set(), []

        def visit(service, path=()):
            if service in done:
                return
            if service in path:
                raise ComposeError(f"a dependency cycle through {service}")
            for dependency in self.services[service].get("depends_on", {}):
                visit(dependency, path + (service,))
            done.add(service)
            ordered.append(service)

        for service in self.services:
            visit(service)
        return ordered

    def up(self):
        """Creates the network and volumes, then starts every service once its dependencies are healthy; returns
        the services in the order they started."""
        network = self.spec.get("networks", {}).get("default", {})
        subnets = [entry["subnet"] for entry in network.get("ipam", {}).get("config", [])]
        podman("network", "create", *[f"--subnet={subnet}" for subnet in subnets], self.network)
        if not json.loads(podman("network", "inspect", self.network).stdout)[0].get("dns_enabled"):
            raise ComposeError(f"{self.network} has no DNS, so services cannot reach each other by name: install "
                               "CNI's dnsname plugin (golang-github-containernetworking-plugin-dnsname)")
        for volume in self.spec.get("volumes", {}):
            podman("volume", "create", f"{self.name}_{volume}")
        started = []
        for service in self.order():
            for dependency, rule in self.services[service].get("depends_on", {}).items():
                if rule.get("condition") == "service_healthy":
                    self.wait_healthy(dependency)
            self.start(service)
            started.append(service)
        return started

    def start(self, service):
        settings = self.services[service]
        command = ["run", "-d", "--name", self.container(service), "--network", self.network,
                   "--network-alias", service, *LIMITS]
        address = (settings.get("networks") or {}).get("default", {}) or {}
        if "ipv4_address" in address:
            command += ["--ip", address["ipv4_address"]]
        for key, value in (settings.get("environment") or {}).items():
            command += ["-e", f"{key}={value}"]
        for volume in settings.get("volumes", []):
            source, _, rest = volume.partition(":")
            if source.startswith("."):
                source = str((self.path.parent / source).resolve())
            elif source in self.spec.get("volumes", {}):
                source = f"{self.name}_{source}"
            command += ["-v", f"{source}:{rest}"]
        for port in settings.get("ports", []):
            command += ["-p", port]
        for limit, value in (settings.get("ulimits") or {}).items():
            soft, hard = (value["soft"], value["hard"]) if isinstance(value, dict) else (value, value)
            command += ["--ulimit", f"{limit}={soft}:{hard}"]
        command += [f"--cap-drop={cap}" for cap in settings.get("cap_drop", [])]
        command += [f"--cap-add={cap}" for cap in settings.get("cap_add", [])]
        # Compose writes no-new-privileges as "no-new-privileges:true"; podman takes the bare option.
        command += [f"--security-opt={option.removesuffix(':true')}" for option in settings.get("security_opt", [])]
        if settings.get("read_only"):
            command += ["--read-only", "--read-only-tmpfs=false"]
        command += [f"--tmpfs={path}" for path in settings.get("tmpfs", [])]
        if "stop_grace_period" in settings:
            command += ["--stop-timeout", str(round(seconds(settings["stop_grace_period"])))]
        check = settings.get("healthcheck")
        if check:
            test = check["test"]
            if test[0] == "CMD":
                command += ["--health-cmd", json.dumps(test[1:])]
            elif test[0] == "CMD-SHELL":
                command += ["--health-cmd", test[1]]
            else:
                raise ComposeError(f"{service}: health check {test[0]}")
            for key, flag in (("interval", "--health-interval"), ("timeout", "--health-timeout"),
                              ("start_period", "--health-start-period")):
                if key in check:
                    command += [flag, str(check[key])]
            if "retries" in check:
                command += ["--health-retries", str(check["retries"])]
        podman(*command, settings["image"])

    def healthy(self, service):
        """One probe, as an orchestrator runs it; a service without a health check counts as healthy when running."""
        if not self.services[service].get("healthcheck"):
            state = json.loads(podman("inspect", self.container(service)).stdout)[0]["State"]
            return state["Running"]
        return podman("healthcheck", "run", self.container(service), check=False).returncode == 0

    def wait_healthy(self, service, timeout=90):
        started = time.monotonic()
        while not self.healthy(service):
            state = json.loads(podman("inspect", self.container(service)).stdout)[0]["State"]
            if not state["Running"] or time.monotonic() - started > timeout:
                output = podman("logs", self.container(service), check=False)
                raise ComposeError(f"{service} is not healthy: {(output.stdout + output.stderr)[-3000:]}")
            time.sleep(0.2)
        return time.monotonic() - started

    def stop(self, service):
        """`podman stop` with the service's grace period; (seconds it took, exit code)."""
        grace = round(seconds(self.services[service].get("stop_grace_period", "10s")))
        started = time.monotonic()
        podman("stop", "-t", str(grace), self.container(service), timeout=grace + 30)
        took = time.monotonic() - started
        state = json.loads(podman("inspect", self.container(service)).stdout)[0]["State"]
        return took, state["ExitCode"]

    def restart(self, service):
        """Stops the service, starts it again and waits until it is healthy; (stop seconds, exit code)."""
        took, code = self.stop(service)
        podman("start", self.container(service))
        self.wait_healthy(service)
        return took, code

    def logs(self, service):
        output = podman("logs", self.container(service), check=False)
        return output.stdout + output.stderr

    def down(self):
        for service in reversed(list(self.services)):
            podman("rm", "-f", "-v", "-t", "0", self.container(service), check=False)
        podman("network", "rm", "-f", self.network, check=False)
        for volume in self.spec.get("volumes", {}):
            podman("volume", "rm", "-f", f"{self.name}_{volume}", check=False)
