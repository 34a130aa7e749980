"""GroupAggregate in an epoch: Flink's unbounded GROUP BY with retractions.

Per epoch: the input delta (any changelog) is netted; the keys it touches are
recomputed from the input multiset held in state (only those keys' rows are read),
with the same native Spark aggregation the batch lowering uses, so every aggregate
(DISTINCT, FILTER, MIN/MAX under retraction) has Flink's semantics without an
accumulator per function; the new results are compared with the emitted ones and
the differences go out as ``+I`` / ``-U`` ``+U`` / ``-D`` (a changed key's old and new
row, as Flink's GroupAggregate emits them; an unchanged result emits nothing).

State: ``input`` (netted input rows with their counts: deltas compacted every few
epochs) and ``output`` (the last emitted row per key, a snapshot).
"""
from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from sqlengine.config import state_ttl_ms
from sqlengine.hidden import COUNT, OP, TASK, Lowered, fcol, fcols
from sqlengine.physical.operators.group_aggregate.udaf import fold_udafs, folded
from sqlengine.physical.shared.aggregates import MERGE, batch_aggregate
from sqlengine.physical.shared.logs import append_log
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import EpochContext
from sqlengine.runtime.delta import anti, columns, epoch_delta, expand, key_frame, keys_equal, net, semi


def keyed_changes(old: DataFrame, new: DataFrame, nk: int, width: int) -> DataFrame:
    """One result row per key before (``old``) and after (``new``) as a changelog (both
    on the tasks of their keys)."""
    cols = fcols(width)
    keys = cols[:nk] + [TASK]
    o = old.select(*[F.col(c).alias(f"o_{c}") for c in cols + [TASK]], F.lit(True).alias("__o"))
    n = new.select(*cols, TASK, F.lit(True).alias("__p"))
    j = n.join(o, keys_equal(n, o, keys, [f"o_{c}" for c in keys]), "full_outer")
    changed = F.lit(False)
    for c in cols[nk:]:
        changed = changed | ~F.col(c).eqNullSafe(F.col(f"o_{c}"))

    def row(prefix: str, op: str):
        return F.struct(*[F.col(f"{prefix}{c}").alias(c) for c in cols], F.lit(op).alias(OP))
    both = F.col("__p").isNotNull() & F.col("__o").isNotNull()
    rows = (F.when(both & changed, F.array(row("o_", "-U"), row("", "+U")))
            .when(F.col("__o").isNull(), F.array(row("", "+I")))
            .when(F.col("__p").isNull(), F.array(row("o_", "-D"))))
    return j.select(F.explode(rows).alias("r")).select("r.*")


def mergeable(node: P.Aggregate, child: Lowered) -> bool:
    """Over an insert-only input, COUNT/SUM/MIN/MAX results are their own accumulators."""
    return not child.updating and bool(node.keys) and not node.grouping_sets and all(
        a.name in MERGE and not a.distinct and a.function is None for a in node.aggs)


def _add(o: Column, p: Column) -> Column:
    """SUM's merge: a side that summed only NULLs is NULL and adds nothing."""
    return F.when(o.isNull(), p).when(p.isNull(), o).otherwise(o + p)


# How an emitted result (o) and an epoch's partial result (p) of one key combine.
PAIR = {"COUNT": lambda o, p: o + p, "SUM": _add, "MIN": F.least, "MAX": F.greatest}


