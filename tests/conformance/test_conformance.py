"""Flink conformance: every case of the vendored corpus, judged by its own comparator.

Expected outputs were produced by Apache Flink 2.3.0 (see flink/README.md). Each case
runs through the same code path as ``sqlengine -f`` (in-process, one SparkSession);
a few also through the real CLI (test_cli.py). Cases for features not built yet are
strict xfails naming the feature: one that starts passing fails the suite until
it is unmarked.
"""
from __future__ import annotations

import filecmp
import io
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from tests.conformance.reasons import expected_error, reason

HERE = Path(__file__).parent
CORPUS = HERE / "flink"
SHARED = HERE.parents[2] / "shared" / "conformance"
CASES = sorted(p.name for p in (CORPUS / "cases").iterdir() if p.is_dir() and not p.name.startswith("_"))

MISSING: dict[str, str] = {}


def test_vendored_copy_matches_shared():
    """The copy under tests/ must equal ../shared/conformance when that is present."""
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} not present; the vendored copy is used as is")
    diffs = []

    def walk(cmp: filecmp.dircmp, prefix: str = ""):
        diffs.extend(prefix + n for n in cmp.left_only + cmp.right_only + cmp.diff_files)
        for name, sub in cmp.subdirs.items():
            walk(sub, f"{prefix}{name}/")
    walk(filecmp.dircmp(SHARED, CORPUS, ignore=["__pycache__"]))
    assert not diffs, f"tests/conformance/flink differs from ../shared/conformance: {diffs[:10]}"


def run_case(name: str, tmp_path: Path) -> tuple[int, str, Path]:
    from shell.cli import run_script
    from sqlengine.api.session import Session

    case = CORPUS / "cases" / name
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    text = (case / "case.sql").read_text()
    text = text.replace("${CASE_DIR}", str(case)).replace("${OUT_DIR}", str(out_dir))
    session = Session({"execution.checkpointing.dir": str(tmp_path / "ckpt")})
    err, out = io.StringIO(), io.StringIO()
    with redirect_stderr(err), redirect_stdout(out):
        ok = run_script(session, text, out=out)
    return (0 if ok else 1), err.getvalue(), out_dir


def judge(name: str, rc: int, stderr: str, out_dir: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    err_file = tmp_path / "stderr.txt"
    err_file.write_text(stderr)
    return subprocess.run([sys.executable, str(CORPUS / "compare.py"), str(CORPUS / "cases" / name / "expected"),
                           str(out_dir), "--exit-code", str(rc), "--stderr", str(err_file)],
                          capture_output=True, text=True)


@pytest.mark.parametrize("name", [
    pytest.param(c, marks=pytest.mark.xfail(reason=f"not built yet: {MISSING[c]}", strict=True))
    if c in MISSING else c for c in CASES])
def test_case(name: str, tmp_path: Path, spark):
    rc, stderr, out_dir = run_case(name, tmp_path)
    verdict = judge(name, rc, stderr, out_dir, tmp_path)
    assert verdict.returncode == 0, f"{name}:\n{verdict.stdout}\n{stderr[-3000:]}"
    flink = expected_error(CORPUS / "cases" / name / "expected")
    if flink is not None:
        errors = [l for l in stderr.splitlines() if l.startswith("[ERROR]")]
        assert len(errors) == 1, stderr
        assert reason(stderr) == flink, stderr
        assert not any(p.name != "ckpt" for p in out_dir.iterdir()), "a rejected case created sink folders"
