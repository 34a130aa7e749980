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

Over an insert-only input whose aggregates are COUNT/SUM/MIN/MAX and COUNT(DISTINCT)
(``mergeable``), nothing is recomputed: the epoch's partial results merge into the
emitted ones (``epoch_merge_aggregate``). State: ``output``, and for COUNT(DISTINCT)
``distinct`` (each key's values seen, a flag per FILTER; ``_distinct_partials``).

Over an updating input whose aggregates are COUNT, and SUM/AVG of exact (integral,
DECIMAL) values (``signed_foldable``; SELECT DISTINCT too: no aggregate), the epoch's
changes fold signed into per-key sums, as Flink's retracting accumulators do
(``epoch_signed_aggregate``). State: ``acc``.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from sqlengine import types as T
from sqlengine.config import state_ttl_ms
from sqlengine.functions.aggregates import exact_avg
from sqlengine.hidden import COUNT, OP, TASK, Lowered, fcol, fcols
from sqlengine.physical.operators.group_aggregate.udaf import fold_udafs, folded
from sqlengine.physical.shared.aggregates import MERGE, batch_aggregate
from sqlengine.physical.shared.logs import append_log
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import EpochContext
from sqlengine.runtime.state import COMPACT_EVERY
from sqlengine.runtime.delta import (anti, columns, epoch_delta, expand, key_frame, keys_equal, net,
                                     semi, signed, has_map)


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
    """Over an insert-only input, COUNT/SUM/MIN/MAX results are their own accumulators;
    so is COUNT(DISTINCT ...) with the values it has counted per key in state
    (``_distinct_partials``); MIN/MAX(DISTINCT x) are MIN/MAX(x); AVG(x) of a number is
    its sum and count of values (``_avg_parts``)."""
    return not child.updating and bool(node.keys) and not node.grouping_sets and all(
        (a.name in MERGE or (a.name in MERGED_AVG and not a.distinct and _sum_type(a.args[0].type) is not None))
        and a.function is None and (not a.distinct or a.name in DISTINCT_MERGE)
        and not any(has_map(x.type.to_spark()) for x in a.args) for a in node.aggs)


# AVG on the merge path (a set, so a test can take it off and leave AVG recomputing).
MERGED_AVG = {"AVG"}


def _sum_type(t) -> Optional[T.DataType]:
    """A sum's accumulator over values of type ``t`` (Flink's sum and AvgAggFunction
    accumulators): BIGINT for integral values (wrapping, as Flink's), DECIMAL(37, s) for
    DECIMAL(p, s) (two of them add to a DECIMAL(38, s), where Spark would narrow the scale
    of a sum of two DECIMAL(38, s)), DOUBLE for FLOAT/DOUBLE; None for any other type (the
    aggregate recomputes)."""
    if t.is_integer:
        return T.BIGINT()
    if t.root == "DECIMAL" and (t.scale or 0) <= 37:
        return T.DECIMAL(37, t.scale or 0)
    if t.root in ("FLOAT", "DOUBLE"):
        return T.DOUBLE()
    return None


def _avg_parts(node: P.Aggregate, at: list[int]) -> tuple[list[P.AggCall], list[int]]:
    """The partial aggregates of ``node.aggs[j]`` for ``j`` in ``at``, in order: AVG(x)
    [FILTER f] as SUM(CAST(x AS sum type)) [FILTER f], its count of values COUNT(x)
    [FILTER f] after all of them (and the positions of the AVGs, in order)."""
    aggs, avgs = [], []
    for j in at:
        a = node.aggs[j]
        if a.name == "AVG":
            t = _sum_type(a.args[0].type)
            aggs.append(P.AggCall("SUM", (P.Cast(t, a.args[0]),), t, filter=a.filter))
            avgs.append(j)
        else:
            aggs.append(a)
    counts = [P.AggCall("COUNT", node.aggs[j].args, T.BIGINT(False), filter=node.aggs[j].filter) for j in avgs]
    return aggs + counts, avgs


AVG_COUNT = "__avgn"  # the prefix of an AVG's count column in the partials and the state


def _avg_count(j: int) -> str:
    return f"{AVG_COUNT}{j}"


def _avg_finish(node: P.Aggregate, total: Column, count: Column, j: int) -> Column:
    """AVG's result from its merged sum and count: NULL without values; integral and
    DECIMAL means as Flink divides them (``exact_avg``), FLOAT/DOUBLE ones a division."""
    a = node.aggs[j]
    t = a.args[0].type
    mean = exact_avg(total, count, t, a.type) if (t.is_integer or t.root == "DECIMAL") else \
        (total / count).cast(a.type.to_spark())
    return F.when(count > 0, mean)


# The distinct aggregates the merge path takes: COUNT counts the values new to a key (and
# to its FILTER); MIN and MAX ignore DISTINCT.
DISTINCT_MERGE = {"COUNT", "MIN", "MAX"}


def _counted_distinct(node: P.Aggregate) -> list[int]:
    return [j for j, a in enumerate(node.aggs) if a.distinct and a.name == "COUNT"]


def _distinct_partials(ctx: EpochContext, node: P.Aggregate, rows: DataFrame, expiry) -> DataFrame:
    """Per key the epoch's partial result of every COUNT(DISTINCT x) [FILTER (WHERE f)]
    (columns ``f0..`` keys, ``d<j>`` per such aggregate ``j``, ``__task``): the values
    that count now and did not before. State ``distinct`` holds, per key, each value of
    each distinct argument (list) seen so far, with one flag per aggregate on it: whether
    a row with that value met the aggregate's FILTER (no FILTER: any row). An epoch's
    (key, value) pairs, each with its flags over the epoch's rows (Spark's partial
    aggregation before the exchange), are left-joined with the stored ones: a flag set now
    and not before counts 1. The table is a log: an epoch appends the pairs that gained a
    flag, and every ``COMPACT_EVERY`` epochs the versions are compacted into a snapshot
    (under a state TTL it is a snapshot every epoch, without the expired keys' pairs).
    Cost per epoch: the epoch's rows, a scan of the stored pairs, and a write of the new
    ones (not every input row of the touched keys, which the recompute path aggregates
    again, with Spark's Expand of the distinct aggregates: Nexmark's q15/q16, whose day
    key every epoch touches; nor a rewrite of every pair, which made q16's epochs grow
    with its state)."""
    nk = len(node.keys)
    key_cols = fcols(nk)
    groups: list[tuple] = []  # the distinct argument lists, in first use order
    for j in _counted_distinct(node):
        if node.aggs[j].args not in groups:
            groups.append(node.aggs[j].args)
    dj = _counted_distinct(node)
    vals = [[f"__v{g}_{i}" for i in range(len(args))] for g, args in enumerate(groups)]
    flags = [f"__f{j}" for j in dj]
    group_of = {j: groups.index(node.aggs[j].args) for j in dj}
    lowered = {g: [ctx.expr(x) for x in args] for g, args in enumerate(groups)}
    # One row per (row, argument list) whose values are all non-NULL (COUNT skips NULLs).
    choices = []
    for g in range(len(groups)):
        present = F.lit(True)
        for c in lowered[g]:
            present = present & c.isNotNull()
        fields = [F.lit(g).alias("__g")]
        for h in range(len(groups)):
            for name, c, t in zip(vals[h], lowered[h], groups[h]):
                fields.append((c if h == g else F.lit(None)).cast(t.type.to_spark()).alias(name))
        for j, name in zip(dj, flags):
            a = node.aggs[j]
            met = F.lit(True) if a.filter is None else F.coalesce(ctx.expr(a.filter), F.lit(False))
            fields.append((met if group_of[j] == g else F.lit(False)).alias(name))
        choices.append(F.when(present, F.struct(*fields)))
    keyed = rows.select(*[fcol(k).alias(f"f{i}") for i, k in enumerate(node.keys)],
                        F.explode(F.array(*choices)).alias("__r")).where(F.col("__r").isNotNull())
    pair = ["__g"] + [v for vs in vals for v in vs]
    pairs = keyed.select(*key_cols, "__r.*").groupBy(*key_cols, *pair).agg(
        *[F.max(f).alias(f) for f in flags])
    pairs = ctx.exchange(pairs, [fcol(i) for i in range(nk)])
    table = ctx.table("distinct", pairs.schema, key_cols)
    stored = table.read(ctx.epoch)
    on = key_cols + pair + [TASK]
    o_on = [f"o_{c}" for c in on]

    def was(f: str) -> Column:  # the flag before this epoch (False for a pair not stored)
        return F.coalesce(F.col(f"o_{f}"), F.lit(False))

    def flags_per_pair(df: DataFrame, names: list[str]) -> DataFrame:  # a pair's versions OR-ed
        return df.groupBy(*on).agg(*[F.max(f).alias(f) for f in names])
    if expiry is None:
        # A log: the epoch's pairs are left-joined with the stored ones (the table may hold a
        # pair in several versions: their flags are OR-ed per pair, after the join, where
        # the rows are the epoch's), and only the pairs that gained a flag are written.
        old = stored.select(*[F.col(c).alias(o) for c, o in zip(on, o_on)],
                            *[F.col(f).alias(f"o_{f}") for f in flags])
        joined = ctx.persist(flags_per_pair(pairs.join(old, keys_equal(pairs, old, on, o_on), "left"),
                                            flags + [f"o_{f}" for f in flags]))
        gained = F.lit(False)
        for f in flags:
            gained = gained | (F.col(f) & ~was(f))
        delta = joined.where(gained).select(*on, *[(F.col(f) | was(f)).alias(f) for f in flags])
        if table.chain_length(ctx.epoch) >= COMPACT_EVERY:
            table.write(ctx.epoch, flags_per_pair(stored.unionByName(delta), flags), snapshot=True)
        else:
            table.write(ctx.epoch, delta, snapshot=False)
        here = F.lit(True)
    else:
        # Under a state TTL the table is a snapshot rewritten whole: an expired key's pairs
        # leave it (a log would keep them, and count a returning key's values as seen).
        if table.chain_length(ctx.epoch):  # a log's versions (a job restored with a TTL now)
            stored = flags_per_pair(stored, flags)
        stored = expiry.live(stored, key_cols + [TASK])
        new = pairs.select(*on, *flags, F.lit(True).alias("__p"))
        old = stored.select(*[F.col(c).alias(f"o_{c}") for c in on + flags])
        joined = ctx.persist(new.join(old, keys_equal(new, old, on, o_on), "full_outer"))
        here = F.col("__p").isNotNull()
        table.write(ctx.epoch, joined.select(
            *[F.when(here, F.col(c)).otherwise(F.col(f"o_{c}")).alias(c) for c in on],
            *[(F.coalesce(F.col(f), F.lit(False)) | was(f)).alias(f) for f in flags]), snapshot=True)
    counted = [F.sum((F.col(f) & ~was(f)).cast("long")).alias(f"d{j}") for j, f in zip(dj, flags)]
    return joined.where(here).groupBy(*key_cols, TASK).agg(*counted)


def _plain_partials(ctx: EpochContext, node: P.Aggregate, rows: DataFrame) -> DataFrame:
    """Per key the epoch's partial result of every aggregate but COUNT(DISTINCT) (keys,
    then those aggregates, and ``__task``) after the node's exchange. Spark's partial
    aggregation stands in for Flink's local aggregation: the edge's exchange moves one
    partial row per key (not every input row) to the key's task."""
    nk = len(node.keys)
    dj = _counted_distinct(node)
    others = [j for j in range(len(node.aggs)) if j not in dj]
    aggs, avgs = _avg_parts(node, others)
    plain = replace(node, aggs=tuple(replace(a, distinct=False) for a in aggs),
                    agg_names=tuple(f"a{i}" for i in range(len(aggs))))
    out = batch_aggregate(ctx, plain, rows)
    if avgs:  # AVG's counts of values by name, after the partials in the aggregates' order
        first = nk + len(others)
        out = out.select(*fcols(first), *[F.col(f"f{first + i}").alias(_avg_count(j)) for i, j in enumerate(avgs)])
    return ctx.exchange(out, [fcol(i) for i in range(nk)])


def _with_distinct(ctx: EpochContext, node: P.Aggregate, part: DataFrame, rows: DataFrame, expiry) -> DataFrame:
    """``part`` (``_plain_partials``) with the COUNT(DISTINCT) partials in their places."""
    nk = len(node.keys)
    dj = _counted_distinct(node)
    others = [j for j in range(len(node.aggs)) if j not in dj]
    dist = _distinct_partials(ctx, node, rows, expiry)
    key_cols = fcols(nk) + [TASK]
    d = dist.select(*[F.col(c).alias(f"d_{c}") for c in key_cols], *[f"d{j}" for j in dj])
    joined = part.join(d, keys_equal(part, d, key_cols, [f"d_{c}" for c in key_cols]), "left")
    at = {j: i for i, j in enumerate(others)}

    def value(j: int) -> Column:
        c = F.coalesce(F.col(f"d{j}"), F.lit(0)) if j in dj else F.col(f"f{nk + at[j]}")
        if node.aggs[j].name == "AVG":  # its sum: its own type (the mean's comes at the end)
            return c.alias(f"f{nk + j}")
        return c.cast(node.aggs[j].type.to_spark()).alias(f"f{nk + j}")
    counts = [c for c in part.columns if c.startswith(AVG_COUNT)]
    return joined.select(*[F.col(c) for c in fcols(nk)], *[value(j) for j in range(len(node.aggs))], *counts, TASK)


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
    nk = len(node.keys)
    distinct = bool(_counted_distinct(node))
    rows = ctx.persist(child.df) if distinct else child.df  # read twice: plain aggregates, distinct pairs
    part = _plain_partials(ctx, node, rows)
    expiry = None
    if state_ttl_ms(ctx.conf) > 0:
        part = ctx.persist(part)
        expiry = ctx.expiry("input", ctx.persist(key_frame(part, fcols(nk) + [TASK])))
    if distinct:
        part = _with_distinct(ctx, node, part, rows, expiry)
    avgs = [j for j, a in enumerate(node.aggs) if a.name == "AVG"]
    merges = [PAIR["SUM" if a.name == "AVG" else a.name] for a in node.aggs] + [PAIR["COUNT"]] * len(avgs)
    naggs = len(node.aggs)

    def finish(accs: list[Column]) -> list[Column]:
        count = dict(zip(avgs, accs[naggs:]))
        return [_avg_finish(node, c, count[j], j) if j in count else c for j, c in enumerate(accs[:naggs])]
    return _fold(ctx, nk, part, "output", merges, finish, expiry)


def _fold(ctx: EpochContext, nk: int, part: DataFrame, name: str, merges: list, finish, expiry,
          rows: Optional[str] = None) -> Lowered:
    """Per key an epoch's partial accumulators (``part``: the keys ``f0..``, the
    accumulators, ``__task``) merged into the stored ones (state ``name``, a snapshot) by
    ``merges`` (one per accumulator: stored, partial -> merged), in one full outer join.
    ``finish`` maps accumulator columns to the aggregates' results; ``rows``, if given, is the
    accumulator counting a key's input rows: a key whose count falls to zero is deleted
    (``-D``, out of the state). A key whose result changed goes out as ``+I`` or
    ``-U``/``+U``; an unchanged one emits nothing (Flink's GroupAggFunction)."""
    key_cols = fcols(nk)
    accs = [c for c in part.columns if c not in key_cols and c != TASK]
    table = ctx.table(name, part.schema, key_cols)
    previous = table.read(ctx.epoch)
    if expiry is not None:
        previous = expiry.live(previous, key_cols + [TASK])
    new = part.select(*key_cols, *accs, TASK, F.lit(True).alias("__p"))
    old = previous.select(*[F.col(c).alias(f"o_{c}") for c in key_cols + accs + [TASK]], F.lit(True).alias("__o"))
    keys = key_cols + [TASK]
    cond = keys_equal(new, old, keys, [f"o_{c}" for c in keys]) if any(
        f.nullable for f in part.schema.fields[:nk]) else _equal([(new[c], old[f"o_{c}"]) for c in keys])
    here, was = F.col("__p").isNotNull(), F.col("__o").isNotNull()

    def value(c: str, merge) -> Column:
        merged = F.when(here & was, merge(F.col(f"o_{c}"), F.col(c))).when(here, F.col(c)).otherwise(F.col(f"o_{c}"))
        return merged.cast(part.schema[c].dataType).alias(c)
    key_values = [F.when(here, F.col(c)).otherwise(F.col(f"o_{c}")).alias(c) for c in key_cols]
    joined = ctx.persist(new.join(old, cond, "full_outer").select(
        *key_values, *[value(c, m) for c, m in zip(accs, merges)], *[F.col(f"o_{c}") for c in accs],
        F.col("__p"), F.col("__o")))
    now = [F.col(c) for c in key_cols] + finish([F.col(c) for c in accs])
    before = [F.col(c) for c in key_cols] + finish([F.col(f"o_{c}") for c in accs])
    cols = fcols(len(now))
    changed = F.lit(False)
    for a, b in zip(now[nk:], before[nk:]):
        changed = changed | ~a.eqNullSafe(b)
    alive = F.lit(True) if rows is None else F.col(rows) > 0

    def row(values: list[Column], op: str):
        return F.struct(*[v.alias(c) for v, c in zip(values, cols)], F.lit(op).alias(OP))
    out = (F.when(~was, F.array(row(now, "+I"))).when(~alive, F.array(row(before, "-D")))
           .otherwise(F.array(row(before, "-U"), row(now, "+U"))))
    emits = here & F.when(~was, alive).otherwise(~alive | changed)
    changes = joined.where(emits).select(F.explode(out).alias("r")).select("r.*")
    table.write(ctx.epoch, joined.where(alive).select(*key_cols, *accs), snapshot=True)
    return Lowered(changes, False, True)


# The aggregates an updating input's signed partials fold (``signed_foldable``): over a
# retraction a count and a sum go down, a mean is their quotient.
SIGNED = {"COUNT", "SUM", "AVG"}


def _exact(t) -> bool:
    """Arguments whose sums are exact under retraction (a FLOAT/DOUBLE sum that adds and
    removes a value can differ from the sum without it: those keep recomputing), and
    fit the accumulator (``_sum_type``: a DECIMAL of 38 digits keeps recomputing)."""
    return t.is_integer or (t.root == "DECIMAL" and (t.precision or 38) < 38)


def signed_foldable(node: P.Aggregate, child: Lowered, conf: dict) -> bool:
    """Over an updating input, COUNT, and SUM / AVG of an integral or DECIMAL argument
    (each with or without FILTER, not DISTINCT) fold the epoch's changes signed: a
    count, a sum and a count of values per aggregate and a count of rows per key are
    the accumulators (Flink's retracting accumulators for these functions). Not with a
    state TTL: Flink drops a retraction for a key it holds no state for (expired), and
    a signed sum cannot tell it from one that cancels a row it holds (the recompute
    path nets it against the multiset)."""
    return child.updating and not node.grouping_sets and state_ttl_ms(conf) <= 0 and all(
        a.name in SIGNED and a.function is None and not a.distinct
        and (a.name == "COUNT" or _exact(a.args[0].type)) for a in node.aggs)


ROWS = "__rows"  # a key's count of input rows, among the signed accumulators


def epoch_signed_aggregate(ctx: EpochContext, node: P.Aggregate, child: Lowered) -> Lowered:
    """COUNT / SUM / AVG over an updating input without its multiset: each change counts
    +1 (``+I``, ``+U``) or -1 (``-U``, ``-D``); per key the epoch's signed sums of the
    rows, of each aggregate's values (``s<j>``, masked by its FILTER, a retraction
    negated) and of each aggregate's counted values (``n<j>``) are Spark's partial and
    final aggregation, then the node's exchange (one row per key), and fold into the
    stored sums (``_fold``, state ``acc``). Results: COUNT = n, SUM = s while n > 0, AVG = s / n (``exact_avg``); a key
    whose rows all left is deleted. Cost per epoch: the epoch's changes and the stored
    sums, one row per key (the recompute path reads every input row of the touched keys)."""
    nk = len(node.keys)
    width = len(node.input.schema)
    changes = signed(child.df, True, fcols(width))
    plus = F.col(COUNT) > 0
    # (coalesced: a global aggregate's one group has a row even in an epoch whose input has none)
    partials = [F.coalesce(F.sum(COUNT), F.lit(0)).cast("long").alias(ROWS)]
    for j, a in enumerate(node.aggs):
        values = [ctx.expr(x) for x in a.args]
        counted = F.lit(True) if a.filter is None else F.coalesce(ctx.expr(a.filter), F.lit(False))
        for v in values:
            counted = counted & v.isNotNull()
        partials.append(F.coalesce(F.sum(F.when(counted, F.col(COUNT))), F.lit(0)).cast("long").alias(f"n{j}"))
        if a.name != "COUNT":
            t = _sum_type(a.args[0].type).to_spark()
            x = values[0].cast(t)
            partials.append(F.coalesce(F.sum(F.when(counted, F.when(plus, x).otherwise(-x))),
                                       F.lit(0).cast(t)).cast(t).alias(f"s{j}"))
    part = changes.groupBy(*[fcol(k).alias(f"f{i}") for i, k in enumerate(node.keys)]).agg(*partials)
    part = ctx.exchange(part, [fcol(i) for i in range(nk)])
    accs = [c for c in part.columns if c not in fcols(nk) and c != TASK]
    merges = [lambda o, p: o + p] * len(accs)

    def finish(cols: list[Column]) -> list[Column]:
        at = dict(zip(accs, cols))
        out = []
        for j, a in enumerate(node.aggs):
            n = at[f"n{j}"]
            if a.name == "COUNT":
                out.append(n.cast(a.type.to_spark()))
            elif a.name == "SUM":
                out.append(F.when(n > 0, at[f"s{j}"]).cast(a.type.to_spark()))
            else:
                out.append(F.when(n > 0, exact_avg(at[f"s{j}"], n, a.args[0].type, a.type)))
        return out
    return _fold(ctx, nk, part, "acc", merges, finish, None, rows=ROWS)


def _equal(pairs) -> Column:
    cond = F.lit(True)
    for a, b in pairs:
        cond = cond & (a == b)
    return cond


def epoch_group_aggregate(ctx: EpochContext, node: P.Aggregate, child: Lowered) -> Lowered:
    # A job restored from state that an earlier version of sqlengine wrote by recomputing
    # (its ``input`` multiset: COUNT(DISTINCT) took that path) keeps recomputing: the
    # merge path's pairs would start empty and count every value again.
    # So does one whose AVG recomputed before AVG merged.
    if mergeable(node, child) and not ((_counted_distinct(node) or any(a.name == "AVG" for a in node.aggs))
                                       and ctx.stored("input")):
        return epoch_merge_aggregate(ctx, node, child)
    # A job restored from state that recomputed this aggregate (its ``input`` multiset)
    # keeps recomputing: the signed sums would start from nothing.
    if signed_foldable(node, child, ctx.conf) and not ctx.stored("input"):
        return epoch_signed_aggregate(ctx, node, child)
    width = len(node.input.schema)
    cols = columns(width)
    keys = [f"f{k}" for k in node.keys] + [TASK]
    # An updating input is netted before its exchange, as Flink's local aggregation
    # combines a bundle's changes: a retraction and an addition of one row cancel on the
    # task that has them (Spark's partial aggregation), and only what is left moves.
    netted = epoch_delta(child.df, child.updating, columns(width, keyed=False))
    delta = ctx.persist(ctx.exchange(netted, [fcol(k) for k in node.keys]).select(*cols, COUNT))
    inputs = ctx.table("input", delta.schema, keys[:-1])
    keyed = ctx.touched(key_frame(delta, keys), inputs)
    touched = keyed.frame
    expiry = ctx.expiry("input", touched, keyed=bool(node.keys))
    stored = inputs.read(ctx.epoch)
    live = expiry.live(stored, keys)
    new_in = net(keyed.rows(live, keys).unionByName(delta), cols)
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
