"""Flink's REST API (the Dispatcher's, port 8081) over the jobs of a session.

The paths, verbs, JSON fields and status codes are Flink 2.3's (``rest_v1_dispatcher.yml``
and what Flink's ``RestClusterClient`` sends and reads), so Flink's own ``flink`` command
line works against it unchanged (``flink list -m host:port``, ``flink cancel``). Every path
is served with and without the ``/v1`` prefix; slashes at either end do not matter; an
error is ``{"errors": [...]}`` with Flink's status code, never a stack trace.

Served so far: ``/config``, ``/overview``, ``/jobs``, ``/jobs/overview``,
``/jobs/:jobid`` (vertices = the DAG's tasks), ``/jobs/:jobid/plan``,
``/jobs/:jobid/exceptions``, ``/jobs/:jobid/status``, ``PATCH /jobs/:jobid?mode=cancel``,
and stop-with-savepoint:
``POST /jobs/:jobid/stop`` answered with a trigger id, whose status
``GET /jobs/:jobid/savepoints/:triggerid`` gives (the savepoint's location once the job
has stopped at an epoch boundary).
"""
from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import time
import uuid
from typing import Callable, Optional

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from sqlengine.api.jobs import (CheckpointInfo, JobInfo, JobMetricsInfo, UnknownJob, VertexInfo, VertexMetrics, cancel_job,
                                executors, job_info, job_infos, job_metrics, job_vertices, savepoint_job, stop_job)
from sqlengine.api.secrets import mask_sql
from sqlengine.version import __version__

log = logging.getLogger("sqlengine.service")

FLINK_VERSION = "2.3.0"  # the version whose REST API this is
JOB_ID = re.compile(r"^[0-9a-fA-F]{32}$")
# Flink's ExecutionState names, as /jobs/overview counts a job's tasks by them.
TASK_STATES = ("created", "scheduled", "deploying", "running", "finished", "canceling", "canceled",
               "failed", "reconciling", "initializing")
HEADERS = {"Access-Control-Allow-Origin": "*"}


def _json(body: object, status: int = 200) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers=HEADERS)


def errors(status: int, *messages: str) -> JSONResponse:
    """Flink's error body: ``{"errors": [...]}`` and nothing else."""
    return _json({"errors": list(messages)}, status)


def _job_tasks(job: JobInfo) -> dict:
    """A job's subtasks by execution state (all in one state: the job's)."""
    state = {"RUNNING": "running", "FINISHED": "finished", "CANCELED": "canceled",
             "FAILED": "failed", "CANCELLING": "canceling"}.get(job.state, "running")
    counts = {s: 0 for s in TASK_STATES}
    counts[state] = job.tasks
    return {"total": job.tasks, **counts}


def overview_row(job: JobInfo, now_ms: int) -> dict:
    """Flink's ``JobDetails`` (the rows of ``/jobs/overview``)."""
    end = job.end_ms
    duration = (end if end >= 0 else now_ms) - job.start_ms
    return {"jid": job.job_id, "name": job.name, "start-time": job.start_ms, "end-time": end,
            "duration": max(duration, 0), "state": job.state,
            "last-modification": end if end >= 0 else job.start_ms, "tasks": _job_tasks(job),
            "pending-operators": 0, "jobType": _job_type(job), "schedulerType": "Default"}


def _job_type(job: JobInfo) -> str:
    return "STREAMING" if job.streaming else "BATCH"


