"""Plan expressions and aggregate calls as Spark columns.

A lowered column names its inputs by position (``f<i>``), so it is the same in every
epoch: each expression is lowered once per job (memoized by the expression object,
which the plan keeps alive).
"""
from __future__ import annotations

from typing import Optional

from pyspark.sql import Column
from pyspark.sql import functions as F

from sqlengine.errors import UnsupportedError
from sqlengine.functions.registry import LowerContext, lookup_aggregate, lookup_scalar, lower_cast, to_arg
from sqlengine.hidden import fcol
from sqlengine.plan import nodes as P


class ExprLowerer:
    """Plan expressions to Spark columns (see the module docstring)."""

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
            return fcol(e.index)
        if isinstance(e, P.Lit):
            return self.literal(e)
        if isinstance(e, P.Cast):
            return lower_cast(self.lower(e.arg), e.arg.type, e.type, e.safe, self.ctx)
        if isinstance(e, P.PyCall):
            from sqlengine.functions import python_udf
            return python_udf.lower(e.function, e.name, [self.lower(a) for a in e.args], e.type)
        if isinstance(e, P.Call):
            fn = lookup_scalar(e.name)
            if fn is None:
                raise UnsupportedError(f"No translation rule for function {e.name}")
            return fn.lower([self.lower(a) for a in e.args], [to_arg(a) for a in e.args], e.type, self.ctx)
        raise UnsupportedError(f"No translation rule for expression {type(e).__name__}")

    def literal(self, e: P.Lit) -> Column:
        if e.type.root == "NULL":
            return F.lit(None)
        return F.lit(e.value).cast(e.type.to_spark())

    def aggregates(self, aggs: tuple[P.AggCall, ...], grouping_sets: bool = False,
                   folded: bool = False) -> list[Column]:
        """One column per aggregate call, named ``a0..``; ``folded``: the calls of
        accumulator-based Python functions are NULL here (a streaming GROUP BY folds them
        into state: group_aggregate/udaf.py)."""
        key = ("aggs", id(aggs), grouping_sets, folded)
        hit = self.memo.get(key)
        if hit is not None and hit[0] is aggs:
            return hit[1]
        out = []
        for j, a in enumerate(aggs):
            if a.name in ("GROUPING", "GROUPING_ID"):
                out.append(_grouping(a, grouping_sets).alias(f"a{j}"))
                continue
            cols = [self.lower(x) for x in a.args]
            filt = self.lower(a.filter) if a.filter is not None else None
            if a.function is not None:
                out.append(self.user_aggregate(a, cols, filt, folded).alias(f"a{j}"))
                continue
            fn = lookup_aggregate(a.name)
            out.append(fn.lower(cols, [to_arg(x) for x in a.args], a.type, a.distinct, filt, self.ctx).alias(f"a{j}"))
        self.memo[key] = (aggs, out)
        return out


    @staticmethod
    def user_aggregate(a: P.AggCall, cols: list[Column], filt: Optional[Column], folded: bool) -> Column:
        from sqlengine.functions import python_udaf
        if folded and python_udaf.folds(a.function):
            return F.max(F.lit(None).cast(a.type.to_spark()))
        return python_udaf.lower_aggregate(a.function, a.name, cols, a.type, a.distinct, filt)


def _grouping(a: P.AggCall, grouping_sets: bool) -> Column:
    """GROUPING(k) / GROUPING_ID(k1..kn) as BIGINT; 0 without grouping sets."""
    if not grouping_sets:
        return F.lit(0).cast("long")
    bits = [F.grouping(fcol(x.index)).cast("long") for x in a.args]
    out = bits[0]
    for b in bits[1:]:
        out = out * 2 + b
    return out


def sort_order(k: P.SortKey) -> Column:
    """Flink's default null order: NULLS FIRST ascending, NULLS LAST descending."""
    c = fcol(k.index)
    if k.ascending:
        return c.asc_nulls_last() if k.nulls_first is False else c.asc_nulls_first()
    return c.desc_nulls_first() if k.nulls_first else c.desc_nulls_last()
