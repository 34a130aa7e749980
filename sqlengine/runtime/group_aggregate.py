"""Unbounded streaming GROUP BY as a changelog operator (Flink's GroupAggregate).

Spark's update output mode has no retractions, so the operator keeps, per key in
Spark's state store (checkpointed, RocksDB), its accumulators and the row it emitted
last, and emits ``+I`` for a new key and ``-U``/``+U`` when a key's result changes,
as an append-only stream of changes with an explicit ``__op`` column. A micro-batch
folds all changes of one key into one update (like Flink's mini-batch).
"""
from __future__ import annotations

import pickle
from decimal import Decimal
from typing import Any, Iterator

from pyspark.sql import functions as F
from pyspark.sql import types as st

from connectors.base import OP
from sqlengine.errors import UnsupportedError
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered, col

SUPPORTED = ("COUNT", "SUM", "MIN", "MAX", "AVG")


def _init(a: P.AggCall) -> Any:
    if a.distinct:
        return set()
    return {"COUNT": 0, "SUM": None, "MIN": None, "MAX": None, "AVG": (None, 0)}[a.name]


def _update(a: P.AggCall, acc: Any, values, mask) -> Any:
    for v, m in zip(values, mask):
        if not m or (v is None and a.args) or (a.args and _isnan(v)):
            continue
        if a.distinct:
            acc.add(v)
        elif a.name == "COUNT":
            acc += 1
        elif a.name == "SUM":
            acc = v if acc is None else acc + v
        elif a.name == "MIN":
            acc = v if acc is None or v < acc else acc
        elif a.name == "MAX":
            acc = v if acc is None or v > acc else acc
        elif a.name == "AVG":
            acc = (v if acc[0] is None else acc[0] + v, acc[1] + 1)
    return acc


def _isnan(v) -> bool:
    try:
        import pandas as pd
        return v is pd.NaT or (isinstance(v, float) and v != v)
    except Exception:
        return False


def _final(a: P.AggCall, acc: Any) -> Any:
    value = _final_raw(a, acc)
    if value is not None and a.type.is_integer:
        return int(value)
    if value is not None and a.type.root == "DECIMAL" and not isinstance(value, Decimal):
        return Decimal(str(value))
    return value


def _final_raw(a: P.AggCall, acc: Any) -> Any:
    if a.distinct:
        return len(acc) if a.name == "COUNT" else (sum(acc) if acc else None)
    if a.name != "AVG":
        return acc
    total, n = acc
    if not n:
        return None
    if a.type.is_integer:
        q = abs(int(total)) // n
        return q if total >= 0 else -q
    if a.type.root == "DECIMAL":
        return (Decimal(total) / n).quantize(Decimal(1).scaleb(-(a.type.scale or 0)))
    return float(total) / n


def lower_group_aggregate(lw, node: P.Aggregate, child: Lowered) -> Lowered:
    for a in node.aggs:
        if a.name not in SUPPORTED or (a.distinct and a.name not in ("COUNT", "SUM")):
            raise UnsupportedError(f"{a.name}{' DISTINCT' if a.distinct else ''} is not supported in "
                                   f"streaming GROUP BY yet")
    if child.updating:
        raise UnsupportedError("GROUP BY over an updating input is not supported yet")
    ex = lw.exprs
    nk = len(node.keys)
    pre = [col(k).alias(f"k{i}") for i, k in enumerate(node.keys)] or [F.lit(0).alias("k0")]
    for j, a in enumerate(node.aggs):
        pre.append((ex.lower(a.args[0]) if a.args else F.lit(1)).alias(f"v{j}"))
        pre.append((F.coalesce(ex.lower(a.filter), F.lit(False)) if a.filter is not None
                    else F.lit(True)).alias(f"m{j}"))
    df = child.df.select(*pre)
    keys_schema = [st.StructField(f"f{i}", node.input.schema[k].type.to_spark()) for i, k in enumerate(node.keys)]
    out_fields = keys_schema + [st.StructField(f"f{nk + j}", a.type.to_spark()) for j, a in enumerate(node.aggs)]
    out_schema = st.StructType(out_fields + [st.StructField(OP, st.StringType())])
    state_schema = st.StructType([st.StructField("acc", st.BinaryType())])
    aggs = node.aggs
    has_keys = bool(node.keys)
    names = [f.name for f in out_fields] + [OP]

    def step(key, pdfs: Iterator, state):
        import pandas as pd
        if state.exists:
            accs, prev = pickle.loads(state.get[0])
        else:
            accs, prev = [_init(a) for a in aggs], None
        for pdf in pdfs:
            for j, a in enumerate(aggs):
                accs[j] = _update(a, accs[j], pdf[f"v{j}"].tolist(), pdf[f"m{j}"].tolist())
        new = (list(key) if has_keys else []) + [_final(a, acc) for a, acc in zip(aggs, accs)]
        state.update((pickle.dumps((accs, new)),))
        rows = [] if prev == new else ([prev + ["-U"], new + ["+U"]] if prev is not None else [new + ["+I"]])
        yield pd.DataFrame(rows, columns=names)

    grouped = df.groupBy(*[F.col(f"k{i}") for i in range(max(nk, 1))])
    out = grouped.applyInPandasWithState(step, out_schema, state_schema, "append", "NoTimeout")
    return Lowered(out, False, True)
