"""Small Flink SQL scripts and the interactive shell's start-up: sqlengine vs. Apache Flink.

Issue 8: "start-up to the first prompt in under 3 s (the JVM may start in the
background); a small script's total time measured against Flink's SQL execution of the
same file". Two measurements, N rounds each:

1. **Small scripts** (benchmarks/sql/small/*.sql, run unchanged on both sides) as whole
   processes: ``python -m shell.cli -f <script> -D spark.master=local[2]`` against
   ``flink_runner.py <script>`` under PyFlink. Wall time, CPU seconds and peak RSS of
   the process tree are measured by run.py's ``measure``; the sides alternate per round
   (A/B). What a script must print (its result rows) is checked on both sides.
2. **Start-up of the interactive shell**: ``python -m shell.cli`` in a pseudo-terminal
   whose output a terminal emulator renders (tests/shell/terminal.py, which also answers
   prompt_toolkit's cursor-position query); the seconds from spawning it until
   ``Flink SQL>`` is on the screen, until ``SHOW TABLES;`` typed at once has printed its
   result, and until ``SELECT 1;`` (batch, tableau) typed next has printed its row
   (that one waits for Spark, which starts in the background).

Flink's own SQL client is not the Flink side: PyFlink's wheel ships
``opt/flink-sql-client-*.jar`` but not the SQL gateway it needs even in embedded mode
(``sql-client.sh`` fails with ``NoClassDefFoundError: .../gateway/service/context/
DefaultContext``); ``flink_client_problem`` says so at run time.

Usage:
    .venv/bin/python benchmarks/cli_script.py [--rounds 3] [--only batch_count]
                                              [--no-startup] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Optional

import run as bench

SMALL = bench.BENCH / "sql" / "small"
SCRIPTS = ("batch_count", "stream_tumble", "ddl_only")
SIDES = ("sqlengine", "flink")
MASTER = "spark.master=local[2]"
# What each script must print, on both sides (the table layouts differ in widths only).
EXPECTED = {
    "batch_count": (r"\|\s+1000 \|\s+500500 \|",),
    "stream_tumble": (),
    "ddl_only": (r"\|\s+order_totals \|", r"\|\s+created_at \|", r"PRI\(customer_id\)"),
}
# The shell starts in batch mode with tableau results, so SELECT 1 prints and returns.
SHELL_ARGS = ("-D", MASTER, "-D", "execution.runtime-mode=batch",
              "-D", "sql-client.execution.result-mode=tableau")
STEPS = ("prompt", "show_tables", "select_1")
STEP_LABELS = {"prompt": "`Flink SQL>` on the screen",
               "show_tables": "`SHOW TABLES;` typed at the prompt: result printed",
               "select_1": "then `SELECT 1;`: its row printed (Spark started)"}


# ---------------------------------------------------------------- small scripts


def script_command(side: str, name: str, args: argparse.Namespace) -> list[str]:
    """The command that runs benchmarks/sql/small/<name>.sql, unchanged, on ``side``."""
    path = str(SMALL / f"{name}.sql")
    if side == "flink":
        return [args.flink_python, str(bench.BENCH / "flink_runner.py"), path]
    cmd = bench.sqlengine_command(args.python, args.sqlengine_cmd) + ["-f", path]
    for item in (MASTER, *args.conf):
        cmd += ["-D", item]
    return cmd


def run_script(side: str, name: str, args: argparse.Namespace, logdir: Path) -> bench.Run:
    """One whole process, measured by run.py; a run whose output lacks the expected rows
    counts as failed."""
    cmd = script_command(side, name, args)
    run = bench.measure(cmd, side, name, 0, args.timeout, logdir, args.python)
    if run.ok:
        out = (logdir / f"{name}-{side}.stdout").read_text(errors="replace")
        missing = [p for p in EXPECTED[name] if not re.search(p, out)]
        if missing:
            run.error = f"stdout lacks {missing}\n  stdout tail:\n" + \
                bench._indent(bench._tail(logdir / f"{name}-{side}.stdout", 20))
    return run


def report_script(run: bench.Run, label: str) -> None:
    if run.ok:
        print(f"{label} {run.pipeline:<13} {run.side:<9} {run.wall_s:6.2f} s  "
              f"cpu {run.cpu_s:6.1f} s  peak {run.peak_rss_mb:7,.0f} MB", flush=True)
    else:
        print(f"{label} {run.pipeline:<13} {run.side:<9} FAILED: {run.error}", flush=True)


def script_table(results: dict[str, dict[str, bench.Cell]]) -> str:
    """Medians per script and side; the ratios sqlengine/Flink on the sqlengine row."""
    rows = [("script", "side", "wall s", "CPU s", "peak RSS MB",
             "wall sqlengine/Flink", "CPU sqlengine/Flink")]
    for name, cells in results.items():
        for side, cell in cells.items():
            row = [name, bench.LABELS[side]]
            for attr, fmt in (("wall_s", "{:.1f}"), ("cpu_s", "{:.1f}"), ("peak_rss_mb", "{:,.0f}")):
                row.append(bench.fmt_number(cell.median(attr), cell.failed, fmt))
            row += [_ratio(cells, "wall_s"), _ratio(cells, "cpu_s")] if side == "sqlengine" else ["", ""]
            rows.append(tuple(row))
    return bench.markdown(rows)


def _ratio(cells: dict[str, bench.Cell], attr: str) -> str:
    ours, theirs = (cells[s].median(attr) if s in cells else None for s in SIDES)
    return f"{ours / theirs:.2f}x" if ours and theirs else "-"


# ---------------------------------------------------------------- start-up


@dataclass
class Start:
    """Seconds from spawning the interactive shell to each step (None: not reached)."""

    prompt: Optional[float] = None
    show_tables: Optional[float] = None
    select_1: Optional[float] = None
    error: str = ""


def measure_start(timeout: float, workdir: Path) -> Start:
    """Spawn the shell in a terminal, wait for the prompt, type two statements, quit."""
    from terminal import Terminal  # tests/shell/terminal.py, on sys.path (see main)

    start = Start()
    began = time.perf_counter()
    term = Terminal(*SHELL_ARGS, env={"SQLENGINE_HISTORY": str(workdir / "history")})
    try:
        term.wait_for(r"^Flink SQL>", timeout)
        start.prompt = time.perf_counter() - began
        term.run("SHOW TABLES;", r"Empty set", timeout)
        start.show_tables = time.perf_counter() - began
        term.run("SELECT 1;", r"1 row in set", timeout)
        start.select_1 = time.perf_counter() - began
        term.type("QUIT;")
        term.enter()
        term.wait_exit(60)
    except AssertionError as exc:
        start.error = str(exc)
    finally:
        term.close()
    return start


def report_start(start: Start, label: str) -> None:
    if start.error:
        print(f"{label} shell start-up FAILED: {start.error}", flush=True)
        return
    print(f"{label} shell start-up: prompt {start.prompt:.2f} s, SHOW TABLES {start.show_tables:.2f} s, "
          f"SELECT 1 {start.select_1:.2f} s", flush=True)


def start_table(starts: list[Start], flink_problem: str) -> str:
    """Median, min and max seconds per step over the starts that reached it."""
    rows = [("from spawning `python -m shell.cli` until", "median s", "min s", "max s", "Flink SQL client")]
    for step in STEPS:
        values = [getattr(s, step) for s in starts if getattr(s, step) is not None]
        cells = [f"{f(values):.2f}" for f in (statistics.median, min, max)] if values else ["FAILED"] * 3
        rows.append((STEP_LABELS[step], *cells, "not runnable" if flink_problem else "-"))
    return bench.markdown(rows)


def flink_client_problem(flink_python: str) -> str:
    """Why Flink's SQL client cannot run from the PyFlink install ('' if it could)."""
    try:
        home = subprocess.run([flink_python, "-c", "import os, pyflink; print(os.path.dirname(pyflink.__file__))"],
                              capture_output=True, text=True, check=True, timeout=120).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return f"no PyFlink at {flink_python}: {exc}"
    jars = list(Path(home).glob("*/flink-sql-gateway-*.jar"))
    if not (Path(home) / "bin" / "sql-client.sh").exists():
        return f"{home}/bin/sql-client.sh is missing"
    return "" if jars else (f"{home} has bin/sql-client.sh but no flink-sql-gateway-*.jar, which the "
                            "client needs even in embedded mode")


