"""Running planned sinks as Spark jobs: batch writes, or streaming queries driven to the
end of bounded input.

A streaming job is one Spark streaming query with one checkpoint: a single INSERT
writes through its sink's own stream writer, under ``<checkpoint root>/<sink id>``; a
statement set's sinks share one query (sqlengine/runtime/multisink.py) under
``<checkpoint root>/<statement set id>``. Bounded sources report, via ``end_check`` on
Spark's progress, when their final (post end-of-input) micro-batch has completed;
the job then stops the query, so an INSERT over bounded input ends by itself with all
windows fired, as in Flink.
"""
from __future__ import annotations

import hashlib
import os
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Optional

from connectors.base import OP, Options, SinkContext, check_metadata, factory_for
from sqlengine.errors import ExecutionError, SqlEngineError, ValidationError
from sqlengine.plan import nodes as P
from sqlengine.runtime.failure import root_cause
from sqlengine.runtime.lower import LowerState, Lowerer, Lowered, drop_eoi, release

STATE_STORE_PROVIDER = "spark.sql.streaming.stateStore.providerClass"
# Flink's state.backend.type -> Spark's state store. Spark records the provider in the
# checkpoint, so a query restored from a checkpoint keeps the one it started with.
STATE_BACKENDS = {
    "hashmap": "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider",
    "rocksdb": "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
}
POLL_SECONDS = 0.05  # how often a running job's progress is checked for the end of input
_STOP = threading.Event()


def request_stop() -> None:
    """Stop the running streaming jobs at an epoch boundary (SIGTERM or Ctrl-C on the CLI):
    the epoch in progress completes and commits, no further epoch starts, and the job ends
    with a message naming the checkpoint to resume from."""
    _STOP.set()


def stop_requested() -> bool:
    return _STOP.is_set()
# Throttled sources (datagen's rows-per-second) slower than this run back to back.
MIN_TRIGGER_MS = 50


def trigger_interval(state: LowerState) -> str:
    """Spark's processing-time trigger: back to back, unless a source is throttled.

    A datagen table produces ``rows-per-second`` rows per second, as in Flink: its
    rate source yields a fixed number of rows per micro-batch and asks for a trigger
    interval (``trigger_interval_ms``). With several throttled sources the slowest
    interval wins, so no source exceeds its rate.
    """
    asked = [ms for ms in (getattr(s, "trigger_interval_ms", None) for s in state.scans) if ms]
    ms = max(asked, default=0)
    return f"{ms} milliseconds" if ms >= MIN_TRIGGER_MS else "0 seconds"


def state_store_provider(conf: dict[str, str]) -> str:
    """The state store for ``state.backend.type`` (Flink's default: ``hashmap``, on the heap)."""
    raw = conf.get("state.backend.type") or conf.get("state.backend") or "hashmap"
    kind = raw.strip().lower()
    if kind not in STATE_BACKENDS:
        raise ValidationError(
            f"Unknown state backend '{raw}' in 'state.backend.type'. Valid values: {', '.join(STATE_BACKENDS)}.")
    return STATE_BACKENDS[kind]


def operator_id(*parts: str) -> str:
    """Deterministic id (stable across restarts of the same statement)."""
    return hashlib.sha1("/".join(parts).encode()).hexdigest()[:16]


def default_checkpoint_root(job_id: str) -> str:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "sqlengine", "checkpoints", job_id)


