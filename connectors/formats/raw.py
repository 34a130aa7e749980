"""Flink's ``raw`` format: the whole record value (or key) is one column, as bytes or
as text in ``raw.charset`` (default UTF-8). Only byte-valued connectors (kafka) take it.
A null record value is a null column value (a Kafka tombstone)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from pyspark.sql import Column
from pyspark.sql import functions as F

from connectors.base import Options
from connectors.formats.decoded import Decoded
from sqlengine.errors import ConnectorError
from sqlengine.types import DataType

BINARY = True  # decode takes the record's bytes, encode returns bytes
TEXT_ROOTS = ("CHAR", "VARCHAR")
BYTES_ROOTS = ("BINARY", "VARBINARY")


@dataclass(frozen=True)
class RawOptions:
    charset: str = "UTF-8"
    ignore_parse_errors: bool = False


def parse_options(options: Options, prefix: str = "raw.") -> RawOptions:
    charset = options.pop(prefix + "charset") or "UTF-8"
    endianness = options.pop(prefix + "endianness") or "big-endian"
    if endianness not in ("big-endian", "little-endian"):
        raise ConnectorError(f"Unsupported endianness name: {endianness}.")
    return RawOptions(charset)


def check_columns(columns, key: str) -> None:
    if len(columns) != 1:
        raise ConnectorError(
            f"The 'raw' format only supports single physical column. However the defined schema contains "
            f"multiple physical columns: [{', '.join(f'`{n}` {t.sql()}' for n, t in columns)}] ({key}).")
    t = columns[0][1]
    if t.root not in TEXT_ROOTS + BYTES_ROOTS:
        raise ConnectorError(f"The 'raw' format of sqlengine supports STRING and BYTES columns, not {t.sql()}.")


def decode_detailed(data: Column, columns: list[tuple[str, DataType]], o: RawOptions, tag: str = "") -> Decoded:
    t = columns[0][1]
    value = F.decode(data, o.charset) if t.root in TEXT_ROOTS else data
    return Decoded([value.cast(t.to_spark()).alias(columns[0][0])], F.lit(False), F.lit(""))


def encode_with(cols: list[tuple[Column, DataType, str]], o: RawOptions, op: Optional[Column] = None) -> Column:
    c, t, _ = cols[0]
    return F.encode(c, o.charset) if t.root in TEXT_ROOTS else c
