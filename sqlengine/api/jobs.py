"""The jobs of a session, as a client outside the statements sees them (the REST API, a
dashboard): what each is and how it stands, and the controls Flink's clients have over a
job (cancel now; stop at an epoch boundary, keeping its checkpoint to restore from)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from sqlengine.api.result import job_status


@dataclass(frozen=True)
class JobInfo:
    """One job: Flink's ``JobDetails`` fields (times in ms since the epoch; ``end_ms`` -1
    while it runs)."""

    job_id: str
    name: str
    state: str  # Flink's JobStatus: RUNNING, FINISHED, CANCELED, FAILED
    start_ms: int
    end_ms: int
    tasks: int  # subtasks: the DAG's tasks times their parallelism
    streaming: bool = True
    error: Optional[tuple[str, str]] = None  # a failed job's (exception class, reason), as SHOW JOBS reports it
    restarts: int = 0  # times its restart strategy restarted it (Flink's numRestarts)
    failures: tuple[tuple[int, str, str], ...] = ()  # (time ms, exception class, reason): its exception history

    @property
    def terminal(self) -> bool:
        return self.state in ("FINISHED", "CANCELED", "FAILED")


@dataclass(frozen=True)
class VertexInfo:
    """One task of a job's DAG (Flink's job vertex): its operators chained by forward
    edges, run by ``parallelism`` parallel instances."""

    vertex_id: str  # 32 hex digits, stable for the job and task number
    number: int  # the task's number, as EXPLAIN prints it
    name: str  # the chain's operators, as Flink names a vertex: ``A -> B -> C``
    parallelism: int
    max_parallelism: int
    inputs: tuple[tuple[str, str], ...]  # (upstream vertex id, ship strategy: HASH, FORWARD, GLOBAL, BROADCAST)
    operators: tuple[str, ...] = ()  # its operators' ids, as EXPLAIN prints them (head first)
    source: bool = False  # its head reads a table


NO_WATERMARK = -(1 << 62)  # a node's watermark before it has one (runtime/watermarks.py WM_MIN)
SHIP = {"hash": "HASH", "forward": "FORWARD", "single": "GLOBAL", "broadcast": "BROADCAST"}


def job_vertices(session, job_id: str) -> list[VertexInfo]:
    """The job's tasks, in dependency order (the numbers EXPLAIN prints)."""
    import hashlib
    job = session.jobs.get(job_id)
    if job is None:
        raise UnknownJob(job_id)
    dag = job.dag
    if dag is None:
        return []
    tasks = dag.tasks()
    vid = {t.number: hashlib.md5(f"{job_id}/{t.number}".encode()).hexdigest() for t in tasks}
    task_of = {n.id: t.number for t in tasks for n in t.operators}
    out = []
    for t in tasks:
        inputs = tuple((vid[task_of[src.id]], SHIP[edge.kind]) for src, edge in t.head.inputs
                       if src.id in task_of)
        out.append(VertexInfo(vid[t.number], t.number, " -> ".join(n.label for n in t.operators), t.parallelism,
                              dag.max_parallelism, inputs, tuple(n.id for n in t.operators),
                              not t.head.inputs))
    return out


class UnknownJob(LookupError):
    """No job with this id in the session."""


# A terminal state set before the job's end is known (``Job.cancel`` sets CANCELED while its
# queries stop): Flink's transitional state until then, so a terminal state always has an end.
_ENDING = {"CANCELED": "CANCELLING", "FAILED": "FAILING", "FINISHED": "RUNNING"}


def _info(job) -> JobInfo:
    state = job_status(job)
    end = job.end_time
    if state in _ENDING and end is None:
        state = _ENDING[state]
    elif state not in _ENDING:
        end = None
    error = None
    if job.error is not None:
        reason = str(job.error).strip().splitlines()
        error = (type(job.error).__name__, reason[0] if reason else type(job.error).__name__)
    return JobInfo(job.job_id, job.name, state, int(job.start_time * 1000),
                   -1 if end is None else int(end * 1000), max(job.tasks, 1),
                   job.dag.streaming if job.dag is not None else True, error,
                   getattr(job, "restarts", 0), tuple(getattr(job, "failures", ())))


def job_infos(session) -> list[JobInfo]:
    """The session's jobs, oldest first."""
    return [_info(j) for j in sorted(list(session.jobs.values()), key=lambda j: j.start_time)]


def job_info(session, job_id: str) -> JobInfo:
    job = session.jobs.get(job_id)
    if job is None:
        raise UnknownJob(job_id)
    return _info(job)


def cancel_job(session, job_id: str) -> JobInfo:
    """Flink's cancel: the job stops now, without waiting for an epoch boundary (its last
    completed checkpoint stays). Returns the job as it stood before."""
    job = session.jobs.get(job_id)
    if job is None:
        raise UnknownJob(job_id)
    before = _info(job)
    if not before.terminal:
        job.cancel()
    return before


def stop_job(session, job_id: str, target_directory: Optional[str] = None,
             timeout: Optional[float] = None, drain: bool = False) -> Optional[str]:
    """Stop at an epoch boundary (the running epoch commits, no further one starts; with
    ``drain``, one more epoch in which every source has ended fires every window, and
    the checkpoint is final). Returns the path to restore from (``execution.state-recovery.path``), None if no epoch
    was committed: with ``target_directory``, a savepoint taken there
    (``savepoint-<job id prefix>-<random>``, as Flink names one), else the job's checkpoint."""
    job = session.jobs.get(job_id)
    if job is None:
        raise UnknownJob(job_id)
    root = job.stop(timeout, drain=drain)
    if root is None or not target_directory:
        return root
    return job.savepoint(savepoint_path(job_id, target_directory))


