"""Arithmetic, comparison, logical, IS, LIKE, IN, BETWEEN, CASE and ``||`` operators.

Arithmetic computes on operands already converted to Flink's operand types
(BIGINT -> DECIMAL(19, 0) when a DECIMAL is involved) so that Spark's decimal rules,
which equal Flink's, produce Flink's result type; integer ``/`` is Java's truncating
division and integer division by zero fails the job, as in Flink.
"""
from __future__ import annotations

import re
from functools import reduce
from typing import Sequence

from pyspark.sql import Column
from pyspark.sql import functions as F

from sqlengine.errors import UnsupportedError, ValidationError
from sqlengine.types import BOOLEAN, DataType, decimal_of

from .base import (ANY, Arg, BOOL, COMPARABLE, LowerContext, STRING, any_nullable, arity_error,
                   calcite_name, check, check_variadic, scalar)
from .casts import coerce
from .sparkutil import idiv, null_of
from .temporal_arith import datetime_arith_type, lower_datetime_arith
from .typeinfer import arithmetic_type, common_of, concat_type, require_common


# -- arithmetic -------------------------------------------------------------------
def _infix_error(op: str, args: Sequence[Arg]) -> ValidationError:
    a, b = (f"<{calcite_name(x.type)}>" for x in args)
    forms = {"+": ["'<NUMERIC> + <NUMERIC>'", "'<DATETIME_INTERVAL> + <DATETIME_INTERVAL>'",
                   "'<DATETIME> + <DATETIME_INTERVAL>'", "'<DATETIME_INTERVAL> + <DATETIME>'"],
             "-": ["'<NUMERIC> - <NUMERIC>'", "'<DATETIME_INTERVAL> - <DATETIME_INTERVAL>'",
                   "'<DATETIME> - <DATETIME_INTERVAL>'"],
             "*": ["'<NUMERIC> * <NUMERIC>'", "'<DATETIME_INTERVAL> * <NUMERIC>'",
                   "'<NUMERIC> * <DATETIME_INTERVAL>'"],
             "/": ["'<NUMERIC> / <NUMERIC>'", "'<DATETIME_INTERVAL> / <NUMERIC>'"]}
    supported = "\n".join(forms.get(op, [f"'<NUMERIC> {op} <NUMERIC>'"]))
    return ValidationError(f"Cannot apply '{op}' to arguments of type '{a} {op} {b}'. "
                           f"Supported form(s): {supported}")


def _arith_infer(op: str):
    def infer(name: str, args: list[Arg]) -> DataType:
        if len(args) != 2:
            raise arity_error(name, 2, 2, len(args))
        a, b = args[0].type, args[1].type
        if a.root == "NULL" and b.root == "NULL":
            raise _infix_error(op, args)
        if a.root == "NULL" or b.root == "NULL":
            other = b if a.root == "NULL" else a
            if other.is_numeric:
                return other.with_nullable(True)
        if a.is_numeric and b.is_numeric:
            return arithmetic_type(op, a, b)
        temporal = datetime_arith_type(op, a, b)
        if temporal is None:
            raise _infix_error(op, args)
        return temporal

    return infer


def _operand(col: Column, t: DataType, result: DataType, ctx: LowerContext) -> Column:
    """Convert an operand to the type Flink computes in."""
    if result.root == "DECIMAL":
        return coerce(col, t, decimal_of(t), ctx) if t.root != "NULL" else null_of(result)
    return coerce(col, t, result, ctx)


def _divide_by_zero_guard(b: Column, arg: Arg, value: Column) -> Column:
    if arg.literal and arg.value not in (0, None):
        return value
    return F.when(b == 0, F.raise_error(F.lit("/ by zero"))).otherwise(value)


