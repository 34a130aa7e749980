"""Creating the one SparkSession a process uses, configured for Flink semantics.

What a user sees is ours, not Spark's: the driver JVM is started with our log4j2
configuration (``log4j2.properties`` next to this file), which writes Spark's log to
the run's log file (sqlengine/logs.py), and with its stdout/stderr redirected to
that file too, for the lines the JVM prints before log4j is configured.
"""
from __future__ import annotations

import os
import re
import shutil
import sys
import threading
from pathlib import Path
from typing import Optional

LOG4J2_CONFIG = Path(__file__).with_name("log4j2.properties")
DRIVER_JAVA_OPTIONS = "spark.driver.extraJavaOptions"
OPTIMIZER_EXCLUDED_RULES = "spark.sql.optimizer.excludedRules"
EXECUTOR_JAVA_OPTIONS = "spark.executor.extraJavaOptions"

_DEFAULTS = {
    "spark.master": "local[*]",
    "spark.app.name": "sqlengine",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    # Time values travel as UTC instants (see sqlengine/types.py).
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.shuffle.partitions": "8",
    # The operator DAG decides the exchanges; AQE would rewrite them.
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.ansi.enabled": "false",
    # Flink SQL has no lateral column aliases; Spark's would resolve a column referenced
    # inside a lambda (MAP_UNION's, ARRAY_REMOVE's) to a same-named output column
    # of the projection being built (all named f0, f1, ... by the lowering).
    "spark.sql.lateralColumnAlias.enableImplicitResolution": "false",
    "spark.sql.streaming.forceDeleteTempCheckpointLocation": "true",
    # PruneFilters drops a filter its input's constraints already imply; it derives those
    # constraints again on every pass, and over a Kafka JSON source's decoding (a 78 KB
    # plan) that was a quarter of each optimization while it removed nothing: ~0.4 s of
    # an epoch's ~1 s of Catalyst rules (q1 over Kafka, epochs of 5,000 rows: 3.8-4.5 s of
    # rules in 4 epochs -> 2.6 s; benchmarks/README.md). It never changes a result, only
    # drops a filter that is always true or empties an input that is always filtered out.
    OPTIMIZER_EXCLUDED_RULES: "org.apache.spark.sql.catalyst.optimizer.PruneFilters",
    # A driver out of memory exits (reported as a dead driver) instead of limping on.
    # HotSpot never compiles a method of more than 8,000 bytes of bytecode
    # (DontCompileHugeMethods); whole-stage codegen of a wide decoding projection (a JSON
    # source's, with its per-field checks) is larger, and ran interpreted: a quarter of
    # the task CPU of a Kafka JSON scan (benchmarks/README.md, "Kafka -> SQL -> Kafka").
    # Only the JIT's policy changes; Spark users commonly set it.
    # HotSpot's optimizing compiler (C2) takes a method once it ran 5,000 times (15,000
    # with its loops): in this JVM that is also Spark's planning code, which every epoch
    # runs again (Catalyst, Janino, serialization), so C2 spent 40-55% of the JVM's CPU at
    # Nexmark's 10M events, more than the tasks. Ten times those thresholds leave C2 the
    # code that runs per row (millions of times), and C1 the rest: 2-7 JVM CPU seconds less
    # and faster at 100K, 1M and 10M events on q3 and q8 (benchmarks/README.md,
    # nexmark_cpu.py); C1 alone made the tasks' code 2.5x slower.
    DRIVER_JAVA_OPTIONS: "-Dio.netty.tryReflectionSetAccessible=true -XX:+ExitOnOutOfMemoryError "
                         "-XX:-DontCompileHugeMethods -XX:Tier4InvocationThreshold=50000 "
                         "-XX:Tier4MinInvocationThreshold=6000 -XX:Tier4CompileThreshold=150000 "
                         "-XX:Tier4BackEdgeThreshold=400000",
    EXECUTOR_JAVA_OPTIONS: "-XX:-DontCompileHugeMethods",  # executors of a cluster run the same code
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    # PySpark would record the Python call site of every DataFrame call (several JVM
    # round trips each) for Spark's error context; our errors name the SQL instead.
    "spark.python.sql.dataFrameDebugging.enabled": "false",
    "spark.python.worker.reuse": "true",
    # glibc gives each thread that allocates an arena of its own (up to 8 per core) and keeps
    # what is freed in it: a Python worker's librdkafka threads (a Kafka reader's consumer, a
    # writer's producer) left memory retained in each. Two arenas per worker process (as
    # Hadoop's YARN caps its containers' with MALLOC_ARENA_MAX): Nexmark's q0 peaked at 1,766
    # MB RSS over the process tree instead of 1,873 at 4M events, 2,198 instead of 2,291 at
    # 10M, in the same time (benchmarks/README.md). Python workers (and a cluster's executors)
    # start with the executors' environment; the driver JVM keeps its own.
    "spark.executorEnv.MALLOC_ARENA_MAX": "2",
    # Arrow's buffers in the Python workers come from glibc's malloc (in those two arenas),
    # not from the mimalloc pool pyarrow 2x uses by default, which kept freed pages of each
    # batch decoded and sent: Nexmark's q1 at 4M events peaked at 1,747-1,753 MB RSS over the
    # process tree instead of 1,849-1,884 (PSS 1,364 against 1,465-1,490), in the same time or
    # less (30.3-31.8 s against 31.1-34.2; benchmarks/README.md).
    "spark.executorEnv.ARROW_DEFAULT_MEMORY_POOL": "system",
    # Spark's unified memory (cached blocks and execution) is this share of the heap above
    # 300 MB; the rest holds everything else a task and the driver keep. At Spark's 0.6 a
    # local driver's 1 GB heap ran out with an epoch's cache at the limit: a block that
    # did not fit went to disk and was unrolled into memory again on every read (Nexmark's
    # q20 at 10M events died in three runs of three; at 0.3 it completed). With the 2 GB
    # heap below, 0.5 (benchmarks/README.md, "Uncompressed caches, half the heap"); a
    # smaller heap keeps 0.3 (driver_conf).
    "spark.memory.fraction": "0.5",
    # An epoch's persisted frames (its input where two branches read it, join deltas,
    # state read once and used twice) are cached uncompressed: choosing each column's
    # encoding costs more than the memory saves (Nexmark's q9 at 10M events 132 s against
    # 153 s compressed). The caches take several times the memory: at a unified share of
    # 0.3, Nexmark's q16 at 10M events failed in 3 runs of 4 with AGGREGATE_OUT_OF_MEMORY
    # (a partial aggregation in the task that also fills the epoch's input cache); at 0.5,
    # 5 of 5 completed.
    "spark.sql.inMemoryColumnarStorage.compressed": "false",
    # Spark keeps the classes it compiled for 100 distinct generated sources (a stage's
    # code, a projection's, a cached frame's column reader), least recently used first out.
    # An epoch lowers the same operators again and generates the same sources, but a
    # stateful job's epoch has more than 100 of them: each epoch evicted the classes the
    # next one needed, so it compiled them all again (Janino on the driver's thread, then
    # the JIT's C2 on each new class's hot loops). Nexmark's q4 at 10M events compiled 657
    # classes in 11 epochs with 100 entries, 197 (none after its third epoch) with more:
    # 91-95 s -> 75 s (benchmarks/README.md, "Generated classes kept across epochs").
    # Bounded: a class is a few KB of metaspace.
    "spark.sql.codegen.cache.maxEntries": "1000",
    # The driver's heap (Spark's default: 1g). In local mode the driver runs every task,
    # and 1 GB was the edge for Nexmark's wide joins at 10M events: q20 died with the
    # heap exhausted or UNABLE_TO_ACQUIRE_MEMORY in two runs of three, q9 in every run
    # (an epoch's persisted deltas, read from disk, are unrolled into memory again on each
    # read). 2g completed them (benchmarks/README.md); the serial collector still takes it
    # (at most 2 GiB, below), and the heap grows to it only when what is live needs it.
    "spark.driver.memory": "2g",
}


