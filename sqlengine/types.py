"""Flink SQL data types, printed as Flink prints them and mapped to Spark types.

Time values travel through Spark as Spark ``TIMESTAMP`` (microseconds since the
epoch) with the Spark session time zone pinned to UTC, so a Flink ``TIMESTAMP(3)``
wall-clock value ``2020-04-15 08:00:00`` is the Spark instant ``2020-04-15T08:00Z``.
Spark's watermark works only on ``TIMESTAMP`` (not ``TIMESTAMP_NTZ``), which is why
``TIMESTAMP_NTZ`` is never used. ``TIMESTAMP_LTZ`` values are the same instants and
are rendered in ``table.local-time-zone`` when printed.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional

from pyspark.sql import types as st

# Flink's family names -> canonical type root.
_ALIASES = {
    "INTEGER": "INT",
    "VARCHAR": "VARCHAR",
    "STRING": "VARCHAR",
    "CHARACTER": "CHAR",
    "DEC": "DECIMAL",
    "NUMERIC": "DECIMAL",
    "BYTES": "VARBINARY",
    "BINARY": "BINARY",
    "BOOL": "BOOLEAN",
    "REAL": "FLOAT",
    "DOUBLE PRECISION": "DOUBLE",
    "TIMESTAMP_LTZ": "TIMESTAMP_LTZ",
    "TIMESTAMP WITH LOCAL TIME ZONE": "TIMESTAMP_LTZ",
}

MAX_VARCHAR = 2147483647

NUMERIC_ROOTS = ("TINYINT", "SMALLINT", "INT", "BIGINT", "DECIMAL", "FLOAT", "DOUBLE")
INTEGER_ROOTS = ("TINYINT", "SMALLINT", "INT", "BIGINT")
CHAR_ROOTS = ("CHAR", "VARCHAR")
TIME_ROOTS = ("TIMESTAMP", "TIMESTAMP_LTZ")


@dataclass(frozen=True)
class RowField:
    name: str
    type: "DataType"
    description: Optional[str] = None


@dataclass(frozen=True)
class DataType:
    """One Flink logical type. ``root`` is the canonical family name."""

    root: str
    nullable: bool = True
    precision: Optional[int] = None
    scale: Optional[int] = None
    fields: tuple[RowField, ...] = ()
    element: Optional["DataType"] = None
    key: Optional["DataType"] = None
    value: Optional["DataType"] = None
    # "ROWTIME" / "PROCTIME" when this column is a time attribute.
    time_attr: Optional[str] = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.root != self.root.upper():
            raise ValueError(f"type root must be upper case: {self.root}")

    # -- predicates -------------------------------------------------------
    @property
    def is_numeric(self) -> bool:
        return self.root in NUMERIC_ROOTS

    @property
    def is_integer(self) -> bool:
        return self.root in INTEGER_ROOTS

    @property
    def is_string(self) -> bool:
        return self.root in CHAR_ROOTS

    @property
    def is_timestamp(self) -> bool:
        return self.root in TIME_ROOTS

    def with_nullable(self, nullable: bool) -> "DataType":
        return replace(self, nullable=nullable)

    def with_time_attr(self, kind: Optional[str]) -> "DataType":
        return replace(self, time_attr=kind)

    # -- printing ---------------------------------------------------------
    def __str__(self) -> str:
        return self.sql(with_null=True)

    def sql(self, with_null: bool = True) -> str:
        text = self._body()
        if with_null and not self.nullable:
            text += " NOT NULL"
        return text

    def summary(self) -> str:
        """Flink's DESCRIBE form: time attributes get a ``*ROWTIME*`` suffix."""
        text = self.sql(with_null=False)
        if self.time_attr:
            text += f" *{self.time_attr}*"
        return text

    def _body(self) -> str:
        r = self.root
        if r == "VARCHAR":
            return "STRING" if self.precision in (None, MAX_VARCHAR) else f"VARCHAR({self.precision})"
        if r == "VARBINARY":
            return "BYTES" if self.precision in (None, MAX_VARCHAR) else f"VARBINARY({self.precision})"
        if r in ("CHAR", "BINARY"):
            return f"{r}({self.precision or 1})"
        if r == "DECIMAL":
            return f"DECIMAL({self.precision}, {self.scale})"
        if r == "TIMESTAMP":
            return f"TIMESTAMP({self.precision})"
        if r == "TIMESTAMP_LTZ":
            return f"TIMESTAMP_LTZ({self.precision})"
        if r == "TIME":
            return f"TIME({self.precision or 0})"
        if r == "ROW":
            inner = ", ".join(f"`{f.name}` {f.type.sql()}" for f in self.fields)
            return f"ROW<{inner}>"
        if r == "ARRAY":
            return f"ARRAY<{self.element.sql()}>"
        if r == "MULTISET":
            return f"MULTISET<{self.element.sql()}>"
        if r == "MAP":
            return f"MAP<{self.key.sql()}, {self.value.sql()}>"
        return r

    # -- Spark ------------------------------------------------------------
    def to_spark(self) -> st.DataType:
        return _SPARK[self.root](self)

    def field(self, name: str) -> Optional[RowField]:
        for f in self.fields:
            if f.name == name:
                return f
        lowered = [f for f in self.fields if f.name.lower() == name.lower()]
        return lowered[0] if len(lowered) == 1 else None


