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
import logging
import os
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Optional

from sqlengine.config import max_parallelism, parallelism, state_ttl_ms
from sqlengine.config import streaming as is_streaming
from sqlengine.errors import ExecutionError, SqlEngineError, ValidationError
from sqlengine.faults import reached
from sqlengine.hidden import Lowered
from sqlengine.plan.dag import INSERT_ONLY, Dag, PhysicalNode
from sqlengine.runtime.context import BatchContext, JobContext
from sqlengine.runtime.epoch import EpochDriver
from sqlengine.runtime.execute import lower_batch
from sqlengine.runtime import fs
from sqlengine.runtime.failure import root_cause, root_class
from sqlengine.runtime.multisink import tagged_union, write_all
from sqlengine.runtime.restart import restart_strategy
from sqlengine.runtime.runner import committed, finished, start_epoch_query, stop_at_epoch_boundary
from sqlengine.runtime import savepoint as savepoints
from sqlengine.runtime.state import StateStore
from sqlengine.runtime.watermarks import WM_MIN, as_int

STATE_STORE_PROVIDER = "spark.sql.streaming.stateStore.providerClass"
# Flink's state.backend.type -> Spark's state store. Spark records the provider in the
# checkpoint, so a query restored from a checkpoint keeps the one it started with.
STATE_BACKENDS = {
    "hashmap": "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider",
    "rocksdb": "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
    "forst": "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",  # Flink 2's disaggregated RocksDB
}
DRAINED = "_DRAINED"  # in a checkpoint whose job was stopped with drain: it cannot be restored
POLL_SECONDS = 0.05  # how often a running job's progress is checked for the end of input
_STOP = threading.Event()


def request_stop() -> None:
    """Stop the running streaming jobs at an epoch boundary (SIGTERM or Ctrl-C on the CLI):
    the epoch in progress completes and commits, no further epoch starts, and the job ends
    with a message naming the checkpoint to resume from."""
    _STOP.set()


def stop_requested() -> bool:
    return _STOP.is_set()


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


def local_path(path: str) -> str:
    """A path as Flink prints one (``file:/x``, ``file:///x``) as a local path (``/x``);
    a remote one (``hdfs://...``) as it is."""
    return fs.local(path)


def default_checkpoint_root(job_id: str) -> str:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "sqlengine", "checkpoints", job_id)


@dataclass
class EpochQuery:
    """A running streaming query of a job: Spark's query, the epoch driver that is its
    ``foreachBatch``, and the sinks it writes."""

    query: Any
    driver: EpochDriver
    writers: list[Any] = field(default_factory=list)

    @property
    def isActive(self) -> bool:  # noqa: N802 - Spark's name
        return self.query.isActive

    def stop(self) -> None:
        self.query.stop()


