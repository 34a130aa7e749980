"""How many key groups? TUMBLE and HOP through sqlengine for several max-parallelisms.

A key group is a column of the state rows (``sqlengine/runtime/keygroups.py``): a
stateful stage runs ``parallelism`` tasks whatever the number of key groups, so the
number should not change throughput. This script runs the window pipelines through the
CLI with ``-D pipeline.max-parallelism=K`` for each K (whole processes, local[2], K order
rotated each round) and prints events/s per K, to check that.

Usage:
    .venv/bin/python benchmarks/keygroups.py [--ks 2,128,1024] [--rounds 1] [--rows N]
                                             [--only tumble] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Optional

import run as bench

PIPELINES = ("tumble", "hop")
DEFAULT_KS = (2, 128, 1024)


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    bench.add_common_args(parser, rounds=1)
    parser.add_argument("--ks", default=",".join(map(str, DEFAULT_KS)),
                        help="comma-separated max-parallelism values")
    parser.add_argument("--only", choices=PIPELINES, action="append")
    return parser.parse_args(argv)


def rotate(values: tuple[int, ...], by: int) -> tuple[int, ...]:
    """``values`` started at index ``by`` (so no K always runs first on a cold cache)."""
    by %= len(values)
    return values[by:] + values[:by]


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    ks = tuple(int(k) for k in args.ks.split(","))
    pipelines = tuple(args.only) if args.only else PIPELINES
    cells = {(p, k): bench.Cell() for p in pipelines for k in ks}
    info = bench.machine_info()
    print(f"rows={args.rows:,} rounds={args.rounds} ks={list(ks)} load={info['load_avg']}",
          flush=True)
    bench.warn_if_busy()
    with tempfile.TemporaryDirectory(prefix="sqlengine-keygroups-") as tmp:
        for r in range(args.rounds):
            for pipeline in pipelines:
                for k in rotate(ks, r):
                    run_one(args, pipeline, k, cells[(pipeline, k)], Path(tmp), r)
    print()
    print(format_table(pipelines, ks, cells))
    if args.json:
        write_json(args, info, pipelines, ks, cells)
    return 1 if any(c.failed for c in cells.values()) else 0


def run_one(args: argparse.Namespace, pipeline: str, k: int, cell: bench.Cell,
            workdir: Path, round_index: int) -> None:
    """One CLI process with max-parallelism ``k``; skipped if this cell failed before."""
    if cell.failed:
        return
    conf = (f"pipeline.max-parallelism={k}",)
    cmd = bench.side_command("sqlengine", pipeline, args, workdir, extra_conf=conf)
    run = bench.measure(cmd, "sqlengine", pipeline, args.rows, args.timeout, workdir,
                        args.python)
    cell.runs.append(run)
    bench.report_run(run, f"[round {round_index + 1}/{args.rounds}] K={k:<4}")


def format_table(pipelines: tuple[str, ...], ks: tuple[int, ...],
                 cells: dict[tuple[str, int], bench.Cell]) -> str:
    """Markdown table: one row per K, median events/s (and peak RSS) per pipeline."""
    head = ("max-parallelism (key groups)",)
    for p in pipelines:
        head += (f"{p} events/s", f"{p} peak RSS MB")
    rows = [head]
    for k in ks:
        row = (str(k),)
        for p in pipelines:
            cell = cells[(p, k)]
            row += (bench.fmt_number(cell.median("events_per_s"), cell.failed),
                    bench.fmt_number(cell.median("peak_rss_mb"), cell.failed))
        rows.append(row)
    return bench.markdown(rows)


def write_json(args: argparse.Namespace, info: dict, pipelines: tuple[str, ...],
               ks: tuple[int, ...], cells: dict[tuple[str, int], bench.Cell]) -> None:
    doc = {"rows": args.rows, "rounds": args.rounds, "machine": info,
           "results": {p: {str(k): {"median_events_per_s": cells[(p, k)].median("events_per_s"),
                                    "failed": cells[(p, k)].failed,
                                    "runs": [vars(r) for r in cells[(p, k)].runs]}
                           for k in ks}
                       for p in pipelines}}
    Path(args.json).write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    sys.exit(main())