def _lower_numeric(op: str, cols: list[Column], args: list[Arg], result: DataType,
                   ctx: LowerContext) -> Column:
    a_t, b_t = args[0].type, args[1].type
    if op == "%" and result.is_integer:
        wide = common_of([t for t in (a_t, b_t) if t.root != "NULL"]) or result
        a, b = coerce(cols[0], a_t, wide, ctx), coerce(cols[1], b_t, wide, ctx)
        return _divide_by_zero_guard(b, args[1], (a % b).cast(result.to_spark()))
    a, b = _operand(cols[0], a_t, result, ctx), _operand(cols[1], b_t, result, ctx)
    if op == "+":
        out = a + b
    elif op == "-":
        out = a - b
    elif op == "*":
        out = a * b
    elif op == "/" and result.is_integer:
        return _divide_by_zero_guard(b, args[1], idiv(a, b).cast(result.to_spark()))
    elif op == "/" and result.root in ("DOUBLE", "FLOAT"):
        out = _java_double_divide(a, b)
    elif op == "/":  # DECIMAL: BigDecimal division by zero throws in Flink
        return _divide_by_zero_guard(b, args[1], (a / b).cast(result.to_spark()))
    elif result.root == "DECIMAL":
        return _divide_by_zero_guard(b, args[1], (a % b).cast(result.to_spark()))
    else:  # Java's double remainder: x % 0.0 is NaN
        out = F.when(b == 0, F.when(a.isNotNull(), F.lit(float("nan")))).otherwise(a % b)
    return out.cast(result.to_spark())


def _java_double_divide(a: Column, b: Column) -> Column:
    """IEEE division: x / 0.0 is +-Infinity or NaN in Java (Spark gives NULL)."""
    inf = F.lit(float("inf"))
    by_zero = (F.when(a > 0, inf).when(a < 0, -inf).when(a.isNotNull(), F.lit(float("nan"))))
    return F.when(b == 0, by_zero).otherwise(a / b)


def _arith_lower(op: str):
    def lower(cols: list[Column], args: list[Arg], result: DataType, ctx: LowerContext) -> Column:
        if result.is_numeric:
            return _lower_numeric(op, cols, args, result, ctx)
        return lower_datetime_arith(op, cols, args, result, ctx)

    return lower


for _op in ("+", "-", "*", "/"):
    scalar(_op, infer=_arith_infer(_op))(_arith_lower(_op))
scalar("%", "MOD", infer=_arith_infer("%"))(_arith_lower("%"))


def _neg_infer(name: str, args: list[Arg]) -> DataType:
    if len(args) != 1:
        raise arity_error(name, 1, 1, len(args))
    t = args[0].type
    if not (t.is_numeric or t.root in ("INTERVAL_DAY_TIME", "INTERVAL_YEAR_MONTH", "NULL")):
        raise ValidationError(f"Cannot apply '-' to arguments of type '-<{calcite_name(t)}>'. "
                              "Supported form(s): '-<NUMERIC>'\n'-<DATETIME_INTERVAL>'")
    return t


@scalar("NEG", infer=_neg_infer)
def _neg(cols, args, result, ctx):
    return (-cols[0]).cast(result.to_spark())


@scalar("POS", infer=_neg_infer)
def _pos(cols, args, result, ctx):
    return cols[0]


# -- comparison -------------------------------------------------------------------
def _comparable(a: DataType, b: DataType) -> bool:
    if "NULL" in (a.root, b.root):
        return True
    if common_of([a, b]) is not None:
        return True
    # Calcite coerces a character string to the other operand's type.
    return a.is_string and COMPARABLE(b) or b.is_string and COMPARABLE(a)


def _cmp_infer(name: str, args: list[Arg]) -> DataType:
    if len(args) != 2:
        raise arity_error(name, 2, 2, len(args))
    a, b = args[0].type, args[1].type
    if not _comparable(a, b):
        raise ValidationError(
            f"Cannot apply '{name}' to arguments of type '<{calcite_name(a)}> {name} "
            f"<{calcite_name(b)}>'. Supported form(s): "
            f"'<COMPARABLE_TYPE> {name} <COMPARABLE_TYPE>'")
    return BOOLEAN(any_nullable(args))


def comparison_operands(cols: Sequence[Column], types: Sequence[DataType],
                        ctx: LowerContext) -> list[Column]:
    """Bring operands to their common type (strings to the other side's type)."""
    known = [t for t in types if t.root != "NULL"]
    target = common_of(known) if known else None
    if target is None:
        target = next(t for t in known if not t.is_string)
    return [coerce(c, t, target, ctx) for c, t in zip(cols, types)]


