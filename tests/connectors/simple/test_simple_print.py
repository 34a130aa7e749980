"""print sink: lines exactly as Flink's print connector writes them."""
from __future__ import annotations

import datetime as dt
import random
from decimal import Decimal

import pytest
from pyspark.sql import functions as F

import connectors.printsink as printsink
from connectors.base import EOI, Options, SinkContext
from connectors.printsink.rowstring import value_text
from sqlengine import types as T
from sqlengine.errors import ConnectorError

from simple_helpers import scan_datagen

ROW = T.ROW([("x", T.INT()), ("y", T.STRING())])
COLS = [("id", T.INT()), ("name", T.STRING()), ("ts", T.TIMESTAMP(3)), ("ltz", T.TIMESTAMP_LTZ(3)),
        ("d", T.DATE()), ("t", T.TIME()), ("dec", T.DECIMAL(10, 2)), ("dbl", T.DOUBLE()),
        ("b", T.BOOLEAN()), ("by", T.DataType("VARBINARY")), ("arr", T.ARRAY(T.INT())),
        ("m", T.MAP(T.STRING(), T.INT())), ("r", ROW), ("rows", T.ARRAY(ROW))]
FULL = (1, "Bob", dt.datetime(2020, 4, 15, 8, 0), dt.datetime(2020, 4, 15, 8, 0, 1, 500000),
        dt.date(2020, 4, 15), 8 * 3_600_000 + 5, Decimal("1.50"), 1e10, True, bytes([1, 255, 0]),
        [1, None, 3], {"a": 1, "b": 2, "zz": 3, "ab": 4}, (1, None), [(2, "x"), None])
FULL_TEXT = ("[1, Bob, 2020-04-15T08:00, 2020-04-15T08:00:01.500Z, 2020-04-15, 08:00:00.005, 1.50, "
             "1.0E10, true, [1, -1, 0], [1, null, 3], {zz=3, a=1, ab=4, b=2}, +I[1, null], "
             "[+I[2, x], null]]")
NULLS_TEXT = "[" + ", ".join(["null"] * len(COLS)) + "]"


def frame(spark, rows, with_op=False):
    schema = ", ".join(f"{n} {t.to_spark().simpleString()}" for n, t in COLS)
    df = spark.createDataFrame(rows, schema + (", __op string" if with_op else ""))
    # map(...) keeps insertion order (a Python dict's order is lost on the way in)
    return df.withColumn("m", F.when(F.col("id").isNotNull(), F.create_map(
        *[F.lit(x) for kv in (("a", 1), ("b", 2), ("zz", 3), ("ab", 4)) for x in kv])))


def sink(spark, options=None, parallelism=1, updating=False, columns=COLS):
    opts = Options("print", {"connector": "print", **(options or {})})
    return printsink.FACTORY.sink(SinkContext(spark, False, parallelism, "T", columns, opts, updating))


def printed(capfd) -> list[str]:
    return capfd.readouterr().out.splitlines()


def test_values_rows_and_nulls(spark, capfd):
    sink(spark).write_batch(frame(spark, [FULL, (None,) * len(COLS)]))
    assert printed(capfd) == ["+I" + FULL_TEXT, "+I" + NULLS_TEXT]


def test_row_kinds_come_from_op(spark, capfd):
    rows = [FULL + (kind,) for kind in ("+I", "-U", "+U", "-D")]
    sink(spark, updating=True).write_batch(frame(spark, rows, with_op=True).coalesce(1))
    assert printed(capfd) == [kind + FULL_TEXT for kind in ("+I", "-U", "+U", "-D")]


def test_identifier_and_task_prefixes(spark, capfd):
    df = frame(spark, [FULL]).coalesce(1)
    sink(spark, {"print-identifier": "out"}).write_batch(df)
    sink(spark, {"print-identifier": "out"}, parallelism=2).write_batch(df)
    sink(spark, {}, parallelism=2).write_batch(df)
    sink(spark, {"print-identifier": "out", "sink.parallelism": "1"}, parallelism=4).write_batch(df)
    assert printed(capfd) == ["out> +I" + FULL_TEXT, "out:1> +I" + FULL_TEXT, "1> +I" + FULL_TEXT,
                              "out> +I" + FULL_TEXT]


def test_standard_error(spark, capfd):
    sink(spark, {"standard-error": "true"}).write_batch(frame(spark, [FULL]))
    captured = capfd.readouterr()
    assert captured.out == "" and captured.err.splitlines() == ["+I" + FULL_TEXT]


def test_options_are_validated(spark):
    with pytest.raises(ConnectorError, match="Unsupported options:\n\nprint-ident"):
        printsink.FACTORY.validate_sink_options({"connector": "print", "print-ident": "x"})
    with pytest.raises(ConnectorError, match="standard-error"):
        sink(spark, {"standard-error": "yes"})
    assert sink(spark, {"standard-error": "true"}).explain == "Print to System.err"


def texts(spark, values, dtype):
    df = spark.createDataFrame([(v,) for v in values], f"v {dtype.to_spark().simpleString()}")
    return [r[0] for r in df.select(value_text(F.col("v"), dtype)).collect()]


