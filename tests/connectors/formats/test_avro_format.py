"""Flink's avro format: the schema Flink derives, and records byte for byte as Flink 2.3 writes
them. The golden records were produced by Flink 2.3.0 (PyFlink, ``flink-sql-avro-2.3.0``,
the kafka connector, ``parallelism.default`` 1) from the rows of ``FLINK_INSERT`` below."""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from pyspark.sql import functions as F

from connectors.base import Options
from connectors.formats import avro as A
from connectors.formats import format_module
from sqlengine import types as T
from sqlengine.errors import ConnectorError

BYTES = T.DataType("VARBINARY", precision=T.MAX_VARCHAR)
ALL = [("i", T.INT()), ("b", T.BIGINT()), ("s", T.STRING()), ("ok", T.BOOLEAN()), ("d", T.DOUBLE()),
       ("f", T.DataType("FLOAT")), ("dc", T.DECIMAL(10, 2)), ("dt", T.DATE()), ("tme", T.TIME(0)),
       ("ts", T.TIMESTAMP(3)), ("bin", BYTES), ("ti", T.DataType("TINYINT")), ("si", T.DataType("SMALLINT")),
       ("arr", T.ARRAY(T.INT())), ("m", T.MAP(T.STRING(), T.INT())),
       ("r", T.ROW([("a", T.INT()), ("b", T.STRING()), ("g", T.ROW([("lat", T.DOUBLE())]))])), ("nn", T.INT(False))]
ALL_DDL = ("i INT, b BIGINT, s STRING, ok BOOLEAN, d DOUBLE, f FLOAT, dc DECIMAL(10, 2), dt DATE, tme TIME, "
           "ts TIMESTAMP(3), bin BYTES, ti TINYINT, si SMALLINT, arr ARRAY<INT>, m MAP<STRING, INT>, "
           "r ROW<a INT, b STRING, g ROW<lat DOUBLE>>, nn INT NOT NULL")
# The rows Flink wrote (INSERT INTO ... VALUES), and the same as a Spark SELECT (maps built in
# the same entry order: Flink's HashMap order depends on it for colliding keys, 'Aa'/'BB').
FLINK_VALUES = [
    "1, 10000000000, 'héllo', TRUE, 12.5, CAST(1.5 AS FLOAT), CAST(-123.45 AS DECIMAL(10, 2)), DATE '2021-01-14', "
    "TIME '21:45:16', TIMESTAMP '2020-04-15 08:05:00.123', X'00ff10', CAST(-3 AS TINYINT), CAST(300 AS SMALLINT), "
    "ARRAY[1, CAST(NULL AS INT), 3], MAP['a', 1, 'b', CAST(NULL AS INT), 'zz', 3, 'key4', 4, 'Aa', 5, 'BB', 6, 'c', 7], "
    "ROW(7, 'x', ROW(-36.6125)), 42",
    "CAST(NULL AS INT), CAST(NULL AS BIGINT), CAST(NULL AS STRING), CAST(NULL AS BOOLEAN), CAST(NULL AS DOUBLE), "
    "CAST(NULL AS FLOAT), CAST(NULL AS DECIMAL(10, 2)), CAST(NULL AS DATE), CAST(NULL AS TIME), "
    "CAST(NULL AS TIMESTAMP(3)), CAST(NULL AS BYTES), CAST(NULL AS TINYINT), CAST(NULL AS SMALLINT), "
    "CAST(NULL AS ARRAY<INT>), CAST(NULL AS MAP<STRING, INT>), CAST(NULL AS ROW<a INT, b STRING, g ROW<lat DOUBLE>>), -1",
    "-2147483648, -1, '', FALSE, 0.0, CAST(-1e10 AS FLOAT), CAST(99999999.99 AS DECIMAL(10, 2)), DATE '1969-12-31', "
    "TIME '00:00:00', TIMESTAMP '1969-12-31 23:59:59.999', X'', CAST(127 AS TINYINT), CAST(-32768 AS SMALLINT), "
    "CAST(ARRAY[CAST(NULL AS INT)] AS ARRAY<INT>), MAP['only', 0], "
    "ROW(CAST(NULL AS INT), CAST(NULL AS STRING), CAST(NULL AS ROW<lat DOUBLE>)), 0",
]
FLINK_BINARY = [
    "0202028090dfc04a020c68c3a96c6c6f0201020000000000002940020000c03f0204cfc702a2a30202c087d84a02b6b1f5cdaf5c0206"
    "00ff10020502d8040206020200020600020e047a7a0206044161020a044242020c026102020262000263020e086b65793402080002020e"
    "020278020266666666664e42c054",
    "0000000000000000000000000000000001",
    "02ffffffff0f02010200020002000000000000000002f90215d0020a02540be3ff020102000201020002fe0102ffff0302020000020208"
    "6f6e6c790200000200000000",
]
SPARK_SELECT = [
    "1, 10000000000L, 'héllo', true, 12.5D, 1.5F, -123.45BD, DATE'2021-01-14', 78316000, "
    "TIMESTAMP'2020-04-15 08:05:00.123', X'00ff10', -3Y, 300S, array(1, null, 3), "
    "map('a', 1, 'b', null, 'zz', 3, 'key4', 4, 'Aa', 5, 'BB', 6, 'c', 7), named_struct('a', 7, 'b', 'x', "
    "'g', named_struct('lat', -36.6125D)), 42",
    "null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, -1",
    "-2147483648, -1L, '', false, 0.0D, -1e10F, 99999999.99BD, DATE'1969-12-31', 0, "
    "TIMESTAMP'1969-12-31 23:59:59.999', X'', 127Y, -32768S, array(cast(null as int)), map('only', 0), "
    "named_struct('a', cast(null as int), 'b', cast(null as string), 'g', cast(null as struct<lat: double>)), 0",
]
# TIMESTAMP(3), TIMESTAMP_LTZ(3), DECIMAL(5, 0) with 'avro.timestamp_mapping.legacy' = 'false'.
LTZ = [("ts", T.TIMESTAMP(3)), ("ltz", T.TIMESTAMP_LTZ(3)), ("d", T.DECIMAL(5, 0))]
LTZ_BINARY = ["02b6b1f5cdaf5c02b6b1f5cdaf5c020200", "00000202ff"]

