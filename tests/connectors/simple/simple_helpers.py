"""Helpers for the datagen / print / blackhole connector tests."""
from __future__ import annotations

import time
from typing import Callable, Optional

from connectors.base import EOI, Options, ScanContext, ScanResult

TABLE = "default_catalog.default_database.T"


def scan_datagen(spark, columns, options: dict[str, str], streaming: bool = False,
                 parallelism: int = 2, table: str = TABLE, conf: Optional[dict[str, str]] = None) -> ScanResult:
    import connectors.datagen as datagen
    opts = Options("datagen", {"connector": "datagen", **options})
    return datagen.FACTORY.scan(ScanContext(spark, streaming, parallelism, table, list(columns), opts,
                                            conf=conf or {}))


class BatchCollector:
    """foreachBatch target recording (epoch, data rows, eoi rows) per micro-batch."""

    def __init__(self):
        self.batches: list[tuple[int, list, int]] = []

    def __call__(self, df, epoch_id: int) -> None:
        rows = df.collect()
        data = [r for r in rows if not r[EOI]]
        self.batches.append((epoch_id, data, len(rows) - len(data)))


def drive_to_end(writer, end_check: Optional[Callable[[dict], bool]], timeout_s: float = 180.0):
    """Start ``writer`` and poll its progress until ``end_check`` holds, then stop it.

    This is the loop a runtime runs for a bounded source: ``awaitTermination(0.2)``
    then ``end_check`` on every source entry of ``lastProgress``.
    """
    query = writer.trigger(processingTime="0 seconds").start()
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            query.awaitTermination(0.2)
            if query.exception() is not None:
                raise query.exception()
            progress = query.lastProgress
            if progress and end_check is not None and any(end_check(s) for s in progress["sources"]):
                return query
            assert time.monotonic() < deadline, "the bounded stream did not end in time"
    finally:
        query.stop()
