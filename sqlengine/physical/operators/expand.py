"""Expand: each row once per grouping set (the input columns, a copy of each grouping
key, NULL outside the set, then the set's number ``$e``), below an aggregate with
GROUPING SETS / ROLLUP / CUBE in streaming mode or over a window. Stateless: one
``explode`` in its input's task, batch and streaming."""
from __future__ import annotations

from pyspark.sql import functions as F

from connectors.base import EOI
from sqlengine.physical.node import Operator, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered, col


@register(P.Expand)
class Expand(Operator):
    def lower(self, lw, node: P.Expand, child: Lowered) -> Lowered:
        n, out = len(node.input.schema), node.schema
        copies = []
        for g, s in enumerate(node.sets):
            keys = [(col(k) if k in s else F.lit(None).cast(out[n + j].type.to_spark())).alias(f"k{j}")
                    for j, k in enumerate(node.keys)]
            copies.append(F.struct(*keys, F.lit(g).alias("e")))
        rows = F.array(*copies)
        if child.eoi:  # the end-of-input row passes once
            rows = F.when(F.col(EOI), F.array(copies[0])).otherwise(rows)
        hidden = child.hidden()
        x = F.col("__x")
        df = child.df.select(*[col(i) for i in range(n)], F.explode(rows).alias("__x"), *hidden)
        df = df.select(*[col(i) for i in range(n)],
                       *[x.getField(f"k{j}").alias(f"f{n + j}") for j in range(len(node.keys))],
                       x.getField("e").alias(f"f{n + len(node.keys)}"), *hidden)
        return Lowered(df, child.eoi, child.updating, child.rt, split=child.split)
