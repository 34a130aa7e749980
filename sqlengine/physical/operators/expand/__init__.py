"""Expand: one copy of each row per grouping set (Flink's Expand, below an aggregate with
GROUPING SETS / ROLLUP / CUBE in streaming mode or over a window), one Spark
``explode`` in its input's task, batch and streaming."""
from __future__ import annotations

import dataclasses

from pyspark.sql import functions as F

from sqlengine.hidden import EOI, Lowered, fcol
from sqlengine.physical.operator import Operator, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import BatchContext


@register(P.Expand)
class Expand(Operator):
    def explain(self, node: P.Expand) -> str:
        names = node.input.names()
        projects = ", ".join("{" + ", ".join(names + [names[k] if k in s else f"null AS {names[k]}" for k in node.keys])
                             + f", {g} AS $e" + "}" for g, s in enumerate(node.sets))
        return f"Expand(projects=[{projects}])"

    def lower(self, ctx: BatchContext, node: P.Expand, child: Lowered) -> Lowered:
        n, out = len(node.input.schema), node.schema
        copies = []
        for g, s in enumerate(node.sets):
            keys = [(fcol(k) if k in s else F.lit(None).cast(out[n + j].type.to_spark())).alias(f"k{j}")
                    for j, k in enumerate(node.keys)]
            copies.append(F.struct(*keys, F.lit(g).alias("e")))
        rows = F.array(*copies)
        if child.eoi:  # the end-of-input row passes once
            rows = F.when(F.col(EOI), F.array(copies[0])).otherwise(rows)
        hidden = child.hidden()
        x = F.col("__x")
        df = child.df.select(*[fcol(i) for i in range(n)], F.explode(rows).alias("__x"), *hidden)
        df = df.select(*[fcol(i) for i in range(n)],
                       *[x.getField(f"k{j}").alias(f"f{n + j}") for j in range(len(node.keys))],
                       x.getField("e").alias(f"f{n + len(node.keys)}"), *hidden)
        return dataclasses.replace(child, df=df, empty=False)
