"""The Kafka reader's Arrow decoding of JSON (connectors/formats/json_arrow.py) reads a
record exactly as the JSON format's strict Spark reading does, or leaves it to Spark."""
from __future__ import annotations

import datetime
import json

from pyspark.sql import functions as F

from connectors.formats import json as J
import pyarrow as pa

from connectors.formats.json_arrow import CORRUPT, TIMESTAMP_ARROW, Decoder, prune, spark_type, wire_fields
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


# -- leaving a decoded batch's bytes out (Decoder.covers) ------------------------------------
TS_ONLY = [("i", T.INT()), ("ts", T.TIMESTAMP(3)), ("r", T.ROW([("id", T.BIGINT()), ("at", T.TIMESTAMP(3))]))]
# Every TIMESTAMP text TS_SAFE takes, json.py converts (none may fail in Spark once the bytes are gone).
SAFE_TIMES = ["2023-01-01 10:00:00", "2023-02-29 10:00:00", "2024-02-31 23:59:59.123456789", "1000-01-01 00:00:00",
              "9999-12-31 23:59:59.1", "2023-04-31 00:00:00.000"]
UNSAFE_TIMES = ["2023-13-01 00:00:00", "2023-01-32 00:00:00", "2023-01-01 24:00:00", "2023-01-01 10:60:00",
                "2023-01-01 10:00:60", "0999-01-01 00:00:00", "2023-01-01T10:00:00", "2023-01-01 10:00:00Z",
                "2023-01-01", "not a time", "2023-01-01 10:00:00.1234567890"]


def test_only_tables_whose_temporal_fields_are_sql_timestamps_may_leave_bytes_out():
    from connectors.formats.json_arrow import raw_free
    assert raw_free(wire_fields(TS_ONLY), iso=False) == [["ts"], ["r", "at"]]
    assert raw_free(wire_fields([("i", T.INT()), ("s", T.STRING())]), iso=False) == []
    assert raw_free(wire_fields(TS_ONLY), iso=True) is None  # ISO-8601 text: not checked here
    for t in (T.DATE(), T.TIME(0), T.TIMESTAMP_LTZ(3)):
        assert raw_free(wire_fields(TS_ONLY + [("x", T.ROW([("t", t)]))]), iso=False) is None


def test_a_batch_is_covered_only_when_no_conversion_of_it_can_fail(spark):
    from connectors.formats.json_arrow import raw_free
    fields = wire_fields(TS_ONLY)
    d = Decoder(json.dumps(fields), json.dumps(raw_free(fields, iso=False)))

    def batch(ts: str, at: str = "2023-01-01 00:00:00") -> list:
        return [json.dumps({"i": 1, "ts": ts, "r": {"id": 1, "at": at}}).encode(), b'{"i": 2, "r": null}', None]
    for t in SAFE_TIMES:
        assert d.covers(d.decode(batch(t))) and d.covers(d.decode(batch("2023-01-01 00:00:00", t))), t
    for t in UNSAFE_TIMES:
        assert not d.covers(d.decode(batch(t))) and not d.covers(d.decode(batch("2023-01-01 00:00:00", t))), t
    assert not d.covers(d.decode([b'{"i": "12"}']))  # not decoded here: Spark reads the bytes
    assert not Decoder(json.dumps(fields)).covers(d.decode(batch(SAFE_TIMES[0])))  # no raw_free: never
    # what TS_SAFE takes, Spark's conversion of Flink's SQL form reads (no error, no NULL)
    from connectors.formats.common import parse_timestamp
    df = spark.createDataFrame([(t,) for t in SAFE_TIMES], "t string")
    assert all(r[0] is not None for r in df.select(parse_timestamp(F.col("t"), False, False)).collect())


def test_the_reader_sends_no_bytes_for_a_covered_batch():
    import numpy as np
    from connectors.formats.json_arrow import raw_free
    from connectors.kafka.reader import FAST, _MessageColumns
    fields = wire_fields(TS_ONLY)
    d = Decoder(json.dumps(fields), json.dumps(raw_free(fields, iso=False)))

    def value_column(values: list) -> tuple[list, int]:
        n = len(values)
        cols = _MessageColumns([None] * n, ["t"], np.zeros(n, np.int32), np.zeros(n, np.int32), np.arange(n), d)
        cols._values = values
        got = next(cols.batches(["__value", FAST]))
        return got.column(0).to_pylist(), got.column(1).null_count
    good = [b'{"i": 1, "ts": "2023-01-01 10:00:00"}', b'{"r": {"at": "2023-02-30 00:00:00"}}']
    assert value_column(good + [None]) == ([b"", b"", None], 0)  # a tombstone stays one
    # Spark's conversion fails: the error shows the record; Spark reads the whole batch's bytes
    bad = good + [b'{"ts": "2023-13-01 00:00:00"}']
    assert value_column(bad) == (bad, 3)


