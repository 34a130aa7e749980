"""Flink's checkpoint interval for a source read by back-to-back micro-batches.

An epoch is a checkpoint (sqlengine/runtime/epoch.py), and ``execution.checkpointing.interval``
says how often one starts. Spark's processing-time trigger would start them on the
interval's wall-clock grid, always: an epoch capped by ``sqlengine.source.max-rows-per-epoch``
(a backlog: the input is ahead of the job) that took 7 s of a 10 s interval then waits
3 s with the cores idle, where Flink goes on reading. So a job whose sources pace themselves
runs with a back-to-back trigger (sqlengine/runtime/runner.py, ``trigger_interval``) and
each such source admits new data (``latestOffset``) at once while it has a backlog, and
otherwise at most once per interval, on the same wall-clock grid as Spark's trigger (the
sources of one job admit in the same micro-batch). Nothing here is per row.
"""
from __future__ import annotations

import time
from typing import Optional

OPTION = "pace_ms"  # the source option: the checkpoint interval in ms (0: back to back)


class Pace:
    """When a source may admit new data (see the module docstring)."""

    def __init__(self, options: dict):
        self.ms = int(options.get(OPTION) or 0)
        self._slot: Optional[int] = None  # the grid slot of the last admission
        self._backlog = False  # the last admission was capped: more data was there

    def due(self) -> bool:
        """May new data be admitted now?"""
        if self.ms <= 0 or self._backlog or self._slot is None:
            return True
        return int(time.time() * 1000) // self.ms > self._slot

    def admitted(self, capped: bool) -> None:
        """New data was admitted; ``capped``: the epoch's row cap left some behind."""
        self._slot = int(time.time() * 1000) // self.ms if self.ms > 0 else None
        self._backlog = capped