_prestart: Optional[threading.Thread] = None


def prestart(conf: Optional[dict[str, str]] = None) -> None:
    """Start creating the SparkSession in the background.

    The JVM takes seconds to start, mostly in its own process; the CLI calls this
    first and imports the planner meanwhile. ``get_spark`` waits for it; a failure
    here is raised again, with its real cause, by that call.
    """
    global _prestart
    if _prestart is not None:
        return

    def start() -> None:
        try:
            get_spark(conf)
        except BaseException:  # noqa: BLE001 - get_spark in the caller's thread reports it
            pass

    _prestart = threading.Thread(target=start, name="spark-prestart", daemon=True)
    _prestart.start()


def started_session():
    """The SparkSession once the background start (``prestart``) has ended, or None."""
    if _prestart is not None:
        _prestart.join()
    from pyspark.sql import SparkSession
    spark = SparkSession._instantiatedSession
    return spark if spark is not None and spark._sc._jsc is not None else None


def get_spark(conf: Optional[dict[str, str]] = None):
    """The process's SparkSession; created on first use with ``conf`` over the defaults.

    Python workers must run the driver's interpreter, so ``PYSPARK_PYTHON`` is pinned
    to ``sys.executable`` before the JVM starts.
    """
    if _prestart is not None and _prestart is not threading.current_thread():
        _prestart.join()
        from pyspark.sql import SparkSession
        started = SparkSession._instantiatedSession
        if started is not None and started._sc._jsc is not None:
            # The JVM's active session is per thread: make it this thread's too, or
            # lookups by name (Python data sources) miss the session's registrations.
            started._jvm.SparkSession.setActiveSession(started._jsparkSession)
            return started
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    merged = driver_conf(conf)
    ours = _launch_gateway(merged)
    builder = SparkSession.builder
    for key, value in merged.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    from sqlengine.runtime import py4j_cache
    py4j_cache.install()  # every epoch builds its plans anew: fewer JVM round trips for that
    _quiet_accumulator_server(spark.sparkContext)
    from sqlengine.runtime import warmup
    skipped = warmup.skip_data_source_lookup(spark)
    if warmup.AT_START and warmup.enabled(spark):
        warmup.start(spark)  # which looks up the Python data sources too, unless skipped
    elif not skipped:
        warmup.look_up_data_sources(spark)
    if not ours:  # a JVM we did not start logs where it was told; keep it quiet
        spark.sparkContext.setLogLevel("ERROR")
    return spark


