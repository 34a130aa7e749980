"""Values: a literal relation (``VALUES (...), (...)``, or one empty row for a SELECT
without FROM). In a streaming job it is static: all its rows in the job's first epoch."""
from __future__ import annotations

from sqlengine.hidden import Lowered
from sqlengine.physical.operator import Operator, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import BatchContext, EpochContext
from sqlengine.runtime.watermarks import WM_MAX


@register(P.Values)
class Values(Operator):
    def label(self, node: P.Values) -> str:
        return "Values"

    def explain(self, node: P.Values) -> str:
        return f"Values(tuples=[{', '.join('{' + ', '.join(map(str, r)) + '}' for r in node.rows)}])"

    def lower(self, ctx: BatchContext, node: P.Values) -> Lowered:
        spark = ctx.spark
        if not node.fields:
            return Lowered(spark.range(1).select())
        rows = [spark.range(1).select(*[ctx.expr(e).cast(f.type.to_spark()).alias(f"f{i}")
                                        for i, (e, f) in enumerate(zip(r, node.fields))]) for r in node.rows]
        out = rows[0]
        for r in rows[1:]:
            out = out.unionAll(r)
        return Lowered(out)

    def lower_epoch(self, ctx: EpochContext, node: P.Values) -> Lowered:
        ctx.set_watermark(WM_MAX)
        low = self.lower(ctx, node)
        if not ctx.first_epoch:
            return Lowered(low.df.limit(0), empty=True)
        return low
