"""client.d.ts, the TypeScript declarations of client.js: they declare every export of the module, and an example that
uses every export (Tests/client/example.ts) passes `tsc --strict --noEmit`, while each of its misuses marked
@ts-expect-error is refused. Needs tsc (Debian: apt-get install -y node-typescript; scripts/setup.sh --tests) and node.
"""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
WEB = REPO / "Sources" / "ListDeltaService" / "Web"
EXAMPLE = REPO / "Tests" / "client" / "example.ts"
TSC_FLAGS = ["--strict", "--noEmit", "--target", "es2022", "--module", "es2022", "--moduleResolution", "node",
             "--lib", "es2022,dom"]


def tool(name, package):
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed: apt-get install -y {package} (scripts/setup.sh --tests does)")
    return path


def module_exports(tmp_path):
    """The names client.js exports, as Node imports it."""
    copy = tmp_path / "client.mjs"
    shutil.copyfile(WEB / "client.js", copy)
    script = f"import({str(copy.as_uri())!r}).then((m) => console.log(Object.keys(m).join(' ')))"
    p = subprocess.run([tool("node", "nodejs"), "--input-type=module", "-e", script], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr
    return set(p.stdout.split())


def test_declarations_cover_every_export(tmp_path):
    exports = module_exports(tmp_path)
    declared = set(re.findall(r"^export (?:declare )?(?:class|function) (\w+)", (WEB / "client.d.ts").read_text(), re.M))
    assert exports == declared, {"not declared": exports - declared, "not exported": declared - exports}
    imported = re.search(r"^import \{(.*?)\} from", EXAMPLE.read_text(), re.S | re.M).group(1)
    assert {n.strip() for n in imported.split(",") if n.strip()} == exports, "example.ts imports every export"


def test_example_passes_tsc_strict():
    tsc = tool("tsc", "node-typescript")
    p = subprocess.run([tsc, *TSC_FLAGS, str(EXAMPLE)], capture_output=True, text=True, timeout=300, cwd=REPO)
    assert p.returncode == 0, f"tsc --strict failed:\n{p.stdout}{p.stderr}"
    # The declarations are what it was checked against (not an implicit any).
    p = subprocess.run([tsc, *TSC_FLAGS, "--listFiles", str(EXAMPLE)], capture_output=True, text=True, timeout=300,
                       cwd=REPO)
    assert str(WEB / "client.d.ts") in p.stdout, p.stdout


def test_misuses_are_refused(tmp_path):
    """Without its @ts-expect-error marks, the example fails: one error per mark."""
    tsc = tool("tsc", "node-typescript")
    text = EXAMPLE.read_text()
    marks = text.count("// @ts-expect-error")
    assert marks >= 5
    bare = tmp_path / "example.ts"
    bare.write_text(text.replace("// @ts-expect-error", "// expected:").replace(
        '"../../Sources/ListDeltaService/Web/client.js"', f'"{(WEB / "client.js").as_posix()}"'))
    p = subprocess.run([tsc, *TSC_FLAGS, str(bare)], capture_output=True, text=True, timeout=300)
    assert p.returncode != 0
    lines = {int(m) for m in re.findall(r"example\.ts\((\d+),", p.stdout)}
    marked = {n + 2 for n, line in enumerate(text.splitlines()) if "// @ts-expect-error" in line}
    assert lines == marked, p.stdout