def _dec(t: DataType) -> st.DataType:
    return st.DecimalType(t.precision if t.precision is not None else 10, t.scale or 0)


_SPARK = {
    "BOOLEAN": lambda t: st.BooleanType(),
    "TINYINT": lambda t: st.ByteType(),
    "SMALLINT": lambda t: st.ShortType(),
    "INT": lambda t: st.IntegerType(),
    "BIGINT": lambda t: st.LongType(),
    "FLOAT": lambda t: st.FloatType(),
    "DOUBLE": lambda t: st.DoubleType(),
    "DECIMAL": _dec,
    "CHAR": lambda t: st.StringType(),
    "VARCHAR": lambda t: st.StringType(),
    "BINARY": lambda t: st.BinaryType(),
    "VARBINARY": lambda t: st.BinaryType(),
    "DATE": lambda t: st.DateType(),
    # TIME travels as milliseconds of the day (Flink's internal form).
    "TIME": lambda t: st.IntegerType(),
    "TIMESTAMP": lambda t: st.TimestampType(),
    "TIMESTAMP_LTZ": lambda t: st.TimestampType(),
    "NULL": lambda t: st.NullType(),
    "ROW": lambda t: st.StructType([st.StructField(f.name, f.type.to_spark(), True) for f in t.fields]),
    "ARRAY": lambda t: st.ArrayType(t.element.to_spark(), True),
    "MULTISET": lambda t: st.MapType(t.element.to_spark(), st.IntegerType(), True),
    "MAP": lambda t: st.MapType(t.key.to_spark(), t.value.to_spark(), True),
}

KNOWN_ROOTS = tuple(_SPARK)


# -- constructors ------------------------------------------------------------
def canonical_root(name: str) -> str:
    name = " ".join(name.upper().split())
    return _ALIASES.get(name, name)


def BOOLEAN(nullable: bool = True) -> DataType:
    return DataType("BOOLEAN", nullable)


def INT(nullable: bool = True) -> DataType:
    return DataType("INT", nullable)


def BIGINT(nullable: bool = True) -> DataType:
    return DataType("BIGINT", nullable)


def DOUBLE(nullable: bool = True) -> DataType:
    return DataType("DOUBLE", nullable)


def STRING(nullable: bool = True) -> DataType:
    return DataType("VARCHAR", nullable, precision=MAX_VARCHAR)


def VARCHAR(n: int, nullable: bool = True) -> DataType:
    return DataType("VARCHAR", nullable, precision=n)


def CHAR(n: int, nullable: bool = True) -> DataType:
    return DataType("CHAR", nullable, precision=n)


def DECIMAL(p: int, s: int, nullable: bool = True) -> DataType:
    return DataType("DECIMAL", nullable, precision=p, scale=s)


def TIMESTAMP(p: int = 6, nullable: bool = True) -> DataType:
    return DataType("TIMESTAMP", nullable, precision=p)


def TIMESTAMP_LTZ(p: int = 6, nullable: bool = True) -> DataType:
    return DataType("TIMESTAMP_LTZ", nullable, precision=p)


def DATE(nullable: bool = True) -> DataType:
    return DataType("DATE", nullable)


def TIME(p: int = 0, nullable: bool = True) -> DataType:
    return DataType("TIME", nullable, precision=p)


def NULLTYPE() -> DataType:
    return DataType("NULL", True)


def ROW(fields: list[tuple[str, DataType]], nullable: bool = True) -> DataType:
    return DataType("ROW", nullable, fields=tuple(RowField(n, t) for n, t in fields))


def ARRAY(element: DataType, nullable: bool = True) -> DataType:
    return DataType("ARRAY", nullable, element=element)


