"""Value conversions shared by the JSON and CSV formats, as Spark Column expressions.

Flink's formats parse and print values with ``java.time`` formatters and Jackson;
these helpers reproduce their text forms with Spark's native functions:

* TIMESTAMP: ``yyyy-MM-dd HH:mm:ss`` plus the fraction only when non-zero, trailing
  zeros dropped (Flink's ``SQL_TIMESTAMP_FORMAT``, ``appendFraction(NANO, 0, 9)``);
  ISO-8601 puts a ``T`` between date and time. TIMESTAMP_LTZ adds ``Z`` and is
  printed in UTC whatever ``table.local-time-zone`` says (Flink's converters use
  ``ZoneOffset.UTC``). Spark values are UTC instants (see sqlengine/types.py).
* DECIMAL: Jackson's ``numberNode(BigDecimal)`` strips trailing zeros and prints
  ``BigDecimal.toString()`` (``4.00`` -> ``4``, ``640`` -> ``6.4E+2``), or
  ``toPlainString()`` when asked for plain numbers.
* TIME travels as INT milliseconds of the day.

Parsers return NULL for text they cannot read; callers flag such values as bad.
"""
from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as st

from sqlengine.errors import ConnectorError
from sqlengine.types import DataType

# Spark datetime patterns equal to Flink's parsers (fraction of 1-9 digits optional).
SQL_TS = "yyyy-MM-dd HH:mm:ss[.SSSSSSSSS]"
ISO_TS = "yyyy-MM-dd'T'HH:mm[:ss][.SSSSSSSSS]"
_INT_RANGES = {
    "TINYINT": (-(2 ** 7), 2 ** 7 - 1),
    "SMALLINT": (-(2 ** 15), 2 ** 15 - 1),
    "INT": (-(2 ** 31), 2 ** 31 - 1),
    "BIGINT": (-(2 ** 63), 2 ** 63 - 1),
    "INTERVAL_YEAR_MONTH": (-(2 ** 31), 2 ** 31 - 1),
    "INTERVAL_DAY_TIME": (-(2 ** 63), 2 ** 63 - 1),
}
INTEGRAL_ROOTS = tuple(_INT_RANGES)
FLOATING_ROOTS = ("FLOAT", "DOUBLE")
TEMPORAL_ROOTS = ("DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ")
_DECIMAL_NUMBER = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"


# -- temporal values ----------------------------------------------------------------
def timestamp_pattern(iso: bool, ltz: bool) -> str:
    return (ISO_TS if iso else SQL_TS) + ("'Z'" if ltz else "")


# Text that Spark's own timestamp cast reads exactly as the SQL_TS pattern does.
_SQL_TS_SHAPE = r"^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?$"


def parse_timestamp(text: Column, iso: bool, ltz: bool) -> Column:
    """TIMESTAMP(_LTZ) from Flink's text form; NULL when it does not match.

    Flink's default SQL form takes a fast path: ``try_to_timestamp`` parses with a
    java.time formatter (~2 us a value, a fifth of the task time of a Kafka JSON scan,
    ``benchmarks/README.md``), while text of the plain shape ``yyyy-MM-dd HH:mm:ss[.f]``
    is read by Spark's hand-written timestamp cast, which gives the same instant (same
    session time zone, fraction truncated to microseconds) and NULL for the same
    impossible dates and times. Any other text still goes to the formatter. Then, in the
    SQL form, what Flink's SMART resolving reads beyond that (``_smart_timestamp``,
    interpreted: a caller that wants its projection in whole-stage code generation
    computes this in a projection of its own, as the JSON format's prelude does)."""
    parsed = F.try_to_timestamp(text, F.lit(timestamp_pattern(iso, ltz)))
    if iso:
        return parsed
    if not ltz:
        parsed = F.when(text.rlike(_SQL_TS_SHAPE), text.try_cast("timestamp")).otherwise(parsed)
    from connectors.formats.decoded import let  # interpreted: few values take this path
    return F.coalesce(parsed, let(text, lambda t: _smart_timestamp(t, ltz)))


_SMART_TS = r"^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?%s$"


