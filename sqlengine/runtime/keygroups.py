"""Key groups, as Flink has them (``KeyGroupRangeAssignment``), routed on Spark.

A key's *key group* is ``pmod(hash(key), max-parallelism)`` (Spark's Murmur3 ``hash``,
the same everywhere a key is hashed: exchanges and state). A stateful stage runs
``parallelism`` tasks; task *i* owns the contiguous range of key groups Flink's range
assignment gives it (``key_group_range``), and a key group's rows go to task
``kg * parallelism // max-parallelism`` (``operator_index``). State is stored by key
group, so a job may restart with another parallelism: the ranges move, the state stays.

Spark has no partitioner that sends a row to a partition it names and that its planner
also takes as a distribution of the keys, so a hash exchange is routed through a
column: ``__task`` holds, per row, an integer *code* of its task, chosen so that
Spark's own ``hashpartitioning(__task, parallelism)`` puts it in partition *i*
(``task_codes``). Operators keep ``__task`` among the keys of what they group, join or
rank after the exchange; Spark then sees its required distribution satisfied by that
one exchange and moves the rows no further.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Sequence

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from sqlengine.hidden import KEY_GROUP, TASK

SEED = 42  # Spark's ``hash`` and ``hashpartitioning`` seed


def default_max_parallelism(parallelism: int) -> int:
    """Flink's ``computeDefaultMaxParallelism``: 1.5 x the parallelism rounded up to a
    power of two, at least 128, at most 32768 (``config.max_parallelism``)."""
    from sqlengine.config import PARALLELISM, max_parallelism
    return max_parallelism({PARALLELISM: str(parallelism)})


def operator_index(key_group: int, parallelism: int, max_parallelism: int) -> int:
    """Flink's ``computeOperatorIndexForKeyGroup``: the task that owns a key group."""
    return key_group * parallelism // max_parallelism


def key_group_range(index: int, parallelism: int, max_parallelism: int) -> range:
    """Flink's ``computeKeyGroupRangeForOperatorIndex``: the key groups task ``index`` owns."""
    start = (index * max_parallelism + parallelism - 1) // parallelism
    end = ((index + 1) * max_parallelism - 1) // parallelism
    return range(start, end + 1)


def _mix_k1(k1: int) -> int:
    k1 = (k1 * 0xCC9E2D51) & 0xFFFFFFFF
    k1 = ((k1 << 15) | (k1 >> 17)) & 0xFFFFFFFF
    return (k1 * 0x1B873593) & 0xFFFFFFFF


def _mix_h1(h1: int, k1: int) -> int:
    h1 ^= k1
    h1 = ((h1 << 13) | (h1 >> 19)) & 0xFFFFFFFF
    return (h1 * 5 + 0xE6546B64) & 0xFFFFFFFF


def _fmix(h1: int, length: int) -> int:
    h1 ^= length
    h1 ^= h1 >> 16
    h1 = (h1 * 0x85EBCA6B) & 0xFFFFFFFF
    h1 ^= h1 >> 13
    h1 = (h1 * 0xC2B2AE35) & 0xFFFFFFFF
    h1 ^= h1 >> 16
    return h1 - (1 << 32) if h1 & 0x80000000 else h1


def murmur3_int(value: int, seed: int = SEED) -> int:
    """Spark's ``Murmur3_x86_32.hashInt``: ``hash(CAST(value AS INT))`` as Spark computes it."""
    return _fmix(_mix_h1(seed & 0xFFFFFFFF, _mix_k1(value & 0xFFFFFFFF)), 4)


@lru_cache(maxsize=None)
def task_codes(parallelism: int) -> tuple[int, ...]:
    """Per task ``i``, the smallest non-negative integer that Spark's
    ``hashpartitioning(code, parallelism)`` sends to partition ``i``."""
    codes: dict[int, int] = {}
    value = 0
    while len(codes) < parallelism:
        codes.setdefault(murmur3_int(value) % parallelism, value)
        value += 1
    return tuple(codes[i] for i in range(parallelism))


def key_group(keys: Sequence[Column], max_parallelism: int) -> Column:
    """A key's key group (0 for a keyless operator: one key group)."""
    if not keys:
        return F.lit(0)
    return F.pmod(F.hash(*keys), F.lit(max_parallelism))


def task_of(group: Column, parallelism: int, max_parallelism: int) -> Column:
    """The ``__task`` code of the task that owns key group ``group`` (see the module docstring)."""
    codes = task_codes(parallelism)
    if parallelism == 1:
        return F.lit(codes[0])
    index = (group * F.lit(parallelism)).cast("int") / F.lit(max_parallelism)
    return F.element_at(F.array(*[F.lit(c) for c in codes]), F.floor(index).cast("int") + F.lit(1))


def route(df: DataFrame, keys: Sequence[Column], parallelism: int, max_parallelism: int) -> DataFrame:
    """The hash exchange of a DAG edge: ``df`` with ``__task`` (from the key's key group),
    hash-partitioned into ``parallelism`` tasks by it."""
    routed = df.withColumn(TASK, task_of(key_group(keys, max_parallelism), parallelism, max_parallelism))
    return routed.repartition(parallelism, F.col(TASK))


def task_of_stored(parallelism: int, max_parallelism: int) -> Column:
    """The ``__task`` of a state row, from its stored key group."""
    return task_of(F.col(KEY_GROUP), parallelism, max_parallelism)
