"""Numeric functions: ABS, ROUND (HALF_UP), TRUNCATE, FLOOR/CEIL, logarithms, trigonometry.

Spark's ``round`` is HALF_UP on the decimal form of a double, exactly like Flink's
``BigDecimal.valueOf(d).setScale(n, HALF_UP)``. Logarithms follow Java's
``Math.log`` (-Infinity at 0, NaN below) where Spark returns NULL.
"""
from __future__ import annotations

import math

from pyspark.sql import Column
from pyspark.sql import functions as F

from sqlengine.errors import ValidationError
from sqlengine.types import DECIMAL, DOUBLE, INT, STRING as STRING_T, DataType

from .base import EXACT, INTEGER, NUMERIC, STRING, Arg, any_nullable, check, literal_value, scalar
from .typeinfer import decimal_round


def _same_numeric(name: str, args: list[Arg]) -> DataType:
    check(name, args, [NUMERIC])
    t = args[0].type
    return t if t.root != "NULL" else DOUBLE()


scalar("ABS", infer=_same_numeric)(lambda cols, args, r, ctx: F.abs(cols[0]).cast(r.to_spark()))
scalar("SIGN", infer=_same_numeric)(
    lambda cols, args, r, ctx: F.signum(cols[0]).cast(r.to_spark()))


def _double_infer(arity: int):
    def infer(name: str, args: list[Arg]) -> DataType:
        check(name, args, [NUMERIC] * arity)
        return DOUBLE(any_nullable(args))

    return infer


def java_log(x: Column, fn=F.log) -> Column:
    """Math.log/log10: -Infinity at 0, NaN for negatives (Spark yields NULL)."""
    return (F.when(x > 0, fn(x)).when(x == 0, F.lit(float("-inf")))
            .when(x < 0, F.lit(float("nan"))).when(F.isnan(x), F.lit(float("nan"))))


def java_ln(x: Column) -> Column:
    return java_log(x, F.log)


_UNARY_DOUBLE = {
    "SQRT": F.sqrt, "EXP": F.exp, "SIN": F.sin, "COS": F.cos, "TAN": F.tan, "ASIN": F.asin,
    "ACOS": F.acos, "ATAN": F.atan, "SINH": F.sinh, "COSH": F.cosh, "TANH": F.tanh,
    "DEGREES": F.degrees, "RADIANS": F.radians, "CBRT": F.cbrt,
    "COT": lambda x: F.lit(1.0) / F.tan(x),
    "LN": java_ln,
    "LOG10": lambda x: java_log(x, F.log10),
    "LOG2": lambda x: java_ln(x) / F.lit(math.log(2)),
}
for _name, _fn in _UNARY_DOUBLE.items():
    scalar(_name, infer=_double_infer(1))(
        lambda cols, args, r, ctx, _f=_fn: _f(cols[0].cast("double")))


def _log_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [NUMERIC], [NUMERIC, NUMERIC])
    return DOUBLE(any_nullable(args))


@scalar("LOG", infer=_log_infer)
def _log(cols, args, result, ctx):
    if len(cols) == 1:
        return java_ln(cols[0].cast("double"))
    return java_ln(cols[1].cast("double")) / java_ln(cols[0].cast("double"))


@scalar("POWER", "POW", infer=_double_infer(2))
def _power(cols, args, result, ctx):
    return F.pow(cols[0].cast("double"), cols[1].cast("double"))


scalar("ATAN2", infer=_double_infer(2))(
    lambda cols, args, r, ctx: F.atan2(cols[0].cast("double"), cols[1].cast("double")))


def _constant_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [])
    return DOUBLE(False)


scalar("PI", infer=_constant_infer)(lambda cols, args, r, ctx: F.lit(math.pi))
scalar("E", infer=_constant_infer)(lambda cols, args, r, ctx: F.lit(math.e))


# -- random ---------------------------------------------------------------------------------
def _rand_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [], [INTEGER])
    return DOUBLE(False)


@scalar("RAND", infer=_rand_infer)
def _rand(cols, args, result, ctx):
    return F.rand(int(literal_value("RAND", args, 0, "seed"))) if args else F.rand()


def _rand_int_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [INTEGER], [INTEGER, INTEGER])
    return INT(any_nullable(args))


@scalar("RAND_INTEGER", infer=_rand_int_infer)
def _rand_integer(cols, args, result, ctx):
    if len(args) == 2:
        seed = int(literal_value("RAND_INTEGER", args, 0, "seed"))
        return F.floor(F.rand(seed) * cols[1]).cast("int")
    return F.floor(F.rand() * cols[0]).cast("int")


