"""Decoding a batch of JSON records in the reader's Python worker with Arrow's JSON reader.

The ``json`` format decodes in Spark (json.py): ``from_json`` with a strict wire schema,
then Flink's conversions. For a Kafka scan that was ~40% of the decoding tasks' JVM
time (Jackson, a parser per record); Arrow's reader (C++, one pass over the batch) does
the same strict reading at ~0.5 s per million small records in one thread. So the
reader tries it on each batch of records and, when it succeeds, sends the result
beside the raw bytes (``__value_fast``: a struct exactly of json.py's strict wire type,
its corrupt-record field null; or of the table's types, below); json.py uses it instead of ``from_json`` for those
rows. Everything after the strict reading (temporal parsing, the lenient fallback, the
error naming topic, partition and offset) is unchanged.

Only a batch Arrow reads *exactly* as Spark's strict reading would is taken; any doubt
sends the whole batch the old way (``decode`` returns None), so a result differs only
in speed:

* column types whose strict wire value Arrow produces identically: BOOLEAN, TINYINT,
  SMALLINT, INT, BIGINT, CHAR/VARCHAR/STRING, the temporal types (read as text,
  parsed in Spark as before) and ROWs of these (a struct; Nexmark's events are three).
  FLOAT, DOUBLE (Arrow and Jackson disagree at the edges: ``1e400``), DECIMAL, BYTES,
  ARRAY and MAP: not at all (``wire_fields`` is None);
* Arrow rejects the batch where Spark's strict reading rejects a record (a string for a
  number, ``1.0`` or an overflow for an integer, a number for a string, a duplicated
  key, control characters in a string); a string that is not valid UTF-8 (Arrow keeps
  its bytes, Spark reads U+FFFD) is checked for here;
* each record must be one JSON object alone on its line: first byte ``{``, last byte
  ``}`` (Arrow crashes the process on a top-level ``null``), no line break inside
  (the batch is one newline-separated buffer), and as many rows out as records in.

Once a batch is decoded here, Spark reads its records' bytes again only to name a record
that fails later, in a conversion: of the types above only the temporal ones can. So
where the table's temporal fields are TIMESTAMPs in Flink's SQL form (``raw_free``), the
reader sends empty bytes instead of a decoded batch's records (Nexmark at 1M events: q0
6% faster, q3 14%, ``benchmarks/README.md``) once every such value in the batch has a
shape Spark's conversion always reads (``covers``, ``TS_SAFE``: no value of it can fail
in Spark, which resolves a day past the month's end as Flink does); any other batch
keeps its bytes.

Such tables (``raw_free``) also get their values *typed*: for a covered batch the reader
sends ``__value_fast`` as the table holds the values, each TIMESTAMP parsed here from
its digits' fixed positions (``_timestamps``, vectorized: the instant Spark's conversion
gives, tested on random times), and Spark takes the struct's members as they are, with
no conversion or check of its own; a batch not covered is sent as NULL, and Spark
reads its bytes (``finish``). Nexmark's q5 at 10M events: 10% fewer task-seconds
(benchmarks/README.md).

Values no operator of the job reads (``ScanContext.unread``, sqlengine/plan/reads.py) are
sent as NULL in a decoded batch (``Decoder.narrow``): Arrow has checked them already, so
only a temporal one could still fail in Spark, and that one is left out only when the
batch is covered. An unread STRING value is not even read (``Decoder.read_schema``):
Flink 2.3's Kafka source fails on a bad value in any declared field, read or not, but
never on a string field (any JSON value has a text), so there is nothing of it to check.
Nexmark's q3 reads no member of the bids that are 92% of its events:
at 10M events its INSERT took 56.6 s instead of 72.3 s (benchmarks/README.md). Typed, they
are not in the struct at all (``sent_fields``; json.py puts NULL in their place): Spark
converts every member of the struct a Python source gives it from Arrow into its rows,
read or not, and its TIMESTAMPs need no parsing here (Arrow's reading and ``covers``
still check every value).
"""
from __future__ import annotations