class RestApi:
    """The routes over one session's jobs (``jobs``: the session, read on every request)."""

    def __init__(self, session, conf: Optional[dict[str, str]] = None):
        self.session = session
        self.conf = conf if conf is not None else session.conf
        self.triggers: dict[tuple[str, str], dict] = {}  # (job id, trigger id) -> its outcome

    # -- cluster ------------------------------------------------------------------------
    async def config(self, request: Request) -> Response:
        offset = -time.altzone if time.daylight and time.localtime().tm_isdst else -time.timezone
        return _json({"refresh-interval": 3000, "timezone-name": time.tzname[0], "timezone-offset": offset * 1000,
                      "flink-version": FLINK_VERSION, "flink-revision": f"sqlengine {__version__}",
                      "features": {"web-submit": False, "web-cancel": True, "web-rescale": False,
                                   "web-history": False}})

    async def overview(self, request: Request) -> Response:
        jobs = job_infos(self.session)
        slots = int(self.conf.get("parallelism.default", "2") or 2)
        running = sum(1 for j in jobs if not j.terminal)
        return _json({"taskmanagers": 1, "slots-total": slots, "slots-available": slots,
                      "slots-free-and-blocked": 0, "taskmanagers-blocked": 0,
                      "jobs-running": running,
                      "jobs-finished": sum(1 for j in jobs if j.state == "FINISHED"),
                      "jobs-cancelled": sum(1 for j in jobs if j.state == "CANCELED"),
                      "jobs-failed": sum(1 for j in jobs if j.state == "FAILED"),
                      "flink-version": FLINK_VERSION, "flink-commit": f"sqlengine {__version__}"})

    # -- jobs ---------------------------------------------------------------------------
    async def jobs(self, request: Request) -> Response:
        return _json({"jobs": [{"id": j.job_id, "status": j.state} for j in job_infos(self.session)]})

    async def jobs_overview(self, request: Request) -> Response:
        now = int(time.time() * 1000)
        return _json({"jobs": [overview_row(j, now) for j in job_infos(self.session)]})

    def _job(self, request: Request) -> JobInfo | JSONResponse:
        job_id = request.path_params["jobid"]
        if not JOB_ID.match(job_id):
            return errors(400, f"Bad request, could not parse parameters: Cannot resolve path parameter (jobid) "
                               f"from value \"{job_id}\".")
        try:
            return job_info(self.session, job_id.lower())
        except UnknownJob:
            return errors(404, "Job could not be found.")

    def _plan(self, job: JobInfo, vertices: list[VertexInfo]) -> dict:
        """Flink's JSON plan: a node per vertex, its inputs with their ship strategies."""
        nodes = [{"id": v.vertex_id, "parallelism": v.parallelism, "operator": "", "operator_strategy": "",
                  "description": v.name, "optimizer_properties": {},
                  "inputs": [{"num": i, "id": src, "ship_strategy": ship, "exchange": "pipelined_bounded"}
                             for i, (src, ship) in enumerate(v.inputs)]} for v in vertices]
        return {"jid": job.job_id, "name": job.name, "type": _job_type(job), "nodes": nodes}

    async def job_details(self, request: Request) -> Response:
        """``GET /jobs/:jobid``: the job, its vertices (the DAG's tasks) and its plan."""
        job = self._job(request)
        if isinstance(job, JSONResponse):
            return job
        now = int(time.time() * 1000)
        vertices = job_vertices(self.session, job.job_id)
        end = job.end_ms
        duration = max((end if end >= 0 else now) - job.start_ms, 0)
        tasks = _job_tasks(job)
        vertex_state = next((k.upper() for k, n in tasks.items() if k != "total" and n), "RUNNING")
        counts = {s.upper(): 0 for s in TASK_STATES}
        measured = self._metrics(job)
        body = {"jid": job.job_id, "name": job.name, "isStoppable": False, "state": job.state,
                "job-type": _job_type(job), "schedulerType": "Default", "start-time": job.start_ms, "end-time": end,
                "duration": duration, "maxParallelism": -1, "now": now, "pending-operators": 0,
                "timestamps": {**{s: 0 for s in ("INITIALIZING", "CREATED", "RUNNING", "FAILING", "FAILED",
                                                 "CANCELLING", "CANCELED", "FINISHED", "RESTARTING", "SUSPENDED",
                                                 "RECONCILING")},
                               "INITIALIZING": job.start_ms, "CREATED": job.start_ms, "RUNNING": job.start_ms,
                               **({job.state: end} if end >= 0 else {})},
                "vertices": [{"id": v.vertex_id, "slotSharingGroupId": v.vertex_id, "name": v.name,
                              "maxParallelism": v.max_parallelism, "parallelism": v.parallelism,
                              "status": vertex_state, "start-time": job.start_ms, "end-time": end,
                              "duration": duration, "tasks": {**counts, vertex_state: v.parallelism},
                              "metrics": self._vertex_metrics_json(measured.vertices.get(v.vertex_id))}
                             for v in vertices],
                "status-counts": {**counts, vertex_state: len(vertices)},
                "plan": self._plan(job, vertices)}
        return _json(body)

    async def job_plan(self, request: Request) -> Response:
        job = self._job(request)
        if isinstance(job, JSONResponse):
            return job
        return _json({"plan": self._plan(job, job_vertices(self.session, job.job_id))})

    async def job_exceptions(self, request: Request) -> Response:
        """``GET /jobs/:jobid/exceptions``: a failed job's failure (its class and reason; the
        traces stay in the log file, as on the terminal)."""
        job = self._job(request)
        if isinstance(job, JSONResponse):
            return job
        # Every failure: those it restarted from, and the one it failed with (newest first, as Flink).
        failures = list(job.failures) or ([(job.end_ms, *job.error)] if job.error is not None else [])
        entries = [{"exceptionName": name, "stacktrace": mask_sql(reason), "timestamp": at,
                    "taskName": None, "endpoint": None, "taskManagerId": None, "failureLabels": {},
                    "concurrentExceptions": []} for at, name, reason in reversed(failures)]
        return _json({"exceptionHistory": {"entries": entries, "truncated": False}})

    async def job_status(self, request: Request) -> Response:
        job = self._job(request)
        if isinstance(job, JSONResponse):
            return job
        return _json({"status": job.state})

    async def job_patch(self, request: Request) -> Response:
        """``PATCH /jobs/:jobid?mode=cancel``: 202 ``{}`` (Flink's JobCancellationHandler)."""
        mode = request.query_params.get("mode", "cancel").lower()
        if mode != "cancel":
            return errors(400, f"Bad request, could not parse parameters: mode '{mode}' is not supported; "
                               f"use stop-with-savepoint (POST /jobs/:jobid/stop).")
        job = self._job(request)
        if isinstance(job, JSONResponse):
            return job
        if job.terminal:
            return errors(409, f"Job cancellation failed because the job has already reached another terminal "
                               f"state ({job.state}).")
        cancel_job(self.session, job.job_id)
        log.info("REST: cancelled job %s", job.job_id)
        return _json({}, 202)

    async def job_stop(self, request: Request) -> Response:
        """``POST /jobs/:jobid/stop`` (``targetDirectory``, ``drain``, ``triggerId``): the job
        stops at an epoch boundary; 202 with the trigger id to poll."""
        job = self._job(request)
        if isinstance(job, JSONResponse):
            return job
        body = await _body(request)
        if body is None:
            return errors(400, "Bad request, the request body is not valid JSON.")
        if job.terminal:
            return errors(409, f"Job {job.job_id} is not running (its state is {job.state}).")
        target = body.get("targetDirectory") or self.conf.get("execution.checkpointing.savepoint-dir")
        drain = bool(body.get("drain"))
        return self._trigger(job, body, "stop", lambda: stop_job(self.session, job.job_id, target, drain=drain))

    def _trigger(self, job: JobInfo, body: dict, kind: str, action: Callable[[], Optional[str]]) -> Response:
        """Run ``action`` (a stop or a savepoint: the savepoint's path) in the background;
        202 with the trigger id its outcome is polled by (``savepoints/:triggerid``)."""
        trigger = str(body.get("triggerId") or uuid.uuid4().hex)
        key = (job.job_id, trigger)
        if key in self.triggers:  # a client-chosen trigger id: the request is idempotent
            return _json({"request-id": trigger}, 202)
        outcome: dict = {}
        self.triggers[key] = outcome

        def run() -> None:
            try:
                outcome["location"] = action()
            except Exception as exc:  # noqa: BLE001 - reported to the poller
                log.exception("REST: the %s of job %s failed", kind, job.job_id)
                outcome["error"] = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            outcome["done"] = True
        threading.Thread(target=run, name=f"{kind}-{job.job_id[:8]}", daemon=True).start()
        log.info("REST: %s of job %s (trigger %s)", kind, job.job_id, trigger)
        return _json({"request-id": trigger}, 202)

    async def savepoint_status(self, request: Request) -> Response:
        """``GET /jobs/:jobid/savepoints/:triggerid``: IN_PROGRESS, then COMPLETED with the
        location; a failure is an error body (Flink's ``failure-cause`` is a serialized
        Java exception, which no client outside the JVM can make)."""
        job_id, trigger = request.path_params["jobid"].lower(), request.path_params["triggerid"]
        outcome = self.triggers.get((job_id, trigger))
        if outcome is None:
            return errors(404, f"There is no savepoint operation with triggerId={trigger} for job {job_id}.")
        if not outcome.get("done"):
            return _json({"status": {"id": "IN_PROGRESS"}, "operation": None})
        outcome["delivered"] = True
        if "error" in outcome:
            return errors(500, f"Savepoint failed: {outcome['error']}")
        if outcome.get("location") is None:
            return errors(500, f"Savepoint failed: job {job_id} stopped before its first checkpoint completed, "
                               f"so there is nothing to restore from.")
        return _json({"status": {"id": "COMPLETED"}, "operation": {"location": _uri(outcome["location"])}})

    async def savepoint_trigger(self, request: Request) -> Response:
        """``POST /jobs/:jobid/savepoints`` (``target-directory``, ``cancel-job``,
        ``triggerId``): a savepoint of the running job, taken between two epochs; 202 with
        the trigger id to poll (``GET /jobs/:jobid/savepoints/:triggerid``)."""
        job = self._job(request)
        if isinstance(job, JSONResponse):
            return job
        body = await _body(request)
        if body is None:
            return errors(400, "Bad request, the request body is not valid JSON.")
        if job.terminal:
            return errors(409, f"Job {job.job_id} is not running (its state is {job.state}).")
        target = body.get("target-directory") or self.conf.get("execution.checkpointing.savepoint-dir") or \
            self.conf.get("state.savepoints.dir")
        if not target:
            return errors(400, "Config key [execution.checkpointing.savepoint-dir] is not set. Property "
                               "[target-directory] must be provided.")
        cancel = bool(body.get("cancel-job"))

        def take() -> Optional[str]:
            location = savepoint_job(self.session, job.job_id, target)
            if cancel:
                cancel_job(self.session, job.job_id)
            return location
        return self._trigger(job, body, "savepoint", take)

    def undelivered(self) -> int:
        """Stop-with-savepoint requests whose outcome no client has fetched yet."""
        return sum(1 for o in list(self.triggers.values()) if not o.get("delivered"))

    # -- metrics and checkpoints ------------------------------------------------------------
    def _metrics(self, job: JobInfo) -> JobMetricsInfo:
        return job_metrics(self.session, job.job_id)

    def _vertex(self, request: Request) -> tuple[JobInfo, VertexInfo, JobMetricsInfo] | JSONResponse:
        """The job, the vertex the path names, and the job's metrics (read once)."""
        job = self._job(request)
        if isinstance(job, JSONResponse):
            return job
        vid = request.path_params["vertexid"].lower()
        for v in job_vertices(self.session, job.job_id):
            if v.vertex_id == vid:
                return job, v, self._metrics(job)
        return errors(404, f"JobVertex {vid} not found in job {job.job_id}.")

    @staticmethod
    def _vertex_values(m: Optional[VertexMetrics]) -> dict[str, str]:
        """A vertex's metrics by Flink's names (values are strings, as Flink sends them)."""
        if m is None:
            return {}
        out: dict[str, str] = {}
        if m.records_in is not None:
            out["numRecordsIn"] = str(m.records_in)
        if m.records_out is not None:
            out["numRecordsOut"] = str(m.records_out)
            out["numRecordsOutPerSecond"] = f"{m.records_out_per_second or 0.0:.3f}"
            out["numRecordsInPerSecond"] = "0.0"
        if m.input_watermark is not None:
            out["currentInputWatermark"] = str(m.input_watermark)
        if m.output_watermark is not None:
            out["currentOutputWatermark"] = str(m.output_watermark)
        if m.written is not None:  # a sink's records sent out (FLIP-33's numRecordsSend)
            out["numRecordsSend"] = str(m.written)
        if m.pending is not None:  # FLIP-33's pendingRecords, and per split (a Kafka partition's)
            out["pendingRecords"] = str(sum(m.pending.values()))
            out.update({f"{k}.pendingRecords": str(n) for k, n in sorted(m.pending.items())})
        out["busyTimeMsPerSecond"] = str(int(m.busy_ratio * 1000))
        out["idleTimeMsPerSecond"] = str(1000 - int(m.busy_ratio * 1000))
        out["backPressuredTimeMsPerSecond"] = "0"
        return out

    def _vertex_metrics_json(self, m: Optional[VertexMetrics]) -> dict:
        rin = m.records_in if m is not None and m.records_in is not None else 0
        rout = m.records_out if m is not None and m.records_out is not None else \
            m.written if m is not None and m.written is not None else 0
        known = m is not None and (m.records_out is not None or m.written is not None)
        return {"read-bytes": 0, "read-bytes-complete": False, "write-bytes": 0, "write-bytes-complete": False,
                "read-records": rin, "read-records-complete": known, "write-records": rout,
                "write-records-complete": known, "accumulated-backpressured-time": 0,
                "accumulated-idle-time": 0, "accumulated-busy-time": float(m.busy_ratio if m else 0.0)}

    async def vertex_details(self, request: Request) -> Response:
        """``GET /jobs/:jobid/vertices/:vertexid``: the vertex and its subtasks."""
        found = self._vertex(request)
        if isinstance(found, JSONResponse):
            return found
        job, v, measured = found
        m = measured.vertices.get(v.vertex_id)
        now = int(time.time() * 1000)
        end = job.end_ms
        state = _task_state(job)
        subtasks = [{"subtask": i, "status": state, "attempt": 0, "endpoint": "localhost", "start-time": job.start_ms,
                     "start_time": job.start_ms, "end-time": end,
                     "duration": max((end if end >= 0 else now) - job.start_ms, 0),
                     "metrics": self._vertex_metrics_json(None), "taskmanager-id": "spark-driver",
                     "status-duration": {}, "other-concurrent-attempts": []} for i in range(v.parallelism)]
        return _json({"id": v.vertex_id, "name": v.name, "parallelism": v.parallelism,
                      "maxParallelism": v.max_parallelism, "now": now, "subtasks": subtasks,
                      "aggregated": self._vertex_metrics_json(m)})

    async def vertex_metrics(self, request: Request) -> Response:
        """``GET /jobs/:jobid/vertices/:vertexid/metrics[?get=a,b]`` (Flink's bare array)."""
        found = self._vertex(request)
        if isinstance(found, JSONResponse):
            return found
        _, v, measured = found
        values = self._vertex_values(measured.vertices.get(v.vertex_id))
        return _json(_metric_list(values, request))

    async def vertex_watermarks(self, request: Request) -> Response:
        found = self._vertex(request)
        if isinstance(found, JSONResponse):
            return found
        _, v, measured = found
        m = measured.vertices.get(v.vertex_id)
        if m is None or m.input_watermark is None:
            return _json([])
        return _json([{"id": f"{i}.currentInputWatermark", "value": str(m.input_watermark)}
                      for i in range(v.parallelism)])

    async def vertex_backpressure(self, request: Request) -> Response:
        """Backpressure: how much of the wall time the job spends in epochs (an epoch that
        takes longer than its trigger interval holds the sources back)."""
        found = self._vertex(request)
        if isinstance(found, JSONResponse):
            return found
        _, v, measured = found
        busy = measured.busy_ratio
        level = "high" if busy > 0.5 else "low" if busy > 0.1 else "ok"
        return _json({"status": "ok", "backpressureLevel": level, "end-timestamp": int(time.time() * 1000),
                      "subtasks": [{"subtask": i, "attempt-number": 0, "backpressureLevel": level,
                                    "ratio": round(busy, 3), "idleRatio": round(1 - busy, 3),
                                    "busyRatio": round(busy, 3), "other-concurrent-attempts": []}
                                   for i in range(v.parallelism)]})

    def _job_values(self, job: JobInfo, m: Optional[JobMetricsInfo] = None) -> dict[str, str]:
        m = m if m is not None else self._metrics(job)
        last = m.checkpoints[-1] if m.checkpoints else None
        now = int(time.time() * 1000)
        return {"numberOfCompletedCheckpoints": str(m.completed), "numberOfFailedCheckpoints": "0",
                "numberOfInProgressCheckpoints": "0", "totalNumberOfCheckpoints": str(m.completed),
                "lastCheckpointDuration": str(last.duration_ms if last else -1),
                "lastCheckpointSize": str(last.state_size if last else -1),
                "lastCheckpointFullSize": str(last.state_size if last else -1),
                "numRestarts": str(job.restarts),
                "uptime": str(max(now - job.start_ms, 0) if not job.terminal else 0)}

    async def job_metric_values(self, request: Request) -> Response:
        job = self._job(request)
        if isinstance(job, JSONResponse):
            return job
        return _json(_metric_list(self._job_values(job), request))

    @staticmethod
    def _checkpoint(c: CheckpointInfo, tasks: int) -> dict:
        return {"className": "completed", "id": c.checkpoint_id, "status": "COMPLETED", "is_savepoint": False,
                "trigger_timestamp": c.trigger_ms, "latest_ack_timestamp": c.end_ms,
                "checkpointed_size": c.state_size, "state_size": c.state_size,
                "end_to_end_duration": c.duration_ms, "alignment_buffered": 0, "processed_data": c.records,
                "persisted_data": 0, "num_subtasks": tasks, "num_acknowledged_subtasks": tasks,
                "checkpoint_type": "CHECKPOINT", "tasks": {}, "discarded": False}

    async def job_checkpoints(self, request: Request) -> Response:
        """``GET /jobs/:jobid/checkpoints``: the epochs as Flink's checkpoint statistics."""
        job = self._job(request)
        if isinstance(job, JSONResponse):
            return job
        m = self._metrics(job)
        history = [self._checkpoint(c, job.tasks) for c in reversed(m.checkpoints)]

        def stats(values: list[int]) -> dict:
            if not values:
                return {k: 0 for k in ("min", "max", "avg", "p50", "p90", "p95", "p99", "p999")}
            ordered = sorted(values)
            q = lambda f: ordered[min(int(f * len(ordered)), len(ordered) - 1)]  # noqa: E731
            return {"min": ordered[0], "max": ordered[-1], "avg": sum(ordered) // len(ordered), "p50": q(.5),
                    "p90": q(.9), "p95": q(.95), "p99": q(.99), "p999": q(.999)}
        sizes = [c.state_size for c in m.checkpoints]
        return _json({"counts": {"restored": 1 if m.restored_from else 0, "total": m.completed, "in_progress": 0,
                                 "completed": m.completed, "failed": 0},
                      "summary": {"checkpointed_size": stats(sizes), "state_size": stats(sizes),
                                  "end_to_end_duration": stats([c.duration_ms for c in m.checkpoints]),
                                  "alignment_buffered": stats([]), "processed_data": stats([]),
                                  "persisted_data": stats([])},
                      "latest": {"completed": history[0]} if history else {},  # none yet: left out
                      "history": history})

    async def checkpoint_config(self, request: Request) -> Response:
        job = self._job(request)
        if isinstance(job, JSONResponse):
            return job
        from sqlengine.api.jobs import epoch_interval_ms
        return _json({"mode": "exactly_once", "interval": epoch_interval_ms(self.session, job.job_id),
                      "timeout": 600000, "min_pause": 0, "max_concurrent": 1,
                      "externalization": {"enabled": True, "delete_on_cancellation": False},
                      "state_backend": "HashMapStateBackend", "checkpoint_storage": "FileSystemCheckpointStorage",
                      "unaligned_checkpoints": False, "tolerable_failed_checkpoints": 0,
                      "aligned_checkpoint_timeout": 0, "checkpoints_after_tasks_finish": True,
                      "state_changelog_enabled": False, "changelog_periodic_materialization_interval": 0,
                      "changelog_storage": "memory"})

    async def checkpoint_details(self, request: Request) -> Response:
        job = self._job(request)
        if isinstance(job, JSONResponse):
            return job
        raw = request.path_params["checkpointid"]
        if not raw.lstrip("-").isdigit():
            return errors(400, f"Bad request, could not parse parameters: Cannot resolve path parameter "
                               f"(checkpointid) from value \"{raw}\".")
        for c in self._metrics(job).checkpoints:
            if c.checkpoint_id == int(raw):
                return _json(self._checkpoint(c, job.tasks))
        return errors(404, f"Could not find checkpointing statistics for checkpoint {raw}.")

    async def taskmanagers(self, request: Request) -> Response:
        """``GET /taskmanagers``: Spark's executors (the driver's, in local mode)."""
        rows = []
        for e in executors(self.session):
            cores = e["cores"] or 1
            resource = {"cpuCores": float(cores), "taskHeapMemory": e["memory"] // (1 << 20),
                        "taskOffHeapMemory": 0, "managedMemory": 0, "networkMemory": 0, "extendedResources": {}}
            address = f"{e['host']}:{e['port']}"
            rows.append({"id": hashlib.md5(address.encode()).hexdigest(), "path": f"spark://{address}",
                         "dataPort": e["port"], "jmxPort": -1, "timeSinceLastHeartbeat": int(time.time() * 1000),
                         "slotsNumber": cores, "freeSlots": max(cores - e["running_tasks"], 0),
                         "totalResource": resource, "freeResource": resource,
                         "hardware": {"cpuCores": cores, "physicalMemory": e["memory"], "freeMemory": e["memory"],
                                      "managedMemory": 0},
                         "memoryConfiguration": {}, "blocked": False})
        return _json({"taskmanagers": rows})

    async def prometheus(self, request: Request) -> Response:
        """``GET /metrics``: every job's and vertex's metrics as Prometheus text (names as
        Flink's PrometheusReporter writes them)."""
        lines: list[str] = []
        seen: set[str] = set()

        def sample(name: str, labels: dict[str, str], value: str) -> None:
            name = re.sub(r"[^a-zA-Z0-9_:]", "_", name)  # as Flink's PrometheusReporter
            if name not in seen:
                seen.add(name)
                lines.append(f"# TYPE {name} gauge")
            text = ",".join(f'{k}="{_prom_escape(v)}"' for k, v in labels.items())
            lines.append(f"{name}{{{text}}} {value}")
        for job in job_infos(self.session):
            base = {"job_id": job.job_id, "job_name": job.name}
            m = self._metrics(job)  # once per job: reading it asks Spark and the sources
            for k, v in self._job_values(job, m).items():
                sample(f"flink_jobmanager_job_{k}", base, v)
            for v in job_vertices(self.session, job.job_id):
                for k, val in self._vertex_values(m.vertices.get(v.vertex_id)).items():
                    sample(f"flink_taskmanager_job_task_{k}",
                           {**base, "task_id": v.vertex_id, "task_name": v.name}, val)
        return Response("\n".join(lines) + "\n", media_type="text/plain; version=0.0.4; charset=utf-8",
                        headers=HEADERS)

    def routes(self) -> list[Route]:
        table = [("/config", self.config, ["GET"]), ("/overview", self.overview, ["GET"]),
                 ("/jobs", self.jobs, ["GET"]), ("/jobs/overview", self.jobs_overview, ["GET"]),
                 ("/jobs/{jobid}/status", self.job_status, ["GET"]), ("/jobs/{jobid}", self.job_patch, ["PATCH"]),
                 ("/jobs/{jobid}", self.job_details, ["GET"]), ("/jobs/{jobid}/plan", self.job_plan, ["GET"]),
                 ("/jobs/{jobid}/exceptions", self.job_exceptions, ["GET"]),
                 ("/jobs/{jobid}/stop", self.job_stop, ["POST"]),
                 ("/jobs/{jobid}/savepoints", self.savepoint_trigger, ["POST"]),
                 ("/jobs/{jobid}/savepoints/{triggerid}", self.savepoint_status, ["GET"]),
                 ("/jobs/{jobid}/metrics", self.job_metric_values, ["GET"]),
                 ("/jobs/{jobid}/checkpoints", self.job_checkpoints, ["GET"]),
                 ("/jobs/{jobid}/checkpoints/config", self.checkpoint_config, ["GET"]),
                 ("/jobs/{jobid}/checkpoints/details/{checkpointid}", self.checkpoint_details, ["GET"]),
                 ("/jobs/{jobid}/vertices/{vertexid}", self.vertex_details, ["GET"]),
                 ("/jobs/{jobid}/vertices/{vertexid}/metrics", self.vertex_metrics, ["GET"]),
                 ("/jobs/{jobid}/vertices/{vertexid}/watermarks", self.vertex_watermarks, ["GET"]),
                 ("/jobs/{jobid}/vertices/{vertexid}/backpressure", self.vertex_backpressure, ["GET"]),
                 ("/taskmanagers", self.taskmanagers, ["GET"])]
        return [Route(prefix + path, fn, methods=methods) for prefix in ("", "/v1") for path, fn, methods in table] + \
            [Route("/metrics", self.prometheus, methods=["GET"])]


