"""The keys an epoch touches, and reading only their rows of a large state table.

A keyed operator reads its state tables whole each epoch (``state.py``) and selects the
rows of the keys the epoch touches (``delta.semi``), or joins its delta with them (a
regular join's ``ΔL ⋈ R_old``). Planned as Spark plans a join of two large sides, the
whole table is shuffled to the tasks and sorted before most of it is dropped: with
state growing epoch by epoch, Nexmark q9's join shuffled and sorted every stored bid
(7.4M rows, 0.9 GB, spilling 1.8 GB) each epoch for the few thousand that matched the
epoch's new auctions (``benchmarks/README.md``). Flink reads a key's state, not all
of it.

``touched`` weighs the keys once the stored table is large enough for it to pay (one
small job counts them): when they are few, the key frame is hinted for broadcast, so
a join of the state with it is a broadcast hash join where the state is read, and only
the touched keys' rows are shuffled and sorted. Otherwise nothing changes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from sqlengine.runtime.delta import semi

# A stored table smaller than this is read and shuffled whole: cheaper than the job
# that weighs the keys.
MIN_STATE_BYTES = 16 << 20
# At most this many keys are broadcast (about 64 bytes each in Spark's hash relation,
# built on the driver), and only where the stored table is at least that many times
# their count in bytes (a state row is rarely smaller on disk).
MAX_KEYS = 1_000_000
BYTES_PER_KEY = 64


@dataclass
class Touched:
    """An epoch's key frame (``delta.key_frame``: columns k0.., ``k__task``), persisted;
    ``selective``: hinted for broadcast (few keys, large state)."""
    frame: DataFrame
    selective: bool

    def rows(self, state: DataFrame, cols: Sequence[str]) -> DataFrame:
        """The rows of ``state`` whose key (``cols``, ``__task`` last) is touched."""
        return semi(state, self.frame, cols)

    def narrow(self, state: DataFrame, cols: Sequence[str]) -> DataFrame:
        """``state`` for a join with the epoch's delta that matches it by key anyway:
        filtered to the touched keys when that is cheap (``selective``), else whole."""
        return self.rows(state, cols) if self.selective else state


def weigh(persist, frame: DataFrame, state_bytes: int) -> Touched:
    """``frame`` persisted (``persist``), and hinted for broadcast when the state it
    selects from (``state_bytes`` on disk) is large and its keys are few."""
    frame = persist(frame)
    if state_bytes < MIN_STATE_BYTES:
        return Touched(frame, False)
    n = frame.count()
    if n > MAX_KEYS or n * BYTES_PER_KEY > state_bytes:
        return Touched(frame, False)
    return Touched(F.broadcast(frame), True)


def cached_rows(df: DataFrame) -> Optional[int]:
    """The rows of a persisted frame once an action has computed it (Spark counts its
    cached batches; no job), else Spark's estimate, if it has one."""
    count = df.select("*")._jdf.queryExecution().optimizedPlan().stats().rowCount()
    return int(count.get()) if count.isDefined() else None