import json
from typing import Optional

import numpy as np
import pyarrow as pa

CORRUPT = "__sqlengine_corrupt_record"  # json.CORRUPT (not imported: json.py imports pyspark.sql)
TIMESTAMP_ARROW = pa.timestamp("us", tz="UTC")  # Spark's TIMESTAMP from Arrow
_MONTH_DAYS = np.array([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], np.int64)
# Flink type root -> (Arrow type, Spark type) of its strict wire value.
KINDS = {
    "BOOLEAN": (pa.bool_(), "boolean"), "TINYINT": (pa.int8(), "tinyint"), "SMALLINT": (pa.int16(), "smallint"),
    "INT": (pa.int32(), "int"), "BIGINT": (pa.int64(), "bigint"), "CHAR": (pa.string(), "string"),
    "VARCHAR": (pa.string(), "string"), "DATE": (pa.string(), "string"), "TIME": (pa.string(), "string"),
    "TIMESTAMP": (pa.string(), "string"), "TIMESTAMP_LTZ": (pa.string(), "string"),
}
_OPEN, _CLOSE = ord("{"), ord("}")
# A TIMESTAMP in Flink's SQL form that json.py's conversion never fails on: a 4-digit year
# from 1000, month 01-12, day 01-31 (29-31 past the month's end resolve to its last day),
# hour 00-23, minute and second 00-59, up to 9 fraction digits.
TS_SAFE = (r"^[1-9][0-9]{3}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]) ([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"
           r"(\.[0-9]{1,9})?$")
_CORRUPT = CORRUPT.encode()


def wire_fields(columns) -> Optional[list]:
    """``(json name, wire spec)`` per column, or None when a column's type is not one this
    path reads (see the module docstring). A spec is a type root of ``KINDS``, or for a
    ROW ``["ROW", [[name, spec], ...]]``."""
    out = []
    for name, t in columns:
        spec = _spec(t)
        if spec is None:
            return None
        out.append((name, spec))
    return out


def raw_free(fields: list, iso: bool) -> Optional[list]:
    """The paths (field names from a column down) of ``fields``' TIMESTAMP values when
    every temporal field is a TIMESTAMP in Flink's SQL form (``iso`` false), else None:
    whether a decoded batch's record bytes may be left out (the module docstring)."""
    paths: list = []

    def walk(prefix: list, spec) -> bool:
        if spec == "TIMESTAMP" and not iso:
            paths.append(prefix)
            return True
        if isinstance(spec, str):
            return spec not in ("DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ")
        return all(walk(prefix + [n], s) for n, s in spec[1])
    return paths if all(walk([n], s) for n, s in fields) else None


def _spec(t):
    if t.root in KINDS:
        return t.root
    if t.root == "ROW":
        fields = wire_fields([(f.name, f.type) for f in t.fields])
        names = [n for n, _ in fields or []]
        if fields is None or len(set(names)) != len(names):
            return None
        return ["ROW", [list(f) for f in fields]]
    return None


def _spec_at(fields: list, path: list):
    """The spec of the value at ``path`` (names from a column down), or None."""
    spec = ["ROW", fields]
    for name in path:
        if isinstance(spec, str):
            return None
        spec = dict((n, s) for n, s in spec[1]).get(name)
        if spec is None:
            return None
    return spec


def _values_at(values: pa.Array, path: list) -> pa.Array:
    """The values at ``path`` (member names) of a struct array; a null struct's members are
    null (``pc.struct_field``, not the array's own ``field()``)."""
    import pyarrow.compute as pc
    for name in path:
        values = pc.struct_field(values, [values.type.get_field_index(name)])
    return values


def _temporal(spec) -> bool:
    if isinstance(spec, str):
        return spec in ("DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ")
    return any(_temporal(s) for _, s in spec[1])


