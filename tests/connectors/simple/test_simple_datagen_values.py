"""datagen: generated values (batch mode: ``spark.range`` + expressions of the row id)."""
from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

from sqlengine import types as T

from simple_helpers import scan_datagen

HEX = re.compile(r"^[0-9a-f]*$")


def rows(spark, columns, options, **kw):
    result = scan_datagen(spark, columns, options, **kw)
    return result, [r.asDict(recursive=True) for r in result.df.collect()]


def test_sequence_bounds_the_source(spark):
    cols = [("id", T.BIGINT()), ("s", T.STRING()), ("t", T.DataType("TINYINT"))]
    opts = {"fields.id.kind": "sequence", "fields.id.start": "50", "fields.id.end": "60",
            "fields.s.kind": "sequence", "fields.s.start": "1", "fields.s.end": "100",
            "fields.t.kind": "sequence", "fields.t.start": "-3", "fields.t.end": "20"}
    _, out = rows(spark, cols, opts)
    assert sorted(r["id"] for r in out) == list(range(50, 61))  # the smallest range wins
    by_id = {r["id"]: r for r in out}
    assert by_id[50]["s"] == "1" and by_id[60]["s"] == "11" and by_id[52]["t"] == -1
    assert not any(r["__eoi"] for r in out)


def test_number_of_rows_wins_when_smaller(spark):
    cols = [("id", T.INT())]
    opts = {"number-of-rows": "5", "fields.id.kind": "sequence", "fields.id.start": "0", "fields.id.end": "100"}
    assert sorted(r["id"] for r in rows(spark, cols, opts)[1]) == [0, 1, 2, 3, 4]
    assert rows(spark, cols, {"number-of-rows": "0"})[1] == []


def test_sequence_of_other_types(spark):
    cols = [("b", T.DataType("VARBINARY")), ("d", T.DECIMAL(5, 2)), ("f", T.DOUBLE())]
    opts = {f"fields.{c}.{k}": v for c in "bdf" for k, v in (("kind", "sequence"), ("start", "255"), ("end", "256"))}
    out = sorted(rows(spark, cols, opts)[1], key=lambda r: r["f"])
    assert out[0]["b"] == bytes([0, 0, 0, 0, 0, 0, 0, 255]) and out[1]["b"][-2:] == bytes([1, 0])
    assert out[0]["d"] == Decimal("255.00") and out[1]["f"] == 256.0


def test_random_numbers_stay_in_bounds(spark):
    cols = [("i", T.INT()), ("b", T.BIGINT()), ("s", T.DataType("SMALLINT")), ("d", T.DOUBLE()),
            ("f", T.DataType("FLOAT")), ("dec", T.DECIMAL(4, 2)), ("full", T.BIGINT()), ("flag", T.BOOLEAN())]
    opts = {"number-of-rows": "2000", "fields.i.min": "-5", "fields.i.max": "5", "fields.b.min": "10",
            "fields.b.max": "10", "fields.s.min": "0", "fields.s.max": "1", "fields.d.min": "0.5",
            "fields.d.max": "0.75", "fields.f.min": "-1", "fields.f.max": "1"}
    _, out = rows(spark, cols, opts)
    assert {r["i"] for r in out} == set(range(-5, 6))  # inclusive bounds, all values hit
    assert {r["b"] for r in out} == {10} and {r["s"] for r in out} == {0, 1}
    assert all(0.5 <= r["d"] < 0.75 and -1 <= r["f"] <= 1 for r in out)
    assert all(Decimal("0") < r["dec"] <= Decimal("99.99") for r in out)  # Flink: [MIN_VALUE, 99.99]
    assert len({r["full"] for r in out}) == 2000 and {r["flag"] for r in out} == {True, False}


def test_strings_and_bytes_follow_flink_lengths(spark):
    cols = [("s", T.STRING()), ("v", T.VARCHAR(30)), ("c", T.CHAR(7)), ("l", T.STRING()),
            ("var", T.STRING()), ("by", T.DataType("VARBINARY")), ("vb", T.DataType("VARBINARY", precision=4))]
    opts = {"number-of-rows": "300", "fields.l.length": "300", "fields.var.var-len": "true",
            "fields.var.length": "20"}
    _, out = rows(spark, cols, opts)
    assert {len(r["s"]) for r in out} == {100} and {len(r["v"]) for r in out} == {30}
    assert {len(r["c"]) for r in out} == {7} and {len(r["l"]) for r in out} == {300}
    assert all(HEX.match(r[k]) for r in out for k in ("s", "v", "c", "l"))
    var_lengths = {len(r["var"]) for r in out}
    assert min(var_lengths) >= 1 and max(var_lengths) <= 20 and len(var_lengths) > 5
    assert {len(r["by"]) for r in out} == {100} and {len(r["vb"]) for r in out} == {4}
    assert len({r["s"] for r in out}) == 300


