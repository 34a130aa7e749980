"""Aggregate functions as Spark aggregate expressions usable in ``groupBy().agg()``.

Flink's result types differ from Spark's: SUM(INT) is INT (wrapping like Java),
AVG of an integral type is integral (``sum / count`` truncated toward zero),
SUM(DECIMAL(p, s)) is DECIMAL(38, s) and AVG(DECIMAL(p, s)) is DECIMAL(38, max(6, s))
computed as one decimal division. ``FILTER (WHERE f)`` masks the input with
``when(f, x)`` so rows where f is not TRUE are ignored (for COUNT(*) too).
"""
from __future__ import annotations

from typing import Callable, Optional

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql.window import WindowSpec

from sqlengine.errors import ValidationError
from sqlengine.types import ARRAY, BIGINT, BOOLEAN, DECIMAL, DOUBLE, DataType, STRING as STRING_T

from .base import (ANY, BOOL, COMPARABLE, INTEGER, NUMERIC, STRING, AggregateFunction, Arg, Form,
                   LowerContext, arity_error, check, register_aggregate)
from .sparkutil import idiv, null_of
from .typeinfer import MAX_PRECISION

Wrap = Callable[[Column], Column]
Lower = Callable[[list[Column], list[Arg], DataType, bool, Optional[Column], Wrap], Column]


def _masked(col: Column, filter: Optional[Column]) -> Column:
    return col if filter is None else F.when(filter, col)


class _Aggregate(AggregateFunction):
    """An aggregate built from an inference and a lowering callable."""

    def __init__(self, name: str, infer: Callable[[str, list[Arg], bool], DataType], lower: Lower):
        self.name = name
        self._infer = infer
        self._lower = lower

    def infer(self, args: list[Arg], distinct: bool) -> DataType:
        return self._infer(self.name, list(args), distinct)

    def lower(self, cols: list[Column], args: list[Arg], result: DataType, distinct: bool,
              filter: Optional[Column], ctx: LowerContext) -> Column:
        return self._lower(list(cols), list(args), result, distinct, filter, _identity)

    def lower_over(self, cols: list[Column], args: list[Arg], result: DataType, distinct: bool,
                   filter: Optional[Column], ctx: LowerContext, window: WindowSpec) -> Column:
        """The same aggregate as a window function: every Spark aggregate inside gets
        ``.over(window)`` (AVG is sum / count, so the window cannot wrap the whole)."""
        return self._lower(list(cols), list(args), result, distinct, filter,
                           lambda c: c.over(window))


def _identity(c: Column) -> Column:
    return c


def aggregate(*names: str, infer: Callable[[str, list[Arg], bool], DataType]):
    def deco(lower: Lower) -> Lower:
        for name in names:
            register_aggregate(_Aggregate(name, infer, lower))
        return lower

    return deco


def _one_of(name: str, args: list[Arg], *forms: Form) -> None:
    check(name, args, *forms)


# -- COUNT ---------------------------------------------------------------------------
def _count_infer(name: str, args: list[Arg], distinct: bool) -> DataType:
    if distinct and not args:
        raise arity_error(name, 1, 1, 0)
    return BIGINT(False)


@aggregate("COUNT", infer=_count_infer)
def _count(cols, args, result, distinct, filter, w):
    if not cols:
        return w(F.count(_masked(F.lit(1), filter)))
    if distinct:
        return w(F.count_distinct(*[_masked(c, filter) for c in cols]))
    present = cols[0].isNotNull()
    for c in cols[1:]:
        present = present & c.isNotNull()
    return w(F.count(_masked(F.when(present, F.lit(1)), filter)))


# -- SUM / AVG -------------------------------------------------------------------------------
def _sum_infer(name: str, args: list[Arg], distinct: bool) -> DataType:
    _one_of(name, args, [NUMERIC])
    t = args[0].type
    if t.root == "DECIMAL":
        return DECIMAL(MAX_PRECISION, t.scale)
    return t.with_nullable(True)


@aggregate("SUM", infer=_sum_infer)
def _sum(cols, args, result, distinct, filter, w):
    value = _masked(cols[0], filter)
    total = w(F.sum_distinct(value)) if distinct else w(F.sum(value))
    return total.cast(result.to_spark())


def avg_type(t: DataType) -> DataType:
    """Flink's findAvgAggType: integral stays integral, DECIMAL(38, max(6, s))."""
    if t.root == "DECIMAL":
        return DECIMAL(MAX_PRECISION, max(6, t.scale))
    return t.with_nullable(True)


def _avg_infer(name: str, args: list[Arg], distinct: bool) -> DataType:
    _one_of(name, args, [NUMERIC])
    return avg_type(args[0].type)


def exact_avg(total: Column, count: Column, t: DataType, result: DataType) -> Column:
    """AVG of an integral or DECIMAL argument of type ``t`` from its sum and its count of
    values (NULL for none): an integral mean truncated toward zero, a DECIMAL one as one
    decimal division (Flink's AvgAggFunction)."""
    if t.is_integer:
        return idiv(total.cast("long"), count).cast(result.to_spark())
    exact = total.cast(DECIMAL(MAX_PRECISION, t.scale).to_spark()) / count.cast("decimal(20,0)")
    return exact.cast(result.to_spark())


