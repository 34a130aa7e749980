"""Flink's (Calcite's) result-type rules for arithmetic and for merging types.

Decimal precision follows Flink's ``LogicalTypeMerging`` (adopted from SQL Server,
with Hive/Spark's scale adjustment past 38 digits); Spark implements the same
formulas, so computing in Spark on operands of Flink's decimal types and casting to
the Flink result type gives identical values.
"""
from __future__ import annotations

from typing import Optional, Sequence

from sqlengine.errors import ValidationError
from sqlengine.types import (BIGINT, DECIMAL, DOUBLE, MAX_VARCHAR, VARCHAR, DataType, CHAR,
                             common_type, decimal_of)

MAX_PRECISION = 38
_MIN_ADJUSTED_SCALE = 6
_INT_RANK = {"TINYINT": 1, "SMALLINT": 2, "INT": 3, "BIGINT": 4}


def adjust_precision_scale(precision: int, scale: int, nullable: bool = True) -> DataType:
    """Past 38 digits, scale is sacrificed to keep the integral part (Flink's rule)."""
    if precision <= MAX_PRECISION:
        return DECIMAL(precision, scale, nullable)
    digits = precision - scale
    min_scale = min(scale, _MIN_ADJUSTED_SCALE)
    return DECIMAL(MAX_PRECISION, max(MAX_PRECISION - digits, min_scale), nullable)


def decimal_add(a: DataType, b: DataType) -> DataType:
    scale = max(a.scale, b.scale)
    return adjust_precision_scale(max(a.precision - a.scale, b.precision - b.scale) + scale + 1, scale)


def decimal_multiply(a: DataType, b: DataType) -> DataType:
    return adjust_precision_scale(a.precision + b.precision + 1, a.scale + b.scale)


def decimal_divide(a: DataType, b: DataType) -> DataType:
    scale = max(6, a.scale + b.precision + 1)
    return adjust_precision_scale(a.precision - a.scale + b.scale + scale, scale)


def decimal_mod(a: DataType, b: DataType) -> DataType:
    scale = max(a.scale, b.scale)
    return adjust_precision_scale(min(a.precision - a.scale, b.precision - b.scale) + scale, scale)


def decimal_round(t: DataType, digits: int) -> DataType:
    """ROUND(DECIMAL(p, s), r): rounding may add a digit, hence the +1."""
    p, s = t.precision, t.scale
    if digits >= s:
        return DECIMAL(p, s)
    if digits < 0:
        return DECIMAL(min(MAX_PRECISION, 1 + p - s), 0)
    return DECIMAL(1 + p - s + digits, digits)


def _approx(t: DataType) -> bool:
    return t.root in ("FLOAT", "DOUBLE")


def numeric_common(a: DataType, b: DataType) -> DataType:
    """Calcite's leastRestrictive for two numeric types (nullable merged)."""
    nullable = a.nullable or b.nullable
    if _approx(a) or _approx(b):
        if "DOUBLE" in (a.root, b.root) or "DECIMAL" in (a.root, b.root):
            return DOUBLE(nullable)
        return DataType("FLOAT", nullable)
    if a.is_integer and b.is_integer:
        wider = a if _INT_RANK[a.root] >= _INT_RANK[b.root] else b
        return wider.with_nullable(nullable)
    da, db = decimal_of(a), decimal_of(b)
    scale = max(da.scale, db.scale)
    digits = max(da.precision - da.scale, db.precision - db.scale)
    return DECIMAL(min(MAX_PRECISION, digits + scale), scale, nullable)


def arithmetic_type(op: str, a: DataType, b: DataType) -> DataType:
    """Result type of ``a op b`` for numeric a, b; op in + - * / %."""
    nullable = a.nullable or b.nullable
    exact = not _approx(a) and not _approx(b)
    if exact and "DECIMAL" in (a.root, b.root):
        da, db = decimal_of(a), decimal_of(b)
        rule = {"+": decimal_add, "-": decimal_add, "*": decimal_multiply,
                "/": decimal_divide, "%": decimal_mod}[op]
        return rule(da, db).with_nullable(nullable)
    if op == "%" and exact:
        # Calcite's MOD takes the type of its second operand.
        return b.with_nullable(nullable)
    return numeric_common(a, b)


def common_of(types: Sequence[DataType]) -> Optional[DataType]:
    """Least restrictive common type of several types, or None when there is none."""
    result: Optional[DataType] = None
    for t in types:
        if result is None:
            result = t
        elif result.is_numeric and t.is_numeric:
            result = numeric_common(result, t)
        elif result.root == "DATE" and t.is_timestamp or result.is_timestamp and t.root == "DATE":
            ts = result if result.is_timestamp else t
            result = ts.with_nullable(result.nullable or t.nullable)
        else:
            merged = common_type(result, t)
            if merged is None:
                return None
            result = merged
    return result


def require_common(name: str, types: Sequence[DataType]) -> DataType:
    result = common_of(types)
    if result is None:
        shown = ", ".join(t.sql(False) for t in types)
        raise ValidationError(f"Illegal mixing of types in {name}: {shown}")
    return result


def concat_type(a: DataType, b: DataType) -> DataType:
    """``a || b``: lengths add up; CHAR only when both are CHAR (Calcite)."""
    nullable = a.nullable or b.nullable
    pa, pb = a.precision or MAX_VARCHAR, b.precision or MAX_VARCHAR
    length = min(MAX_VARCHAR, pa + pb)
    if a.root == "CHAR" and b.root == "CHAR":
        return CHAR(length, nullable)
    return VARCHAR(length, nullable)


def varying(t: DataType) -> DataType:
    """CHAR(n) becomes VARCHAR(n) (Calcite's TO_VARYING)."""
    if t.root == "CHAR":
        return VARCHAR(t.precision or 1, t.nullable)
    return t


def bigint_like(nullable: bool) -> DataType:
    return BIGINT(nullable)
