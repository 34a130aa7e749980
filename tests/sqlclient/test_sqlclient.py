"""Flink SQL Client parity: every statement of every corpus script, as sqlengine's shell
prints it, against the transcript Flink 2.3's own SQL Client printed (expected/, recorded
by record.py).

A script runs once, statement by statement, through the shell's own code (shell/repl.py:
what a user typing or pasting the script sees, errors not ending the session, as Flink's
client fed on standard input), in a fresh session per script on the suite's Spark. Then
each statement is one test: printed tables cell by cell, [INFO] lines exactly, [ERROR]
reasons by their first line (Java class names aside). The differences that remain are in
DIFFERENCES, each with its reason (README.md lists them): strict xfails, so a fix flips one.
"""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.sqlclient.differences import DIFFERENCES
from tests.sqlclient.transcript import Block, first_difference, parse_transcript, split_script

HERE = Path(__file__).resolve().parent
SCRIPTS = sorted((HERE / "scripts").glob("*.sql"))
# init.sql's settings (Flink's 'execution.target' = 'local' is its way to run queries in-process).
CONF = {"parallelism.default": "1", "sql-client.execution.result-mode": "tableau", "table.local-time-zone": "UTC"}


def _cases() -> list:
    cases = []
    for script in SCRIPTS:
        for n, stmt in enumerate(split_script(script.read_text()), 1):
            key = f"{script.stem}:{n}"
            reason = DIFFERENCES.get(key)
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            cases.append(pytest.param(script, n, id=key, marks=marks))
    return cases


@pytest.fixture(scope="module")
def transcripts(spark, tmp_path_factory):
    import shell.progress
    shell.progress.DELAY_S = 1e9  # no progress bar in a transcript
    runs: dict[str, list[Block]] = {}

    def run(script: Path) -> list[Block]:
        if script.stem not in runs:
            runs[script.stem] = _run_script(script, spark, tmp_path_factory.mktemp(script.stem))
        return runs[script.stem]
    return run


def _run_script(script: Path, spark, tmp: Path) -> list[Block]:
    from shell.repl import Shell
    from sqlengine.api.session import Session
    session = Session({**CONF, "execution.checkpointing.dir": str(tmp / "ckpt")}, spark=spark)
    shell = Shell(session.conf, tmp / "sqlengine.log", session=session)
    blocks = []
    try:
        for stmt in split_script(script.read_text()):
            shell.out = io.StringIO()
            shell._run_text(stmt + ";")
            blocks.append(Block(stmt, shell.out.getvalue()))
    finally:
        shell.out = io.StringIO()
        shell._stop_jobs()
    return blocks


@pytest.mark.parametrize("script,n", _cases())
def test_statement(transcripts, script: Path, n: int):
    ours = transcripts(script)
    statements = [b.statement for b in ours]
    flink = parse_transcript((HERE / "expected" / f"{script.stem}.out").read_text(), statements)
    expected, actual = flink[n - 1], ours[n - 1]
    diff = first_difference(expected.output, actual.output)
    assert diff is None, f"{script.name} #{n}: {expected.statement}\n{diff}\n--- Flink:\n{expected.output}\n" \
                         f"--- sqlengine:\n{actual.output}"


def test_differences_name_statements():
    """Every DIFFERENCES key names a statement of the corpus (a stale key is an error)."""
    known = {f"{s.stem}:{n}" for s in SCRIPTS for n in range(1, len(split_script(s.read_text())) + 1)}
    assert set(DIFFERENCES) <= known, sorted(set(DIFFERENCES) - known)
