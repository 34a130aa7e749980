"""The contract between the runtime and every connector.

Lifecycle of a source: the runtime builds a ``ScanContext`` for a table scan and
calls the factory's ``scan(ctx)``; the connector pops every option it knows from
``ctx.options`` and calls ``ctx.options.finish()`` (leftover keys are an error that
lists the valid ones), then returns a ``ScanResult``: a Spark DataFrame with the
table's physical columns plus the boolean column ``__eoi``.

End of input (Flink semantics, see DESIGN.md): a *bounded* source, in streaming
mode, emits exactly one extra row with ``__eoi = true`` after all its data rows
(all other columns null), in a later micro-batch than any data row, and then at
least one more micro-batch (possibly empty), so that Spark's watermark, pushed to
the maximum by the runtime when it sees the ``__eoi`` row, fires every window.
``end_check`` tells the runtime, from Spark's progress report for this source,
when that has happened and the query may be stopped. In batch mode no ``__eoi``
row is emitted (the column is all false) and ``end_check`` is ignored.

Sinks: the runtime hands ``write_batch``/``write_epoch`` a DataFrame whose columns
are the sink's columns (Spark types from ``DataType.to_spark()``), plus ``__op``
(``+I``/``-U``/``+U``/``-D``) when the input is an updating changelog.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional

from sqlengine.errors import ConnectorError
# The hidden columns a source adds and a sink receives (sqlengine/hidden.py): ``__eoi``
# (end of input), ``__op`` (row kind), ``__seq`` (a changelog source's position of a row,
# ordering a key's changes for ChangelogNormalize), ``__split`` (an INT: a row's source
# split, its position among ``ScanResult.splits``, for per-split watermarks).
from sqlengine.hidden import EOI, OP, SEQ, SPLIT  # noqa: F401
from sqlengine.secrets import mask_conf
from sqlengine.types import DataType



class Options:
    """Connector options (``WITH (...)``), popped one by one and then exhausted."""

    def __init__(self, connector: str, options: dict[str, str]):
        self.connector = connector
        self._all = dict(options)
        self._left = dict(options)
        self._known: list[str] = ["connector"]
        self._left.pop("connector", None)

    def _note(self, key: str) -> None:
        if key not in self._known:
            self._known.append(key)

    def pop(self, key: str, default: Optional[str] = None) -> Optional[str]:
        self._note(key)
        return self._left.pop(key, default)

    def require(self, key: str) -> str:
        value = self.pop(key)
        if value is None:
            raise ConnectorError(
                f"Missing required option '{key}' for connector '{self.connector}'.")
        return value

    def pop_int(self, key: str, default: Optional[int] = None) -> Optional[int]:
        raw = self.pop(key)
        if raw is None:
            return default
        try:
            return int(raw.strip())
        except ValueError:
            raise ConnectorError(
                f"Invalid value for option '{key}' of connector '{self.connector}': "
                f"'{raw}' is not an integer.") from None

    def pop_bool(self, key: str, default: bool = False) -> bool:
        raw = self.pop(key)
        if raw is None:
            return default
        low = raw.strip().lower()
        if low not in ("true", "false"):
            raise ConnectorError(
                f"Invalid value for option '{key}' of connector '{self.connector}': "
                f"'{raw}' is not a boolean (true or false).")
        return low == "true"

    def pop_choice(self, key: str, choices: Iterable[str], default: Optional[str] = None) -> Optional[str]:
        choices = list(choices)
        raw = self.pop(key, default)
        if raw is not None and raw not in choices:
            raise ConnectorError(
                f"Invalid value for option '{key}' of connector '{self.connector}': '{raw}'. "
                f"Valid values: {', '.join(choices)}.")
        return raw

    def pop_prefix(self, prefix: str) -> dict[str, str]:
        """Pop every key starting with ``prefix`` (e.g. ``fields.``); returns them whole."""
        self._note(prefix + "*")
        keys = [k for k in self._left if k.startswith(prefix)]
        return {k: self._left.pop(k) for k in keys}

    def remaining(self) -> dict[str, str]:
        return dict(self._left)

    def finish(self) -> None:
        """Fail, naming the valid keys, if any option was not consumed."""
        if self._left:
            unknown = "\n".join(sorted(self._left))
            valid = "\n".join(sorted(self._known))
            raise ConnectorError(
                f"Unsupported options found for '{self.connector}'.\n\n"
                f"Unsupported options:\n\n{unknown}\n\nSupported options:\n\n{valid}")


def redact(options: dict[str, str]) -> dict[str, str]:
    """Options safe to print: values of secret keys replaced by ``******``."""
    return mask_conf(options)


@dataclass
class ScanContext:
    spark: Any  # pyspark.sql.SparkSession
    streaming: bool
    parallelism: int
    table_name: str  # fully qualified, e.g. default_catalog.default_database.Bid
    columns: list[tuple[str, DataType]]  # physical columns, in table order
    options: Options
    local_time_zone: str = "UTC"
    job_id: str = "job"
    conf: dict[str, str] = field(default_factory=dict)  # session configuration
    # Metadata columns (column name, metadata key, type): the ScanResult's DataFrame has
    # them after the physical columns. Only factories with ``readable_metadata`` get any.
    metadata: list[tuple[str, str, DataType]] = field(default_factory=list)
    primary_key: tuple[str, ...] = ()
    # The lookup side of a processing-time temporal join (``ConnectorFactory.lookup_source``):
    # a batch DataFrame that reads the table afresh at each action (each epoch).
    lookup: bool = False
    # The table's ``PARTITIONED BY`` columns (a filesystem table reads them from its folders).
    partition_keys: tuple[str, ...] = ()
    # Values no operator of the job reads: paths of a physical column's name, then ROW
    # member names (sqlengine/plan/reads.py). A connector may send NULL for them where
    # that changes no answer (a bad value must fail the job as it would if read).
    unread: tuple[tuple[str, ...], ...] = ()
    # A condition every row the job uses meets (sqlengine/plan/predicates.py; None: no such
    # condition), from the filters above the scan (sqlengine/plan/pushdown.py). A
    # connector may drop the rows that fail it where that changes no answer and no error,
    # but per split and batch it reads, it keeps a row with the largest non-NULL value of
    # each of ``tops`` (sqlengine/plan/predicates.py's value form): a watermark is computed from them.
    filter: Optional[list] = None
    tops: list = field(default_factory=list)


@dataclass
class ScanResult:
    df: Any  # pyspark.sql.DataFrame: physical columns + __eoi
    explain: str
    end_check: Optional[Callable[[dict], bool]] = None  # None: unbounded (never ends)
    # Like end_check, but true as soon as the micro-batch with the last *data* row has
    # completed (before the end-of-input row). The runtime ends a job whose operators
    # do not fire on the watermark there, skipping the end-of-input micro-batches.
    data_end_check: Optional[Callable[[dict], bool]] = None
    # Observed metrics (name -> Spark aggregate Column) reported when the job ends,
    # e.g. the number of skipped malformed lines.
    metrics: dict[str, Any] = field(default_factory=dict)
    # Message template per metric, printed when the job ends and the value > 0.
    metric_messages: dict[str, str] = field(default_factory=dict)
    # Where the connector observed its own metrics: the observedMetrics entry name
    # (streaming) or a pyspark.sql.Observation (batch).
    observation: Optional[Any] = None
    # What an epoch holds, from its start and end offsets (Spark's offsets log; start is
    # None in the first epoch): (may it hold data rows, has the source ended by its end).
    # Lets the runtime skip a counting pass over each epoch; None: the runtime counts.
    epoch_info: Optional[Callable[[Optional[dict], dict], tuple[bool, bool]]] = None
    # Called on the driver once an epoch's results are written, with this source's end offset
    # of the epoch (Flink's notifyCheckpointComplete), e.g. to commit consumer-group offsets.
    # Spark's own ``commit(end)`` of a stream reader comes with the next epoch, so the last
    # epoch of a job that ends by itself would never reach it.
    epoch_done: Optional[Callable[[dict], None]] = None
    # The source's splits in an epoch, from the epoch's end offset: split -> whether it has
    # ended (a bounded split read to its end), in the order of the ids the scan's frame
    # carries in ``__split`` (INT: 0 the first split): a watermark assigner over the scan
    # keeps a watermark per split (the minimum of the live, non-idle ones), as Flink's
    # per-partition watermarks; its state stays keyed by the names.
    splits: Optional[Callable[[dict], dict[str, bool]]] = None
    # Records not read yet, from a progress report's entry for this source (its ``endOffset``:
    # how far the job has read): metric name (a split's, e.g. a Kafka partition's) -> count.
    # Asked on the driver when someone reads the job's metrics, never per epoch.
    lag: Optional[Callable[[dict], dict[str, int]]] = None


# Phases of a bounded Python source's streaming offsets (the ``__eoi`` protocol above):
# data, the micro-batch holding the ``__eoi`` row was planned, one more was planned.
PHASE_DATA, PHASE_EOI_PLANNED, PHASE_DONE = 0, 1, 2


def progress_offset(source_progress: dict, token: str) -> dict:
    """A source's end offset in a progress entry, if the entry is the scan tagged ``token``
    (offsets carry ``"src": token``); ``{}`` for another source's entry."""
    import json
    raw = source_progress.get("endOffset")
    if isinstance(raw, str):
        raw = json.loads(raw) if raw.strip() not in ("", "null") else None
    return raw if isinstance(raw, dict) and raw.get("src") == token else {}