@dataclass
class Job:
    """A submitted INSERT or statement set. Streaming jobs run until their bounded inputs
    end, or until stopped (``stop``: at an epoch boundary, committed, restorable from
    ``checkpoint_root``) or cancelled; ``done`` is set when the job has ended."""

    job_id: str
    queries: list[EpochQuery] = field(default_factory=list)
    status: str = "RUNNING"
    error: Optional[BaseException] = None
    messages: list[str] = field(default_factory=list)
    checkpoint_root: Optional[str] = None
    name: str = ""
    start_time: float = field(default_factory=time.time)
    end_time: Optional[float] = None  # when the job ended (``ended``)
    tasks: int = 0  # the DAG's tasks times their parallelism (Flink's subtasks)
    dag: Optional[Dag] = None  # what it runs (the DAG EXPLAIN prints)
    stop_event: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    drain: bool = False  # stopping with drain (``stop``)
    restarts: int = 0  # times the restart strategy restarted it (Flink's numRestarts)
    # Failures it restarted from and the one it failed with: (time ms, exception class, reason)
    # (Flink's exception history).
    failures: list[tuple[int, str, str]] = field(default_factory=list)
    wake: threading.Event = field(default_factory=threading.Event)  # ends a restart's backoff (stop, cancel)
    savepoint_dir: Optional[str] = None  # its default savepoint folder (execution.checkpointing.savepoint-dir)

    def ended(self) -> None:
        """The job has ended (whatever its status): ``done`` is set."""
        if self.end_time is None:
            self.end_time = time.time()
        self.done.set()

    def cancel(self) -> None:
        """Stop now, without waiting for an epoch boundary (Flink's cancel). Also before
        its query has started (``JobRunner.run`` stops a query started after this)."""
        self.status = "CANCELED"
        self.wake.set()
        for q in list(self.queries):
            if q.isActive:
                q.stop()

    def stop(self, timeout: Optional[float] = None, drain: bool = False) -> Optional[str]:
        """Stop at an epoch boundary: the running epoch commits, no further one starts.
        Returns the checkpoint to resume from (``execution.state-recovery.path``), if any
        epoch was committed. ``drain``: then one more epoch in which every source has ended
        fires every window and timer (Flink's ``--drain``); its checkpoint is final."""
        self.drain = self.drain or drain
        self.stop_event.set()
        self.wake.set()
        self.done.wait(timeout)
        root = self.checkpoint_root
        return root if root and restorable(root) else None

    def savepoint(self, target: str, timeout: float = 300.0) -> Optional[str]:
        """A savepoint (sqlengine/runtime/savepoint.py) of the job's checkpoint at ``target``:
        of a running job, taken between two epochs while it keeps running (no epoch runs
        during the copy, and the last completed epoch is in Spark's commit log); of a
        stopped one, its last committed epoch. Returns ``target``, None if no epoch has
        completed yet."""
        root = self.checkpoint_root
        drivers = [q.driver for q in self.queries]
        if not root or not drivers:
            return None
        dags = {os.path.basename(d.checkpoint): d.dag.signature() for d in drivers}
        if self.done.is_set():
            if self.status != "STOPPED":
                raise ExecutionError(f"Job {self.job_id} is not running (status {self.status}): no savepoint.")
            return savepoints.take(root, target, self.job_id, self.name, dags) if _has_commit(root) else None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.done.is_set():
                raise ExecutionError(f"Job {self.job_id} ended before its savepoint could be taken.")
            held = []
            try:
                for d in drivers:  # every query between two epochs, each committed
                    d.lock.acquire()
                    held.append(d)
                    if d.busy or not committed(d):
                        break
                else:
                    if not _has_commit(root):
                        return None
                    return savepoints.take(root, target, self.job_id, self.name, dags)
            finally:
                for d in held:
                    d.lock.release()
            time.sleep(0.02)
        raise ExecutionError(f"Job {self.job_id}: no epoch boundary within {timeout:g} s for a savepoint.")

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
    """Runs planned DAGs (``planner.Planner.plan``) on Spark."""

    def __init__(self, spark, conf: dict[str, str], functions):
        self.spark = spark
        self.conf = conf
        self.functions = functions

    @property
    def streaming(self) -> bool:
        return is_streaming(self.conf)

    def context(self, job_id: str) -> JobContext:
        state_ttl_ms(self.conf)  # an invalid TTL or restart strategy fails before the job starts
        restart_strategy(self.conf)
        par = parallelism(self.conf)
        maxp = max_parallelism(self.conf)
        if par > maxp:
            raise ValidationError(f"The parallelism ({par}, 'parallelism.default') must not be larger than the "
                                  f"max-parallelism ({maxp}, 'pipeline.max-parallelism').")
        ctx = JobContext(self.spark, self.streaming, par, maxp, self.conf, job_id, self.functions)
        self.spark.conf.set("spark.sql.shuffle.partitions", str(ctx.shuffle_partitions))
        # A hash exchange's ``__task`` partitioning is all a join's sides need to be co-located
        # (runtime/keygroups.py); Spark would otherwise shuffle them again on every join key.
        self.spark.conf.set("spark.sql.requireAllClusterKeysForCoPartition", "false")
        self.spark.conf.set(STATE_STORE_PROVIDER, state_store_provider(self.conf))
        return ctx

    def run(self, dag: Dag, statement: str, wait: bool = True, jobs: Optional[dict] = None) -> Job:
        """Run a DAG whose roots are sinks (an INSERT or a statement set). A batch job runs
        to its end here; a streaming job is driven here (``wait``) or by a background
        thread (the job's ``done`` event tells when it ended, its ``error`` why it failed).
        Sinks fed by no streaming source (``INSERT ... VALUES`` in a streaming statement
        set) are written first, as a batch job over their part of the DAG. ``jobs``: the
        registry the job joins as soon as it exists (a waited-for job is seen while it runs);
        a job whose statement fails (at submission, or while it is waited for) leaves it
        again: the statement's error reports it."""
        job_id = self.conf.get("pipeline.job-id") or uuid.uuid4().hex
        job = Job(job_id, name=self.conf.get("pipeline.name") or _job_name(dag.roots),
                  tasks=sum(t.parallelism for t in dag.tasks()), dag=dag,
                  savepoint_dir=savepoints.savepoint_dir(self.conf))
        if jobs is not None:
            jobs[job_id] = job
        try:
            return self._run(job, dag, statement, wait)
        except BaseException:
            if jobs is not None:
                jobs.pop(job_id, None)
            job.ended()
            raise

    def _run(self, job: Job, dag: Dag, statement: str, wait: bool) -> Job:
        job_id = job.job_id
        ctx = self.context(job_id)
        sids = {r: operator_id(statement, r.logical.table, str(i)) for i, r in enumerate(dag.roots)}
        live = [r for r in dag.roots if self.streaming and _reads_table(r)]
        static = [r for r in dag.roots if r not in live]
        if static:  # batch mode, or e.g. INSERT ... VALUES in a streaming statement set
            part = dag.restricted(static)
            try:
                self._run_batch(part, lower_batch(ctx, part), ctx, job, sids)
            except BaseException:
                job.ended()
                raise
        if not live:
            job.ended()
            return job
        if job.status != "CANCELED":
            job.status = "RUNNING"
        root = self.checkpoint_root(job_id)
        job.checkpoint_root = root
        location = os.path.join(root, sids[live[0]] if len(live) == 1 else operator_id(statement, "set"))
        if self.conf.get("execution.state-recovery.path") and not restorable(location):
            # A changed statement: the checkpoint's one query, whose operators' state the
            # changed query may take over (runner._check_same_plan decides, operator by operator).
            queries = [q for q in sorted(fs.subdirs(root)) if restorable(os.path.join(root, q))]
            if len(queries) != 1:
                self._drop_restore_copy(root)
                raise ExecutionError(
                    f"Cannot restore from '{root}': it holds no checkpoint of this statement (the "
                    f"checkpoint there was written by another statement, with {len(queries)} queries).")
            location = os.path.join(root, queries[0])
        if self.conf.get("execution.state-recovery.path"):
            reached("restore")
        part = dag.restricted(live)

        def start(c: JobContext) -> EpochQuery:  # (again, from the checkpoint, on a restart)
            return self._start_epochs(part, c, location, sids)
        try:
            job.queries.append(start(ctx))
        except ExecutionError:
            self._drop_restore_copy(root)
            raise
        if job.status == "CANCELED":  # cancelled while it started
            job.queries[-1].stop()
        if wait:
            try:
                self.wait(job, ctx, start)
            except BaseException as exc:
                job.error = exc
                raise
            finally:
                job.ended()
        else:
            threading.Thread(target=self._drive, args=(job, ctx, start), name=f"job-{job_id[:8]}",
                             daemon=True).start()
        return job

    def _drive(self, job: Job, ctx: JobContext, start=None) -> None:
        try:
            self.wait(job, ctx, start)
        except BaseException as exc:  # noqa: BLE001 - kept on the job (SHOW JOBS, wait())
            job.error = exc
        finally:
            job.ended()

    def checkpoint_root(self, job_id: str) -> str:
        """Where the job's checkpoint goes; a restore path must hold a checkpoint."""
        restore = local_path(self.conf.get("execution.state-recovery.path") or "")
        if restore:
            if fs.exists(os.path.join(restore, DRAINED)):
                raise ExecutionError(
                    f"Cannot restore from '{restore}': its job was stopped with drain, which fired every "
                    f"window and timer as if its input had ended; run the statement without "
                    f"'execution.state-recovery.path' to start afresh.")
            if not restorable(restore):
                raise ExecutionError(
                    f"Cannot restore from '{restore}': it holds no checkpoint (no epoch of a job "
                    f"was found there). Point 'execution.state-recovery.path' at the "
                    f"checkpoint folder a stopped or failed job printed.")
            return savepoints.restore_into(restore, self._own_root(job_id), savepoints.claim_mode(self.conf))
        return self._own_root(job_id)

    def _drop_restore_copy(self, root: str) -> None:
        """A refused restore leaves no copy behind (NO_CLAIM copied the checkpoint to ``root``)."""
        restore = local_path(self.conf.get("execution.state-recovery.path") or "")
        if restore and fs.isdir(restore) and not fs.same(root, restore):
            fs.rmtree(root)

    def _own_root(self, job_id: str) -> str:
        base = local_path(self.conf.get("execution.checkpointing.dir") or self.conf.get("state.checkpoints.dir") or "")
        return os.path.join(base, job_id) if base else default_checkpoint_root(job_id)

    def _start_epochs(self, dag: Dag, ctx: JobContext, location: str, sids: dict) -> EpochQuery:
        kept = StateStore(ctx.spark, os.path.join(location, "state"), ctx.max_parallelism).read_meta(1 << 62)
        ctx.writer_tasks = kept.get("writer_tasks") or ctx.parallelism
        consumers, writers = [], []
        holder: dict[str, Any] = {}
        for root in dag.roots:
            updating = root.changelog != INSERT_ONLY
            writer = root.op.writer(BatchContext(ctx, root), root.logical, sids[root], updating)
            writers.append(writer)
            consumers.append(_consumer(root, writer, updating, holder))
        first = dag.roots[0]
        sid = sids[first][:6]
        # Before the first epoch: the consumers learn the query id, the sinks recover.
        opens = [lambda qid: holder.update(query_id=qid)] + [w.open for w in writers]
        query, driver = start_epoch_query(
            ctx, dag, consumers, location,
            f"{first.logical.table}-{sid}" if len(dag.roots) == 1 else f"statement-set-{sid}", opens)
        driver.metrics.written = holder.setdefault("written", {})
        return EpochQuery(query, driver, writers)

    def _run_batch(self, dag: Dag, lowered: list[Lowered], ctx: JobContext, job: Job, sids: dict) -> None:
        try:
            writers = [r.op.writer(BatchContext(ctx, r), r.logical, sids[r], low.updating)
                       for r, low in zip(dag.roots, lowered)]
            frames = [r.op.rows(r.logical, low) for r, low in zip(dag.roots, lowered)]
            if len(writers) == 1:
                writers[0].write_batch(frames[0])
            else:
                write_all(tagged_union(frames), writers, lambda w, rows: w.write_batch(rows))
            for w in writers:
                w.on_job_end(True)
            job.status = "FINISHED"
            job.messages.extend(_batch_metric_messages(ctx))
        except SqlEngineError:
            job.status = "FAILED"
            raise
        except Exception as exc:  # Spark/Py4J errors: keep the original as the cause
            job.status = "FAILED"
            raise ExecutionError(f"Job {job.job_id} failed: {root_cause(exc)}") from exc
        finally:
            ctx.release()

    def wait(self, job: Job, ctx: JobContext, start=None) -> None:
        """Drive every query until its bounded sources have ended (or forever if unbounded).
        A query that fails restarts from the job's checkpoint (``start``) as the restart
        strategy allows (sqlengine/runtime/restart.py); otherwise the job fails."""
        strategy = restart_strategy(self.conf)
        try:
            while True:
                try:
                    self._drive_queries(job)
                    return
                except Exception as exc:
                    delay = None
                    if start is not None and not job.stopping and job.status != "CANCELED" and \
                            job.checkpoint_root and restorable(job.checkpoint_root):
                        delay = strategy.on_failure(time.monotonic())
                    if delay is None:
                        raise self._failed(job, exc) from exc
                    restarted = self._restart(job, exc, delay, start)
                    if restarted is None:
                        return
                    ctx = restarted
        finally:
            for q in job.queries:
                for writer in q.writers:
                    writer.on_job_end(job.status in ("FINISHED", "STOPPED"))
            job.messages.extend(_metric_messages(job, ctx))

    def _restart(self, job: Job, exc: BaseException, delay: float, start) -> Optional[JobContext]:
        """After a failure the restart strategy allows: RESTARTING for ``delay`` seconds (a
        stop or cancel ends the wait), then the job's query again from its checkpoint, which
        replays the epoch that failed. Returns the new run's context (None: it did not restart)."""
        import logging
        job.failures.append(_failure(exc))
        job.restarts += 1
        job.status = "RESTARTING"
        logging.getLogger(__name__).warning("Job %s failed (%s); restarting in %.1f s from its checkpoint "
                                            "(attempt %d)", job.job_id, job.failures[-1][2], delay, job.restarts)
        for q in job.queries:
            try:
                if q.isActive:
                    q.stop()
            except Exception:  # noqa: BLE001 - a failed query may be gone already
                pass
        job.wake.wait(delay)
        if job.status == "CANCELED":
            return None
        if job.stopping:  # stopped while it waited: the checkpoint stays, as a stopped job's
            job.status = "STOPPED"
            job.messages.append(f"Job {job.job_id} stopped while restarting. To resume, SET "
                                f"'execution.state-recovery.path' = '{job.checkpoint_root}';")
            return None
        ctx = self.context(job.job_id)
        before = job.queries
        job.queries = [start(ctx)]
        for old, new in zip(before, job.queries):
            new.driver.metrics.inherit(old.driver.metrics)
        job.status = "RUNNING"
        return ctx

    def _failed(self, job: Job, exc: BaseException) -> ExecutionError:
        try:
            job.cancel()
        except Exception:  # noqa: BLE001 - a dead driver cannot stop its queries
            pass
        # Its exception history and end first, then the state: a reader that sees FAILED sees
        # them too (``jobs._info``).
        job.failures.append(_failure(exc))
        job.end_time = job.failures[-1][0] / 1000  # the failure's time is the job's end (its exception history)
        job.status = "FAILED"
        # A checkpoint in whose offsets log an epoch was planned must be restored, not started
        # afresh (``restorable``).
        hint = (f"to resume, SET 'execution.state-recovery.path' = '{job.checkpoint_root}'"
                if job.checkpoint_root and restorable(job.checkpoint_root) else
                "no epoch had started: run the statement again to start over" if job.checkpoint_root
                else None)
        if job.restarts:
            hint = "; ".join(h for h in (f"it had restarted {job.restarts} time{'s' if job.restarts > 1 else ''}",
                                         hint) if h)
        return ExecutionError(f"Job {job.job_id} failed: {root_cause(exc)}", hint=hint)

    def _drive_queries(self, job: Job) -> None:
        stopped = []
        for q in job.queries:
            done = False  # stopped by us once every epoch it ran was committed
            while q.query.isActive:
                q.query.awaitTermination(POLL_SECONDS)
                if finished(q.query, q.driver):
                    q.query.stop()
                    done = True
                elif job.stopping and stop_at_epoch_boundary(q.query, q.driver):
                    stopped.append(q)
                    done = True
            error = q.query.exception()
            if error is not None and done:
                # Our stop interrupts Spark's stream thread wherever it is, e.g. writing the
                # next epoch's offsets to HDFS, whose client reports the interrupt as a plain
                # IOException ("Failed to shutdown streamer") Spark does not recognise as a
                # stop. Every epoch the query ran was committed before the stop: the error
                # loses nothing, and an offsets entry it left unfinished is replayed empty.
                logging.getLogger(__name__).info("Job %s: query %s stopped after its last commit; "
                                                 "the stop interrupted it: %s", job.job_id, q.query.name,
                                                 root_cause(error))
                error = None
            if error is not None and not (job.stopping and "StopRequested" in str(error)):
                raise error
            if job.stopping and q not in stopped:
                stopped.append(q)
        if job.drain and stopped:
            drained = [q.driver.drain() for q in stopped]
            if any(drained) and job.checkpoint_root:
                fs.write_text(os.path.join(job.checkpoint_root, DRAINED),
                              "stopped with drain: every window fired; this checkpoint is final\n")
        job.status = "STOPPED" if stopped else "CANCELED" if job.status == "CANCELED" else "FINISHED"
        for q in stopped:
            last = q.driver.last_epoch
            job.messages.append(
                f"Job {job.job_id} stopped" + (f" after epoch {last} (committed)" if last is not None else "") +
                f". To resume, SET 'execution.state-recovery.path' = '{job.checkpoint_root}';")


