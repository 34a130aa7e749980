"""Temporal functions: DATE_FORMAT, EXTRACT and friends, FLOOR/CEIL TO unit,
TIMESTAMPADD/DIFF, parsing/formatting, and the current-time functions.

TIMESTAMP values are UTC-pinned wall clocks, so Spark's field functions read them
directly; TIMESTAMP_LTZ values are first viewed in ``table.local-time-zone``.
Flink's week for FLOOR/CEIL TO WEEK starts on Sunday, EXTRACT(WEEK) is ISO 8601,
DAYOFWEEK counts Sunday as 1, and TIMESTAMPDIFF(MONTH) is Calcite's calendar month
difference (the largest m with ``start + m months <= end``).
"""
from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from sqlengine.errors import ValidationError
from sqlengine.types import (BIGINT, DATE as DATE_T, INT, STRING as STRING_T, TIME as TIME_T,
                             TIMESTAMP as TIMESTAMP_T, TIMESTAMP_LTZ as LTZ_T, DataType)

from .base import (DATETIME, INTERVAL, NUMERIC, STRING, Arg, Family, LowerContext, any_nullable,
                   check, literal_value, scalar)
from .datetime_format import to_spark_pattern
from .sparkutil import (LONG_MIN, MILLIS_PER_DAY, from_wall_clock, idiv, millis_of_day, null_of,
                        to_wall_clock, truncate_precision)
from .temporal_arith import shift
from .varying import varying

_UNIT_MS = {"MILLISECOND": 1, "SECOND": 1000, "MINUTE": 60_000, "HOUR": 3_600_000,
            "DAY": MILLIS_PER_DAY, "WEEK": 7 * MILLIS_PER_DAY}
_UNIT_MONTHS = {"MONTH": 1, "QUARTER": 3, "YEAR": 12}
_ALIASES = {"FRAC_SECOND": "MICROSECOND", "DAYOFMONTH": "DAY", "DAYOFYEAR": "DOY",
            "DAYOFWEEK": "DOW", "DAYS": "DAY", "HOURS": "HOUR", "MINUTES": "MINUTE",
            "SECONDS": "SECOND", "MONTHS": "MONTH", "YEARS": "YEAR"}
_DEFAULT_FORMAT = "yyyy-MM-dd HH:mm:ss"


def unit_of(name: str, args: list[Arg], i: int, allowed: tuple[str, ...]) -> str:
    raw = str(literal_value(name, args, i, "time unit")).upper().strip()
    unit = raw[len("SQL_TSI_"):] if raw.startswith("SQL_TSI_") else raw
    unit = _ALIASES.get(unit, unit)
    if unit not in allowed:
        raise ValidationError(f"Unsupported time unit '{raw}' for {name}; valid units are: "
                              + ", ".join(allowed))
    return unit


def wall(col: Column, t: DataType, ctx: LowerContext) -> Column:
    """A UTC-pinned wall-clock timestamp for TIMESTAMP, TIMESTAMP_LTZ or DATE values."""
    if t.root == "DATE":
        return col.cast("timestamp")
    return to_wall_clock(col, t, ctx.local_time_zone)


# -- DATE_FORMAT --------------------------------------------------------------------------
def _date_format_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [DATETIME, STRING], [STRING, STRING])
    return STRING_T(True)


def parse_default(s: Column) -> Column:
    """SimpleDateFormat('yyyy-MM-dd HH:mm:ss').parse: reads a prefix, NULL on failure."""
    return F.try_to_timestamp(F.substring(F.trim(s), 1, 19), F.lit(_DEFAULT_FORMAT))


def pattern_of(col: Column, arg: Arg, sdf: bool = False) -> Column:
    """A format argument as a Spark pattern (translated when it is a literal)."""
    if arg.literal:
        return F.lit(None if arg.value is None else to_spark_pattern(str(arg.value), sdf))
    return col


@scalar("DATE_FORMAT", infer=_date_format_infer)
def _date_format(cols, args, result, ctx):
    src = args[0].type
    sdf = src.is_string
    value = parse_default(cols[0]) if sdf else wall(cols[0], src, ctx)
    return F.call_function("date_format", value, pattern_of(cols[1], args[1], sdf))


# -- EXTRACT and field functions -------------------------------------------------------------
_EXTRACT_UNITS = ("YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "DOY", "DOW", "ISODOW", "ISOYEAR",
                  "HOUR", "MINUTE", "SECOND", "MILLISECOND", "MICROSECOND", "NANOSECOND",
                  "EPOCH", "DECADE", "CENTURY", "MILLENNIUM")