def test_time_values_match_java_time(spark):
    jt = spark._jvm.java.time
    stamps = [dt.datetime(2020, 4, 15, 8, 0), dt.datetime(2020, 4, 15, 8, 0, 1),
              dt.datetime(2020, 4, 15, 8, 0, 0, 120000), dt.datetime(1969, 12, 31, 23, 59, 59, 999001),
              dt.datetime(2020, 1, 1, 0, 0, 0, 1)]
    java = [jt.LocalDateTime.of(s.year, s.month, s.day, s.hour, s.minute, s.second, s.microsecond * 1000).toString()
            for s in stamps]
    assert texts(spark, stamps, T.TIMESTAMP(6)) == java
    instants = [jt.Instant.ofEpochSecond(int(s.replace(tzinfo=dt.timezone.utc).timestamp() // 1),
                                         s.microsecond * 1000).toString() for s in stamps]
    assert texts(spark, stamps, T.TIMESTAMP_LTZ(6)) == instants
    millis = [0, 60_000, 61_000, 3_600_000 + 1, 86_399_999, 45_296_780]
    assert texts(spark, millis, T.TIME(3)) == [jt.LocalTime.ofNanoOfDay(m * 10**6).toString() for m in millis]


def test_intervals_match_java_time(spark):
    jt = spark._jvm.java.time
    millis = [0, 1, 999, 1000, -1, -500, -1500, 61_000, 3_600_000, 29_172_345, -29_172_345, 86_400_000 * 3 + 7]
    assert texts(spark, millis, T.INTERVAL_MS()) == [jt.Duration.ofMillis(m).toString() for m in millis]
    months = [0, 1, 12, 14, -14, 25]
    expected = [jt.Period.of(int(m / 12), int(m - int(m / 12) * 12), 0).toString() for m in months]
    assert texts(spark, months, T.INTERVAL_MONTHS()) == expected


def test_bytes_match_arrays_to_string(spark):
    values = [b"", bytes([0, 127, 128, 255]), bytes(range(0, 256, 17))]
    java = [spark._jvm.java.util.Arrays.toString(bytearray(v)) for v in values]
    assert texts(spark, values, T.DataType("VARBINARY")) == java


@pytest.mark.parametrize("key_type", ["string", "int", "bigint", "boolean"])
def test_map_order_matches_java_hashmap(spark, key_type):
    rnd = random.Random(7)
    jvm = spark._jvm
    pools = {"string": lambda: "".join(rnd.choice("abcXYZé😀 ") for _ in range(rnd.randint(0, 6))),
             "int": lambda: rnd.randint(-2**31, 2**31 - 1), "bigint": lambda: rnd.randint(-2**63, 2**63 - 1),
             "boolean": lambda: rnd.random() < 0.5}
    boxed = {"string": str, "int": jvm.java.lang.Integer.valueOf,
             "bigint": lambda k: jvm.java.lang.Long.valueOf(str(k)), "boolean": jvm.java.lang.Boolean.valueOf}
    maps = [list(dict.fromkeys(pools[key_type]() for _ in range(n))) for n in (1, 3, 12, 13, 30, 70)]
    dtype = T.MAP({"string": T.STRING(), "int": T.INT(), "bigint": T.BIGINT(), "boolean": T.BOOLEAN()}[key_type],
                  T.INT())
    df = spark.createDataFrame([(keys,) for keys in maps], f"k array<{key_type}>")
    df = df.select(F.map_from_arrays("k", F.transform("k", lambda _, i: i)).alias("v"))
    ours = [r[0] for r in df.select(value_text(F.col("v"), dtype)).collect()]
    for keys, text in zip(maps, ours):
        java_map = jvm.java.util.HashMap()
        for i, k in enumerate(keys):
            java_map.put(boxed[key_type](k), jvm.java.lang.Integer.valueOf(i))
        expected = java_map.toString()
        if key_type == "boolean":
            expected = expected.replace("True", "true").replace("False", "false")
        assert text == expected


def test_streaming_prints_each_epoch(spark, capfd):
    cols = [("id", T.BIGINT()), ("s", T.STRING())]
    source = scan_datagen(spark, cols, {"number-of-rows": "12", "fields.id.kind": "sequence",
                                        "fields.id.start": "1", "fields.id.end": "100", "fields.s.length": "3"})
    rows = source.df.where(~F.col(EOI)).drop(EOI)
    printer = sink(spark, {"print-identifier": "p"}, columns=cols)
    printer.write_epoch(rows.where("id <= 5"), 0, "q")
    printer.write_epoch(rows.where("id > 5"), 1, "q")
    lines = printed(capfd)
    assert sorted(int(line.split("[")[1].split(",")[0]) for line in lines) == list(range(1, 13))
    assert all(line.startswith("p> +I[") and len(line.split(", ")[1]) == 4 for line in lines)


def test_column_names_with_dots_and_backticks(spark, capfd):
    cols = [("a.b", T.INT()), ("we`ird", T.STRING())]
    df = spark.createDataFrame([(1, "x")], "`a.b` int, `we``ird` string")
    sink(spark, columns=cols).write_batch(df)
    assert printed(capfd) == ["+I[1, x]"]
