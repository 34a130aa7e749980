"""Key groups as Flink's ``KeyGroupRangeAssignment`` has them, and their routing on Spark
(``runtime/keygroups.py``): the default max-parallelism, the ranges, the task codes that
Spark's ``hashpartitioning`` sends where they name, and rows landing in their range."""
from __future__ import annotations

import pytest
from pyspark.sql import functions as F

from sqlengine.runtime import keygroups as K


@pytest.mark.parametrize("parallelism,expected", [(1, 128), (2, 128), (4, 128), (85, 128), (86, 256),
                                                   (100, 256), (1000, 2048), (30000, 32768)])
def test_default_max_parallelism_is_flinks(parallelism, expected):
    assert K.default_max_parallelism(parallelism) == expected


@pytest.mark.parametrize("parallelism", [1, 2, 3, 4, 7])
def test_ranges_partition_the_key_groups_as_flink_does(parallelism):
    ranges = [K.key_group_range(i, parallelism, 128) for i in range(parallelism)]
    assert [g for r in ranges for g in r] == list(range(128))  # contiguous, in order, complete
    for i, r in enumerate(ranges):
        assert all(K.operator_index(g, parallelism, 128) == i for g in r)
    if parallelism == 3:  # Flink: [0, 42], [43, 85], [86, 127]
        assert [(r.start, r.stop - 1) for r in ranges] == [(0, 42), (43, 85), (86, 127)]


def test_murmur3_is_sparks_hash(spark):
    values = [0, 1, -1, 7, 42, 2**31 - 1, -2**31, 123456789]
    rows = spark.createDataFrame([(v,) for v in values], "v int").select(F.hash("v").alias("h")).collect()
    assert [K.murmur3_int(v) for v in values] == [r.h for r in rows]


@pytest.mark.parametrize("parallelism", [1, 2, 3, 4, 5])
def test_rows_go_to_the_task_that_owns_their_key_group(spark, parallelism):
    df = spark.range(2000).select((F.col("id") % 997).alias("k"))
    routed = K.route(df, [F.col("k")], parallelism, 128)
    rows = routed.select(K.key_group([F.col("k")], 128).alias("kg"),
                         F.spark_partition_id().alias("p")).distinct().collect()
    assert routed.rdd.getNumPartitions() == parallelism
    assert {r.p for r in rows} == set(range(parallelism))
    assert all(r.p == K.operator_index(r.kg, parallelism, 128) for r in rows)
