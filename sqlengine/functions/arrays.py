"""ARRAY and MAP functions (ARRAY_DISTINCT, ARRAY_POSITION, ..., MAP_FROM_ARRAYS, SPLIT).

Flink's ARRAY_REMOVE removes NULL elements when asked to (Spark's returns NULL),
and SPLIT takes its delimiter literally, not as a regular expression. ARRAY_SLICE
takes 1-based inclusive bounds, counts negative ones from the end and reads an end of
0 as 1 (Spark's slice takes a start and a length); ARRAY_SORT puts NULLs first when
ascending unless told otherwise; MAP_UNION lets a later map's key win (Spark's
map_concat fails on a duplicate key under its default policy). The set functions
(ARRAY_EXCEPT, ARRAY_INTERSECT, ARRAY_UNION) drop duplicates and keep the first
array's order, NULL being an element like any other, as Spark's do.
"""
from __future__ import annotations

from pyspark.sql import functions as F

from sqlengine.errors import ValidationError
from sqlengine.types import ARRAY, INT, MAP, ROW, STRING as STRING_T, DataType

from .base import (ANY, ARRAY as ARRAY_F, BOOL, INTEGER, MAP as MAP_F, STRING, Arg, any_nullable, check,
                   check_variadic, scalar)
from .casts import coerce
from .sparkutil import null_of
from .strings import quoted_regex
from .typeinfer import require_common


def _same_array(name: str, args: list[Arg]) -> DataType:
    check(name, args, [ARRAY_F])
    return args[0].type


scalar("ARRAY_DISTINCT", infer=_same_array)(lambda cols, args, r, ctx: F.array_distinct(cols[0]))
scalar("ARRAY_REVERSE", infer=_same_array)(lambda cols, args, r, ctx: F.reverse(cols[0]))


def _element_arg(cols, args, ctx):
    return coerce(cols[1], args[1].type, args[0].type.element, ctx)


def _position_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [ARRAY_F, ANY])
    return INT(any_nullable(args))


@scalar("ARRAY_POSITION", infer=_position_infer)
def _array_position(cols, args, result, ctx):
    return F.array_position(cols[0], _element_arg(cols, args, ctx)).cast("int")


def _remove_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [ARRAY_F, ANY])
    return args[0].type


@scalar("ARRAY_REMOVE", infer=_remove_infer)
def _array_remove(cols, args, result, ctx):
    needle = _element_arg(cols, args, ctx)
    return F.filter(cols[0], lambda x: ~x.eqNullSafe(needle))


def _concat_infer(name: str, args: list[Arg]) -> DataType:
    check_variadic(name, args, ARRAY_F, minimum=1)
    element = require_common("ARRAY_CONCAT", [a.type.element for a in args])
    return ARRAY(element, nullable=any_nullable(args))


@scalar("ARRAY_CONCAT", infer=_concat_infer)
def _array_concat(cols, args, result, ctx):
    target = result.with_nullable(True)
    return F.concat(*[coerce(c, a.type, target, ctx) for c, a in zip(cols, args)])


def _join_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [ARRAY_F, STRING], [ARRAY_F, STRING, STRING])
    if not args[0].type.element.is_string:
        raise ValidationError(f"{name} expects an ARRAY of character strings")
    return STRING_T(any_nullable(args[:2]))


@scalar("ARRAY_JOIN", infer=_join_infer)
def _array_join(cols, args, result, ctx):
    return F.call_function("array_join", *cols)


def _extreme_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [ARRAY_F])
    return args[0].type.element.with_nullable(True)


scalar("ARRAY_MAX", infer=_extreme_infer)(lambda cols, args, r, ctx: F.array_max(cols[0]))
scalar("ARRAY_MIN", infer=_extreme_infer)(lambda cols, args, r, ctx: F.array_min(cols[0]))


def _map_from_arrays_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [ARRAY_F, ARRAY_F])
    return MAP(args[0].type.element, args[1].type.element, nullable=any_nullable(args))


scalar("MAP_FROM_ARRAYS", infer=_map_from_arrays_infer)(
    lambda cols, args, r, ctx: F.map_from_arrays(cols[0], cols[1]))


def _map_entries_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [MAP_F])
    t = args[0].type
    return ARRAY(ROW([("key", t.key), ("value", t.value)], nullable=False), nullable=t.nullable)


scalar("MAP_ENTRIES", infer=_map_entries_infer)(lambda cols, args, r, ctx: F.map_entries(cols[0]))


def _split_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING])
    return ARRAY(STRING_T(), nullable=any_nullable(args))


@scalar("SPLIT", infer=_split_infer)
def _split(cols, args, result, ctx):
    by_chars = F.split(cols[0], F.lit(""), -1)
    return F.when(cols[1] == "", by_chars).otherwise(
        F.split(cols[0], quoted_regex(cols[1], args[1]), -1))



# -- ARRAY_APPEND / ARRAY_PREPEND: the element converted to the array's element type ---------
def _add_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [ARRAY_F, ANY])
    require_common(name, [args[0].type.element, args[1].type])
    element = args[0].type.element.with_nullable(args[0].type.element.nullable or args[1].type.nullable)
    return ARRAY(element, nullable=args[0].type.nullable)


