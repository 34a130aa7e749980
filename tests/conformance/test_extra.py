"""Extra Flink conformance cases (tests/conformance/extra): forms the shared corpus lacks.

Expected outputs were produced by Apache Flink 2.3.0 (scripts/flink_oracle.py; see
extra/README.md). Cases run like test_conformance.py's: the same code path as
``sqlengine -f`` in-process, judged by the corpus' own compare.py. A case whose
``case.toml`` says ``updating = true`` is a streaming query with an updating result:
its filesystem sinks are switched to the ``print`` connector, the printed changelog is
materialized (+I/+U add a row, -U/-D remove one) into ``<OUT_DIR>/<sink>.jsonl``, and
that final result is compared with expected/ (Flink's batch-mode result). Cases for
features not built yet are strict xfails naming the feature.
"""
from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import tomllib
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from decimal import Decimal
from pathlib import Path

import pytest

from tests.conformance.reasons import expected_error, reason

HERE = Path(__file__).parent
COMPARE = HERE / "flink" / "compare.py"
EXTRA = HERE / "extra" / "cases"
CASES = sorted(p.name for p in EXTRA.iterdir() if p.is_dir() and not p.name.startswith("_"))

MISSING: dict[str, str] = {}


def case_config(case: Path) -> dict:
    toml = case / "case.toml"
    return tomllib.loads(toml.read_text()) if toml.exists() else {}


# ----------------------------------------------------------------------------- updating cases

_SINK_WITH = (r"WITH\s*\(\s*'connector'\s*=\s*'filesystem'\s*,\s*'path'\s*=\s*'\$\{{OUT_DIR\}}/{name}/?'\s*,"
              r"\s*'format'\s*=\s*'json'\s*\)")


def sink_names(text: str) -> list[str]:
    return sorted(set(re.findall(r"'path'\s*=\s*'\$\{OUT_DIR\}/([^'/]+)/?'", text)))


def to_print_sinks(text: str, sinks: list[str]) -> str:
    """Every filesystem sink ``<name>`` becomes ``'connector' = 'print'`` with identifier ``<name>``."""
    for name in sinks:
        text, n = re.subn(_SINK_WITH.format(name=re.escape(name)),
                          f"WITH ('connector' = 'print', 'print-identifier' = '{name}', 'sink.parallelism' = '1')",
                          text, flags=re.I)
        assert n == 1, f"sink {name}: expected one filesystem WITH clause"
    return text


def _split_top(s: str, sep: str = ",") -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in s:
        if ch in "(<":
            depth += 1
        elif ch in ")>":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def sink_columns(text: str, name: str) -> list[tuple[str, str]]:
    """(column, TYPE) of ``CREATE TABLE name (...)`` as written in the script."""
    m = re.search(rf"CREATE\s+TABLE\s+`?{re.escape(name)}`?\s*\((.*?)\)\s*WITH", text, re.I | re.S)
    assert m, f"no DDL for sink {name}"
    cols = []
    for part in _split_top(m.group(1)):
        col, typ = part.split(None, 1)
        if col.upper() not in ("WATERMARK", "PRIMARY", "CONSTRAINT"):
            cols.append((col.strip("`"), typ.upper()))
    return cols


def _timestamp_json(v: str) -> str:
    """Flink's print text ``2024-03-01T09:05`` / ``...T09:05:04.250`` -> its JSON text ``2024-03-01 09:05:04.25``."""
    date, _, clock = v.partition("T")
    suffix = "Z" if clock.endswith("Z") else ""
    clock = clock.rstrip("Z")
    hms, _, frac = clock.partition(".")
    if hms.count(":") == 1:
        hms += ":00"
    frac = frac.rstrip("0")
    return f"{date} {hms}{'.' + frac if frac else ''}{suffix}"


def print_value(text: str, typ: str):
    if text == "null":
        return None
    if typ.startswith(("INT", "BIGINT", "SMALLINT", "TINYINT")):
        return int(text)
    if typ.startswith(("DECIMAL", "DOUBLE", "FLOAT", "NUMERIC")):
        return Decimal(text)
    if typ.startswith("BOOLEAN"):
        return text == "true"
    if typ.startswith("TIMESTAMP"):
        return _timestamp_json(text)
    return text