def _failure(exc: BaseException) -> tuple[int, str, str]:
    """(time ms, exception class, reason) of a failure, for the job's exception history."""
    return int(time.time() * 1000), root_class(exc), root_cause(exc)


def _consumer(root: PhysicalNode, writer, updating: bool, holder: dict):
    written = holder.setdefault("written", {})  # sink node id -> rows written (when the writer counts)

    def consume(low: Lowered, epoch: int) -> None:
        if not low.empty:
            n = writer.write_epoch(root.op.rows(root.logical, low, updating), epoch, holder["query_id"])
            if isinstance(n, int):
                written[root.id] = written.get(root.id, 0) + n
        wm = low.wm
        writer.end_epoch(epoch, holder["query_id"], lambda: WM_MIN if wm is None else as_int(wm))
    return consume


def _job_name(sinks: list[PhysicalNode]) -> str:
    """Flink's default job name of an INSERT (``insert-into_<catalog.db.table>``)."""
    return "insert-into_" + ",".join(s.logical.table for s in sinks)


def _reads_table(node: PhysicalNode) -> bool:
    return node.op.source or any(_reads_table(c) for c in node.children)


def restorable(path: str) -> bool:
    """A folder holding a Spark streaming checkpoint in whose offsets log at least one epoch
    was planned. Its sinks may have committed that epoch before Spark's commit log says so
    (a crash between the two): only a restore, which replays the epoch with the same
    offsets and lets each sink skip what it committed, keeps such a job exactly once; a
    fresh start would write the committed rows again."""
    return _logged(path, "offsets")


