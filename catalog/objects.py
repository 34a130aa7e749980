"""Catalog objects: what a CREATE TABLE / VIEW / FUNCTION / DATABASE statement defines.

All objects are frozen dataclasses so that a definition read from a catalog can be
shared by the binder, the planner and the shell without anyone changing it behind the
others' backs; a change is always a new object handed to ``alter_table``.

Expressions (computed columns, watermarks, view queries) are kept as SQL text exactly
as the parser hands them over: the catalog stores definitions, it does not plan them.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Mapping, Optional, Union

from sqlengine.errors import CatalogError
from sqlengine.types import DataType, RowField

COLUMN_KINDS = ("physical", "computed", "metadata")
FUNCTION_LANGUAGES = ("PYTHON", "JAVA", "SCALA")


def escape_identifier(name: str) -> str:
    """Flink's ``EncodingUtils.escapeIdentifier``: backquote, doubling inner backquotes."""
    return "`" + name.replace("`", "``") + "`"


@dataclass(frozen=True)
class Column:
    """One column of a table schema.

    ``kind`` is Flink's column kind: ``physical`` (stored by the connector),
    ``computed`` (``name AS expr``; ``expr_sql`` holds the expression text) or
    ``metadata`` (``name TYPE METADATA [FROM 'key'] [VIRTUAL]``).
    """

    name: str
    type: DataType
    kind: str = "physical"
    expr_sql: Optional[str] = None
    metadata_key: Optional[str] = None
    virtual: bool = False
    comment: Optional[str] = None

    def __post_init__(self) -> None:
        if self.kind not in COLUMN_KINDS:
            raise CatalogError(
                f"Unknown column kind '{self.kind}' for column `{self.name}`; "
                f"expected one of {', '.join(COLUMN_KINDS)}")
        if self.kind == "computed" and not self.expr_sql:
            raise CatalogError(f"Computed column `{self.name}` needs an expression")
        if self.kind != "metadata" and (self.virtual or self.metadata_key is not None):
            raise CatalogError(
                f"Column `{self.name}` is {self.kind}: only metadata columns take "
                "METADATA FROM / VIRTUAL")

    @property
    def is_physical(self) -> bool:
        return self.kind == "physical"

    @property
    def is_persisted(self) -> bool:
        """Whether a sink writes this column (Flink: physical and non-virtual metadata)."""
        return self.kind == "physical" or (self.kind == "metadata" and not self.virtual)


@dataclass(frozen=True)
class WatermarkSpec:
    """``WATERMARK FOR column AS expr``; ``expr_sql`` is the expression text."""

    column: str
    expr_sql: str


@dataclass(frozen=True)
class TableSchema:
    """Columns, watermarks and primary key of a table or view.

    Column names are case-sensitive, as in Flink. Invariants (unique names, watermark
    and key columns exist) are checked here so that no catalog can store a schema the
    binder would later choke on.
    """

    columns: tuple[Column, ...]
    watermarks: tuple[WatermarkSpec, ...] = ()
    primary_key: Optional[tuple[str, ...]] = None
    primary_key_name: Optional[str] = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "columns", tuple(self.columns))
        object.__setattr__(self, "watermarks", tuple(self.watermarks))
        if self.primary_key is not None:
            object.__setattr__(self, "primary_key", tuple(self.primary_key))
        self._check_unique_names()
        self._check_references()
        self._key_columns_not_null()

    def _key_columns_not_null(self) -> None:
        """Flink marks primary-key columns NOT NULL when it resolves a schema; doing it
        here makes DESCRIBE, SHOW CREATE TABLE and the binder agree with Flink."""
        keys = set(self.primary_key or ())
        if any(c.type.nullable for c in self.columns if c.name in keys):
            object.__setattr__(self, "columns", tuple(
                replace(c, type=c.type.with_nullable(False)) if c.name in keys else c
                for c in self.columns))

    def _check_unique_names(self) -> None:
        seen: set[str] = set()
        for col in self.columns:
            if col.name in seen:  # Flink's words
                kind = {"physical": "regular"}.get(col.kind, col.kind)
                raise CatalogError(f"A {kind} Column named '{col.name}' already exists in the table.")
            seen.add(col.name)

    def _check_references(self) -> None:
        names = self.names()
        for wm in self.watermarks:
            if wm.column not in names:
                raise CatalogError(
                    f"Watermark column `{wm.column}` is not a column of the table; "
                    f"columns are: {', '.join(names)}")
        for key in self.primary_key or ():
            if key not in names:
                raise CatalogError(
                    f"Primary key column `{key}` is not a column of the table; "
                    f"columns are: {', '.join(names)}")

    def column(self, name: str) -> Optional[Column]:
        """The column called exactly ``name`` (case-sensitive, like Flink), or None."""
        for col in self.columns:
            if col.name == name:
                return col
        return None

    def physical_columns(self) -> tuple[Column, ...]:
        return tuple(c for c in self.columns if c.is_physical)

    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def watermark_for(self, name: str) -> Optional[WatermarkSpec]:
        for wm in self.watermarks:
            if wm.column == name:
                return wm
        return None

    def primary_key_constraint_name(self) -> Optional[str]:
        """The key's name; Flink generates ``PK_col1_col2`` when the DDL names none."""
        if self.primary_key is None:
            return None
        return self.primary_key_name or "PK_" + "_".join(self.primary_key)

    def physical_row_type(self) -> DataType:
        """ROW of the physical columns: what a connector reads or writes."""
        return DataType("ROW", False, fields=tuple(
            RowField(c.name, c.type) for c in self.physical_columns()))


