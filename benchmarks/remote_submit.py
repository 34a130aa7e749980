"""A small script submitted to a running sqlengine cluster vs. a local run vs. Apache Flink.

Issue 22: "a 900-row script (a ``filesystem`` JSON source, a 2-minute TUMBLE aggregation, a
``filesystem`` sink) takes 12.5 s as a local run today and 8–9 s in Flink's local
mini-cluster; submitted to a running sqlengine cluster it must finish, end to end as the
client sees it, in 3 s or less".

Three sides run the same SQL file, A/B alternated per round, as whole processes:

* ``remote``: ``sqlengine -m host:port -f job.sql`` against a cluster this benchmark starts
  once (``sqlengine cluster start``; not timed, one warm-up submission first). The script
  sets ``table.dml-sync`` so the client returns only when the job has finished: the time is
  the end-to-end time as the client sees it, process start to exit.
* ``local``: ``sqlengine -f job.sql -D spark.master=local[2]`` (the process is the cluster).
* ``flink``: ``benchmarks/flink_runner.py job.sql`` under PyFlink (Flink's local
  mini-cluster, parallelism 2).

Every run's output folder is read back and checked against the windows computed here
(per 2-minute window and customer: count and sum); a run whose output differs is marked
failed. Peak RSS is the measured process tree's (for ``remote`` that is the client only;
the cluster's is printed once at the end).

Usage:
    .venv/bin/python benchmarks/remote_submit.py [--rounds 5] [--json out.json]
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import psutil

import run as bench

ROWS = 900
SIDES = ("remote", "local", "flink")
SCRIPT = """CREATE TABLE orders (ot TIMESTAMP(3), cid INT, amount INT, WATERMARK FOR ot AS ot - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '{input}', 'format' = 'json');
CREATE TABLE totals (window_start TIMESTAMP(3), window_end TIMESTAMP(3), cid INT, n BIGINT, total INT)
  WITH ('connector' = 'filesystem', 'path' = '{output}', 'format' = 'json');