def extract_field(unit: str, col: Column, t: DataType, ctx: LowerContext) -> Column:
    """EXTRACT(unit FROM col) as BIGINT."""
    if t.root == "TIME":
        return _extract_time(unit, col)
    if t.root == "INTERVAL_DAY_TIME":
        return _extract_interval_ms(unit, col)
    if t.root == "INTERVAL_YEAR_MONTH":
        months = col.cast("long")
        return idiv(months, F.lit(12)) if unit == "YEAR" else months % 12
    ts = wall(col, t, ctx)
    year = F.year(ts)
    fields = {
        "YEAR": lambda: year, "QUARTER": lambda: F.quarter(ts), "MONTH": lambda: F.month(ts),
        "WEEK": lambda: F.weekofyear(ts), "DAY": lambda: F.dayofmonth(ts),
        "DOY": lambda: F.dayofyear(ts), "DOW": lambda: F.dayofweek(ts),
        "ISODOW": lambda: F.weekday(ts) + 1,
        "ISOYEAR": lambda: F.date_part(F.lit("YEAROFWEEK"), ts),
        "HOUR": lambda: F.hour(ts), "MINUTE": lambda: F.minute(ts), "SECOND": lambda: F.second(ts),
        # the fraction of the second (Flink 2.3; Calcite counted the seconds too)
        "MILLISECOND": lambda: F.pmod(F.unix_millis(ts), F.lit(1000)),
        "MICROSECOND": lambda: F.pmod(F.unix_micros(ts), F.lit(1_000_000)),
        "NANOSECOND": lambda: F.pmod(F.unix_micros(ts), F.lit(1_000_000)) * 1000,
        "EPOCH": lambda: idiv(F.unix_millis(ts), F.lit(1000)),
        "DECADE": lambda: idiv(year, F.lit(10)),
        "CENTURY": lambda: F.when(year > 0, idiv(year + 99, F.lit(100))).otherwise(idiv(year - 99, F.lit(100))),
        "MILLENNIUM": lambda: F.when(year > 0, idiv(year + 999, F.lit(1000))).otherwise(
            idiv(year - 999, F.lit(1000))),
    }
    return fields[unit]().cast("long")


def _extract_time(unit: str, ms: Column) -> Column:
    ms = ms.cast("long")
    parts = {"HOUR": idiv(ms, F.lit(3_600_000)), "MINUTE": idiv(ms, F.lit(60_000)) % 60,
             "SECOND": idiv(ms, F.lit(1000)) % 60, "MILLISECOND": ms % 1000,
             "EPOCH": idiv(ms, F.lit(1000))}
    if unit not in parts:
        raise ValidationError(f"unit {unit} can not be applied to a TIME value")
    return parts[unit]


def _extract_interval_ms(unit: str, ms: Column) -> Column:
    ms = ms.cast("long")
    parts = {"DAY": idiv(ms, F.lit(MILLIS_PER_DAY)), "HOUR": idiv(ms, F.lit(3_600_000)) % 24,
             "MINUTE": idiv(ms, F.lit(60_000)) % 60, "SECOND": idiv(ms, F.lit(1000)) % 60,
             "MILLISECOND": ms % 60_000, "EPOCH": idiv(ms, F.lit(1000))}
    if unit not in parts:
        raise ValidationError(f"EXTRACT({unit} FROM INTERVAL DAY TO SECOND) is not supported")
    return parts[unit]


_EXTRACTABLE = Family("DATETIME_INTERVAL", lambda t: DATETIME(t) or INTERVAL(t))


def _extract_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, _EXTRACTABLE])
    unit_of(name, args, 0, _EXTRACT_UNITS)
    return BIGINT(args[1].type.nullable)


@scalar("EXTRACT", infer=_extract_infer)
def _extract(cols, args, result, ctx):
    return extract_field(unit_of("EXTRACT", args, 0, _EXTRACT_UNITS), cols[1], args[1].type, ctx)


def _field_function(unit: str):
    def infer(name: str, args: list[Arg]) -> DataType:
        check(name, args, [DATETIME])
        return BIGINT(any_nullable(args))

    def lower(cols, args, result, ctx):
        return extract_field(unit, cols[0], args[0].type, ctx)

    return infer, lower


for _fn_name, _unit in (("YEAR", "YEAR"), ("QUARTER", "QUARTER"), ("MONTH", "MONTH"),
                        ("WEEK", "WEEK"), ("DAYOFYEAR", "DOY"), ("DAYOFMONTH", "DAY"),
                        ("DAYOFWEEK", "DOW"), ("HOUR", "HOUR"), ("MINUTE", "MINUTE"),
                        ("SECOND", "SECOND")):
    _infer, _lower = _field_function(_unit)
    scalar(_fn_name, infer=_infer)(_lower)


