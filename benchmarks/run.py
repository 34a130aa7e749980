"""sqlengine vs. Apache Flink 2.3 at its best on the same Flink SQL files, every output checked
(issue 24).

For each shape (benchmarks/sql/<name>.sql) and each round, every side runs as an OS process
of its own, in an order that alternates between rounds: ``sqlengine`` (Spark ``local[2]``,
parallelism 2, through the public Session API), ``flink`` (Flink 2.3 under its defaults)
and ``flink-nexmark`` (under Nexmark's configuration: ``table.exec.mini-batch.*`` 2 s /
50,000 rows, ``table.optimizer.distinct-agg.split.enabled``), both through
``flink_runner.py --child`` on PyFlink's mini-cluster, parallelism 2. ``--compare TREE``
adds ``before``: sqlengine from another checkout (its own ``.venv``), checked the same way.

The input is the same on every side: each script's ``datagen`` table draws only a sequence
``id``; the keys and amounts are computed columns, deterministic functions of ``id``.

The outputs are checked. run.py replaces the script's ``blackhole`` sink with one it can
read back: an append-only result goes to a ``filesystem`` folder (``csv``), an updating
one to an ``upsert-kafka`` topic of the tests' Kafka broker (tests/connectors/kafka/
broker.py; Flink through ``flink-sql-connector-kafka``, with ``sink.buffer-flush.*`` so
that it writes a key's last state per flush, as sqlengine writes one per epoch). Each
output is materialized (a topic: each key's last value, a tombstone deletes) and reduced
to a row count and an order-independent checksum (the sum of 64-bit row hashes of the
typed columns, ``SHAPES[shape].compare`` only). All sides of a round must agree, or the
round is a MISMATCH: reported with sample rows from each side, and run.py exits 1.

Timed: the INSERT, from its submission to the end of its job, after the JVM has started
and warmed up (as ``nexmark.py``); events/s = the rows of the script's datagen tables /
those seconds. CPU seconds and peak RSS / PSS are the whole process tree's, start to exit,
and the process's wall time is kept too. The table shows medians over rounds; Flink's
column is the faster of its two configurations, named; ratio = sqlengine events/s /
Flink's. Results go to ``--json`` (default benchmarks/results/run.json).

``--curve`` instead runs ``sql/state_growth.sql`` (unbounded ``GROUP BY bidder`` with
``COUNT(*)``, ``MAX(price)``, keys = rows / 2) at each of ``--curve-rows`` (default 2M, 6M,
18M) on every side, prints rows against seconds and draws them
(benchmarks/results/run_curve.png, with matplotlib).

The older whole-process helpers below (``side_command``, ``measure``, ...) run the scripts
through the CLI; keygroups.py, cli_script.py and remote_submit.py use them.

Usage:
    .venv/bin/python benchmarks/run.py [--rounds 3] [--rows 5000000] [--only tumble]
        [--no-flink] [--flink-configs flink,flink-nexmark] [--compare ../before]
        [-D key=value] [--json out.json]
    .venv/bin/python benchmarks/run.py --curve [--curve-rows 2000000,6000000,18000000]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional

import psutil

from flink_runner import SET_RE, statements  # benchmarks/ is on sys.path (run as a script)

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
PIPELINES = ("projection", "filter", "tumble", "hop", "group_by", "histogram", "join_topn")
SIDES = ("sqlengine", "flink", "pyspark", "before")
LABELS = {"sqlengine": "sqlengine", "flink": "Flink", "pyspark": "PySpark", "before": "before"}
FLINK_PYTHON = os.environ.get("FLINK_PYTHON", "/work/flink-venv/bin/python")
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
    events: int = 0

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
    """The project's venv interpreter (this checkout's, else the main worktree's), else this one."""
    try:
        common = subprocess.run(["git", "rev-parse", "--git-common-dir"], cwd=REPO, text=True,
                                capture_output=True, check=True).stdout.strip()
        roots = [REPO, (REPO / common).resolve().parent]
    except (OSError, subprocess.CalledProcessError):
        roots = [REPO]
    for root in roots:
        venv = root / ".venv" / "bin" / "python"
        if venv.exists():
            return str(venv)
    return sys.executable


def sqlengine_command(python: str, override: Optional[str]) -> list[str]:
    """The CLI: ``--sqlengine-cmd``, else ``python -m shell.cli`` on this checkout's code
    (cwd and PYTHONPATH are the repository root, so a worktree runs its own code)."""
    if override:
        return shlex.split(override)
    return [python, "-m", "shell.cli"]


