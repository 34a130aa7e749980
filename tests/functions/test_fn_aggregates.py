"""Aggregates through Spark: Flink's result types and values, FILTER, DISTINCT, OVER windows."""
from __future__ import annotations

from decimal import Decimal

import pytest
from pyspark.sql import Window

from fnhelpers import CTX, agg, call, col, lit
from sqlengine import types as T
from sqlengine.functions import lookup_aggregate

COLUMNS = {"g": T.INT(), "x": T.INT(), "d": T.DECIMAL(10, 2), "s": T.STRING(),
           "b": T.BOOLEAN(), "v": T.DOUBLE()}
ROWS = [
    (1, 2147483647, Decimal("1.00"), "a", True, 1.0),
    (1, 1, Decimal("2.00"), None, True, 2.0),
    (1, None, Decimal("2.00"), "c", None, None),
    (2, -1, Decimal("0.01"), None, False, 4.0),
    (2, -2, None, None, True, 8.0),
]


@pytest.fixture(scope="module")
def df(spark):
    from pyspark.sql import types as st
    schema = st.StructType([st.StructField(n, t.to_spark()) for n, t in COLUMNS.items()])
    return spark.createDataFrame(ROWS, schema).coalesce(1)


@pytest.fixture(scope="module")
def c():
    return {n: col(n, t) for n, t in COLUMNS.items()}


def test_group_aggregates_follow_flink(df, c):
    x, d, s = c["x"], c["d"], c["s"]
    measures = {
        "n": agg("COUNT"),
        "n_big": agg("COUNT", filter=call(">", x, lit(1))),
        "n_pairs": agg("COUNT", x, s, distinct=True),
        "sum_x": agg("SUM", x),  # INT, wraps like Java
        "avg_x": agg("AVG", x),  # INT, truncated toward zero
        "sum_d": agg("SUM", d),
        "avg_d": agg("AVG", d),
        "avg_d_distinct": agg("AVG", d, distinct=True),
        "names": agg("LISTAGG", s, lit(";")),
        "first_s": agg("FIRST_VALUE", s),
        "last_s": agg("LAST_VALUE", s),
        "all_b": agg("BOOL_AND", c["b"]),
        "sd": agg("STDDEV_POP", c["v"]),
        "bag": agg("COLLECT", d),
        "max_s": agg("MAX", s, filter=call("IS NOT NULL", x)),
    }
    assert measures["sum_x"].type == T.INT() and measures["avg_x"].type == T.INT()
    assert measures["sum_d"].type == T.DECIMAL(38, 2) and measures["avg_d"].type == T.DECIMAL(38, 6)
    out = {r["g"]: r.asDict() for r in df.groupBy("g").agg(
        *[m.col.alias(k) for k, m in measures.items()]).collect()}
    one, two = out[1], out[2]
    assert (one["n"], one["n_big"], one["n_pairs"]) == (3, 1, 1)
    assert one["sum_x"] == -2147483648  # 2147483647 + 1 overflows an INT
    # the sum of an INT average is a BIGINT; (-3) / 2 truncates toward zero
    assert one["avg_x"] == 1073741824 and two["avg_x"] == -1
    assert one["sum_d"] == Decimal("5.00") and one["avg_d"] == Decimal("1.666667")
    assert one["avg_d_distinct"] == Decimal("1.500000")
    assert one["names"] == "a;c" and two["names"] is None
    assert (one["first_s"], one["last_s"]) == ("a", "c")
    assert one["all_b"] is True and two["all_b"] is False
    assert two["sd"] == pytest.approx(2.0)
    assert one["bag"] == {Decimal("1.00"): 1, Decimal("2.00"): 2}
    assert one["max_s"] == "a"


def test_aggregate_as_window_function(df, c):
    avg = lookup_aggregate("AVG")
    result = avg.infer([c["d"].arg], False)
    window = Window.partitionBy("g").orderBy("v").rowsBetween(-1, 0)
    column = avg.lower_over([c["d"].col], [c["d"].arg], result, False, None, CTX, window)
    rows = df.where("g = 1 and v is not null").select("v", column.alias("a")).orderBy("v").collect()
    assert [r["a"] for r in rows] == [Decimal("1.000000"), Decimal("1.500000")]


def test_count_star_filter_counts_rows_where_filter_is_true(df, c):
    flag = c["b"]  # NULL filter values must not count
    out = df.agg(agg("COUNT", filter=flag).col.alias("n"),
                 agg("SUM", c["x"], filter=call("NOT", flag)).col.alias("s")).collect()[0]
    assert out["n"] == 3 and out["s"] == -1
