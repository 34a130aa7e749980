"""ROW / ARRAY / MAP constructors, element access (``a[i]``, ``m[k]``, ``r.f``) and
collection functions.

Flink's ``array[i]`` is 1-based and NULL when out of range; Spark's ``element_at``
fails on index 0, so the lowering uses the 0-based, bounds-tolerant ``get``.
"""
from __future__ import annotations

from typing import Optional, Sequence

from pyspark.sql import Column
from pyspark.sql import functions as F

from sqlengine.errors import ValidationError
from sqlengine.types import ARRAY, INT, MAP, ROW, DataType

from .base import ANY, Arg, ARRAY as ARRAY_F, MAP as MAP_F, arity_error, check, scalar
from .casts import coerce
from .sparkutil import null_of
from .typeinfer import require_common


def row_type(names: Optional[Sequence[str]], types: Sequence[DataType]) -> DataType:
    """The type of ``ROW(...)``: fields ``EXPR$0..`` unless the binder names them."""
    names = list(names) if names else [f"EXPR${i}" for i in range(len(types))]
    if len(names) != len(types):
        raise ValueError("row_type needs one name per field")
    return ROW(list(zip(names, types)), nullable=False)


def _row_infer(name: str, args: list[Arg]) -> DataType:
    if not args:
        raise arity_error(name, 1, 1, 0)
    return row_type(None, [a.type for a in args])


@scalar("ROW", infer=_row_infer)
def _row(cols, args, result, ctx):
    fields = [coerce(c, a.type, f.type, ctx).alias(f.name)
              for c, a, f in zip(cols, args, result.fields)]
    return F.struct(*fields)


def _array_infer(name: str, args: list[Arg]) -> DataType:
    if not args:
        raise arity_error(name, 1, 1, 0)
    typed = [a.type for a in args if a.type.root != "NULL"]
    element = require_common("ARRAY constructor", typed) if typed else DataType("NULL")
    if any(a.type.nullable for a in args):
        element = element.with_nullable(True)
    return ARRAY(element, nullable=False)


@scalar("ARRAY", infer=_array_infer)
def _array(cols, args, result, ctx):
    return F.array(*[coerce(c, a.type, result.element, ctx) for c, a in zip(cols, args)])


def _map_infer(name: str, args: list[Arg]) -> DataType:
    if not args or len(args) % 2:
        raise ValidationError(
            "MAP constructor requires an even number of arguments (key, value, ...)")
    keys = [a.type for a in args[0::2] if a.type.root != "NULL"]
    values = [a.type for a in args[1::2] if a.type.root != "NULL"]
    key = require_common("MAP constructor", keys) if keys else DataType("NULL")
    value = require_common("MAP constructor", values) if values else DataType("NULL")
    if any(a.type.nullable for a in args[1::2]):
        value = value.with_nullable(True)
    return MAP(key, value, nullable=False)


@scalar("MAP", infer=_map_infer)
def _map(cols, args, result, ctx):
    """Flink keeps the last value of a repeated key (``MAP[1, 2, 1, 3]`` is ``{1=3}``, as
    in FLINK-25699); Spark's map constructors reject repeated keys, so repeats are dropped
    first: while planning when the keys are literals, else in Spark."""
    keys = [coerce(c, a.type, result.key, ctx) for c, a in zip(cols[0::2], args[0::2])]
    values = [coerce(c, a.type, result.value, ctx) for c, a in zip(cols[1::2], args[1::2])]
    if all(a.literal for a in args[0::2]):
        first, last = {}, {}
        for i, a in enumerate(args[0::2]):
            first.setdefault(a.value, i)
            last[a.value] = i
        return F.create_map(*[c for k in first for c in (keys[first[k]], values[last[k]])])
    entries = F.array(*[F.struct(k.alias("k"), v.alias("v")) for k, v in zip(keys, values)])
    return F.map_from_entries(_keep_last_of_key(entries))


def _keep_last_of_key(entries: Column) -> Column:
    """The entries whose key does not occur again later in the array."""
    def repeated_later(e: Column, i: Column) -> Column:
        later = F.slice(entries, i + 2, F.size(entries))
        return F.exists(later, lambda o: o["k"].eqNullSafe(e["k"]))

    return F.filter(entries, lambda e, i: ~repeated_later(e, i))