SET 'table.dml-sync' = 'true';
SET 'parallelism.default' = '2';
INSERT INTO totals
SELECT window_start, window_end, cid, COUNT(*), SUM(amount)
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ot), INTERVAL '2' MINUTE))
GROUP BY window_start, window_end, cid;
"""


def make_input(path: Path) -> Counter:
    """900 orders, one every 2 s, and the windows they make: (start, cid) -> (n, total)."""
    rnd = random.Random(1)
    start = dt.datetime(2026, 1, 1)
    expected: Counter = Counter()
    with open(path, "w") as f:
        for i in range(ROWS):
            ts = start + dt.timedelta(seconds=2 * i)
            cid, amount = rnd.randint(1, 20), rnd.randint(1, 100)
            f.write(json.dumps({"ot": ts.strftime("%Y-%m-%d %H:%M:%S.000"), "cid": cid, "amount": amount}) + "\n")
            window = ts.replace(minute=ts.minute - ts.minute % 2, second=0).strftime("%Y-%m-%d %H:%M:%S")
            n, total = expected.get((window, cid), (0, 0))
            expected[(window, cid)] = (n + 1, total + amount)
    return expected


def read_output(folder: Path) -> dict:
    """The sink's rows (hidden and in-progress files skipped): (start, cid) -> (n, total)."""
    got: dict = {}
    for f in sorted(folder.rglob("*")):
        if not f.is_file() or f.name.startswith((".", "_")):
            continue
        for line in f.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                key = (r["window_start"][:19].replace("T", " "), r["cid"])
                if key in got:
                    got[key] = ("twice", key)
                else:
                    got[key] = (r["n"], r["total"])
    return got


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--json")
    p.add_argument("--side", choices=("all",) + SIDES, default="all")
    args = p.parse_args(argv)
    sides = SIDES if args.side == "all" else (args.side,)
    python = bench.default_python()
    work = Path(tempfile.mkdtemp(prefix="remote-submit-"))
    expected = make_input(work / "orders.jsonl")
    want = dict(expected)
    env = dict(os.environ, XDG_STATE_HOME=str(work / "state"), XDG_DATA_HOME=str(work / "data"),
               PYSPARK_PYTHON=python)
    rest = free_port()
    cluster_conf = ["-D", f"rest.port={rest}", "-D", f"sql-gateway.endpoint.rest.port={free_port()}",
                    "-D", "spark.master=local[2]"]
    started = subprocess.run([python, "-m", "shell.cli", "cluster", "start", *cluster_conf], cwd=bench.REPO,
                             env=env, capture_output=True, text=True, timeout=300)
    if started.returncode != 0:
        print(started.stdout, started.stderr, file=sys.stderr)
        return 1
    results: dict[str, list] = {s: [] for s in sides}
    try:
        runs = 0

        def one(side: str, label: str) -> bench.Run:
            nonlocal runs
            runs += 1
            out = work / f"out-{runs}"
            script = work / f"job-{runs}.sql"
            script.write_text(SCRIPT.format(input=work / "orders.jsonl", output=out))
            cmd = {"remote": [python, "-m", "shell.cli", "-m", f"127.0.0.1:{rest}", "-f", str(script)],
                   "local": [python, "-m", "shell.cli", "-f", str(script), "-D", "spark.master=local[2]"],
                   "flink": [bench.FLINK_PYTHON, str(bench.BENCH / "flink_runner.py"), str(script)]}[side]
            os.environ.update({k: env[k] for k in ("XDG_STATE_HOME", "XDG_DATA_HOME")})
            r = bench.measure(cmd, side, label, ROWS, 600, work, python)
            got = read_output(out)
            if r.ok and got != want:
                missing = len(set(want) - set(got))
                r.error = f"output differs: {len(got)} windows, {missing} missing, " \
                          f"{sum(1 for k in got if got[k] != want.get(k))} wrong"
            print(f"  {label:8} {side:7} {r.wall_s:6.2f} s  rss {r.peak_rss_mb:6.0f} MB  "
                  f"{'ok' if r.ok else 'FAILED: ' + (r.error or 'exit ' + str(r.returncode))}",
                  flush=True)
            return r
        if "remote" in sides:
            one("remote", "warm-up")
        for i in range(args.rounds):
            for side in bench.order(i, sides):
                results[side].append(one(side, f"round {i + 1}"))
        cluster = next((pr for pr in psutil.process_iter(["cmdline"])
                        if "--foreground" in (pr.info["cmdline"] or []) and f"rest.port={rest}" in
                        " ".join(pr.info["cmdline"] or [])), None)
        cluster_rss = sum(q.memory_info().rss for q in [cluster, *cluster.children(recursive=True)]) / 2**20 \
            if cluster else float("nan")
    finally:
        subprocess.run([python, "-m", "shell.cli", "cluster", "stop", *cluster_conf], cwd=bench.REPO, env=env,
                       capture_output=True, timeout=600)
    rows = [("side", "median wall s", "events/s", "peak RSS MB", "vs Flink", "runs ok")]
    flink_wall = statistics.median([r.wall_s for r in results.get("flink", []) if r.ok] or [float("nan")])
    summary = {}
    for side in sides:
        ok = [r for r in results[side] if r.ok]
        wall = statistics.median([r.wall_s for r in ok]) if ok else float("nan")
        rss = statistics.median([r.peak_rss_mb for r in ok]) if ok else float("nan")
        summary[side] = {"wall_s": wall, "rss_mb": rss, "ok": len(ok), "runs": len(results[side]),
                         "walls": [round(r.wall_s, 3) for r in results[side]]}
        rows.append((side, f"{wall:.2f}", f"{ROWS / wall:,.0f}", f"{rss:.0f}",
                     f"{flink_wall / wall:.2f}x" if side != "flink" else "1.00x", f"{len(ok)}/{len(results[side])}"))
    print()
    print(bench.markdown(rows))
    print(f"\nThe cluster process (JobManager + Spark), after the runs: {cluster_rss:.0f} MB RSS.")
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": bench.machine_info(), "rounds": args.rounds,
                                               "sides": summary, "cluster_rss_mb": cluster_rss}, indent=2))
    return 0 if all(s["ok"] == s["runs"] for s in summary.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
