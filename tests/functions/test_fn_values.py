"""Flink's edge-case semantics, evaluated through the Spark lowerings on constants.

Expected values follow Flink's runtime (SqlFunctionUtils, BinaryStringDataUtil,
DateTimeUtils, Calcite's SqlFunctions) and the examples in Flink's documentation.
"""
from __future__ import annotations

import math
from decimal import Decimal

import pytest
from pyspark.errors import PySparkException
from py4j.protocol import Py4JJavaError

from fnhelpers import CTX, E, call, cast, col, interval_ms, interval_months, lit, rows, values
from sqlengine import types as T
from sqlengine.functions import LowerContext, coerce

S = T.STRING


def null_int() -> E:
    return cast(lit(None), T.INT())


def null_str() -> E:
    return cast(lit(None), S())


def u(unit: str) -> E:
    return lit(unit, S(False))


def ts(text: str, p: int = 3) -> E:
    return cast(lit(text), T.TIMESTAMP(p))


def date(text: str) -> E:
    return cast(lit(text), T.DATE())


def check(spark, pairs: list[tuple[E, object]]) -> None:
    got = values(spark, *[e for e, _ in pairs])
    bad = [(i, want, have) for i, ((_, want), have) in enumerate(zip(pairs, got))
           if not _eq(want, have)]
    assert not bad, "\n".join(f"#{i}: expected {w!r}, got {h!r}" for i, w, h in bad)


def _eq(want, have) -> bool:
    if isinstance(want, float) and isinstance(have, float) and math.isnan(want):
        return math.isnan(have)
    if isinstance(want, float) and isinstance(have, (float, Decimal)):
        return math.isclose(want, float(have), rel_tol=1e-12)
    return type(want) is type(have) and want == have if want is not None else have is None


def test_substring_position_pad(spark):
    s = lit("hello")
    check(spark, [
        (call("SUBSTRING", s, lit(0), lit(2)), "he"),
        (call("SUBSTRING", lit("abc"), lit(-5), lit(4)), ""),  # Spark would give 'ab'
        (call("SUBSTRING", lit("abc"), lit(-2)), "bc"),
        (call("SUBSTRING", lit("abc"), lit(5)), ""),
        (call("SUBSTRING", lit("abc"), lit(2), lit(-1)), None),
        (call("SUBSTR", lit("abc"), lit(2), lit(100)), "bc"),
        (call("POSITION", lit(""), lit("abc")), 1),
        (call("POSITION", lit("c"), lit("abc")), 3),
        (call("POSITION", lit("z"), lit("abc")), 0),
        (call("LOCATE", lit("a"), lit("banana"), lit(3)), 4),
        (call("INSTR", lit("banana"), lit("an")), 2),
        (call("LPAD", lit("hi"), lit(4), lit("??")), "??hi"),
        (call("LPAD", lit("hi"), lit(1), lit("??")), "h"),
        (call("LPAD", lit("hi"), lit(-1), lit("x")), None),
        (call("LPAD", lit("hi"), lit(5), lit("")), None),  # Spark would return 'hi'
        (call("LPAD", lit("hi"), lit(0), lit("x")), ""),
        (call("RPAD", lit("hi"), lit(5), lit("ab")), "hiaba"),
        (call("LEFT", s, lit(-1)), ""),
        (call("RIGHT", s, lit(10)), "hello"),
        (call("RIGHT", s, lit(3)), "llo"),
        (call("OVERLAY", lit("xxxxxtest"), lit("xxxx"), lit(6)), "xxxxxxxxx"),
        (call("OVERLAY", lit("xxxxxtest"), lit("xxxx"), lit(6), lit(2)), "xxxxxxxxxst"),
        (call("OVERLAY", lit("abcdef"), lit("X"), lit(2), lit(0)), "aX"),
        (call("OVERLAY", lit("abc"), lit("X"), lit(5)), "abc"),
    ])