@dataclass(frozen=True)
class EndOfInput:
    """``end_check`` of a phased source: the empty micro-batch after the ``__eoi`` one completed."""

    token: str

    def __call__(self, source_progress: dict) -> bool:
        return progress_offset(source_progress, self.token).get("phase") == PHASE_DONE


@dataclass
class SinkContext:
    spark: Any
    streaming: bool
    parallelism: int
    table_name: str
    columns: list[tuple[str, DataType]]
    options: Options
    updating: bool  # input carries __op and may contain -U/+U/-D
    local_time_zone: str = "UTC"
    job_id: str = "job"
    sink_id: str = "sink"  # deterministic operator id (stable across restarts)
    conf: dict[str, str] = field(default_factory=dict)
    # Written metadata columns (column name, metadata key), among ``columns``.
    metadata: list[tuple[str, str]] = field(default_factory=list)
    primary_key: tuple[str, ...] = ()
    # An exactly-once sink's writer tasks: a task's commit is tied to its number, so they
    # are fixed for the life of a checkpoint (the parallelism of the run that made it).
    writer_tasks: int = 1
    # The table's ``PARTITIONED BY`` columns (a filesystem sink writes ``k=v`` folders).
    partition_keys: tuple[str, ...] = ()


def fold_upserts(df: Any, names: list[str], keys: list[str]) -> Any:
    """An upsert sink's rows of one epoch: per key, its last state, an upsert (``+I``/``+U``)
    or a deletion (``-D``, or a ``-U`` no ``+U`` follows: a filter after an aggregation
    drops the new row of a key that no longer qualifies; Flink's upsert sinks treat
    UPDATE_BEFORE as a delete by key, and the update after it, if any, overwrites it).
    An epoch's changelog holds at most one retraction and one new row per key, the
    retraction first, so the new row, when there is one, is the last state."""
    from pyspark.sql import functions as F
    cols = [F.col(f"`{n}`") for n in keys]
    rank = F.when(F.col(OP).isin("-D", "-U"), F.lit(0)).otherwise(F.lit(1))
    every = list(names) + [OP]
    row = F.struct(*[F.col(f"`{n}`").alias(n) for n in every])
    folded = df.groupBy(*cols).agg(F.max_by(row, rank).alias("__row"))
    return folded.select(*[F.col("__row").getField(n).alias(n) for n in every])