# ---------------------------------------------------------------- main


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", choices=SCRIPTS, action="append",
                        help="run only this script (repeatable)")
    parser.add_argument("--no-scripts", action="store_true", help="skip the small scripts")
    parser.add_argument("--no-startup", action="store_true", help="skip the shell's start-up")
    parser.add_argument("--json", metavar="OUT", help="also write all runs to this JSON file")
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="seconds before a process (or a start-up step) counts as failed")
    parser.add_argument("--python", default=bench.default_python(),
                        help="interpreter for the sqlengine CLI in scripts (default: the project's "
                             ".venv); the shell's start-up uses this script's interpreter")
    parser.add_argument("--sqlengine-cmd", default=None,
                        help="command that runs the CLI (default: PYTHON -m shell.cli)")
    parser.add_argument("--flink-python", default=bench.FLINK_PYTHON,
                        help="interpreter with apache-flink installed (env FLINK_PYTHON)")
    parser.add_argument("-D", dest="conf", action="append", default=[], metavar="KEY=VALUE",
                        help="extra -D option for every sqlengine script run")
    return parser.parse_args(argv)


def run_rounds(args: argparse.Namespace, results: dict[str, dict[str, bench.Cell]],
               starts: list[Start], workdir: Path) -> None:
    """Per round: each script on both sides (order alternating), then one shell start."""
    for r in range(args.rounds):
        label = f"[round {r + 1}/{args.rounds}]"
        for name, cells in results.items():
            for side in bench.order(r, SIDES):
                if not cells[side].failed:  # a side that failed once is not run again
                    run = run_script(side, name, args, workdir)
                    cells[side].runs.append(run)
                    report_script(run, label)
        if not args.no_startup:
            starts.append(measure_start(args.timeout, workdir))
            report_start(starts[-1], label)


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    sys.path.insert(0, str(bench.REPO / "tests" / "shell"))
    names = () if args.no_scripts else tuple(args.only or SCRIPTS)
    results = {n: {s: bench.Cell() for s in SIDES} for n in names}
    starts: list[Start] = []
    info = bench.machine_info()
    problem = flink_client_problem(args.flink_python)
    print(f"rounds={args.rounds} scripts={','.join(names) or '-'} master=local[2] "
          f"cpus={info['cpus']} load={info['load_avg']} at {time.strftime('%Y-%m-%d %H:%M:%S %Z')}", flush=True)
    print(f"Flink side: flink_runner.py ({'SQL client not runnable: ' + problem if problem else 'SQL client found'})",
          flush=True)
    bench.warn_if_busy()
    with tempfile.TemporaryDirectory(prefix="sqlengine-cli-bench-") as tmp:
        run_rounds(args, results, starts, Path(tmp))
    info["load_avg_after"] = [round(x, 2) for x in os.getloadavg()]
    print(f"\nload average after: {info['load_avg_after']}")
    if results:
        print("\n" + script_table(results))
    if starts:
        print("\n" + start_table(starts, problem))
    if args.json:
        write_json(args.json, args, info, results, starts, problem)
    failed = any(c.failed for cells in results.values() for c in cells.values()) or \
        any(s.error for s in starts)
    if failed:
        print("\nSome runs FAILED; see the errors above.", file=sys.stderr)
    return 1 if failed else 0


def write_json(path: str, args: argparse.Namespace, info: dict, results: dict[str, dict[str, bench.Cell]],
               starts: list[Start], problem: str) -> None:
    doc = {"rounds": args.rounds, "master": "local[2]", "machine": info, "flink_sql_client": problem or "found",
           "scripts": {n: {s: {"median_wall_s": c.median("wall_s"), "median_cpu_s": c.median("cpu_s"),
                               "median_peak_rss_mb": c.median("peak_rss_mb"), "failed": c.failed,
                               "runs": [asdict(r) for r in c.runs]}
                           for s, c in cells.items()}
                       for n, cells in results.items()},
           "startup": [asdict(s) for s in starts]}
    Path(path).write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
