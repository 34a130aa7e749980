"""Flink's JSON format: decode and encode every type against golden strings."""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from pyspark.sql import functions as F

from connectors.base import Options
from connectors.formats import json as J
from sqlengine import types as T
from sqlengine.errors import ConnectorError

BYTES = T.DataType("VARBINARY", precision=T.MAX_VARCHAR)
FLOAT = T.DataType("FLOAT")


def opts(**kv) -> J.JsonOptions:
    """JSON options from keyword arguments: ``ignore_parse_errors`` -> ``json.ignore-parse-errors``."""
    return J.parse_options(Options("filesystem", {"json." + k.replace("__", ".").replace("_", "-"): v
                                                  for k, v in kv.items()}))


def decode_rows(spark, lines, columns, o=None):
    df = spark.createDataFrame([(line,) for line in lines], "t string")
    d = J.decode_detailed(F.col("t"), columns, o or J.JsonOptions())
    return df.select("*", *d.prelude).select(*d.columns, d.bad.alias("bad"), d.reason.alias("why")).collect()


def encode_lines(spark, rows, columns, o=None, schema=None):
    df = spark.createDataFrame(rows, schema or ", ".join(f"`{n}` {t.to_spark().simpleString()}" for n, t in columns))
    line = J.encode_with([(F.col(f"`{n}`"), t, n) for n, t in columns], o or J.JsonOptions())
    return [r[0] for r in df.select(line).collect()]


ALL = [("i", T.INT()), ("b", T.BIGINT()), ("s", T.STRING()), ("d", T.DOUBLE()), ("f", FLOAT),
       ("dec", T.DECIMAL(10, 2)), ("ok", T.BOOLEAN()), ("ts", T.TIMESTAMP(3)), ("ltz", T.TIMESTAMP_LTZ(3)),
       ("day", T.DATE()), ("tm", T.TIME(0)), ("bin", BYTES),
       ("r", T.ROW([("a", T.INT()), ("t", T.TIMESTAMP(3)), ("g", T.ROW([("lat", T.DOUBLE())]))])),
       ("arr", T.ARRAY(T.TIMESTAMP(3))), ("m", T.MAP(T.STRING(), T.DECIMAL(5, 1)))]

LINE = ('{"i":1,"b":10000000000,"s":"a\\"b\\\\c\\n","d":12.0,"f":1.5,"dec":4.00,"ok":true,'
        '"ts":"2020-04-15 08:05:00","ltz":"2024-07-01 09:03:12.25Z","day":"2021-01-14","tm":"21:45:16",'
        '"bin":"aGVsbG8=","r":{"a":7,"t":"2020-04-15 08:09:59.999","g":{"lat":-36.6125}},'
        '"arr":["2020-01-01 00:00:00.5",null],"m":{"k":640,"j":null}}')


def test_decode_every_type(spark):
    (row,) = decode_rows(spark, [LINE], ALL)
    assert row.bad is False and row.why == ""
    assert (row.i, row.b, row.s, row.d, row.f) == (1, 10000000000, 'a"b\\c\n', 12.0, 1.5)
    assert row.dec == Decimal("4.00") and row.ok is True
    assert row.ts == dt.datetime(2020, 4, 15, 8, 5)
    assert row.ltz == dt.datetime(2024, 7, 1, 9, 3, 12, 250000)
    assert row.day == dt.date(2021, 1, 14) and row.tm == (21 * 3600 + 45 * 60 + 16) * 1000
    assert row.bin == b"hello"
    assert row.r.a == 7 and row.r.t == dt.datetime(2020, 4, 15, 8, 9, 59, 999000) and row.r.g.lat == -36.6125
    assert row.arr == [dt.datetime(2020, 1, 1, 0, 0, 0, 500000), None]
    assert row.m == {"k": Decimal("640.0"), "j": None}


