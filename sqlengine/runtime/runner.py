"""Starting and driving an epoch job (see ``epoch.py``): sources unioned into one
streaming query, ``EpochDriver`` as its ``foreachBatch``, stopped after the epoch in
which every bounded input ended (commit log written)."""
from __future__ import annotations

import os
from typing import Callable, Optional, Sequence

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from sqlengine.config import checkpoint_interval_ms
from sqlengine.errors import ExecutionError, UnsupportedError
from sqlengine.hidden import EOI, EOI_ANY, TAG, Lowered, slot
from sqlengine.plan.dag import Dag
from sqlengine.runtime import fs
from sqlengine.runtime.context import BatchContext, JobContext
from sqlengine.runtime.epoch import EpochDriver, Scans
from sqlengine.runtime.state import StateStore


def stream_sources(dag: Dag) -> list:
    """The job's streaming sources (lookup tables are read by the joins themselves)."""
    lookups = dag.lookups()
    return [n for n in dag.sources() if n.logical not in lookups]


def tagged_sources(frames: list[DataFrame]) -> DataFrame:
    """One streaming DataFrame of every source's rows: ``__sink`` = source index, one
    struct slot per source, and ``__eoi_any`` (the row is a source's end-of-input row)."""
    types = [StructType(list(df.schema.fields)) for df in frames]
    parts = []
    for i, df in enumerate(frames):
        slots = [(F.struct(*[F.col(f"`{c}`") for c in df.columns]) if j == i else F.lit(None).cast(t))
                 .alias(slot(j)) for j, t in enumerate(types)]
        parts.append(df.select(F.lit(i).alias(TAG), *slots, F.col(EOI).alias(EOI_ANY)))
    out = parts[0]
    for p in parts[1:]:
        out = out.unionAll(p)
    return out


def start_epoch_query(job: JobContext, dag: Dag,
                      consumers: list[Callable[[Lowered, int], None]], checkpoint: str, name: str,
                      on_open: Sequence[Callable[[str], None]] = ()):
    """Start the job's one streaming query (one consumer per root of ``dag``);
    returns (query, driver). ``on_open`` are called with the query id before the run's
    first epoch (the sinks' recovery)."""
    sources = stream_sources(dag)
    job.note_reads(dag)
    frames = []
    infos, done, splits, lags = [], [], [], []
    for pn in sources:
        before = len(job.scans)
        low = pn.op.lower(BatchContext(job, pn), pn.logical)  # opens the source
        scan = job.scans[before] if len(job.scans) > before else None
        infos.append(scan.epoch_info if scan is not None else None)
        done.append(scan.epoch_done if scan is not None else None)
        splits.append(scan.splits if scan is not None else None)
        lags.append(scan.lag if scan is not None else None)
        if not low.df.isStreaming:
            raise UnsupportedError(f"Table {pn.logical.table} is not a streaming source; in streaming mode "
                                   f"every source of a job must be (use batch mode)")
        frames.append(low.df)
    store = StateStore(job.spark, os.path.join(checkpoint, "state"), job.max_parallelism)
    claimed = _check_same_plan(store, dag, checkpoint, job.conf)
    driver = EpochDriver(job, dag, Scans([pn.logical for pn in sources]), store, consumers, checkpoint,
                         infos, done, splits)
    driver.claimed = claimed
    driver.on_open = list(on_open)
    driver.bounded = all(s.end_check is not None for s in job.scans)
    trigger = trigger_interval(job)  # after the scans: a throttled source asks for one
    # Read by the query when it starts: how long it sleeps when its sources had nothing new.
    job.spark.conf.set(POLLING_DELAY, f"{polling_delay_ms(job)}ms")
    query = (tagged_sources(frames).writeStream.foreachBatch(driver)
             .option("checkpointLocation", checkpoint).queryName(name)
             .trigger(processingTime=trigger).outputMode("append").start())
    driver.metrics.sources = tuple(pn.id for pn in sources)
    driver.metrics.lags = tuple(lags)
    driver.metrics.poll = lambda: query.lastProgress
    driver.started(str(query.id))
    return query, driver


# Throttled sources (datagen's rows-per-second) slower than this run back to back.
MIN_TRIGGER_MS = 50


def trigger_interval(job: JobContext) -> str:
    """Spark's processing-time trigger: how often an epoch (a checkpoint) may start.

    ``execution.checkpointing.interval`` is Flink's checkpoint interval: an epoch holds
    what arrived since the last one (a longer interval: fewer, larger epochs, more
    throughput and more latency; benchmarks/README.md). The sources that can, pace
    themselves by it (connectors/pace.py): they admit new data at most once per interval,
    but at once while they have a backlog, so the trigger is back to back and a job
    catching up never waits for the clock between epochs. A throttled source asks for
    its own interval: a datagen table produces ``rows-per-second`` rows per second, as in
    Flink, as a fixed number of rows per micro-batch (``trigger_interval_ms``, sized to the
    checkpoint interval when there is one); then the trigger is the slowest interval
    asked or the checkpoint interval, so that no source exceeds its rate.
    """
    asked = [ms for ms in (getattr(s, "trigger_interval_ms", None) for s in job.scans) if ms]
    ms = max(asked + [checkpoint_interval_ms(job.conf)]) if asked else 0
    return f"{ms} milliseconds" if ms >= MIN_TRIGGER_MS else "0 seconds"


