"""What an operator may read and write while it is lowered: the typed contexts.

The runtime lowers a DAG node by node (``execute.py`` in batch, ``epoch.py`` per epoch)
and hands each operator a context scoped to its node. Everything an operator touches
beyond its inputs goes through one of these methods, so the contract is written down
here and nowhere else:

* ``BatchContext``: the job's configuration and Spark session, expression and
  aggregate lowering, the node's input edges and key routing, and (for sources) the
  job's scan registry.
* ``EpochContext`` adds one epoch: its id and processing time, the operator's state
  tables (versioned by epoch, keyed by key group), its own small facts carried from
  epoch to epoch (``fact``/``keep``), its watermarks (read the inputs'; sources and
  watermark assigners set their own), persisting frames for the epoch, and the TTL of
  keyed state.

An operator never sees the driver, the state store's layout or another operator's
state: ids, paths and the checkpoint's files are the runtime's business.
"""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

from pyspark.sql import Column, DataFrame

from sqlengine.functions.registry import LowerContext
from sqlengine.hidden import OP, Lowered
from sqlengine.plan import nodes as P
from sqlengine.plan.dag import Dag, Edge, PhysicalNode
from sqlengine.plan.pushdown import any_of, scan_filters, to_predicate, to_values
from sqlengine.plan.reads import merge_demand, scan_reads, unread, watermark_reads
from sqlengine.runtime.exprs import ExprLowerer
from sqlengine.runtime.keygroups import route
from sqlengine.runtime.multisink import EPOCH_CACHE
from sqlengine.runtime.state import StateStore, Table
from sqlengine.runtime.touched import Touched, weigh
from sqlengine.runtime.watermarks import WM_MAX, WM_MIN, as_int, known, wm_min

if TYPE_CHECKING:
    from connectors.base import ScanResult
    from sqlengine.runtime.ttl import Expiry


@dataclass
class JobContext:
    """One job's lowering, shared by its operators (they read it through their context)."""

    spark: Any
    streaming: bool
    parallelism: int
    max_parallelism: int
    conf: dict[str, str]
    job_id: str
    functions: LowerContext
    # Every source the job opened (metrics, trigger intervals, per-epoch facts).
    scans: list["ScanResult"] = field(default_factory=list)
    # One lowering per distinct scan in a job: the sinks of a statement set share it
    # (one source in the streaming query's offsets log; persisted once in batch).
    scan_cache: dict = field(default_factory=dict)
    memo: dict = field(default_factory=dict)  # lowered expressions, once per job
    # Exactly-once sinks' writer tasks (``SinkContext.writer_tasks``): the parallelism of the
    # run that made the job's checkpoint, kept in it (a restore at another parallelism
    # replays an epoch onto the same writer tasks).
    writer_tasks: int = 0
    # What the job's operators read of each logical scan (plan/reads.py), from the DAGs it
    # lowers: a connector may leave the rest out (``ScanContext.unread``).
    reads: dict = field(default_factory=dict)
    # The logical scans whose watermark an operator of the job reads (from the same DAGs):
    # only they need the split of each row for per-split watermarks.
    watermark_read: set = field(default_factory=set)
    # The rows each logical scan's operators use (plan/pushdown.py ``Used``), from the same
    # DAGs: a connector may drop the rest where it reads (``ScanContext.filter``).
    filters: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.exprs = ExprLowerer(self.functions, self.memo)
        self.writer_tasks = self.writer_tasks or self.parallelism

    def note_reads(self, dag: "Dag") -> None:
        """Record what ``dag`` reads of its scans (before any of them is opened)."""
        for scan, demand in scan_reads(dag).items():
            self.reads[scan] = merge_demand(self.reads[scan], demand) if scan in self.reads else demand
        self.watermark_read |= watermark_reads(dag)
        for scan, cond in scan_filters(dag).items():
            self.filters[scan] = any_of([self.filters[scan], cond]) if scan in self.filters else cond

    def filter(self, scan: P.TableScan) -> tuple[Optional[list], list]:
        """The rows of ``scan`` the job uses (``ScanContext.filter`` and ``tops``, in
        sqlengine/plan/predicates.py's forms): (None, []) for every row, or when unknown."""
        used = self.filters.get(scan)
        if used is None:
            return None, []
        cond, tops = to_predicate(used.cond, scan.fields), to_values(used.tops, scan.fields)
        return (None, []) if cond is None or tops is None else (cond, tops)

    def unread(self, scan: P.TableScan) -> tuple[tuple[str, ...], ...]:
        """The paths of ``scan``'s values no operator of the job reads (none when unknown)."""
        if scan not in self.reads:
            return ()
        return unread(scan.fields, self.reads[scan])

    @property
    def shuffle_partitions(self) -> int:
        """The partitions of the job's Spark exchanges (``spark.sql.shuffle.partitions``):
        its tasks. Key groups route rows only at a streaming job's hash edges
        (``EpochContext.exchange``); a batch job's exchanges are Spark's own."""
        return self.parallelism

    def release(self) -> None:
        """Unpersist the scans a batch job cached because several branches read them."""
        for low in self.scan_cache.values():
            if low.df.is_cached:
                low.df.unpersist()