_COMPARE = {"=": lambda a, b: a == b, "<>": lambda a, b: a != b, "<": lambda a, b: a < b,
            "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def _cmp_lower(op: str):
    def lower(cols, args, result, ctx):
        a, b = comparison_operands(cols, [x.type for x in args], ctx)
        return _COMPARE[op](a, b)

    return lower


for _op in _COMPARE:
    scalar(_op, infer=_cmp_infer)(_cmp_lower(_op))


def _distinct_infer(name: str, args: list[Arg]) -> DataType:
    _cmp_infer(name, args)
    return BOOLEAN(False)


@scalar("IS DISTINCT FROM", infer=_distinct_infer)
def _is_distinct(cols, args, result, ctx):
    a, b = comparison_operands(cols, [x.type for x in args], ctx)
    return ~a.eqNullSafe(b)


@scalar("IS NOT DISTINCT FROM", infer=_distinct_infer)
def _is_not_distinct(cols, args, result, ctx):
    a, b = comparison_operands(cols, [x.type for x in args], ctx)
    return a.eqNullSafe(b)


# -- logic ------------------------------------------------------------------------
def _logic_infer(name: str, args: list[Arg]) -> DataType:
    check_variadic(name, args, BOOL, minimum=2)
    return BOOLEAN(any_nullable(args))


@scalar("AND", infer=_logic_infer)
def _and(cols, args, result, ctx):
    return reduce(lambda a, b: a & b, cols)


@scalar("OR", infer=_logic_infer)
def _or(cols, args, result, ctx):
    return reduce(lambda a, b: a | b, cols)


def _not_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [BOOL])
    return BOOLEAN(any_nullable(args))


@scalar("NOT", infer=_not_infer)
def _not(cols, args, result, ctx):
    return ~cols[0]


def _is_infer(family):
    def infer(name: str, args: list[Arg]) -> DataType:
        check(name, args, [family])
        return BOOLEAN(False)

    return infer


_IS = {
    "IS NULL": (lambda c: c.isNull(), COMPARABLE),
    "IS NOT NULL": (lambda c: c.isNotNull(), COMPARABLE),
    "IS TRUE": (lambda c: F.coalesce(c, F.lit(False)), BOOL),
    "IS NOT TRUE": (lambda c: ~F.coalesce(c, F.lit(False)), BOOL),
    "IS FALSE": (lambda c: F.coalesce(~c, F.lit(False)), BOOL),
    "IS NOT FALSE": (lambda c: F.coalesce(c, F.lit(True)), BOOL),
    "IS UNKNOWN": (lambda c: c.isNull(), BOOL),
    "IS NOT UNKNOWN": (lambda c: c.isNotNull(), BOOL),
}
for _name, (_fn, _family) in _IS.items():
    _fam = _family if _family is BOOL else ANY
    scalar(_name, infer=_is_infer(_fam))(lambda cols, args, result, ctx, _f=_fn: _f(cols[0]))


# -- LIKE / SIMILAR TO -------------------------------------------------------------
_REGEX_SPECIAL = set("[]()|^-+*?{}$\\.")


def like_to_regex(pattern: str, escape: str | None = None) -> str:
    """Calcite's sqlToRegexLike: % -> .*, _ -> ., everything else literal."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if escape is not None and c == escape:
            if i + 1 >= len(pattern) or pattern[i + 1] not in ("_", "%", escape):
                raise ValidationError(f"Invalid escape sequence '{pattern}', {i}")
            nxt = pattern[i + 1]
            out.append("\\" + nxt if nxt in _REGEX_SPECIAL else nxt)
            i += 2
            continue
        special = "\\" + c if c in _REGEX_SPECIAL else c
        out.append(".*" if c == "%" else "." if c == "_" else special)
        i += 1
    return "(?s)\\A" + "".join(out) + "\\z"


def similar_to_regex(pattern: str, escape: str | None = None) -> str:
    """SQL SIMILAR TO pattern as a Java regex (% and _ wildcards, regex operators kept)."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if escape is not None and c == escape and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if c == "%" else "." if c == "_" else "\\" + c if c in ".^$\\" else c)
        i += 1
    return "(?s)\\A(?:" + "".join(out) + ")\\z"


def _like_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING], [STRING, STRING, STRING])
    return BOOLEAN(any_nullable(args))


def _match(to_regex, negate: bool):
    def lower(cols, args, result, ctx):
        escape = args[2].value if len(args) == 3 else None
        if args[1].literal and args[1].value is not None and (len(args) < 3 or args[2].literal):
            out = cols[0].rlike(to_regex(args[1].value, escape))
        elif to_regex is like_to_regex:
            esc = F.lit(escape) if escape is not None else None
            out = F.like(cols[0], cols[1], esc) if esc is not None else F.like(cols[0], cols[1])
        else:
            raise UnsupportedError("SIMILAR TO needs a literal pattern")
        if args[1].literal and args[1].value is None:
            out = F.lit(None).cast("boolean")
        return ~out if negate else out

    return lower


