"""Java ``hashCode()`` of map keys and ``java.util.HashMap`` iteration order, in Spark.

Flink's print sink converts a MAP to a ``java.util.HashMap`` and prints it with
``toString()``, so entries come out in HashMap order: by bucket
``(h ^ h >>> 16) & (capacity - 1)``, then by insertion order within a bucket
(resizing keeps that relative order). To print the same lines, the entries are
sorted the same way here, for key types whose Java hash is computable with Spark
expressions. Hashes are kept as longs in ``[0, 2**32)`` (the int's unsigned bits).
"""
from __future__ import annotations

from typing import Callable, Optional

from pyspark.sql import Column
from pyspark.sql import functions as F

from sqlengine.types import DataType

_MASK32 = 0xFFFFFFFF


def _u32(value: Column) -> Column:
    return value.cast("long").bitwiseAND(F.lit(_MASK32))


def _int_hash(c: Column) -> Column:  # Byte/Short/Integer.hashCode: the value
    return _u32(c)


def _long_hash(c: Column) -> Column:  # Long.hashCode: (int) (v ^ v >>> 32)
    return _u32(c.bitwiseXOR(F.shiftrightunsigned(c, 32)))


def _boolean_hash(c: Column) -> Column:
    return F.when(c, F.lit(1231)).otherwise(F.lit(1237)).cast("long")


def _string_hash(c: Column) -> Column:
    """String.hashCode over UTF-16 code units: s[0]*31^(n-1) + ... + s[n-1], mod 2**32."""
    hexed = F.hex(F.encode(c, "UTF-16BE"))
    units = F.transform(F.sequence(F.lit(0), (F.length(hexed) / 4 - 1).cast("int")),
                        lambda i: F.conv(F.substring(hexed, (i * 4 + 1).cast("int"), F.lit(4)), 16, 10).cast("long"))
    folded = F.aggregate(units, F.lit(0).cast("long"),
                         lambda acc, u: (acc * 31 + u).bitwiseAND(F.lit(_MASK32)))
    return F.when(F.length(hexed) == 0, F.lit(0).cast("long")).otherwise(folded)


_HASHES: dict[str, Callable[[Column], Column]] = {
    "TINYINT": _int_hash,
    "SMALLINT": _int_hash,
    "INT": _int_hash,
    "BIGINT": _long_hash,
    "BOOLEAN": _boolean_hash,
    "CHAR": _string_hash,
    "VARCHAR": _string_hash,
}


def java_hash(key_type: DataType) -> Optional[Callable[[Column], Column]]:
    """The key type's Java hashCode as a Spark expression builder, if known."""
    return _HASHES.get(key_type.root)


def hashmap_capacity(size: Column) -> Column:
    """HashMap's table length after ``size`` puts: 16, doubled while size > 0.75 * length."""
    doublings = F.ceil(F.log2(F.greatest(F.lit(1.0), F.ceil(size / F.lit(12.0)))))
    return F.pow(F.lit(2.0), doublings + F.lit(4)).cast("long")


def hashmap_bucket(hash_u32: Column, capacity: Column) -> Column:
    spread = hash_u32.bitwiseXOR(F.shiftrightunsigned(hash_u32, 16))
    return spread.bitwiseAND(capacity - F.lit(1))