def _smart_timestamp(text: Column, ltz: bool) -> Column:
    """What Flink's SQL timestamp form reads beyond a valid date and time: its formatter
    resolves SMART (java.time's default for a built formatter), so a day past the
    month's end (29-31) is the month's last day, and ``24:00:00`` is the next day's
    midnight (checked with Flink 2.3: ``2023-02-29 10:00:00`` is 2023-02-28 10:00,
    ``2023-02-29 24:00:00`` 2023-03-01 00:00; day 32, month 13, minute or second 60 and
    ``24:00:01`` fail). NULL for anything else. Only evaluated where the strict parsing
    gave NULL, and by Spark's interpreter (``let``): an expression of this size, copied
    into every use of the value, would multiply the query's generated code."""
    def number(pos: int, n: int) -> Column:
        return F.substring(text, pos, n).cast("int")
    year, month, day, hour = number(1, 4), number(6, 2), number(9, 2), number(12, 2)
    clock = F.substring(text, 15, 5)  # mm:ss
    fraction = F.substring(F.regexp_replace(text, "Z$", ""), 20, 10)  # ".fff..." or ""
    first = F.try_make_timestamp(year, month, F.lit(1), F.lit(0), F.lit(0), F.lit(0))
    date = F.when((day >= 1) & (day <= 31), F.least(day, F.dayofmonth(F.last_day(first))))
    midnight = F.try_make_timestamp(year, month, date, F.lit(0), F.lit(0), F.lit(0))
    valid = F.concat(F.lpad(date.cast("string"), 2, "0"), F.substring(text, 11, 99))
    at = F.concat(F.substring(text, 1, 8), valid).try_cast("timestamp") if not ltz else \
        F.concat(F.substring(text, 1, 8), F.regexp_replace(valid, "Z$", "")).try_cast("timestamp")
    next_day = F.when((clock == "00:00") & ~fraction.rlike("[1-9]"), midnight + F.expr("INTERVAL 1 DAY"))
    return F.when(text.rlike(_SMART_TS % ("Z" if ltz else "")), F.when(hour == 24, next_day).otherwise(at))


def format_timestamp(value: Column, iso: bool, ltz: bool) -> Column:
    """Flink's text of a timestamp: fraction only when non-zero, trailing zeros dropped.

    Spark's own cast to STRING prints exactly that (session time zone UTC).
    """
    text = value.cast("string")
    if iso:
        text = F.concat(F.substring(text, 1, 10), F.lit("T"), text.substr(F.lit(12), F.length(text)))
    return F.concat(text, F.lit("Z")) if ltz else text


def parse_date(text: Column, lenient: bool = False) -> Column:
    """DATE from ``yyyy-MM-dd`` (CSV's ``Date.valueOf`` also takes one-digit month/day)."""
    return F.try_to_date(text, "yyyy-M-d" if lenient else "yyyy-MM-dd")


def parse_time_millis(text: Column, keep_millis: bool) -> Column:
    """TIME as INT milliseconds of the day from ``HH:mm:ss[.fff]``.

    Flink's JSON reader keeps whole seconds only; CSV keeps milliseconds.
    """
    ts = F.try_to_timestamp(F.concat(F.lit("1970-01-01 "), text), F.lit(SQL_TS))
    if keep_millis:
        return F.unix_millis(ts).cast("int")
    return (F.unix_seconds(ts) * 1000).cast("int")


def parse_iso_time_millis(text: Column, precision: int) -> Column:
    """TIME from ``HH:mm[:ss[.f]]`` (``LocalTime.parse``), cut to ``precision`` digits (max 3)."""
    ts = F.try_to_timestamp(F.concat(F.lit("1970-01-01 "), text), F.lit("yyyy-MM-dd HH:mm[:ss][.SSSSSSSSS]"))
    unit = 10 ** (3 - min(max(precision, 0), 3))
    return (F.floor(F.unix_millis(ts) / unit) * unit).cast("int")


def format_time(millis: Column, with_fraction: bool) -> Column:
    """``HH:mm:ss`` (JSON: whole seconds) or ISO_LOCAL_TIME with the millisecond fraction."""
    if not with_fraction:
        return F.date_format(F.timestamp_seconds(F.floor(millis / 1000)), "HH:mm:ss")
    text = F.date_format(F.timestamp_millis(millis.cast("long")), "HH:mm:ss.SSS")
    return F.regexp_replace(text, r"\.?0+$", "")


# -- numbers --------------------------------------------------------------------------
def decimal_text(value: Column, scale: int, plain: bool) -> Column:
    """Jackson's text of ``numberNode(bigDecimal)``: trailing zeros stripped.

    Spark's cast prints ``BigDecimal.toString()`` of the unstripped value, which is
    plain unless the adjusted exponent is below -6 (then ``1.20E-7``, only possible
    for scale >= 7). Stripping keeps the adjusted exponent, so a plain text stays
    plain except for integers ending in zeros, which Java prints as ``6.4E+2``.
    The common cases cost a cast, a few ``endswith`` and a cut of the text's bytes; regexes
    run only for the rare ones. (``rtrim(text, '0')`` walks the text and allocates two int
    arrays per value, Spark's ``UTF8String.trimRight(trimString)``: 6% of the JVM's samples
    in Nexmark's q1; 1.0 s against 0.65 s, the cast alone 0.55 s, for 4M DECIMAL(23, 3).)
    """
    text = value.cast("string")
    stripped = _strip_fraction_zeros(text, scale) if scale > 0 else text
    out = stripped
    if not plain:
        out = F.when(stripped.endswith("0"), _integer_sci(stripped)).otherwise(stripped)
    if scale >= 7:
        out = F.when(F.instr(text, "E") > 0, _small_decimal(text, plain)).otherwise(out)
    return F.when(value == 0, F.lit("0")).otherwise(out)