def is_deletion(op: Any) -> Any:
    """Whether a folded upsert row (``fold_upserts``) deletes its key."""
    return op.isin("-D", "-U")


class Sink:
    """A prepared sink: ``write_batch`` in a batch job, ``write_epoch`` once per epoch
    of a streaming job (every streaming job, one INSERT or a statement set, runs as one
    Spark query whose ``foreachBatch`` hands each sink its epoch's rows). The runtime
    calls ``open`` once per run of a streaming job, before its first epoch."""

    explain: str = ""

    def open(self, query_id: str) -> None:
        """On the driver, before the first epoch of a run of a streaming job (``query_id``
        is Spark's query id, which a restart from the checkpoint keeps)."""

    def write_batch(self, df: Any) -> None:
        raise NotImplementedError

    def write_epoch(self, df: Any, epoch_id: int, query_id: str) -> Optional[int]:
        """Write one epoch of a streaming job (a batch DataFrame). After a failure Spark
        replays an epoch with the same ``epoch_id`` (and ``query_id``): an exactly-once
        sink makes the replay a no-op; the default writes again (at-least-once). Returns
        the rows written when the writer counts them (the job's sink metrics), else None."""
        self.write_batch(df)
        return None

    def end_epoch(self, epoch_id: int, query_id: str, watermark: Callable[[], int]) -> None:
        """On the driver after every epoch of a streaming job, once ``write_epoch`` (if the
        epoch had rows for the sink) returned: ``watermark()`` is the sink's input watermark
        after the epoch (``1 << 62`` once its input has ended), computed when called. A
        filesystem sink commits its partitions here. A replayed epoch calls it again."""

    def on_job_end(self, succeeded: bool) -> None:
        """Called on the driver when the job ends (e.g. to print a summary)."""