def _quiet_accumulator_server(sc) -> None:
    """PySpark's accumulator server prints a failed request (the JVM hanging up while
    the process exits) to stderr with ``socketserver``'s ``handle_error``: log it instead."""
    server = getattr(sc, "_accumulatorServer", None)
    if server is not None:
        server.handle_error = _log_server_error


def _log_server_error(request: object, client_address: object) -> None:
    from sqlengine.logs import file_logger
    file_logger().warning("PySpark accumulator server: a request from %s failed", client_address, exc_info=True)


def driver_conf(conf: Optional[dict[str, str]]) -> dict[str, str]:
    """The defaults, then ``conf``; the user's driver and executor Java options, and the
    optimizer rules they exclude, keep ours."""
    merged = dict(_DEFAULTS)
    merged.update(conf or {})
    for key, separator in ((DRIVER_JAVA_OPTIONS, " "), (EXECUTOR_JAVA_OPTIONS, " "), (OPTIMIZER_EXCLUDED_RULES, ",")):
        user = (conf or {}).get(key)
        if user:
            merged[key] = f"{_DEFAULTS[key]}{separator}{user}"
    if _serial_gc_fits(merged):
        merged[DRIVER_JAVA_OPTIONS] += " -XX:+UseSerialGC"
    heap = _mebibytes(merged.get("spark.driver.memory", "1g"))
    if "spark.memory.fraction" not in (conf or {}) and heap is not None and heap < 2048:
        # A heap smaller than our 2g leaves less room beside an epoch's caches: the share
        # with which Nexmark's q20 at 10M events completed on a 1 GB heap.
        merged["spark.memory.fraction"] = SMALL_HEAP_MEMORY_FRACTION
    if merged["spark.master"].startswith("local") and "spark.locality.wait" not in (conf or {}):
        # One executor: no locality to wait for. Tasks reading HDFS blocks (state on
        # hdfs://) prefer the DataNode's host, which is not the executor's; local mode
        # offers resources only when a task starts or ends, so a task waiting for its
        # locality level to lapse could wait for ever.
        merged["spark.locality.wait"] = "0s"
    return merged


