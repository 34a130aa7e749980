"""Flink's CSV format: decoding, Jackson's quoting on encoding, and the round trip."""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from pyspark.sql import functions as F

from connectors.base import Options
from connectors.formats import csv as CSV
from sqlengine import types as T
from sqlengine.errors import ConnectorError

COLS = [("id", T.INT()), ("name", T.STRING()), ("score", T.DOUBLE()), ("ts", T.TIMESTAMP(3)), ("day", T.DATE()),
        ("tm", T.TIME(0)), ("dec", T.DECIMAL(10, 2)), ("ok", T.BOOLEAN()), ("arr", T.ARRAY(T.INT())),
        ("r", T.ROW([("a", T.INT()), ("b", T.STRING())]))]


def opts(**kv) -> CSV.CsvOptions:
    return CSV.parse_options(Options("filesystem", {"csv." + k.replace("_", "-"): v for k, v in kv.items()}))


def decode_rows(spark, lines, columns=COLS, o=None):
    df = spark.createDataFrame([(line,) for line in lines], "t string")
    d = CSV.decode_detailed(F.col("t"), columns, o or CSV.CsvOptions())
    return df.select(*d.columns, d.bad.alias("bad"), d.reason.alias("why")).collect()


def test_decode_types_quotes_and_empty_fields(spark):
    rows = decode_rows(spark, [
        '1,"a ""b"", c",12.0,"2020-04-15 08:05:00",2021-01-14,21:45:16,4.00,true,1;2;3,5;x',
        '2,,,,,,,,,',
        ' 3 ,x,1e1, 2020-04-15 08:05:00.5 ,2021-1-4,01:02,1.005,TRUE,7,;'])
    r1, r2, r3 = rows
    assert tuple(r1) == (1, 'a "b", c', 12.0, dt.datetime(2020, 4, 15, 8, 5), dt.date(2021, 1, 14),
                         78316000, Decimal("4.00"), True, [1, 2, 3], (5, "x"), False, "")
    assert tuple(r2)[:11] == (2, "", None, None, None, None, None, None, None, None, False)
    assert tuple(r3)[:11] == (3, "x", 10.0, dt.datetime(2020, 4, 15, 8, 5, 0, 500000), dt.date(2021, 1, 4),
                              3720000, Decimal("1.01"), True, [7], (None, ""), False)


def test_decode_errors(spark):
    lines = ["1,abc", "x,y,z,w,v,u,t,s,r,q", '5,"open,1,2,3,4,5,6,7,8', "1.5,a,,,,,,,,"]
    rows = decode_rows(spark, lines)
    assert [r.bad for r in rows] == [True, True, True, True]
    assert "Row length mismatch. 10 fields expected but was 2." in rows[0].why
    assert "field: id." in rows[1].why and "field: ts." in rows[1].why
    assert "Unbalanced quotes." in rows[2].why
    assert "field: id." in rows[3].why  # CSV integers are not truncated (Integer.parseInt)
    ignored = decode_rows(spark, lines, o=opts(ignore_parse_errors="true"))
    assert [r.bad for r in ignored] == [False, False, True, False]
    assert (ignored[0].id, ignored[0].name, ignored[0].score) == (1, "abc", None)


def test_comments_blank_lines_and_null_literal(spark):
    o = opts(allow_comments="true", null_literal="\\N")
    rows = decode_rows(spark, ["# a comment", "", "1,\\N,\\N,,,,,,,"], o=o)
    assert [r.bad for r in rows] == [None, None, False]
    assert (rows[2].id, rows[2].name, rows[2].score) == (1, None, None)


