"""Sequence generators (``'fields.#.kind' = 'sequence'``), as Spark expressions.

Row ``i`` (0-based row id) gets ``start + i``: every value of ``[start, end]`` exactly
once, in order of row id. A sequence bounds the source to ``end - start + 1`` rows
(Flink's rule; with several sequences and ``number-of-rows`` the smallest wins).
Supported types, as in Flink's ``SequenceGeneratorVisitor``: the numeric types,
CHAR/VARCHAR (the number as text) and BINARY/VARBINARY (the 8-byte big-endian long).
"""
from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from connectors.datagen.fields import Field
from connectors.datagen.options import END, START
from sqlengine.errors import ConnectorError

# Flink reads start/end of these types as INT, of the others as BIGINT.
_INT_KEYED = ("TINYINT", "SMALLINT", "INT", "FLOAT", "DOUBLE", "DECIMAL")
_SUPPORTED = _INT_KEYED + ("BIGINT", "CHAR", "VARCHAR", "BINARY", "VARBINARY")
_LIMITS = {"TINYINT": 2 ** 7, "SMALLINT": 2 ** 15, "INT": 2 ** 31}


def sequence_column(f: Field) -> tuple[Column, int]:
    """The expression for a sequence field and the number of values it has."""
    start = f.opts.require(START, int, "sequence")
    end = f.opts.require(END, int, "sequence")
    root = f.type.root
    if root not in _SUPPORTED:
        raise ConnectorError(
            f"Unsupported type: {f.type} (field '{f.path}' with 'fields.{f.path}.kind' = 'sequence'). "
            f"Sequence generators support {', '.join(_SUPPORTED)}.")
    _check_range(f, root, start, end)
    value = F.lit(start) + f.row_id
    if root in ("BINARY", "VARBINARY"):
        return F.unhex(F.lpad(F.hex(value), 16, "0")), end - start + 1
    return value.cast(f.type.to_spark()), end - start + 1


def _check_range(f: Field, root: str, start: int, end: int) -> None:
    bits = 32 if root in _INT_KEYED else 64
    limit = _LIMITS.get(root, 2 ** (bits - 1))
    for name, value in ((START, start), (END, end)):
        if not -limit <= value < limit:
            raise ConnectorError(
                f"Invalid value for '{f.opts.key(name)}': {value} is out of range for {f.type.sql(False)}.")
    if start > end:
        raise ConnectorError(
            f"Invalid sequence for field '{f.path}': '{f.opts.key(START)}' ({start}) must not be "
            f"greater than '{f.opts.key(END)}' ({end}).")