def test_encode_round_trips_flink_text(spark):
    df = spark.createDataFrame([(LINE,)], "t string")
    cols, _ = J.decode(F.col("t"), ALL, Options("filesystem", {}))
    decoded = df.select(*cols)
    (line,) = [r[0] for r in decoded.select(J.encode([(F.col(n), t, n) for n, t in ALL],
                                                      Options("filesystem", {}))).collect()]
    assert line == (
        '{"i":1,"b":10000000000,"s":"a\\"b\\\\c\\n","d":12.0,"f":1.5,"dec":4,"ok":true,'
        '"ts":"2020-04-15 08:05:00","ltz":"2024-07-01 09:03:12.25Z","day":"2021-01-14","tm":"21:45:16",'
        '"bin":"aGVsbG8=","r":{"a":7,"t":"2020-04-15 08:09:59.999","g":{"lat":-36.6125}},'
        '"arr":["2020-01-01 00:00:00.5",null],"m":{"k":6.4E+2,"j":null}}')


def test_missing_and_null_fields(spark):
    rows = decode_rows(spark, ['{"i":null}', "{}"], [("i", T.INT()), ("s", T.STRING())])
    assert [(r.i, r.s, r.bad) for r in rows] == [(None, None, False), (None, None, False)]
    (line,) = encode_lines(spark, [(None, None)], [("i", T.INT()), ("s", T.STRING())])
    assert line == '{"i":null,"s":null}'


def test_flink_lenient_number_and_boolean_reading(spark):
    cols = [("i", T.INT()), ("d", T.DOUBLE()), ("ok", T.BOOLEAN()), ("s", T.STRING())]
    rows = decode_rows(spark, ['{"i":"12","d":"1.5","ok":"TRUE","s":5}', '{"i":1.9,"ok":"yes"}', '{"i":-2.7}'], cols)
    assert [(r.i, r.d, r.ok, r.s, r.bad) for r in rows] == [
        (12, 1.5, True, "5", False), (1, None, False, None, False), (-2, None, None, None, False)]


LENIENT_NESTED = [("i", T.INT()), ("r", T.ROW([("a", T.INT()), ("t", T.TIMESTAMP(3))])), ("arr", T.ARRAY(T.BIGINT())),
                  ("m", T.MAP(T.STRING(), T.DataType("SMALLINT"))), ("ok", T.BOOLEAN()), ("ts", T.TIMESTAMP(3))]


def test_lenient_reading_of_nested_values(spark):
    """Lines Spark's strict reading rejects (a string where a number belongs) take the
    lenient path, nested values included; a value it cannot convert is a field error."""
    lines = ['{"i":"7","r":{"a":"8","t":"2020-01-01 00:00:00"},"arr":["1",2.5,"-3"],"m":{"k":"4"},"ok":"true"}',
             '{"i":1,"r":{"a":"x","t":"2020-01-01 00:00:00"},"arr":[1]}', '{"i":"1","arr":["1","zz"]}',
             '{"i":"1","m":{"k":"70000"}}', '{"i":"1","r":{"a":1,"t":"bad"}}', '{"i":"1","ts":"bad"}',
             '{"i":"1","ok":5}', '{"i":[1]}']
    t0 = dt.datetime(2020, 1, 1)
    rows = decode_rows(spark, lines, LENIENT_NESTED)
    assert [tuple(r) for r in rows] == [
        (7, (8, t0), [1, 2, -3], {"k": 4}, True, None, False, ""),
        (1, (None, t0), [1], None, None, None, True, "Fail to deserialize at field: r."),
        (1, None, [1, None], None, None, None, True, "Fail to deserialize at field: arr."),
        (1, None, None, {"k": None}, None, None, True, "Fail to deserialize at field: m."),
        (1, (1, None), None, None, None, None, True, "Fail to deserialize at field: r."),
        (1, None, None, None, None, None, True, "Fail to deserialize at field: ts."),
        (1, None, None, None, False, None, False, ""),
        (None, None, None, None, None, None, True, "Fail to deserialize at field: i.")]
    ignoring = decode_rows(spark, lines, LENIENT_NESTED, opts(ignore_parse_errors="true"))
    assert [r.bad for r in ignoring] == [False] * len(lines)
    assert [tuple(r)[:6] for r in ignoring] == [tuple(r)[:6] for r in rows]