def test_the_reader_leaves_out_values_no_operator_reads():
    """plan/reads.py's unread values: typed (``raw_free``), a covered batch is sent without
    them (the struct Spark is given has only the values read: Spark converts every member
    of it into its rows); not typed, NULL in a decoded batch, a temporal one only when the
    batch is covered (else Spark's conversion of it may fail, as Flink's decoding would)."""
    import numpy as np
    from connectors.formats.json_arrow import raw_free
    from connectors.kafka.reader import FAST, _MessageColumns
    fields = wire_fields(TS_ONLY + [("s", T.STRING())])
    unread = [["s"], ["r", "id"], ["ts"]]
    d = Decoder(json.dumps(fields), json.dumps(raw_free(fields, iso=False)), json.dumps(unread))

    def read(values: list) -> list:
        n = len(values)
        cols = _MessageColumns([None] * n, ["t"], np.zeros(n, np.int32), np.zeros(n, np.int32), np.arange(n), d)
        cols._values = values
        return next(cols.batches(["__value", FAST])).column(1).to_pylist()
    good = [b'{"i": 1, "ts": "2023-01-01 10:00:00", "s": "x", "r": {"id": 7, "at": "2023-01-01 10:00:00"}}',
            b'{"i": 2, "r": null, "s": "y"}']
    got = read(good)
    at = datetime.datetime(2023, 1, 1, 10, tzinfo=datetime.timezone.utc)  # (parsed: the table's value)
    assert got == [{"i": 1, "r": {"at": at}, CORRUPT: None}, {"i": 2, "r": None, CORRUPT: None}]  # r's NULL kept
    assert d.sent == pa.struct([("i", pa.int32()), ("r", pa.struct([("at", TIMESTAMP_ARROW)])), (CORRUPT, pa.string())])
    assert spark_type(fields, True, unread) == f"struct<`i`: int, `r`: struct<`at`: timestamp>, {CORRUPT}: string>"
    # A ROW read with none of its members read keeps its first; a path the value lacks changes nothing.
    assert prune(fields, [["r", "id"], ["r", "at"], ["nope"], ["i", "x"]]) == [
        ["i", "INT"], ["ts", "TIMESTAMP"], ["r", ["ROW", [["id", "BIGINT"]]]], ["s", "VARCHAR"]]
    # With times Spark's conversion may fail on the batch is not covered: the reader sends
    # none of it (Spark reads the bytes and checks every value).
    assert read(good + [b'{"i": 3, "ts": "2023-13-01 00:00:00"}']) == [None] * 3
    # Without raw_free (a DATE, say) the reader sends the strict wire values, the times as
    # text: an unread time Spark's conversion may fail on stays (and fails the job in
    # Spark); the other unread values are NULL all the same.
    d = Decoder(json.dumps(fields), None, json.dumps(unread))
    got = read(good + [b'{"i": 3, "ts": "2023-13-01 00:00:00"}'])
    assert [(g["s"], g["ts"]) for g in got] == [(None, "2023-01-01 10:00:00"), (None, None),
                                                (None, "2023-13-01 00:00:00")]
    assert got[0]["r"] == {"id": None, "at": "2023-01-01 10:00:00"}
    # Not decoded here (Spark reads the bytes and checks every value): nothing is left out.
    assert read([b'{"i": "12", "s": "x"}']) == [None]
    # Without unread values the batch is as decoded.
    plain = Decoder(json.dumps(fields), json.dumps(raw_free(fields, iso=False)))
    decoded = plain.decode(good)
    assert plain.narrow(decoded, True) is decoded