# -- FLOOR / CEIL TO unit -------------------------------------------------------------------
_FLOOR_UNITS = ("MILLISECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER",
                "YEAR", "DECADE", "CENTURY", "MILLENNIUM")


def floor_ceil_to_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [DATETIME, STRING])
    unit_of(name, args, 1, _FLOOR_UNITS)
    return args[0].type


def _floor_wall(ts: Column, unit: str) -> Column:
    if unit == "MILLISECOND":
        return truncate_precision(ts, 3)
    if unit == "WEEK":  # Calcite: weeks start on Sunday
        day = F.to_date(ts)
        return F.date_sub(day, F.dayofweek(day) - 1).cast("timestamp")
    if unit in ("DECADE", "CENTURY", "MILLENNIUM"):
        span = {"DECADE": 10, "CENTURY": 100, "MILLENNIUM": 1000}[unit]
        year = F.year(ts)
        first = year - F.pmod(year - (0 if unit == "DECADE" else 1), F.lit(span))
        return F.make_date(first, F.lit(1), F.lit(1)).cast("timestamp")
    return F.date_trunc(unit, ts)


def _add_unit(ts: Column, unit: str) -> Column:
    if unit in _UNIT_MS:
        return F.timestamp_millis(F.unix_millis(ts) + F.lit(_UNIT_MS[unit]))
    months = {"MONTH": 1, "QUARTER": 3, "YEAR": 12, "DECADE": 120, "CENTURY": 1200,
              "MILLENNIUM": 12000}[unit]
    return F.timestamp_add("MONTH", F.lit(months), ts)


def lower_floor_ceil_to(kind: str, cols: list[Column], args: list[Arg], result: DataType,
                        ctx: LowerContext) -> Column:
    t = args[0].type
    unit = unit_of(f"{kind}", args, 1, _FLOOR_UNITS)
    if t.root == "TIME":
        ms = cols[0].cast("long")
        step = _UNIT_MS.get(unit, MILLIS_PER_DAY)
        floored = ms - F.pmod(ms, F.lit(step))
        out = floored if kind == "FLOOR" else F.when(floored == ms, ms).otherwise(floored + step)
        return out.cast("int")
    ts = wall(cols[0], t, ctx)
    floored = _floor_wall(ts, unit)
    out = floored if kind == "FLOOR" else F.when(floored == ts, ts).otherwise(_add_unit(floored, unit))
    if t.root == "DATE":
        return F.to_date(out)
    return from_wall_clock(out, ctx.local_time_zone) if t.root == "TIMESTAMP_LTZ" else out


scalar("FLOOR_TO", infer=floor_ceil_to_infer)(
    lambda cols, args, r, ctx: lower_floor_ceil_to("FLOOR", cols, args, r, ctx))
scalar("CEIL_TO", infer=floor_ceil_to_infer)(
    lambda cols, args, r, ctx: lower_floor_ceil_to("CEIL", cols, args, r, ctx))


# -- TIMESTAMPADD / TIMESTAMPDIFF ---------------------------------------------------------------
_ADD_UNITS = ("MICROSECOND", "MILLISECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH",
              "QUARTER", "YEAR")


def _timestampadd_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, NUMERIC, DATETIME])
    unit = unit_of(name, args, 0, _ADD_UNITS)
    t = args[2].type
    if t.root == "DATE" and unit not in ("DAY", "WEEK", "MONTH", "QUARTER", "YEAR"):
        t = TIMESTAMP_T(3 if unit == "MILLISECOND" else 6 if unit == "MICROSECOND" else 0)
    return t.with_nullable(any_nullable(args[1:]))


@scalar("TIMESTAMPADD", infer=_timestampadd_infer)
def _timestampadd(cols, args, result, ctx):
    unit = unit_of("TIMESTAMPADD", args, 0, _ADD_UNITS)
    n, value, t = cols[1].cast("long"), cols[2], args[2].type
    if t.root == "DATE" and result.root == "TIMESTAMP":
        value, t = value.cast("timestamp"), result
    if unit in _UNIT_MONTHS:
        return shift(value, t, n * _UNIT_MONTHS[unit], "INTERVAL_YEAR_MONTH", ctx)
    if unit == "MICROSECOND":
        return F.timestamp_micros(F.unix_micros(value) + n)
    return shift(value, t, n * _UNIT_MS[unit], "INTERVAL_DAY_TIME", ctx)