def MAP(key: DataType, value: DataType, nullable: bool = True) -> DataType:
    return DataType("MAP", nullable, key=key, value=value)


def INTERVAL_MS() -> DataType:
    """INTERVAL DAY TO SECOND(3); values are milliseconds."""
    return DataType("INTERVAL_DAY_TIME", False)


def INTERVAL_MONTHS() -> DataType:
    return DataType("INTERVAL_YEAR_MONTH", False)


_SPARK["INTERVAL_DAY_TIME"] = lambda t: st.LongType()
_SPARK["INTERVAL_YEAR_MONTH"] = lambda t: st.IntegerType()

_INT_RANK = {"TINYINT": 1, "SMALLINT": 2, "INT": 3, "BIGINT": 4}
_INT_DIGITS = {"TINYINT": 3, "SMALLINT": 5, "INT": 10, "BIGINT": 19}


def decimal_of(t: DataType) -> DataType:
    """The DECIMAL a numeric type widens to (Flink's rule for exact numerics)."""
    if t.root == "DECIMAL":
        return t
    if t.root in _INT_DIGITS:
        return DECIMAL(_INT_DIGITS[t.root], 0, t.nullable)
    raise ValueError(f"not an exact numeric type: {t}")


def common_type(a: DataType, b: DataType) -> Optional[DataType]:
    """Least restrictive common type of two types, or None (Flink's leastRestrictive)."""
    nullable = a.nullable or b.nullable
    if a.root == "NULL":
        return b.with_nullable(True)
    if b.root == "NULL":
        return a.with_nullable(True)
    if a.root == b.root and a.root not in ("DECIMAL", "VARCHAR", "CHAR", "BINARY", "VARBINARY", "TIMESTAMP",
                                           "TIMESTAMP_LTZ", "ROW", "ARRAY", "MAP"):
        return a.with_nullable(nullable)
    if a.root in ("BINARY", "VARBINARY") and b.root in ("BINARY", "VARBINARY"):
        if a.root == b.root == "BINARY" and a.precision == b.precision:
            return a.with_nullable(nullable)
        return DataType("VARBINARY", nullable, precision=max(a.precision or 1, b.precision or 1))
    if a.is_string and b.is_string:
        if a.root == "CHAR" and b.root == "CHAR" and a.precision == b.precision:
            return a.with_nullable(nullable)
        return VARCHAR(max(a.precision or 1, b.precision or 1), nullable)
    if a.is_numeric and b.is_numeric:
        if "DOUBLE" in (a.root, b.root) or "FLOAT" in (a.root, b.root):
            return DOUBLE(nullable)
        if a.is_integer and b.is_integer:
            return a.with_nullable(nullable) if _INT_RANK[a.root] >= _INT_RANK[b.root] else b.with_nullable(nullable)
        da, db = decimal_of(a), decimal_of(b)
        scale = max(da.scale, db.scale)
        digits = max(da.precision - da.scale, db.precision - db.scale)
        return DECIMAL(min(38, digits + scale), scale, nullable)
    if a.is_timestamp and b.is_timestamp:
        root = "TIMESTAMP_LTZ" if "TIMESTAMP_LTZ" in (a.root, b.root) else "TIMESTAMP"
        return DataType(root, nullable, precision=max(a.precision or 0, b.precision or 0))
    if a.root == b.root and a.root in ("ROW", "ARRAY", "MAP") and a.sql(False) == b.sql(False):
        return a.with_nullable(nullable)
    if a.root == b.root == "DECIMAL":
        return common_type(a, b)
    return None


def implicitly_castable(src: DataType, dst: DataType) -> bool:
    """Whether Flink inserts ``src`` into a ``dst`` column without an explicit CAST."""
    if src.root == "NULL":
        return True
    if src.is_string and dst.is_string:
        return True
    if src.is_numeric and dst.is_numeric:
        return True
    if src.is_timestamp and dst.is_timestamp:
        return True
    if src.root == dst.root and src.root not in ("ROW", "ARRAY", "MAP"):
        return True
    if src.root == dst.root == "ROW":
        return len(src.fields) == len(dst.fields) and all(
            implicitly_castable(a.type, b.type) for a, b in zip(src.fields, dst.fields))
    if src.root == dst.root == "ARRAY":
        return implicitly_castable(src.element, dst.element)
    if src.root == dst.root == "MAP":
        return implicitly_castable(src.key, dst.key) and implicitly_castable(src.value, dst.value)
    if src.root in ("BINARY", "VARBINARY") and dst.root in ("BINARY", "VARBINARY"):
        return True
    return False