@dataclass
class Job:
    """A submitted INSERT or statement set. Streaming jobs run until their bounded inputs
    end, or until stopped (``stop``: at an epoch boundary, committed, restorable from
    ``checkpoint_root``) or cancelled; ``done`` is set when the job has ended."""

    job_id: str
    queries: list[Any] = field(default_factory=list)
    status: str = "RUNNING"
    error: Optional[BaseException] = None
    messages: list[str] = field(default_factory=list)
    checkpoint_root: Optional[str] = None
    name: str = ""
    start_time: float = field(default_factory=time.time)
    stop_event: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)

    def cancel(self) -> None:
        """Stop now, without waiting for an epoch boundary (Flink's cancel)."""
        for q in self.queries:
            if q.isActive:
                q.stop()
        self.status = "CANCELED"

    def stop(self, timeout: Optional[float] = None) -> Optional[str]:
        """Stop at an epoch boundary: the running epoch commits, no further one starts.
        Returns the checkpoint to resume from (``execution.state-recovery.path``), if any
        epoch was committed."""
        self.stop_event.set()
        self.done.wait(timeout)
        root = self.checkpoint_root
        return root if root and _holds_checkpoint(root) else None

    def wait(self, timeout: Optional[float] = None) -> "Job":
        """Block until the job has ended; a failed job raises its error."""
        if not self.done.wait(timeout):
            raise TimeoutError(f"Job {self.job_id} is still running after {timeout:g} s")
        if self.error is not None:
            raise self.error
        return self

    @property
    def stopping(self) -> bool:
        return _STOP.is_set() or self.stop_event.is_set()


