"""sqlengine vs. hand-written PySpark: whole processes, A/B alternated, on local[2].

For each pipeline (benchmarks/sql/<name>.sql vs. benchmarks/baseline/<name>.py) and
each round, both sides run as separate OS processes, in alternating order (round 1
sqlengine first, round 2 PySpark first, ...), so drift on a shared machine does not
favour one side. Per run we record the wall time of the whole process (interpreter and
JVM start-up, planning, the stream itself, shutdown), events/s = rows / wall seconds,
and the peak resident memory of the whole process tree (the Python driver, the JVM it
launches, Python workers), sampled every ~50 ms from this parent process. The table
shows medians over the rounds.

Usage:
    .venv/bin/python benchmarks/run.py [--rounds 3] [--only tumble] [--rows 5000000]
                                       [--json out.json] [--side both|sqlengine|pyspark]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional

import psutil

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
PIPELINES = ("projection", "filter", "tumble", "hop")
SIDES = ("sqlengine", "pyspark")
DEFAULT_ROWS = 5_000_000
SAMPLE_SECONDS = 0.05
TAIL_LINES = 40


@dataclass
class Run:
    """One process run: wall time, peak RSS of its tree, and how it ended."""

    side: str
    pipeline: str
    wall_s: float
    peak_rss_mb: float
    returncode: Optional[int]
    events_per_s: float = 0.0
    error: str = ""
    cpu_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.error


@dataclass
class Cell:
    """All runs of one side of one pipeline."""

    runs: list[Run] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return any(not r.ok for r in self.runs)

    def median(self, attr: str) -> Optional[float]:
        values = [getattr(r, attr) for r in self.runs if r.ok]
        return statistics.median(values) if values else None


# ---------------------------------------------------------------- commands


def default_python() -> str:
    """The project's venv interpreter if there is one, else this interpreter."""
    venv = REPO / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def sqlengine_command(python: str, override: Optional[str]) -> list[str]:
    """The CLI: ``--sqlengine-cmd``, else the venv's console script, else ``-m shell.cli``."""
    if override:
        return shlex.split(override)
    script = Path(python).parent / "sqlengine"
    if script.exists():
        return [str(script)]
    return [python, "-m", "shell.cli"]


def prepare_script(pipeline: str, rows: int, workdir: Path) -> Path:
    """benchmarks/sql/<pipeline>.sql with the row count set to ``rows``, in ``workdir``."""
    text = (BENCH / "sql" / f"{pipeline}.sql").read_text()
    text = _substitute(text, "number-of-rows", rows, pipeline)
    text = _substitute(text, "fields.id.end", rows - 1, pipeline)
    path = workdir / f"{pipeline}.sql"
    path.write_text(text)
    return path


def _substitute(text: str, option: str, value: int, pipeline: str) -> str:
    pattern = re.compile(r"('" + re.escape(option) + r"'\s*=\s*')\d+(')")
    new, count = pattern.subn(lambda m: f"{m.group(1)}{value}{m.group(2)}", text)
    if count != 1:
        raise SystemExit(f"benchmarks/sql/{pipeline}.sql: expected one '{option}' option, "
                         f"found {count}")
    return new


def side_command(side: str, pipeline: str, args: argparse.Namespace, workdir: Path,
                 extra_conf: tuple[str, ...] = ()) -> list[str]:
    """The command line that runs ``pipeline`` on ``side``."""
    if side == "sqlengine":
        script = prepare_script(pipeline, args.rows, workdir)
        conf = ("spark.master=local[2]",) + tuple(args.conf) + extra_conf
        cmd = sqlengine_command(args.python, args.sqlengine_cmd) + ["-f", str(script)]
        for item in conf:
            cmd += ["-D", item]
        return cmd
    cmd = [args.python, str(BENCH / "baseline" / f"{pipeline}.py"), "--rows", str(args.rows)]
    if getattr(args, "rows_per_batch", None):
        cmd += ["--rows-per-batch", str(args.rows_per_batch)]
    return cmd


# ---------------------------------------------------------------- measuring


def _tree(proc: psutil.Process) -> list[psutil.Process]:
    try:
        return [proc] + proc.children(recursive=True)
    except psutil.Error:
        return [proc]


class _Usage:
    """Peak summed RSS of a process tree, and the CPU seconds each member used."""

    def __init__(self) -> None:
        self.peak_rss = 0
        self.cpu: dict[int, float] = {}

    def sample(self, proc: psutil.Process) -> None:
        rss = 0
        for member in _tree(proc):
            try:
                with member.oneshot():
                    rss += member.memory_info().rss
                    times = member.cpu_times()
                self.cpu[member.pid] = times.user + times.system
            except psutil.Error:
                pass
        self.peak_rss = max(self.peak_rss, rss)