def epoch_merge_aggregate(ctx: EpochContext, node: P.Aggregate, child: Lowered) -> Lowered:
    """The fast path: the epoch's rows aggregated per key and full-outer-joined with the
    emitted results (no input kept in state). A key on both sides gets its old result
    merged with the epoch's; the keys whose result changed go out (``+I`` or ``-U``/``+U``),
    and the joined rows are the next snapshot of the results: one join per epoch."""
    nk, width = len(node.keys), len(node.schema)
    key_cols, cols = fcols(nk), fcols(width)
    # Spark's partial aggregation stands in for Flink's local aggregation: the edge's
    # exchange moves one partial row per key (not every input row) to the key's task.
    part = ctx.exchange(batch_aggregate(ctx, node, child.df), [fcol(i) for i in range(nk)])
    outputs = ctx.table("output", part.schema, key_cols)
    previous = outputs.read(ctx.epoch)
    if state_ttl_ms(ctx.conf) > 0:
        part = ctx.persist(part)
        touched = ctx.persist(key_frame(part, key_cols + [TASK]))
        previous = ctx.expiry("input", touched).live(previous, key_cols + [TASK])
    new = part.select(*cols, TASK, F.lit(True).alias("__p"))
    old = previous.select(*[F.col(c).alias(f"o_{c}") for c in cols + [TASK]], F.lit(True).alias("__o"))
    keys = key_cols + [TASK]
    cond = keys_equal(new, old, keys, [f"o_{c}" for c in keys]) if any(
        f.nullable for f in part.schema.fields[:nk]) else _equal([(new[c], old[f"o_{c}"]) for c in keys])
    here, was = F.col("__p").isNotNull(), F.col("__o").isNotNull()

    def value(i: int, c: str) -> Column:
        if i < nk:  # a key: from the side that has the row
            return F.when(here, F.col(c)).otherwise(F.col(f"o_{c}")).alias(c)
        both = PAIR[node.aggs[i - nk].name](F.col(f"o_{c}"), F.col(c))
        merged = F.when(here & was, both).when(here, F.col(c)).otherwise(F.col(f"o_{c}"))
        return merged.cast(part.schema[c].dataType).alias(c)
    merged = [value(i, c) for i, c in enumerate(cols)]
    joined = ctx.persist(new.join(old, cond, "full_outer").select(
        *merged, *[F.col(f"o_{c}") for c in cols[nk:]], F.col("__p"), F.col("__o")))
    changed = F.lit(False)
    for c in cols[nk:]:
        changed = changed | ~F.col(c).eqNullSafe(F.col(f"o_{c}"))

    def row(values: list[str], op: str):
        return F.struct(*[F.col(v).alias(c) for v, c in zip(values, cols)], F.lit(op).alias(OP))
    olds = key_cols + [f"o_{c}" for c in cols[nk:]]
    rows = F.when(~was, F.array(row(cols, "+I"))).otherwise(
        F.array(row(olds, "-U"), row(cols, "+U")))
    changes = joined.where(here & (~was | changed)) \
        .select(F.explode(rows).alias("r")).select("r.*")
    outputs.write(ctx.epoch, joined.select(*cols), snapshot=True)
    return Lowered(changes, False, True)


def _equal(pairs) -> Column:
    cond = F.lit(True)
    for a, b in pairs:
        cond = cond & (a == b)
    return cond


def epoch_group_aggregate(ctx: EpochContext, node: P.Aggregate, child: Lowered) -> Lowered:
    if mergeable(node, child):
        return epoch_merge_aggregate(ctx, node, child)
    width = len(node.input.schema)
    cols = columns(width)
    keys = [f"f{k}" for k in node.keys] + [TASK]
    # An updating input is netted before its exchange, as Flink's local aggregation
    # combines a bundle's changes: a retraction and an addition of one row cancel on the
    # task that has them (Spark's partial aggregation), and only what is left moves.
    netted = epoch_delta(child.df, child.updating, columns(width, keyed=False))
    delta = ctx.persist(ctx.exchange(netted, [fcol(k) for k in node.keys]).select(*cols, COUNT))
    inputs = ctx.table("input", delta.schema, keys[:-1])
    touched = ctx.persist(key_frame(delta, keys))
    expiry = ctx.expiry("input", touched, keyed=bool(node.keys))
    stored = inputs.read(ctx.epoch)
    live = expiry.live(stored, keys)
    new_in = net(semi(live, touched, keys).unionByName(delta), cols)
    new_in = ctx.persist(new_in)
    udafs = folded(node)
    out = batch_aggregate(ctx, node, expand(new_in), keyed=True, folded=bool(udafs))
    if not node.keys:  # a global aggregate has no row while its input is empty (Flink)
        rows = new_in.agg(F.sum(COUNT).alias("__c"))
        out = out.crossJoin(rows).where(F.col("__c") > 0).drop("__c")
    if udafs:  # Python aggregate functions' accumulators: state of their own
        out = fold_udafs(ctx, node, delta, touched, out)
    out = ctx.persist(out)
    nk, nout = len(node.keys), len(node.schema)
    out_keys = fcols(nk) + [TASK]
    outputs = ctx.table("output", out.schema, fcols(nk))
    previous = expiry.live(outputs.read(ctx.epoch), out_keys)
    old = semi(previous, touched, out_keys) if node.keys else previous
    changes = ctx.persist(keyed_changes(old, out, nk, nout))
    append_log(inputs, ctx.epoch, expiry.retract(stored, delta, keys), cols)
    kept = anti(previous, touched, out_keys) if node.keys else previous.limit(0)
    outputs.write(ctx.epoch, kept.unionByName(out), snapshot=True)
    return Lowered(changes, False, True)
