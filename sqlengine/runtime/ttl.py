"""``table.exec.state.ttl`` for keyed operators (GroupAggregate, regular joins, Top-N,
deduplication): a key whose state has not been touched for the TTL is forgotten, as
in Flink (no retraction is emitted; a later row for the key starts it afresh).

Processing time is the epoch's start time. Per operator and keyed input, a ``touch``
table holds each key's last touch; keys older than the TTL are *expired*: the
operator reads its state without them (``live``) and retracts their rows from its
multiset logs (``retract``), so they also leave the state files at the next snapshot.
With no TTL configured every method is the identity and nothing is written.
"""
from __future__ import annotations

from typing import Optional

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import LongType, StructField, StructType

from sqlengine.config import state_ttl_ms
from sqlengine.hidden import COUNT
from sqlengine.runtime.delta import anti, semi

TOUCHED = "__t"


class Expiry:
    """The expired keys of one keyed input of an operator at this epoch (see the module
    docstring); ``touched``: the keys the epoch writes (a key frame, columns k0..)."""

    def __init__(self, ctx, side: str, touched: DataFrame, keyed: bool = True):
        self.expired: Optional[DataFrame] = None
        ttl = state_ttl_ms(ctx.conf)
        if ttl <= 0 or not keyed:  # a global aggregate's or Top-N's one group stays
            return
        nk = len(touched.columns)
        now = ctx.now_ms
        tcols = [f"t{i}" for i in range(nk)]
        fields = [StructField(t, touched.schema[f"k{i}"].dataType) for i, t in enumerate(tcols)]
        table = ctx.table(f"touch-{side}", StructType(fields + [StructField(TOUCHED, LongType())]), tcols)
        last = ctx.persist(table.read(ctx.epoch))
        self.expired = ctx.persist(last.where(F.col(TOUCHED) < F.lit(now - ttl))
                                   .select(*[F.col(t).alias(f"k{i}") for i, t in enumerate(tcols)]))
        fresh = touched.select(*[F.col(f"k{i}").alias(t) for i, t in enumerate(tcols)],
                               F.lit(now).cast("long").alias(TOUCHED))
        kept = anti(anti(last, self.expired, tcols), touched, tcols)
        table.write(ctx.epoch, kept.unionByName(fresh), snapshot=True)

    def live(self, state: DataFrame, cols: list[str]) -> DataFrame:
        """``state`` without the rows of expired keys (``cols``: its key columns)."""
        return state if self.expired is None else anti(state, self.expired, cols)

    def retract(self, state: DataFrame, delta: DataFrame, cols: list[str]) -> DataFrame:
        """``delta`` plus the negated rows of expired keys in the multiset ``state`` (with
        ``__n``): appended to the log, it removes them."""
        if self.expired is None:
            return delta
        gone = semi(state, self.expired, cols)
        return delta.unionByName(gone.withColumn(COUNT, -F.col(COUNT)))