# -- access ------------------------------------------------------------------------
def _item_infer(name: str, args: list[Arg]) -> DataType:
    if len(args) != 2:
        raise arity_error(name, 2, 2, len(args))
    container = args[0].type
    if container.root == "ARRAY":
        if not (args[1].type.is_integer or args[1].type.root == "NULL"):
            raise ValidationError("Array index must be an integer, got "
                                  f"{args[1].type.sql(False)}")
        return container.element.with_nullable(True)
    if container.root == "MAP":
        return container.value.with_nullable(True)
    raise ValidationError(f"Cannot apply 'ITEM' to arguments of type "
                          f"'ITEM(<{container.sql(False)}>, <{args[1].type.sql(False)}>)'. "
                          "Supported form(s): <ARRAY>[<INTEGER>]\n<MAP>[<ANY>]")


@scalar("ITEM", infer=_item_infer)
def _item(cols, args, result, ctx):
    container = args[0].type
    if container.root == "ARRAY":
        return F.get(cols[0], cols[1].cast("int") - 1)
    key = coerce(cols[1], args[1].type, container.key, ctx)
    return F.try_element_at(cols[0], key)


def _field_infer(name: str, args: list[Arg]) -> DataType:
    if len(args) != 2 or not args[1].literal:
        raise ValidationError("FIELD access needs a row and a literal field name")
    row = args[0].type
    if row.root != "ROW":
        raise ValidationError(f"Cannot access field '{args[1].value}' of a non-ROW value of "
                              f"type {row.sql(False)}")
    f = row.field(str(args[1].value))
    if f is None:
        valid = ", ".join(x.name for x in row.fields)
        raise ValidationError(f"Unknown field '{args[1].value}' in ROW type {row.sql(False)}; "
                              f"fields are: {valid}")
    return f.type.with_nullable(f.type.nullable or row.nullable)


@scalar("FIELD", infer=_field_infer)
def _field(cols, args, result, ctx):
    return cols[0].getField(args[0].type.field(str(args[1].value)).name)


# -- collection functions --------------------------------------------------------
def _cardinality_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [ARRAY_F], [MAP_F])
    return INT(args[0].type.nullable)


@scalar("CARDINALITY", infer=_cardinality_infer)
def _cardinality(cols, args, result, ctx):
    return F.when(cols[0].isNull(), null_of(result)).otherwise(F.size(cols[0]))


def _element_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [ARRAY_F])
    return args[0].type.element.with_nullable(True)


@scalar("ELEMENT", infer=_element_infer)
def _element(cols, args, result, ctx):
    size = F.size(cols[0])
    return (F.when(cols[0].isNull() | (size == 0), null_of(result))
            .when(size == 1, F.get(cols[0], 0))
            .otherwise(F.raise_error(F.lit("Array has more than one element."))
                       .cast(result.to_spark())))


def _contains_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [ARRAY_F, ANY])
    return DataType("BOOLEAN", args[0].type.nullable)


@scalar("ARRAY_CONTAINS", infer=_contains_infer)
def _array_contains(cols, args, result, ctx):
    element = args[0].type.element
    needle = coerce(cols[1], args[1].type, element, ctx)
    has_null = F.exists(cols[0], lambda e: e.isNull())
    found = F.exists(cols[0], lambda e: e == needle)
    return F.when(cols[0].isNull(), F.lit(None)).when(needle.isNull(), has_null).otherwise(
        F.coalesce(found, F.lit(False)))


def _map_part_infer(part: str):
    def infer(name: str, args: list[Arg]) -> DataType:
        check(name, args, [MAP_F])
        t = args[0].type
        return ARRAY(t.key if part == "key" else t.value, nullable=t.nullable)

    return infer


scalar("MAP_KEYS", infer=_map_part_infer("key"))(
    lambda cols, args, result, ctx: F.map_keys(cols[0]))
scalar("MAP_VALUES", infer=_map_part_infer("value"))(
    lambda cols, args, result, ctx: F.map_values(cols[0]))
