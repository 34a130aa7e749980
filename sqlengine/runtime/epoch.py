"""The epoch driver: every streaming job is one Spark query whose micro-batches (epochs)
run the whole operator plan as Spark batch work.

Why not Spark's own stateful streaming operators: they take no retractions, chain only
in append mode, fire windows one micro-batch late, and never advance the watermark to
the end at the end of input (DESIGN.md, "Execution on Spark"). Here Spark Structured
Streaming owns only what it is good at: the sources, their offsets and the epoch
sequence (offsets log + commit log = exactly once). The sources of a job are unioned
into one streaming DataFrame of tagged rows (``multisink.tagged_union``); its
``foreachBatch`` function (``EpochDriver``) gets each epoch as a batch DataFrame,
splits it per source, lowers the DAG over those deltas (``lower_epoch``: each operator's
``lower_epoch`` with an ``EpochContext``; stateless operators as in batch, stateful ones
incrementally against state versioned by epoch, see ``state.py``), and hands every sink
its rows with ``Sink.write_epoch``.

Event time, Flink's way: a watermark assigner's watermark after an epoch is the
largest event time it has seen minus its delay; an operator's watermark is the
minimum over its inputs; a bounded input that has ended holds the maximum watermark.
What the epoch's watermark closes fires in that epoch, and the epoch in which every
bounded input has ended is the job's last.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from sqlengine.config import write_threads
from sqlengine.faults import reached
from sqlengine.hidden import EOI, EOI_ANY, SPLIT, TAG, Lowered
from sqlengine.plan.dag import Dag, PhysicalNode
from sqlengine.runtime import fs
from sqlengine.runtime.context import EpochContext, EpochRun, JobContext
from sqlengine.runtime.metrics import JobMetrics
from sqlengine.runtime.multisink import EPOCH_CACHE, rows_of
from sqlengine.runtime.state import StateStore
from sqlengine.runtime.watermarks import wm_min


class StopRequested(Exception):
    """Raised by the epoch driver instead of running an epoch after a stop was requested."""


@dataclass
class Scans:
    """The distinct table scans of a job, in the order of the tagged union's slots."""

    nodes: list[Any]  # logical scans

    def index(self, node: Any) -> int:
        return self.nodes.index(node)


def lower_epoch(job: JobContext, dag: Dag, run: EpochRun) -> list[Lowered]:
    """Lower the DAG over one epoch's deltas: each node once, in dependency order, by its
    operator's ``lower_epoch``; a node's watermark is the minimum of its inputs' unless
    the operator sets its own (sources, watermark assigners). A node that several
    consumers read, computed from what a stateful operator persisted (not from the batch
    itself, which ``_reads_batch_twice`` persists), has its output persisted here, once;
    an operator persists only what it reads twice itself (a join's output of millions of
    wide rows an epoch, cached for its one consumer, took the task memory its sorts
    needed: Nexmark's q9 at 10M events failed with ``UNABLE_TO_ACQUIRE_MEMORY``)."""
    fresh = _fresh(dag)
    forks = {n for n, c in dag.consumers().items() if len(c) > 1 and n not in fresh}

    def lower_node(pn: PhysicalNode, inputs: list[Lowered]) -> Lowered:
        run.wm[pn] = wm_min([run.wm[c] for c in pn.children])
        out = pn.op.lower_epoch(EpochContext(job, pn, run), pn.logical, *inputs)
        if pn.id in forks and not out.empty:
            out = out.with_df(run.persist(out.df))  # read by each consumer: computed once
        return out
    return dag.run(lower_node)