@aggregate("AVG", infer=_avg_infer)
def _avg(cols, args, result, distinct, filter, w):
    value = _masked(cols[0], filter)
    total = w(F.sum_distinct(value)) if distinct else w(F.sum(value))
    count = w(F.count_distinct(value)) if distinct else w(F.count(value))
    t = args[0].type
    if t.is_integer or t.root == "DECIMAL":
        return exact_avg(total, count, t, result)
    mean = (total / count) if distinct else w(F.avg(value))
    return mean.cast(result.to_spark())


# -- MIN / MAX / FIRST / LAST ------------------------------------------------------------------
def _same_infer(name: str, args: list[Arg], distinct: bool) -> DataType:
    _one_of(name, args, [COMPARABLE])
    return args[0].type.with_nullable(True)


aggregate("MIN", infer=_same_infer)(
    lambda cols, args, result, distinct, filter, w: w(F.min(_masked(cols[0], filter))))
aggregate("MAX", infer=_same_infer)(
    lambda cols, args, result, distinct, filter, w: w(F.max(_masked(cols[0], filter))))


def _value_infer(name: str, args: list[Arg], distinct: bool) -> DataType:
    _one_of(name, args, [ANY])
    return args[0].type.with_nullable(True)


# Flink's FIRST_VALUE/LAST_VALUE skip NULL inputs; order is arrival order.
aggregate("FIRST_VALUE", infer=_value_infer)(lambda cols, args, result, distinct, filter, w: w(
    F.first(_masked(cols[0], filter), ignorenulls=True)))
aggregate("LAST_VALUE", infer=_value_infer)(lambda cols, args, result, distinct, filter, w: w(
    F.last(_masked(cols[0], filter), ignorenulls=True)))


# -- statistics -------------------------------------------------------------------------------
def _stat_infer(name: str, args: list[Arg], distinct: bool) -> DataType:
    _one_of(name, args, [NUMERIC])
    return avg_type(args[0].type)


def _stat(fn):
    def lower(cols, args, result, distinct, filter, w):
        value = _masked(cols[0], filter).cast("double")
        if distinct:
            raise ValidationError("DISTINCT is not supported for this statistical aggregate")
        return w(fn(value)).cast(result.to_spark())

    return lower


aggregate("STDDEV_POP", infer=_stat_infer)(_stat(F.stddev_pop))
aggregate("STDDEV_SAMP", "STDDEV", infer=_stat_infer)(_stat(F.stddev_samp))
aggregate("VAR_POP", infer=_stat_infer)(_stat(F.var_pop))
aggregate("VAR_SAMP", "VARIANCE", infer=_stat_infer)(_stat(F.var_samp))


# -- LISTAGG / COLLECT / BOOL_AND / BOOL_OR ----------------------------------------------------
def _listagg_infer(name: str, args: list[Arg], distinct: bool) -> DataType:
    _one_of(name, args, [STRING], [STRING, STRING])
    if len(args) == 2 and not args[1].literal:
        raise ValidationError("The separator of LISTAGG must be a literal")
    return STRING_T(True)


@aggregate("LISTAGG", infer=_listagg_infer)
def _listagg(cols, args, result, distinct, filter, w):
    sep = str(args[1].value) if len(args) == 2 else ","
    values = _masked(cols[0], filter)
    items = w(F.collect_set(values)) if distinct else w(F.collect_list(values))
    return F.when(F.size(items) > 0, F.concat_ws(sep, items)).otherwise(null_of(result))


def _collect_infer(name: str, args: list[Arg], distinct: bool) -> DataType:
    _one_of(name, args, [ANY])
    return DataType("MULTISET", False, element=args[0].type)


@aggregate("COLLECT", infer=_collect_infer)
def _collect(cols, args, result, distinct, filter, w):
    """MULTISET as a map element -> count (NULL elements are skipped)."""
    values = _masked(cols[0], filter)
    items = w(F.collect_set(values)) if distinct else w(F.collect_list(values))
    empty = F.create_map().cast(result.to_spark())

    def add(acc: Column, e: Column) -> Column:
        count = F.coalesce(F.try_element_at(acc, e), F.lit(0)) + 1
        return F.map_concat(F.map_filter(acc, lambda k, v: k != e), F.create_map(e, count))

    return F.aggregate(items, empty, add)


def _bool_infer(name: str, args: list[Arg], distinct: bool) -> DataType:
    _one_of(name, args, [BOOL])
    return BOOLEAN(True)


aggregate("BOOL_AND", "EVERY", infer=_bool_infer)(
    lambda cols, args, result, distinct, filter, w: w(F.bool_and(_masked(cols[0], filter))))
aggregate("BOOL_OR", "SOME", infer=_bool_infer)(
    lambda cols, args, result, distinct, filter, w: w(F.bool_or(_masked(cols[0], filter))))


