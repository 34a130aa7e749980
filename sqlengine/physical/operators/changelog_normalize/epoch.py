"""ChangelogNormalize in an epoch.

The epoch's changes are folded per key to the last one in the source's order
(``__seq``; without it, the order rows arrive in), as Flink's mini-batch
normalization does. State: the rows table, a multiset log (``+1`` the key's current
row, ``-1`` a retracted one) whose net is one row per live key; only the touched keys'
rows are read. Over the last change and the stored row:

=============  ===========  ==========================  ===========================
last change    stored row   emitted                     state delta
=============  ===========  ==========================  ===========================
``+I``/``+U``  none         ``+I`` new                  ``+1`` new
``+I``/``+U``  equal        nothing (with a TTL: as     nothing
                            if different)
``+I``/``+U``  different    ``-U`` old, ``+U`` new      ``-1`` old, ``+1`` new
``-U``/``-D``  present      ``-D`` old (the full row)   ``-1`` old
``-U``/``-D``  none         nothing                     nothing
=============  ===========  ==========================  ===========================

``table.exec.state.ttl``: a key untouched for the TTL is forgotten (``ttl.Expiry``), as
Flink's ChangelogNormalize state TTL.
"""
from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from sqlengine.config import state_ttl_ms
from sqlengine.hidden import COUNT, OP, SEQ, TASK, Lowered, fcol, fcols
from sqlengine.physical.shared.logs import append_log
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import EpochContext
from sqlengine.runtime.delta import POSITIVE, key_frame, keys_equal, net


def last_changes(df: DataFrame, cols: list[str], keys: list[str]) -> DataFrame:
    """Per key, the epoch's last change (columns ``cols`` and ``__op``)."""
    if SEQ not in df.columns:  # the order rows arrive in (a projection: not allowed inside max_by)
        df = df.withColumn(SEQ, F.monotonically_increasing_id())
    rest = [c for c in cols if c not in keys]
    last = F.max_by(F.struct(*[F.col(c) for c in rest], F.col(OP)), F.col(SEQ)).alias("__l")
    grouped = df.groupBy(*[F.col(k) for k in keys]).agg(last)
    return grouped.select(*[F.col(k) if k in keys else F.col(f"__l.{k}").alias(k) for k in cols],
                          F.col(f"__l.{OP}").alias(OP))


def epoch_normalize(ctx: EpochContext, node: P.ChangelogNormalize, child: Lowered) -> Lowered:
    cols = fcols(len(node.schema))
    keys = [f"f{k}" for k in node.keys] + [TASK]  # behind the exchange, each key on its task
    rest = [c for c in cols if c not in keys]
    routed = ctx.exchange(child.df, [fcol(k) for k in node.keys])
    last = ctx.persist(last_changes(routed, cols + [TASK], keys))
    stored_schema = last.select(*cols, F.lit(0).cast("long").alias(COUNT)).schema
    table = ctx.table("rows", stored_schema, keys[:-1])
    touched = ctx.touched(key_frame(last, keys), table)
    expiry = ctx.expiry("rows", touched.frame)
    stored = table.read(ctx.epoch)
    old = net(touched.rows(expiry.live(stored, keys), keys), cols + [TASK]).where(F.col(COUNT) > 0)
    o = old.select(*[F.col(c).alias(f"o_{c}") for c in cols + [TASK]], F.lit(True).alias("__was"))
    j = last.join(o, keys_equal(last, o, keys, [f"o_{k}" for k in keys]), "left_outer")
    upsert = F.col(OP).isin(*POSITIVE)
    was = F.col("__was").isNotNull()
    # With a state TTL Flink emits an unchanged row again (downstream state may have
    # expired in the meantime); without one it emits nothing for it.
    same = F.lit(state_ttl_ms(ctx.conf) <= 0)
    for c in rest:
        same = same & F.col(c).eqNullSafe(F.col(f"o_{c}"))

    def row(prefix: str, op: str):
        return F.struct(*[F.col(f"{prefix}{c}").alias(c) for c in cols], F.lit(op).alias(OP))

    def counted(prefix: str, n: int):
        return F.struct(*[F.col(f"{prefix}{c}").alias(c) for c in cols + [TASK]],
                        F.lit(n).cast("long").alias(COUNT))

    emitted = (F.when(upsert & ~was, F.array(row("", "+I")))
               .when(upsert & was & ~same, F.array(row("o_", "-U"), row("", "+U")))
               .when(~upsert & was, F.array(row("o_", "-D"))))
    delta = (F.when(upsert & ~was, F.array(counted("", 1)))
             .when(upsert & was & ~same, F.array(counted("o_", -1), counted("", 1)))
             .when(~upsert & was, F.array(counted("o_", -1))))
    j = ctx.persist(j.select(emitted.alias("__e"), delta.alias("__d")))
    changes = j.select(F.explode("__e").alias("r")).select("r.*")
    append_log(table, ctx.epoch, expiry.retract(stored, j.select(F.explode("__d").alias("r")).select("r.*"), keys),
               cols + [TASK])
    return Lowered(changes, False, True)
