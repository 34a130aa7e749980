"""Deterministic pseudo-random numbers computed from the row id, in Spark expressions.

Exactly-once needs replayable sources: a micro-batch re-run after a failure must
produce the very same rows. Spark's ``rand(seed)`` is seeded per *partition*, so
every micro-batch of a rate source would repeat the same values and a replay
depends on partitioning. Instead every random draw here is a hash of
``(salt, row id[, element index ...])`` with ``xxhash64`` (a JVM built-in, code
generated): the same row id always yields the same row, in batch and streaming,
whatever the partitioning, and different fields/purposes use different salts.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

from pyspark.sql import Column
from pyspark.sql import functions as F

_TWO_POW_MINUS_53 = 2.0 ** -53


def salt_of(*parts: str) -> int:
    """A stable signed 64-bit salt for a (table, field path, purpose) triple."""
    digest = hashlib.blake2b("\x00".join(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


@dataclass(frozen=True)
class Draw:
    """Random draws for one field: hashes of its salt and the row/element keys.

    ``keys`` is the row id column, followed by the element index of each
    enclosing ARRAY/MAP (lambda variables), so nested elements differ too.
    """

    seed: str
    path: str
    keys: tuple[Column, ...]

    def nested(self, path: str, *extra: Column) -> "Draw":
        return Draw(self.seed, path, self.keys + extra)

    def bits(self, purpose: str = "value") -> Column:
        """A uniformly distributed signed 64-bit integer."""
        return F.xxhash64(F.lit(salt_of(self.seed, self.path, purpose)), *self.keys)

    def unit(self, purpose: str = "value") -> Column:
        """A double uniformly distributed in [0, 1) (53 random bits)."""
        return F.shiftrightunsigned(self.bits(purpose), 11).cast("double") * F.lit(_TWO_POW_MINUS_53)

    def below(self, bound: int, purpose: str = "value") -> Column:
        """A long uniformly distributed in [0, bound), for 0 < bound <= 2**62."""
        return F.pmod(self.bits(purpose), F.lit(bound))

    def hex_chars(self, length: int, purpose: str = "hex") -> Column:
        """``length`` lowercase hex digits (Flink's ``nextHexString``).

        Up to 16 digits come from one 64-bit draw; longer strings from SHA-512
        blocks (128 digits each), measured faster than many 16-digit blocks.
        """
        if length <= 16:
            return F.substring(F.lower(F.hex(self.bits(purpose).cast("binary"))), 1, length)
        blocks = [F.sha2(self.bits(f"{purpose}{k}").cast("binary"), 512)
                  for k in range((length + 127) // 128)]
        text = blocks[0] if len(blocks) == 1 else F.concat(*blocks)
        return F.substring(text, 1, length)

    def random_bytes(self, length: int, purpose: str = "bytes") -> Column:
        """``length`` random bytes (8 per 64-bit draw)."""
        blocks = [self.bits(f"{purpose}{k}").cast("binary") for k in range((length + 7) // 8)]
        data = blocks[0] if len(blocks) == 1 else F.concat(*blocks)
        return F.substring(data, 1, length)