class JobRunner:
    def __init__(self, spark, conf: dict[str, str], ctx):
        self.spark = spark
        self.conf = conf
        self.ctx = ctx

    @property
    def streaming(self) -> bool:
        return self.conf.get("execution.runtime-mode", "streaming").lower() != "batch"

    def state(self, job_id: str) -> LowerState:
        from sqlengine.config import max_parallelism, parallelism, state_ttl_ms
        state_ttl_ms(self.conf)  # an invalid TTL fails before the job starts
        par = parallelism(self.conf)
        maxp = max_parallelism(self.conf)
        self.spark.conf.set("spark.sql.shuffle.partitions", str(maxp))
        self.spark.conf.set(STATE_STORE_PROVIDER, state_store_provider(self.conf))
        return LowerState(self.spark, self.streaming, par, maxp, self.conf, job_id, self.ctx)

    def run_sinks(self, sinks: list[P.Sink], statement: str, wait: bool = True) -> Job:
        """Run the sinks' job. A batch job runs to its end here; a streaming job is driven
        here (``wait``) or by a background thread (the job's ``done`` event tells when it
        ended, its ``error`` why it failed)."""
        job_id = self.conf.get("pipeline.job-id") or uuid.uuid4().hex
        job = Job(job_id, name=self.conf.get("pipeline.name") or _job_name(sinks))
        state = self.state(job_id)
        from sqlengine.rules import optimize
        plans = [sink.with_children((optimize(sink.input),)) for sink in sinks]
        sids = [operator_id(statement, sink.table, str(i)) for i, sink in enumerate(sinks)]
        streamed = [self.streaming and _has_scan(p) for p in plans]
        static = [(p, sid) for p, sid, s in zip(plans, sids, streamed) if not s]
        if static:  # batch mode, or e.g. INSERT ... VALUES in a streaming statement set
            lw = Lowerer(state)
            lowered = lw.run(lw.plan([p for p, _ in static]))
            try:
                self._run_batch([(p, low, sid) for (p, sid), low in zip(static, lowered)], state, job)
            except BaseException:
                job.done.set()
                raise
        live = [(p, sid) for p, sid, s in zip(plans, sids, streamed) if s]
        if not live:
            job.done.set()
            return job
        job.status = "RUNNING"
        root = self.checkpoint_root(job_id)
        job.checkpoint_root = root
        location = os.path.join(root, live[0][1] if len(live) == 1 else operator_id(statement, "set"))
        if self.conf.get("execution.state-recovery.path") and not _holds_checkpoint(location):
            raise ExecutionError(
                f"Cannot restore from '{root}': it holds no checkpoint of this statement (the "
                f"checkpoint there was written by another statement; a checkpoint restores only "
                f"the job that wrote it).")
        if self.conf.get("execution.state-recovery.path"):
            from sqlengine.runtime.faults import reached
            reached("restore")
        job.queries.append(self._start_epochs(live, state, location))
        if wait:
            try:
                self.wait(job, state)
            except BaseException as exc:
                job.error = exc
                raise
            finally:
                job.done.set()
        else:
            threading.Thread(target=self._drive, args=(job, state), name=f"job-{job_id[:8]}", daemon=True).start()
        return job

    def _drive(self, job: Job, state: LowerState) -> None:
        try:
            self.wait(job, state)
        except BaseException as exc:  # noqa: BLE001 - kept on the job (SHOW JOBS, wait())
            job.error = exc
        finally:
            job.done.set()

    def checkpoint_root(self, job_id: str) -> str:
        """Where the job's checkpoint goes; a restore path must hold a checkpoint."""
        restore = self.conf.get("execution.state-recovery.path")
        if restore:
            if not _holds_checkpoint(restore):
                raise ExecutionError(
                    f"Cannot restore from '{restore}': it holds no checkpoint (no completed epoch "
                    f"of a job was found there). Point 'execution.state-recovery.path' at the "
                    f"checkpoint folder a stopped or failed job printed.")
            return restore
        base = self.conf.get("execution.checkpointing.dir")
        return os.path.join(base, job_id) if base else default_checkpoint_root(job_id)

    def _start_epochs(self, live, state: LowerState, location: str):
        from sqlengine.physical.node import INSERT_ONLY
        from sqlengine.runtime.streaming.runner import start_epoch_query
        dag = Lowerer(state).plan([sink for sink, _ in live])
        consumers, writers = [], []
        holder: dict[str, Any] = {}
        for (sink, sid), root in zip(live, dag.roots):
            updating = root.changelog != INSERT_ONLY
            writer = self._sink(sink, state, sid, updating)
            writers.append(writer)
            consumers.append(self._consumer(sink, writer, updating, holder))
        sid = live[0][1][:6]
        # Before the first epoch: the consumers learn the query id, the sinks recover.
        opens = [lambda qid: holder.update(query_id=qid)] + [w.open for w in writers]
        query, driver = start_epoch_query(
            state, dag, consumers, location,
            f"{live[0][0].table}-{sid}" if len(live) == 1 else f"statement-set-{sid}", opens)
        query._sqlengine_sinks = writers
        return query

    def _consumer(self, sink: P.Sink, writer, updating: bool, holder: dict):
        def consume(low: Lowered, epoch: int) -> None:
            if low.empty:
                return
            writer.write_epoch(self._named(sink, low, updating), epoch, holder["query_id"])
        return consume

    def _sink(self, sink: P.Sink, state: LowerState, sid: str, updating: bool):
        factory = factory_for(sink.connector or None, sink.table)
        check_metadata(factory, sink.table, [k for _, k in sink.metadata], source=False)
        ctx = SinkContext(state.spark, state.streaming, state.parallelism, sink.table,
                          [(f.name, f.type) for f in sink.fields], Options(sink.connector, dict(sink.options)),
                          updating, self.ctx.local_time_zone, state.job_id, sid, state.conf,
                          list(sink.metadata), sink.primary_key, state.max_parallelism)
        return factory.sink(ctx)

    def _named(self, sink: P.Sink, low: Lowered, updating: Optional[bool] = None):
        from pyspark.sql import functions as F
        cols = [F.col(f"f{i}").alias(f.name) for i, f in enumerate(sink.fields)]
        if low.updating:
            cols.append(F.col(OP))
        elif updating:
            cols.append(F.lit("+I").alias(OP))
        return drop_eoi(low).df.select(*cols)

    def _run_batch(self, prepared, state: LowerState, job: Job) -> None:
        from sqlengine.runtime.multisink import tagged_union, write_all
        try:
            writers = [self._sink(sink, state, sid, low.updating) for sink, low, sid in prepared]
            frames = [self._named(sink, low) for sink, low, _ in prepared]
            if len(writers) == 1:
                writers[0].write_batch(frames[0])
            else:
                write_all(tagged_union(frames), writers, lambda w, rows: w.write_batch(rows))
            for w in writers:
                w.on_job_end(True)
            job.status = "FINISHED"
            job.messages.extend(_batch_metric_messages(state))
        except SqlEngineError:
            job.status = "FAILED"
            raise
        except Exception as exc:  # Spark/Py4J errors: keep the original as the cause
            job.status = "FAILED"
            raise ExecutionError(f"Job {job.job_id} failed: {root_cause(exc)}") from exc
        finally:
            release(state)

    def wait(self, job: Job, state: LowerState) -> None:
        """Drive every query until its bounded sources have ended (or forever if unbounded)."""
        from sqlengine.runtime.streaming.runner import finished, stop_at_epoch_boundary
        stopped = []
        try:
            for q in job.queries:
                while q.isActive:
                    q.awaitTermination(POLL_SECONDS)
                    if finished(q):
                        q.stop()
                    elif job.stopping and stop_at_epoch_boundary(q):
                        stopped.append(q)
                if q.exception() is not None and not (job.stopping and "StopRequested" in str(q.exception())):
                    raise q.exception()
                if job.stopping and q not in stopped:
                    stopped.append(q)
            job.status = "STOPPED" if stopped else "CANCELED" if job.status == "CANCELED" else "FINISHED"
            for q in stopped:
                driver = getattr(q, "_sqlengine_driver", None)
                last = driver.last_epoch if driver is not None else None
                job.messages.append(
                    f"Job {job.job_id} stopped" + (f" after epoch {last} (committed)" if last is not None else "") +
                    f". To resume, SET 'execution.state-recovery.path' = '{job.checkpoint_root}';")
        except Exception as exc:
            try:
                job.cancel()
            except Exception:  # noqa: BLE001 - a dead driver cannot stop its queries
                pass
            job.status = "FAILED"
            # Only a checkpoint with a committed epoch can be restored (``checkpoint_root``).
            hint = (f"to resume, SET 'execution.state-recovery.path' = '{job.checkpoint_root}'"
                    if job.checkpoint_root and _holds_checkpoint(job.checkpoint_root) else
                    "no epoch was committed: run the statement again to start over" if job.checkpoint_root
                    else None)
            raise ExecutionError(f"Job {job.job_id} failed: {root_cause(exc)}", hint=hint) from exc
        finally:
            for q in job.queries:
                for writer in getattr(q, "_sqlengine_sinks", ()):
                    writer.on_job_end(job.status in ("FINISHED", "STOPPED"))
            job.messages.extend(_metric_messages(job, state))