def materialize(stdout: str, text: str, sinks: list[str], out_dir: Path) -> None:
    """Apply each print sink's changelog and write the final rows to ``out_dir/<sink>.jsonl``."""
    line_re = re.compile(r"^([\w$]+)(?::\d+)?> ([+-][IUD])\[(.*)\]$")
    tables: dict[str, Counter] = {s: Counter() for s in sinks}
    columns = {s: sink_columns(text, s) for s in sinks}
    for line in stdout.splitlines():
        m = line_re.match(line.strip())
        if not m or m.group(1) not in tables:
            continue
        sink, kind, body = m.groups()
        cols = columns[sink]
        values = body.split(", ") if cols else []
        assert len(values) == len(cols), f"cannot split printed row {line!r} into {len(cols)} fields"
        row = json.dumps({c: print_value(v, t) for (c, t), v in zip(cols, values)},
                         default=lambda d: f"@@{d}@@").replace('"@@', "").replace('@@"', "")
        if kind in ("+I", "+U"):
            tables[sink][row] += 1
        else:
            tables[sink][row] -= 1
            assert tables[sink][row] >= 0, f"{sink}: retraction of a row never added: {line!r}"
    for sink, rows in tables.items():
        with open(out_dir / f"{sink}.jsonl", "w", encoding="utf-8") as fh:
            for row in sorted(rows.elements()):
                fh.write(row + "\n")


# ----------------------------------------------------------------------------- run and judge

def run_case(name: str, tmp_path: Path) -> tuple[int, str, Path]:
    from shell.cli import run_script
    from sqlengine.api.session import Session

    case = EXTRA / name
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    raw = (case / "case.sql").read_text()
    updating = case_config(case).get("updating", False)
    sinks = sink_names(raw)
    if updating:
        raw = to_print_sinks(raw, sinks)
    text = raw.replace("${CASE_DIR}", str(case)).replace("${OUT_DIR}", str(out_dir))
    session = Session({"execution.checkpointing.dir": str(tmp_path / "ckpt")})
    err, out = io.StringIO(), io.StringIO()
    with redirect_stderr(err), redirect_stdout(out):
        ok = run_script(session, text, out=out)
    if ok and updating:
        materialize(out.getvalue(), text, sinks, out_dir)
    return (0 if ok else 1), err.getvalue(), out_dir


def judge(name: str, rc: int, stderr: str, out_dir: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    err_file = tmp_path / "stderr.txt"
    err_file.write_text(stderr)
    return subprocess.run([sys.executable, str(COMPARE), str(EXTRA / name / "expected"),
                           str(out_dir), "--exit-code", str(rc), "--stderr", str(err_file)],
                          capture_output=True, text=True)


@pytest.mark.parametrize("name", [
    pytest.param(c, marks=pytest.mark.xfail(reason=f"not built yet: {MISSING[c]}", strict=True))
    if c in MISSING else c for c in CASES])
def test_case(name: str, tmp_path: Path, spark):
    rc, stderr, out_dir = run_case(name, tmp_path)
    verdict = judge(name, rc, stderr, out_dir, tmp_path)
    assert verdict.returncode == 0, f"{name}:\n{verdict.stdout}\n{stderr[-3000:]}"
    flink = expected_error(EXTRA / name / "expected")
    if flink is not None:  # a case Flink rejects: sqlengine's reason is Flink's root cause
        assert reason(stderr) == flink, stderr


def test_materialize_print_changelog(tmp_path: Path):
    """The updating-case harness itself: print lines -> final rows in Flink's JSON text."""
    text = ("CREATE TABLE t (k STRING, n BIGINT, d DECIMAL(10, 2), ts TIMESTAMP(3)) WITH "
            "('connector' = 'filesystem', 'path' = '${OUT_DIR}/t', 'format' = 'json');")
    printed = "\n".join(["t> +I[a, 1, 1.50, 2024-03-01T09:05]", "t> -U[a, 1, 1.50, 2024-03-01T09:05]",
                         "t> +U[a, 2, 3.00, 2024-03-01T09:05:04.250]", "t> +I[b, null, null, null]",
                         "t> -D[b, null, null, null]", "other> +I[x]"])
    assert "'connector' = 'print'" in to_print_sinks(text, ["t"])
    materialize(printed, text, ["t"], tmp_path)
    rows = [json.loads(l) for l in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert rows == [{"k": "a", "n": 2, "d": 3.0, "ts": "2024-03-01 09:05:04.25"}]