def test_custom_delimiter_quote_and_escape(spark):
    cols = [("a", T.STRING()), ("b", T.STRING()), ("c", T.INT())]
    o = opts(field_delimiter="\\t", quote_character="'", escape_character="\\\\")
    rows = decode_rows(spark, ["x\\ty\t'q''t\ty'\t3", "p\\'q\tz\t4"], cols, o)
    assert [tuple(r)[:4] for r in rows] == [("x\ty", "q't\ty", 3, False), ("p'q", "z", 4, False)]
    rows = decode_rows(spark, ['"a","b",1'], cols, opts(disable_quote_character="true"))
    assert tuple(rows[0])[:4] == ('"a"', '"b"', 1, False)


def encode(spark, rows, columns, o=None, schema=None):
    df = spark.createDataFrame(rows, schema)
    line = CSV.encode_with([(F.col(n), t, n) for n, t in columns], o or CSV.CsvOptions())
    return [r[0] for r in df.select(line).collect()]


def test_encode_quotes_like_jackson(spark):
    cols = [("s", T.STRING())]
    values = ["abc", "a b", "a,b", 'q"q', "", "x" * 24, "x" * 25, "dash-dot.colon:", "#hash", "tab\t", "é"]
    got = encode(spark, [(v,) for v in values], cols, schema="s string")
    assert got == ["abc", '"a b"', '"a,b"', '"q""q"', "", "x" * 24, '"' + "x" * 25 + '"', "dash-dot.colon:",
                   '"#hash"', '"tab\t"', "é"]


def test_encode_types(spark):
    schema = ("id int, name string, score double, ts timestamp, day date, tm int, dec decimal(10,2), ok boolean, "
              "arr array<int>, r struct<a:int,b:string>")
    rows = [(1, "Bob", 12.0, dt.datetime(2020, 4, 15, 8, 5, 0, 250000), dt.date(2021, 1, 14), 3723500,
             Decimal("640.00"), True, [1, None, 3], (5, "x y")),
            (None, None, None, None, None, None, None, None, None, None)]
    assert encode(spark, rows, COLS, schema=schema) == [
        '1,Bob,12.0,"2020-04-15 08:05:00.25",2021-01-14,01:02:03.5,6.4E+2,true,1;;3,"5;x y"', ",,,,,,,,,"]
    o = opts(null_literal="null", write_bigdecimal_in_scientific_notation="false", field_delimiter="|")
    # '|' is above every letter: Jackson's loose check quotes every text value then.
    assert encode(spark, rows, COLS, o, schema=schema) == [
        '1|"Bob"|12.0|"2020-04-15 08:05:00.25"|"2021-01-14"|"01:02:03.5"|640|true|"1;null;3"|"5;x y"',
        "|".join(["null"] * 10)]


def test_round_trip(spark):
    schema = ("id int, name string, score double, ts timestamp, day date, tm int, dec decimal(10,2), ok boolean, "
              "arr array<int>, r struct<a:int,b:string>")
    rows = [(1, 'a "quoted", text', -1.5e-7, dt.datetime(2020, 4, 15, 8, 5, 0, 123000), dt.date(1999, 12, 31),
             0, Decimal("-0.01"), False, [1, 2], (7, "s")),
            (2, "", None, None, None, None, None, None, None, None)]
    df = spark.createDataFrame(rows, schema)
    o = CSV.CsvOptions()
    lines = df.select(CSV.encode_with([(F.col(n), t, n) for n, t in COLS], o).alias("t"))
    d = CSV.decode_detailed(F.col("t"), COLS, o)
    back = [tuple(r) for r in lines.select(*d.columns, d.bad).collect()]
    assert back[0] == rows[0] + (False,)
    assert back[1] == rows[1] + (False,)


def test_options_are_validated():
    with pytest.raises(ConnectorError, match="single character"):
        opts(field_delimiter=";;")
    with pytest.raises(ConnectorError, match="quote character and disabled quote character"):
        opts(quote_character="'", disable_quote_character="true")
    with pytest.raises(ConnectorError, match="CSV format doesn't support type MAP"):
        CSV.encode_with([(F.col("m"), T.MAP(T.STRING(), T.INT()), "m")], CSV.CsvOptions())