class BatchContext:
    """What an operator may use when it is lowered over whole inputs."""

    def __init__(self, job: JobContext, node: PhysicalNode):
        self.job = job
        self.node = node

    # -- reading the job --------------------------------------------------------------
    @property
    def spark(self) -> Any:
        return self.job.spark

    @property
    def conf(self) -> dict[str, str]:
        return self.job.conf

    @property
    def parallelism(self) -> int:
        return self.job.parallelism

    @property
    def functions(self) -> LowerContext:
        return self.job.functions

    @property
    def shuffle_partitions(self) -> int:
        return self.job.shuffle_partitions

    @property
    def edges(self) -> list[Edge]:
        return [e for _, e in self.node.inputs]

    def expr(self, e: P.Expr) -> Column:
        """A plan expression over the node's input columns as a Spark column."""
        return self.job.exprs.lower(e)

    def aggregates(self, aggs: tuple[P.AggCall, ...], grouping_sets: bool = False,
                   folded: bool = False) -> list[Column]:
        """The aggregate calls as Spark aggregate columns ``a0..`` (``folded``: see ExprLowerer)."""
        return self.job.exprs.aggregates(aggs, grouping_sets, folded)

    # -- sources -------------------------------------------------------------------------
    def cached_scan(self, key: Any) -> Optional[Lowered]:
        return self.job.scan_cache.get(key)

    def cache_scan(self, key: Any, low: Lowered) -> None:
        self.job.scan_cache[key] = low

    def register_scan(self, result: "ScanResult") -> int:
        """Record an opened source with the job; returns its number (1..)."""
        self.job.scans.append(result)
        return len(self.job.scans)


@dataclass
class EpochRun:
    """One epoch of a streaming job, as the driver sets it up (``epoch.py``)."""

    epoch: int
    store: StateStore
    meta_in: dict[str, Any]
    meta_out: dict[str, Any]
    ids: dict[PhysicalNode, str]
    watermarked: frozenset  # nodes whose watermark a consumer reads
    lookups: frozenset  # logical scans read as lookup tables
    source_rows: Callable[[P.Node], Lowered]
    source_ended: Callable[[P.Node], bool]
    splits: dict = field(default_factory=dict)  # logical scan -> {split: ended}
    now_ms: int = field(default_factory=lambda: int(time.time() * 1000))
    wm: dict = field(default_factory=dict)  # PhysicalNode -> its watermark after this epoch
    persisted: list[DataFrame] = field(default_factory=list)
    # The driver's threads for state writes (``background``); None: each write runs inline.
    pool: Any = None
    pending: list = field(default_factory=list)

    def persist(self, df: DataFrame) -> DataFrame:
        df = df.persist(EPOCH_CACHE)
        self.persisted.append(df)
        return df

    def background(self, write: Callable[[], None]) -> None:
        """Run ``write`` (a state version's Spark job) on one of the driver's threads while
        the epoch's lowering goes on: the next operators' plans are analysed while it runs,
        and the epoch's writes run side by side (a small epoch's jobs leave most of the
        cores idle: each is Spark's fixed cost of planning and scheduling). The thread
        carries the epoch's Spark local properties (its job group: stopping the query
        cancels the write). ``wait`` before anything the writes must precede."""
        if self.pool is None:
            write()
            return
        sc = self.store.spark.sparkContext
        props = sc._jsc.sc().getLocalProperties().clone()

        def run() -> None:
            sc._jsc.sc().setLocalProperties(props)
            try:
                write()
            finally:
                sc._jsc.sc().setLocalProperties(sc._jvm.java.util.Properties())
        self.pending.append(self.pool.submit(run))

    def wait(self) -> None:
        """Until every write started by ``background`` has ended; raises the first one's error."""
        pending, self.pending = self.pending, []
        error = None
        for f in pending:
            try:
                f.result()
            except BaseException as err:  # noqa: BLE001 - every write ends before the first error is raised
                error = error or err
        if error is not None:
            raise error

    def release(self) -> None:
        try:
            self.wait()  # (no frame is unpersisted under a write still reading it)
        except BaseException:  # noqa: BLE001 - the epoch is failing already
            pass
        for df in reversed(self.persisted):
            df.unpersist()
        self.persisted.clear()

    def prev_wm(self, node: PhysicalNode) -> int:
        return self.meta_in.get("wm", {}).get(self.ids[node], WM_MIN)

    def resolve(self) -> None:
        """Every watermark of the epoch as a number (lazy ones computed now if no
        operator needed them), before the epoch's facts are written."""
        self.meta_out["wm"] = {self.ids[n]: as_int(v) for n, v in self.wm.items()}


