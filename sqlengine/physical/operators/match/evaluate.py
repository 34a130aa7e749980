"""DEFINE conditions over Arrow arrays, for the part of a condition that reads a run.

A condition's parts that read only the current row are computed by Spark before the
automaton runs (``Leaf`` columns, with every Flink function); what remains reads values a
run carries (``Slot``: a row navigated to, an aggregate) and is evaluated here, one array
per step for every run at once: arithmetic, comparisons, boolean logic with SQL's
three-valued semantics, IS [NOT] NULL/TRUE/FALSE, CASE, COALESCE, IF, BETWEEN, ABS, CAST.
``residual_functions`` names what the binder may leave here; anything else over a
navigated value is refused at planning.
"""
from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Callable, Optional

import pyarrow as pa
import pyarrow.compute as pc

from sqlengine.plan import nodes as P


@dataclass(frozen=True)
class Leaf(P.Expr):
    """A column Spark computed on the current row (the ``index``-th prepared column)."""
    index: int

    def __str__(self) -> str:
        return f"$leaf{self.index}"


ARITH = {"+": pc.add, "-": pc.subtract, "*": pc.multiply}
COMPARE = {"=": pc.equal, "<>": pc.not_equal, "<": pc.less, "<=": pc.less_equal, ">": pc.greater,
           ">=": pc.greater_equal}
residual_functions = frozenset(set(ARITH) | set(COMPARE) | {
    "/", "%", "NEG", "AND", "OR", "NOT", "IS NULL", "IS NOT NULL", "IS TRUE", "IS NOT TRUE", "IS FALSE",
    "IS NOT FALSE", "IS UNKNOWN", "IS NOT UNKNOWN", "CASE", "COALESCE", "IF", "BETWEEN", "NOT BETWEEN",
    "ABS", "IS DISTINCT FROM", "IS NOT DISTINCT FROM"})


def arrow_type(t) -> Optional[pa.DataType]:
    """The Arrow type Spark gives a column of Flink type ``t`` (None: none, e.g. an interval)."""
    from pyspark.sql.pandas.types import to_arrow_type
    try:
        return to_arrow_type(t.to_spark(), timezone="UTC")
    except Exception:  # noqa: BLE001 - NULL, intervals: left to Arrow's inference
        return None


def _scalar(lit: P.Lit):
    root = lit.type.root
    if root == "INTERVAL_DAY_TIME" and lit.value is not None:
        return pa.scalar(datetime.timedelta(milliseconds=lit.value), pa.duration("ms"))
    t = arrow_type(lit.type)
    if lit.value is None:
        return pa.scalar(None, t or pa.null())
    return pa.scalar(lit.value, t) if t is not None else pa.scalar(lit.value)


def truth(v, n: int):
    """A condition's value as numpy booleans: NULL is false (Flink's generated condition)."""
    import numpy as np
    if isinstance(v, pa.Scalar):
        return np.full(n, bool(v.as_py()) if v.is_valid else False)
    if isinstance(v, pa.ChunkedArray):
        v = v.combine_chunks()
    return pc.fill_null(v, False).to_numpy(zero_copy_only=False).astype(bool)


def evaluate(e: P.Expr, resolve: Callable[[P.Expr], object]):
    """``e``'s value: an Arrow array, or a scalar when it reads nothing per run.
    ``resolve`` gives the value of a ``Leaf`` or a navigation."""
    if isinstance(e, P.Lit):
        return _scalar(e)
    if isinstance(e, P.Cast):
        v = evaluate(e.arg, resolve)
        t = arrow_type(e.type)
        return v if t is None or v.type == t else pc.cast(v, t, safe=False)
    if not isinstance(e, P.Call):
        return resolve(e)
    name = e.name
    if name == "AND":
        return _fold(pc.and_kleene, [evaluate(a, resolve) for a in e.args])
    if name == "OR":
        return _fold(pc.or_kleene, [evaluate(a, resolve) for a in e.args])
    if name == "CASE":
        args = list(e.args)
        default = evaluate(args.pop(), resolve) if len(args) % 2 else pa.scalar(None, arrow_type(e.type))
        out = default
        for cond, value in reversed(list(zip(args[::2], args[1::2]))):
            c = pc.fill_null(evaluate(cond, resolve), False)
            out = pc.if_else(c, _cast_to(evaluate(value, resolve), e.type), _cast_to(out, e.type))
        return out
    if name == "IF":
        c = pc.fill_null(evaluate(e.args[0], resolve), False)
        other = evaluate(e.args[2], resolve) if len(e.args) > 2 else pa.scalar(None, arrow_type(e.type))
        return pc.if_else(c, _cast_to(evaluate(e.args[1], resolve), e.type), _cast_to(other, e.type))
    if name == "COALESCE":
        return pc.coalesce(*(_cast_to(evaluate(a, resolve), e.type) for a in e.args))
    args = [evaluate(a, resolve) for a in e.args]
    if name in ARITH:
        return _cast_to(ARITH[name](*args), e.type)
    if name == "/":
        return _cast_to(pc.divide(*args), e.type)
    if name == "%":
        a, b = args
        return _cast_to(pc.subtract(a, pc.multiply(pc.divide(a, b), b)), e.type)
    if name == "NEG":
        return pc.negate(args[0])
    if name == "ABS":
        return pc.abs(args[0])
    if name in COMPARE:
        return COMPARE[name](*args)
    if name == "NOT":
        return pc.invert(args[0])
    if name == "IS NULL" or name == "IS UNKNOWN":
        return pc.is_null(args[0])
    if name == "IS NOT NULL" or name == "IS NOT UNKNOWN":
        return pc.is_valid(args[0])
    if name == "IS TRUE":
        return pc.fill_null(args[0], False)
    if name == "IS NOT TRUE":
        return pc.invert(pc.fill_null(args[0], False))
    if name == "IS FALSE":
        return pc.fill_null(pc.invert(args[0]), False)
    if name == "IS NOT FALSE":
        return pc.fill_null(args[0], True)
    if name in ("BETWEEN", "NOT BETWEEN"):
        v, lo, hi = args
        inside = pc.and_kleene(pc.greater_equal(v, lo), pc.less_equal(v, hi))
        return pc.invert(inside) if name == "NOT BETWEEN" else inside
    if name in ("IS DISTINCT FROM", "IS NOT DISTINCT FROM"):
        a, b = args
        same = pc.if_else(pc.and_kleene(pc.is_null(a), pc.is_null(b)), True,
                          pc.fill_null(pc.equal(a, b), False))
        return pc.invert(same) if name == "IS DISTINCT FROM" else same
    raise NotImplementedError(name)


def _fold(fn, values):
    out = values[0]
    for v in values[1:]:
        out = fn(out, v)
    return out


def _cast_to(v, t):
    at = arrow_type(t)
    if at is None or v.type == at:
        return v
    try:
        return pc.cast(v, at, safe=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return v