def _options_tuple(options: Union[Mapping[str, str], tuple, list]) -> tuple[tuple[str, str], ...]:
    items = options.items() if isinstance(options, Mapping) else options
    result = tuple((str(k), str(v)) for k, v in items)
    keys = [k for k, _ in result]
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    if dupes:
        raise CatalogError(f"Option key(s) given more than once: {', '.join(dupes)}")
    return result


@dataclass(frozen=True)
class CatalogTable:
    """A table: schema plus connector options (the WITH clause, in written order)."""

    kind: ClassVar[str] = "TABLE"

    schema: TableSchema
    options: tuple[tuple[str, str], ...]
    partition_keys: tuple[str, ...] = ()
    comment: Optional[str] = None
    distribution: Optional[str] = None  # Flink's DDL text: DISTRIBUTED BY HASH(`a`) INTO 4 BUCKETS

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", _options_tuple(self.options))
        object.__setattr__(self, "partition_keys", tuple(self.partition_keys))
        physical = [c.name for c in self.schema.physical_columns()]
        for key in self.partition_keys:
            if key not in physical:  # Flink's words
                raise CatalogError(f"Partition column '{key}' not defined in the table schema. Available columns: "
                                   f"[{', '.join(repr(n) for n in physical)}]")

    def options_dict(self) -> dict[str, str]:
        return dict(self.options)


@dataclass(frozen=True)
class CatalogView:
    """A view: its SELECT text as written, the schema the binder derived for it, and (as
    Flink keeps both) the expanded query SHOW CREATE VIEW prints (sqlengine/binder/expand.py)."""

    kind: ClassVar[str] = "VIEW"

    query_sql: str
    schema: TableSchema
    comment: Optional[str] = None
    expanded_sql: Optional[str] = None


CatalogBaseTable = Union[CatalogTable, CatalogView]


@dataclass(frozen=True)
class CatalogFunction:
    """A user-defined function: implementation class (``module.attr`` for Python)."""

    class_name: str
    language: str = "PYTHON"
    is_temporary: bool = False
    # A function object registered through the Python API (``udf(...)``), not by name.
    instance: Any = field(default=None, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        if self.language not in FUNCTION_LANGUAGES:
            raise CatalogError(
                f"Unknown function language '{self.language}'; "
                f"expected one of {', '.join(FUNCTION_LANGUAGES)}")


@dataclass(frozen=True)
class CatalogDatabase:
    """A database: only a comment and free-form properties, as in Flink."""

    comment: Optional[str] = None
    properties: tuple[tuple[str, str], ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "properties", _options_tuple(self.properties))


@dataclass(frozen=True)
class ObjectPath:
    """A fully qualified object name: catalog, database, object."""

    catalog: str
    database: str
    name: str

    def __str__(self) -> str:
        return f"{self.catalog}.{self.database}.{self.name}"

    def quoted(self) -> str:
        """Flink's ``asSerializableString``: `` `catalog`.`database`.`name` ``."""
        return ".".join(escape_identifier(p) for p in (self.catalog, self.database, self.name))

    def with_name(self, name: str) -> "ObjectPath":
        return ObjectPath(self.catalog, self.database, name)