def test_unread_strings_are_not_read_and_unread_typed_values_still_checked():
    """An unread STRING value is left out of Arrow's reading: Flink's JSON decoding never
    fails on a string field (a number or an object is taken as its JSON text), so a batch
    holding such a value is decoded here, its unread strings NULL. Every other unread
    value is still read and checked: Flink 2.3's Kafka source fails on a bad value in a
    field the query does not read (benchmarks/README.md), so such a batch goes to Spark."""
    row = T.ROW([("id", T.BIGINT()), ("name", T.STRING()), ("tag", T.STRING())])
    fields = wire_fields([("i", T.INT()), ("r", row), ("s", T.STRING())])
    d = Decoder(json.dumps(fields), None, json.dumps([["s"], ["r", "name"], ["r", "id"]]))
    assert [f.name for f in d.read_schema] == ["i", "r"] and [f.name for f in d.read_schema.field("r").type] == ["id", "tag"]
    got = d.decode([b'{"i": 1, "s": 12, "r": {"id": 7, "name": {"a": [1]}, "tag": "x"}}',
                    b'{"i": 2, "s": "y", "r": null}'])
    assert got.type == d.type
    assert got.to_pylist() == [{"i": 1, "r": {"id": 7, "name": None, "tag": "x"}, "s": None, CORRUPT: None},
                               {"i": 2, "r": None, "s": None, CORRUPT: None}]
    # An unread BIGINT that is not one, or a ROW that is not an object: Spark reads the batch.
    assert d.decode([b'{"i": 1, "r": {"id": "seven"}}']).to_pylist() == [None]
    assert d.decode([b'{"i": 1, "r": 5}']).to_pylist() == [None]
    # A read STRING is read as before: a number there is Spark's to read.
    assert d.decode([b'{"i": 1, "r": {"tag": 3}}']).to_pylist() == [None]


def test_the_reader_parses_timestamps_as_spark_converts_them(spark):
    """``_timestamps`` (the reader's parsing of a covered batch's TIMESTAMPs) gives the
    instant json.py's conversion gives for every text TS_SAFE takes: random dates of
    years 1000-9999 with days 01-31 (past the month's end: its last day), 0-9 fraction
    digits (truncated to microseconds), NULLs, a slice of a larger array."""
    import random

    import pyarrow as pa
    import pyarrow.compute as pc

    from connectors.formats.common import parse_timestamp
    from connectors.formats.json_arrow import _digit_timestamps, _timestamps
    rnd = random.Random(7)

    def text() -> str:
        fraction = "" if rnd.random() < 0.3 else "." + "".join(rnd.choices("0123456789", k=rnd.randint(1, 9)))
        return (f"{rnd.randint(1000, 9999):04d}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 31):02d} "
                f"{rnd.randint(0, 23):02d}:{rnd.randint(0, 59):02d}:{rnd.randint(0, 59):02d}{fraction}")
    def real(value: str) -> bool:  # what Arrow's own parser takes (the other values fall back)
        return value is None or len(value) < 10 or (int(value[8:10]) <= 28 and len(value) <= 26)
    for rule in ("any", "real dates"):
        texts = [text() for _ in range(5000)]
        values = ["x", "y"] + SAFE_TIMES + [None] + texts + [None]
        if rule == "real dates":
            values = [v for v in values if real(v)]
        got = _timestamps(pa.array(values, pa.string()).slice(2)).cast(pa.int64()).to_pylist()
        df = spark.createDataFrame([(v,) for v in values[2:]], "t string")
        want = [r[0] for r in df.select(F.unix_micros(parse_timestamp(F.col("t"), False, False))).collect()]
        assert got == want, rule
        assert got[values[2:].index(None)] is None and sum(g is None for g in got) == 2
        if rule == "real dates":  # Arrow's parser read them (no fallback), as the digits do
            pc.cast(pa.array(values[2:], pa.string()), pa.timestamp("us"))
            assert _digit_timestamps(pa.array(values[2:], pa.string())).equals(_timestamps(pa.array(values[2:])))


def test_a_member_left_out_deep_in_a_row_is_left_out_of_the_struct_sent():
    """``prune`` below a ROW whose own member count does not change: the struct sent has
    the type Spark is told (``sent``), at every depth."""
    from connectors.formats.json_arrow import raw_free
    cols = [("i", T.INT()), ("r", T.ROW([("id", T.BIGINT()), ("inner", T.ROW([("a", T.INT()), ("b", T.STRING())]))]))]
    fields = wire_fields(cols)
    d = Decoder(json.dumps(fields), json.dumps(raw_free(fields, iso=False)), json.dumps([["r", "inner", "b"]]))
    values = [b'{"i": 1, "r": {"id": 2, "inner": {"a": 3, "b": "x"}}}', b'{"i": 4, "r": {"id": 5, "inner": null}}']
    sent = d.finish(d.decode(values), True)
    assert sent.type == d.sent
    assert [v["r"] for v in sent.to_pylist()] == [{"id": 2, "inner": {"a": 3}}, {"id": 5, "inner": None}]