# Spark's unified-memory share for a driver heap below 2 GiB (``driver_conf``).
SMALL_HEAP_MEMORY_FRACTION = "0.3"
# The driver's heap up to which its JVM collects garbage with the serial collector.
SERIAL_GC_MAX_HEAP_MIB = 2048
_GC_CHOICE = re.compile(r"-XX:\+Use\w*GC\b")
_SIZE = re.compile(r"^\s*(\d+)\s*([kmgtp]?b?)\s*$", re.IGNORECASE)
_MIB_PER = {"b": 1 / (1 << 20), "k": 1 / 1024, "": 1, "m": 1, "g": 1024, "t": 1 << 20, "p": 1 << 30}


def _serial_gc_fits(merged: dict[str, str]) -> bool:
    """The driver JVM collects with HotSpot's serial collector when its heap
    (``spark.driver.memory``, 2g unless set) is at most 2 GiB and no Java option
    picks a collector (two would stop the JVM from starting).

    On such a heap G1 (HotSpot's choice on a machine of two cores or more) costs more than
    it saves: it grows the heap to its maximum early, keeps remembered sets, and runs
    concurrent marking and refinement threads beside the tasks. Measured on Nexmark at 10M
    events (benchmarks/README.md): peak RSS of the driver JVM 1,056 -> 712 MB on q0 and
    1,500 -> 1,080 MB on q3, the JVM's GC CPU about halved, times unchanged within noise;
    the longest pause 313 ms (q7, a full collection of the 1 GB heap). A larger heap keeps
    HotSpot's choice: the serial collector's pauses grow with the heap, one thread does
    the work."""
    if _GC_CHOICE.search(merged.get(DRIVER_JAVA_OPTIONS, "")):
        return False
    mib = _mebibytes(merged.get("spark.driver.memory", "1g"))
    return mib is not None and mib <= SERIAL_GC_MAX_HEAP_MIB


def _mebibytes(size: str) -> Optional[float]:
    """A Spark memory size (``1g``, ``512mb``, ``2048``: MiB without a unit, ``b`` bytes)
    in MiB; None for what Spark itself would reject."""
    m = _SIZE.match(size or "")
    if m is None:
        return None
    unit = m.group(2).lower()
    return int(m.group(1)) * _MIB_PER[unit.rstrip("b") if len(unit) > 1 else unit]


def _quoted(value: str) -> str:
    return f'"{value}"' if any(c.isspace() for c in value) else value


