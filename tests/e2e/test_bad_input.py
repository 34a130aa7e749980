"""Malformed input: the job fails naming the file and line, or skips and counts."""
from __future__ import annotations

import pytest

from tests.e2e.conftest import read_rows, run_cli

SCRIPT = """
CREATE TABLE src (id INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = '{src}', 'format' = 'json'{extra});
CREATE TABLE dst (id INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = '{dst}', 'format' = 'json');
INSERT INTO dst SELECT id, name FROM src;
"""


def _write(tmp_path, extra: str, mode: str = "streaming"):
    src = tmp_path / "in.jsonl"
    src.write_text('{"id": 1, "name": "a"}\n{"id": 2, "name": \n{"id": 3, "name": "c"}\n')
    script = tmp_path / "job.sql"
    script.write_text(f"SET 'execution.runtime-mode' = '{mode}';\n"
                      + SCRIPT.format(src=src, dst=tmp_path / "out", extra=extra))
    return src, script


def test_malformed_line_fails_the_job_naming_file_and_line(tmp_path):
    src, script = _write(tmp_path, "")
    res = run_cli("-f", str(script))
    assert res.returncode != 0
    errors = [l for l in res.stderr.splitlines() if l.startswith("[ERROR]")]
    assert len(errors) == 1, res.stderr
    assert str(src) in res.stderr and "line 2" in res.stderr, res.stderr[-2000:]


@pytest.mark.parametrize("mode", ["streaming", "batch"])
def test_ignore_parse_errors_skips_and_reports_the_count(tmp_path, mode):
    _, script = _write(tmp_path, ", 'json.ignore-parse-errors' = 'true'", mode)
    res = run_cli("-f", str(script))
    assert res.returncode == 0, res.stderr[-2000:]
    assert sorted(r["id"] for r in read_rows(tmp_path / "out")) == [1, 3]
    assert "Skipped 1 malformed line" in res.stdout, res.stdout