# The same rows with 'avro.encoding' = 'json' (Flink writes a newline before every record but a
# writer's first, not reproduced: see avro.py).
FLINK_JSON = [
    '{"i":{"int":1},"b":{"long":10000000000},"s":{"string":"héllo"},"ok":{"boolean":true},"d":{"double":12.5},"f":{"float":1.5},"dc":{"bytes":"ÏÇ"},"dt":{"int":18641},"tme":{"int":78316000},"ts":{"long":1586937900123},"bin":{"bytes":"\\u0000ÿ\\u0010"},"ti":{"int":-3},"si":{"int":300},"arr":{"array":[{"int":1},null,{"int":3}]},"m":{"map":{"zz":{"int":3},"Aa":{"int":5},"BB":{"int":6},"a":{"int":1},"b":null,"c":{"int":7},"key4":{"int":4}}},"r":{"org.apache.flink.avro.generated.record_r":{"a":{"int":7},"b":{"string":"x"},"g":{"org.apache.flink.avro.generated.record_r_g":{"lat":{"double":-36.6125}}}}},"nn":42}',
    '{"i":null,"b":null,"s":null,"ok":null,"d":null,"f":null,"dc":null,"dt":null,"tme":null,"ts":null,"bin":null,"ti":null,"si":null,"arr":null,"m":null,"r":null,"nn":-1}',
    '{"i":{"int":-2147483648},"b":{"long":-1},"s":{"string":""},"ok":{"boolean":false},"d":{"double":0.0},"f":{"float":-1.0E10},"dc":{"bytes":"\\u0002T\\u000Bãÿ"},"dt":{"int":-1},"tme":{"int":0},"ts":{"long":-1},"bin":{"bytes":""},"ti":{"int":127},"si":{"int":-32768},"arr":{"array":[null]},"m":{"map":{"only":{"int":0}}},"r":{"org.apache.flink.avro.generated.record_r":{"a":null,"b":null,"g":null}},"nn":0}',
]
LTZ_JSON = [
    '{"ts":{"long":1586937900123},"ltz":{"long":1586937900123},"d":{"bytes":"\\u0000"}}',
    '{"ts":null,"ltz":null,"d":{"bytes":"ÿ"}}',
]


def rows_df(spark, selects: list[str], columns):
    """A DataFrame of SQL rows, typed as the table's Spark columns."""
    df = spark.sql(" UNION ALL ".join(f"SELECT {s}" for s in selects))
    return df.toDF(*[n for n, _ in columns]).select(
        *[F.col(n).cast(t.to_spark()).alias(n) for n, t in columns])


def encode(df, columns, o=A.AvroOptions()):
    return [bytes(r[0]).hex() for r in df.select(A.encode_with([(F.col(n), t, n) for n, t in columns], o)).collect()]


def decode(spark, records: list[bytes], columns, o=A.AvroOptions()):
    df = spark.createDataFrame([(r,) for r in records], "v binary")
    d = A.decode_detailed(F.col("v"), columns, o)
    return df.select("*", *d.prelude).select(*d.columns, d.bad.alias("bad"), d.reason.alias("why")).collect()