def _at_paths(struct: pa.Array, paths: list, leaf) -> pa.Array:
    """``struct`` (a StructArray) with each value at ``paths`` (member names down from it)
    replaced by ``leaf(values)``; its own validity and every other value as they were."""
    here = {p[0] for p in paths if len(p) == 1}
    children = []
    for i, f in enumerate(struct.type):
        child = struct.field(i)
        if f.name in here:
            child = leaf(child)
        else:
            below = [p[1:] for p in paths if len(p) > 1 and p[0] == f.name]
            if below and pa.types.is_struct(f.type):
                child = _at_paths(child, below, leaf)
        children.append(child)
    mask = struct.is_null() if struct.null_count else None
    fields = [pa.field(f.name, c.type) for f, c in zip(struct.type, children)]
    return pa.StructArray.from_arrays(children, fields=fields, mask=mask)


def _widen(values: pa.Array, full: pa.DataType) -> pa.Array:
    """``values``, read with some members of the ROW type ``full`` left out (at any depth),
    as ``full``: NULL for the members left out, its own validity as it was."""
    if values.type == full:
        return values
    children = []
    for f in full:
        i = values.type.get_field_index(f.name)
        children.append(_widen(values.field(i), f.type) if i >= 0 else pa.nulls(len(values), f.type))
    mask = values.is_null() if values.null_count else None
    return pa.StructArray.from_arrays(children, fields=list(full), mask=mask)


def _without(struct: pa.Array, paths: list) -> pa.Array:
    """``struct`` with the values at ``paths`` all NULL."""
    return _at_paths(struct, paths, lambda values: pa.nulls(len(values), values.type))


def _arrow(spec, typed: bool = False) -> pa.DataType:
    if isinstance(spec, str):
        return TIMESTAMP_ARROW if typed and spec == "TIMESTAMP" else KINDS[spec][0]
    return pa.struct([pa.field(n, _arrow(s, typed)) for n, s in spec[1]])


def _spark(spec, typed: bool) -> str:
    if isinstance(spec, str):
        return "timestamp" if typed and spec == "TIMESTAMP" else KINDS[spec][1]
    return f"struct<{', '.join(_member(n, s, typed) for n, s in spec[1])}>"


def _member(name: str, spec, typed: bool) -> str:
    return f"`{name.replace('`', '``')}`: {_spark(spec, typed)}"


def spark_type(fields: list, typed: bool = False, unread: Optional[list] = None) -> str:
    """The Spark DDL of ``__value_fast``: json.py's strict wire schema, or with ``typed``
    (the reader's ``raw_free`` option) the table's values, TIMESTAMPs parsed, without the
    values no operator reads (``sent_fields``)."""
    members = [_member(n, s, typed) for n, s in sent_fields(fields, typed, unread)]
    return f"struct<{', '.join(members + [f'{CORRUPT}: string'])}>"


def sent_fields(fields: list, typed: bool, unread: Optional[list]) -> list:
    """The members ``__value_fast`` has: typed, ``fields`` without the values at the
    ``unread`` paths (a covered batch is sent without them: Spark converts every member
    of the struct it is given from Arrow into its rows, read or not — Nexmark's events
    hold 25 values, q5 reads 5); otherwise all of them (the unread ones sent as NULL)."""
    return prune(fields, unread or []) if typed else fields


def prune(fields: list, paths: list) -> list:
    """``fields`` (``[name, spec]`` pairs) without the values at ``paths`` (names from a
    field down); a ROW that would lose every member keeps its first (the ROW is read)."""
    out = []
    for name, spec in fields:
        below = [p[1:] for p in paths if p and p[0] == name]
        if [] in below:
            continue  # the whole field
        if below and not isinstance(spec, str):
            spec = ["ROW", prune(spec[1], below) or [list(spec[1][0])]]
        out.append([name, spec])
    return out