def test_lenient_path_is_not_in_the_generated_code(spark):
    """Good lines never take the lenient path, but its conversions were repeated in every
    value, check and reason: 264 KB of whole-stage Java for these four columns (42 KB
    now), compiled by Janino and then HotSpot for every query. Bound once and
    interpreted, they are out of the generated code."""
    cols = [("a", T.INT()), ("b", T.BIGINT()), ("d", T.DOUBLE()), ("ts", T.TIMESTAMP(3))]
    df = spark.createDataFrame([('{"a":1,"b":2,"d":1.5,"ts":"2020-01-01 00:00:00"}',), ('{"a":"3"}',)], "t string")
    d = J.decode_detailed(F.col("t"), cols, J.JsonOptions())
    out = df.select("*", *d.prelude).select(*d.columns, d.bad.alias("bad"))
    code = out._jdf.queryExecution().debug().codegenToSeq()
    assert sum(len(code.apply(i)._2()) for i in range(code.size())) < 80_000
    assert [tuple(r) for r in out.collect()] == [(1, 2, 1.5, dt.datetime(2020, 1, 1), False),
                                                 (3, None, None, None, False)]


FIELD_ERRORS = [('{"i":"abc"}', "i"), ('{"i":3000000000}', "i"), ('{"ts":"2020-04-15T08:05:00"}', "ts"),
                ('{"ts":"bad"}', "ts"), ('{"day":"2021-1-14"}', "day"), ('{"arr":[1]}', "arr")]


def test_field_errors_are_bad(spark):
    cols = [("i", T.INT()), ("ts", T.TIMESTAMP(3)), ("day", T.DATE()), ("arr", T.ARRAY(T.TIMESTAMP(3)))]
    rows = decode_rows(spark, [line for line, _ in FIELD_ERRORS], cols)
    for row, (line, field) in zip(rows, FIELD_ERRORS):
        assert row.bad is True and f"field: {field}." in row.why, line


def test_malformed_lines_are_bad(spark):
    cols = [("i", T.INT()), ("r", T.ROW([("a", T.INT())])), ("dec", T.DECIMAL(10, 2))]
    lines = ["nope", "[1,2]", "42", '{"i":}', '{"r":5}', '{"dec":"abc"}', "{'i':1}"]
    for row, line in zip(decode_rows(spark, lines, cols), lines):
        assert row.bad is True and "not a JSON object" in row.why, line


def test_blank_and_null_lines(spark):
    rows = decode_rows(spark, ["", "   ", None], [("i", T.INT())])
    assert [r.bad for r in rows] == [None, None, False]


def test_ignore_parse_errors_nulls_fields_and_skips_only_unreadable_lines(spark):
    cols = [("i", T.INT()), ("ts", T.TIMESTAMP(3)), ("s", T.STRING())]
    rows = decode_rows(spark, ['{"i":"x","ts":"bad","s":"kept"}', "garbage"], cols, opts(ignore_parse_errors="true"))
    assert [(r.i, r.ts, r.s, r.bad) for r in rows] == [(None, None, "kept", False), (None, None, None, True)]


def test_decimal_overflow_is_null_not_an_error(spark):
    (row,) = decode_rows(spark, ['{"dec":123456789012,"x":7.125}'], [("dec", T.DECIMAL(10, 2)), ("x", T.DECIMAL(10, 2))])
    assert (row.dec, row.x, row.bad) == (None, Decimal("7.13"), False)


def test_fail_on_missing_field(spark):
    cols = [("i", T.INT()), ("s", T.STRING())]
    rows = decode_rows(spark, ['{"i":1,"s":null}', '{"i":1}'], cols, opts(fail_on_missing_field="true"))
    assert [r.bad for r in rows] == [False, True]
    assert "missing" in rows[1].why


