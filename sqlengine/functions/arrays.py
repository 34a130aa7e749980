"""ARRAY and MAP functions (ARRAY_DISTINCT, ARRAY_POSITION, ..., MAP_FROM_ARRAYS, SPLIT).

Flink's ARRAY_REMOVE removes NULL elements when asked to (Spark's returns NULL),
and SPLIT takes its delimiter literally, not as a regular expression.
"""
from __future__ import annotations

from pyspark.sql import functions as F

from sqlengine.errors import ValidationError
from sqlengine.types import ARRAY, INT, MAP, ROW, STRING as STRING_T, DataType

from .base import (ANY, ARRAY as ARRAY_F, MAP as MAP_F, STRING, Arg, any_nullable, check,
                   check_variadic, scalar)
from .casts import coerce
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

