"""Calc: projection and filter, one Spark projection (chained into its input's task)."""
from __future__ import annotations

from pyspark.sql import functions as F

from connectors.base import EOI
from sqlengine.physical.node import Operator, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered, drop_eoi


@register(P.Calc)
class Calc(Operator):
    def lower(self, lw, node: P.Calc, child: Lowered) -> Lowered:
        if node.condition is not None and not child.rt:
            child = drop_eoi(child)
        df = child.df
        if node.condition is not None:
            cond = lw.exprs.lower(node.condition)
            # The end-of-input row passes every filter (it is removed where it is consumed).
            df = df.where(cond | F.col(EOI) if child.eoi else cond)
        cols = [lw.exprs.lower(e).alias(f"f{i}") for i, e in enumerate(node.projections)]
        return Lowered(df.select(*cols, *child.hidden()), child.eoi, child.updating, child.rt, split=child.split)
