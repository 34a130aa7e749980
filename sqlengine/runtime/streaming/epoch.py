"""The epoch driver: every streaming job is one Spark query whose micro-batches (epochs)
run the whole operator plan as Spark batch work.

Why not Spark's own stateful streaming operators: they take no retractions, chain only
in append mode, fire windows one micro-batch late, and never advance the watermark to
the end at the end of input (DESIGN.md, "Execution on Spark"). Here Spark Structured
Streaming owns only what it is good at: the sources, their offsets and the epoch
sequence (offsets log + commit log = exactly once). The sources of a job are unioned
into one streaming DataFrame of tagged rows (``multisink.tagged_union``); its
``foreachBatch`` function (``EpochDriver``) gets each epoch as a batch DataFrame,
splits it per source, lowers the plan over those deltas with ``EpochLowerer``
(stateless nodes as usual, stateful nodes incrementally against state versioned by
epoch, see ``state.py``), and hands every sink its rows with ``Sink.write_epoch``.

Event time, Flink's way: a watermark assigner's watermark after an epoch is the
largest event time it has seen minus its delay; an operator's watermark is the
minimum over its inputs; a bounded input that has ended holds the maximum watermark.
What the epoch's watermark closes fires in that epoch, and the epoch in which every
bounded input has ended is the job's last.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from pyspark import StorageLevel
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from connectors.base import EOI
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import LowerState, Lowered, Lowerer
from sqlengine.runtime.multisink import TAG, rows_of
from sqlengine.runtime.streaming.state import StateStore

WM_MIN = -(1 << 62)  # no watermark yet
WM_MAX = 1 << 62  # end of input: every timer fires


def operator_ids(roots: list[P.Node]) -> dict[P.Node, str]:
    """Deterministic ids, in depth-first order; equal subtrees share one id (and one run)."""
    ids: dict[P.Node, str] = {}

    def visit(node: P.Node) -> None:
        for c in node.children():
            visit(c)
        if node not in ids:
            ids[node] = f"{len(ids):03d}-{type(node).__name__}"
    for r in roots:
        visit(r)
    return ids


@dataclass
class Epoch:
    """One epoch's context, shared by the operators lowered in it."""

    epoch: int
    store: StateStore
    meta_in: dict[str, Any]
    meta_out: dict[str, Any]
    ids: dict[P.Node, str]
    persisted: list[DataFrame] = field(default_factory=list)

    def persist(self, df: DataFrame) -> DataFrame:
        df = df.persist(StorageLevel.MEMORY_AND_DISK)
        self.persisted.append(df)
        return df

    def release(self) -> None:
        for df in self.persisted:
            df.unpersist()
        self.persisted.clear()

    def prev_wm(self, node: P.Node) -> int:
        return self.meta_in.get("wm", {}).get(self.ids[node], WM_MIN)

    def set_wm(self, node: P.Node, wm: int) -> None:
        self.meta_out.setdefault("wm", {})[self.ids[node]] = wm