def _metric_list(values: dict[str, str], request: Request) -> list[dict]:
    """Flink's metrics answer: the names without ``get``, else the asked-for values (names it
    does not know are left out)."""
    asked = request.query_params.get("get")
    if asked is None:
        return [{"id": k} for k in values]
    return [{"id": k, "value": values[k]} for k in (a.strip() for a in asked.split(",")) if k in values]


def _prom_escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _task_state(job: JobInfo) -> str:
    return {"RUNNING": "RUNNING", "FINISHED": "FINISHED", "CANCELED": "CANCELED", "FAILED": "FAILED"}.get(
        job.state, "RUNNING")


async def _body(request: Request) -> Optional[dict]:
    """A request's JSON object (Flink's clients send ``{}`` even with GET); None if not JSON."""
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def _uri(path: str) -> str:
    """A local path as Flink prints a savepoint's location (``file:/...``)."""
    return path if ":" in path.split("/", 1)[0] else f"file:{path}"


def app(api: Optional[RestApi], extra: Optional[list[Route]] = None) -> Callable:
    """The ASGI application: ``api``'s routes (Flink's REST API) and ``extra`` ones (the SQL
    Gateway's, which a cluster serves on its REST port too: their paths do not collide)."""

    async def not_found(request: Request, exc) -> Response:
        return errors(404, f"Not found: {request.url.path}")

    async def not_allowed(request: Request, exc) -> Response:
        return errors(405, f"Not found: {request.url.path}")

    async def failed(request: Request, exc) -> Response:  # never a stack trace on the wire
        log.exception("REST: %s %s failed", request.method, request.url.path)
        return errors(500, "Internal server error.")

    routes = (api.routes() if api is not None else []) + list(extra or [])
    application = Starlette(routes=routes, exception_handlers={404: not_found, 405: not_allowed,
                                                                        Exception: failed})
    return _slashes(application)