class EpochDriver:
    """The ``foreachBatch`` function of a streaming job (see the module docstring).

    ``consumers``: one per root of the DAG; a consumer gets the root's lowered
    result and the epoch id (sinks call ``write_epoch``). The driver records in
    ``done_epoch`` the epoch after which every bounded input has ended.
    """

    def __init__(self, job: JobContext, dag: Dag, scans: Scans, store: StateStore,
                 consumers: list[Callable[[Lowered, int], None]], checkpoint: str = "",
                 epoch_infos: Optional[list] = None, epoch_done: Optional[list] = None,
                 split_infos: Optional[list] = None):
        self.job = job
        self.dag = dag
        self.scans = scans
        self.store = store
        self.consumers = consumers
        self.checkpoint = checkpoint
        self.epoch_infos = epoch_infos or []
        self.epoch_done = epoch_done or []
        self.split_infos = split_infos or []
        self._entries: dict = {}  # epoch -> its offsets log entry (see _entry)
        self.ids = {n: n.id for n in dag.nodes}
        self.watermarked = frozenset(dag.watermarked())
        self.lookups = frozenset(dag.lookups())
        self.reuse = _reads_batch_twice(dag)
        self.done_epoch: Optional[int] = None
        self.bounded = True  # set by the runner: every source can end
        self.error: Optional[BaseException] = None
        self._started = threading.Event()
        self.query_id: Optional[str] = None
        # Stopping at an epoch boundary (runner.stop_at_epoch_boundary): no epoch starts once
        # ``stopping`` is set; ``busy`` while one runs.
        self.lock = threading.Lock()
        self.stopping = False
        self.busy = False
        self.last_epoch: Optional[int] = None  # the last epoch this run completed
        # Called with the query id before this run's first epoch (the sinks' ``open``).
        self.on_open: list[Callable[[str], None]] = []
        self._opened = False
        import os
        self.metrics = JobMetrics(state_dir=os.path.join(checkpoint, "state") if checkpoint else "")
        self._schema = None  # the epochs' input schema (a drain's empty epoch has it)
        self._draining = False
        self.operators = dag.operator_signatures()
        # Restored into a changed query: the nodes whose kept facts (watermark, small facts)
        # and state carry over (runner.check_restore); the others start afresh.
        self.claimed: Optional[frozenset] = None
        self._threads = write_threads(job.conf)  # (validated before the query starts)
        self._pool = None  # the state writes' threads (``_writers``)

    def started(self, query_id: str) -> None:
        self.query_id = query_id
        self._started.set()

    def __call__(self, batch: DataFrame, epoch_id: int) -> None:
        self._started.wait()
        self._schema = batch.schema
        if self.done_epoch is not None and epoch_id > self.done_epoch:
            return  # every bounded input ended: the job stops after its last epoch
        if not self._opened:
            for hook in self.on_open:
                hook(self.query_id)
            self._opened = True
        with self.lock:
            if self.stopping:  # ends the query before the epoch does anything; it is replayed on restore
                raise StopRequested(f"stop requested before epoch {epoch_id}")
            self.busy = True
        try:
            self._run(batch, epoch_id)
            self.last_epoch = epoch_id
        finally:
            with self.lock:
                self.busy = False

    def drain(self) -> bool:
        """Flink's stop with drain, once the query has stopped at an epoch boundary: one
        more epoch with no input in which every source has ended, so that the final
        watermark fires every window and timer and the sinks get their last results. The
        checkpoint cannot be restored afterwards (its Spark logs end an epoch earlier).
        False if no epoch ran (nothing to drain)."""
        if self._schema is None or self.last_epoch is None:
            return False
        empty = self.job.spark.createDataFrame([], self._schema)
        self._draining = True
        self._run(empty, self.last_epoch + 1)
        self.last_epoch += 1
        return True

    def _run(self, batch: DataFrame, epoch_id: int) -> None:
        reached("epoch-start")
        started = time.time()
        if self.metrics.poll is not None:
            self.metrics.ingest(self.metrics.poll())  # the previous epoch's rows
        facts = None if self._draining else self._from_offsets(epoch_id)
        persisted = facts is None or self.reuse
        if persisted:
            batch = batch.persist(EPOCH_CACHE)
        meta_in = self.store.read_meta(epoch_id)
        if self.claimed is not None and self.last_epoch is None:  # this run's first epoch
            for per_node in ("wm", "op"):
                meta_in[per_node] = {k: v for k, v in (meta_in.get(per_node) or {}).items() if k in self.claimed}
        ended: list[bool] = []
        run = EpochRun(epoch_id, self.store, meta_in, {}, self.ids, self.watermarked, self.lookups,
                       lambda n: self._delta(batch, n, rows), lambda n: ended[self.scans.index(n)],
                       pool=self._writers())
        try:
            if facts is None:
                ended, rows = self._count(batch, meta_in)
            else:
                ended, rows, run.now_ms = facts
                before = meta_in.get("ended") or [False] * len(ended)
                ended = [a or b for a, b in zip(ended, before)]
            if self._draining:  # every source ends: the final watermark
                ended = [True] * len(ended)
            run.meta_out["ended"] = ended
            run.splits = {} if self._draining else self._splits(epoch_id)
            if all(ended):
                reached("end-of-input")
            outs = lower_epoch(self.job, self.dag, run)
            run.wait()  # the operators' state written before any sink takes the epoch
            for out, consume in zip(outs, self.consumers):
                reached("before-sink")
                consume(out, epoch_id)
            reached("after-sink")
            run.resolve()
            run.meta_out["started"] = True
            run.meta_out["dag"] = self.dag.signature()
            run.meta_out["operators"] = self.operators
            run.meta_out["key_groups"] = self.store.groups
            run.meta_out["parallelism"] = self.job.parallelism
            run.meta_out["writer_tasks"] = self.job.writer_tasks
            self.store.write_meta(epoch_id, run.meta_out)
            self.metrics.epoch_done(epoch_id, started, run.meta_out.get("wm") or {})
            reached("after-meta")
            if not self._draining:  # (a drain read nothing: no source offsets to commit)
                self._notify_done(epoch_id)
            if all(ended) and self.bounded:
                self.done_epoch = epoch_id
        finally:
            run.release()
            if persisted:
                batch.unpersist()

    def _writers(self):
        """The threads that write the operators' state versions (``EpochRun.background``),
        ``sqlengine.state.write-threads`` of them; None (``0``): each write runs inline."""
        if self._pool is None and self._threads:
            from concurrent.futures import ThreadPoolExecutor
            self._pool = ThreadPoolExecutor(max_workers=self._threads, thread_name_prefix="sqlengine-state-write")
        return self._pool

    def _entry(self, epoch: int):
        """The offsets log entry of ``epoch`` (``_offsets_entry``), read once per epoch:
        the epoch's facts, splits and end-of-epoch hooks all need it."""
        if epoch not in self._entries:
            self._entries = {e: v for e, v in self._entries.items() if e >= epoch - 1}
            self._entries[epoch] = _offsets_entry(self.checkpoint, epoch)
        return self._entries[epoch]

    def _notify_done(self, epoch: int) -> None:
        """``ScanResult.epoch_done`` of each source that asks, with its end offset of ``epoch``."""
        if not self.checkpoint or not any(self.epoch_done):
            return
        entry = self._entry(epoch)
        if entry is None or len(entry[1]) != len(self.epoch_done):
            return
        for hook, end in zip(self.epoch_done, entry[1]):
            if hook is not None and end is not None:
                hook(end)

    def _splits(self, epoch: int) -> dict:
        """Per scan whose source has splits (``ScanResult.splits``): its splits in the
        epoch and whether each has ended, from the epoch's end offsets."""
        if not self.checkpoint or not any(self.split_infos):
            return {}
        entry = self._entry(epoch)
        if entry is None or len(entry[1]) != len(self.scans.nodes):
            return {}
        return {n: fn(end) for n, fn, end in zip(self.scans.nodes, self.split_infos, entry[1])
                if fn is not None and end is not None}

    def _from_offsets(self, epoch: int) -> Optional[tuple[list[bool], list[bool], int]]:
        """(ended, may hold rows) per source and the epoch's timestamp, from Spark's
        offsets log (written before the epoch runs, the same on a replay): no pass over
        the data. None when a source cannot tell (``ScanResult.epoch_info``)."""
        if not self.checkpoint or len(self.epoch_infos) != len(self.scans.nodes) or \
                any(i is None for i in self.epoch_infos):
            return None
        end = self._entry(epoch)
        if end is None:
            return None
        meta, ends = end
        start = self._entry(epoch - 1) if epoch > 0 else None
        starts = start[1] if start is not None else [None] * len(ends)
        if len(ends) != len(self.epoch_infos) or len(starts) != len(ends):
            return None
        ended, rows = [], []
        for info, s, e in zip(self.epoch_infos, starts, ends):
            if e is None:
                return None
            has_rows, done = info(s, e)
            rows.append(has_rows)
            ended.append(done)
        return ended, rows, int(meta.get("batchTimestampMs") or 0) or int(time.time() * 1000)

    def _count(self, batch: DataFrame, meta_in: dict) -> tuple[list[bool], list[bool]]:
        """Per source: has it ended (now or before), and does it hold data rows in this
        epoch (one small Spark job for all sources)."""
        before = meta_in.get("ended", [False] * len(self.scans.nodes))
        stats = batch.groupBy(TAG).agg(F.sum(F.when(F.col(EOI_ANY), 0).otherwise(1)).alias("n"),
                                       F.max(F.col(EOI_ANY)).alias("eoi")).collect()
        rows = [False] * len(self.scans.nodes)
        ended = list(before)
        for r in stats:
            rows[r[TAG]] = int(r["n"]) > 0
            ended[r[TAG]] = bool(ended[r[TAG]] or r["eoi"])
        return ended, rows

    def _delta(self, batch: DataFrame, node: Any, rows: list[bool]) -> Lowered:
        i = self.scans.index(node)
        delta = rows_of(batch, i).where(~F.col(EOI)).drop(EOI)
        return Lowered(delta, updating=bool(node.changelog), empty=not rows[i], split=SPLIT in delta.columns)