class EpochLowerer(Lowerer):
    """Lowers the plan over one epoch's deltas; each distinct node once per epoch."""

    def __init__(self, state: LowerState, ep: Epoch, scan_delta: Callable[[P.TableScan], Lowered],
                 scan_ended: Callable[[P.TableScan], bool]):
        super().__init__(state)
        self.ep = ep
        self.scan_delta = scan_delta
        self.scan_ended = scan_ended
        self.memo: dict[P.Node, Lowered] = {}
        self.wm: dict[P.Node, int] = {}

    def lower(self, node: P.Node) -> Lowered:
        if node in self.memo:
            return self.memo[node]
        children = [self.lower(c) for c in node.children()]
        method = getattr(self, f"epoch_{type(node).__name__}", None)
        if node not in self.wm:  # operators that hold back or set time may set their own
            self.wm[node] = min((self.wm[c] for c in node.children()), default=WM_MAX)
        if method is not None:
            out = method(node, *children)
        else:
            out = getattr(self, f"visit_{type(node).__name__}", self._missing(node))(node, *children)
            out.empty = bool(children) and all(c.empty for c in children)
        self.ep.set_wm(node, self.wm[node])
        self.memo[node] = out
        return out

    # -- nothing to do ---------------------------------------------------------------
    def idle(self, node: P.Node, inputs: tuple[Lowered, ...], on_watermark: bool) -> bool:
        """No input changed this epoch (and, for operators that fire on time, the
        watermark did not move): the operator emits nothing and keeps its state (no new
        version is written; the next epoch reads the latest one)."""
        if not all(i.empty for i in inputs):
            return False
        return not on_watermark or self.input_wm(node) == self.prev_input_wm(node)

    def nothing(self, node: P.Node, updating: bool) -> Lowered:
        from pyspark.sql.types import StringType, StructField, StructType
        from connectors.base import OP
        fields = [StructField(f"f{i}", f.type.to_spark()) for i, f in enumerate(node.schema)]
        if updating:
            fields.append(StructField(OP, StringType()))
        df = self.state.spark.createDataFrame([], StructType(fields))
        return Lowered(df, False, updating, empty=True)

    def _missing(self, node: P.Node):
        from sqlengine.errors import UnsupportedError

        def fail(*_):
            raise UnsupportedError(f"{type(node).__name__} is not supported in streaming mode yet")
        return fail

    def input_wm(self, node: P.Node) -> int:
        """The watermark of a node's inputs after this epoch (min over its inputs)."""
        return min((self.wm[c] for c in node.children()), default=WM_MAX)

    def prev_input_wm(self, node: P.Node) -> int:
        return min((self.ep.prev_wm(c) for c in node.children()), default=WM_MAX)

    # -- leaves and time -------------------------------------------------------------
    def epoch_TableScan(self, node: P.TableScan) -> Lowered:
        self.wm[node] = WM_MAX if self.scan_ended(node) else WM_MIN
        return self.scan_delta(node)

    def epoch_Values(self, node: P.Values) -> Lowered:
        """A static relation in a streaming job: all its rows in the job's first epoch."""
        self.wm[node] = WM_MAX
        low = self.visit_Values(node)
        if self.ep.meta_in.get("started"):
            return Lowered(low.df.limit(0), empty=True)
        return low

    def epoch_WatermarkAssigner(self, node: P.WatermarkAssigner, child: Lowered) -> Lowered:
        oid = self.ep.ids[node]
        seen = self.ep.meta_in.get("max", {}).get(oid)
        top = None if child.empty else \
            child.df.agg(F.max(F.unix_millis(F.col(f"f{node.rowtime}")))).collect()[0][0]
        if top is not None:
            seen = top if seen is None else max(seen, top)
        if seen is not None:
            self.ep.meta_out.setdefault("max", {})[oid] = seen
        upstream = self.input_wm(node)
        self.wm[node] = upstream if upstream == WM_MAX else (
            WM_MIN if seen is None else seen - node.delay_ms)
        return Lowered(child.df, empty=child.empty)

    # -- stateful operators: one module each ---------------------------------------------
    def _stateful(self, node: P.Node, inputs: tuple[Lowered, ...], module: str, fn: str,
                  on_watermark: bool, updating: bool) -> Lowered:
        if self.idle(node, inputs, on_watermark):
            return self.nothing(node, updating)
        import importlib
        return getattr(importlib.import_module(f"sqlengine.runtime.streaming.{module}"), fn)(self, node, *inputs)

    def epoch_Aggregate(self, node: P.Aggregate, child: Lowered) -> Lowered:
        return self._stateful(node, (child,), "group_aggregate", "epoch_group_aggregate", False, True)

    def epoch_WindowAggregate(self, node: P.WindowAggregate, child: Lowered) -> Lowered:
        return self._stateful(node, (child,), "window_aggregate", "epoch_window_aggregate", True, False)

    def epoch_Join(self, node: P.Join, left: Lowered, right: Lowered) -> Lowered:
        updating = node.kind != "INNER" or left.updating or right.updating
        return self._stateful(node, (left, right), "join", "epoch_join", False, updating)

    def epoch_IntervalJoin(self, node: P.IntervalJoin, left: Lowered, right: Lowered) -> Lowered:
        return self._stateful(node, (left, right), "join", "epoch_interval_join", True, False)

    def epoch_WindowJoin(self, node: P.WindowJoin, left: Lowered, right: Lowered) -> Lowered:
        return self._stateful(node, (left, right), "join", "epoch_window_join", True, False)

    def epoch_TemporalJoin(self, node: P.TemporalJoin, left: Lowered, right: Lowered) -> Lowered:
        return self._stateful(node, (left, right), "temporal_join", "epoch_temporal_join", True, False)

    def epoch_Rank(self, node: P.Rank, child: Lowered) -> Lowered:
        from sqlengine.rules.changelog import is_window_rank
        window = is_window_rank(node) and not child.updating
        return self._stateful(node, (child,), "rank", "epoch_rank", window, not window)

    def epoch_Over(self, node: P.Over, child: Lowered) -> Lowered:
        return self._stateful(node, (child,), "over", "epoch_over", True, False)

    def epoch_Sort(self, node: P.Sort, child: Lowered) -> Lowered:
        from sqlengine.errors import UnsupportedError
        raise UnsupportedError("ORDER BY/LIMIT over an unbounded stream is not supported yet "
                               "(use a Top-N query: ROW_NUMBER() OVER (...) with a filter)")


