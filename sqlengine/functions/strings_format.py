"""PRINTF, ELT, INET_ATON and INET_NTOA.

Flink's PRINTF is Java's ``Formatter`` over Flink's internal values and returns NULL
when formatting fails; Spark's ``printf`` is the same formatter over Spark's internal
values but fails the query. So a constant format is checked at planning time: a format
Java rejects whatever the arguments (an unknown conversion, a missing argument, a flag
the conversion does not take) gives NULL, and an argument whose type its conversion
cannot print (``%d`` of a DOUBLE or DECIMAL, ``%f`` of an INT, ``%c`` of a string)
gives NULL unless that argument is NULL (Java prints ``null`` for a NULL of any type).
Both engines pass a DATE as its day number; a TIMESTAMP prints as Java's
``LocalDateTime`` does (``2020-01-02T03:04:05.123``).
"""
from __future__ import annotations

import functools
import re
from typing import Optional

from pyspark.sql import functions as F

from sqlengine.errors import ValidationError
from sqlengine.types import BIGINT, STRING as STRING_T, DataType

from .base import INTEGER, STRING, Arg, arity_error, check, scalar
from .sparkutil import driver_jvm, null_of
from .typeinfer import require_common

# -- PRINTF --------------------------------------------------------------------------------
# Java's format specifier: %[argument_index$][flags][width][.precision][t]conversion
_SPEC = re.compile(r"%(\d+\$)?([-#+ 0,(<]*)(\d+)?(\.\d+)?([tT])?(.)?")
_INTEGRAL = ("TINYINT", "SMALLINT", "INT", "BIGINT", "DATE")
_CHAR_OK = ("TINYINT", "SMALLINT", "INT")


def _printable(conversion: str, t: DataType) -> bool:
    """Whether Java's formatter takes a (non-NULL) value of ``t`` for ``conversion``, as
    Flink hands it over (Integer, Long, Double, BinaryStringData, DecimalData, ...)."""
    if t.root == "NULL" or conversion in "bBhHsS":
        return True
    if conversion in "doxX":
        return t.root in _INTEGRAL
    if conversion in "eEfgGaA":
        return t.root in ("FLOAT", "DOUBLE")
    if conversion in "cC":
        return t.root in _CHAR_OK
    if conversion in "tT":
        return t.root == "BIGINT"
    return False


def _arguments_used(fmt: str) -> Optional[list[tuple[int, str]]]:
    """(argument index, conversion) of each specifier of ``fmt``; None when a
    specifier is malformed."""
    used, ordinary, last = [], 0, -1
    pos = 0
    while True:
        at = fmt.find("%", pos)
        if at < 0:
            return used
        m = _SPEC.match(fmt, at)
        conversion = m.group(6) if m else None
        if conversion is None:
            return None
        pos = m.end()
        if m.group(5):  # %tX: a date/time conversion
            conversion = m.group(5)
        elif conversion in "%n":
            continue
        if m.group(1):
            index = int(m.group(1)[:-1]) - 1
        elif "<" in (m.group(2) or ""):
            index = last
        else:
            index, ordinary = ordinary, ordinary + 1
        last = index
        used.append((index, conversion))


@functools.lru_cache(maxsize=256)
def _java_accepts(fmt: str, n: int) -> bool:
    """Whether Java formats ``fmt`` with ``n`` NULL arguments (its syntax and argument
    count, independent of the values' types)."""
    from pyspark import SparkContext
    jvm = driver_jvm()
    if jvm is None:
        return True
    try:
        array = SparkContext._gateway.new_array(jvm.java.lang.Object, n)
        jvm.java.lang.String.format(jvm.java.util.Locale.US, fmt, array)
        return True
    except Exception:  # noqa: BLE001 - Py4JJavaError: an IllegalFormatException
        return False


def _printf_infer(name: str, args: list[Arg]) -> DataType:
    if not args:
        raise arity_error(name, 1, 1, 0)
    check(name, args[:1], [STRING])
    return STRING_T(True)