def test_schema_is_flinks():
    cols = [("id", T.INT(False)), ("name", T.STRING()), ("price", T.DECIMAL(10, 2)), ("day", T.DATE()),
            ("t", T.TIME(0)), ("ts", T.TIMESTAMP(3)), ("r", T.ROW([("a", T.BIGINT()), ("q", T.ROW([("x", T.BOOLEAN())]))])),
            ("tags", T.ARRAY(T.STRING(False))), ("m", T.MAP(T.STRING(), T.DOUBLE()))]
    assert A.avro_schema(cols, legacy=True) == {"type": "record", "name": "org.apache.flink.avro.generated.record", "fields": [
        {"name": "id", "type": "int"},
        {"name": "name", "type": ["null", "string"], "default": None},
        {"name": "price", "type": ["null", {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}],
         "default": None},
        {"name": "day", "type": ["null", {"type": "int", "logicalType": "date"}], "default": None},
        {"name": "t", "type": ["null", {"type": "int", "logicalType": "time-millis"}], "default": None},
        {"name": "ts", "type": ["null", {"type": "long", "logicalType": "timestamp-millis"}], "default": None},
        {"name": "r", "type": ["null", {"type": "record", "name": "org.apache.flink.avro.generated.record_r", "fields": [
            {"name": "a", "type": ["null", "long"], "default": None},
            {"name": "q", "type": ["null", {"type": "record", "name": "org.apache.flink.avro.generated.record_r_q",
                                            "fields": [{"name": "x", "type": ["null", "boolean"], "default": None}]}],
             "default": None}]}], "default": None},
        {"name": "tags", "type": ["null", {"type": "array", "items": "string"}], "default": None},
        {"name": "m", "type": ["null", {"type": "map", "values": ["null", "double"]}], "default": None}]}
    fields = A.avro_schema(LTZ, legacy=False)["fields"]
    assert [f["type"][1]["logicalType"] for f in fields[:2]] == ["local-timestamp-millis", "timestamp-millis"]


@pytest.mark.parametrize("t, message", [
    (T.TIMESTAMP_LTZ(3), "Unsupported to derive Schema for type: TIMESTAMP_LTZ(3)"),
    (T.TIMESTAMP(6), "Avro does not support TIMESTAMP type with precision: 6"),
    (T.MAP(T.INT(), T.INT()), "Avro format doesn't support non-string as key type of map"),
])
def test_types_flink_cannot_map_are_errors(t, message):
    with pytest.raises(ConnectorError, match=message.replace("(", r"\(").replace(")", r"\)")):
        A.check_columns([("x", t)], "value.format")


def test_options():
    opts = Options("kafka", {"avro.encoding": "JSON", "avro.timestamp_mapping.legacy": "false"})
    assert A.parse_options(opts) == A.AvroOptions("json", False)
    with pytest.raises(ConnectorError, match="avro.encoding"):
        A.parse_options(Options("kafka", {"avro.encoding": "xml"}))


def test_encode_writes_flinks_bytes(spark):
    assert encode(rows_df(spark, SPARK_SELECT, ALL), ALL) == FLINK_BINARY


def test_decode_reads_flinks_bytes(spark):
    rows = decode(spark, [bytes.fromhex(h) for h in FLINK_BINARY], ALL)
    assert [r.bad for r in rows] == [False, False, False]
    r = rows[0]
    assert (r.i, r.b, r.s, r.ok, r.d, r.f, r.dc) == (1, 10000000000, "héllo", True, 12.5, 1.5, Decimal("-123.45"))
    assert (r.dt, r.tme, r.ts) == (dt.date(2021, 1, 14), 78316000, dt.datetime(2020, 4, 15, 8, 5, 0, 123000))
    assert (r.bin, r.ti, r.si, r.arr) == (b"\x00\xff\x10", -3, 300, [1, None, 3])
    assert r.m == {"a": 1, "b": None, "zz": 3, "key4": 4, "Aa": 5, "BB": 6, "c": 7}
    assert (r.r.a, r.r.b, r.r.g.lat, r.nn) == (7, "x", -36.6125, 42)
    assert list(rows[1])[:17] == [None] * 16 + [-1]
    r = rows[2]
    assert (r.i, r.dc, r.dt, r.ts) == (-2147483648, Decimal("99999999.99"), dt.date(1969, 12, 31),
                                        dt.datetime(1969, 12, 31, 23, 59, 59, 999000))
    assert (r.bin, r.arr, r.m, tuple(r.r)) == (b"", [None], {"only": 0}, (None, None, None))