def _launch_gateway(merged: dict[str, str]) -> bool:
    """Start the driver JVM logging to the log file; False if a JVM already runs.

    PySpark would start it with the terminal as its stdout/stderr; started here,
    with the same ``spark-submit`` command, SparkContext adopts it.
    """
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway
    from sqlengine.logs import log_path

    if SparkContext._gateway is not None or "PYSPARK_GATEWAY_PORT" in os.environ:
        return False
    from sqlengine.runtime import classdata

    home = workers_spark_home()
    if home is not None:
        os.environ["SPARK_HOME"] = str(home)

    cds = classdata.plan(merged)  # keyed by the Java options before the log file's name
    log = log_path()
    merged[DRIVER_JAVA_OPTIONS] += (f" -Dlog4j2.configurationFile={_quoted(LOG4J2_CONFIG.as_uri())}"
                                    f" -Dsqlengine.log.file={_quoted(str(log))}")
    with open(log, "ab") as out:  # the child keeps its own descriptor
        start = out.seek(0, os.SEEK_END)

        def launch(java_options: str):
            conf = dict(merged, **{DRIVER_JAVA_OPTIONS: java_options})
            return launch_gateway(SparkConf(loadDefaults=False).setAll(list(conf.items())),
                                  popen_kwargs={"stdout": out, "stderr": out})
        try:
            if cds is None:
                gateway = launch(merged[DRIVER_JAVA_OPTIONS])
            else:
                try:
                    gateway = launch(f"{merged[DRIVER_JAVA_OPTIONS]} {cds.java_option}")
                except Exception:  # noqa: BLE001 - a broken archive? start without it
                    try:
                        gateway = launch(merged[DRIVER_JAVA_OPTIONS])
                    except Exception:  # not the archive (a bad master, say): keep it for the next start
                        cds.release()
                        raise
                    cds.discard()  # it started without: the archive was the cause
                    cds = None
        except Exception as exc:  # JAVA_GATEWAY_EXITED: the reason is what the JVM printed
            raise _not_started(log, start) from exc
    if cds is not None:
        cds.started(getattr(gateway, "proc", None))
    SparkContext._ensure_initialized(gateway=gateway)
    return True


def workers_spark_home() -> Optional[Path]:
    """A ``SPARK_HOME`` for the driver under which Python workers import the installed
    PySpark (None: keep the user's ``SPARK_HOME`` if it is not the PySpark package's
    own folder, or nothing to gain).

    Spark puts ``$SPARK_HOME/python/lib/pyspark.zip`` (and py4j's zip) first on every
    Python worker's path, and Python compiles what it imports from a zip on every
    import: no bytecode cache. Each fresh Python process Spark starts paid ~0.55 s for
    it on the 2-core development machine (0.88 s against 0.30 s to import a streaming
    source's runner), and a streaming query starts one per Python data source: starting
    a query over one file source went from 1.56 s to 1.02 s. A pip-installed PySpark
    has the same modules in site-packages, compiled once, so the driver starts with a
    home in the user's cache that links PySpark's folders (``bin``, ``jars``, ...) but
    not ``python``: the zips' entries on the workers' path then point at nothing and
    the workers import the installed package, the same version as the driver's.
    """
    import hashlib

    import pyspark
    from sqlengine.runtime.classdata import cache_dir

    package = Path(os.path.realpath(os.path.dirname(pyspark.__file__)))
    user = os.environ.get("SPARK_HOME")
    if user and os.path.realpath(user) != str(package):  # a Spark of the user's own
        return None
    if not (package / "jars").is_dir() or not (package / "python" / "lib" / "pyspark.zip").exists():
        return None
    digest = hashlib.sha1(f"{package}\n{pyspark.__version__}".encode()).hexdigest()[:12]
    home = cache_dir().parent / f"spark-home-{digest}"
    if home.is_dir():
        return home
    tmp = home.with_name(f"{home.name}.{os.getpid()}.tmp")
    try:
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        for entry in package.iterdir():
            if entry.name not in ("python", "__pycache__"):
                (tmp / entry.name).symlink_to(entry)
        os.rename(tmp, home)  # atomic; another process may have made it meanwhile
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        return home if home.is_dir() else None
    return home


def _not_started(log: Path, start: int) -> Exception:
    from sqlengine.errors import ExecutionError
    from sqlengine.runtime.failure import reason_in

    with open(log, "rb") as f:
        f.seek(start)
        said = f.read().decode("utf-8", "replace")
    return ExecutionError(f"The Spark driver (JVM) did not start: {reason_in(said) or 'no output'}")