def _kill_tree(proc: psutil.Process) -> None:
    for member in reversed(_tree(proc)):
        try:
            member.kill()
        except psutil.Error:
            pass


def _tail(path: Path, lines: int = TAIL_LINES) -> str:
    text = path.read_text(errors="replace").splitlines()
    return "\n".join(text[-lines:])


def measure(cmd: list[str], side: str, pipeline: str, rows: int, timeout: float,
            logdir: Path, python: str) -> Run:
    """Run ``cmd`` to completion; wall time, peak tree RSS, exit status.

    Python workers of both sides run ``python`` (Spark requires the driver's version).
    """
    out_path = logdir / f"{pipeline}-{side}.stdout"
    err_path = logdir / f"{pipeline}-{side}.stderr"
    env = dict(os.environ)
    env.setdefault("PYSPARK_PYTHON", python)
    usage = _Usage()
    stop = threading.Event()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        started = time.perf_counter()
        proc = psutil.Popen(cmd, cwd=REPO, stdout=out, stderr=err, stdin=psutil.subprocess.DEVNULL,
                            env=env)
        sampler = threading.Thread(target=_sample, args=(proc, usage, stop), daemon=True)
        sampler.start()
        error = ""
        try:
            returncode = proc.wait(timeout=timeout)
        except psutil.TimeoutExpired:
            _kill_tree(proc)
            returncode = proc.wait()
            error = f"timed out after {timeout:.0f} s"
        wall = time.perf_counter() - started
        stop.set()
        sampler.join()
    run = Run(side, pipeline, wall, usage.peak_rss / 2**20, returncode, rows / wall, error,
              sum(usage.cpu.values()))
    if not run.ok:
        run.error = (error or f"exit code {returncode}") + \
            f"\n  command: {shlex.join(cmd)}\n  stderr tail ({err_path}):\n" + \
            _indent(_tail(err_path)) + "\n  stdout tail:\n" + _indent(_tail(out_path, 10))
    return run


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def _sample(proc: psutil.Process, usage: _Usage, stop: threading.Event) -> None:
    while not stop.is_set():
        usage.sample(proc)
        stop.wait(SAMPLE_SECONDS)


# ---------------------------------------------------------------- reporting


def fmt_number(value: Optional[float], failed: bool, fmt: str = "{:,.0f}") -> str:
    """A table cell: the number, FAILED, or - when the run was skipped."""
    if value is None:
        return "FAILED" if failed else "-"
    return fmt.format(value)


def format_table(results: dict[str, dict[str, Cell]]) -> str:
    """Markdown table: medians of events/s and peak RSS per pipeline and side."""
    head = ("pipeline", "sqlengine events/s", "PySpark events/s", "ratio",
            "sqlengine peak RSS MB", "PySpark peak RSS MB")
    rows = [head]
    for pipeline, cells in results.items():
        eng, spk = cells.get("sqlengine", Cell()), cells.get("pyspark", Cell())
        e_eps, s_eps = eng.median("events_per_s"), spk.median("events_per_s")
        ratio = f"{e_eps / s_eps:.2f}x" if e_eps and s_eps else "-"
        rows.append((pipeline, fmt_number(e_eps, eng.failed),
                     fmt_number(s_eps, spk.failed), ratio,
                     fmt_number(eng.median("peak_rss_mb"), eng.failed),
                     fmt_number(spk.median("peak_rss_mb"), spk.failed)))
    return markdown(rows)


