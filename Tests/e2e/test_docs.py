"""Documentation checks: docs/api.md names the operations openapi.yaml describes, every relative link in the README and
docs/ leads somewhere, and the README stays short.

No server is needed (these tests use no fixtures from conftest.py)."""

import re
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
DOCS = REPO / "docs"
API = DOCS / "api.md"
OPENAPI = REPO / "Sources" / "ListDeltaService" / "Web" / "openapi.yaml"
METHODS = ("get", "put", "post", "patch", "delete", "head", "options", "trace")
# The notation docs/api.md uses for an operation: a level-4 heading `#### METHOD /path`, path parameters in braces.
OPERATION_HEADING = re.compile(r"^#### (GET|PUT|POST|PATCH|DELETE|HEAD|OPTIONS|TRACE) (/\S*)[ \t]*$", re.M)
README_MAX_LINES = 200


def read(path):
    assert path.exists(), f"{path.relative_to(REPO)} is missing"
    return path.read_text(encoding="utf-8")


def documentation_files():
    return [README, *sorted(DOCS.glob("*.md"))]


def without_code(text):
    """The Markdown text with fenced code blocks blanked out (lines kept, so line numbers stay right)."""
    out, fence = [], None
    for line in text.splitlines():
        stripped = line.lstrip()
        if fence is None and (stripped.startswith("```") or stripped.startswith("~~~")):
            fence = stripped[:3]
            out.append("")
        elif fence is not None:
            if stripped.startswith(fence):
                fence = None
            out.append("")
        else:
            out.append(line)
    return out


def github_anchors(text):
    """The anchors GitHub gives the headings of a Markdown file: lower case, punctuation dropped, spaces as dashes,
    a repeated slug numbered -1, -2, ..."""
    anchors, seen = set(), {}
    for line in without_code(text):
        match = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", match.group(2))  # a link's text stays
        slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def relative_links(path):
    """(line number, target) of every inline Markdown link of `path` that is not a URL, outside code."""
    links = []
    for number, line in enumerate(without_code(read(path)), start=1):
        line = re.sub(r"`[^`]*`", "", line)  # inline code holds no links
        for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:, ...
                continue
            links.append((number, target))
    return links


# (a) docs/api.md and openapi.yaml name the same operations


def api_operations():
    found = OPERATION_HEADING.findall(read(API))
    assert found, "docs/api.md has no `#### METHOD /path` headings"
    duplicates = sorted({op for op in found if found.count(op) > 1})
    assert not duplicates, f"docs/api.md describes these operations twice: {duplicates}"
    return set(found)


def openapi_operations():
    spec = yaml.safe_load(read(OPENAPI))
    operations = {(method.upper(), path) for path, item in spec["paths"].items() for method in item if method in METHODS}
    assert operations, "openapi.yaml has no operations"
    return operations


def test_api_reference_names_every_operation_of_the_openapi_description():
    missing = openapi_operations() - api_operations()
    assert not missing, f"docs/api.md lacks a `#### METHOD /path` heading for: {sorted(missing)}"


def test_api_reference_names_no_operation_the_openapi_description_lacks():
    extra = api_operations() - openapi_operations()
    assert not extra, f"docs/api.md describes operations openapi.yaml does not: {sorted(extra)}"


# (b) relative links lead to files (and headings) that exist


def test_relative_links_point_at_existing_files_and_headings():
    broken = []
    for path in documentation_files():
        for number, target in relative_links(path):
            file_part, _, anchor = target.partition("#")
            destination = (path.parent / file_part).resolve() if file_part else path
            where = f"{path.relative_to(REPO)}:{number}: {target}"
            if not destination.exists():
                broken.append(f"{where} (no such file)")
                continue
            if anchor and destination.suffix == ".md" and anchor not in github_anchors(read(destination)):
                broken.append(f"{where} (no heading with that anchor)")
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_the_documentation_links_nothing_outside_the_repository_by_path():
    for path in documentation_files():
        for number, target in relative_links(path):
            file_part = target.partition("#")[0]
            if file_part:
                destination = (path.parent / file_part).resolve()
                assert REPO in destination.parents, f"{path.relative_to(REPO)}:{number}: {target} leaves the repository"


def test_the_documentation_names_no_contract_outside_the_repository():
    for path in documentation_files():
        assert "API.md" not in read(path), f"{path.relative_to(REPO)} still refers to API.md: link docs/api.md instead"


# (c) the README stays a front page


def test_readme_is_at_most_200_lines():
    count = len(read(README).splitlines())
    assert count <= README_MAX_LINES, f"README.md has {count} lines; move details to docs/ (at most {README_MAX_LINES})"


def test_readme_links_every_page_of_the_docs():
    linked = {(README.parent / target.partition("#")[0]).resolve() for _, target in relative_links(README)}
    unlinked = [page.name for page in sorted(DOCS.glob("*.md")) if page.resolve() not in linked]
    assert not unlinked, f"README.md does not link these pages of docs/: {unlinked}"


# (d) the cache configuration shown is the one the tests run


def test_deployment_shows_the_nginx_cache_configuration_the_tests_run():
    conf = read(REPO / "Config" / "nginx-cache.conf")
    text = read(DOCS / "deployment.md")
    section = text.split("\n## Behind a shared cache or CDN\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```nginx\n(.*?)```", section, re.S)
    assert blocks == [conf], "docs/deployment.md's cache configuration differs from Config/nginx-cache.conf: copy the file"