# -- rounding ---------------------------------------------------------------------------------
def _floor_ceil_infer(name: str, args: list[Arg]) -> DataType:
    if len(args) == 2:  # FLOOR(ts TO unit) reaching us under the plain name
        from .temporal import floor_ceil_to_infer
        return floor_ceil_to_infer(name, args)
    check(name, args, [NUMERIC])
    t = args[0].type
    if t.root == "DECIMAL":
        return DECIMAL(min(38, t.precision - t.scale + (1 if t.scale else 0)), 0, t.nullable)
    return t


def _floor_ceil(kind: str):
    spark_fn = F.floor if kind == "FLOOR" else F.ceil

    def lower(cols, args, result, ctx):
        if len(args) == 2:
            from .temporal import lower_floor_ceil_to
            return lower_floor_ceil_to(kind, cols, args, result, ctx)
        t = args[0].type
        if t.is_integer:
            return cols[0]
        if t.root in ("DOUBLE", "FLOAT"):
            # Spark's floor/ceil of a double is a BIGINT; beyond 2^52 doubles are integral.
            x = cols[0]
            rounded = F.when(F.abs(x) < F.lit(4.5e15), spark_fn(x)).otherwise(x)
            return rounded.cast(result.to_spark())
        return spark_fn(cols[0]).cast(result.to_spark())

    return lower


scalar("FLOOR", infer=_floor_ceil_infer)(_floor_ceil("FLOOR"))
scalar("CEIL", "CEILING", infer=_floor_ceil_infer)(_floor_ceil("CEIL"))


def _round_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [NUMERIC], [NUMERIC, INTEGER])
    t = args[0].type
    digits = args[1].value if len(args) == 2 and args[1].literal else 0
    if t.root == "DECIMAL":
        return decimal_round(t, int(digits or 0)).with_nullable(any_nullable(args))
    if t.root == "NULL":
        return DOUBLE()
    return t.with_nullable(any_nullable(args))


def _digits(name: str, args: list[Arg]) -> int:
    if len(args) < 2:
        return 0
    value = literal_value(name, args, 1, "number of decimal places")
    if value is None:
        raise ValidationError(f"{name} needs a non-NULL number of decimal places")
    return int(value)


@scalar("ROUND", infer=_round_infer)
def _round(cols, args, result, ctx):
    if len(args) == 2 and args[1].literal and args[1].value is None:
        return F.lit(None).cast(result.to_spark())
    return F.round(cols[0], _digits("ROUND", args)).cast(result.to_spark())


def _truncate_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [NUMERIC], [NUMERIC, INTEGER])
    t = args[0].type
    if t.root == "DECIMAL":
        digits = args[1].value if len(args) == 2 and args[1].literal else 0
        return decimal_round(t, int(digits or 0)).with_nullable(any_nullable(args))
    return t.with_nullable(any_nullable(args))


def _truncate_decimal(x: Column, digits: int) -> Column:
    return F.when(x >= 0, F.floor(x, digits)).otherwise(F.ceil(x, digits))


@scalar("TRUNCATE", infer=_truncate_infer)
def _truncate(cols, args, result, ctx):
    digits = _digits("TRUNCATE", args)
    t = args[0].type
    x = cols[0]
    if t.root in ("DOUBLE", "FLOAT"):
        # Via the shortest decimal form of the double, like BigDecimal.valueOf(d).
        exact = x.cast("string").cast("decimal(38,18)")
        cut = _truncate_decimal(exact, digits).cast("double")
        fits = (F.abs(x) < F.lit(1e19)) & ~F.isnan(x)
        return F.when(fits, cut).otherwise(x).cast(result.to_spark())
    if t.is_integer:
        return _truncate_decimal(x.cast("decimal(20,0)"), digits).cast(result.to_spark())
    return _truncate_decimal(x, digits).cast(result.to_spark())


# -- BIN / HEX ----------------------------------------------------------------------------------
def _bin_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [INTEGER])
    return STRING_T(any_nullable(args))


scalar("BIN", infer=_bin_infer)(lambda cols, args, r, ctx: F.bin(cols[0].cast("long")))


def _hex_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [EXACT], [STRING])
    return STRING_T(any_nullable(args))


@scalar("HEX", infer=_hex_infer)
def _hex(cols, args, result, ctx):
    if args[0].type.is_string:
        return F.hex(cols[0])
    return F.hex(cols[0].cast("long"))