def markdown(rows: list[tuple[str, ...]]) -> str:
    """Rows (first one the header) as an aligned Markdown table."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    fmt = lambda r: "| " + " | ".join(  # noqa: E731
        c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))) + " |"
    rule = "|" + "|".join("-" * (w + 1) + (":" if i else "-") for i, w in enumerate(widths)) + "|"
    return "\n".join([fmt(rows[0]), rule] + [fmt(r) for r in rows[1:]])


def machine_info() -> dict:
    """What the numbers depend on, including how busy the machine was."""
    return {"cpus": os.cpu_count(), "load_avg": [round(x, 2) for x in os.getloadavg()],
            "total_memory_gb": round(psutil.virtual_memory().total / 2**30, 1),
            "python": sys.version.split()[0]}


def warn_if_busy() -> None:
    """Other processes competing for the 2 cores make every number meaningless."""
    load = os.getloadavg()[0]
    if load > (os.cpu_count() or 1) * 0.75:
        print(f"WARNING: 1-minute load average is {load:.1f} on {os.cpu_count()} CPUs; "
              "other processes are competing and the numbers will be noisy.", flush=True)


def report_run(run: Run, label: str) -> None:
    """One progress line per run (and the error, in full, when it failed)."""
    if run.ok:
        print(f"{label} {run.pipeline:<10} {run.side:<9} {run.wall_s:7.2f} s "
              f"{run.events_per_s:>12,.0f} events/s  peak {run.peak_rss_mb:8,.0f} MB  "
              f"cpu {run.cpu_s:7.1f} s", flush=True)
    else:
        print(f"{label} {run.pipeline:<10} {run.side:<9} FAILED: {run.error}", flush=True)


# ---------------------------------------------------------------- main


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_common_args(parser)
    parser.add_argument("--only", choices=PIPELINES, action="append",
                        help="run only this pipeline (repeatable)")
    parser.add_argument("--side", choices=("both",) + SIDES, default="both")
    parser.add_argument("--rows-per-batch", type=int, default=None,
                        help="rowsPerBatch of the PySpark baselines (default: theirs)")
    parser.add_argument("--fail-fast", action="store_true",
                        help="stop at the first failed process instead of going on")
    return parser.parse_args(argv)


def add_common_args(parser: argparse.ArgumentParser, rounds: int = 3) -> None:
    """Options shared with keygroups.py."""
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--rows", type=int, default=DEFAULT_ROWS)
    parser.add_argument("--json", metavar="OUT", help="also write all runs to this JSON file")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds before a process is killed and counted as failed")
    parser.add_argument("--python", default=default_python(),
                        help="interpreter for the baselines (and the CLI fallback)")
    parser.add_argument("--sqlengine-cmd", default=None,
                        help="command that runs the CLI (default: the venv's sqlengine, "
                             "else 'python -m shell.cli')")
    parser.add_argument("-D", dest="conf", action="append", default=[], metavar="KEY=VALUE",
                        help="extra -D option passed to every sqlengine run")


def order(round_index: int, sides: tuple[str, ...]) -> tuple[str, ...]:
    """A/B alternation: even rounds in the given order, odd rounds reversed."""
    return sides if round_index % 2 == 0 else tuple(reversed(sides))


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    pipelines = tuple(args.only) if args.only else PIPELINES
    sides = SIDES if args.side == "both" else (args.side,)
    results = {p: {s: Cell() for s in sides} for p in pipelines}
    info = machine_info()
    print(f"rows={args.rows:,} rounds={args.rounds} master=local[2] "
          f"cpus={info['cpus']} load={info['load_avg']}", flush=True)
    warn_if_busy()
    with tempfile.TemporaryDirectory(prefix="sqlengine-bench-") as tmp:
        workdir = Path(tmp)
        stopped = run_rounds(args, pipelines, sides, results, workdir)
    print()
    print(format_table(results))
    info["load_avg_after"] = [round(x, 2) for x in os.getloadavg()]
    if args.json:
        write_json(args.json, args, info, results)
    failed = stopped or any(c.failed for cells in results.values() for c in cells.values())
    if failed:
        print("\nSome runs FAILED; see the errors above.", file=sys.stderr)
    return 1 if failed else 0


def run_rounds(args: argparse.Namespace, pipelines: tuple[str, ...], sides: tuple[str, ...],
               results: dict[str, dict[str, Cell]], workdir: Path) -> bool:
    """All rounds; a side that failed once is not run again. True if stopped early."""
    for r in range(args.rounds):
        for pipeline in pipelines:
            for side in order(r, sides):
                cell = results[pipeline][side]
                if cell.failed:
                    continue
                cmd = side_command(side, pipeline, args, workdir)
                run = measure(cmd, side, pipeline, args.rows, args.timeout, workdir, args.python)
                cell.runs.append(run)
                report_run(run, f"[round {r + 1}/{args.rounds}]")
                if not run.ok and args.fail_fast:
                    return True
    return False


def write_json(path: str, args: argparse.Namespace, info: dict,
               results: dict[str, dict[str, Cell]]) -> None:
    """Every run plus the medians, for later comparison."""
    doc = {"rows": args.rows, "rounds": args.rounds, "master": "local[2]", "machine": info,
           "results": {p: {s: {"median_events_per_s": c.median("events_per_s"),
                               "median_peak_rss_mb": c.median("peak_rss_mb"),
                               "median_cpu_s": c.median("cpu_s"),
                               "failed": c.failed,
                               "runs": [asdict(r) for r in c.runs]}
                           for s, c in cells.items()}
                       for p, cells in results.items()}}
    Path(path).write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
