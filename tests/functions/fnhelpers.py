"""Test helpers: typed expressions built through the function registry, evaluated in Spark,
rendered the way Flink's JSON sink prints values, and compared like compare.py does."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterable, Optional

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from sqlengine import types as T
from sqlengine.functions import (Arg, LowerContext, coerce, lookup_aggregate, lookup_scalar,
                                 lower_cast)
from sqlengine.functions.casts import time_string

CTX = LowerContext()
REPO = Path(__file__).resolve().parents[2]
_CASE_ROOTS = [REPO / "tests" / "conformance" / "flink" / "cases",
               REPO.parent / "shared" / "conformance" / "cases"]


def case_dir(name: str) -> Path:
    for root in _CASE_ROOTS:
        if (root / name).is_dir():
            return root / name
    raise FileNotFoundError(f"conformance case {name} not found under {_CASE_ROOTS}")


ADDRESS = T.ROW([("street", T.STRING()), ("city", T.STRING()),
                 ("geo", T.ROW([("lat", T.DOUBLE()), ("lon", T.DOUBLE())]))])
PEOPLE = {"id": T.INT(), "name": T.STRING(), "age": T.INT(), "score": T.DOUBLE(),
          "code": T.STRING(), "birth": T.STRING(), "ts": T.TIMESTAMP(3), "address": ADDRESS,
          "flag": T.BOOLEAN()}
BID = {"auction": T.BIGINT(), "bidder": T.BIGINT(), "price": T.BIGINT(), "channel": T.STRING(),
       "url": T.STRING(), "dateTime": T.TIMESTAMP(3), "extra": T.STRING()}


@dataclass(frozen=True)
class E:
    """A typed expression: Spark column plus what the binder would know about it."""

    col: Column
    type: T.DataType
    literal: bool = False
    value: Any = None

    @property
    def arg(self) -> Arg:
        return Arg(self.type, self.literal, self.value)


def literal_type(value: Any) -> T.DataType:
    if value is None:
        return T.NULLTYPE()
    if isinstance(value, bool):
        return T.BOOLEAN(False)
    if isinstance(value, int):
        return T.INT(False) if -2 ** 31 <= value < 2 ** 31 else T.BIGINT(False)
    if isinstance(value, float):
        return T.DOUBLE(False)
    if isinstance(value, Decimal):
        sign, digits, exp = value.as_tuple()
        scale = max(0, -exp)
        return T.DECIMAL(max(len(digits), scale), scale, False)
    if isinstance(value, str):
        return T.CHAR(max(1, len(value)), False)
    raise TypeError(value)


def lit(value: Any, t: Optional[T.DataType] = None) -> E:
    t = t or literal_type(value)
    col = F.lit(value) if t.root == "NULL" else F.lit(value).cast(t.to_spark())
    return E(col, t, True, value)


def interval_ms(ms: int) -> E:
    return E(F.lit(ms).cast("long"), T.INTERVAL_MS(), True, ms)


def interval_months(months: int) -> E:
    return E(F.lit(months).cast("int"), T.INTERVAL_MONTHS(), True, months)


def col(name: str, t: T.DataType) -> E:
    return E(F.col(name), t)


def infer(name: str, *args: E) -> T.DataType:
    return lookup_scalar(name).infer([a.arg for a in args])


def call(name: str, *args: E, ctx: LowerContext = CTX) -> E:
    fn = lookup_scalar(name)
    assert fn is not None, f"no scalar {name}"
    result = fn.infer([a.arg for a in args])
    return E(fn.lower([a.col for a in args], [a.arg for a in args], result, ctx), result)


def cast(e: E, t: T.DataType, safe: bool = False, ctx: LowerContext = CTX) -> E:
    return E(lower_cast(e.col, e.type, t, safe, ctx), t.with_nullable(e.type.nullable or safe))


def agg(name: str, *args: E, distinct: bool = False, filter: Optional[E] = None) -> E:
    fn = lookup_aggregate(name)
    result = fn.infer([a.arg for a in args], distinct)
    column = fn.lower([a.col for a in args], [a.arg for a in args], result, distinct,
                      filter.col if filter is not None else None, CTX)
    return E(column, result)


def to_sink(e: E, t: T.DataType) -> E:
    """What an INSERT does with a query column: implicit conversion to the sink type."""
    return E(coerce(e.col, e.type, t, CTX), t)


# -- rendering as Flink's JSON sink does ---------------------------------------------------
def render(e: E) -> Column:
    """A Spark column whose collected value equals the parsed Flink JSON output."""
    t = e.type
    if t.root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        text = F.date_format(e.col, "yyyy-MM-dd HH:mm:ss.SSSSSS")
        text = F.regexp_replace(F.regexp_replace(text, "0+$", ""), "\\.$", "")
        return F.concat(text, F.lit("Z")) if t.root == "TIMESTAMP_LTZ" else text
    if t.root == "DATE":
        return e.col.cast("string")
    if t.root == "TIME":
        return time_string(e.col, t.precision or 0)
    if t.root == "ROW":
        return F.struct(*[render(E(e.col.getField(f.name), f.type)).alias(f.name) for f in t.fields])
    return e.col


def rows(df: DataFrame, exprs: dict[str, E]) -> list[dict]:
    out = df.select(*[render(e).alias(k) for k, e in exprs.items()]).collect()
    return [_plain(r.asDict(recursive=True)) for r in out]


def values(spark, *exprs: E) -> list[Any]:
    """Evaluate constant expressions in one row."""
    r = spark.range(1).select(*[render(e).alias(f"c{i}") for i, e in enumerate(exprs)]).collect()[0]
    return [_plain(v) for v in r]


def _plain(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def same(expected: Any, actual: Any) -> bool:
    """compare.py's rules: numbers numerically (rel 1e-9), everything else exactly."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual or expected == actual and type(expected) is type(actual)
    if isinstance(expected, (int, float, Decimal)) and isinstance(actual, (int, float, Decimal)):
        a, b = float(expected), float(actual)
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b or math.isclose(a, b, rel_tol=1e-9)
    if isinstance(expected, dict) and isinstance(actual, dict):
        return expected.keys() == actual.keys() and all(same(expected[k], actual[k]) for k in expected)
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(same(a, b) for a, b in zip(expected, actual))
    return expected == actual


def expected_rows(case: str, sink: str) -> list[dict]:
    path = case_dir(case) / "expected" / f"{sink}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def assert_same_rows(expected: list[dict], actual: list[dict], key: Iterable[str]) -> None:
    """Multiset comparison keyed by ``key`` columns; reports every differing field."""
    key = list(key)
    index = {tuple(str(r[k]) for k in key): r for r in actual}
    assert len(index) == len(actual), "key columns are not unique in the actual rows"
    problems = []
    for exp in expected:
        k = tuple(str(exp[c]) for c in key)
        got = index.pop(k, None)
        if got is None:
            problems.append(f"missing row {k}")
            continue
        for field, want in exp.items():
            if not same(want, got.get(field)):
                problems.append(f"{k} {field}: expected {want!r}, got {got.get(field)!r}")
    problems.extend(f"unexpected row {k}" for k in index)
    assert not problems, "\n".join(problems[:30])
