"""Accumulator-based Python aggregate functions (``udaf``, ``func_type="general"``) in a
streaming GROUP BY: their accumulators are the operator's state ``udaf``, as Flink keeps
them, so ``retract`` is called for each row an updating input takes back.

Per epoch, the touched keys' netted changes are collected per key in the JVM (one list
per key, next to the key's pickled accumulators, read from the previous epoch's state),
and one vectorized Arrow UDF folds every key of a batch: Python runs only inside the
user's ``accumulate`` / ``retract`` / ``get_value`` calls (``functions/python_udaf.py``).
The values replace the calls' NULL placeholders in the touched keys' results, which the
operator then compares with the emitted ones as for any aggregate. The state is a
snapshot per epoch, so a replayed epoch and a restored job read the accumulators the
epoch before them left.
"""
from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as st

from sqlengine.functions import python_udaf
from sqlengine.hidden import COUNT, TASK, fcols
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import EpochContext
from sqlengine.runtime.delta import anti, keys_equal

ACC = "__acc"


def folded(node: P.Aggregate) -> list[int]:
    """The positions of the calls whose accumulators are state."""
    return [j for j, a in enumerate(node.aggs) if a.function is not None and python_udaf.folds(a.function)]


def fold_udafs(ctx: EpochContext, node: P.Aggregate, delta: DataFrame, touched: DataFrame,
               out: DataFrame) -> DataFrame:
    """``out`` (the touched keys' results, keys ``f0..`` and ``__task``, the folded calls
    NULL) with the folded calls' values, after folding ``delta`` (the netted input
    changes, ``__n`` signed) into the accumulators; writes the accumulators' state."""
    idx = folded(node)
    nk = len(node.keys)
    keys = fcols(nk) + [TASK]
    calls = [(node.aggs[j].function, [ctx.expr(x) for x in node.aggs[j].args],
              ctx.expr(node.aggs[j].filter) if node.aggs[j].filter is not None else None) for j in idx]
    changes = delta.groupBy(*[F.col(f"f{k}").alias(f"f{i}") for i, k in enumerate(node.keys)], F.col(TASK)).agg(
        F.collect_list(python_udaf.change_struct(calls, F.col(COUNT))).alias("__changes"))
    schema = st.StructType([changes.schema[c] for c in keys] + [st.StructField(ACC, st.BinaryType())])
    table = ctx.table("udaf", schema, fcols(nk))
    stored = table.read(ctx.epoch)
    old = stored.select(*[F.col(c).alias(f"o_{c}") for c in keys], F.col(ACC))
    joined = changes.join(old, keys_equal(changes, old, keys, [f"o_{c}" for c in keys]), "left")
    fns = [(node.aggs[j].function, node.aggs[j].name, node.aggs[j].distinct, len(node.aggs[j].args),
            node.aggs[j].type) for j in idx]
    folded_rows = ctx.persist(joined.select(*keys, python_udaf.fold_column(fns, F.col(ACC), F.col("__changes"))
                                            .alias("__r")))
    kept = anti(stored, touched, keys)
    fresh = folded_rows.where(F.col("__r.acc").isNotNull()).select(*keys, F.col("__r.acc").alias(ACC))
    table.write(ctx.epoch, kept.unionByName(fresh), snapshot=True)
    values = folded_rows.select(*[F.col(c).alias(f"u_{c}") for c in keys],
                                *[F.col(f"__r.v{i}").alias(f"__v{i}") for i in range(len(idx))])
    with_values = out.join(values, keys_equal(out, values, keys, [f"u_{c}" for c in keys]), "left")
    nout = nk + len(node.aggs)
    cols = []
    for i, c in enumerate(fcols(nout)):
        j = i - nk
        cols.append(F.col(f"__v{idx.index(j)}").cast(out.schema[c].dataType).alias(c) if j in idx else F.col(c))
    return with_values.select(*cols, F.col(TASK))
