"""What ``execution.checkpointing.interval`` trades: latency against the cost of epochs.

One job, run in this process at several intervals: a ``datagen`` source at a fixed rate
(``rows-per-second``, bounded by ``number-of-rows``) → a 1-second TUMBLE count per key →
the ``filesystem`` sink. The rate is the same at every interval (a datagen micro-batch
holds the interval's rows), so the interval decides how many epochs the same rows take
and how long a row waits: at most one interval for its epoch to start, then the epoch.

Per interval: epochs, mean epoch duration, the share of wall time spent in epochs (busy),
and the latency a row sees on average (half an interval of waiting, plus the epoch: the
epoch starts at the interval, so a row waits between 0 and one interval). The output is
checked in every round: one row per (window, key) with the count datagen produced.

Usage:
    .venv/bin/python benchmarks/checkpoint_interval.py [--rate 20000] [--seconds 20]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SQL = """
CREATE TABLE gen (k INT, ts AS LOCALTIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'datagen', 'rows-per-second' = '{rate}', 'number-of-rows' = '{rows}',
        'fields.k.min' = '0', 'fields.k.max' = '9');
CREATE TABLE `out` (k INT, window_start TIMESTAMP(3), n BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
INSERT INTO `out` SELECT k, window_start, COUNT(*)
FROM TABLE(TUMBLE(TABLE gen, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end;
"""


def run(spark, interval: str, rate: int, seconds: int) -> dict:
    from sqlengine.api.session import Session
    folder = Path(tempfile.mkdtemp(prefix="interval-"))
    conf = {"execution.checkpointing.dir": str(folder / "ckpt"), "parallelism.default": "2",
            "execution.runtime-mode": "streaming"}
    if interval != "0":
        conf["execution.checkpointing.interval"] = interval
    session = Session(conf, spark=spark)
    statements = [s for s in SQL.format(rate=rate, rows=rate * seconds, out=folder / "out").split(";") if s.strip()]
    for st in statements[:-1]:
        session.execute_sql(st)
    started = time.monotonic()
    job = session.execute_sql(statements[-1]).job.wait(seconds * 10 + 120)
    wall = time.monotonic() - started
    epochs = [q.driver.metrics.snapshot().epochs for q in job.queries][0]
    durations = [e.duration_ms / 1000 for e in epochs]
    total = 0
    for f in (folder / "out").rglob("*"):
        if f.is_file() and not any(p.startswith((".", "_")) for p in f.relative_to(folder / "out").parts):
            total += sum(json.loads(line)["n"] for line in f.read_text().splitlines() if line.strip())
    every = 0.0 if interval == "0" else float(interval.split()[0]) / (1000 if "ms" in interval else 1)
    mean = statistics.mean(durations) if durations else 0.0
    return {"interval": interval, "epochs": len(epochs), "epoch_s": mean, "busy": sum(durations) / wall,
            "latency_s": every / 2 + mean, "wall_s": wall, "rows_out": total, "rows_in": rate * seconds,
            "ok": total == rate * seconds}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rate", type=int, default=20000)
    p.add_argument("--seconds", type=int, default=20)
    p.add_argument("--intervals", default="0,500 ms,2 s,5 s")
    p.add_argument("--json")
    args = p.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from sqlengine.runtime.spark import get_spark
    spark = get_spark({"spark.master": "local[2]"})
    run(spark, "0", args.rate, 2)  # warm-up (not reported)
    results = [run(spark, iv.strip(), args.rate, args.seconds) for iv in args.intervals.split(",")]
    print(f"{'interval':>9} {'epochs':>7} {'epoch s':>8} {'busy':>6} {'latency s':>10} {'wall s':>7} check")
    for r in results:
        print(f"{r['interval']:>9} {r['epochs']:7d} {r['epoch_s']:8.2f} {r['busy']:6.0%} {r['latency_s']:10.2f} "
              f"{r['wall_s']:7.1f} {'ok' if r['ok'] else 'WRONG: %d of %d rows' % (r['rows_out'], r['rows_in'])}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
