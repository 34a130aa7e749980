"""Python worker processes started while nothing else runs, before the first query needs them.

Every connector of sqlengine that reads or writes outside Spark (kafka, filesystem, jdbc)
is a Python data source or writes through ``mapInArrow``. Spark starts the Python
processes these need on first use, one kind at a time and each on the first query's
critical path: a daemon per worker module (``create_data_source`` when a query names the
source, ``plan_data_source_read`` when its first batch is planned, ``pyspark.worker`` when
its tasks start), each a fresh interpreter importing PySpark, then the forked workers,
each importing PyArrow. Measured on the 2-core development machine (benchmarks/README.md,
"Python workers started ahead"), a Kafka → Kafka INSERT as a session's first query spent
~1.2 CPU s and ~1 s of wall clock on them.

Flink's SQL Client runs its first job on a TaskManager that is already up. So does
sqlengine's: right after the SparkSession starts, a background thread runs one tiny batch
job through the same paths (a Python data source read by ``min(default parallelism, 4)``
tasks, then ``mapInArrow``), which leaves the daemons running and their workers idle for
reuse (``spark.python.worker.reuse``; Spark stops a worker idle for a minute, the daemons
stay) while the user writes the first query (the shell, a notebook, the Python API). It pays off only when the session has that idle time: started
at the same moment as the query, it competes with it for the cores (measured: no gain
for an INSERT that follows at once, and 1-2 s more for a 5-10 s script over ``datagen``
on 2 cores). So ``sqlengine -f`` (a script: no idle time) does not start it, the shell
starts it once its prompt has waited 2 s for input (a first statement typed at once runs
alone: ``SELECT 1`` right after start-up took 6.1 s instead of 5.0 s when both ran), and
``spark.sqlengine.prestartPythonWorkers=false`` turns it off everywhere. The job
runs under its own job group and description; any failure is only logged (a query then
starts the processes itself, as before).
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable, Iterator, Optional

from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

SOURCE_NAME = "sqlengine_warmup"
CONF = "spark.sqlengine.prestartPythonWorkers"
JOB_GROUP = "sqlengine-warmup"
MAX_TASKS = 4
log = logging.getLogger("sqlengine.warmup")
_thread: Optional[threading.Thread] = None
# Whether ``get_spark`` starts it with the SparkSession (the Python API and notebooks); the
# CLI sets False: ``-f`` scripts never start it, the shell when its prompt is idle.
AT_START = True
_lock = threading.Lock()


class _Reader(DataSourceReader):
    def __init__(self, tasks: int):
        self.tasks = tasks

    def partitions(self) -> list[InputPartition]:
        return [InputPartition(i) for i in range(self.tasks)]

    def read(self, partition: InputPartition) -> Iterator[tuple]:
        yield (partition.value,)


class WarmupSource(DataSource):
    @classmethod
    def name(cls) -> str:
        return SOURCE_NAME

    def schema(self) -> str:
        return "p int"

    def reader(self, schema) -> DataSourceReader:
        return _Reader(int(self.options.get("tasks", "1")))


def _same(batches):
    yield from batches


def enabled(spark) -> bool:
    conf = spark.sparkContext.getConf()
    return (conf.get(CONF, "true").strip().lower() != "false"
            and conf.get("spark.python.worker.reuse", "true").strip().lower() != "false")


def run(spark) -> None:
    """The warm-up job (blocking): the Python data sources looked up, the daemons started."""
    sc = spark.sparkContext
    manager = spark._jsparkSession.sessionState().dataSourceManager()
    # Spark looks up pip-installed Python data sources once per JVM, in a process of its own.
    manager.dataSourceExists("sqlengine")
    if not manager.dataSourceExists(SOURCE_NAME):
        spark.dataSource.register(WarmupSource)
    tasks = max(1, min(sc.defaultParallelism, MAX_TASKS))
    sc.setJobGroup(JOB_GROUP, "sqlengine: starting Python workers ahead of the first query")
    try:
        df = spark.read.format(SOURCE_NAME).option("tasks", str(tasks)).load()
        # An exchange between the read and ``mapInArrow``, as a query has between its
        # source and its sink: in one stage each task would hold two workers at once
        # (the read's and mapInArrow's), and the pool, reused first in first out, would
        # keep twice the workers a query uses in rotation, each growing to a reader's size.
        got = df.repartition(tasks).mapInArrow(_same, "p int").count()
        if got != tasks:
            log.warning("Python worker warm-up read %s rows, expected %s", got, tasks)
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
        sc.setLocalProperty("spark.job.description", None)


def start(spark: Any = None, session: Optional[Callable[[], Any]] = None) -> None:
    """``run`` in a background thread (errors logged, never raised), once per process,
    on ``spark``, or on what ``session()`` returns (the shell's idle prompt: Spark may
    still be starting; it waits for it, and returns None if there is none)."""
    global _thread
    with _lock:
        if _thread is not None:
            return
        _thread = threading.Thread(target=_body, args=(spark, session), name="sqlengine-warmup", daemon=True)
    _thread.start()


def _body(spark: Any, session: Optional[Callable[[], Any]]) -> None:
    try:
        if spark is None:
            spark = session() if session is not None else None
            if spark is None or not enabled(spark):
                return
        run(spark)
    except Exception:  # noqa: BLE001 - the first query starts the processes itself then
        log.debug("Python worker warm-up failed", exc_info=True)


def skip_data_source_lookup(spark) -> bool:
    """Spark looks up pip-installed Python data sources (packages named ``pyspark_*``) once
    per JVM, when a session first registers or names a Python data source: a Python process
    of its own (a daemon and its worker, which then stay idle for the JVM's life) importing
    every such package on the path. sqlengine's connectors register their data sources
    themselves, and nothing here resolves a Spark data source by any other name, so the
    lookup's result is set to "none found" before it would run, through the hook Spark keeps
    for its tests (``DataSourceManager.dataSourceBuilders``): one Python interpreter fewer at
    start-up and ~50 MB less for the process's life. A JVM that looked up already keeps what
    it found; on a Spark without the hook the lookup runs in the background at start
    (``look_up_data_sources``). Returns whether the lookup is skipped."""
    try:
        jvm = spark._jvm
        manager = jvm.java.lang.Class.forName(
            "org.apache.spark.sql.execution.datasources.DataSourceManager$").getField("MODULE$").get(None)
        if manager.dataSourceBuilders().isEmpty():
            none_found = jvm.org.apache.spark.api.python.PythonUtils.toScalaMap(jvm.java.util.HashMap())
            getattr(manager, "dataSourceBuilders_$eq")(jvm.scala.Some(none_found))
        return True
    except Exception:  # noqa: BLE001 - another Spark: it looks up as it always did
        log.debug("Python data source lookup not skipped", exc_info=True)
        return False


def look_up_data_sources(spark) -> None:
    """Spark's lookup of pip-installed Python data sources (``skip_data_source_lookup``),
    done in the background when the session starts, while the first statement is planned."""

    def look_up() -> None:
        try:
            spark._jsparkSession.sessionState().dataSourceManager().dataSourceExists("sqlengine")
        except Exception:  # noqa: BLE001 - the first query does it then
            pass

    threading.Thread(target=look_up, name="python-data-source-lookup", daemon=True).start()


def wait(timeout: float = 120) -> None:
    """Until the warm-up started by ``start`` has ended (tests and benchmarks)."""
    if _thread is not None:
        _thread.join(timeout)