def prepare_script(pipeline: str, rows: int, workdir: Path) -> Path:
    """benchmarks/sql/<pipeline>.sql with the event table's size set to ``rows``.

    The event table is the one with ``'number-of-rows' = '5000000'`` and
    ``'fields.id.end' = '4999999'``; other datagen tables keep their sizes."""
    text = (BENCH / "sql" / f"{pipeline}.sql").read_text()
    text = _substitute(text, "number-of-rows", DEFAULT_ROWS, rows, pipeline)
    text = _substitute(text, "fields.id.end", DEFAULT_ROWS - 1, rows - 1, pipeline)
    path = workdir / f"{pipeline}.sql"
    path.write_text(text)
    return path


def script_events(script: Path) -> int:
    """All rows the script's datagen tables generate."""
    return sum(int(n) for n in re.findall(r"'number-of-rows'\s*=\s*'(\d+)'", script.read_text()))


def _substitute(text: str, option: str, old: int, value: int, pipeline: str) -> str:
    pattern = re.compile(r"('" + re.escape(option) + r"'\s*=\s*')" + str(old) + "(')")
    new, count = pattern.subn(lambda m: f"{m.group(1)}{value}{m.group(2)}", text)
    if count != 1:
        raise SystemExit(f"benchmarks/sql/{pipeline}.sql: expected one '{option}' = '{old}', "
                         f"found {count}")
    return new


def side_command(side: str, pipeline: str, args: argparse.Namespace, workdir: Path,
                 extra_conf: tuple[str, ...] = ()) -> list[str]:
    """The command line that runs ``pipeline`` on ``side``."""
    if side in ("sqlengine", "before"):
        script = prepare_script(pipeline, args.rows, workdir)
        conf = ("spark.master=local[2]",) + tuple(args.conf) + extra_conf
        python = compare_python(args) if side == "before" else args.python
        cmd = sqlengine_command(python, None if side == "before" else args.sqlengine_cmd) + ["-f", str(script)]
        for item in conf:
            cmd += ["-D", item]
        return cmd
    if side == "flink":
        script = prepare_script(pipeline, args.rows, workdir)
        return [args.flink_python, str(BENCH / "flink_runner.py"), str(script)]
    cmd = [args.python, str(BENCH / "baseline" / f"{pipeline}.py"), "--rows", str(args.rows)]
    if getattr(args, "rows_per_batch", None):
        cmd += ["--rows-per-batch", str(args.rows_per_batch)]
    return cmd


def compare_python(args: argparse.Namespace) -> str:
    """The interpreter of the ``--compare`` checkout (its .venv), else ``--python``."""
    venv = Path(args.compare) / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else args.python


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
            logdir: Path, python: str, root: Path = REPO) -> Run:
    """Run ``cmd`` to completion; wall time, peak tree RSS, exit status.

    ``rows`` is the number of events the run processes. Spark's Python workers run
    ``python`` (Spark requires the driver's version); Spark sides get the repository
    on PYTHONPATH (``root``: the checkout whose code runs).
    """
    out_path = logdir / f"{pipeline}-{side}.stdout"
    err_path = logdir / f"{pipeline}-{side}.stderr"
    env = dict(os.environ)
    if side != "flink":
        env.setdefault("PYSPARK_PYTHON", python)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    usage = _Usage()
    stop = threading.Event()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        started = time.perf_counter()
        proc = psutil.Popen(cmd, cwd=root, stdout=out, stderr=err, stdin=psutil.subprocess.DEVNULL,
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
              sum(usage.cpu.values()), rows)
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


# ---------------------------------------------------------------- options and order


def add_common_args(parser: argparse.ArgumentParser, rounds: int = 3) -> None:
    """Options shared with keygroups.py."""
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--rows", type=int, default=DEFAULT_ROWS)
    parser.add_argument("--json", metavar="OUT", help="also write all runs to this JSON file")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds before a process is killed and counted as failed")
    parser.add_argument("--python", default=default_python(),
                        help="interpreter for the sqlengine CLI and the baselines "
                             "(default: the project's .venv)")
    parser.add_argument("--sqlengine-cmd", default=None,
                        help="command that runs the CLI (default: PYTHON -m shell.cli)")
    parser.add_argument("-D", dest="conf", action="append", default=[], metavar="KEY=VALUE",
                        help="extra -D option passed to every sqlengine run")


def has_baseline(pipeline: str) -> bool:
    """Whether benchmarks/baseline/ has a hand-written PySpark version of the shape."""
    return (BENCH / "baseline" / f"{pipeline}.py").exists()


def order(round_index: int, sides: tuple[str, ...]) -> tuple[str, ...]:
    """A/B alternation: even rounds in the given order, odd rounds reversed."""
    return sides if round_index % 2 == 0 else tuple(reversed(sides))


