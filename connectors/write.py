"""Running a connector's writer over the rows of one write (a batch INSERT or an epoch).

The protocol is Spark's for Python data sources (``DataSourceArrowWriter``): ``write``
in each task returns a commit message; once every task has returned, ``commit`` on the
driver with all messages; if a task or the commit fails, ``abort`` with the messages of
the tasks that succeeded. It runs here on ``mapInArrow`` rather than through
``df.write.format(<python data source>)``: Spark's data source write starts two Python
planner processes per write (one creates the writer, one runs ``commit``) — each a
daemon of its own the first time, ~0.3 s each after that — while ``mapInArrow`` tasks run
in the same Python workers as the job's other Python tasks, and ``commit`` runs in the
driver's process. Measured in benchmarks/README.md ("Fewer Python processes").

A task's messages reach the driver twice: as its result rows (all tasks, for
``commit``) and through an accumulator, which Spark merges for each task that succeeds
even when the job then fails (for ``abort``).
"""
from __future__ import annotations

import pickle
from typing import Any

from pyspark.accumulators import AccumulatorParam

MESSAGE = "__message"
ROWS = "__rows"


class _Messages(AccumulatorParam):
    def zero(self, value: list) -> list:
        return []

    def addInPlace(self, a: list, b: list) -> list:
        a.extend(b)
        return a


def run_writer(rows: Any, writer: Any) -> int:
    """Write the DataFrame ``rows`` with ``writer`` (a ``DataSourceArrowWriter`` made on
    the driver; it travels to the tasks pickled), then commit, or abort and re-raise.
    Returns the number of rows written (each task counts its Arrow batches' rows)."""
    import pyarrow as pa
    done = rows.sparkSession.sparkContext.accumulator([], _Messages())

    def task(batches):
        counted = [0]

        def each():
            for b in batches:
                counted[0] += b.num_rows
                yield b
        blob = pickle.dumps(writer.write(each()))
        done.add([blob])
        yield pa.RecordBatch.from_arrays([pa.array([blob], pa.binary()), pa.array([counted[0]], pa.int64())],
                                         names=[MESSAGE, ROWS])

    try:
        results = rows.mapInArrow(task, f"{MESSAGE} binary, {ROWS} long").collect()
    except BaseException:
        _abort(writer, [pickle.loads(b) for b in done.value])
        raise
    messages = [pickle.loads(r[0]) for r in results]
    try:
        writer.commit(messages)
    except BaseException:
        _abort(writer, messages)
        raise
    return sum(int(r[1]) for r in results)


def _abort(writer: Any, messages: list) -> None:
    import logging
    try:
        writer.abort(messages)
    except Exception as exc:  # noqa: BLE001 - the write's own error is the one to raise
        logging.getLogger("sqlengine.write").warning("aborting a write failed: %s", exc)