@scalar("ARRAY_APPEND", infer=_add_infer)
def _array_append(cols, args, result, ctx):
    element = coerce(cols[1], args[1].type, result.element, ctx)
    return F.concat(cols[0], F.array(element))


@scalar("ARRAY_PREPEND", infer=_add_infer)
def _array_prepend(cols, args, result, ctx):
    element = coerce(cols[1], args[1].type, result.element, ctx)
    return F.concat(F.array(element), cols[0])


# -- set operations over two arrays ---------------------------------------------------------
def _set_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [ARRAY_F, ARRAY_F])
    element = require_common(name, [a.type.element for a in args])
    if name == "ARRAY_UNION":
        return ARRAY(element, nullable=any_nullable(args))
    return args[0].type.with_nullable(any_nullable(args))


def _set_operation(spark_fn):
    """Both arrays compared as arrays of their common element type; the result converted
    to the function's type (EXCEPT and INTERSECT keep the first array's)."""

    def lower(cols, args, result, ctx):
        common = ARRAY(require_common("array", [a.type.element for a in args]))
        a, b = (coerce(c, x.type, common, ctx) for c, x in zip(cols, args))
        return coerce(spark_fn(a, b), common, result, ctx)

    return lower


scalar("ARRAY_EXCEPT", infer=_set_infer)(_set_operation(F.array_except))
scalar("ARRAY_INTERSECT", infer=_set_infer)(_set_operation(F.array_intersect))
scalar("ARRAY_UNION", infer=_set_infer)(_set_operation(F.array_union))


# -- ARRAY_SLICE(array, start [, end]) ------------------------------------------------------
def _slice_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [ARRAY_F, INTEGER], [ARRAY_F, INTEGER, INTEGER])
    return args[0].type.with_nullable(any_nullable(args))


@scalar("ARRAY_SLICE", infer=_slice_infer)
def _array_slice(cols, args, result, ctx):
    """Flink's bounds: 1-based and inclusive, negative ones counted from the end, a start
    before the first element read as 1, an end of 0 read as 1, an end past the last
    element read as the last; an empty array when the end comes before the start."""
    arr = cols[0]
    n = F.size(arr)
    start = cols[1].cast("int")
    end = cols[2].cast("int") if len(cols) == 3 else n
    s = F.greatest(F.lit(1), F.when(start < 0, start + n + 1).otherwise(start))
    e = F.when(end < 0, end + n + 1).otherwise(end)
    e = F.when(e == 0, F.lit(1)).otherwise(F.least(e, n))
    empty = F.filter(arr, lambda x: F.lit(False))
    sliced = (F.when(n == 0, arr).when(e < s, empty)
              .otherwise(F.slice(arr, s, e - s + 1)))
    nulls = start.isNull() | end.isNull() if len(cols) == 3 else start.isNull()
    return F.when(nulls, null_of(result)).otherwise(sliced)


# -- ARRAY_SORT(array [, ascending [, nulls_first]]) ----------------------------------------
def _sort_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [ARRAY_F], [ARRAY_F, BOOL], [ARRAY_F, BOOL, BOOL])
    element = args[0].type.element
    if element.root in ("ARRAY", "MAP", "ROW", "MULTISET"):
        raise ValidationError(f"{name} expects an ARRAY of comparable elements, not {args[0].type.sql(False)}")
    return args[0].type.with_nullable(any_nullable(args))


@scalar("ARRAY_SORT", infer=_sort_infer)
def _array_sort(cols, args, result, ctx):
    """Ascending by default; NULLs first when ascending, last when descending, unless the
    third argument says where."""
    arr = cols[0]
    asc = cols[1] if len(cols) > 1 else F.lit(True)
    nulls_first = cols[2] if len(cols) > 2 else asc
    values = F.filter(arr, lambda x: x.isNotNull())
    nulls = F.filter(arr, lambda x: x.isNull())
    ordered = F.when(asc, F.sort_array(values, True)).otherwise(F.sort_array(values, False))
    sorted_ = F.when(nulls_first, F.concat(nulls, ordered)).otherwise(F.concat(ordered, nulls))
    return F.when(asc.isNull() | nulls_first.isNull(), null_of(result)).otherwise(sorted_)


# -- MAP_UNION(map, ...): a later map's value wins for a key ---------------------------------
def _map_union_infer(name: str, args: list[Arg]) -> DataType:
    check_variadic(name, args, MAP_F, minimum=1)
    key = require_common(name, [a.type.key for a in args])
    value = require_common(name, [a.type.value for a in args])
    return MAP(key, value, nullable=any_nullable(args))


@scalar("MAP_UNION", infer=_map_union_infer)
def _map_union(cols, args, result, ctx):
    target = result.with_nullable(True)
    entries = F.concat(*[F.map_entries(coerce(c, a.type, target, ctx)) for c, a in zip(cols, args)])
    # an entry stays unless a later one has its key
    last = F.filter(entries, lambda e, i: ~F.exists(F.slice(entries, i + 2, F.size(entries)),
                                                    lambda x: x["key"] == e["key"]))
    return F.map_from_entries(last)
