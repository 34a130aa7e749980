"""Calc: projection and filter, one Spark projection (chained into its input's task)."""
from __future__ import annotations

import dataclasses

from pyspark.sql import functions as F

from connectors.base import EOI
from sqlengine.physical.node import Operator, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import ExprLowerer, Lowered, drop_eoi


def _reads_watermark(e: P.Expr) -> bool:
    return isinstance(e, P.Call) and (e.name == "CURRENT_WATERMARK" or any(_reads_watermark(a) for a in e.args)) \
        or isinstance(e, P.Cast) and _reads_watermark(e.arg)


@register(P.Calc)
class Calc(Operator):
    def reads_watermark(self, node: P.Calc) -> bool:
        return any(_reads_watermark(e) for e in (*node.projections, node.condition) if e is not None)

    def lower(self, lw, node: P.Calc, child: Lowered) -> Lowered:
        if node.condition is not None and not child.rt:
            child = drop_eoi(child)
        df = child.df
        exprs = lw.exprs
        if hasattr(lw, "prev_input_wm") and self.reads_watermark(node):
            # CURRENT_WATERMARK: this epoch's input watermark, lowered afresh each epoch.
            ctx = dataclasses.replace(lw.exprs.ctx, current_watermark=lw.prev_input_wm(node))
            exprs = ExprLowerer(ctx)
        if node.condition is not None:
            cond = exprs.lower(node.condition)
            # The end-of-input row passes every filter (it is removed where it is consumed).
            df = df.where(cond | F.col(EOI) if child.eoi else cond)
        cols = [exprs.lower(e).alias(f"f{i}") for i, e in enumerate(node.projections)]
        return Lowered(df.select(*cols, *child.hidden()), child.eoi, child.updating, child.rt, split=child.split)
