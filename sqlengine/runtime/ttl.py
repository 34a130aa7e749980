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
from sqlengine.functions.varying import varying
from sqlengine.hidden import COUNT, TASK
from sqlengine.runtime.delta import TASK_KEY, anti, semi

TOUCHED = "__t"


class Expiry:
    """The expired keys of one keyed input of an operator at this epoch (see the module
    docstring); ``touched``: the keys the epoch writes (a key frame, ``delta.key_frame``:
    columns k0.., and ``k__task`` behind an exchange)."""

    def __init__(self, ctx, side: str, touched: DataFrame, keyed: bool = True):
        self.expired: Optional[DataFrame] = None
        ttl = state_ttl_ms(ctx.conf)
        if ttl <= 0 or not keyed:  # a global aggregate's or Top-N's one group stays
            return
        kcols = [c for c in touched.columns if c != TASK_KEY]
        now = ctx.now_ms
        tcols = [f"t{i}" for i in range(len(kcols))]
        fields = [StructField(t, touched.schema[k].dataType) for k, t in zip(kcols, tcols)]
        table = ctx.table(f"touch-{side}", StructType(fields + [StructField(TOUCHED, LongType())]), tcols)
        last = ctx.persist(table.read(ctx.epoch))  # t0.., __t, and the __task of the key
        self.expired = ctx.persist(last.where(F.col(TOUCHED) < varying(now - ttl, F.col(TOUCHED)))
                                   .select(*[F.col(t).alias(k) for t, k in zip(tcols, kcols)],
                                           F.col(TASK).alias(TASK_KEY)))
        fresh = touched.select(*[F.col(k).alias(t) for k, t in zip(kcols, tcols)],
                               (varying(now, F.col(TASK_KEY)) if TASK_KEY in touched.columns
                                else F.lit(now).cast("long")).alias(TOUCHED))
        matched = tcols + [TASK]
        kept = anti(anti(last, self.expired, matched), touched, matched)
        table.write(ctx.epoch, kept.drop(TASK).unionByName(fresh), snapshot=True)

    def live(self, state: DataFrame, cols: list[str]) -> DataFrame:
        """``state`` without the rows of expired keys (``cols``: its key columns, ``__task`` last)."""
        return state if self.expired is None else anti(state, self.expired, cols)

    def retract(self, state: DataFrame, delta: DataFrame, cols: list[str]) -> DataFrame:
        """``delta`` plus the negated rows of expired keys in the multiset ``state`` (with
        ``__n``): appended to the log, it removes them."""
        if self.expired is None:
            return delta
        gone = semi(state, self.expired, cols)
        return delta.unionByName(gone.withColumn(COUNT, -F.col(COUNT)))
