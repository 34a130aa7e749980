"""What a running streaming job measures, epoch by epoch (Flink's checkpoint statistics and
task metrics, as far as an epoch shows them).

An epoch is a checkpoint: the driver records, when one completes, its duration, each
node's watermark after it, and the size of the job's state. The rows each source read
come from Spark's progress report of the epoch (``numInputRows`` per source), read once
per epoch and when a reader asks (``poll``). Nothing here runs per row; readers (the REST
API, the dashboard) take a ``snapshot``.
"""
from __future__ import annotations

import logging
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Optional

from sqlengine.runtime import fs

log = logging.getLogger(__name__)

HISTORY = 60  # epochs kept in the checkpoint history
RATE_WINDOW_S = 10.0  # records per second: over the epochs that ended in the last 10 s


@dataclass(frozen=True)
class EpochStat:
    """One completed epoch (Flink's completed checkpoint)."""

    epoch: int
    trigger_ms: int
    end_ms: int
    records: int  # rows the sources read in it
    state_size: int  # bytes of the job's state folder once it was written

    @property
    def duration_ms(self) -> int:
        return max(self.end_ms - self.trigger_ms, 0)


@dataclass
class Snapshot:
    """A job's metrics at one moment (every value a plain number)."""

    records: dict[str, int]  # source node id -> rows read so far
    rates: dict[str, float]  # source node id -> rows per second (recent)
    watermarks: dict[str, int]  # node id -> watermark (ms) after the last epoch
    epochs: list[EpochStat]
    completed: int
    busy_ratio: float  # the share of recent wall time spent running epochs
    restored_from: Optional[int] = None
    lags: dict[str, dict[str, int]] = field(default_factory=dict)  # source node id -> split metric -> records
    written: dict[str, int] = field(default_factory=dict)  # sink node id -> rows written


@dataclass
class JobMetrics:
    state_dir: str = ""
    sources: tuple[str, ...] = ()  # the source nodes' ids, in the order of Spark's progress sources
    poll: Optional[Callable[[], Optional[dict]]] = None  # the query's last progress report
    lags: tuple = ()  # per source (as ``sources``): ScanResult.lag, or None
    written: dict = field(default_factory=dict)  # sink node id -> rows written (the sinks' consumers count)
    _positions: list = field(default_factory=list)  # the last progress report's source entries
    _seen: set = field(default_factory=set)  # batch ids whose progress was counted
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _records: dict[str, int] = field(default_factory=dict)
    _recent: deque = field(default_factory=lambda: deque(maxlen=256))  # (end s, duration s, {id: rows})
    _watermarks: dict[str, int] = field(default_factory=dict)
    _epochs: deque = field(default_factory=lambda: deque(maxlen=HISTORY))
    _completed: int = 0
    restored_from: Optional[int] = None

    def inherit(self, before: "JobMetrics") -> None:
        """A restarted job's metrics go on from its failed run's: its checkpoint history,
        watermarks and the rows counted so far (a replayed epoch's rows count again, as a
        restarted Flink task counts what it reads again)."""
        with before._lock:
            self._records.update(before._records)
            self._watermarks.update(before._watermarks)
            self._epochs.extend(before._epochs)
            self._completed += before._completed
            self.written.update(before.written)

    def epoch_done(self, epoch: int, started: float, watermarks: dict[str, int]) -> None:
        """Called by the epoch driver after an epoch has committed (``started``: time.time())."""
        end = time.time()
        size = _size(self.state_dir)
        with self._lock:
            self._recent.append((end, end - started, {}))
            self._watermarks.update(watermarks)
            self._epochs.append(EpochStat(epoch, int(started * 1000), int(end * 1000), 0, size))
            self._completed += 1

    def ingest(self, progress: Optional[dict]) -> None:
        """Count a progress report's rows per source (once per batch)."""
        if not progress or progress.get("batchId") is None:
            return
        batch = int(progress["batchId"])
        sources = progress.get("sources") or []
        self._positions = list(sources)  # how far each source has read (idle reports too)
        if not any(int(src.get("numInputRows") or 0) for src in sources):
            return  # nothing read (an idle report carries the id of the batch to come)
        with self._lock:
            if batch in self._seen:
                return
            self._seen.add(batch)
            if len(self._seen) > 4 * HISTORY:
                self._seen = {b for b in self._seen if b > batch - 2 * HISTORY}
            rows: dict[str, int] = {}
            for i, src in enumerate(sources):
                key = self.sources[i] if i < len(self.sources) else (self.sources[-1] if self.sources else "source")
                rows[key] = rows.get(key, 0) + int(src.get("numInputRows") or 0)
            for k, n in rows.items():
                self._records[k] = self._records.get(k, 0) + n
            self._recent.append((time.time(), 0.0, rows))
            for i, e in enumerate(self._epochs):
                if e.epoch == batch:
                    self._epochs[i] = EpochStat(e.epoch, e.trigger_ms, e.end_ms, sum(rows.values()), e.state_size)

    def snapshot(self) -> Snapshot:
        if self.poll is not None:
            try:
                self.ingest(self.poll())
            except Exception:  # noqa: BLE001 - a query that has ended reports nothing more
                pass
        now = time.time()
        with self._lock:
            recent = [r for r in self._recent if r[0] >= now - RATE_WINDOW_S]
            rates: dict[str, float] = {k: 0.0 for k in self._records}
            for _, _, rows in recent:
                for k, n in rows.items():
                    rates[k] = rates.get(k, 0.0) + n / RATE_WINDOW_S
            busy = min(sum(d for _, d, _ in recent) / RATE_WINDOW_S, 1.0)
            snap = Snapshot(dict(self._records), rates, dict(self._watermarks), list(self._epochs),
                            self._completed, busy, self.restored_from, written=dict(self.written))
            positions = list(self._positions)
        for i, entry in enumerate(positions):  # asks the sources (a broker round trip): outside the lock
            fn = self.lags[i] if i < len(self.lags) else None
            if fn is not None and i < len(self.sources):
                try:
                    snap.lags[self.sources[i]] = fn(entry)
                except Exception:  # noqa: BLE001 - a broker out of reach: no lag, not a failed request
                    log.debug("the lag of source %s could not be read", self.sources[i], exc_info=True)
        return snap


def merged(parts: list[JobMetrics]) -> Snapshot:
    """One job's metrics over its queries (a statement set of bounded and unbounded parts)."""
    snaps = [p.snapshot() for p in parts]
    if not snaps:
        return Snapshot({}, {}, {}, [], 0, 0.0)
    out = Snapshot({}, {}, {}, [], 0, 0.0)  # (lags: its default, an empty dict)
    for s in snaps:
        out.records.update(s.records)
        out.rates.update(s.rates)
        out.watermarks.update(s.watermarks)
        out.epochs.extend(s.epochs)
        out.completed += s.completed
        out.busy_ratio = max(out.busy_ratio, s.busy_ratio)
        out.restored_from = s.restored_from if out.restored_from is None else out.restored_from
        out.lags.update(s.lags)
        out.written.update(s.written)
    out.epochs.sort(key=lambda e: e.end_ms)
    return out


def _size(folder: str) -> int:
    """Bytes under ``folder`` (0 when there is none)."""
    return fs.size(folder) if folder else 0