class EpochContext(BatchContext):
    """What an operator may use when it is lowered over one epoch's changes."""

    def __init__(self, job: JobContext, node: PhysicalNode, run: EpochRun):
        super().__init__(job, node)
        self.run = run

    # -- the epoch ---------------------------------------------------------------------
    @property
    def epoch(self) -> int:
        return self.run.epoch

    @property
    def now_ms(self) -> int:
        """Processing time: when the epoch started (the same on a replay)."""
        return self.run.now_ms

    @property
    def first_epoch(self) -> bool:
        """No epoch of this job completed before this one."""
        return not self.run.meta_in.get("started")

    def persist(self, df: DataFrame) -> DataFrame:
        """Compute ``df`` once for this epoch (released when the epoch ends)."""
        return self.run.persist(df)

    # -- state ------------------------------------------------------------------------
    def table(self, name: str, schema: Any, keys: Sequence[Any]) -> Table:
        """The operator's state table ``name``: rows of ``schema``, their key group from
        the columns ``keys`` (names, or expressions over the columns as the exchange
        hashes the key; none: one key group), versioned by epoch. Its rows are read with
        the ``__task`` that owns their key group (``exchange``)."""
        return self.run.store.table(self.run.ids[self.node], name, schema, keys, self.node.parallelism,
                                    self.run.background)

    def touched(self, keys: DataFrame, *tables: Table) -> Touched:
        """An epoch's key frame ``keys`` (``delta.key_frame``), persisted, to select rows of
        the operator's state ``tables`` by: broadcast when they are large and the keys few
        (``touched.py``)."""
        return weigh(self.persist, keys, sum(t.size(self.epoch) for t in tables))

    def stored(self, name: str) -> bool:
        """Whether an earlier epoch of the job wrote the operator's state table ``name``."""
        return not self.first_epoch and self.run.store.written(self.run.ids[self.node], name, self.epoch)

    def exchange(self, df: DataFrame, keys: Sequence[Column]) -> DataFrame:
        """The node's hash edge: ``df``'s rows routed to the task that owns their key's key
        group (Flink's key-group range assignment), with the ``__task`` column that the
        operator keeps among the keys of everything it groups, joins or ranks after it
        (``runtime/keygroups.py``). ``keys``: the edge's key, as the state tables key it."""
        return route(df, keys, self.node.parallelism, self.job.max_parallelism)

    def fact(self, key: str, default: Any = None) -> Any:
        """A small fact this operator kept in the previous epoch (``keep``)."""
        return self.run.meta_in.get("op", {}).get(self.run.ids[self.node], {}).get(key, default)

    def keep(self, key: str, value: Any) -> None:
        """Keep a small JSON fact for the next epoch (written with the epoch's checkpoint)."""
        self.run.meta_out.setdefault("op", {}).setdefault(self.run.ids[self.node], {})[key] = value

    def expiry(self, side: str, touched: DataFrame, keyed: bool = True) -> "Expiry":
        """``table.exec.state.ttl`` for one keyed input (``ttl.py``)."""
        from sqlengine.runtime.ttl import Expiry
        return Expiry(self, side, touched, keyed)

    # -- watermarks ---------------------------------------------------------------------
    @property
    def upstream_watermark(self) -> Any:
        """The minimum of the inputs' watermarks after this epoch (possibly lazy)."""
        return wm_min([self.run.wm[c] for c in self.node.children])

    def input_watermark_of(self, node: P.Node) -> Optional[int]:
        """The input watermark after this epoch of ``node``, an operator of this job lowered
        before this one (the minimum of its inputs'), when known without a pass over the
        epoch; None otherwise. (Equal subplans are one node of the job's DAG.)"""
        for pn in self.run.wm:
            if pn.logical is node or pn.logical == node:
                return known(wm_min([self.run.wm[c] for c in pn.children]))
        return None

    @property
    def input_watermark_known(self) -> bool:
        """Whether ``input_watermark`` needs no pass over the epoch."""
        return known(self.upstream_watermark) is not None

    @property
    def input_watermark(self) -> int:
        """The inputs' watermark after this epoch (computed now if still lazy)."""
        return as_int(self.upstream_watermark)

    @property
    def previous_input_watermark(self) -> int:
        """The inputs' watermark after the previous epoch: rows at or before it are late."""
        return min((self.run.prev_wm(c) for c in self.node.children), default=WM_MAX)

    @property
    def previous_watermark(self) -> int:
        """This node's own watermark after the previous epoch."""
        return self.run.prev_wm(self.node)

    @property
    def watermarked(self) -> bool:
        """Whether an operator downstream reads this node's watermark."""
        return self.node in self.run.watermarked

    def set_watermark(self, wm: Any) -> None:
        """This node's watermark after the epoch (sources and watermark assigners; every
        other node holds its inputs' minimum)."""
        self.run.wm[self.node] = wm

    def settle(self, *frames: DataFrame) -> None:
        """Materialize ``frames`` (persisted rows derived from all of the node's inputs)
        while an input watermark is not known yet: their action is the pass over the epoch
        whose observed metrics hold it (``watermarks.LazyWatermark``)."""
        lazy = [leaf for c in self.node.children if not isinstance(self.run.wm[c], int)
                for leaf in self.run.wm[c].leaves() if not leaf.known]
        if not lazy or not frames:
            return
        # One action over all the frames (a union of their counts): the frames of a join's
        # two sources fill their caches in one Spark job, their scans side by side, rather
        # than one job each in turn.
        counted = functools.reduce(DataFrame.unionAll, [df.groupBy().count() for df in frames])
        counted.collect()
        metrics = counted._jdf.queryExecution().observedMetrics()
        for leaf in lazy:
            leaf.found(metrics)

    # -- nothing to do ---------------------------------------------------------------
    def idle(self, inputs: Sequence[Lowered], on_watermark: bool) -> bool:
        """No input changed this epoch (and, for operators that fire on time, the
        watermark did not move): the operator emits nothing and keeps its state (no new
        version is written; the next epoch reads the latest one)."""
        if not all(i.empty for i in inputs):
            return False
        return not on_watermark or self.input_watermark == self.previous_input_watermark

    def nothing(self, updating: bool) -> Lowered:
        """An empty output of the node's schema."""
        from pyspark.sql.types import StringType, StructField, StructType
        fields = [StructField(f"f{i}", f.type.to_spark()) for i, f in enumerate(self.node.logical.schema)]
        if updating:
            fields.append(StructField(OP, StringType()))
        df = self.spark.createDataFrame([], StructType(fields))
        return Lowered(df, False, updating, empty=True)

    # -- sources -----------------------------------------------------------------------
    def source_rows(self, scan: P.Node) -> Lowered:
        """The epoch's rows of a streaming source."""
        return self.run.source_rows(scan)

    def source_ended(self, scan: P.Node) -> bool:
        """Whether a bounded source has read its last row (now or before)."""
        return self.run.source_ended(scan)

    def is_lookup(self, scan: P.Node) -> bool:
        """Whether the scan is read as a lookup table (not as a stream)."""
        return scan in self.run.lookups

    def source_splits(self, scan: P.Node) -> Optional[dict]:
        """The scan's splits in this epoch (split -> has it ended), if it has splits."""
        return self.run.splits.get(scan)