class TransactionalSink(Sink):
    """A sink whose writer (a Python ``DataSourceArrowWriter``) does the two phases of
    the transactional contract (DESIGN.md, "Exactly once"). Every sink here (filesystem,
    kafka, upsert-kafka, jdbc) is one; this class drives the contract, the connector
    says what its rows are and how its writer stages, commits and recovers.

    * **prepare** on the executors (the writer's ``DataSourceArrowWriter.write``): each task
      stages its rows under ids derived from (sink, query id, epoch, task) only, so a
      replayed epoch or a retried task finds what an earlier attempt left (a staged
      file, an open Kafka transaction, a PostgreSQL prepared transaction) and replaces or
      reuses it; it returns a commit message naming what it staged.
    * **commit** on the driver (the writer's ``commit``) once every task has
      prepared: publish the epoch (rename its staged files, ``COMMIT PREPARED``), and
      record it in the sink's marker of its last committed epoch (a file beside the
      staged ones; a row of the PostgreSQL marker table written in the prepared
      transactions); idempotent: committing an epoch twice, or a replay of a committed
      epoch, changes nothing. ``abort`` discards the messages. Kafka is the exception: a
      Kafka transaction cannot be finished by another process, so each task commits its
      own, atomically with its marker (the epoch as the offset of a per-task consumer
      group); a replayed task finds the marker and writes nothing.
    * **recovery** (``recover``) on the driver when the job starts (``open``), before its
      first epoch: resolve what a crash left prepared (a PostgreSQL sink's prepared
      transactions are rolled back and Kafka's transactional ids are fenced: their epoch
      is replayed by Spark from its offsets log; a file sink's committed epoch whose
      renames were cut short is rolled forward and its staged leftovers are removed).

    The runtime commits an epoch to the sinks before Spark records it in its commit log;
    a crash between the two replays it, and the replay is a no-op by the above. Where a
    task's commit is tied to its task number (Kafka, PostgreSQL), a replayed epoch must
    give each task the same rows: ``distribution`` names the columns the rows are hashed
    on, onto the sink's writer tasks (``SinkContext.writer_tasks``, fixed for the life of
    a checkpoint).

    A subclass sets ``ctx`` and ``exactly_once`` and implements ``rows``, ``writer`` and
    ``writer_options``; ``recover``, ``distribution`` and ``spread`` as needed. The
    writer runs as connectors/write.py describes.
    """

    ctx: SinkContext
    exactly_once: bool = True

    def rows(self, df: Any) -> Any:
        """The writer's input rows for the sink's rows ``df``."""
        raise NotImplementedError

    def writer(self, options: dict[str, str]) -> Any:
        """The connector's ``DataSourceArrowWriter`` for one write's options (made on the
        driver: ``write`` runs in each task, ``commit``/``abort`` on the driver)."""
        raise NotImplementedError

    def writer_options(self, epoch: Optional[int], query_id: str) -> dict[str, str]:
        """The writer's options for one epoch (``None``: a batch job's one write)."""
        raise NotImplementedError

    def recover(self, query_id: str) -> None:
        """Resolve what a crashed run of this sink left (see the class docstring)."""

    def distribution(self, rows: Any) -> Optional[list]:
        """Exactly-once: the columns whose hash fixes each row's writer task, or None when
        a task's output may vary between a run and its replay."""
        return None

    def spread(self, rows: Any) -> Any:
        """Without exactly-once: how the rows go onto writer tasks (default: as they are)."""
        return rows

    def finish(self, rows: Any) -> Any:
        """The rows as the writer takes them, once distributed (e.g. helper columns dropped)."""
        return rows

    _opened: Optional[str] = None

    def open(self, query_id: str) -> None:
        if self.exactly_once and self._opened != query_id:
            from sqlengine.faults import reached
            reached("recovery")
            self.recover(query_id)
            self._opened = query_id

    def write_batch(self, df: Any) -> None:
        import uuid
        query_id = uuid.uuid4().hex
        self.open(query_id)
        self._write(df, None, query_id)

    def write_epoch(self, df: Any, epoch_id: int, query_id: str) -> Optional[int]:
        self.open(query_id)  # a no-op after the runtime's open at job start
        return self._write(df, epoch_id, query_id)

    def _write(self, df: Any, epoch: Optional[int], query_id: str) -> int:
        rows = self.rows(df)
        cols = self.distribution(rows) if self.exactly_once else None
        rows = rows.repartition(self.ctx.writer_tasks, *cols) if cols else self.spread(rows)
        from connectors.write import run_writer
        return run_writer(self.finish(rows), self.writer(self.writer_options(epoch, query_id)))


