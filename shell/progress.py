"""A progress bar for a long statement typed in the shell: the Spark tasks of its jobs
done out of those planned, shown after the statement has run for a second and erased
when it ends. The statement's Spark jobs are found by their job group (shell/repl.py
runs each typed statement under one), so background jobs do not count."""
from __future__ import annotations

import os
import threading
from typing import TextIO

DELAY_S = float(os.environ.get("SQLENGINE_PROGRESS_DELAY_S", "1"))  # quick statements show no bar
POLL_S = 0.2


class TaskProgress:
    def __init__(self, sc, group: str, out: TextIO):
        self.sc, self.group, self.out = sc, group, out
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="shell-progress", daemon=True)

    def __enter__(self) -> "TaskProgress":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(5)

    def counts(self) -> tuple[int, int]:
        """(tasks done, tasks planned) over the group's jobs."""
        tracker = self.sc.statusTracker()
        done = total = 0
        for job_id in tracker.getJobIdsForGroup(self.group):
            job = tracker.getJobInfo(job_id)
            if job is None:
                continue
            for stage_id in job.stageIds:
                stage = tracker.getStageInfo(stage_id)
                if stage is not None:
                    done += stage.numCompletedTasks
                    total += stage.numTasks
        return done, total

    def _run(self) -> None:
        if self._stop.wait(DELAY_S):
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
        columns = (TextColumn("Running"), BarColumn(), MofNCompleteColumn(), TextColumn("tasks"),
                   TimeElapsedColumn(), TextColumn("· Ctrl-C to cancel"))
        try:
            with Progress(*columns, console=Console(file=self.out), transient=True) as bar:
                task = bar.add_task("statement", total=None)
                while not self._stop.wait(POLL_S):
                    done, total = self.counts()
                    bar.update(task, completed=done, total=total or None)
        except Exception:  # noqa: BLE001 - the bar is a nicety; a dying JVM must not break the shell
            import logging
            logging.getLogger("sqlengine.shell").debug("progress bar failed", exc_info=True)