def savepoint_path(job_id: str, target_directory: str) -> str:
    """A new savepoint's folder in ``target_directory``, named as Flink names one."""
    from sqlengine.runtime.savepoint import new_path
    return new_path(job_id, target_directory)


def savepoint_job(session, job_id: str, target_directory: str) -> Optional[str]:
    """A savepoint of a running job, taken between two epochs into ``target_directory``
    while it keeps running. Returns the path (None if no epoch was committed yet)."""
    job = session.jobs.get(job_id)
    if job is None:
        raise UnknownJob(job_id)
    return job.savepoint(savepoint_path(job_id, target_directory))


def stop_all(session, timeout: Optional[float] = None) -> list[tuple[str, Optional[str]]]:
    """Stop every running job at an epoch boundary (a cluster shutting down): each job's
    id and the checkpoint to restore it from (None if it had committed no epoch)."""
    running = [j for j in list(session.jobs.values()) if not j.done.is_set()]
    for job in running:
        job.stop_event.set()
    return [(job.job_id, job.stop(timeout)) for job in running]


@dataclass(frozen=True)
class VertexMetrics:
    """A vertex's metrics under Flink's names (what is known: sources count their rows)."""

    records_in: Optional[int]
    records_out: Optional[int]
    records_out_per_second: Optional[float]
    input_watermark: Optional[int]  # ms; None before the first epoch
    output_watermark: Optional[int]
    busy_ratio: float
    pending: Optional[dict[str, int]] = None  # a source's records not read yet, per split metric name
    written: Optional[int] = None  # a sink's rows written (sinks that count them)


@dataclass(frozen=True)
class CheckpointInfo:
    """A completed epoch, as Flink's checkpoint statistics show one."""

    checkpoint_id: int
    trigger_ms: int
    end_ms: int
    duration_ms: int
    records: int
    state_size: int


@dataclass(frozen=True)
class JobMetricsInfo:
    vertices: dict[str, VertexMetrics]  # vertex id -> its metrics
    checkpoints: list[CheckpointInfo]  # the recent ones, oldest first
    completed: int
    busy_ratio: float
    restored_from: Optional[str] = None


def job_metrics(session, job_id: str) -> JobMetricsInfo:
    """The job's metrics now: per vertex, and its epochs (checkpoints)."""
    from sqlengine.runtime.metrics import merged
    job = session.jobs.get(job_id)
    if job is None:
        raise UnknownJob(job_id)
    snap = merged([q.driver.metrics for q in list(job.queries) if getattr(q, "driver", None) is not None])
    vertices = job_vertices(session, job_id)
    out_wm: dict[str, Optional[int]] = {}
    found: dict[str, VertexMetrics] = {}
    for v in vertices:  # dependency order: a vertex's inputs come before it
        marks = [snap.watermarks[o] for o in v.operators if o in snap.watermarks and snap.watermarks[o] > NO_WATERMARK]
        output = marks[-1] if marks else None
        ins = [out_wm.get(src) for src, _ in v.inputs]
        inp = min((w for w in ins if w is not None), default=None) if ins else output
        out_wm[v.vertex_id] = output
        rows = sum(snap.records.get(o, 0) for o in v.operators) if v.source else None
        rate = sum(snap.rates.get(o, 0.0) for o in v.operators) if v.source else None
        pending = None
        if v.source and any(o in snap.lags for o in v.operators):
            pending = {k: n for o in v.operators for k, n in snap.lags.get(o, {}).items()}
        sinks = [o for o in v.operators if o in snap.written]
        written = sum(snap.written[o] for o in sinks) if sinks else None
        found[v.vertex_id] = VertexMetrics(0 if v.source else None, rows, rate, inp, output, snap.busy_ratio, pending,
                                           written)
    checkpoints = [CheckpointInfo(e.epoch, e.trigger_ms, e.end_ms, e.duration_ms, e.records, e.state_size)
                   for e in snap.epochs]
    return JobMetricsInfo(found, checkpoints, snap.completed, snap.busy_ratio,
                          getattr(job, "restored_from", None))


def executors(session) -> list[dict]:
    """Spark's executors (Flink's TaskManagers): id, host, port, cores, memory (bytes)."""
    sc = session.spark.sparkContext
    out = []
    infos = sc._jsc.sc().statusTracker().getExecutorInfos()
    master = sc.master
    local_cores = None
    if master.startswith("local"):
        import os
        inner = master[master.find("[") + 1: master.find("]")] if "[" in master else "1"
        local_cores = os.cpu_count() or 1 if inner == "*" else int(inner.split(",")[0]) if inner.isdigit() or \
            inner.split(",")[0].isdigit() else 1
    for info in infos:
        out.append({"host": info.host(), "port": int(info.port()), "running_tasks": int(info.numRunningTasks()),
                    "cores": local_cores, "memory": int(info.totalOnHeapStorageMemory())})
    return out


def epoch_interval_ms(session, job_id: str) -> int:
    """How often the job's epochs start (0: back to back), as Flink's checkpoint interval."""
    job = session.jobs.get(job_id)
    if job is None:
        raise UnknownJob(job_id)
    from sqlengine.config import checkpoint_interval_ms
    return checkpoint_interval_ms(session.conf)


def restorable(path: str) -> bool:
    """Whether ``path`` holds a checkpoint a job must be restored from (an epoch was planned
    in it: its sinks may have committed it), rather than started afresh."""
    from sqlengine.runtime.job import restorable as planned
    return planned(path)


def discard_checkpoint(path: str) -> None:
    """Delete the checkpoint folder ``path`` (local or remote), if there is one."""
    from sqlengine.runtime import fs
    fs.rmtree(path)
