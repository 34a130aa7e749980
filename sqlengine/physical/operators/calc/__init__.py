"""Calc: projection and filter, one Spark projection (chained into its input's task).
``CURRENT_WATERMARK(rowtime)`` in a streaming job reads the epoch's input watermark,
so such a Calc is lowered afresh each epoch."""
from __future__ import annotations

import dataclasses

from pyspark.sql import functions as F

from sqlengine.hidden import EOI, Lowered, drop_eoi
from sqlengine.physical.operator import Operator, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import BatchContext, EpochContext
from sqlengine.runtime.exprs import ExprLowerer


def _reads_watermark(e: P.Expr) -> bool:
    return isinstance(e, P.Call) and (e.name == "CURRENT_WATERMARK" or any(_reads_watermark(a) for a in e.args)) \
        or isinstance(e, P.Cast) and _reads_watermark(e.arg)


@register(P.Calc)
class Calc(Operator):
    def explain(self, node: P.Calc) -> str:
        sel = ", ".join(str(e) if (isinstance(e, P.ColRef) and e.name == n) else f"{e} AS {n}"
                        for e, n in zip(node.projections, node.out_names))
        where = f", where=[{node.condition}]" if node.condition is not None else ""
        return f"Calc(select=[{sel}]{where})"

    def reads_watermark(self, node: P.Calc) -> bool:
        return any(_reads_watermark(e) for e in (*node.projections, node.condition) if e is not None)

    def lower(self, ctx: BatchContext, node: P.Calc, child: Lowered) -> Lowered:
        return _calc(node, child, ctx.expr)

    def lower_epoch(self, ctx: EpochContext, node: P.Calc, child: Lowered) -> Lowered:
        lower = ctx.expr
        if self.reads_watermark(node):  # this epoch's input watermark, lowered afresh each epoch
            lower = ExprLowerer(dataclasses.replace(ctx.functions,
                                                    current_watermark=ctx.previous_input_watermark)).lower
        out = _calc(node, child, lower)
        out.empty = child.empty
        return out


def _calc(node: P.Calc, child: Lowered, lower) -> Lowered:
    if node.condition is not None and not child.rt:
        child = drop_eoi(child)
    df = child.df
    if node.condition is not None:
        cond = lower(node.condition)
        # The end-of-input row passes every filter (it is removed where it is consumed).
        df = df.where(cond | F.col(EOI) if child.eoi else cond)
    cols = [lower(e).alias(f"f{i}") for i, e in enumerate(node.projections)]
    return dataclasses.replace(child, df=df.select(*cols, *child.hidden()), empty=False)
