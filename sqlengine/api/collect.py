"""A SELECT's result: batch rows, or a streaming job's changelog as it comes
(``runtime/results.py``)."""
from __future__ import annotations

from sqlengine.api.result import TableResult
from sqlengine.planner import Planned
from sqlengine.runtime.results import batch_rows, reads_stream, start_stream


def collect(session, planned: Planned, live: bool = False) -> TableResult:
    """The result of a SELECT. Batch (or no table to read): its rows. Streaming: a job
    feeding a ``ResultStream``; the result holds the stream, and, unless ``live`` or a
    source is unbounded, has waited for the whole changelog."""
    runner = session.runner()
    root = planned.dag.roots[0].logical
    names = root.names()
    types = [f.type for f in root.schema]
    if not reads_stream(runner, planned.dag):
        result = TableResult("ROWS", names, batch_rows(runner, planned.dag), types=types)
        # No table to read, computed at once; in streaming mode still printed as Flink prints
        # a streaming result: insertions with the op column.
        result.inserts = runner.streaming
        result.max_column_width = max_column_width(session.conf)
        result.time_zone = session.conf.get("table.local-time-zone", "UTC")
        return result
    stream = start_stream(runner, planned.dag)
    result = TableResult("ROWS", ["op", *names], changelog=True, types=[None, *types], stream=stream)
    result.max_column_width = max_column_width(session.conf)
    result.time_zone = session.conf.get("table.local-time-zone", "UTC")
    if stream.bounded and not live:
        result.rows  # noqa: B018 - waits for the end; a failure is raised here, as before streams
    return result


def max_column_width(conf: dict) -> int:
    """Flink's ``table.display.max-column-width`` (Flink 2.3's client ignores the deprecated
    ``sql-client.display.max-column-width``, so does this)."""
    raw = conf.get("table.display.max-column-width", "30")
    try:
        return max(int(raw), 1)
    except ValueError:
        return 30