def test_iso_timestamps(spark):
    cols = [("ts", T.TIMESTAMP(3)), ("ltz", T.TIMESTAMP_LTZ(3))]
    o = opts(timestamp_format__standard="ISO-8601")
    (row,) = decode_rows(spark, ['{"ts":"2020-04-15T08:05","ltz":"2020-04-15T08:05:00.5Z"}'], cols, o)
    assert row.ts == dt.datetime(2020, 4, 15, 8, 5) and row.ltz == dt.datetime(2020, 4, 15, 8, 5, 0, 500000)
    (line,) = encode_lines(spark, [(row.ts, row.ltz)], cols, o)
    assert line == '{"ts":"2020-04-15T08:05:00","ltz":"2020-04-15T08:05:00.5Z"}'


TIMESTAMPS = [
    (dt.datetime(2020, 4, 15, 8, 5), "2020-04-15 08:05:00"),
    (dt.datetime(2020, 4, 15, 8, 9, 59, 999000), "2020-04-15 08:09:59.999"),
    (dt.datetime(2020, 4, 15, 8, 9, 59, 250000), "2020-04-15 08:09:59.25"),
    (dt.datetime(2020, 4, 15, 8, 9, 59, 500000), "2020-04-15 08:09:59.5"),
    (dt.datetime(2020, 4, 15, 8, 9, 59, 123456), "2020-04-15 08:09:59.123456"),
    (dt.datetime(1960, 1, 1, 0, 0, 0, 100000), "1960-01-01 00:00:00.1")]


def test_encode_timestamp(spark):
    cols = [("ts", T.TIMESTAMP(3)), ("ltz", T.TIMESTAMP_LTZ(3))]
    lines = encode_lines(spark, [(v, v) for v, _ in TIMESTAMPS], cols)
    assert lines == [f'{{"ts":"{text}","ltz":"{text}Z"}}' for _, text in TIMESTAMPS]


# (value, precision, scale, Flink's default text, text with json.encode.decimal-as-plain-number)
DECIMALS = [
    ("4.00", 10, 2, "4", "4"), ("422.70", 10, 2, "422.7", "422.7"), ("640", 10, 0, "6.4E+2", "640"),
    ("100", 10, 0, "1E+2", "100"), ("-640.00", 10, 2, "-6.4E+2", "-640"), ("0.00", 10, 2, "0", "0"),
    ("0", 10, 0, "0", "0"), ("12.5", 10, 2, "12.5", "12.5"), ("0.00000010", 10, 8, "1E-7", "0.0000001"),
    ("-0.00000012", 10, 8, "-1.2E-7", "-0.00000012"), ("0.000001", 10, 8, "0.000001", "0.000001"),
    ("0E-8", 10, 8, "0", "0"), ("12345678901234567890.123456789012345678", 38, 18,
                                "12345678901234567890.123456789012345678", "12345678901234567890.123456789012345678")]


def test_encode_decimal_like_jackson(spark):
    cols = [(f"x{i}", T.DECIMAL(p, s)) for i, (_, p, s, _, _) in enumerate(DECIMALS)]
    row = tuple(Decimal(v) for v, *_ in DECIMALS)
    (line,) = encode_lines(spark, [row], cols)
    assert line == "{" + ",".join(f'"x{i}":{d[3]}' for i, d in enumerate(DECIMALS)) + "}"
    (line,) = encode_lines(spark, [row], cols, opts(encode__decimal_as_plain_number="true"))
    assert line == "{" + ",".join(f'"x{i}":{d[4]}' for i, d in enumerate(DECIMALS)) + "}"


