"""Query results for the client: batch rows, or the changelog of a stream.

A streaming SELECT runs as a job of its own whose epochs hand their rows to a
``ResultStream``: the client reads them as they come (``batches``), the way Flink's SQL
Client shows a streaming result while the query runs, and stops the query with
``cancel``. Over bounded input ``collect`` waits for the end and returns the whole
changelog (as the API did before streams); over unbounded input it returns at once,
with the stream running, unless ``wait`` is asked for.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import threading
import uuid
from collections import deque
from typing import Iterator, Optional

from pyspark.sql import functions as F

from sqlengine.hidden import OP, Lowered, drop_eoi, fcol
from sqlengine.plan.dag import Dag
from sqlengine.runtime.execute import lower_batch
from sqlengine.runtime.job import EpochQuery, Job, JobRunner
from sqlengine.runtime.runner import start_epoch_query


class ResultStream:
    """The changes of a running streaming SELECT, epoch by epoch (each row ``[op, *values]``).

    Reading is consuming: ``batches`` hands each epoch's rows over once. At most
    ``max_buffered`` rows wait unread; beyond that the query's next epoch waits for the
    client (backpressure, as Flink's collect sink), so memory stays bounded however fast
    the input is and however slowly the client reads.
    """

    def __init__(self, max_buffered: int = 100_000) -> None:
        self._cond = threading.Condition()
        self._batches: deque = deque()
        self._buffered = 0
        self.max_buffered = max_buffered
        self.ended = False
        self.cancelled = False
        self.error: Optional[BaseException] = None
        self.job = None  # the runtime's Job of the query
        self.bounded = False  # every source ends by itself
        self.started = threading.Event()  # the query started (or failed to)

    # -- the query's side ----------------------------------------------------------------
    def push(self, rows: list[list]) -> None:
        with self._cond:
            self._cond.wait_for(lambda: self._buffered < self.max_buffered or self.cancelled)
            if self.cancelled:
                return
            self._batches.append(rows)
            self._buffered += len(rows)
            self._cond.notify_all()

    def finish(self, error: Optional[BaseException] = None) -> None:
        with self._cond:
            self.ended = True
            self.error = error
            self._cond.notify_all()
        self.started.set()

    # -- the client's side ---------------------------------------------------------------
    def batches(self, timeout: Optional[float] = None) -> Iterator[list[list]]:
        """Each epoch's rows as they arrive, until the query ends (its error is raised).
        With ``timeout``, an empty list is yielded whenever that long passes without rows
        (so a client can refresh its screen)."""
        while True:
            with self._cond:
                if not self._batches and not self.ended:
                    self._cond.wait(timeout)
                fresh = list(self._batches)
                self._batches.clear()
                self._buffered = 0
                self._cond.notify_all()
                ended, error = self.ended, self.error
            for rows in fresh:
                yield rows
            if ended and not fresh:
                if error is not None:
                    raise error
                return
            if not fresh and timeout is not None:
                yield []

    def rows(self) -> list[list]:
        """Every change not read yet, until the query ends."""
        return [r for rows in self.batches() for r in rows]

    def cancel(self) -> None:
        """Stop the query now (Ctrl-C in the shell, or closing the result)."""
        with self._cond:
            self.cancelled = True
            self._cond.notify_all()
        self.started.wait(60)
        if self.job is not None:
            self.job.cancel()
            self.job.done.wait(60)

    def wait(self, timeout: Optional[float] = None) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: self.ended, timeout)


def batch_rows(runner: "JobRunner", dag: Dag) -> list[list]:
    """The rows of a bounded query (batch mode, or no table read)."""
    ctx = runner.context("select")
    low = drop_eoi(lower_batch(ctx, dag)[0])
    width = len(dag.roots[0].logical.schema)
    try:
        return [list(r) for r in low.df.select(*[fcol(i) for i in range(width)]).collect()]
    finally:
        ctx.release()


def reads_stream(runner: "JobRunner", dag: Dag) -> bool:
    """Whether the query runs as a streaming job (streaming mode, and a table to read)."""
    return runner.streaming and bool(dag.sources())


def start_stream(runner: "JobRunner", dag: Dag) -> ResultStream:
    """Run a streaming query as a job of its own feeding a ``ResultStream`` (each row
    ``[op, *values]``, epoch by epoch)."""
    ctx = runner.context("select")
    width = len(dag.roots[0].logical.schema)
    cols = [fcol(i) for i in range(width)]
    stream = ResultStream()

    def consume(low: Lowered, epoch_id: int) -> None:
        if low.empty:
            return
        df = drop_eoi(low).df
        op = F.col(OP) if low.updating else F.lit("+I")
        stream.push([list(r) for r in df.select(op, *cols).collect()])

    base = runner.conf.get("execution.checkpointing.dir")
    # A query's result goes to the client only: its checkpoint is kept only where asked for.
    checkpoint = os.path.join(base, f"select-{uuid.uuid4().hex}") if base else \
        tempfile.mkdtemp(prefix="sqlengine-select-")

    def cleanup() -> None:
        if not base:
            shutil.rmtree(checkpoint, ignore_errors=True)

    try:
        query, driver = start_epoch_query(ctx, dag, [consume], checkpoint, "select")
    except BaseException:
        cleanup()
        raise
    job = Job(uuid.uuid4().hex, [EpochQuery(query, driver)], name="collect")
    stream.job, stream.bounded = job, driver.bounded
    stream.started.set()

    def drive() -> None:
        error = None
        try:
            runner.wait(job, ctx)
        except BaseException as exc:  # noqa: BLE001 - handed to the client
            error = exc
        finally:
            cleanup()
            job.ended()
            stream.finish(None if job.status == "CANCELED" else error)

    threading.Thread(target=drive, name="select-result", daemon=True).start()
    return stream