_DIFF_UNITS = ("MICROSECOND", "MILLISECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH",
               "QUARTER", "YEAR")


def _timestampdiff_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, DATETIME, DATETIME])
    unit_of(name, args, 0, _DIFF_UNITS)
    return INT(any_nullable(args[1:]))


def subtract_months(t0: Column, t1: Column) -> Column:
    """Flink's DateTimeUtils.subtractMonths(t0, t1) on wall-clock timestamps."""
    d0, d1 = F.to_date(t0), F.to_date(t1)

    def forward(later: Column, earlier: Column) -> Column:
        raw = (F.year(later) - F.year(earlier)) * 12 + F.month(later) - F.month(earlier)
        return F.when(F.add_months(earlier, raw) <= later, raw).otherwise(raw - 1)

    x = F.when(d0 >= d1, forward(d0, d1)).otherwise(-forward(d1, d0))
    same_day = F.add_months(d1, x) == d0
    return F.when(same_day & (millis_of_day(t0) < millis_of_day(t1)), x - 1).otherwise(x)


@scalar("TIMESTAMPDIFF", infer=_timestampdiff_infer)
def _timestampdiff(cols, args, result, ctx):
    unit = unit_of("TIMESTAMPDIFF", args, 0, _DIFF_UNITS)
    start, end = wall(cols[1], args[1].type, ctx), wall(cols[2], args[2].type, ctx)
    if unit in _UNIT_MONTHS:
        return idiv(subtract_months(end, start), F.lit(_UNIT_MONTHS[unit])).cast("int")
    if unit == "MICROSECOND":
        return (F.unix_micros(end) - F.unix_micros(start)).cast("int")
    diff = F.unix_millis(end) - F.unix_millis(start)
    return idiv(diff, F.lit(_UNIT_MS[unit])).cast("int")


# -- parsing ---------------------------------------------------------------------------------
def _to_date_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING], [STRING, STRING])
    return DATE_T(True)


@scalar("TO_DATE", infer=_to_date_infer)
def _to_date(cols, args, result, ctx):
    if len(args) == 1:
        return F.trim(cols[0]).cast("date")
    return F.to_date(F.try_to_timestamp(cols[0], pattern_of(cols[1], args[1])))


def _to_timestamp_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING], [STRING, STRING])
    return TIMESTAMP_T(3, True)


@scalar("TO_TIMESTAMP", infer=_to_timestamp_infer)
def _to_timestamp(cols, args, result, ctx):
    if len(args) == 1:
        parsed = F.trim(cols[0]).cast("timestamp")
    else:
        parsed = F.try_to_timestamp(cols[0], pattern_of(cols[1], args[1]))
    return truncate_precision(parsed, 3)


def _to_ltz_infer(name: str, args: list[Arg]) -> DataType:
    form = check(name, args, [NUMERIC], [NUMERIC, NUMERIC], [STRING], [STRING, STRING],
                 [STRING, STRING, STRING])
    if form == 1 and (not args[1].literal or args[1].value not in range(10)):
        raise ValidationError("The precision of TO_TIMESTAMP_LTZ must be a literal from 0 to 9")
    precision = max(3, int(args[1].value)) if form == 1 else 3
    return LTZ_T(precision, any_nullable(args[:1]) or args[0].type.is_string)


# TO_TIMESTAMP_LTZ(n, precision): n counts units of 10^-precision seconds since the epoch
# (0: seconds, 3: milliseconds, ..., 9: nanoseconds; Spark keeps microseconds).


@scalar("TO_TIMESTAMP_LTZ", infer=_to_ltz_infer)
def _to_timestamp_ltz(cols, args, result, ctx):
    if args[0].type.is_string:
        tz = cols[2] if len(cols) == 3 else F.lit(ctx.local_time_zone)
        pattern = pattern_of(cols[1], args[1]) if len(args) > 1 else F.lit(_DEFAULT_FORMAT)
        parsed = F.try_to_timestamp(cols[0], pattern)
        return truncate_precision(F.to_utc_timestamp(parsed, tz), 3)
    precision = int(args[1].value) if len(args) == 2 else 3
    n = cols[0] if args[0].type.root in ("FLOAT", "DOUBLE") else cols[0].cast("long")  # DECIMAL: truncated
    micros = n * F.lit(10 ** (6 - precision)).cast("long") if precision <= 6 else F.floor(n / 10 ** (precision - 6))
    return truncate_precision(F.timestamp_micros(micros.cast("long")), result.precision)