def test_encode_floating_point_like_java(spark):
    cols = [("d", T.DOUBLE()), ("f", FLOAT)]
    rows = [(12.0, 1.5), (1e10, 1e10), (0.1 + 0.2, 0.1), (3.3300000000000005, -0.0), (float("nan"), float("inf"))]
    assert encode_lines(spark, rows, cols) == [
        '{"d":12.0,"f":1.5}', '{"d":1.0E10,"f":1.0E10}', '{"d":0.30000000000000004,"f":0.1}',
        '{"d":3.3300000000000005,"f":-0.0}', '{"d":"NaN","f":"Infinity"}']


def test_encode_strings_escaped_like_jackson(spark):
    cols = [("s", T.STRING())]
    rows = [("plain",), ('q"uote',), ("back\\slash",), ("tab\tnl\ncr\r",), ("ctl\x01\x1f",), ("é/ü€",), ("",),
            ("[]]",), ("😀]",)]  # the JSON's brackets are cut from its bytes: a string's own stay
    assert encode_lines(spark, rows, cols) == [
        '{"s":"plain"}', '{"s":"q\\"uote"}', '{"s":"back\\\\slash"}', '{"s":"tab\\tnl\\ncr\\r"}',
        '{"s":"ctl\\u0001\\u001F"}', '{"s":"é/ü€"}', '{"s":""}', '{"s":"[]]"}', '{"s":"😀]"}']


def test_encode_nested_and_null_containers(spark):
    cols = [("r", T.ROW([("n", T.STRING()), ("i", T.INT()), ("d", T.DATE())])), ("a", T.ARRAY(T.ROW([("x", T.INT())]))),
            ("m", T.MAP(T.STRING(), T.ARRAY(T.INT()))), ("b", T.BOOLEAN()), ("tm", T.TIME(0)), ("bin", BYTES)]
    schema = "r struct<n:string,i:int,d:date>, a array<struct<x:int>>, m map<string,array<int>>, b boolean, tm int, bin binary"
    rows = [(("x", 1, dt.date(2021, 1, 14)), [(1,), None, (None,)], {"k": [1, None]}, False, 0, bytes(range(60))),
            (None, None, None, None, None, None), ((None, None, None), [], {}, True, 86399999, b"")]
    assert encode_lines(spark, rows, cols, schema=schema) == [
        '{"r":{"n":"x","i":1,"d":"2021-01-14"},"a":[{"x":1},null,{"x":null}],"m":{"k":[1,null]},"b":false,'
        '"tm":"00:00:00","bin":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7"}',
        '{"r":null,"a":null,"m":null,"b":null,"tm":null,"bin":null}',
        '{"r":{"n":null,"i":null,"d":null},"a":[],"m":{},"b":true,"tm":"23:59:59","bin":""}']


def test_encode_ignore_null_fields(spark):
    cols = [("a", T.INT()), ("r", T.ROW([("x", T.INT()), ("y", T.INT())])), ("b", T.INT())]
    o = opts(encode__ignore_null_fields="true")
    rows = [(None, (None, 2), 3), (None, None, None)]
    assert encode_lines(spark, rows, cols, o, schema="a int, r struct<x:int,y:int>, b int") == ['{"r":{"y":2},"b":3}', "{}"]


def test_field_names_are_escaped(spark):
    assert J.quote('a"b\x01') == '"a\\"b\\u0001"'


def test_options_are_validated():
    with pytest.raises(ConnectorError, match="shouldn't both be true"):
        opts(fail_on_missing_field="true", ignore_parse_errors="true")
    with pytest.raises(ConnectorError, match="Valid values: SQL, ISO-8601"):
        J.parse_options(Options("f", {"json.timestamp-format.standard": "RFC"}))
    with pytest.raises(ConnectorError, match="non-string as key type of map"):
        J.encode_with([(F.col("m"), T.MAP(T.INT(), T.INT()), "m")], J.JsonOptions())


def test_decode_pops_only_its_options():
    o = Options("filesystem", {"json.ignore-parse-errors": "true", "json.bogus": "1"})
    J.parse_options(o)
    with pytest.raises(ConnectorError, match="json.bogus"):
        o.finish()