# ---------------------------------------------------------------- checked runs (issue 24)
#
# Everything below is the harness ``main`` runs: the same input on every side, checkable
# sinks, Flink under both configurations, the job timed inside a warmed-up process.

FLINK_CONFIGS = {"flink": "defaults", "flink-nexmark": "Nexmark's"}
CURVE_SHAPE = "state_growth"
CURVE_ROWS = (2_000_000, 6_000_000, 18_000_000)
# Flink's upsert-kafka sink keeps each key's last change and writes them per flush (its
# ReducingUpsertSink); sqlengine's writes each key's last change per epoch.
BUFFER_FLUSH = "'sink.buffer-flush.max-rows' = '1000000', 'sink.buffer-flush.interval' = '5 s'"
SINK_RE = re.compile(r"(CREATE TABLE sink \((?P<columns>.*?)\)\s*WITH\s*\()(?P<options>.*?)(\)\s*;)", re.S)
KEYS_RE = re.compile(r"(4294967291\), )(\d+)(\) AS BIGINT\),)")


@dataclass(frozen=True)
class Shape:
    """Where a shape's output goes and what of it is compared."""

    updating: bool  # an upsert-kafka topic; else a filesystem folder (csv)
    compare: Optional[tuple[str, ...]] = None  # the columns compared (None: all)
    note: str = ""


SHAPES = {
    "projection": Shape(False), "filter": Shape(False), "tumble": Shape(False), "hop": Shape(False),
    "group_by": Shape(True), "histogram": Shape(True),
    "join_topn": Shape(True, ("region", "amount", "rn"),
                       "amounts tie; which id wins a tie is each engine's choice, so id is not compared"),
    CURVE_SHAPE: Shape(True),
}


