"""The CLI as a user runs it: exit codes, one [ERROR] line, print output, conformance via CLI."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.e2e.conftest import ROOT, run_cli

CASES = ROOT / "tests" / "conformance" / "flink"


def test_help_exits_zero():
    out = subprocess.run([sys.executable, "-m", "shell.cli", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "-f" in out.stdout


def test_quickstart_prints_every_window(tmp_path):
    res = run_cli("-f", str(ROOT / "examples" / "quickstart.sql"))
    assert res.returncode == 0, res.stderr[-3000:]
    lines = [l for l in res.stdout.splitlines() if l.startswith("revenue")]
    # 200 rows, one every 250 ms from a fixed epoch: 50 s of event time = 5 or 6 windows,
    # all emitted at the end of input (Flink's final watermark), 200 rows counted in all.
    assert 5 <= len(lines) <= 6, res.stdout
    counts = [int(l.split("[", 1)[1].split(",")[2]) for l in lines]
    assert sum(counts) == 200


def test_syntax_error_one_error_line_and_exit_code(tmp_path):
    script = tmp_path / "bad.sql"
    script.write_text("SET 'table.local-time-zone' = 'UTC';\nSELECT a FROM WHERE x;\n")
    res = run_cli("-f", str(script))
    assert res.returncode != 0
    errors = [l for l in res.stderr.splitlines() if l.startswith("[ERROR]")]
    assert len(errors) == 1
    # Flink's message counts lines as its SQL Client does (from the previous statement's end);
    # the place under it is the script's.
    assert "Incorrect syntax near the keyword 'WHERE' at line 1, column 15." in res.stderr
    assert "at line 2 of the script, column 15" in res.stderr and "^^^^^" in res.stderr
    assert "Traceback" not in res.stderr


def _case_script(name: str, out: Path, tmp: Path) -> Path:
    case = CASES / "cases" / name
    text = (case / "case.sql").read_text().replace("${CASE_DIR}", str(case)).replace("${OUT_DIR}", str(out))
    path = tmp / "case.sql"
    path.write_text(text)
    return path


def test_conformance_cases_through_the_real_cli(tmp_path):
    for name in ("nexmark_q2", "neg_unknown_column"):  # a streaming result and an error
        out = tmp_path / name
        out.mkdir()
        res = run_cli("-f", str(_case_script(name, out, tmp_path)))
        verdict = subprocess.run([sys.executable, str(CASES / "compare.py"), str(CASES / "cases" / name / "expected"),
                                  str(out), "--exit-code", str(res.returncode)], capture_output=True, text=True)
        assert verdict.returncode == 0, f"{name}: {verdict.stdout}\n{res.stderr[-2000:]}"


def test_init_script_and_defines(tmp_path):
    init = tmp_path / "init.sql"
    init.write_text("CREATE TABLE t (a INT) WITH ('connector' = 'blackhole');\n")
    main = tmp_path / "main.sql"
    main.write_text("SHOW TABLES;\nSET;\n")
    res = run_cli("-D", "pipeline.max-parallelism=4", "-i", str(init), "-f", str(main))
    assert res.returncode == 0, res.stderr
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in res.stdout.splitlines()
             if line.startswith("|")]
    assert ["t"] in cells
    assert ["pipeline.max-parallelism", "4"] in cells
