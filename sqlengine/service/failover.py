"""Jobs that outlive their JobManager: kept in a job store (sqlengine/service/ha.py) while
they run, and resumed from their checkpoints by the JobManager that comes next, a standby
taking over from a dead leader (ZooKeeper HA) or the same cluster started again
(``high-availability.storageDir`` alone).

A job is kept as what recreates it: the configuration of the session it was submitted in,
the statements that shaped that session (DDL, SET, USE, ...; ``GatewaySession.history``),
its statement, its id and its checkpoint folder. Resuming replays the history in a
session of its own, then runs the statement with the same job id and
``execution.state-recovery.path`` = its checkpoint (claimed: the job goes on in its own
folder), so the sinks' exactly-once state (transaction ids, markers, query id) is the
dead run's, and what the dead run left half-committed is resolved as after any crash.

A job leaves the store when it ends (finished, failed, cancelled, or stopped by a user),
but not when its cluster shuts down: the next start resumes it.
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Optional, TextIO

log = logging.getLogger("sqlengine.service")


class Keeper:
    """The cluster's side of the job store: keeps submitted jobs, resumes kept ones."""

    def __init__(self, root: Any, store: Any):
        self.root = root  # the cluster's session: its Spark and its jobs
        self.store = store
        self.closing = False  # the cluster is shutting down: its jobs stay in the store

    def submitted(self, spec: dict, job: Any) -> None:
        """A job submitted through the SQL Gateway (``Gateway.on_job``)."""
        self.store.put(spec)
        log.info("job %s kept in the job store", spec["job_id"])
        self._watch(spec["job_id"], job)

    def _watch(self, job_id: str, job: Any) -> None:
        def ended() -> None:
            job.done.wait()
            if self.closing:
                return
            self.store.remove(job_id)
            log.info("job %s ended (%s): removed from the job store", job_id, job.status)
        threading.Thread(target=ended, name=f"keeper-{job_id[:8]}", daemon=True).start()

    def resume_all(self, out: TextIO) -> list[str]:
        """Resume every kept job; the ids of those that run again."""
        resumed = []
        for spec in self.store.list():
            job_id = spec.get("job_id", "?")
            try:
                job = self.resume(spec)
            except Exception as exc:  # noqa: BLE001 - one job's failure is reported, the others resume
                from sqlengine.api.report import describe
                log.exception("resuming job %s failed", job_id)
                print(f"[ERROR] Job {job_id} could not be resumed: {describe(exc, spec.get('statement', ''))}",
                      file=out, flush=True)
                self.store.remove(job_id)
                continue
            resumed.append(job_id)
            where = f"from its checkpoint {job.checkpoint_root}" if self._restored(spec) else "from the start"
            print(f"[INFO] Job {job_id} resumed {where}.", file=out, flush=True)
        return resumed

    def _restored(self, spec: dict) -> bool:
        from sqlengine.api.jobs import restorable
        root = spec.get("checkpoint")
        return bool(root) and restorable(root)

    def resume(self, spec: dict) -> Any:
        from sqlengine.api.jobs import discard_checkpoint
        from sqlengine.api.session import Session
        job_id = spec["job_id"]
        session = Session(dict(spec["conf"]), spark=self.root.spark)
        session.jobs = self.root.jobs
        for statement in spec.get("history", []):
            try:
                session.execute_sql(statement)
            except Exception:  # noqa: BLE001 - e.g. a STOP JOB of a job long gone
                log.warning("resuming job %s: a statement of its session failed again: %s", job_id,
                            statement.strip()[:200], exc_info=True)
        conf = session.conf
        conf["pipeline.job-id"] = job_id
        conf["table.dml-sync"] = "false"
        root: Optional[str] = spec.get("checkpoint")
        if self._restored(spec):
            conf["execution.state-recovery.path"] = root
            conf["execution.state-recovery.claim-mode"] = "CLAIM"
        elif root and conf.get("execution.state-recovery.path"):
            discard_checkpoint(root)  # a copy of its restore path, begun before any epoch
        result = session.execute_sql(spec["statement"])
        job = result.job
        if job is None:
            raise RuntimeError(f"the statement of job {job_id} started no job")
        self._watch(job_id, job)
        return job