def _select(struct: pa.Array, fields: list) -> pa.Array:
    """``struct`` (a StructArray) with only the members of ``fields`` (``[name, spec]``,
    ``prune``d from its own), its validity as it was."""
    children, out_fields = [], []
    for name, spec in fields:
        child = struct.field(struct.type.get_field_index(name))
        if not isinstance(spec, str):  # (pruned at any depth below)
            child = _select(child, spec[1])
        children.append(child)
        out_fields.append(pa.field(name, child.type))
    mask = struct.is_null() if struct.null_count else None
    return pa.StructArray.from_arrays(children, fields=out_fields, mask=mask)


def _timestamps(text: pa.Array) -> pa.Array:
    """Flink's SQL-form TIMESTAMP text, every value ``TS_SAFE``, as microseconds since the
    epoch in UTC (the session time zone) — what json.py's conversion makes of it: the
    fraction truncated to microseconds, a day past the month's end its last day.

    Arrow's ISO 8601 parser (C++) reads a batch whose every value is a real date with at
    most six fraction digits exactly, and fails on any other: a batch it fails on is
    read by ``_digit_timestamps`` (Nexmark's events: 0.02 s a million values against
    0.2-0.4 s)."""
    import pyarrow.compute as pc
    try:
        return pc.cast(text, pa.timestamp("us")).cast(TIMESTAMP_ARROW)  # (a naive time taken as UTC)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return _digit_timestamps(text)


def _digit_timestamps(text: pa.Array) -> pa.Array:
    """``_timestamps`` of any ``TS_SAFE`` text: read from the digits' fixed positions,
    vectorized."""
    n = len(text)
    present = np.asarray(text.is_valid()) if text.null_count else np.ones(n, np.bool_)
    _, offsets, data = text.buffers()
    starts = np.frombuffer(offsets, np.int32)[text.offset:text.offset + n + 1]
    at = np.flatnonzero(present)
    first, size = starts[:-1][at].astype(np.int64), (starts[1:] - starts[:-1])[at]
    chars = np.frombuffer(data, np.uint8) if data is not None and data.size else np.zeros(1, np.uint8)
    last = len(chars) - 1

    def digits(pos: int, count: int) -> np.ndarray:
        out = np.zeros(len(at), np.int64)
        for k in range(pos, pos + count):
            out = out * 10 + (chars[np.minimum(first + k, last)].astype(np.int64) - 48)
        return out
    year, month, day = digits(0, 4), digits(5, 2), digits(8, 2)
    leap = (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
    day = np.minimum(day, _MONTH_DAYS[month - 1] + (leap & (month == 2)))
    # days from 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil)
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + np.where(month > 2, -3, 9)) + 2) // 5 + day - 1
    days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    seconds = ((days * 24 + digits(11, 2)) * 60 + digits(14, 2)) * 60 + digits(17, 2)
    fraction = np.zeros(len(at), np.int64)  # ".f" to ".fffffffff" from position 19: six digits kept
    places = size - 20
    for k in range(6):
        digit = chars[np.minimum(first + 20 + k, last)].astype(np.int64) - 48
        fraction = fraction * 10 + np.where(k < places, digit, 0)
    micros = np.zeros(n, np.int64)
    micros[at] = seconds * 1_000_000 + fraction
    validity = None if not text.null_count else pa.py_buffer(np.packbits(present, bitorder="little"))
    return pa.Array.from_buffers(TIMESTAMP_ARROW, n, [validity, pa.py_buffer(micros)], null_count=text.null_count)