def _unix_timestamp_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [], [STRING], [STRING, STRING])
    return BIGINT(any_nullable(args))


@scalar("UNIX_TIMESTAMP", infer=_unix_timestamp_infer)
def _unix_timestamp(cols, args, result, ctx):
    if not args:
        return F.unix_seconds(F.current_timestamp())
    if len(args) == 2:
        parsed = F.try_to_timestamp(cols[0], pattern_of(cols[1], args[1], True))
    else:
        parsed = parse_default(cols[0])
    seconds = F.unix_seconds(from_wall_clock(parsed, ctx.local_time_zone))
    return F.when(cols[0].isNull(), F.lit(None).cast("long")).otherwise(
        F.coalesce(seconds, F.lit(LONG_MIN)))


def _from_unixtime_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [NUMERIC], [NUMERIC, STRING])
    return STRING_T(any_nullable(args))


@scalar("FROM_UNIXTIME", infer=_from_unixtime_infer)
def _from_unixtime(cols, args, result, ctx):
    fmt = pattern_of(cols[1], args[1], True) if len(args) == 2 else F.lit(_DEFAULT_FORMAT)
    ts = to_wall_clock(F.timestamp_seconds(cols[0].cast("long")), LTZ_T(3), ctx.local_time_zone)
    return F.call_function("date_format", ts, fmt)


def _convert_tz_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING, STRING])
    return STRING_T(any_nullable(args))


@scalar("CONVERT_TZ", infer=_convert_tz_infer)
def _convert_tz(cols, args, result, ctx):
    instant = F.to_utc_timestamp(parse_default(cols[0]), cols[1])
    return F.date_format(F.from_utc_timestamp(instant, cols[2]), _DEFAULT_FORMAT)


# -- current time ---------------------------------------------------------------------------
def _now(ctx: LowerContext) -> Column:
    return truncate_precision(F.current_timestamp(), 3)


def _const_infer(t: DataType):
    def infer(name: str, args: list[Arg]) -> DataType:
        check(name, args, [])
        return t

    return infer


scalar("CURRENT_TIMESTAMP", "NOW", "CURRENT_ROW_TIMESTAMP", infer=_const_infer(LTZ_T(3, False)))(
    lambda cols, args, r, ctx: _now(ctx))
# PROCTIME(): the processing time; a computed column of it is a processing-time attribute
# (the binder marks it), e.g. the time of a lookup join (``FOR SYSTEM_TIME AS OF o.proc``).
scalar("PROCTIME", infer=_const_infer(LTZ_T(3, False)))(lambda cols, args, r, ctx: _now(ctx))
scalar("LOCALTIMESTAMP", infer=_const_infer(TIMESTAMP_T(3, False)))(
    lambda cols, args, r, ctx: to_wall_clock(_now(ctx), LTZ_T(3), ctx.local_time_zone))
scalar("CURRENT_DATE", infer=_const_infer(DATE_T(False)))(
    lambda cols, args, r, ctx: F.to_date(to_wall_clock(_now(ctx), LTZ_T(3), ctx.local_time_zone)))
scalar("CURRENT_TIME", "LOCALTIME", infer=_const_infer(TIME_T(0, False)))(
    lambda cols, args, r, ctx: (lambda ms: ms - F.pmod(ms, F.lit(1000)))(
        millis_of_day(to_wall_clock(_now(ctx), LTZ_T(3), ctx.local_time_zone))).cast("int"))


# -- CURRENT_WATERMARK(rowtime) -------------------------------------------------------------
def _current_watermark_infer(name: str, args: list[Arg]) -> DataType:
    if len(args) != 1 or args[0].type.time_attr != "ROWTIME":
        shown = args[0].type.sql(False) if len(args) == 1 else f"{len(args)} arguments"
        raise ValidationError(f"Invalid function call:\nCURRENT_WATERMARK() must be called with a single "
                              f"rowtime attribute argument, but '{shown}' cannot be a time attribute.")
    t = args[0].type
    return DataType(t.root, True, precision=3)


@scalar("CURRENT_WATERMARK", infer=_current_watermark_infer)
def _current_watermark(cols, args, result, ctx):
    """The watermark of the operator's input when the row is processed: in an epoch, the
    one before the epoch's rows (a row behind it is late); NULL before the first
    watermark and in batch mode, as in Flink."""
    wm = ctx.current_watermark
    if wm is None or not -(1 << 61) < wm < (1 << 61):
        return null_of(result)
    return F.timestamp_millis(varying(wm, F.unix_millis(cols[0])))
