"""UNNEST (a correlated table function): ``explode`` / ``posexplode``, ``_outer`` for
LEFT JOIN UNNEST ... ON TRUE. Stateless, so batch and streaming share it."""
from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from sqlengine.errors import UnsupportedError
from sqlengine.plan import nodes as P
from sqlengine.runtime.ops.common import col


def batch_unnest(lw, node: P.Unnest, df: DataFrame) -> DataFrame:
    n = len(node.input.schema)
    value = lw.exprs.lower(node.expr)
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
    exploded = df.select(*[col(i) for i in range(n)], fn(value).alias(*names))
    if is_map:
        outs = [F.col("__k"), F.col("__v")]
    elif t.element.root == "ROW":
        outs = [F.col("__e").getField(f.name) for f in t.element.fields]
    else:
        outs = [F.col("__e")]
    if node.with_ordinality:
        outs.append((F.col("__pos") + 1).cast("int"))
    return exploded.select(*[col(i) for i in range(n)],
                           *[c.alias(f"f{n + j}") for j, c in enumerate(outs)])