def test_non_legacy_timestamps(spark):
    o = A.AvroOptions(legacy_timestamps=False)
    df = rows_df(spark, ["TIMESTAMP'2020-04-15 08:05:00.123', TIMESTAMP'2020-04-15 08:05:00.123', 0BD",
                         "null, null, -1BD"], LTZ)
    assert encode(df, LTZ, o) == LTZ_BINARY
    rows = decode(spark, [bytes.fromhex(h) for h in LTZ_BINARY], LTZ, o)
    assert [tuple(r)[:3] for r in rows] == [
        (dt.datetime(2020, 4, 15, 8, 5, 0, 123000), dt.datetime(2020, 4, 15, 8, 5, 0, 123000), Decimal(0)),
        (None, None, Decimal(-1))]


def test_bytes_that_do_not_decode_are_bad(spark):
    cols = [("i", T.INT(False)), ("s", T.STRING(False))]
    rows = decode(spark, [b"\x02\x06abc", b"\x02\x40ab", b"", None], cols)
    assert [(r.i, r.s, r.bad) for r in rows] == [(1, "abc", False), (None, None, True), (None, None, True),
                                                 (None, None, False)]
    assert rows[1].why == "Failed to deserialize Avro record."
    nullable = [("i", T.INT()), ("s", T.STRING())]
    rows = decode(spark, [b"\x00\x00", b"\x00\x00\xff", b"\x00\x02\x40", b"\x00"], nullable)
    assert [(r.i, r.s, r.bad) for r in rows] == [(None, None, False), (None, None, False), (None, None, True),
                                                 (None, None, True)]


def test_filesystem_does_not_take_avro():
    with pytest.raises(ConnectorError, match="'avro' of connector 'filesystem' is not supported yet"):
        format_module("avro", "filesystem")


def test_json_encoding_is_flinks(spark):
    o = A.AvroOptions("json")
    assert [bytes.fromhex(h).decode() for h in encode(rows_df(spark, SPARK_SELECT, ALL), ALL, o)] == FLINK_JSON
    as_binary = decode(spark, [bytes.fromhex(h) for h in FLINK_BINARY], ALL)
    # Flink's records as written (a leading newline on all but the first) decode to the same rows.
    as_json = decode(spark, [("\n" if i else "").encode() + r.encode() for i, r in enumerate(FLINK_JSON)], ALL, o)
    assert as_json == as_binary
    o = A.AvroOptions("json", legacy_timestamps=False)
    df = rows_df(spark, ["TIMESTAMP'2020-04-15 08:05:00.123', TIMESTAMP'2020-04-15 08:05:00.123', 0BD",
                         "null, null, -1BD"], LTZ)
    assert [bytes.fromhex(h).decode() for h in encode(df, LTZ, o)] == LTZ_JSON
    assert decode(spark, [r.encode() for r in LTZ_JSON], LTZ, o) == decode(
        spark, [bytes.fromhex(h) for h in LTZ_BINARY], LTZ, A.AvroOptions(legacy_timestamps=False))
    (row,) = decode(spark, [b"{oops"], [("i", T.INT())], A.AvroOptions("json"))
    assert row.bad is True


def test_map_entries_in_flinks_hashmap_order(spark):
    from connectors.formats.avro_json import hashmap_order
    keys = ["a", "b", "zz", "key4", "Aa", "BB", "c", "", "é", "polygenelubricants", "x" * 40] + [f"k{i}" for i in range(30)]
    df = spark.createDataFrame([(keys,)], "k array<string>").select(F.map_from_arrays("k", "k").alias("m"))
    got = [e.key for e in df.select(hashmap_order(F.col("m"))).collect()[0][0]]

    def java_order(ks):  # java.util.HashMap presized as Flink's CollectionUtil does
        n = len(ks)
        want = n + 1 if n <= 2 else -(-n * 4 // 3)
        cap = 1
        while cap < want:
            cap *= 2
        def h(s):
            v = 0
            data = s.encode("utf-16-be")
            for j in range(0, len(data), 2):
                v = (v * 31 + (data[j] << 8 | data[j + 1])) & 0xFFFFFFFF
            return (v ^ (v >> 16)) & (cap - 1)
        return [k for _, _, k in sorted((h(k), i, k) for i, k in enumerate(ks))]
    assert got == java_order(keys)
    assert java_order(["a", "b", "zz", "key4", "Aa", "BB", "c"]) == ["zz", "Aa", "BB", "a", "b", "c", "key4"]


def test_missing_jar_is_a_clear_error(tmp_path, monkeypatch):
    from connectors.formats import spark_avro
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv(spark_avro.ENV_JAR, raising=False)
    monkeypatch.setattr(spark_avro, "URL", "http://127.0.0.1:9/spark-avro.jar")
    with pytest.raises(ConnectorError, match="needs Spark's spark-avro module .* could not be downloaded"):
        spark_avro.fetch(timeout_s=5)
    monkeypatch.setenv(spark_avro.ENV_JAR, str(tmp_path / "nope.jar"))
    with pytest.raises(ConnectorError, match="is not a file"):
        spark_avro.fetch()
