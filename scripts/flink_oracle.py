#!/usr/bin/env python3
"""Regenerate a conformance case's expected/ with real Apache Flink 2.3.0.

    python3 scripts/flink_oracle.py CASE_DIR [CASE_DIR ...] [--check] [--verify-streaming]

* Runs with any Python: if PyFlink is not importable it creates the venv
  ``$FLINK_VENV`` (default ``/work/flink-venv``, outside the repo; needs Java 17)
  with ``apache-flink==2.3.0`` and re-executes itself there.  PyFlink is never a
  dependency of the project.
* Each case runs through the corpus' own oracle
  (``tests/conformance/flink/flink_oracle.py``): same statement splitting,
  parallelism 1, canonicalized sink files.
* A case with ``case.toml`` saying ``updating = true`` (see
  ``tests/conformance/extra/README.md``) is a streaming query with an updating
  result.  Flink cannot write that to a filesystem sink, so it is run in BATCH
  mode instead (``SET 'execution.runtime-mode' = 'batch';`` is added in a scratch
  copy whose ``input`` links to the case's), giving the materialized final result.
  ``--verify-streaming`` additionally runs each INSERT's query in streaming mode
  with ``collect()``, applies the changelog (+I/+U add, -U/-D remove) and checks
  that it ends equal to the batch result.
* ``--check`` compares with the existing expected/ instead of writing.

Exit status: 0 ok, 2 a difference, an empty sink or a streaming/batch mismatch.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ORACLE_DIR = ROOT / "tests" / "conformance" / "flink"
VENV = Path(os.environ.get("FLINK_VENV", "/work/flink-venv"))
FLINK_VERSION = "2.3.0"


def ensure_pyflink() -> None:
    try:
        import pyflink  # noqa: F401
        return
    except ImportError:
        pass
    py = VENV / "bin" / "python"
    if Path(sys.prefix).resolve() == VENV.resolve():
        sys.exit(f"PyFlink missing in {VENV}; run: {py} -m pip install apache-flink=={FLINK_VERSION}")
    if not py.exists():
        print(f"creating {VENV} with apache-flink=={FLINK_VERSION} (takes a few minutes)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", f"apache-flink=={FLINK_VERSION}"], check=True)
    os.execv(str(py), [str(py), *sys.argv])


def is_updating(case_dir: Path) -> bool:
    toml = case_dir / "case.toml"
    if not toml.exists():
        return False
    import tomllib
    return bool(tomllib.loads(toml.read_text()).get("updating", False))


def batch_copy(case_dir: Path) -> Path:
    """A scratch case folder: case.sql with batch mode added, input/ linked to the case's."""
    tmp = Path(tempfile.mkdtemp(prefix="flink_batch_"))
    lines = (case_dir / "case.sql").read_text().splitlines(keepends=True)
    lines.insert(1, "SET 'execution.runtime-mode' = 'batch';\n")
    (tmp / "case.sql").write_text("".join(lines))
    (tmp / "input").symlink_to(case_dir / "input")
    return tmp


def verify_streaming(case_dir: Path) -> list[str]:
    """Streaming changelog of each INSERT's query, materialized, vs the batch result."""
    import re
    from pyflink.common import RowKind
    from pyflink.table import EnvironmentSettings, TableEnvironment
    import flink_oracle as fo

    sql = (case_dir / "case.sql").read_text().replace("${CASE_DIR}", str(case_dir)).replace("${OUT_DIR}", "/nonexistent")
    stmts = [s for _, s in fo.split_statements(sql)]
    problems = []

    def run(settings):
        tenv = TableEnvironment.create(settings)
        tenv.get_config().set("parallelism.default", "1")
        results = []
        for s in stmts:
            m = fo.SET_RE.match(s)
            if m:
                if m.group(1) != "execution.runtime-mode":
                    tenv.get_config().set(m.group(1), m.group(2))
                continue
            ins = re.match(r"^\s*INSERT\s+INTO\s+\S+\s+(.*)$", s, re.I | re.S)
            if not ins:
                tenv.execute_sql(s)
                continue
            rows = Counter()
            with tenv.execute_sql(ins.group(1)).collect() as it:
                for row in it:
                    key = repr(tuple(row))
                    if row.get_row_kind() in (RowKind.INSERT, RowKind.UPDATE_AFTER):
                        rows[key] += 1
                    else:
                        rows[key] -= 1
                        if rows[key] == 0:
                            del rows[key]
            results.append(rows)
        return results

    streaming = run(EnvironmentSettings.in_streaming_mode())
    batch = run(EnvironmentSettings.in_batch_mode())
    for i, (s, b) in enumerate(zip(streaming, batch)):
        if s != b:
            problems.append(f"INSERT #{i + 1}: streaming materialized {sum(s.values())} rows != batch {sum(b.values())}; "
                            f"only streaming {list((s - b).elements())[:3]}, only batch {list((b - s).elements())[:3]}")
    return problems


def main() -> int:
    ensure_pyflink()
    sys.path.insert(0, str(ORACLE_DIR))
    import flink_oracle as fo

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("case_dirs", nargs="+")
    ap.add_argument("--check", action="store_true", help="compare with expected/ instead of writing it")
    ap.add_argument("--verify-streaming", action="store_true",
                    help="for updating cases, check the streaming changelog materializes to the batch result")
    ap.add_argument("--timeout", type=int, default=300)
    a = ap.parse_args()
    status = 0
    for cd in a.case_dirs:
        case_dir = Path(cd).resolve()
        updating = is_updating(case_dir)
        run_dir = batch_copy(case_dir) if updating else case_dir
        result, err, dt = fo.run_case(str(run_dir), a.timeout)
        exp_dir = case_dir / "expected"
        summary = ("ERROR: " + err) if err is not None else ", ".join(f"{k}={len(v)}" for k, v in result.items())
        if err is None and (not result or any(len(v) == 0 for v in result.values())):
            summary += "  [EMPTY OUTPUT]"
            status = 2
        if updating:
            summary += "  [updating: expected from batch]"
        if a.check:
            old, old_err = fo.read_expected(str(exp_dir))
            same = old == result and old_err == err
            status = status if same else 2
            print(f"{case_dir.name:40s} {'SAME' if same else 'DIFF'} {dt:5.1f}s  {summary}", flush=True)
        else:
            fo.write_expected(str(exp_dir), result, err)
            print(f"{case_dir.name:40s} {dt:5.1f}s  {summary}", flush=True)
        if updating and a.verify_streaming and err is None:
            problems = verify_streaming(case_dir)
            for p in problems:
                print(f"  STREAMING MISMATCH {p}", flush=True)
            print(f"  streaming changelog materializes to the batch result: {'no' if problems else 'yes'}", flush=True)
            status = 2 if problems else status
    return status


if __name__ == "__main__":
    sys.exit(main())