@dataclass
class Scans:
    """The distinct table scans of a job, in the order of the tagged union's slots."""

    nodes: list[P.TableScan]

    def index(self, node: P.TableScan) -> int:
        return self.nodes.index(node)


class EpochDriver:
    """The ``foreachBatch`` function of a streaming job (see the module docstring).

    ``outputs``: (plan root, consumer) pairs; a consumer gets the root's lowered
    result and the epoch id (sinks call ``write_epoch``). The driver records in
    ``done_epoch`` the epoch after which every bounded input has ended.
    """

    def __init__(self, state: LowerState, roots: list[P.Node], scans: Scans, store: StateStore,
                 consumers: list[Callable[[Lowered, int], None]]):
        self.state = state
        self.roots = roots
        self.scans = scans
        self.store = store
        self.consumers = consumers
        self.ids = operator_ids(roots)
        self.done_epoch: Optional[int] = None
        self.bounded = True  # set by the runner: every source can end
        self.error: Optional[BaseException] = None
        self._started = threading.Event()
        self.query_id: Optional[str] = None

    def started(self, query_id: str) -> None:
        self.query_id = query_id
        self._started.set()

    def __call__(self, batch: DataFrame, epoch_id: int) -> None:
        self._started.wait()
        batch = batch.persist(StorageLevel.MEMORY_AND_DISK)
        ep = Epoch(epoch_id, self.store, self.store.read_meta(epoch_id), {}, self.ids)
        try:
            ended, rows = self._ended(batch, ep)
            lw = EpochLowerer(self.state, ep, lambda n: self._delta(batch, n, rows),
                              lambda n: ended[self.scans.index(n)])
            for root, consume in zip(self.roots, self.consumers):
                consume(lw.lower(root), epoch_id)
            ep.meta_out["started"] = True
            self.store.write_meta(epoch_id, ep.meta_out)
            if all(ended) and self.bounded:
                self.done_epoch = epoch_id
        finally:
            ep.release()
            batch.unpersist()

    def _ended(self, batch: DataFrame, ep: Epoch) -> tuple[list[bool], list[int]]:
        """Per source: has it ended (now or before), and how many data rows it has in
        this epoch (one small Spark job for all sources)."""
        from sqlengine.runtime.streaming.runner import EOI_ANY
        before = ep.meta_in.get("ended", [False] * len(self.scans.nodes))
        stats = batch.groupBy(TAG).agg(F.sum(F.when(F.col(EOI_ANY), 0).otherwise(1)).alias("n"),
                                       F.max(F.col(EOI_ANY)).alias("eoi")).collect()
        rows = [0] * len(self.scans.nodes)
        ended = list(before)
        for r in stats:
            rows[r[TAG]] = int(r["n"])
            ended[r[TAG]] = bool(ended[r[TAG]] or r["eoi"])
        ep.meta_out["ended"] = ended
        return ended, rows

    def _delta(self, batch: DataFrame, node: P.TableScan, rows: list[int]) -> Lowered:
        i = self.scans.index(node)
        delta = rows_of(batch, i).where(~F.col(EOI)).drop(EOI)
        return Lowered(delta, empty=rows[i] == 0)
