"""One field being generated: its type, its options, its random draws."""
from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import Column

from connectors.datagen.draw import Draw
from connectors.datagen.options import FieldOptions
from sqlengine.types import DataType


@dataclass(frozen=True)
class Field:
    """A (possibly nested) field: ``path`` is ``name``, ``name.element``, ``row.f``, ..."""

    type: DataType
    opts: FieldOptions
    draw: Draw
    row_id: Column
    zone: str  # table.local-time-zone, for DATE/TIME "now"

    @property
    def path(self) -> str:
        return self.opts.path

    def child(self, name: str, type_: DataType, *index: Column) -> "Field":
        opts = self.opts.child(name)
        return Field(type_, opts, self.draw.nested(opts.path, *index), self.row_id, self.zone)