def _slashes(inner: Callable) -> Callable:
    """Flink's router ignores slashes at either end of a path (``/jobs/`` is ``/jobs``)."""
    async def asgi(scope, receive, send):
        if scope["type"] == "http":
            path = "/" + scope["path"].strip("/")
            if path != scope["path"]:
                scope = dict(scope, path=path, raw_path=path.encode())
        await inner(scope, receive, send)
    return asgi


class RestServer:
    """The REST endpoint in a background thread of this process (uvicorn)."""

    def __init__(self, session, host: str, port: int, rest: bool = True, extra: Optional[list[Route]] = None,
                 name: str = "REST endpoint"):
        import uvicorn
        self.api = RestApi(session) if rest else None
        self.name = name
        config = uvicorn.Config(app(self.api, extra), host=host, port=port, log_level="warning", access_log=False,
                                lifespan="off", timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name=name, daemon=True)

    def start(self, timeout: float = 10.0) -> "RestServer":
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise OSError(f"The {self.name} did not start on {self.address} (is the port in use?)")
            time.sleep(0.01)
        return self

    @property
    def address(self) -> str:
        return f"{self.server.config.host}:{self.server.config.port}"

    @property
    def port(self) -> int:
        for server in self.server.servers:
            for sock in server.sockets:
                return sock.getsockname()[1]
        return self.server.config.port

    def stop(self, linger: float = 30.0) -> None:
        """Shut down, once every stop-with-savepoint's outcome was fetched (its client polls
        for it after the job has ended) or ``linger`` seconds have passed."""
        deadline = time.monotonic() + linger
        while self.api is not None and self.api.undelivered() and time.monotonic() < deadline:
            time.sleep(0.05)
        self.server.should_exit = True
        self.thread.join(5)


def serve(session) -> Optional[RestServer]:
    """Start the REST endpoint if ``rest.port`` is set (``rest.bind-address``, loopback by
    default; port 0 picks a free one). Returns it, or None."""
    port = session.conf.get("rest.port")
    if port in (None, ""):
        return None
    host = session.conf.get("rest.bind-address") or session.conf.get("rest.address") or "127.0.0.1"
    from sqlengine.service import dashboard
    server = RestServer(session, host, int(port), extra=dashboard.routes()).start()
    log.info("REST endpoint listening on %s", server.address)
    return server