def _nexmark() -> Any:
    """benchmarks/nexmark.py (its file: benchmarks/nexmark/ is a package of the same name),
    for NEXMARK_CONF, Memory (peak RSS and PSS, CPU) and create_topic."""
    spec = importlib.util.spec_from_file_location("nexmark_bench", BENCH / "nexmark.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass
class Script:
    """One side's statements for one shape and size, and what its output looks like."""

    conf: dict[str, str]
    statements: list[str]
    columns: list[tuple[str, str]]  # the sink's (name, type)
    events: int


def checked_script(shape: str, rows: int, sink_options: str) -> Script:
    """sql/<shape>.sql at ``rows`` rows, its sink's WITH clause replaced by ``sink_options``."""
    text = (BENCH / "sql" / f"{shape}.sql").read_text()
    text = _substitute(text, "number-of-rows", DEFAULT_ROWS, rows, shape)
    text = _substitute(text, "fields.id.end", DEFAULT_ROWS - 1, rows - 1, shape)
    if shape == CURVE_SHAPE:
        text, n = KEYS_RE.subn(lambda m: f"{m.group(1)}{max(1, rows // 2)}{m.group(3)}", text)
        if n != 1:
            raise SystemExit(f"benchmarks/sql/{shape}.sql: expected one key space to set, found {n}")
    match = SINK_RE.search(text)
    if not match:
        raise SystemExit(f"benchmarks/sql/{shape}.sql: no 'CREATE TABLE sink (...) WITH (...);'")
    columns = [(m.group(1), m.group(2).upper()) for item in match.group("columns").split(",")
               if (m := re.match(r"\s*`?(\w+)`?\s+(\w+)", item)) and m.group(1).upper() != "PRIMARY"]
    text = text[:match.start("options")] + sink_options + text[match.end("options"):]
    events = sum(int(n) for n in re.findall(r"'number-of-rows'\s*=\s*'(\d+)'", text))
    conf: dict[str, str] = {}
    stmts = []
    for stmt in statements(text):
        setting = SET_RE.match(stmt)
        if setting:
            conf[setting.group(1)] = setting.group(2)
        else:
            stmts.append(stmt)
    return Script(conf, stmts, columns, events)


def files_sink(folder: Path) -> str:
    return f"'connector' = 'filesystem', 'path' = '{folder}', 'format' = 'csv'"


def upsert_sink(bootstrap: str, topic: str) -> str:
    """Flink's default value layout (every column), stated: sqlengine's default differs."""
    return (f"'connector' = 'upsert-kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = "
            f"'{bootstrap}', 'key.format' = 'json', 'value.format' = 'json', 'value.fields-include' = 'ALL', "
            f"{BUFFER_FLUSH}")


# ---------------------------------------------------------------- a side (a process of its own)


def child(spec: str) -> None:
    """sqlengine's side: a warmed-up Session (as a running shell), the DDL, the timed INSERT."""
    job = json.loads(Path(spec).read_text())
    sys.path.insert(0, job["root"])
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from sqlengine.api.session import Session
    started = time.perf_counter()
    session = Session(job["conf"])
    session.spark.range(1).count()  # start (and warm up) the JVM outside the timed part
    try:
        from sqlengine.runtime import warmup
        warmup.wait()
    except ImportError:  # an older checkout (--compare)
        pass
    warm = time.perf_counter() - started
    *ddl, insert = job["statements"]
    for stmt in ddl:
        session.execute_sql(stmt)
    started = time.perf_counter()
    session.execute_sql(insert).wait()
    print("RESULT " + json.dumps({"seconds": time.perf_counter() - started, "warmup": warm}), flush=True)


def spawn(cmd: list[str], log: Path, timeout: float, root: Path, memory: Any) -> dict:
    """Run ``cmd`` (a child printing ``RESULT {...}``); its result, wall time, CPU seconds,
    peak RSS and PSS of its process tree (nexmark.py's ``Memory``), or ``failed``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])))
    started = time.perf_counter()
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                cwd=root, env=env)
        sample = memory(proc.pid)
        deadline = time.monotonic() + timeout
        timed_out = ""
        try:
            while proc.poll() is None:
                sample.tick()
                if time.monotonic() > deadline:
                    timed_out = f"timed out after {timeout:.0f} s"
                    break
                time.sleep(0.1)
        finally:  # timed out, or run.py itself interrupted: the side's whole tree goes
            if proc.poll() is None:
                _kill_tree(psutil.Process(proc.pid))
                proc.wait()
    wall = time.perf_counter() - started
    text = log.read_text(errors="replace")
    result = next((json.loads(line[7:]) for line in reversed(text.splitlines()) if line.startswith("RESULT ")),
                  None)
    if proc.returncode != 0 or result is None:
        tail = "\n".join(text.splitlines()[-TAIL_LINES:])
        return {"failed": f"{timed_out or f'exit {proc.returncode}'} ({log}):\n{tail[-4000:]}", "wall": wall}
    result.update(wall=wall, cpu=sum(sample.cpu.values()), rss_mb=sample.peak / 2**20,
                  pss_mb=sample.peak_pss / 2**20)
    return result


# ---------------------------------------------------------------- reading an output back


def typed(frame: Any, columns: list[tuple[str, str]]) -> Any:
    """The sink's columns with one dtype per SQL type: BIGINT/INT int64, DOUBLE float64,
    TIMESTAMP epoch milliseconds (int64), others text."""
    import pandas as pd
    out = pd.DataFrame(index=range(len(frame)))
    for name, sql_type in columns:
        col = frame[name].reset_index(drop=True)
        if sql_type in ("BIGINT", "INT", "INTEGER", "SMALLINT", "TINYINT"):
            out[name] = col.astype("int64")
        elif sql_type in ("DOUBLE", "FLOAT"):
            out[name] = col.astype("float64")
        elif sql_type.startswith("TIMESTAMP"):
            out[name] = pd.to_datetime(col, format="ISO8601").astype("datetime64[ms]").astype("int64")
        else:
            out[name] = col.astype(str)
    return out


def read_folder(folder: Path, columns: list[tuple[str, str]]) -> Any:
    """Every visible part file of a filesystem sink's folder (csv), as one typed frame."""
    import pandas as pd
    import pyarrow as pa
    from pyarrow import csv
    names = [n for n, _ in columns]
    parts = [p for p in sorted(folder.rglob("*")) if p.is_file() and p.stat().st_size
             and not any(x.startswith((".", "_")) for x in p.relative_to(folder).parts)]
    opts = csv.ConvertOptions(column_types={n: pa.string() for n, t in columns if t.startswith("TIMESTAMP")})
    tables = [csv.read_csv(p, read_options=csv.ReadOptions(column_names=names), convert_options=opts)
              for p in parts]
    frame = pa.concat_tables(tables).to_pandas() if tables else pd.DataFrame({n: [] for n in names})
    return typed(frame, columns)


def read_upsert_topic(bootstrap: str, topic: str, columns: list[tuple[str, str]]) -> Any:
    """An upsert-kafka topic materialized: each key's last value; a tombstone deletes it.
    (A key is always written to the same partition, so its records are read in order.)"""
    import io

    import pandas as pd
    from pyarrow import json as pjson

    sys.path.insert(0, str(REPO))
    from benchmarks.kafka_pipeline import read_committed
    last: dict[bytes, Optional[bytes]] = {}
    read_committed(bootstrap, topic, last.__setitem__)
    values = [v for v in last.values() if v is not None]
    if not values:
        return typed(pd.DataFrame({n: [] for n, _ in columns}), columns)
    frame = pjson.read_json(io.BytesIO(b"\n".join(values))).to_pandas()
    return typed(frame, columns)


def digest(frame: Any, compare: Optional[tuple[str, ...]]) -> dict:
    """Row count and an order-independent checksum: the sum (mod 2^64) of the rows' hashes."""
    import numpy as np
    import pandas as pd
    cols = list(compare) if compare else list(frame.columns)
    hashes = pd.util.hash_pandas_object(frame[cols], index=False).to_numpy(dtype=np.uint64)
    return {"rows": int(len(frame)), "checksum": f"{int(hashes.sum(dtype=np.uint64)):016x}"}


def differences(a: Any, b: Any, compare: Optional[tuple[str, ...]], limit: int = 5) -> dict:
    """Up to ``limit`` rows only in ``a`` and only in ``b`` (as multisets)."""
    cols = list(compare) if compare else list(a.columns)
    counts = a[cols].value_counts().sub(b[cols].value_counts(), fill_value=0)

    def rows(selected) -> list[str]:
        return [f"{dict(zip(cols, key if isinstance(key, tuple) else (key,)))} x{abs(int(n))}"
                for key, n in selected.head(limit).items()]
    return {"only_first": rows(counts[counts > 0]), "only_second": rows(counts[counts < 0]),
            "rows_only_first": int(counts[counts > 0].sum()), "rows_only_second": int(-counts[counts < 0].sum())}


# ---------------------------------------------------------------- the rounds


class Harness:
    """The sides, the broker (when an updating shape runs) and every run's record."""

    def __init__(self, args: argparse.Namespace, sides: tuple[str, ...], tmp: Path):
        self.args, self.sides, self.tmp = args, sides, tmp
        self.nexmark = _nexmark()
        self.broker = None
        self.jar = ""
        self.results: dict[str, dict[str, list]] = {}
        self.problems: list[str] = []

    def start_kafka(self) -> None:
        sys.path.insert(0, str(REPO))
        from tests.connectors.kafka.broker import Broker, maven_jars
        if any(s.startswith("flink") for s in self.sides):
            from benchmarks.kafka_pipeline import FLINK_KAFKA
            lib = maven_jars(f"org.apache.flink:flink-sql-connector-kafka:{FLINK_KAFKA}")
            self.jar = f"file://{next(lib.glob('flink-sql-connector-kafka-*.jar'))}"
        (self.tmp / "kafka").mkdir()
        self.broker = Broker(self.tmp / "kafka").start()

    def stop(self) -> None:
        if self.broker is not None:
            self.broker.stop()

    def conf(self, side: str, script: Script) -> dict[str, str]:
        conf = dict(script.conf)
        if side.startswith("flink"):
            if self.jar:
                conf["pipeline.jars"] = self.jar
            if side == "flink-nexmark":
                conf.update(self.nexmark.NEXMARK_CONF)
            return conf
        conf["spark.master"] = "local[2]"
        conf.update(kv.split("=", 1) for kv in self.args.conf)
        return conf

    def command(self, side: str, spec: Path) -> tuple[list[str], Path]:
        if side.startswith("flink"):
            return [self.args.flink_python, str(BENCH / "flink_runner.py"), "--child", str(spec)], REPO
        if side == "before":
            tree = Path(self.args.compare).resolve()
            venv = tree / ".venv" / "bin" / "python"
            return [str(venv if venv.exists() else self.args.python), str(Path(__file__).resolve()),
                    "--child", str(spec)], tree
        return [self.args.python, str(Path(__file__).resolve()), "--child", str(spec)], REPO

    def run_case(self, rnd: int, case: str, shape: str, rows: int) -> None:
        """One round of one shape at one size: every side, then the outputs compared."""
        spec_of = SHAPES[shape]
        runs = self.results.setdefault(case, {})
        first: Optional[tuple[str, Any, dict]] = None
        seen: dict[str, dict] = {}
        for side in order(rnd, self.sides):
            if any(r.get("failed") for r in runs.get(side, [])):
                continue  # a side that failed once is not run again
            tag = f"{case}-{side}-{rnd}".replace("_", "-")
            if spec_of.updating:
                self.nexmark.create_topic(self.broker.bootstrap, tag)
                sink = upsert_sink(self.broker.bootstrap, tag)
            else:
                folder = self.tmp / "out" / tag
                sink = files_sink(folder)
            script = checked_script(shape, rows, sink)
            spec = self.tmp / f"{tag}.json"
            spec.write_text(json.dumps({"side": side, "statements": script.statements,
                                        "conf": self.conf(side, script),
                                        "root": str(self.command(side, spec)[1])}))
            cmd, root = self.command(side, spec)
            res = spawn(cmd, self.tmp / f"{tag}.log", self.args.timeout, root, self.nexmark.Memory)
            res.update(side=side, rows=rows, events=script.events)
            if not res.get("failed"):
                try:
                    frame = (read_upsert_topic(self.broker.bootstrap, tag, script.columns) if spec_of.updating
                             else read_folder(folder, script.columns))
                except Exception as exc:  # an output we cannot read is a failed run, loudly
                    res["failed"] = f"reading its output: {exc!r}"
                else:
                    res["output"] = seen[side] = digest(frame, spec_of.compare)
                    if first is None:
                        first = (side, frame, res["output"])
                    elif res["output"] != first[2]:
                        res["differences"] = differences(first[1], frame, spec_of.compare)
            if not spec_of.updating:
                shutil.rmtree(folder, ignore_errors=True)
            runs.setdefault(side, []).append(res)
            self.report(rnd, case, res, first[0] if first else "")
        runs.setdefault("_check", []).append(self.check(rnd, case, seen))

    def report(self, rnd: int, case: str, res: dict, first: str) -> None:
        head = f"[round {rnd + 1}/{self.args.rounds}] {case:<12} {res['side']:<13}"
        if res.get("failed"):
            self.problems.append(f"round {rnd + 1} {case} {res['side']} FAILED: {res['failed'][-800:]}")
            print(f"{head} FAILED: {res['failed']}", flush=True)
            return
        print(f"{head} {res['seconds']:7.2f} s {res['events'] / res['seconds']:>11,.0f} events/s  "
              f"cpu {res['cpu']:6.1f} s  peak RSS {res['rss_mb']:6,.0f} MB / PSS {res['pss_mb']:6,.0f} MB  "
              f"(process {res['wall']:.1f} s)  output {res['output']['rows']:,} rows {res['output']['checksum']}",
              flush=True)
        if "differences" in res:
            d = res["differences"]
            print(f"!!! MISMATCH: {res['side']} differs from {first}: {d['rows_only_first']:,} rows only in "
                  f"{first}, {d['rows_only_second']:,} only in {res['side']}", flush=True)
            for row in d["only_first"]:
                print(f"!!!   only in {first}: {row}", flush=True)
            for row in d["only_second"]:
                print(f"!!!   only in {res['side']}: {row}", flush=True)

    def check(self, rnd: int, case: str, seen: dict[str, dict]) -> str:
        if len(self.sides) == 1:
            return "not compared (one side)"
        if len(seen) < len(self.sides):
            return "a side failed"
        if len({json.dumps(o, sort_keys=True) for o in seen.values()}) == 1:
            return "ok"
        check = "MISMATCH " + ", ".join(f"{s}: {o['rows']:,} rows {o['checksum']}" for s, o in seen.items())
        self.problems.append(f"round {rnd + 1} {case}: {check}")
        return check


# ---------------------------------------------------------------- summaries


def medians(runs: list[dict]) -> Optional[dict]:
    """A side's medians over its successful rounds (None if it never succeeded)."""
    ok = [r for r in runs if not r.get("failed")]
    if not ok:
        return None
    seconds = statistics.median(r["seconds"] for r in ok)
    return {"seconds": seconds, "events_s": ok[0]["events"] / seconds, "events": ok[0]["events"],
            "rows": ok[0]["rows"], "cpu": statistics.median(r["cpu"] for r in ok),
            "rss_mb": statistics.median(r["rss_mb"] for r in ok),
            "pss_mb": statistics.median(r["pss_mb"] for r in ok),
            "wall": statistics.median(r["wall"] for r in ok), "rounds": len(ok)}


def summarize(results: dict[str, dict[str, list]], sides: tuple[str, ...]) -> list[dict]:
    rows = []
    for case, by_side in results.items():
        row: dict[str, Any] = {"case": case}
        for side in sides:
            row[side] = medians(by_side.get(side, []))
        flinks = [s for s in FLINK_CONFIGS if row.get(s)]
        row["flink_best"] = max(flinks, key=lambda s: row[s]["events_s"]) if flinks else None
        best, eng = row.get(row["flink_best"] or ""), row.get("sqlengine")
        row["ratio"] = eng["events_s"] / best["events_s"] if eng and best else None
        if "before" in sides and eng and row.get("before"):
            row["now_before"] = eng["events_s"] / row["before"]["events_s"]
        checks = by_side.get("_check", [])
        bad = sorted({c for c in checks if c not in ("ok", "not compared (one side)")})
        outputs = [r["output"]["rows"] for r in by_side.get("sqlengine", []) if r.get("output")]
        row["check"] = (f"{checks[0]} ({outputs[0]:,} rows)" if checks and not bad and outputs else
                        "; ".join(bad) if bad else "-")
        rows.append(row)
    return rows


def _cell(summary: Optional[dict], key: str, fmt: str) -> str:
    return fmt.format(summary[key]) if summary else "FAILED"


def shapes_table(rows: list[dict], sides: tuple[str, ...]) -> str:
    flinks = [s for s in FLINK_CONFIGS if s in sides]
    head = ["shape", "events", "sqlengine s"]
    head += [f"Flink s ({' / '.join(FLINK_CONFIGS[s] for s in flinks)})"] if flinks else []
    head += ["sqlengine events/s", "Flink events/s (config)", "ratio", "sqlengine CPU s", "Flink CPU s",
             "sqlengine peak RSS / PSS MB", "Flink peak RSS / PSS MB", "output"]
    if "before" in sides:
        head += ["before events/s", "now/before"]
    table = [tuple(head)]
    for row in rows:
        eng, best = row.get("sqlengine"), row.get(row["flink_best"] or "")
        some = eng or best or {}
        line = [row["case"], f"{some.get('events', 0):,}", _cell(eng, "seconds", "{:,.1f}")]
        if flinks:
            line.append(" / ".join(_cell(row.get(s), "seconds", "{:,.1f}") for s in flinks))
        cfg = FLINK_CONFIGS.get(row["flink_best"] or "", "")
        line += [_cell(eng, "events_s", "{:,.0f}"),
                 f"{_cell(best, 'events_s', '{:,.0f}')} ({cfg})" if best else ("FAILED" if flinks else "-"),
                 f"{row['ratio']:.2f}x" if row["ratio"] else "-",
                 _cell(eng, "cpu", "{:,.1f}"), _cell(best, "cpu", "{:,.1f}") if flinks else "-",
                 f"{_cell(eng, 'rss_mb', '{:,.0f}')} / {_cell(eng, 'pss_mb', '{:,.0f}')}",
                 (f"{_cell(best, 'rss_mb', '{:,.0f}')} / {_cell(best, 'pss_mb', '{:,.0f}')}" if flinks else "-"),
                 row["check"]]
        if "before" in sides:
            line += [_cell(row.get("before"), "events_s", "{:,.0f}"),
                     f"{row['now_before']:.2f}x" if row.get("now_before") else "-"]
        table.append(tuple(line))
    return markdown(table)


def curve_table(rows: list[dict], sides: tuple[str, ...]) -> str:
    flinks = [s for s in FLINK_CONFIGS if s in sides]
    head = ["rows", "keys", "sqlengine s"] + [f"Flink s ({FLINK_CONFIGS[s]})" for s in flinks]
    head += ["ratio (vs Flink's faster)", "sqlengine peak RSS MB", "Flink peak RSS MB", "output"]
    table = [tuple(head)]
    for row in rows:
        eng, best = row.get("sqlengine"), row.get(row["flink_best"] or "")
        n = int(row["case"])
        table.append((f"{n:,}", f"{n // 2:,}", _cell(eng, "seconds", "{:,.1f}"),
                      *[_cell(row.get(s), "seconds", "{:,.1f}") for s in flinks],
                      f"{row['ratio']:.2f}x" if row["ratio"] else "-", _cell(eng, "rss_mb", "{:,.0f}"),
                      _cell(best, "rss_mb", "{:,.0f}") if flinks else "-", row["check"]))
    text = markdown(table)
    for side in ("sqlengine",) + tuple(flinks):
        pts = [(int(r["case"]), r[side]["seconds"]) for r in rows if r.get(side)]
        if len(pts) >= 2 and pts[-1][0] > pts[0][0]:
            per_row = (pts[-1][1] - pts[0][1]) / (pts[-1][0] - pts[0][0]) * 1e6
            text += f"\n{side}: {per_row:.2f} µs per extra row ({pts[0][0]:,} -> {pts[-1][0]:,} rows)"
    return text


def curve_chart(rows: list[dict], sides: tuple[str, ...], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    labels = {"sqlengine": "sqlengine", "flink": "Flink 2.3, defaults",
              "flink-nexmark": "Flink 2.3, Nexmark's configuration", "before": "sqlengine before"}
    for side in sides:
        pts = [(int(r["case"]) / 1e6, r[side]["seconds"]) for r in rows if r.get(side)]
        if pts:
            ax.plot(*zip(*pts), marker="o", label=labels.get(side, side))
    ax.set_xlabel("rows (millions; keys = rows / 2)")
    ax.set_ylabel("seconds (the INSERT's job, median)")
    ax.set_title("GROUP BY bidder: COUNT(*), MAX(price); parallelism 2")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=90)


# ---------------------------------------------------------------- main


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rows", type=int, default=DEFAULT_ROWS, help="rows of the event table (src)")
    parser.add_argument("--only", choices=PIPELINES, action="append", help="this shape only (repeatable)")
    parser.add_argument("--curve", action="store_true",
                        help="the GROUP BY of sql/state_growth.sql at each of --curve-rows instead of the shapes")
    parser.add_argument("--curve-rows", default=",".join(map(str, CURVE_ROWS)))
    parser.add_argument("--no-flink", action="store_true", help="sqlengine only (nothing to compare with)")
    parser.add_argument("--flink-configs", default="flink,flink-nexmark",
                        help="Flink's sides: flink (its defaults), flink-nexmark (Nexmark's configuration)")
    parser.add_argument("--compare", metavar="TREE", help="also sqlengine of this checkout (side 'before')")
    parser.add_argument("--flink-python", default=FLINK_PYTHON,
                        help="interpreter with apache-flink installed (env FLINK_PYTHON)")
    parser.add_argument("--python", default=default_python(),
                        help="interpreter of sqlengine's side (default: the project's .venv)")
    parser.add_argument("-D", dest="conf", action="append", default=[], metavar="KEY=VALUE",
                        help="extra configuration of every sqlengine run")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per process")
    parser.add_argument("--json", help="default: benchmarks/results/run.json (run_curve.json with --curve)")
    parser.add_argument("--chart", default=str(BENCH / "results" / "run_curve.png"), help="--curve's PNG")
    return parser.parse_args(argv)


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that the broker and a running side stop
    sides = ("sqlengine",) + (() if args.no_flink else
                              tuple(s for s in args.flink_configs.split(",") if s in FLINK_CONFIGS))
    if args.compare:
        sides += ("before",)
    if args.curve:
        cases = [(str(n), CURVE_SHAPE, n) for n in (int(x) for x in args.curve_rows.split(",") if x)]
    else:
        cases = [(p, p, args.rows) for p in (tuple(args.only) if args.only else PIPELINES)]
    info = machine_info()
    print(f"{'curve ' + args.curve_rows if args.curve else f'rows={args.rows:,}'} rounds={args.rounds} "
          f"sides={','.join(sides)} master=local[2] cpus={info['cpus']} load={info['load_avg']}", flush=True)
    warn_if_busy()
    with tempfile.TemporaryDirectory(prefix="sqlengine-bench-") as tmp:
        harness = Harness(args, sides, Path(tmp))
        try:
            if any(SHAPES[shape].updating for _, shape, _ in cases):
                harness.start_kafka()
            for rnd in range(args.rounds):
                for case, shape, rows in cases:
                    harness.run_case(rnd, case, shape, rows)
        finally:
            harness.stop()
    rows = summarize(harness.results, sides)
    print()
    print(curve_table(rows, sides) if args.curve else shapes_table(rows, sides))
    notes = {s: SHAPES[s].note for _, s, _ in cases if SHAPES[s].note}
    for shape, note in notes.items():
        print(f"{shape}: compared {', '.join(SHAPES[shape].compare)} ({note})")
    info["load_avg_after"] = [round(x, 2) for x in os.getloadavg()]
    path = Path(args.json or BENCH / "results" / ("run_curve.json" if args.curve else "run.json"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mode": "curve" if args.curve else "shapes", "rows": args.rows,
                                "curve_rows": args.curve_rows if args.curve else None, "rounds": args.rounds,
                                "sides": sides, "master": "local[2]", "machine": info,
                                "flink_nexmark_conf": harness.nexmark.NEXMARK_CONF,
                                "upsert_kafka_buffer": BUFFER_FLUSH, "summary": rows,
                                "runs": harness.results}, indent=1) + "\n")
    print(f"wrote {path}")
    if args.curve:
        try:
            curve_chart(rows, sides, Path(args.chart))
            print(f"wrote {args.chart}")
        except ImportError as exc:
            print(f"no chart: {exc}")
    if harness.problems:
        print("\n!!! MISMATCH / FAILURE !!!", file=sys.stderr)
        for problem in harness.problems:
            print(f"!!! {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(sys.argv[2])
    else:
        sys.exit(main())