def _strip_fraction_zeros(text: Column, scale: int) -> Column:
    """``12.340`` -> ``12.34``, ``12.000`` -> ``12``: a plain text with ``scale`` fraction
    digits loses its trailing zeros (and the point with all of them)."""
    cut = F.coalesce(*[F.when(text.endswith("0" * k), F.lit(k + (k == scale))) for k in range(scale, 0, -1)],
                     F.lit(0))
    return cut_bytes(text, 0, cut)


def cut_bytes(text: Column, head: int, tail) -> Column:
    """``text`` without its first ``head`` and last ``tail`` bytes (ASCII characters, so the
    cut never splits one): a byte substring copies, where a character ``substring`` counts
    the characters and ``rtrim(text, chars)`` walks and allocates per value."""
    data = text.cast("binary")
    return F.substring(data, head + 1, F.octet_length(data) - (tail + head)).cast("string")


def _integer_sci(text: Column) -> Column:
    """``640`` -> ``6.4E+2``; other texts unchanged (see ``decimal_text``)."""
    pattern = r"^(-?)([0-9]*[1-9])(0+)$"
    sign = F.regexp_extract(text, pattern, 1)
    digits = F.regexp_extract(text, pattern, 2)
    zeros = F.regexp_extract(text, pattern, 3)
    rest = digits.substr(F.lit(2), F.length(digits))
    mantissa = F.when(F.length(digits) > 1, F.concat(F.substring(digits, 1, 1), F.lit("."), rest))
    mantissa = mantissa.otherwise(digits)
    exponent = (F.length(digits) - 1 + F.length(zeros)).cast("string")
    sci = F.concat(sign, mantissa, F.lit("E+"), exponent)
    return F.when(text.rlike(pattern), sci).otherwise(text)


def _small_decimal(text: Column, plain: bool) -> Column:
    """A ``d.dddE-n`` text: strip the mantissa's zeros, or print it plain."""
    mantissa = F.regexp_extract(text, r"^(-?[0-9.]+)E", 1)
    exponent = F.regexp_extract(text, r"E(-[0-9]+)$", 1)
    mantissa = F.regexp_replace(mantissa, r"\.?0+$", "")
    if not plain:
        return F.concat(mantissa, F.lit("E"), exponent)
    sign = F.when(mantissa.startswith("-"), F.lit("-")).otherwise(F.lit(""))
    digits = F.regexp_replace(mantissa, r"[-.]", "")
    zeros = F.repeat(F.lit("0"), (-exponent.cast("int") - 1))
    return F.concat(sign, F.lit("0."), zeros, digits)


def floating_text(value: Column) -> Column:
    """Java's ``Double.toString``/``Float.toString`` (Spark's cast prints the same)."""
    return value.cast("string")


def parse_integral(text: Column, t: DataType, strict: bool = False) -> Column:
    """Integer from `` 12 ``; unless ``strict``, a decimal number truncates toward zero.

    Flink's JSON reader truncates JSON floats (``getIntValue``) and parses strings
    with ``Integer.parseInt(text.trim())``; the CSV reader only does the latter.
    """
    lo, hi = _INT_RANGES[t.root]
    trimmed = F.trim(text)
    exact = trimmed.try_cast(st.DecimalType(38, 0))
    if strict:
        value = F.when(trimmed.rlike(r"^[+-]?[0-9]+$"), exact)
        return F.when((value >= F.lit(lo)) & (value <= F.lit(hi)), value.cast(t.to_spark()))
    truncated = trimmed.try_cast("double")
    truncated = F.when(F.abs(truncated) < 9.2e18, truncated.cast("long").cast(st.DecimalType(38, 0)))
    value = F.when(trimmed.rlike(r"^[+-]?[0-9]+$"), exact).when(trimmed.rlike(_DECIMAL_NUMBER), truncated)
    in_range = (value >= F.lit(lo)) & (value <= F.lit(hi))
    return F.when(in_range, value.cast(t.to_spark()))


def parse_floating(text: Column, t: DataType) -> Column:
    return F.trim(text).try_cast(t.to_spark())


def parse_boolean(text: Column) -> Column:
    """Java's ``Boolean.parseBoolean(text.trim())``: anything but ``true`` is false."""
    return F.lower(F.trim(text)) == F.lit("true")


def parse_decimal(text: Column, t: DataType) -> Column:
    """``new BigDecimal(text)`` rounded HALF_UP to the scale; NULL on overflow (as Flink)."""
    return text.try_cast(t.to_spark())


def decimal_parse_ok(text: Column) -> Column:
    return text.rlike(_DECIMAL_NUMBER)


def check_map_key(t: DataType, fmt: str) -> None:
    key = t.key if t.root == "MAP" else t.element
    if key is None or not key.is_string:
        raise ConnectorError(
            f"{fmt.upper()} format doesn't support non-string as key type of map. The type is: {t.sql()}")
