"""Starting and driving an epoch job (see ``epoch.py``): sources unioned into one
streaming query, ``EpochDriver`` as its ``foreachBatch``, stopped after the epoch in
which every bounded input ended (commit log written)."""
from __future__ import annotations

import os
from typing import Callable, Optional, Sequence

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from connectors.base import EOI
from sqlengine.errors import UnsupportedError
from sqlengine.physical.node import Dag
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import LowerState, Lowered, Lowerer
from sqlengine.runtime.multisink import TAG
from sqlengine.runtime.streaming.epoch import EpochDriver, Scans
from sqlengine.runtime.streaming.state import StateStore

EOI_ANY = "__eoi_any"


def distinct_scans(dag: Dag) -> list[P.TableScan]:
    """The job's streaming sources (lookup tables are read by the joins themselves)."""
    lookups = lookup_scans(dag)
    return [n.logical for n in dag.nodes if isinstance(n.logical, P.TableScan) and n.logical not in lookups]


def lookup_side(node: P.Node) -> Optional[P.TableScan]:
    """The table scan under the right input of a processing-time temporal join, through
    projections and filters, when its connector is a lookup source."""
    from connectors.base import factory_for
    if not isinstance(node, P.TemporalJoin) or node.right_time >= 0:
        return None
    r = node.right
    while isinstance(r, P.Calc):
        r = r.input
    if not isinstance(r, P.TableScan):
        return None
    try:
        factory = factory_for(r.connector or None, r.table)
    except Exception:  # noqa: BLE001 - reported when the scan is lowered
        return None
    return r if factory.lookup_source else None


def lookup_scans(dag: Dag) -> frozenset:
    out = set()
    for n in dag.nodes:
        side = lookup_side(n.logical)
        if side is not None:
            out.add(side)
    # a table read both as a lookup side and as a stream elsewhere stays a stream there too
    return frozenset(out)


def tagged_sources(frames: list[DataFrame]) -> DataFrame:
    """One streaming DataFrame of every source's rows: ``__sink`` = source index, one
    struct slot per source, and ``__eoi_any`` (the row is a source's end-of-input row)."""
    types = [StructType(list(df.schema.fields)) for df in frames]
    parts = []
    for i, df in enumerate(frames):
        slots = [(F.struct(*[F.col(f"`{c}`") for c in df.columns]) if j == i else F.lit(None).cast(t))
                 .alias(f"__s{j}") for j, t in enumerate(types)]
        parts.append(df.select(F.lit(i).alias(TAG), *slots, F.col(EOI).alias(EOI_ANY)))
    out = parts[0]
    for p in parts[1:]:
        out = out.unionAll(p)
    return out


def start_epoch_query(state: LowerState, dag: Dag,
                      consumers: list[Callable[[Lowered, int], None]], checkpoint: str, name: str,
                      on_open: Sequence[Callable[[str], None]] = ()):
    """Start the job's one streaming query (one consumer per root of ``dag``);
    returns (query, driver). ``on_open`` are called with the query id before the run's
    first epoch (the sinks' recovery)."""
    nodes = distinct_scans(dag)
    frames = []
    lw = Lowerer(state)
    infos, done, splits = [], [], []
    for n in nodes:
        before = len(state.scans)
        low = lw.scan(n)
        scan = state.scans[before] if len(state.scans) > before else None
        infos.append(scan.epoch_info if scan is not None else None)
        done.append(scan.epoch_done if scan is not None else None)
        splits.append(scan.splits if scan is not None else None)
        if not low.df.isStreaming:
            raise UnsupportedError(f"Table {n.table} is not a streaming source; in streaming mode every "
                                   f"source of a job must be (use batch mode)")
        frames.append(low.df)
    store = StateStore(state.spark, os.path.join(checkpoint, "state"), state.max_parallelism)
    _check_same_plan(store, dag, checkpoint)
    driver = EpochDriver(state, dag, Scans(nodes), store, consumers, checkpoint, infos, done, splits)
    driver.on_open = list(on_open)
    driver.bounded = all(s.end_check is not None for s in state.scans)
    from sqlengine.runtime.job import trigger_interval
    trigger = trigger_interval(state)  # after the scans: a throttled source asks for one
    query = (tagged_sources(frames).writeStream.foreachBatch(driver)
             .option("checkpointLocation", checkpoint).queryName(name)
             .trigger(processingTime=trigger).outputMode("append").start())
    driver.started(str(query.id))
    query._sqlengine_driver = driver
    return query, driver


def finished(query) -> bool:
    """The epoch in which every bounded input ended has been committed."""
    driver = getattr(query, "_sqlengine_driver", None)
    if driver is None or driver.done_epoch is None:
        return False
    progress = query.lastProgress
    return bool(progress) and int(progress.get("batchId", -1)) >= driver.done_epoch


def stop_at_epoch_boundary(query) -> bool:
    """Stop ``query`` unless an epoch is running (then its driver refuses the next epoch,
    which ends the query once the running one has committed); True once stopped."""
    driver = getattr(query, "_sqlengine_driver", None)
    if driver is None:
        query.stop()
        return True
    with driver.lock:
        driver.stopping = True
        busy = driver.busy
    if busy:
        return False
    query.stop()
    return True


def _check_same_plan(store: StateStore, dag: Dag, checkpoint: str) -> None:
    """A checkpoint restores only the job that wrote it: its state is laid out per operator
    (Flink has the same limit for a changed plan without operator uids)."""
    from sqlengine.errors import ExecutionError
    last = store.read_meta(1 << 62)
    if last.get("dag") not in (None, dag.signature()):
        raise ExecutionError(
            f"Cannot restore from '{checkpoint}': the checkpoint was written by a job with other "
            f"operators (the query or its settings changed since). Restore it with the statement "
            f"that wrote it, or start without 'execution.state-recovery.path'.")
    groups = last.get("key_groups")
    if groups not in (None, store.groups):
        raise ExecutionError(
            f"Cannot restore from '{checkpoint}': its state is in {groups} key groups, and this job "
            f"has {store.groups} ('pipeline.max-parallelism'). Set 'pipeline.max-parallelism' to "
            f"{groups} to restore it (the parallelism may change).")