def _has_commit(path: str) -> bool:
    """A checkpoint with an epoch in Spark's commit log (completed, every sink committed)."""
    return _logged(path, "commits")


def _logged(path: str, log: str) -> bool:
    """Whether Spark's ``log`` (``offsets``, ``commits``) holds an epoch in the streaming
    checkpoint ``path`` or in one of the query folders of the job checkpoint ``path``."""
    return any(fs.last_number(os.path.join(path, *query, log)) is not None
               for query in [()] + [(q,) for q in fs.subdirs(path)])


def _batch_metric_messages(ctx: JobContext) -> list[str]:
    """Messages of sources that observed their metrics with a batch ``Observation``."""
    out = []
    for scan in ctx.scans:
        obs = scan.observation
        if obs is None or isinstance(obs, str):
            continue
        for k, v in (obs.get or {}).items():
            if v and k in scan.metric_messages:
                out.append(scan.metric_messages[k].format(n=int(v)))
    return out


def _metric_messages(job: Job, ctx: JobContext) -> list[str]:
    out = []
    for i, scan in enumerate(ctx.scans):
        observed = scan.observation if isinstance(scan.observation, str) else \
            (f"metrics_{i + 1}" if scan.metrics else None)
        if observed is None:
            continue
        totals: dict[str, int] = {}
        for q in job.queries:
            for p in q.query.recentProgress or []:
                for name, values in (p.get("observedMetrics") or {}).items():
                    if name == observed:
                        values = values.asDict() if hasattr(values, "asDict") else dict(values)
                        for k, v in values.items():
                            totals[k] = totals.get(k, 0) + int(v or 0)
        for k, v in totals.items():
            if v and k in scan.metric_messages:
                out.append(scan.metric_messages[k].format(n=v))
    return out