def _printf_argument(c, t: DataType):
    """A value as Flink gives it to the formatter (a TIMESTAMP as LocalDateTime prints)."""
    if t.is_timestamp:
        text = F.date_format(c, "yyyy-MM-dd'T'HH:mm:ss.SSSSSS")
        text = F.regexp_replace(text, r"(\.\d{3})000$", "$1")
        text = F.regexp_replace(text, r"\.000$", "")
        return F.regexp_replace(text, r"(T\d\d:\d\d):00$", "$1")
    return c


@scalar("PRINTF", infer=_printf_infer)
def _printf(cols, args, result, ctx):
    values = [_printf_argument(c, a.type) for c, a in zip(cols[1:], args[1:])]
    formatted = F.printf(cols[0], *values) if values else F.printf(cols[0])
    if not (args[0].literal and args[0].value is not None):
        return formatted
    fmt = str(args[0].value)
    used = _arguments_used(fmt)
    if used is None or not _java_accepts(fmt, len(values)):
        return null_of(result)
    unprintable = {i for i, conversion in used if i < len(values) and not _printable(conversion, args[1 + i].type)}
    if not unprintable:
        return formatted
    all_null = functools.reduce(lambda a, b: a & b, [cols[1 + i].isNull() for i in sorted(unprintable)])
    return F.when(all_null, formatted)


# -- ELT(index, value, ...) ----------------------------------------------------------------
def _elt_infer(name: str, args: list[Arg]) -> DataType:
    if len(args) < 2:
        raise arity_error(name, 2, 2, len(args))
    check(name, args[:1], [INTEGER])
    values = [a.type for a in args[1:]]
    kinds = {"string" if t.is_string else "binary" if t.root in ("BINARY", "VARBINARY") else
             "null" if t.root == "NULL" else "other" for t in values}
    if "other" in kinds or {"string", "binary"} <= kinds:
        shown = ", ".join(t.sql(False) for t in [a.type for a in args])
        raise ValidationError(f"Invalid function call:\nELT({shown})\n"
                              "ELT expects an index and values that are all character strings or all binary strings")
    common = require_common(name, values)
    if common.root == "CHAR":
        common = DataType("VARCHAR", True, precision=common.precision)
    return common.with_nullable(True)


@scalar("ELT", infer=_elt_infer)
def _elt(cols, args, result, ctx):
    """The index-th value (1-based); NULL for an index out of range."""
    index = cols[0]
    chosen = None
    for i, c in enumerate(cols[1:], start=1):
        value = c.cast(result.to_spark())
        chosen = F.when(index == i, value) if chosen is None else chosen.when(index == i, value)
    return chosen


# -- INET_ATON / INET_NTOA -----------------------------------------------------------------
def _inet_aton_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING])
    return BIGINT(True)


@scalar("INET_ATON", infer=_inet_aton_infer)
def _inet_aton(cols, args, result, ctx):
    """MySQL's reading: up to four dot-separated parts of 0..255; with fewer than four,
    the last part fills the low bytes (``1.2`` is 1.0.0.2)."""
    s = cols[0]
    parts = F.split(s, r"\.")
    n = F.size(parts)

    def part(i):
        return F.element_at(parts, i + 1).cast("long")

    def shifted(i, bits):
        return F.shiftleft(part(i), bits)

    value = (F.when(n == 1, part(0))
             .when(n == 2, shifted(0, 24) + part(1))
             .when(n == 3, shifted(0, 24) + shifted(1, 16) + part(2))
             .otherwise(shifted(0, 24) + shifted(1, 16) + shifted(2, 8) + part(3)))
    valid = s.rlike(r"^\d{1,10}(\.\d{1,10}){0,3}$") & F.forall(parts, lambda p: p.cast("long") <= 255)
    return F.when(valid, value)


def _inet_ntoa_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [INTEGER])
    return STRING_T(True)


@scalar("INET_NTOA", infer=_inet_ntoa_infer)
def _inet_ntoa(cols, args, result, ctx):
    x = cols[0].cast("long")
    octets = [F.shiftright(x, bits).bitwiseAND(255).cast("string") for bits in (24, 16, 8, 0)]
    return F.when((x >= 0) & (x <= 4294967295), F.concat_ws(".", *octets))