class ConnectorFactory:
    """One per connector identifier (``'connector' = '<identifier>'``)."""

    identifier: str = ""
    # Whether the sink accepts update/delete changes (Flink's ChangelogMode of the sink).
    accepts_updates: bool = False
    # Metadata keys a source can read / a sink can write (``col TYPE METADATA FROM 'key'``).
    readable_metadata: tuple[str, ...] = ()
    writable_metadata: tuple[str, ...] = ()
    # Whether the table can be the lookup side of a processing-time temporal join
    # (``JOIN t FOR SYSTEM_TIME AS OF o.proc_time``): then it is not one of the job's
    # streaming sources; each epoch joins its rows with the table as it is then
    # (``ScanContext.lookup``).
    lookup_source: bool = False

    def scan(self, ctx: ScanContext) -> ScanResult:
        raise ConnectorError(f"Connector '{self.identifier}' can only be used as a sink.")

    def sink(self, ctx: SinkContext) -> Sink:
        raise ConnectorError(f"Connector '{self.identifier}' can only be used as a source.")

    def validate_sink_options(self, options: dict[str, str]) -> None:
        """Check options at planning time, before any Spark job (no side effects)."""

    def sink_accepts_updates(self, options: dict[str, str]) -> bool:
        """Whether a sink with these options takes update/delete changes (e.g. a file
        sink does with a changelog format)."""
        return self.accepts_updates

    def sink_reads_watermark(self, options: dict[str, str], partition_keys: tuple[str, ...]) -> bool:
        """Whether the sink needs its input's watermark after each epoch (``Sink.end_epoch``),
        e.g. a filesystem sink committing partitions on partition time."""
        return False

    def source_changelog(self, options: dict[str, str]) -> str:
        """The changelog a scan of a table with these options emits (Flink's ChangelogMode
        of the source): ``""`` insert-only; ``"all"`` every row kind (``+I -U +U -D``, a
        Debezium stream: the scan's frame carries ``__op``); ``"upsert"`` ``+U``/``-D`` by
        primary key with no ``-U`` (the frame carries ``__op`` and ``__seq``, the row's
        position in the input; the planner adds a ChangelogNormalize)."""
        return ""


_FACTORIES: dict[str, ConnectorFactory] = {}
# Identifier -> the package that registers it, imported on first use.
BUILTIN = {
    "filesystem": "connectors.filesystem.factory",
    "datagen": "connectors.datagen",
    "print": "connectors.printsink",
    "blackhole": "connectors.blackhole",
    "kafka": "connectors.kafka.factory",
    "upsert-kafka": "connectors.kafka.factory",
    "jdbc": "connectors.jdbc.factory",
    "nexmark": "connectors.nexmark",
}


def register(factory: ConnectorFactory) -> ConnectorFactory:
    _FACTORIES[factory.identifier] = factory
    return factory


def check_metadata(factory: ConnectorFactory, table: str, keys: list[str], source: bool) -> None:
    """Flink's error for a metadata key the connector does not offer."""
    known = factory.readable_metadata if source else factory.writable_metadata
    for key in keys:
        if key not in known:
            raise ConnectorError(
                f"Invalid metadata key '{key}' in column of table '{table}'. The {'' if source else 'sink '}"
                f"connector '{factory.identifier}' supports the following metadata keys for "
                f"{'reading' if source else 'writing'}:\n" + ("\n".join(known) if known else "(none)"))


def factory_for(identifier: Optional[str], table: str) -> ConnectorFactory:
    if identifier is None:
        raise ConnectorError(f"Table options do not contain an option key 'connector' for table '{table}'.")
    if identifier not in _FACTORIES and identifier in BUILTIN:
        import importlib
        importlib.import_module(BUILTIN[identifier])
    if identifier not in _FACTORIES:
        raise ConnectorError(
            f"Could not find any factory for identifier '{identifier}' (table '{table}'). "
            f"Available factory identifiers are: {', '.join(known_connectors())}")
    return _FACTORIES[identifier]


def known_connectors() -> list[str]:
    return sorted(set(_FACTORIES) | set(BUILTIN))
