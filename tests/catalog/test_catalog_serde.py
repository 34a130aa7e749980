"""JSON round trips of every DataType kind and every catalog object."""
from __future__ import annotations

import json

import pytest

from catalog.objects import (
    CatalogDatabase,
    CatalogFunction,
    CatalogTable,
    CatalogView,
    Column,
    TableSchema,
    WatermarkSpec,
)
from catalog.serde import (
    datatype_from_json,
    datatype_to_json,
    object_from_json,
    object_to_json,
)
from sqlengine.errors import CatalogError
from sqlengine.types import (
    ARRAY, BIGINT, BOOLEAN, CHAR, DATE, DECIMAL, DOUBLE, INT, INTERVAL_MONTHS, INTERVAL_MS,
    MAP, NULLTYPE, ROW, STRING, TIME, TIMESTAMP, TIMESTAMP_LTZ, VARCHAR, DataType, RowField,
)

ALL_TYPES = [
    BOOLEAN(), BOOLEAN(False), DataType("TINYINT"), DataType("SMALLINT", False), INT(),
    INT(False), BIGINT(), DataType("FLOAT"), DOUBLE(False), DECIMAL(10, 2), DECIMAL(38, 0, False),
    DataType("DECIMAL"), CHAR(3), VARCHAR(20), VARCHAR(20, False), STRING(), STRING(False),
    DataType("BINARY", precision=4), DataType("VARBINARY", precision=2147483647),
    DATE(), TIME(), TIME(3, False), TIMESTAMP(3), TIMESTAMP(9, False), TIMESTAMP_LTZ(3),
    TIMESTAMP_LTZ(6, False), DataType("TIMESTAMP"), NULLTYPE(), INTERVAL_MS(), INTERVAL_MONTHS(),
    ROW([]), ROW([("a", INT(False)), ("b", STRING())]),
    DataType("ROW", False, fields=(RowField("x", INT(), "the x"), RowField("y y", DOUBLE()))),
    ROW([("nested", ROW([("deep", ARRAY(MAP(STRING(False), DECIMAL(5, 1))))]))]),
    ARRAY(INT()), ARRAY(INT(False), False), ARRAY(ROW([("a", TIMESTAMP(3))])),
    MAP(STRING(), BIGINT()), MAP(INT(False), ARRAY(STRING()), False),
    DataType("MULTISET", element=STRING(False)),
]


@pytest.mark.parametrize("t", ALL_TYPES, ids=[str(t) for t in ALL_TYPES])
def test_datatype_round_trip(t):
    encoded = json.loads(json.dumps(datatype_to_json(t)))
    decoded = datatype_from_json(encoded)
    assert decoded == t
    assert str(decoded) == str(t)
    assert decoded.nullable == t.nullable and decoded.precision == t.precision


def test_nested_nullability_and_descriptions_survive():
    t = ROW([("a", ARRAY(INT(False), False))], nullable=False)
    t = DataType("ROW", False, fields=(RowField("a", t.fields[0].type, "doc"),))
    back = datatype_from_json(datatype_to_json(t))
    assert back.fields[0].description == "doc"
    assert back.fields[0].type.nullable is False
    assert back.fields[0].type.element.nullable is False


def test_time_attribute_is_not_stored():
    t = TIMESTAMP(3).with_time_attr("ROWTIME")
    encoded = datatype_to_json(t)
    assert "time_attr" not in json.dumps(encoded)
    assert datatype_from_json(encoded).time_attr is None


def test_unknown_type_root_is_rejected():
    with pytest.raises(CatalogError, match="Unknown type root 'BLOB'"):
        datatype_from_json({"root": "BLOB", "nullable": True})


def test_unknown_keys_are_rejected():
    with pytest.raises(CatalogError, match="unknown keys \\['colour'\\]"):
        datatype_from_json({"root": "INT", "nullable": True, "colour": "red"})


def _full_table() -> CatalogTable:
    schema = TableSchema(
        (Column("id", BIGINT(False), comment="key"),
         Column("payload", ROW([("a", ARRAY(INT())), ("m", MAP(STRING(), DOUBLE()))])),
         Column("ts", TIMESTAMP(3)),
         Column("total", DECIMAL(12, 2), "computed", "CASE WHEN id > 0 THEN 1 ELSE 2 END"),
         Column("offset", BIGINT(), "metadata", metadata_key="offset", virtual=True),
         Column("headers", MAP(STRING(), STRING()), "metadata")),
        (WatermarkSpec("ts", "`ts` - INTERVAL '5' SECOND"),),
        ("id",), "my_pk")
    return CatalogTable(schema, (("connector", "kafka"), ("topic", "t"), ("a.b", "é ünï")),
                        ("id",), "a table")


OBJECTS = [
    _full_table(),
    CatalogTable(TableSchema((Column("a", INT()),)), ()),
    CatalogView("SELECT *\nFROM t WHERE x = 'y'", TableSchema((Column("x", STRING()),)), "v"),
    CatalogFunction("pkg.mod.fn", "PYTHON"),
    CatalogFunction("com.x.Fn", "JAVA", is_temporary=True),
    CatalogDatabase("db comment", (("k", "v"),)),
    CatalogDatabase(),
]


@pytest.mark.parametrize("obj", OBJECTS, ids=lambda o: type(o).__name__)
def test_object_round_trip(obj):
    doc = json.loads(json.dumps(object_to_json(obj)))
    assert doc["version"] == 1
    assert object_from_json(doc) == obj


def test_option_order_is_kept():
    obj = _full_table()
    assert object_from_json(object_to_json(obj)).options == obj.options


def test_wrong_version_and_kind_are_rejected():
    doc = object_to_json(CatalogDatabase())
    with pytest.raises(CatalogError, match="Unsupported catalog format version 99"):
        object_from_json({**doc, "version": 99})
    with pytest.raises(CatalogError, match="Unknown catalog object kind 'MODEL'"):
        object_from_json({**doc, "kind": "MODEL"})


def test_non_catalog_object_cannot_be_stored():
    with pytest.raises(CatalogError, match="Cannot store a str"):
        object_to_json("nope")
