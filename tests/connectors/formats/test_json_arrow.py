"""The Kafka reader's Arrow decoding of JSON (connectors/formats/json_arrow.py) reads a
record exactly as the JSON format's strict Spark reading does, or leaves it to Spark."""
from __future__ import annotations

import json

from pyspark.sql import functions as F

from connectors.formats import json as J
from connectors.formats.json_arrow import CORRUPT, Decoder, wire_fields
from sqlengine import types as T

COLUMNS = [("ti", T.DataType("TINYINT")), ("si", T.DataType("SMALLINT")), ("i", T.INT()), ("b", T.BIGINT()),
           ("ok", T.BOOLEAN()), ("s", T.STRING()), ("v", T.DataType("VARCHAR", precision=5)),
           ("ts", T.TIMESTAMP(3)), ("ltz", T.TIMESTAMP_LTZ(3)), ("day", T.DATE()), ("tm", T.TIME(0)),
           ("odd name", T.INT()),
           ("r", T.ROW([("id", T.BIGINT()), ("name", T.STRING()), ("at", T.TIMESTAMP(3)),
                        ("inner", T.ROW([("n", T.INT())]))]))]

# Records Arrow must take (the point of the path: a plain record of the table).
TAKEN = [
    b'{"ti": 127, "si": -32768, "i": 2147483647, "b": -9223372036854775808, "ok": true, "s": "x", "v": "abc",'
    b' "ts": "2023-01-01 10:00:00.123", "ltz": "2023-01-01 10:00:00Z", "day": "2023-01-31", "tm": "10:11:12",'
    b' "odd name": 7}',
    b'{"ti": -128, "ok": false, "s": "", "extra": [1, {"deep": [null, {"x": 1}]}], "b": 0}',
    b'{}',
    b'{"i": null, "s": null, "ok": null}',
    b'{"s": "\\u00e9\\ud83d\\ude00 \\"quoted\\" \\\\ \\/ \\n", "i": -0}',
    b'{"s": "caf\xc3\xa9", "v": "much longer than five"}',
    b'{"pri\\u0063e": 1, "\\u0069": 5}',
    b'{  "i" :  1 ,"b":2  }',
    b'{"ts": "not a time", "day": "2023-13-45", "tm": "x"}',  # text on the wire; Spark parses (and rejects) it
    # ROWs (Nexmark's events: one of three nested objects set, the others null)
    b'{"r": {"id": 7, "name": "n", "at": "2023-01-01 10:00:00.123", "inner": {"n": 1}}, "i": 1}',
    b'{"r": null, "i": 2}',
    b'{"r": {}}',
    b'{"r": {"id": null, "inner": null, "extra": {"x": [1]}}}',
    b'{"r": {"name": "caf\xc3\xa9", "inner": {}}}',
]
# Records Arrow must leave to Spark (whose strict reading rejects them, or Arrow would read them differently).
LEFT = [
    b'{"i": "12"}', b'{"i": 1.0}', b'{"i": 1e2}', b'{"i": 2147483648}', b'{"ti": 128}', b'{"b": 9223372036854775808}',
    b'{"ok": "true"}', b'{"ok": 1}', b'{"s": 12}', b'{"s": {"a": 1}}', b'{"s": [1]}', b'{"ts": 1700000000}',
    b'{"i": 1, "i": 2}', b'{"i": 1}{"i": 2}', b'{"i": 01}', b'{"i": +1}', b"{'i': 1}", b'{"i": 1,}',
    b'{"s": "a\tb"}', b'{"s": "\\ud800"}', b'{"s": "\xff"}', b'\xef\xbb\xbf{"i": 1}', b' {"i": 1}', b'{"i": 1} ',
    b'{"i":\n1}', b'{"i":\r1}', b'null', b'12', b'"x"', b'[{"i": 1}]', b'', b'{', b'}', b'{"i": 1} x',
    b'{"i": NaN}',
    b'{"r": 1}', b'{"r": "x"}', b'{"r": [1]}', b'{"r": {"id": "1"}}', b'{"r": {"id": 1.5}}',
    b'{"r": {"id": 1, "id": 2}}', b'{"r": {"name": 1}}', b'{"r": {"inner": {"n": 2147483648}}}',
    b'{"r": {"inner": 3}}', b'{"r": {"name": "\xff"}}', b'{"r": {"name": "a\tb"}}',
]


def _decoder() -> Decoder:
    fields = wire_fields(COLUMNS)
    assert fields is not None
    return Decoder(json.dumps(fields))


def _spark_strict(spark, lines: list[bytes]) -> list[dict]:
    """json.py's strict wire reading of each line (Spark's ``from_json``)."""
    opts = {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": J.CORRUPT, "allowSingleQuotes": "false",
            "timeZone": "UTC"}
    df = spark.createDataFrame([(bytearray(x),) for x in lines], "raw binary")
    parsed = F.from_json(F.col("raw").cast("string"), J._wire_schema(COLUMNS, lenient=False), opts)
    return [r[0].asDict(recursive=True) for r in df.select(parsed).collect()]


def test_arrow_takes_plain_records_and_reads_them_as_spark_strictly_does(spark):
    d = _decoder()
    got = [d.decode([line]).to_pylist()[0] for line in TAKEN]
    assert all(g is not None for g in got), [line for line, g in zip(TAKEN, got) if g is None]
    want = _spark_strict(spark, TAKEN)
    for line, g, w in zip(TAKEN, got, want):
        assert w[J.CORRUPT] is None, line
        assert g == w, line
    # the whole batch at once: the same rows
    assert d.decode(TAKEN).to_pylist() == got


def test_arrow_leaves_to_spark_what_it_would_read_differently(spark):
    d = _decoder()
    for line in LEFT:  # one at a time: each alone must be refused (a top-level null must not crash)
        assert d.decode([line]).to_pylist() == [None], line
    # one such record sends its whole batch to Spark
    assert d.decode(TAKEN[:3] + [b'{"i": "12"}']).null_count == 4
    # a tombstone (no value) does not: its row is dropped before decoding
    assert d.decode([TAKEN[0], None]).null_count == 0


def test_only_types_read_identically_take_the_arrow_path():
    assert wire_fields([("a", T.INT()), ("d", T.DOUBLE())]) is None
    assert wire_fields([("a", T.DECIMAL(10, 2))]) is None
    assert wire_fields([("r", T.ROW([("a", T.INT()), ("d", T.DOUBLE())]))]) is None
    assert wire_fields([("r", T.ARRAY(T.INT()))]) is None
    assert wire_fields([("a", T.INT()), ("s", T.STRING())]) == [("a", "INT"), ("s", "VARCHAR")]
    assert wire_fields([("r", T.ROW([("a", T.INT()), ("r2", T.ROW([("t", T.TIMESTAMP(3))]))]))]) == [
        ("r", ["ROW", [["a", "INT"], ["r2", ["ROW", [["t", "TIMESTAMP"]]]]]])]
    assert _decoder().type[len(COLUMNS)].name == CORRUPT