scalar("LIKE", infer=_like_infer)(_match(like_to_regex, False))
scalar("NOT LIKE", infer=_like_infer)(_match(like_to_regex, True))
scalar("SIMILAR TO", infer=_like_infer)(_match(similar_to_regex, False))
scalar("NOT SIMILAR TO", infer=_like_infer)(_match(similar_to_regex, True))


# -- IN / BETWEEN ----------------------------------------------------------------------
def _in_infer(name: str, args: list[Arg]) -> DataType:
    if len(args) < 2:
        raise arity_error(name, 2, 2, len(args))
    types = [a.type for a in args if a.type.root != "NULL"]
    if types and common_of(types) is None and not all(_comparable(types[0], t) for t in types):
        raise ValidationError(f"Values passed to {name} operator must have compatible types")
    return BOOLEAN(any_nullable(args))


def _in_lower(negate: bool):
    def lower(cols, args, result, ctx):
        value, *items = comparison_operands(cols, [a.type for a in args], ctx)
        out = value.isin(*items)
        return ~out if negate else out

    return lower


scalar("IN", infer=_in_infer)(_in_lower(False))
scalar("NOT IN", infer=_in_infer)(_in_lower(True))


def _between_infer(name: str, args: list[Arg]) -> DataType:
    if len(args) != 3:
        raise arity_error(name, 3, 3, len(args))
    return _in_infer(name, args)


@scalar("BETWEEN", "BETWEEN ASYMMETRIC", infer=_between_infer)
def _between(cols, args, result, ctx):
    v, lo, hi = comparison_operands(cols, [a.type for a in args], ctx)
    return (v >= lo) & (v <= hi)


@scalar("NOT BETWEEN", "NOT BETWEEN ASYMMETRIC", infer=_between_infer)
def _not_between(cols, args, result, ctx):
    v, lo, hi = comparison_operands(cols, [a.type for a in args], ctx)
    return (v < lo) | (v > hi)


@scalar("BETWEEN SYMMETRIC", infer=_between_infer)
def _between_sym(cols, args, result, ctx):
    v, lo, hi = comparison_operands(cols, [a.type for a in args], ctx)
    return ((v >= lo) & (v <= hi)) | ((v >= hi) & (v <= lo))


@scalar("NOT BETWEEN SYMMETRIC", infer=_between_infer)
def _not_between_sym(cols, args, result, ctx):
    return ~_between_sym(cols, args, result, ctx)


# -- CASE -------------------------------------------------------------------------------
def _case_infer(name: str, args: list[Arg]) -> DataType:
    if len(args) < 2:
        raise arity_error(name, 2, 2, len(args))
    whens = args[0:len(args) - 1:2] if len(args) % 2 else args[0::2]
    for w in whens:
        if not BOOL(w.type):
            raise ValidationError(f"Expected a boolean type in CASE WHEN, got {w.type.sql(False)}")
    values = list(args[1::2]) + ([args[-1]] if len(args) % 2 else [])
    typed = [v.type for v in values if v.type.root != "NULL"]
    if not typed:
        raise ValidationError("Illegal mixing of types in CASE or COALESCE statement")
    result = require_common("CASE or COALESCE statement", typed)
    nullable = any(v.type.nullable for v in values) or len(args) % 2 == 0
    return result.with_nullable(nullable)


@scalar("CASE", infer=_case_infer)
def _case(cols, args, result, ctx):
    out = None
    pairs = len(args) // 2
    for i in range(pairs):
        value = coerce(cols[2 * i + 1], args[2 * i + 1].type, result, ctx)
        cond = cols[2 * i] if args[2 * i].type.root != "NULL" else F.lit(None).cast("boolean")  # WHEN NULL
        out = F.when(cond, value) if out is None else out.when(cond, value)
    if len(args) % 2:
        return out.otherwise(coerce(cols[-1], args[-1].type, result, ctx))
    return out.otherwise(null_of(result))


# -- string concatenation -------------------------------------------------------------
def _concat_op_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING])
    a, b = (x.type if x.type.root != "NULL" else x.type.with_nullable(True) for x in args)
    a = a if a.is_string else DataType("VARCHAR", True, precision=1)
    b = b if b.is_string else DataType("VARCHAR", True, precision=1)
    return concat_type(a, b)


@scalar("||", infer=_concat_op_infer)
def _concat_op(cols, args, result, ctx):
    return F.concat(*[c.cast("string") for c in cols])
