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
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from pyspark import StorageLevel
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from connectors.base import EOI
from sqlengine.physical.node import Dag
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import LowerState, Lowered, Lowerer
from sqlengine.runtime.multisink import TAG, rows_of
from sqlengine.runtime.streaming.state import StateStore

WM_MIN = -(1 << 62)  # no watermark yet
WM_MAX = 1 << 62  # end of input: every timer fires


@dataclass
class Epoch:
    """One epoch's context, shared by the operators lowered in it."""

    epoch: int
    store: StateStore
    meta_in: dict[str, Any]
    meta_out: dict[str, Any]
    ids: dict[P.Node, str]
    persisted: list[DataFrame] = field(default_factory=list)
    now_ms: int = field(default_factory=lambda: int(time.time() * 1000))  # processing time

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
    """Lowers the DAG over one epoch's deltas: each node once, by its operator's
    ``lower_epoch``, after setting the node's watermark to the minimum of its inputs'
    (an operator that holds back or sets time, like a watermark assigner, overrides it)."""

    def __init__(self, state: LowerState, ep: Epoch, scan_delta: Callable[[P.TableScan], Lowered],
                 scan_ended: Callable[[P.TableScan], bool]):
        super().__init__(state)
        self.ep = ep
        self.scan_delta = scan_delta
        self.scan_ended = scan_ended
        self.wm: dict[P.Node, int] = {}

    def lower_node(self, pn, inputs: list[Lowered]) -> Lowered:
        node = pn.logical
        self.wm[node] = min((self.wm[c] for c in node.children()), default=WM_MAX)
        out = pn.op.lower_epoch(self, node, *inputs)
        self.ep.set_wm(node, self.wm[node])
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

    def input_wm(self, node: P.Node) -> int:
        """The watermark of a node's inputs after this epoch (min over its inputs)."""
        return min((self.wm[c] for c in node.children()), default=WM_MAX)

    def prev_input_wm(self, node: P.Node) -> int:
        return min((self.ep.prev_wm(c) for c in node.children()), default=WM_MAX)


@dataclass
class Scans:
    """The distinct table scans of a job, in the order of the tagged union's slots."""

    nodes: list[P.TableScan]

    def index(self, node: P.TableScan) -> int:
        return self.nodes.index(node)


class EpochDriver:
    """The ``foreachBatch`` function of a streaming job (see the module docstring).

    ``consumers``: one per root of the DAG; a consumer gets the root's lowered
    result and the epoch id (sinks call ``write_epoch``). The driver records in
    ``done_epoch`` the epoch after which every bounded input has ended.
    """

    def __init__(self, state: LowerState, dag: Dag, scans: Scans, store: StateStore,
                 consumers: list[Callable[[Lowered, int], None]]):
        self.state = state
        self.dag = dag
        self.scans = scans
        self.store = store
        self.consumers = consumers
        self.ids = dag.ids()
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
            for out, consume in zip(lw.run(self.dag), self.consumers):
                consume(out, epoch_id)
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
