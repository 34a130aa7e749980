"""datagen: option validation, with Flink's messages (no Spark job runs)."""
from __future__ import annotations

import pytest

from sqlengine import types as T
from sqlengine.errors import ConnectorError

from simple_helpers import scan_datagen

COLS = [("f0", T.BIGINT()), ("s", T.STRING())]


def fails(spark, options, columns=COLS, streaming=False) -> str:
    with pytest.raises(ConnectorError) as info:
        scan_datagen(spark, columns, options, streaming=streaming)
    return info.value.message


def test_unknown_key_lists_the_valid_ones(spark):
    msg = fails(spark, {"wrong-rows-per-second": "1", "number-of-rows": "1"})
    assert "Unsupported options:\n\nwrong-rows-per-second" in msg
    supported = msg.split("Supported options:")[1]
    for key in ("rows-per-second", "number-of-rows", "scan.parallelism",
                "fields.f0.kind", "fields.f0.min", "fields.f0.max", "fields.s.length"):
        assert f"\n{key}" in supported


def test_unknown_field_is_named(spark):
    msg = fails(spark, {"number-of-rows": "1", "fields.nosuch.kind": "random"})
    assert "Unknown field 'nosuch'" in msg and "fields.nosuch.kind" in msg
    assert "f0, s" in msg


def test_options_of_the_wrong_kind_or_type_are_unsupported(spark):
    assert "Unsupported options:\n\nfields.f0.start" in fails(
        spark, {"number-of-rows": "1", "fields.f0.kind": "random", "fields.f0.start": "0"})
    assert "Unsupported options:\n\nfields.f0.length" in fails(
        spark, {"number-of-rows": "1", "fields.f0.length": "100"})
    assert "Unsupported options:\n\nfields.s.min" in fails(
        spark, {"number-of-rows": "1", "fields.s.min": "1"})


def test_sequence_needs_start_and_end(spark):
    assert fails(spark, {"fields.f0.kind": "sequence", "fields.f0.end": "100"}) == (
        "Could not find required property 'fields.f0.start' for sequence generator.")
    assert fails(spark, {"fields.f0.kind": "sequence", "fields.f0.start": "0"}) == (
        "Could not find required property 'fields.f0.end' for sequence generator.")


def test_unparsable_values(spark):
    msg = fails(spark, {"fields.f0.kind": "sequence", "fields.f0.start": "Wrong", "fields.f0.end": "1"})
    assert msg.startswith("Could not parse value 'Wrong' for key 'fields.f0.start'")
    assert "Invalid value for option 'number-of-rows'" in fails(spark, {"number-of-rows": "x"})
    assert "'fields.ts.max-past'" in fails(
        spark, {"number-of-rows": "1", "fields.ts.max-past": "5 parsecs"}, [("ts", T.TIMESTAMP(3))])


def test_invalid_kind_lists_the_kinds(spark):
    msg = fails(spark, {"number-of-rows": "1", "fields.f0.kind": "zipf"})
    assert "'fields.f0.kind'" in msg and "random, sequence" in msg


def test_length_rules_follow_flink(spark):
    cols = [("c", T.CHAR(5)), ("v", T.VARCHAR(20)), ("i", T.INT())]
    assert fails(spark, {"number-of-rows": "1", "fields.c.length": "3"}, cols) == (
        "Custom length for fixed-length type (CHAR/BINARY) field 'c' is not supported.")
    assert fails(spark, {"number-of-rows": "1", "fields.v.length": "21"}, cols) == (
        "Custom length '21' for variable-length type (VARCHAR/STRING/VARBINARY/BYTES) field 'v' "
        "should be shorter than '20' defined in the schema.")
    assert fails(spark, {"number-of-rows": "1", "fields.c.var-len": "true"}, cols).startswith(
        "Only supports specifying 'fields.c.var-len' option for variable-length types")


def test_bounds_and_types(spark):
    cols = [("i", T.INT()), ("t", T.DataType("TINYINT")), ("ts", T.TIMESTAMP(3))]
    assert "must not be greater" in fails(spark, {"number-of-rows": "1", "fields.i.min": "5", "fields.i.max": "1"}, cols)
    assert "out of range for TINYINT" in fails(spark, {"number-of-rows": "1", "fields.t.max": "300"}, cols)
    assert "Unsupported type: TIMESTAMP(3)" in fails(
        spark, {"fields.ts.kind": "sequence", "fields.ts.start": "1", "fields.ts.end": "2"}, cols)
    assert "must not be greater" in fails(
        spark, {"fields.i.kind": "sequence", "fields.i.start": "5", "fields.i.end": "1"}, cols)
    assert "must be positive" in fails(spark, {"rows-per-second": "0"}, cols, streaming=True)


def test_unbounded_table_in_batch_mode_is_rejected(spark):
    msg = fails(spark, {})
    assert msg.startswith(f"Querying an unbounded table '{'default_catalog.default_database.T'}' in batch mode")


def test_factories_are_registered():
    import connectors  # noqa: F401  (registers every built-in connector)
    from connectors.base import factory_for
    assert factory_for("datagen", "t").identifier == "datagen"
    assert factory_for("print", "t").accepts_updates
    assert factory_for("blackhole", "t").accepts_updates
