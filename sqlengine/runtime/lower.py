"""Lowering the logical plan to Spark DataFrames, bottom-up, one visitor per node class.

Every lowered node's DataFrame has positional columns ``f0..fn``. Batch jobs lower the
whole plan here; streaming jobs lower each epoch with ``streaming/epoch.EpochLowerer``,
which reuses these visitors for stateless nodes (and the batch ones as the core of
its incremental operators).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from connectors.base import EOI, OP, Options, ScanContext, ScanResult, factory_for
from sqlengine.errors import UnsupportedError
from sqlengine.functions.registry import (LowerContext, lookup_aggregate, lookup_scalar, lower_cast)
from sqlengine.plan import nodes as P

MAX_EVENT_TIME = "9000-01-01 00:00:00"


RT = "__rt"


@dataclass
class Lowered:
    df: DataFrame
    eoi: bool = False  # df still carries the __eoi column
    updating: bool = False  # df carries __op
    rt: bool = False  # past a watermark: df carries __rt, the event time (MAX on the eoi row)
    empty: bool = False  # known to hold no row (an epoch's input that did not change)

    def hidden(self) -> list[Column]:
        return ([F.col(EOI)] if self.eoi else []) + ([F.col(RT)] if self.rt else []) + \
            ([F.col(OP)] if self.updating else [])


@dataclass
class LowerState:
    spark: Any
    streaming: bool
    parallelism: int
    max_parallelism: int
    conf: dict[str, str]
    job_id: str
    ctx: LowerContext
    scans: list[ScanResult] = field(default_factory=list)
    has_stream_source: bool = False
    # One lowering per distinct scan in a job: the sinks of a statement set share it
    # (one source in the streaming query's offsets log; persisted once in batch).
    scan_cache: dict = field(default_factory=dict)


def release(state: LowerState) -> None:
    """Unpersist the scans a batch job cached because several branches read them."""
    for low in state.scan_cache.values():
        if low.df.is_cached:
            low.df.unpersist()


def col(i: int) -> Column:
    return F.col(f"f{i}")


def drop_eoi(low: Lowered) -> Lowered:
    """Remove the end-of-input row.

    Past a watermark the filter references the event time (via ``__rt``): Spark
    pushes any other predicate below EventTimeWatermark, where it would remove the
    end-of-input row before the watermark has seen it.
    """
    if not low.eoi:
        return low
    if low.rt:
        keep = ~(F.col(EOI) & (F.col(RT) >= F.lit(MAX_EVENT_TIME).cast("timestamp")))
        return Lowered(low.df.where(keep).drop(EOI, RT), False, low.updating)
    return Lowered(low.df.where(~F.col(EOI)).drop(EOI), False, low.updating)


class ExprLowerer:
    def __init__(self, ctx: LowerContext):
        self.ctx = ctx

    def lower(self, e: P.Expr) -> Column:
        if isinstance(e, P.ColRef):
            return col(e.index)
        if isinstance(e, P.Lit):
            return self.literal(e)
        if isinstance(e, P.Cast):
            return lower_cast(self.lower(e.arg), e.arg.type, e.type, e.safe, self.ctx)
        if isinstance(e, P.Call):
            from sqlengine.binder.expressions import to_arg
            fn = lookup_scalar(e.name)
            if fn is None:
                raise UnsupportedError(f"No translation rule for function {e.name}")
            return fn.lower([self.lower(a) for a in e.args], [to_arg(a) for a in e.args], e.type, self.ctx)
        raise UnsupportedError(f"No translation rule for expression {type(e).__name__}")

    def literal(self, e: P.Lit) -> Column:
        if e.type.root == "NULL":
            return F.lit(None)
        return F.lit(e.value).cast(e.type.to_spark())


class Lowerer:
    """Dispatches ``visit_<NodeClass>`` with the children already lowered."""

    def __init__(self, state: LowerState):
        self.state = state
        self.exprs = ExprLowerer(state.ctx)

    def lower(self, node: P.Node) -> Lowered:
        method = getattr(self, f"visit_{type(node).__name__}", None)
        if method is None:
            raise UnsupportedError(f"No translation rule for {type(node).__name__}")
        return method(node, *[self.lower(c) for c in node.children()])

    # -- sources -------------------------------------------------------------------
    def visit_TableScan(self, node: P.TableScan) -> Lowered:
        st = self.state
        cached = st.scan_cache.get(node)
        if cached is not None:
            if not cached.df.isStreaming and not cached.df.is_cached:
                cached.df.persist()  # read once, used by several branches
            return cached
        st.scan_cache[node] = low = self._scan(node)
        return low

    def _scan(self, node: P.TableScan) -> Lowered:
        st = self.state
        factory = factory_for(node.connector or None, node.table)
        opts = Options(node.connector, dict(node.options))
        result = factory.scan(ScanContext(st.spark, st.streaming, st.parallelism, node.table,
                                          [(f.name, f.type) for f in node.fields], opts,
                                          st.ctx.local_time_zone, st.job_id, st.conf))
        st.scans.append(result)
        df = result.df
        if result.metrics:
            df = df.observe(f"metrics_{len(st.scans)}", *[c.alias(k) for k, c in result.metrics.items()])
        if df.isStreaming:
            st.has_stream_source = True
        cols = [F.col(f"`{f.name}`").alias(f"f{i}") for i, f in enumerate(node.fields)]
        keep_eoi = st.streaming and df.isStreaming
        out = df.select(*cols, F.col(EOI)) if keep_eoi else df.where(~F.col(EOI)).select(*cols)
        return Lowered(out, keep_eoi)

    def visit_Values(self, node: P.Values) -> Lowered:
        spark = self.state.spark
        if not node.fields:
            return Lowered(spark.range(1).select())
        rows = [spark.range(1).select(*[self.exprs.lower(e).cast(f.type.to_spark()).alias(f"f{i}")
                                        for i, (e, f) in enumerate(zip(r, node.fields))]) for r in node.rows]
        out = rows[0]
        for r in rows[1:]:
            out = out.unionAll(r)
        return Lowered(out)

    # -- stateless --------------------------------------------------------------------
    def visit_Calc(self, node: P.Calc, child: Lowered) -> Lowered:
        if node.condition is not None and not child.rt:
            child = drop_eoi(child)
        df = child.df
        if node.condition is not None:
            cond = self.exprs.lower(node.condition)
            # The end-of-input row passes every filter (it is removed where it is consumed).
            df = df.where(cond | F.col(EOI) if child.eoi else cond)
        cols = [self.exprs.lower(e).alias(f"f{i}") for i, e in enumerate(node.projections)]
        return Lowered(df.select(*cols, *child.hidden()), child.eoi, child.updating, child.rt)

    def visit_WatermarkAssigner(self, node: P.WatermarkAssigner, child: Lowered) -> Lowered:
        """Batch: event time needs no watermark (streaming: ``EpochLowerer`` tracks it)."""
        return drop_eoi(child)

    def visit_Union(self, node: P.Union, *children: Lowered) -> Lowered:
        parts = [drop_eoi(c) for c in children]
        out = parts[0].df
        for p in parts[1:]:
            out = out.unionAll(p.df)
        return Lowered(out, False, any(p.updating for p in parts))

    def visit_Sort(self, node: P.Sort, child: Lowered) -> Lowered:
        df = drop_eoi(child).df
        if node.keys:
            order = [_order(k) for k in node.keys]
            df = df.repartition(1).sortWithinPartitions(*order)
        if node.limit is not None:
            df = df.limit(node.limit + node.offset)
            if node.offset:
                df = df.offset(node.offset)
        return Lowered(df)

    # -- aggregates -------------------------------------------------------------------
    def agg_columns(self, aggs, input_width: int, grouping_sets: bool = False) -> list[Column]:
        from sqlengine.binder.expressions import to_arg
        out = []
        for j, a in enumerate(aggs):
            if a.name in ("GROUPING", "GROUPING_ID"):
                out.append(_grouping(a, grouping_sets).alias(f"a{j}"))
                continue
            fn = lookup_aggregate(a.name)
            cols = [self.exprs.lower(x) for x in a.args]
            filt = self.exprs.lower(a.filter) if a.filter is not None else None
            out.append(fn.lower(cols, [to_arg(x) for x in a.args], a.type, a.distinct, filt,
                                self.state.ctx).alias(f"a{j}"))
        return out

    def visit_Aggregate(self, node: P.Aggregate, child: Lowered) -> Lowered:
        child = drop_eoi(child)
        df = child.df
        keys = [col(k) for k in node.keys]
        if any(a.distinct for a in node.aggs) and keys:
            df = df.repartition(self.state.max_parallelism, *keys)
        sets = node.grouping_sets
        aggs = self.agg_columns(node.aggs, len(node.input.schema), sets is not None)
        if sets is not None:
            grouped = df.groupingSets([[col(k) for k in s] for s in sets], *keys) \
                .agg(*(aggs or [F.lit(0).alias("__none")]))
        else:
            grouped = df.groupBy(*keys).agg(*aggs) if aggs else df.select(*keys).distinct()
        out = [F.col(f"f{k}").alias(f"f{i}") for i, k in enumerate(node.keys)]
        out += [F.col(f"a{j}").alias(f"f{len(node.keys) + j}") for j in range(len(node.aggs))]
        return Lowered(grouped.select(*out))

    def visit_WindowAggregate(self, node: P.WindowAggregate, child: Lowered) -> Lowered:
        from sqlengine.runtime.windows import lower_window_aggregate
        return lower_window_aggregate(self, node, drop_eoi(child))

    def visit_WindowTableFunction(self, node: P.WindowTableFunction, child: Lowered) -> Lowered:
        from sqlengine.runtime.windows import lower_window_tvf
        return lower_window_tvf(self, node, drop_eoi(child))


    # -- joins, OVER, Top-N, UNNEST: thin wrappers over runtime/ops (shared with streaming) --
    def visit_Join(self, node: P.Join, left: Lowered, right: Lowered) -> Lowered:
        from sqlengine.runtime.ops.join import batch_join
        self._batch_only(node)
        return Lowered(batch_join(self, node, drop_eoi(left).df, drop_eoi(right).df))

    visit_IntervalJoin = visit_Join
    visit_WindowJoin = visit_Join

    def visit_TemporalJoin(self, node: P.TemporalJoin, left: Lowered, right: Lowered) -> Lowered:
        from sqlengine.runtime.ops.join import batch_temporal_join
        self._batch_only(node)
        return Lowered(batch_temporal_join(self, node, drop_eoi(left).df, drop_eoi(right).df))

    def visit_Over(self, node: P.Over, child: Lowered) -> Lowered:
        from sqlengine.runtime.ops.over import batch_over
        self._batch_only(node)
        return Lowered(batch_over(self, node, drop_eoi(child).df))

    def visit_Rank(self, node: P.Rank, child: Lowered) -> Lowered:
        from sqlengine.runtime.ops.rank import batch_rank
        self._batch_only(node)
        return Lowered(batch_rank(self, node, drop_eoi(child).df))

    def visit_Unnest(self, node: P.Unnest, child: Lowered) -> Lowered:
        from sqlengine.runtime.ops.unnest import batch_unnest
        child = drop_eoi(child)
        return Lowered(batch_unnest(self, node, child.df), False, child.updating)

    def _batch_only(self, node: P.Node) -> None:
        """Stateful operators on a streaming input belong to the epoch runtime."""
        if self.state.streaming and self.state.has_stream_source:
            raise UnsupportedError(f"{node.label} is not supported in streaming mode yet")


def _grouping(a: P.AggCall, grouping_sets: bool) -> Column:
    """GROUPING(k) / GROUPING_ID(k1..kn) as BIGINT; 0 without grouping sets."""
    if not grouping_sets:
        return F.lit(0).cast("long")
    bits = [F.grouping(col(x.index)).cast("long") for x in a.args]
    out = bits[0]
    for b in bits[1:]:
        out = out * 2 + b
    return out


def _order(k: P.SortKey) -> Column:
    c = col(k.index)
    if k.ascending:
        return c.asc_nulls_last() if k.nulls_first is False else c.asc_nulls_first()
    return c.desc_nulls_first() if k.nulls_first else c.desc_nulls_last()