POLLING_DELAY = "spark.sql.streaming.pollingDelay"
SPARK_POLLING_MS = 10  # Spark's default


def polling_delay_ms(job: JobContext) -> int:
    """How long a back-to-back query waits before asking its sources again when they had
    nothing new: Spark's 10 ms without a checkpoint interval (an epoch as soon as data
    comes), a twentieth of the interval (at most 500 ms) with one, when the sources pace
    themselves (connectors/pace.py) and would answer "nothing yet" a hundred times a second
    (measured: an idle Kafka job's processes used 0.09-0.11 CPU s per s at 10 ms against
    0.018 under Spark's processing-time trigger). An epoch starts at most that late after
    its slot of the interval."""
    ms = checkpoint_interval_ms(job.conf)
    return max(SPARK_POLLING_MS, min(500, ms // 20)) if ms > 0 else SPARK_POLLING_MS


def finished(query, driver: EpochDriver) -> bool:
    """The epoch in which every bounded input ended has been committed."""
    if driver.done_epoch is None:
        return False
    progress = query.lastProgress
    return bool(progress) and int(progress.get("batchId", -1)) >= driver.done_epoch


def stop_at_epoch_boundary(query, driver: EpochDriver) -> bool:
    """Stop ``query`` once no epoch runs and the last one is in Spark's commit log (else its
    driver refuses the next epoch, which ends the query once the running one has
    committed); True once stopped. Stopping between an epoch's end and Spark's commit of it
    would leave that epoch to be replayed on restore: harmless into the same sinks, but a
    savepoint restored into other sinks would write it twice."""
    with driver.lock:
        driver.stopping = True
        busy = driver.busy
    if busy or not committed(driver):
        return False
    query.stop()
    return True


def committed(driver: EpochDriver) -> bool:
    """The driver's last epoch is in Spark's commit log (or it has run none yet)."""
    if driver.last_epoch is None:
        return True
    return fs.exists(os.path.join(driver.checkpoint, "commits", str(driver.last_epoch)))


IGNORE_UNCLAIMED = "execution.state-recovery.ignore-unclaimed-state"


def _check_same_plan(store: StateStore, dag: Dag, checkpoint: str, conf: dict) -> Optional[frozenset]:
    """A checkpoint restores the job that wrote it, or a changed query whose stateful
    operators are those Flink would match (``Dag.operator_signatures``): each operator with
    state in the checkpoint must be in the query unchanged, or the restore is refused naming
    it; one the query no longer has is refused unless
    ``execution.state-recovery.ignore-unclaimed-state``. Returns the nodes whose kept facts
    carry over (None: the same plan, all of them)."""
    last = store.read_meta(1 << 62)
    groups = last.get("key_groups")
    if groups not in (None, store.groups):
        raise ExecutionError(
            f"Cannot restore from '{checkpoint}': its state is in {groups} key groups "
            f"('pipeline.max-parallelism' = {groups} when it was written), and this job has {store.groups}. "
            f"The max-parallelism of a job cannot change across a restore (its parallelism can): set "
            f"'pipeline.max-parallelism' = '{groups}'.")
    if last.get("dag") in (None, dag.signature()):
        return None
    old = last.get("operators")
    if old is None:
        raise ExecutionError(
            f"Cannot restore from '{checkpoint}': the checkpoint was written by a job with other "
            f"operators (the query or its settings changed since). Restore it with the statement "
            f"that wrote it, or start without 'execution.state-recovery.path'.")
    new = dag.operator_signatures()
    labels = {n.id: n.label for n in dag.nodes}
    claimed = frozenset(i for i, sig in new.items() if old.get(i) == sig)
    ignore = (conf.get(IGNORE_UNCLAIMED) or "false").strip().lower() == "true"
    for op in store.operators():
        if op in claimed:
            continue
        if op in new:
            raise ExecutionError(
                f"Cannot restore from '{checkpoint}': the state of operator {labels[op]} ({op}) cannot be "
                f"mapped to the changed query: that operator, its input's schema or the plan feeding it "
                f"changed. Keep it as it was, or start without 'execution.state-recovery.path'.")
        if not ignore:
            raise ExecutionError(
                f"Cannot restore from '{checkpoint}': it holds the state of operator {op}, which the changed "
                f"query does not have. Set '{IGNORE_UNCLAIMED}' = 'true' to restore without it.")
    return claimed