def _offsets_entry(checkpoint: str, epoch: int) -> Optional[tuple[dict, list[Optional[dict]]]]:
    """(metadata, one offset per source) of ``<checkpoint>/offsets/<epoch>``."""
    import json
    import os
    try:
        lines = fs.read_text(os.path.join(checkpoint, "offsets", str(epoch))).splitlines()
    except FileNotFoundError:
        return None
    if len(lines) < 2 or not lines[0].startswith("v"):
        return None
    offsets = [None if ln.strip() in ("", "-") else json.loads(ln) for ln in lines[2:]]
    return json.loads(lines[1]), offsets


def _reads_batch_twice(dag: Dag) -> bool:
    """Whether an epoch's input is read more than once (then it is persisted first):
    several scans do (each reads the tagged batch), and so does a DAG that forks where
    the branches reach back to the batch: at a node whose output is computed from the
    epoch's input through operators that persist nothing (Nexmark's q7 reads ``bid`` into
    a window aggregate and into the join with its result, and read and decoded every
    epoch's Kafka records twice). A fork at or after an operator that computes its output
    from frames it persisted (``Operator.materializes``: the stateful ones) reads those
    frames, not the batch: q5's two branches over one HOP aggregate, where persisting the
    batch only cost its cache (benchmarks/README.md). Stateful operators persist what
    they read twice themselves (their netted deltas); watermarks are observed on the way
    (``LazyWatermark``)."""
    if len(dag.sources()) > 1:
        return True
    fresh = _fresh(dag)
    return any(len(c) > 1 and node in fresh for node, c in dag.consumers().items())


def _fresh(dag: Dag) -> set[str]:
    """The nodes whose output is computed from the epoch's input itself: the sources, and
    what reaches them through operators that persist nothing (``Operator.materializes``)."""
    fresh: set[str] = set()
    for n in dag.nodes:  # inputs before their consumers
        if n.op.source or (any(s.id in fresh for s, _ in n.inputs) and not n.op.materializes(n.logical)):
            fresh.add(n.id)
    return fresh