# -- ARRAY_AGG / PERCENTILE --------------------------------------------------------------------
def _array_agg_infer(name: str, args: list[Arg], distinct: bool) -> DataType:
    _one_of(name, args, [ANY])
    return ARRAY(args[0].type.with_nullable(True), nullable=True)


def _array_agg(ignore_nulls: bool):
    """The values in arrival order (Flink keeps NULLs unless IGNORE NULLS); NULL when
    there is none. Each value travels in a struct: Spark's collect_list skips NULLs."""

    def lower(cols, args, result, distinct, filter, w):
        keep = cols[0].isNotNull() if ignore_nulls else None
        if filter is not None:
            keep = filter if keep is None else filter & keep
        boxed = F.struct(cols[0].alias("v"))
        boxed = boxed if keep is None else F.when(keep, boxed)
        items = w(F.collect_set(boxed)) if distinct else w(F.collect_list(boxed))
        return F.when(F.size(items) > 0, F.transform(items, lambda b: b["v"]))

    return lower


aggregate("ARRAY_AGG", infer=_array_agg_infer)(_array_agg(False))
aggregate("ARRAY_AGG IGNORE NULLS", infer=_array_agg_infer)(_array_agg(True))


def _percentile_infer(name: str, args: list[Arg], distinct: bool) -> DataType:
    if len(args) not in (2, 3):
        raise arity_error(name, 2, 3, len(args))
    _one_of(name, args[:1], [NUMERIC])
    if len(args) == 3:
        _one_of(name, args[2:], [INTEGER])
    p = args[1]
    many = p.type.root == "ARRAY"
    if not p.literal and not many or many and not p.type.element.is_numeric or not many and not p.type.is_numeric:
        raise ValidationError("Invalid function call:\nPERCENTILE: the percentage must be a numeric literal "
                              "or an ARRAY of them, between 0.0 and 1.0")
    values = p.value if many and isinstance(p.value, (list, tuple)) else [p.value] if not many else []
    if any(v is None or not 0 <= float(v) <= 1 for v in values):
        raise ValidationError("Invalid function call:\nPERCENTILE: the percentage must be between 0.0 and 1.0")
    return ARRAY(DOUBLE(True), nullable=True) if many else DOUBLE(True)


@aggregate("PERCENTILE", infer=_percentile_infer)
def _percentile(cols, args, result, distinct, filter, w):
    """The exact percentile, linearly interpolated between the two nearest values
    (Flink's and Spark's definition); the optional third argument weighs each value."""
    values = _masked(cols[0].cast("double"), filter)
    frequency = cols[2].cast("long") if len(cols) == 3 else F.lit(1)
    percentage = cols[1].cast("array<double>" if args[1].type.root == "ARRAY" else "double")
    return w(F.percentile(values, percentage, frequency))


# -- JSON_ARRAYAGG / JSON_OBJECTAGG ----------------------------------------------------------
# The binder appends the null handling (``ABSENT ON NULL`` / ``NULL ON NULL``) as a literal.
def _json_arrayagg_infer(name: str, args: list[Arg], distinct: bool) -> DataType:
    _one_of(name, args, [ANY, STRING])
    return STRING_T(False)


@aggregate("JSON_ARRAYAGG", infer=_json_arrayagg_infer)
def _json_arrayagg(cols, args, result, distinct, filter, w):
    """``[v,...]`` in arrival order: NULLs left out (ABSENT ON NULL, the default) or
    written as ``null``; ``[]`` for no value."""
    from .strings_regex import json_text
    text = json_text(cols[0], args[0].type)
    if args[1].value == "NULL ON NULL":
        boxed = F.struct(text.alias("v"))
        items = F.transform(w(F.collect_list(_masked(boxed, filter))), lambda b: F.coalesce(b["v"], F.lit("null")))
    else:
        items = w(F.collect_list(_masked(text, filter)))
    return F.concat(F.lit("["), F.array_join(items, ","), F.lit("]"))


def _json_objectagg_infer(name: str, args: list[Arg], distinct: bool) -> DataType:
    _one_of(name, args, [STRING, ANY, STRING])
    return STRING_T(False)


@aggregate("JSON_OBJECTAGG", infer=_json_objectagg_infer)
def _json_objectagg(cols, args, result, distinct, filter, w):
    """``{"k":v,...}`` by key; a NULL value written as ``null`` (NULL ON NULL, the
    default) or left out (ABSENT ON NULL); rows with a NULL key are skipped."""
    from .strings_regex import json_text
    keep = cols[0].isNotNull()
    if args[2].value == "ABSENT ON NULL":
        keep = keep & cols[1].isNotNull()
    if filter is not None:
        keep = keep & filter
    member = F.struct(cols[0].alias("k"), json_text(cols[1], args[1].type).alias("v"))
    entries = F.array_sort(w(F.collect_list(F.when(keep, member))))
    members = F.transform(entries, lambda e: F.concat(json_text(e["k"], args[0].type), F.lit(":"),
                                                      F.coalesce(e["v"], F.lit("null"))))
    return F.concat(F.lit("{"), F.array_join(members, ","), F.lit("}"))
