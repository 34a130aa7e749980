"""SELECT results for the client: batch rows, or the changelog of a stream.

A streaming SELECT runs as a job of its own whose epochs hand their rows to a
``ResultStream``: the client reads them as they come (``batches``), the way Flink's SQL
Client shows a streaming result while the query runs, and stops the query with
``cancel``. Over bounded input ``collect`` waits for the end and returns the whole
changelog (as the API did before streams); over unbounded input it returns at once,
with the stream running, unless ``wait`` is asked for.
"""
from __future__ import annotations

import threading
from collections import deque
from typing import Iterator, Optional

from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowerer, drop_eoi, release


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


def collect(session, plan: P.Node, stmt, live: bool = False):
    """The result of a SELECT. Batch (or no table to read): its rows. Streaming: a job
    feeding a ``ResultStream``; the result holds the stream, and, unless ``live`` or a
    source is unbounded, has waited for the whole changelog."""
    from pyspark.sql import functions as F
    from connectors.base import OP
    from sqlengine.session import TableResult

    runner = session.runner()
    state = runner.state("select")
    from sqlengine.rules import optimize
    names = plan.names()
    types = [f.type for f in plan.schema]
    cols = [F.col(f"f{i}") for i in range(len(names))]
    streamed = session.streaming and any(isinstance(n, P.TableScan) for n in P.walk(plan))
    if not streamed:
        low = drop_eoi(Lowerer(state).lower(optimize(plan)))
        try:
            rows = [list(r) for r in low.df.select(*cols).collect()]
        finally:
            release(state)
        return TableResult("ROWS", names, rows, types=types)
    stream = ResultStream()

    def consume(low, epoch_id):
        if low.empty:
            return
        df = drop_eoi(low).df
        op = F.col(OP) if low.updating else F.lit("+I")
        stream.push([list(r) for r in df.select(op, *cols).collect()])

    import os
    import shutil
    import tempfile
    import uuid
    from sqlengine.runtime.job import Job
    from sqlengine.runtime.streaming.runner import start_epoch_query
    base = session.conf.get("execution.checkpointing.dir")
    # A query's result goes to the client only: its checkpoint is kept only where asked for.
    checkpoint = os.path.join(base, f"select-{uuid.uuid4().hex}") if base else \
        tempfile.mkdtemp(prefix="sqlengine-select-")

    def cleanup() -> None:
        if not base:
            shutil.rmtree(checkpoint, ignore_errors=True)

    try:
        query, driver = start_epoch_query(state, Lowerer(state).plan([optimize(plan)]), [consume], checkpoint,
                                          "select")
    except BaseException:
        cleanup()
        raise
    job = Job("select", [query], name="collect")
    stream.job, stream.bounded = job, driver.bounded
    stream.started.set()

    def drive() -> None:
        error = None
        try:
            runner.wait(job, state)
        except BaseException as exc:  # noqa: BLE001 - handed to the client
            error = exc
        finally:
            cleanup()
            job.done.set()
            stream.finish(None if job.status == "CANCELED" else error)

    threading.Thread(target=drive, name="select-result", daemon=True).start()
    result = TableResult("ROWS", ["op", *names], changelog=True, types=[None, *types], stream=stream)
    if driver.bounded and not live:
        result.rows  # noqa: B018 - waits for the end; a failure is raised here, as before streams
    return result