def _job_name(sinks: list[P.Sink]) -> str:
    """Flink's default job name of an INSERT (``insert-into_<catalog.db.table>``)."""
    return "insert-into_" + ",".join(s.table for s in sinks)


def _has_scan(plan: P.Node) -> bool:
    return any(isinstance(n, P.TableScan) for n in P.walk(plan))


def _holds_checkpoint(path: str) -> bool:
    """A folder holding a Spark streaming checkpoint with at least one committed epoch."""
    for dirpath, dirnames, _ in os.walk(path):
        if os.path.basename(dirpath) == "commits" and any(
                n.isdigit() for n in os.listdir(dirpath)):
            return True
    return False


def _batch_metric_messages(state: LowerState) -> list[str]:
    """Messages of sources that observed their metrics with a batch ``Observation``."""
    out = []
    for scan in state.scans:
        obs = scan.observation
        if obs is None or isinstance(obs, str):
            continue
        for k, v in (obs.get or {}).items():
            if v and k in scan.metric_messages:
                out.append(scan.metric_messages[k].format(n=int(v)))
    return out


def _metric_messages(job: Job, state: LowerState) -> list[str]:
    out = []
    for i, scan in enumerate(state.scans):
        observed = scan.observation if isinstance(scan.observation, str) else \
            (f"metrics_{i + 1}" if scan.metrics else None)
        if observed is None:
            continue
        totals: dict[str, int] = {}
        for q in job.queries:
            for p in q.recentProgress or []:
                for name, values in (p.get("observedMetrics") or {}).items():
                    if name == observed:
                        values = values.asDict() if hasattr(values, "asDict") else dict(values)
                        for k, v in values.items():
                            totals[k] = totals.get(k, 0) + int(v or 0)
        for k, v in totals.items():
            if v and k in scan.metric_messages:
                out.append(scan.metric_messages[k].format(n=v))
    return out