def test_case_trim_replace_concat(spark):
    check(spark, [
        (call("INITCAP", lit("o'neil-SMITH 2nd élan")), "O'Neil-Smith 2nd éLan"),
        (call("INITCAP", lit("dave smith")), "Dave Smith"),
        (call("UPPER", lit("straße")), "STRASSE"),
        (call("TRIM", u("LEADING"), lit("x"), lit("xxaxx")), "axx"),
        (call("TRIM", u("BOTH"), lit("ab"), lit("abcba")), "c"),
        (call("TRIM", u("TRAILING"), lit(" "), lit("  a  ")), "  a"),
        (call("LTRIM", lit("  a ")), "a "),
        (call("RTRIM", lit("  a ")), "  a"),
        (call("REPLACE", lit("abc"), lit(""), lit("x")), "xaxbxcx"),
        (call("REPLACE", lit("ababab"), lit("abab"), lit("z")), "zab"),
        (call("REPLACE", lit("hello world"), lit("world"), lit("flink")), "hello flink"),
        (call("CONCAT", lit("a"), null_str()), None),
        (call("CONCAT_WS", lit("~"), lit("AA"), null_str(), lit("BB"), lit(""), lit("CC")), "AA~BB~~CC"),
        (call("CONCAT_WS", null_str(), lit("AA")), None),
        (call("||", lit("ab"), lit("cd")), "abcd"),
        (call("REPEAT", lit("ab"), lit(3)), "ababab"),
        (call("REPEAT", lit("ab"), lit(-1)), ""),
        (call("REVERSE", lit("abc")), "cba"),
        (call("CHAR_LENGTH", lit("héllo")), 5),
        (call("ASCII", lit("abc")), 97),
        (call("ASCII", lit("")), 0),
        (call("CHR", lit(97)), "a"),
        (call("CHR", lit(353)), "a"),
        (call("HASH_CODE", lit("abc")), 96354),
        (call("MD5", lit("abc")), "900150983cd24fb0d6963f7d28e17f72"),
        (call("SHA256", lit("abc")),
         "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (call("TO_BASE64", lit("hello world")), "aGVsbG8gd29ybGQ="),
        (call("TO_BASE64", lit("x" * 100)), "eHh4" * 33 + "eA=="),  # no line breaks
        (call("FROM_BASE64", lit("aGVsbG8gd29ybGQ=")), "hello world"),
        (call("HEX", lit("hello,world")), "68656C6C6F2C776F726C64"),
        (call("HEX", lit(255)), "FF"),
        (call("BIN", lit(12)), "1100"),
    ])


def test_regex_and_split(spark):
    url = lit("https://www.nexmark.com/_fagj/cjgge/_ehff/item.htm?query=1&channel_id=42")
    check(spark, [
        (call("REGEXP_EXTRACT", lit("foothebar"), lit("foo(.*?)(bar)"), lit(2)), "bar"),
        (call("REGEXP_EXTRACT", lit("foothebar"), lit("foo(.*?)(bar)")), "foothebar"),
        (call("REGEXP_EXTRACT", lit("foothebar"), lit("x(y)"), lit(1)), None),  # Spark: ''
        (call("REGEXP_EXTRACT", lit("foothebar"), lit("foo(.*?)(bar)"), lit(3)), None),  # Spark throws
        (call("REGEXP_EXTRACT", url, lit("(&|^)channel_id=([^&]*)"), lit(2)), "42"),
        (call("REGEXP_EXTRACT", lit("channel_id=&x"), lit("(&|^)channel_id=([^&]*)"), lit(2)), ""),
        (call("REGEXP_REPLACE", lit("a.b.c"), lit("\\."), lit("$1")), "a$1b$1c"),  # literal
        (call("REGEXP_REPLACE", lit("foobar"), lit("oo|ar"), lit("")), "fb"),
        (call("REGEXP", lit("abc"), lit("b")), True),
        (call("REGEXP", lit("abc"), lit("")), False),
        (call("SPLIT_INDEX", url, lit("/"), lit(3)), "_fagj"),
        (call("SPLIT_INDEX", lit("a,b,,c"), lit(","), lit(2)), ""),
        (call("SPLIT_INDEX", lit("a,b"), lit(","), lit(5)), None),
        (call("SPLIT_INDEX", lit("a,b"), lit(","), lit(-1)), None),
        (call("SPLIT_INDEX", lit(""), lit(","), lit(0)), None),  # Spark: ''
        (call("SPLIT_INDEX", lit("a.b"), lit("."), lit(1)), "b"),  # not a regex
        (call("SPLIT_INDEX", lit("a||b"), lit("||"), lit(1)), "b"),
        (call("SPLIT_INDEX", lit("a,"), lit(","), lit(1)), ""),
        (call("SPLIT_INDEX", lit("a,b"), lit(44), lit(1)), "b"),  # separator as char code
        (call("LIKE", lit("abc"), lit("a_c")), True),
        (call("LIKE", lit("xzy"), lit("x.y")), False),  # '.' is literal
        (call("LIKE", lit("a%c"), lit("a!%c"), lit("!")), True),
        (call("LIKE", lit("abc"), lit("a!%c"), lit("!")), False),
        (call("LIKE", lit("a\nb"), lit("a%b")), True),
        (call("NOT LIKE", lit("abc"), lit("%d")), True),
        (call("LIKE", null_str(), lit("%")), None),
        (call("SIMILAR TO", lit("abc"), lit("(a|x)b%")), True),
        (call("SIMILAR TO", lit("zbc"), lit("(a|x)b%")), False),
        (call("IS_DIGIT", lit("123")), True),
        (call("IS_DIGIT", lit("")), False),
        (call("IS_DIGIT", null_str()), False),
        (call("IS_ALPHA", lit("abc")), True),
        (call("IS_DECIMAL", lit("1.5e3")), True),
        (call("IS_DECIMAL", lit("abc")), False),
        (call("JSON_VALUE", lit('{"a": {"b": 1}, "c": "x"}'), lit("$.c")), "x"),
        (call("JSON_VALUE", lit('{"a": {"b": 1}}'), lit("$.a")), None),
    ])


def test_split_on_one_character_per_row(spark):
    """SPLIT_INDEX and SPLIT on a one-character literal separator, regex characters
    included, over a column (evaluated per row, not folded); the separator is given as
    String.split's fast path takes it, never as a regex compiled again per row."""
    text = "a.b$c|d\\e^f*g+hbi(j)[k{l?m"
    df = spark.createDataFrame([(text,)], "s string")
    s = col("s", S())
    seps = [".", "$", "|", "\\", "^", "*", "+", "b", "(", ")", "[", "{", "?"]
    got = rows(df, {f"c{i}": call("SPLIT_INDEX", s, lit(sep), lit(1)) for i, sep in enumerate(seps)}
               | {"split": call("SPLIT", s, lit("|"))})[0]
    assert [got[f"c{i}"] for i in range(len(seps))] == [text.split(sep)[1] for sep in seps]
    assert got["split"] == text.split("|")
    pattern = str(call("SPLIT_INDEX", s, lit("/"), lit(3)).col)
    assert "split(s, '/', -1)" in pattern, pattern
    dot = str(call("SPLIT_INDEX", s, lit("."), lit(3)).col)
    assert "split(s, '\\\\.', -1)" in dot, dot  # the regex \. (Spark writes its backslash doubled)


def test_str_to_map(spark):
    check(spark, [
        (call("STR_TO_MAP", lit("a=1,b=2,a=3")), {"a": "3", "b": "2"}),  # last value wins
        (call("STR_TO_MAP", lit("")), {}),
        (call("STR_TO_MAP", lit("k,")), {"k": None}),
        (call("STR_TO_MAP", lit("a:1;b:2"), lit(";"), lit(":")), {"a": "1", "b": "2"}),
        (call("STR_TO_MAP", null_str()), None),
    ])


def test_arithmetic_semantics(spark):
    check(spark, [
        (call("/", lit(7), lit(2)), 3),
        (call("/", lit(-7), lit(2)), -3),  # truncates toward zero
        (call("%", lit(-7), lit(3)), -1),
        (call("%", lit(7), lit(-3)), 1),
        (call("MOD", lit(2 ** 40), lit(7)), 2 ** 40 % 7),
        (call("+", lit(2 ** 31 - 1), lit(1)), -2 ** 31),  # INT wraps like Java
        (call("*", cast(lit(41), T.BIGINT()), lit(3_000_000_000)), 123_000_000_000),
        (call("/", cast(lit(1), T.DOUBLE()), lit(0)), math.inf),
        (call("/", cast(lit(-1), T.DOUBLE()), lit(0)), -math.inf),
        (call("/", cast(lit(0), T.DOUBLE()), lit(0)), math.nan),
        (call("*", lit(Decimal("0.908")), lit(119447)), Decimal("108457.876")),
        (call("/", lit(Decimal("10.00")), lit(3)), Decimal("3.3333333333333")),
        (call("+", lit(1), null_int()), None),
        (call("NEG", lit(5)), -5),
        (call("-", lit(Decimal("1.5")), lit(2.5)), -1.0),
    ])


def test_integer_division_by_zero_fails_the_job(spark):
    with pytest.raises((PySparkException, Py4JJavaError), match="by zero"):
        values(spark, call("/", lit(1), cast(lit(0), T.INT())))
    with pytest.raises((PySparkException, Py4JJavaError), match="by zero"):
        values(spark, call("/", lit(Decimal("1.5")), cast(lit(0), T.INT())))


def test_double_edge_cases(spark):
    check(spark, [
        (call("%", lit(5.5), cast(lit(0), T.DOUBLE())), math.nan),
        (call("%", lit(-5.5), lit(2)), -1.5),
        (call("FLOOR", lit(1.0e20)), 1.0e20),  # Spark's floor would overflow a BIGINT
        (call("CEIL", lit(-0.5)), -0.0),
        (call("FLOOR", cast(lit("NaN"), T.DOUBLE())), math.nan),
    ])


def test_numeric_functions(spark):
    check(spark, [
        (call("ROUND", lit(2.5)), 3.0),
        (call("ROUND", lit(-2.5)), -3.0),
        (call("ROUND", lit(1.005), lit(2)), 1.01),  # HALF_UP on BigDecimal.valueOf
        (call("ROUND", lit(Decimal("12.345")), lit(2)), Decimal("12.35")),
        (call("ROUND", lit(125), lit(-1)), 130),
        (call("ROUND", lit(-36.6125), lit(1)), -36.6),
        (call("TRUNCATE", lit(42.324), lit(2)), 42.32),
        (call("TRUNCATE", lit(0.29), lit(2)), 0.29),
        (call("TRUNCATE", lit(-1.99)), -1.0),
        (call("TRUNCATE", lit(123), lit(-1)), 120),
        (call("TRUNCATE", lit(Decimal("-12.345")), lit(1)), Decimal("-12.3")),
        (call("FLOOR", lit(Decimal("-1.5"))), Decimal("-2")),
        (call("CEIL", lit(1.2)), 2.0),
        (call("FLOOR", lit(7)), 7),
        (call("LN", lit(0.0)), -math.inf),
        (call("LN", lit(-1.0)), math.nan),
        (call("LOG10", lit(1000)), 3.0),
        (call("LOG2", lit(8)), 3.0),
        (call("LOG", lit(2), lit(8)), 3.0),
        (call("POWER", lit(2), lit(10)), 1024.0),
        (call("SQRT", lit(-1.0)), math.nan),
        (call("SIGN", lit(-5)), -1),
        (call("SIGN", lit(Decimal("2.50"))), Decimal("1.00")),
        (call("ABS", lit(-3)), 3),
        (call("PI"), math.pi),
        (call("DEGREES", call("PI")), 180.0),
    ])


def test_conditional_functions(spark):
    check(spark, [
        (call("GREATEST", lit(1), null_int(), lit(3)), None),  # Spark skips NULLs
        (call("GREATEST", lit(1), lit(5), lit(3)), 5),
        (call("LEAST", lit(1), cast(lit(0), T.BIGINT())), 0),
        (call("NULLIF", lit(5), lit(5)), None),
        (call("NULLIF", lit(5), lit(0)), 5),
        (call("COALESCE", null_str(), lit("default")), "default"),
        (call("IFNULL", null_int(), lit(5)), 5),
        (call("IF", call(">", lit(5), lit(3)), lit(5), lit(3)), 5),
        (call("IF", cast(lit(None), T.BOOLEAN()), lit(1), lit(2)), 2),
        (call("IN", lit(1), lit(1), lit(2), null_int()), True),
        (call("IN", lit(4), lit(1), lit(2), null_int()), None),
        (call("NOT IN", lit(4), lit(1), lit(2), lit(3)), True),
        (call("IN", lit(2), lit(1), cast(lit(2), T.BIGINT())), True),
        (call("BETWEEN", lit(12), lit(15), lit(12)), False),
        (call("BETWEEN SYMMETRIC", lit(12), lit(15), lit(12)), True),
        (call("BETWEEN", lit(12), lit(10), null_int()), None),
        (call("BETWEEN", lit(12), null_int(), lit(10)), False),
        (call("NOT BETWEEN", lit(12), lit(15), null_int()), True),
        (call("IS NOT DISTINCT FROM", null_int(), null_int()), True),
        (call("IS DISTINCT FROM", lit(1), null_int()), True),
        (call("IS FALSE", cast(lit(None), T.BOOLEAN())), False),
        (call("IS NOT FALSE", cast(lit(None), T.BOOLEAN())), True),
        (call("IS NOT TRUE", lit(False)), True),
        (call("OR", lit(True), cast(lit(None), T.BOOLEAN())), True),
        (call("AND", lit(True), cast(lit(None), T.BOOLEAN())), None),
        (call("=", lit("1"), lit(1)), True),  # character string coerced to the numeric side
        (call("<", date("2021-01-01"), ts("2021-01-01 00:00:01")), True),
    ])


def test_collections(spark):
    arr = call("ARRAY", lit(1), lit(2), lit(3))
    m = call("MAP", lit("a"), lit(1), lit("b"), lit(2))
    check(spark, [
        (call("ITEM", arr, lit(2)), 2),
        (call("ITEM", arr, lit(0)), None),  # Spark's element_at would fail
        (call("ITEM", arr, lit(5)), None),
        (call("ITEM", m, lit("a")), 1),
        (call("ITEM", m, lit("z")), None),
        (call("CARDINALITY", arr), 3),
        (call("CARDINALITY", cast(lit(None), T.ARRAY(T.INT()))), None),  # Spark: -1
        (call("ELEMENT", call("ARRAY", lit(7))), 7),
        (call("ARRAY_CONTAINS", call("ARRAY", lit(1), null_int()), lit(2)), False),
        (call("ARRAY_CONTAINS", call("ARRAY", lit(1), null_int()), null_int()), True),
        (call("FIELD", call("ROW", lit("x"), lit(2)), lit("EXPR$1", S(False))), 2),
        (cast(arr, S()), "[1, 2, 3]"),
        (cast(call("ROW", lit("a"), null_int()), S()), "(a, NULL)"),
        (call("ARRAY_DISTINCT", call("ARRAY", lit(1), lit(1), null_int(), null_int())), [1, None]),
        (call("ARRAY_POSITION", arr, lit(3)), 3),
        (call("ARRAY_POSITION", arr, lit(9)), 0),
        (call("ARRAY_REMOVE", call("ARRAY", lit(1), null_int(), lit(2)), null_int()), [1, 2]),
        (call("ARRAY_REVERSE", arr), [3, 2, 1]),
        (call("ARRAY_CONCAT", arr, call("ARRAY", lit(4))), [1, 2, 3, 4]),
        (call("ARRAY_JOIN", call("ARRAY", lit("a"), null_str(), lit("b")), lit("-")), "a-b"),
        (call("ARRAY_MAX", arr), 3),
        (call("MAP_KEYS", m), ["a", "b"]),
        (call("SPLIT", lit("a.b..c"), lit(".")), ["a", "b", "", "c"]),
        (call("SPLIT", lit("abc"), lit("")), ["a", "b", "c"]),
        (call("STARTSWITH", lit("flink"), lit("fl")), True),
        (call("TRANSLATE", lit("AaBbCc"), lit("abc"), lit("123")), "A1B2C3"),
        (call("URL_DECODE", call("URL_ENCODE", lit("a b&c"))), "a b&c"),
        (call("TYPEOF", call("ROW", lit("x"))), "ROW<`EXPR$0` CHAR(1) NOT NULL> NOT NULL"),
    ])


def test_casts(spark):
    with_tz = LowerContext(local_time_zone="Asia/Shanghai")
    t3 = ts("2021-01-14 21:45:16")
    check(spark, [
        (cast(lit(" 42 "), T.INT()), 42),
        (cast(lit("2.5"), T.INT(), safe=True), 2),
        (cast(lit("abc"), T.INT(), safe=True), None),
        (cast(lit("99999999999"), T.INT(), safe=True), None),
        (cast(lit("FALSE"), T.BOOLEAN(), safe=True), False),
        (cast(lit("42"), T.BOOLEAN(), safe=True), None),
        (cast(lit(True), S()), "TRUE"),
        (cast(lit(1.0e10), S()), "1.0E10"),
        (cast(lit(12.0), S()), "12.0"),
        (cast(lit(-6.155), S()), "-6.155"),
        (cast(lit(Decimal("2.50")), S()), "2.50"),
        (cast(lit(-6.155), T.DECIMAL(5, 1)), Decimal("-6.2")),  # HALF_UP
        (cast(lit(-91.99), T.INT()), -91),  # truncation
        (cast(t3, S()), "2021-01-14 21:45:16.000"),  # TIMESTAMP(3) keeps 3 digits
        (cast(ts("2021-01-14 21:45:16.5", 0), S()), "2021-01-14 21:45:16"),
        (cast(ts("2021-01-14 21:45:16.123456", 6), T.TIMESTAMP(3)), "2021-01-14 21:45:16.123"),
        (cast(date("2021-01-14"), S()), "2021-01-14"),
        (cast(lit("12:34:56"), T.TIME(0)), "12:34:56"),
        (cast(cast(lit("12:34:56.5"), T.TIME(3)), S()), "12:34:56.5"),
        (cast(ts("2021-01-14 21:45:16.243"), T.TIME(0)), "21:45:16"),
        (cast(lit("hello"), T.VARCHAR(3)), "hel"),
        (cast(lit("ab"), T.CHAR(4)), "ab  "),
        (cast(t3, T.TIMESTAMP_LTZ(3), ctx=with_tz), "2021-01-14 13:45:16Z"),
        (cast(cast(t3, T.TIMESTAMP_LTZ(3), ctx=with_tz), S(), ctx=with_tz), "2021-01-14 21:45:16.000"),
        (cast(cast(t3, T.TIMESTAMP_LTZ(3)), T.DATE()), "2021-01-14"),
        (cast(lit(None), T.INT()), None),
        (E(coerce(ts("2021-01-14 21:45:16.123456", 6).col, T.TIMESTAMP(6), T.TIMESTAMP(3), CTX),
           T.TIMESTAMP(3)), "2021-01-14 21:45:16.123"),
    ])


def test_unsafe_cast_of_bad_string_fails_the_job(spark):
    with pytest.raises((PySparkException, Py4JJavaError), match="Cast function cannot convert"):
        values(spark, cast(lit("abc"), T.INT()))


def test_extract_and_field_functions(spark):
    t = ts("2021-01-14 21:45:16.243")
    d = date("1994-09-27")
    check(spark, [
        (call("EXTRACT", u("YEAR"), t), 2021),
        (call("EXTRACT", u("MILLISECOND"), t), 243),  # Flink 2.3: the fraction of the second
        (call("EXTRACT", u("DOW"), t), 5),
        (call("EXTRACT", u("ISODOW"), t), 4),
        (call("EXTRACT", u("DOY"), t), 14),
        (call("EXTRACT", u("EPOCH"), ts("1970-01-01 00:00:10")), 10),
        (call("EXTRACT", u("CENTURY"), t), 21),
        (call("EXTRACT", u("DECADE"), t), 202),
        (call("EXTRACT", u("HOUR"), cast(lit("12:34:56"), T.TIME(0))), 12),
        (call("EXTRACT", u("DAY"), interval_ms(3 * 86_400_000 + 5)), 3),
        (call("EXTRACT", u("MONTH"), interval_months(14)), 2),
        (call("WEEK", d), 39),
        (call("DAYOFYEAR", d), 270),
        (call("DAYOFWEEK", d), 3),
        (call("QUARTER", d), 3),
        (call("DAYOFMONTH", d), 27),
        (call("MINUTE", t), 45),
        (call("SECOND", t), 16),
        (call("WEEK", date("2021-01-03")), 53),  # ISO week of the previous year
    ])


def test_floor_ceil_and_intervals(spark):
    t = ts("2021-01-14 21:45:16.243")
    check(spark, [
        (call("FLOOR_TO", t, u("WEEK")), "2021-01-10 00:00:00"),  # weeks start on Sunday
        (call("FLOOR_TO", t, u("MONTH")), "2021-01-01 00:00:00"),
        (call("FLOOR_TO", t, u("SECOND")), "2021-01-14 21:45:16"),
        (call("CEIL_TO", t, u("DAY")), "2021-01-15 00:00:00"),
        (call("CEIL_TO", ts("2021-01-14 21:00:00"), u("HOUR")), "2021-01-14 21:00:00"),
        (call("CEIL_TO", date("2021-01-14"), u("MONTH")), "2021-02-01"),
        (call("FLOOR", t, u("YEAR")), "2021-01-01 00:00:00"),
        (call("FLOOR_TO", t, u("DECADE")), "2020-01-01 00:00:00"),
        (call("-", t, interval_ms(2 * 86_400_000)), "2021-01-12 21:45:16.243"),
        (call("+", t, interval_months(1)), "2021-02-14 21:45:16.243"),
        (call("+", ts("2021-01-31 10:00:00"), interval_months(1)), "2021-02-28 10:00:00"),
        (call("+", interval_ms(86_400_000), date("2021-01-31")), "2021-02-01"),
        (call("-", date("2021-03-31"), interval_months(1)), "2021-02-28"),
        (call("+", cast(lit("23:30:00"), T.TIME(0)), interval_ms(3_600_000)), "00:30:00"),
    ])


def test_timestampadd_and_diff(spark):
    check(spark, [
        (call("TIMESTAMPADD", u("MINUTE"), lit(90), ts("2021-01-14 21:45:16.243")),
         "2021-01-14 23:15:16.243"),
        (call("TIMESTAMPADD", u("MONTH"), lit(1), ts("2021-01-31 10:00:00")), "2021-02-28 10:00:00"),
        (call("TIMESTAMPADD", u("WEEK"), lit(1), date("2021-01-01")), "2021-01-08"),
        (call("TIMESTAMPADD", u("YEAR"), lit(-1), date("2020-02-29")), "2019-02-28"),
        (call("TIMESTAMPADD", u("SQL_TSI_HOUR"), lit(2), ts("2021-01-01 23:00:00")), "2021-01-02 01:00:00"),
        (call("TIMESTAMPDIFF", u("DAY"), ts("2021-01-02 12:00:00"), ts("2021-01-01 00:00:00")), -1),
        (call("TIMESTAMPDIFF", u("HOUR"), ts("2021-01-01 00:00:00"), ts("2021-01-01 05:59:59")), 5),
        (call("TIMESTAMPDIFF", u("SECOND"), date("2021-01-01"), ts("2021-01-01 00:01:00")), 60),
        (call("TIMESTAMPDIFF", u("MONTH"), ts("2021-01-31 00:00:00"), ts("2021-02-28 00:00:00")), 1),
        (call("TIMESTAMPDIFF", u("MONTH"), ts("2021-01-31 10:00:00"), ts("2021-02-28 09:00:00")), 0),
        (call("TIMESTAMPDIFF", u("MONTH"), ts("2021-03-15 00:00:00"), ts("2021-01-20 00:00:00")), -1),
        (call("TIMESTAMPDIFF", u("YEAR"), date("2020-02-29"), date("2021-02-28")), 1),
        (call("TIMESTAMPDIFF", u("QUARTER"), date("2021-01-01"), date("2021-12-31")), 3),
    ])


def test_parsing_and_formatting(spark):
    berlin = LowerContext(local_time_zone="Europe/Berlin")
    tokyo = LowerContext(local_time_zone="Asia/Tokyo")
    t = ts("2021-01-14 21:45:16.243")
    check(spark, [
        (call("DATE_FORMAT", t, lit("yyyy/MM/dd HH:mm:ss")), "2021/01/14 21:45:16"),
        (call("DATE_FORMAT", t, lit("yyyy-MM-dd HH:mm:ss.SSS")), "2021-01-14 21:45:16.243"),
        (call("DATE_FORMAT", t, lit("EEE, d MMM uuuu")), "Thu, 14 Jan 2021"),
        (call("DATE_FORMAT", lit("2021-01-14 21:45:16"), lit("yyyyMMdd")), "20210114"),
        (call("DATE_FORMAT", date("2021-01-14"), lit("yyyy-MM")), "2021-01"),
        (call("DATE_FORMAT", t, E(lit("yyyy").col, S())), "2021"),  # format from a column
        (call("TO_DATE", lit("2021-01-14")), "2021-01-14"),
        (call("TO_DATE", lit("20210114"), lit("yyyyMMdd")), "2021-01-14"),
        (call("TO_DATE", lit("garbage")), None),
        (call("TO_TIMESTAMP", lit("2021-01-14 21:45:16.123456")), "2021-01-14 21:45:16.123"),
        (call("TO_TIMESTAMP", lit("14/01/2021"), lit("dd/MM/yyyy")), "2021-01-14 00:00:00"),
        (call("TO_TIMESTAMP", lit("garbage")), None),
        (call("TO_TIMESTAMP_LTZ", lit(1000), lit(0)), "1970-01-01 00:16:40Z"),
        (call("TO_TIMESTAMP_LTZ", lit(1500), lit(3)), "1970-01-01 00:00:01.5Z"),
        (call("UNIX_TIMESTAMP", lit("1970-01-01 08:00:01.001"), lit("yyyy-MM-dd HH:mm:ss.SSS"),
              ctx=berlin), 25201),
        (call("UNIX_TIMESTAMP", lit("garbage")), -2 ** 63),
        (call("FROM_UNIXTIME", lit(44)), "1970-01-01 00:00:44"),
        (call("FROM_UNIXTIME", lit(44), ctx=tokyo), "1970-01-01 09:00:44"),
        (call("CONVERT_TZ", lit("1970-01-01 00:00:00"), lit("UTC"), lit("America/Los_Angeles")),
         "1969-12-31 16:00:00"),
        (call("IS NOT NULL", call("LOCALTIMESTAMP", ctx=tokyo)), True),
    ])


def test_current_time_functions_are_recent(spark):
    now, today = values(spark, call("CURRENT_TIMESTAMP"), call("CURRENT_DATE"))
    assert now.endswith("Z") and now[:10] == today
