#!/usr/bin/env python3
"""Records what Apache Flink 2.3 answers to every Nexmark query over the first 100,000
events (parallelism 2, base time 1700000000000): tests/nexmark/expected/<query>.json
(row count, digest, first rows; or Flink's error). tests/nexmark/test_nexmark_queries.py
compares sqlengine's answers with them.

    .venv/bin/python tests/nexmark/flink_oracle.py [QUERY ...]

1. The events, made by sqlengine's generator (equal field by field to Nexmark's own:
   tests/connectors/nexmark), are written as JSON lines in event-time order (the two
   generators' events merged), so Flink reading them with parallelism 1 sees no late event,
   as sqlengine's per-generator watermarks see none.
2. Flink 2.3 (PyFlink in ``$FLINK_VENV``, default /work/flink-venv; never a project
   dependency) runs each query's SELECT over them in batch mode: the final table (over
   input with no late event, the streaming result's, materialized; q0-q9 were also
   checked in streaming mode with ``STREAMING=1``). q14's ``count_char`` is a
   PyFlink Python function there with the upstream Java function's semantics.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
EXPECTED = Path(__file__).resolve().parent / "expected"
VENV = Path(os.environ.get("FLINK_VENV", "/work/flink-venv"))
EVENTS, GENERATORS, BASE = 100_000, 2, 1700000000000
# MATCH_RECOGNIZE feeds a partition's rows at one time in arrival order, which is Flink's
# (and any engine's) own between two parallel generators; at 1,000 events/s a generator
# makes one event per 2 ms and the two make different keys, so no partition of the CEP
# queries has two rows at one time and their answers are a function of the events.
CEP_RATE = 1_000


def rate_of(query: str) -> int:
    return CEP_RATE if query.startswith("cep-") else 10_000


def write_events(path: str, rate: int = 10_000) -> None:
    """(sqlengine's venv) The events as JSON lines, ordered by event time."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.json  # noqa: F401
    from connectors.nexmark.generator import Config
    config = Config(events=EVENTS, generators=GENERATORS, base_time=BASE, first_rate=rate, next_rate=rate)
    batches = [s.batch(0, s.count) for s in config.splits()]
    table = pa.Table.from_batches(batches)
    times = pc.coalesce(*[pc.struct_field(table[c], "dateTime") for c in ("person", "auction", "bid")])
    order = np.argsort(times.to_numpy(zero_copy_only=False).astype("datetime64[us]").astype(np.int64), kind="stable")
    table = table.take(pa.array(order))

    def cell(v):
        if hasattr(v, "strftime"):
            return v.strftime("%Y-%m-%d %H:%M:%S.") + f"{v.microsecond // 1000:03d}"
        if isinstance(v, dict):
            return {k: cell(x) for k, x in v.items()}
        return v
    with open(path, "w") as f:
        for row in table.to_pylist():
            f.write(json.dumps({k: cell(v) for k, v in row.items()}) + "\n")


def side_input(path: str) -> None:
    """q13's side input: upstream's SideInputGenerator writes 'key,value' lines, key 0..9999."""
    with open(path, "w") as f:
        for key in range(10_000):
            f.write(f"{key},{key * 2}\n")


def run_flink(events: str, side: str, queries: list[str]) -> None:
    from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment
    from pyflink.table.udf import udf

    from benchmarks.nexmark import suite

    @udf(result_type=DataTypes.BIGINT())
    def count_char(s, c):  # com.github.nexmark.flink.udf.CountChar
        return 0 if s is None else s.encode().count(c.encode()[:1])

    def run(q: str, streaming: bool) -> list:
        settings = EnvironmentSettings.in_streaming_mode() if streaming else EnvironmentSettings.in_batch_mode()
        env = TableEnvironment.create(settings)
        env.get_config().set("parallelism.default", "1")
        env.get_config().set("python.executable", sys.executable)
        env.create_temporary_system_function("count_char", count_char)
        before, select = suite.statements(q, suite.file_source(events), side)
        if q == "q13":
            # Flink 2.3's filesystem tables are no lookup sources (q13's legacy CSV side input
            # was one); over a side input that never changes, the lookup join's answer is
            # the regular join's
            select = select.replace("FOR SYSTEM_TIME AS OF B.p_time ", "")
        for st in before:
            if "count_char" in st and st.upper().startswith("CREATE FUNCTION"):
                continue  # registered above as a PyFlink function
            env.execute_sql(st)
        changes = []
        with env.execute_sql(select).collect() as rows:
            for row in rows:
                changes.append((str(row.get_row_kind()), tuple(row)))
        return changes

    EXPECTED.mkdir(exist_ok=True)
    for q in queries:
        out = EXPECTED / f"{q}.json"
        try:
            # In batch mode: the final table of every query at once (over input with no late
            # event, the streaming result's; a streaming collect() of an updating query may
            # leave out the -U of an update, an upsert changelog, and fetches every change).
            # STREAMING=1 collects in streaming mode instead (append-only queries).
            changes = run(q, os.environ.get("STREAMING") == "1")
            result = suite.digest(suite.materialize(changes), q)
        except Exception as err:  # noqa: BLE001 - Flink's refusal is the expected answer
            text = str(err).strip().splitlines()
            # py4j's first line names the call; the Java exception follows ": "
            cause = next((ln[2:] for ln in text if ln.startswith(": ")), None)
            result = {"error": (cause or next((ln for ln in text if ln.strip()), ""))[:500]}
        out.write_text(json.dumps(result, indent=1) + "\n")
        print(q, result.get("rows", result.get("error")), flush=True)


def main() -> None:
    queries = sys.argv[1:] or [*__import__("benchmarks.nexmark.suite", fromlist=["QUERIES"]).QUERIES]
    try:
        import pyflink  # noqa: F401
    except ImportError:
        with tempfile.TemporaryDirectory() as tmp:
            side = f"{tmp}/side_input.csv"
            side_input(side)
            flink = VENV / "bin" / "python"
            for rate in sorted({rate_of(q) for q in queries}):
                events = f"{tmp}/events-{rate}.jsonl"
                write_events(events, rate)
                subprocess.run([str(flink), __file__, "--flink", events, side,
                                *[q for q in queries if rate_of(q) == rate]], check=True)
        return
    raise SystemExit("run with sqlengine's venv (it starts Flink's)")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--flink":
        run_flink(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        main()
