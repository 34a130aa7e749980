"""The command line without a terminal: ``-e``, SQL on standard input, ``--version``,
exit codes, and a script's background jobs (``table.dml-sync`` false) waited for."""
from __future__ import annotations

import json
import subprocess
import sys

from tests.e2e.conftest import ROOT


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "shell.cli", "-D", "spark.master=local[1]", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, timeout=600)


def test_version_and_help():
    from sqlengine import __version__
    res = cli("--version")
    assert res.returncode == 0 and res.stdout.strip() == f"sqlengine {__version__}"
    res = cli("--help")
    assert res.returncode == 0 and "-e SQL, --execute SQL" in res.stdout and "standard input" in res.stdout


def test_execute_stops_at_the_first_failing_statement():
    res = cli("-e", "SET 'execution.runtime-mode' = 'batch'; SELECT 41 + 1 AS answer; SELECT nope; SELECT 7 AS seven;")
    assert res.returncode == 1
    assert "| answer |" in res.stdout and "|     42 |" in res.stdout
    assert "seven" not in res.stdout, "nothing runs after the failing statement"
    assert "[ERROR] Could not execute SQL statement. Reason:" in res.stderr and "SELECT nope;" in res.stderr
    assert "^^^^" in res.stderr and "Traceback" not in res.stderr + res.stdout


def test_standard_input_goes_on_after_a_failing_statement():
    """Flink's client reads standard input as a session typed in: each failing statement
    (a validation error, a syntax error) is reported, the next one runs, the exit code is 0."""
    res = cli(stdin="SET 'execution.runtime-mode' = 'batch';\nSELECT 41 + 1 AS answer;\nSELECT nope;\n"
                    "SELEC 1;\nSELECT 7 AS seven;\n")
    assert res.returncode == 0, res.stderr
    assert "|     42 |" in res.stdout and "| seven |" in res.stdout and "|     7 |" in res.stdout
    assert res.stderr.count("[ERROR] Could not execute SQL statement. Reason:") == 2
    assert "Column 'nope' not found in any table" in res.stderr and "Non-query expression" in res.stderr


def test_a_script_file_stops_at_its_first_failing_statement(tmp_path):
    """``-f`` runs statement by statement and ends at the first failure, a syntax error
    included (the statements before it ran), with exit code 1."""
    script = tmp_path / "s.sql"
    script.write_text("SET 'execution.runtime-mode' = 'batch';\nSELECT 41 + 1 AS answer;\nSELEC 1;\n"
                      "SELECT 7 AS seven;\n")
    res = cli("-f", str(script))
    assert res.returncode == 1
    assert "|     42 |" in res.stdout and "seven" not in res.stdout
    assert res.stderr.count("[ERROR] Could not execute SQL statement. Reason:") == 1


def test_sql_from_standard_input(tmp_path):
    out = tmp_path / "out"
    script = f"""
    SET 'table.dml-sync' = 'false';
    CREATE TABLE seq (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '50',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '50');
    CREATE TABLE sink (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
    INSERT INTO sink SELECT id FROM seq;
    """
    res = cli(stdin=script)
    assert res.returncode == 0, res.stderr
    assert "Job ID:" in res.stdout
    # the job ran in the background; the script waited for it before exiting
    ids = sorted(json.loads(line)["id"] for f in out.glob("part-*") for line in f.read_text().splitlines())
    assert ids == list(range(1, 51))