def test_null_rate(spark):
    cols = [("a", T.INT()), ("b", T.STRING()), ("c", T.ARRAY(T.INT()))]
    opts = {"number-of-rows": "1000", "fields.a.null-rate": "1", "fields.b.null-rate": "0.5",
            "fields.c.element.null-rate": "1"}
    _, out = rows(spark, cols, opts)
    assert all(r["a"] is None for r in out)
    assert 350 < sum(r["b"] is None for r in out) < 650
    assert all(r["c"] == [None, None, None] for r in out)


def test_time_types_are_now_minus_max_past(spark):
    cols = [("ts", T.TIMESTAMP(3)), ("ltz", T.TIMESTAMP_LTZ(3)), ("d", T.DATE()), ("t", T.TIME())]
    before = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    _, out = rows(spark, cols, {"number-of-rows": "200", "fields.ts.max-past": "1 min"})
    after = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    slack = dt.timedelta(seconds=1)
    assert all(before - dt.timedelta(minutes=1) - slack <= r["ts"] <= after + slack for r in out)
    assert len({r["ts"] for r in out}) > 100  # spread over the minute
    assert all(r["ts"].microsecond % 1000 == 0 for r in out)  # millisecond values
    assert all(before - slack <= r["ltz"] <= after + slack for r in out)
    assert {r["d"] for r in out} <= {before.date(), after.date()}
    assert all(0 <= r["t"] < 86_400_000 and r["t"] % 1000 == 0 for r in out)  # TIME(0)


def test_nested_types_take_options_under_their_paths(spark):
    row = T.ROW([("x", T.INT()), ("y", T.STRING())])
    cols = [("arr", T.ARRAY(T.INT())), ("m", T.MAP(T.STRING(), T.INT())), ("r", row),
            ("ms", T.DataType("MULTISET", element=T.INT()))]
    opts = {"number-of-rows": "100", "fields.arr.length": "5", "fields.arr.element.min": "1",
            "fields.arr.element.max": "3", "fields.m.length": "4", "fields.m.key.length": "1",
            "fields.r.x.min": "7", "fields.r.x.max": "7", "fields.r.y.length": "2",
            "fields.ms.element.min": "0", "fields.ms.element.max": "1"}
    _, out = rows(spark, cols, opts)
    assert all(len(r["arr"]) == 5 and set(r["arr"]) <= {1, 2, 3} for r in out)
    assert all(1 <= len(r["m"]) <= 4 and all(len(k) == 1 for k in r["m"]) for r in out)
    assert any(len(r["m"]) < 4 for r in out)  # duplicate keys collapse, as in a HashMap
    assert all(r["r"]["x"] == 7 and len(r["r"]["y"]) == 2 for r in out)
    assert all(set(r["ms"]) <= {0, 1} and all(0 <= n <= 10 for n in r["ms"].values()) for r in out)


def test_rows_are_a_function_of_the_row_id(spark):
    cols = [("id", T.BIGINT()), ("a", T.INT()), ("s", T.STRING()), ("arr", T.ARRAY(T.DOUBLE()))]
    opts = {"fields.id.kind": "sequence", "fields.id.start": "0", "fields.id.end": "499"}
    first = sorted(rows(spark, cols, opts, parallelism=1)[1], key=lambda r: r["id"])
    again = sorted(rows(spark, cols, opts, parallelism=3)[1], key=lambda r: r["id"])
    assert first == again  # same rows whatever the partitioning
    other = sorted(rows(spark, cols, opts, table="default_catalog.default_database.U")[1],
                   key=lambda r: r["id"])
    assert [r["a"] for r in other] != [r["a"] for r in first]  # another table, other values
    assert len({r["a"] for r in first}) == 500


def test_explain_names_the_plan(spark):
    result, _ = rows(spark, [("id", T.INT())], {"number-of-rows": "3", "scan.parallelism": "1"})
    assert result.explain == ("DataGenTableSource(table=[default_catalog.default_database.T], "
                              "fields=[id:random], rows=3, spark=range(0, 3, numPartitions=1))")
    assert result.df.rdd.getNumPartitions() == 1