class Decoder:
    """Executor side: ``decode`` a batch's values (bytes, or None for a tombstone)."""

    def __init__(self, option: str, raw_free: Optional[str] = None, unread: Optional[str] = None,
                 used: Optional[str] = None, tops: Optional[str] = None):
        fields = json.loads(option)
        self.schema = pa.schema([pa.field(n, _arrow(spec)) for n, spec in fields])
        self.type = pa.struct(list(self.schema) + [pa.field(CORRUPT, pa.string())])
        self.raw_free: Optional[list] = json.loads(raw_free) if raw_free else None
        typed = self.raw_free is not None
        # Per value no operator reads (plan/reads.py): its path, and whether Spark's
        # conversion of it can fail (a temporal value, parsed from its text in Spark).
        specs = [(path, _spec_at(fields, path)) for path in json.loads(unread or "[]")]
        self.unread = [(path, _temporal(spec)) for path, spec in specs if spec is not None]
        # The unread STRING values are not read at all: Flink's JSON decoding never fails on
        # a string field (it takes a string's text and any other value's JSON text), so its
        # failures are all kept by reading the other values, and Arrow's reader spends much
        # of its time on the strings (Nexmark's names, URLs, ``extra``s). They are NULL in
        # the batch decoded, as ``narrow`` leaves them anyway (benchmarks/README.md).
        skipped = [path for path, spec in specs if spec in ("CHAR", "VARCHAR")]
        self.read_schema = pa.schema([pa.field(n, _arrow(spec)) for n, spec in prune(fields, skipped)]) \
            if skipped else self.schema
        # What the reader sends (``finish``): with raw_free the table's values (``typed``),
        # only those some operator reads, and the paths of their TIMESTAMPs.
        self.kept = sent_fields(fields, typed, [p for p, _ in self.unread])
        self.sent = pa.struct([pa.field(n, _arrow(spec, typed)) for n, spec in self.kept] +
                              [pa.field(CORRUPT, pa.string())])
        self.kept_times = [p for p in self.raw_free or [] if _spec_at(self.kept, p) is not None]
        # The rows the job uses (connectors/predicate.py), on the values sent: ``used`` drops
        # the other rows of a covered batch, but for those holding each split's largest ``tops``.
        from connectors.predicate import paths, restrict

        def is_sent(path: list) -> bool:
            return _spec_at(self.kept, path) is not None
        self.tops = json.loads(tops) if tops else []
        self.used = restrict(json.loads(used), is_sent) if used and typed else None
        if not all(is_sent(p) for top in self.tops for p in paths(top)):
            self.used = None

    def used_rows(self, sent: pa.Array, splits=None) -> Optional[pa.Array]:
        """Which rows of a covered batch's sent values (``finish``) the job uses: where
        ``used`` is TRUE, and per split (``splits``, each row's) the one with the largest
        value of each of ``tops`` (None: all of them). Every value of such a batch has been
        read and checked here and no conversion of it can fail in Spark (``covers``), so a
        row dropped changes no answer and no error (Flink's scans decode every record)."""
        if self.used is None or not len(sent):
            return None
        import pyarrow.compute as pc
        from connectors.predicate import arrow_mask, top_rows

        def column(path: list) -> pa.Array:
            return _values_at(sent, path)
        keep = pc.fill_null(arrow_mask(self.used, column), False)
        if self.tops:
            keep = pc.or_(keep, pa.array(top_rows(self.tops, column, splits)))
        return keep

    def narrow(self, decoded: pa.Array, covered: bool) -> pa.Array:
        """``decoded`` with NULL for the values no operator reads, where Spark could not
        fail on them: Arrow's strict reading has checked every value of a decoded batch
        (no null row), and a temporal one is left out only when the batch is ``covered``
        (no conversion of it can fail). Flink's answer is unchanged: an unread value that
        is bad still fails the job (plan/reads.py)."""
        if not self.unread or decoded.null_count or not len(decoded):
            return decoded
        paths = [p for p, temporal in self.unread if covered or not temporal]
        return _without(decoded, paths) if paths else decoded

    def covers(self, decoded: pa.Array) -> bool:
        """Whether Spark needs none of the batch's record bytes: it was decoded here (no
        null row) and no conversion of it can fail (``TS_SAFE``)."""
        if self.raw_free is None or decoded.null_count or not len(decoded):
            return False
        import pyarrow.compute as pc
        for path in self.raw_free:
            values = _values_at(decoded, path).drop_null()
            if len(values) and not pc.all(pc.match_substring_regex(values, TS_SAFE)).as_py():
                return False
        return True

    def nulls(self, n: int) -> pa.Array:
        return pa.nulls(n, self.type)

    def finish(self, decoded: pa.Array, covered: bool) -> pa.Array:
        """What the reader sends as ``__value_fast`` for a batch ``decode`` read: without
        raw_free the strict wire values (``narrow``ed); with it the table's values that
        some operator reads (``kept``), the TIMESTAMPs parsed here, for a ``covered`` batch
        (Spark converts nothing of it), and nulls for any other (Spark reads its bytes)."""
        if self.raw_free is None:
            return self.narrow(decoded, covered)
        if not covered:
            return self.sent_nulls(len(decoded))
        return _at_paths(_select(decoded, self.kept + [[CORRUPT, "VARCHAR"]]), self.kept_times, _timestamps)

    def sent_nulls(self, n: int) -> pa.Array:
        return pa.nulls(n, self.sent)

    def decode(self, values: list) -> pa.Array:
        """The batch's strict wire values, or nulls (all rows) when the batch is not one
        this path reads exactly."""
        n = len(values)
        got = self._read(values) if n else None
        return got if got is not None else self.nulls(n)

    def _read(self, values: list) -> Optional[pa.Array]:
        if values.count(None):  # a tombstone's row is dropped later: any object will do
            values = [b"{}" if v is None else v for v in values]
        return self._read_joined(b"\n".join(values), np.fromiter(map(len, values), np.int64, len(values)))

    def decode_joined(self, buf, lengths: np.ndarray) -> pa.Array:
        """``decode`` of values given as ``b"\\n".join(values)`` (bytes or bytearray, a
        tombstone as ``{}``) and their lengths (connectors/kafka/native.py builds these)."""
        n = len(lengths)
        got = self._read_joined(buf, lengths) if n else None
        return got if got is not None else self.nulls(n)

    def _read_joined(self, buf, lengths: np.ndarray) -> Optional[pa.Array]:
        import pyarrow.json as pj
        n = len(lengths)
        if buf.count(b"\n") != n - 1 or b"\r" in buf:
            return None  # a line break inside a record
        if _CORRUPT in buf:
            return None  # Spark's reading would take it as its corrupt-record field
        if int(lengths.min()) < 2:
            return None
        ends = np.cumsum(lengths + 1) - 1  # index of the newline after each record
        data = np.frombuffer(buf, np.uint8)
        if not ((data[ends - lengths] == _OPEN).all() and (data[ends - 1] == _CLOSE).all()):
            return None  # not a bare object per line (whitespace around it, or not an object)
        try:
            table = pj.read_json(
                pa.BufferReader(buf),
                read_options=pj.ReadOptions(use_threads=False, block_size=max(1 << 20, len(buf) + 1)),
                parse_options=pj.ParseOptions(explicit_schema=self.read_schema, unexpected_field_behavior="ignore",
                                              newlines_in_values=False))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError, ValueError):
            return None
        if table.num_rows != n:
            return None
        arrays = [table.column(i).combine_chunks() for i in range(table.num_columns)]
        try:  # Arrow keeps a string's bytes as they are; Spark reads invalid UTF-8 as U+FFFD
            for a in arrays:
                if pa.types.is_string(a.type) or pa.types.is_struct(a.type):
                    a.validate(full=True)
        except pa.ArrowInvalid:
            return None
        if self.read_schema is not self.schema:  # the values not read, NULL
            read = dict(zip(table.column_names, arrays))
            arrays = [_widen(read[f.name], f.type) if f.name in read else pa.nulls(n, f.type) for f in self.schema]
        arrays.append(pa.nulls(n, pa.string()))
        return pa.StructArray.from_arrays(arrays, fields=list(self.type))
