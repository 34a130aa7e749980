"""One Spark job for several sinks (``EXECUTE STATEMENT SET``), as Flink runs one job.

The sinks' inputs are unioned into one DataFrame of tagged rows: column ``__sink``
(the sink's index) and one struct column per sink, ``__s<i>``, holding that sink's row
(null in the other sinks' rows). Scans of the same table are lowered once per job
(``JobContext.scan_cache``), and Spark maps one streaming relation used in several
branches to one source, so each source has one entry in the offsets log and the
job has one checkpoint.

Streaming: the job's one query (sqlengine/runtime/streaming/epoch.py) hands each sink
its rows with ``Sink.write_epoch`` (exactly-once sinks make a replayed epoch a no-op). Batch: the union is persisted and each sink writes its rows with
``write_batch``; the sources are read once.
"""
from __future__ import annotations

from typing import Any, Sequence

from pyspark import StorageLevel
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from connectors.base import Sink
from sqlengine.hidden import TAG, slot as _slot

# How an epoch keeps what it reads more than once: its input, a forked operator's output,
# the rows of several sinks. Deserialized: a DataFrame's cached blocks are compressed
# column buffers already, and PySpark's MEMORY_AND_DISK is the *serialized* level, which
# Java-serializes those buffers into the memory store and back on every read (a second
# copy of the epoch on the heap while it is read: q20 at 1M events ran out of the default
# 1 GB driver heap with it; benchmarks/README.md).
EPOCH_CACHE = StorageLevel.MEMORY_AND_DISK_DESER


def tagged_union(frames: Sequence[DataFrame]) -> DataFrame:
    """One DataFrame with every frame's rows, tagged (see the module docstring)."""
    types = [StructType(list(df.schema.fields)) for df in frames]
    parts = []
    for i, df in enumerate(frames):
        slots = [(F.struct(*[F.col(f"`{c}`") for c in df.columns]) if j == i else F.lit(None).cast(t))
                 .alias(_slot(j)) for j, t in enumerate(types)]
        parts.append(df.select(F.lit(i).alias(TAG), *slots))
    out = parts[0]
    for p in parts[1:]:
        out = out.unionAll(p)
    return out


def rows_of(tagged: DataFrame, i: int) -> DataFrame:
    """Sink ``i``'s rows, with its own columns."""
    return tagged.where(F.col(TAG) == F.lit(i)).select(f"{_slot(i)}.*")


def write_all(tagged: DataFrame, sinks: Sequence[Sink], write: Any) -> None:
    """Compute ``tagged`` once (persisted), then give each sink its rows, in order."""
    tagged = tagged.persist(EPOCH_CACHE)
    try:
        for i, sink in enumerate(sinks):
            write(sink, rows_of(tagged, i))
    finally:
        tagged.unpersist()
