"""Lowering the logical plan to Spark DataFrames, bottom-up, one visitor per node class.

Every lowered node's DataFrame has positional columns ``f0..fn``. Batch jobs lower the
whole plan here; streaming jobs lower each epoch with ``streaming/epoch.EpochLowerer``,
which reuses these visitors for stateless nodes (and the batch ones as the core of
its incremental operators).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from connectors.base import EOI, OP, SEQ, SPLIT, Options, ScanContext, ScanResult, check_metadata, factory_for
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
    split: bool = False  # df carries __split, the source split of a row (up to its watermark assigner)

    def hidden(self) -> list[Column]:
        return ([F.col(EOI)] if self.eoi else []) + ([F.col(RT)] if self.rt else []) + \
            ([F.col(OP)] if self.updating else []) + ([F.col(SPLIT)] if self.split else [])


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
    # Spark columns of the plan's expressions, lowered once per job (not once per epoch).
    columns: dict = field(default_factory=dict)


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
        return Lowered(low.df.where(keep).drop(EOI, RT), False, low.updating, split=low.split)
    return Lowered(low.df.where(~F.col(EOI)).drop(EOI), False, low.updating, split=low.split)


class ExprLowerer:
    """Plan expressions to Spark columns. A column names its inputs by position (``f<i>``),
    so it is the same in every epoch: each expression is lowered once per job (``memo``,
    keyed by the expression object, which the plan keeps alive)."""

    def __init__(self, ctx: LowerContext, memo: Optional[dict] = None):
        self.ctx = ctx
        self.memo = {} if memo is None else memo

    def lower(self, e: P.Expr) -> Column:
        hit = self.memo.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        out = self._lower(e)
        self.memo[id(e)] = (e, out)
        return out

    def _lower(self, e: P.Expr) -> Column:
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
    """Lowers the operator DAG (``physical/``) in batch: each node once, in dependency
    order, by its operator's ``lower`` with its inputs already lowered.

    Spark's planner inserts the exchanges the DAG's edges name: shuffles get as many
    partitions as there are key groups (``spark.sql.shuffle.partitions`` is set to
    ``pipeline.max-parallelism`` for the job), and each operator lowers to the Spark
    operator whose required distribution is its edge (tests/e2e/test_shuffles.py reads
    the executed plan to check it).
    """

    def __init__(self, state: LowerState):
        self.state = state
        self.exprs = ExprLowerer(state.ctx, state.columns)

    def plan(self, roots: list[P.Node]):
        from sqlengine.physical.planner import plan_dag
        st = self.state
        return plan_dag(roots, st.streaming, st.parallelism, st.max_parallelism)

    def run(self, dag) -> list[Lowered]:
        return dag.run(self.lower_node)

    def lower(self, node: P.Node) -> Lowered:
        """Plan ``node`` as a one-root DAG and lower it."""
        return self.run(self.plan([node]))[0]

    def lower_node(self, pn, inputs: list[Lowered]) -> Lowered:
        return pn.op.lower(self, pn.logical, *inputs)

    # -- helpers shared by the operators ---------------------------------------------------
    def scan(self, node: P.TableScan) -> Lowered:
        st = self.state
        cached = st.scan_cache.get(node)
        if cached is not None:
            if not cached.df.isStreaming and not cached.df.is_cached:
                cached.df.persist()  # read once, used by several branches
            return cached
        st.scan_cache[node] = low = self._scan(node)
        return low

    def lookup_scan(self, node: P.TableScan) -> Lowered:
        """The lookup side of a processing-time temporal join in a streaming job: a batch
        DataFrame that reads the table when an epoch's action runs (never persisted)."""
        st = self.state
        key = ("lookup", node)
        low = st.scan_cache.get(key)
        if low is None:
            st.scan_cache[key] = low = self._scan(node, lookup=True)
        return low

    def _scan(self, node: P.TableScan, lookup: bool = False) -> Lowered:
        st = self.state
        factory = factory_for(node.connector or None, node.table)
        opts = Options(node.connector, dict(node.options))
        n_meta = len(node.metadata)
        physical = node.fields[:len(node.fields) - n_meta]
        check_metadata(factory, node.table, [k for _, k in node.metadata], source=True)
        meta = [(name, key, f.type) for (name, key), f in zip(node.metadata, node.fields[len(physical):])]
        result = factory.scan(ScanContext(st.spark, st.streaming and not lookup, st.parallelism, node.table,
                                          [(f.name, f.type) for f in physical], opts,
                                          st.ctx.local_time_zone, st.job_id, st.conf, meta, node.primary_key,
                                          lookup=lookup))
        if not lookup:
            st.scans.append(result)
        df = result.df
        if result.metrics:
            df = df.observe(f"metrics_{len(st.scans)}", *[c.alias(k) for k, c in result.metrics.items()])
        if df.isStreaming:
            st.has_stream_source = True
        if lookup:
            cols = [F.col(_quoted(f.name)).alias(f"f{i}") for i, f in enumerate(node.fields)]
            return Lowered(df.where(~F.col(EOI)).select(*cols))
        cols = [F.col(_quoted(f.name)).alias(f"f{i}") for i, f in enumerate(node.fields)]
        if node.changelog:  # the row kind, and for an upsert source its position
            cols.append(F.coalesce(F.col(OP), F.lit("+I")).alias(OP))
            if SEQ in df.columns:  # for a ChangelogNormalize
                cols.append(F.col(SEQ))
        keep_eoi = st.streaming and df.isStreaming
        split = keep_eoi and node.watermarked and result.splits is not None and SPLIT in df.columns
        if split:
            cols.append(F.col(SPLIT))
        out = df.select(*cols, F.col(EOI)) if keep_eoi else df.where(~F.col(EOI)).select(*cols)
        return Lowered(out, keep_eoi, bool(node.changelog), split=split)

    def agg_columns(self, aggs, input_width: int, grouping_sets: bool = False) -> list[Column]:
        key = ("aggs", id(aggs), input_width, grouping_sets)
        hit = self.state.columns.get(key)
        if hit is not None and hit[0] is aggs:
            return hit[1]
        out = self._agg_columns(aggs, grouping_sets)
        self.state.columns[key] = (aggs, out)
        return out

    def _agg_columns(self, aggs, grouping_sets: bool) -> list[Column]:
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

    def batch_only(self, node: P.Node) -> None:
        """Stateful operators on a streaming input belong to the epoch runtime."""
        if self.state.streaming and self.state.has_stream_source:
            raise UnsupportedError(f"{node.label} is not supported in streaming mode yet")


def _quoted(name: str) -> str:
    """A column reference Spark reads literally (backticks doubled inside backticks)."""
    return "`" + name.replace("`", "``") + "`"


def _grouping(a: P.AggCall, grouping_sets: bool) -> Column:
    """GROUPING(k) / GROUPING_ID(k1..kn) as BIGINT; 0 without grouping sets."""
    if not grouping_sets:
        return F.lit(0).cast("long")
    bits = [F.grouping(col(x.index)).cast("long") for x in a.args]
    out = bits[0]
    for b in bits[1:]:
        out = out * 2 + b
    return out


def sort_order(k: P.SortKey) -> Column:
    c = col(k.index)
    if k.ascending:
        return c.asc_nulls_last() if k.nulls_first is False else c.asc_nulls_first()
    return c.desc_nulls_first() if k.nulls_first else c.desc_nulls_last()
