"""Datetime +/- interval arithmetic (``ts - INTERVAL '2' DAY``, TIMESTAMPADD).

INTERVAL DAY TO SECOND values are BIGINT milliseconds and are added as exact
instant arithmetic; INTERVAL YEAR TO MONTH values are INT months and use calendar
arithmetic clamped to the month's last day (Jan 31 + 1 month = Feb 28), as Flink does.
TIMESTAMP_LTZ month arithmetic happens on the wall clock of ``table.local-time-zone``.
"""
from __future__ import annotations

from typing import Optional

from pyspark.sql import Column
from pyspark.sql import functions as F

from sqlengine.types import DataType

from .base import Arg, LowerContext
from .sparkutil import MILLIS_PER_DAY, add_millis, from_wall_clock, idiv, to_wall_clock

_DATETIME = ("TIMESTAMP", "TIMESTAMP_LTZ", "DATE", "TIME")
_INTERVAL = ("INTERVAL_DAY_TIME", "INTERVAL_YEAR_MONTH")


def _merge(t: DataType, a: DataType, b: DataType) -> DataType:
    return t.with_nullable(a.nullable or b.nullable)


def datetime_arith_type(op: str, a: DataType, b: DataType) -> Optional[DataType]:
    """Result type of a datetime/interval arithmetic, or None when not applicable."""
    if op in "+-" and a.root in _DATETIME and b.root in _INTERVAL:
        return _merge(a, a, b)
    if op == "+" and a.root in _INTERVAL and b.root in _DATETIME:
        return _merge(b, a, b)
    if op in "+-" and a.root in _INTERVAL and b.root == a.root:
        return _merge(a, a, b)
    if op in "*/" and a.root in _INTERVAL and (b.is_numeric or b.root == "NULL"):
        return _merge(a, a, b)
    if op == "*" and b.root in _INTERVAL and (a.is_numeric or a.root == "NULL"):
        return _merge(b, a, b)
    return None


def shift(ts: Column, t: DataType, amount: Column, unit_root: str, ctx: LowerContext) -> Column:
    """``ts`` moved by ``amount`` milliseconds (INTERVAL_DAY_TIME) or months."""
    if unit_root == "INTERVAL_DAY_TIME":
        if t.root == "DATE":
            return F.date_add(ts, idiv(amount.cast("long"), F.lit(MILLIS_PER_DAY)).cast("int"))
        if t.root == "TIME":
            return F.pmod(ts.cast("long") + amount.cast("long"), F.lit(MILLIS_PER_DAY)).cast("int")
        return add_millis(ts, amount)
    if t.root == "DATE":
        return F.add_months(ts, amount.cast("int"))
    if t.root == "TIME":
        return ts
    wall = to_wall_clock(ts, t, ctx.local_time_zone)
    moved = F.timestamp_add("MONTH", amount.cast("int"), wall)
    return from_wall_clock(moved, ctx.local_time_zone) if t.root == "TIMESTAMP_LTZ" else moved


def lower_datetime_arith(op: str, cols: list[Column], args: list[Arg], result: DataType,
                         ctx: LowerContext) -> Column:
    a, b = args[0].type, args[1].type
    if a.root in _DATETIME:
        amount = cols[1] if op == "+" else -cols[1]
        return shift(cols[0], a, amount, b.root, ctx)
    if b.root in _DATETIME:
        return shift(cols[1], b, cols[0], a.root, ctx)
    spark_type = result.to_spark()
    if op == "+":
        return (cols[0] + cols[1]).cast(spark_type)
    if op == "-":
        return (cols[0] - cols[1]).cast(spark_type)
    if op == "*":
        return (cols[0] * cols[1]).cast(spark_type)
    return (cols[0] / cols[1]).cast(spark_type)
