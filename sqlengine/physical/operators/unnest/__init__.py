"""UNNEST (a correlated table function, Flink's Correlate): ``explode`` / ``posexplode``,
``_outer`` for LEFT JOIN UNNEST ... ON TRUE. Stateless, so batch and streaming share it."""
from __future__ import annotations

from pyspark.sql import functions as F

from sqlengine.errors import UnsupportedError
from sqlengine.hidden import OP, Lowered, drop_eoi, fcol
from sqlengine.physical.operator import Operator, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import BatchContext


@register(P.Unnest)
class Unnest(Operator):
    def explain(self, node: P.Unnest) -> str:
        return f"Correlate(invocation=[$UNNEST_ROWS$1({node.expr})], select=[{', '.join(node.names())}])"

    def lower(self, ctx: BatchContext, node: P.Unnest, child: Lowered) -> Lowered:
        child = drop_eoi(child)
        n = len(node.input.schema)
        value = ctx.expr(node.expr)
        t = node.expr.type
        is_map = t.root == "MAP"
        if t.root == "MULTISET":
            raise UnsupportedError("UNNEST of a MULTISET is not supported")
        if node.with_ordinality:
            fn = F.posexplode_outer if node.left_outer else F.posexplode
            names = ["__pos", "__k", "__v"] if is_map else ["__pos", "__e"]
        else:
            fn = F.explode_outer if node.left_outer else F.explode
            names = ["__k", "__v"] if is_map else ["__e"]
        kind = [F.col(OP)] if child.updating else []
        exploded = child.df.select(*[fcol(i) for i in range(n)], *kind, fn(value).alias(*names))
        if is_map:
            outs = [F.col("__k"), F.col("__v")]
        elif t.element.root == "ROW":
            outs = [F.col("__e").getField(f.name) for f in t.element.fields]
        else:
            outs = [F.col("__e")]
        if node.with_ordinality:
            outs.append((F.col("__pos") + 1).cast("int"))
        df = exploded.select(*[fcol(i) for i in range(n)],
                             *[c.alias(f"f{n + j}") for j, c in enumerate(outs)], *kind)
        return Lowered(df, False, child.updating)
