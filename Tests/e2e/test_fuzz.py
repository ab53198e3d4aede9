"""A bounded libFuzzer run of the document and JSON Patch fuzz targets (scripts/fuzz.sh)."""
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_fuzz_targets_find_no_crash():
    run = subprocess.run(
        ["bash", "scripts/fuzz.sh", "25"], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    report = run.stdout + run.stderr
    assert run.returncode == 0, report[-4000:]
    assert "fuzz-document:" in report and "fuzz-patch:" in report, report[-2000:]
    assert "no crash" in report
