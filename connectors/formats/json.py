"""Flink's ``json`` format: decode a line into columns, encode columns into a line.

Decoding (``JsonParserRowDataDeserializationSchema``'s semantics) runs Spark's
``from_json`` twice at most: first with a *strict* wire schema (native Spark types
for numbers and booleans, strings for temporal values, which are then parsed with
Flink's patterns); only for a line Spark rejects, a *lenient* wire schema reads
numbers and booleans as text and converts them as Flink does (``"12"`` is an INT,
``1.9`` truncates to 1, ``"yes"`` is FALSE). DECIMAL is parsed natively in both
(exact digits), with DECIMAL(38, s) on the wire so that an overflowing value
becomes NULL as in Flink rather than an error.

Errors: without ``json.ignore-parse-errors`` any failure marks the line bad (the
connector fails the job). With it, a field that cannot be converted becomes NULL
and only a line that is not a JSON object (or whose structure does not fit the
schema) is bad, i.e. skipped.

Encoding builds the JSON text with ``concat`` so that every value is printed the
way Flink's ``RowDataToJsonConverters`` + Jackson print it (see common.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as st

from connectors.base import Options
from connectors.formats import common as C
from connectors.formats.decoded import Decoded, Leaf, any_true, as_column, let, pick
from sqlengine.errors import ConnectorError
from sqlengine.types import DataType

CORRUPT = "__sqlengine_corrupt_record"
_LENIENT_ROOTS = ("BOOLEAN",) + C.INTEGRAL_ROOTS + C.FLOATING_ROOTS


@dataclass(frozen=True)
class JsonOptions:
    fail_on_missing_field: bool = False
    ignore_parse_errors: bool = False
    iso: bool = False  # json.timestamp-format.standard = 'ISO-8601'
    map_null_key_mode: str = "FAIL"
    map_null_key_literal: str = "null"
    decimal_plain: bool = False
    ignore_null_fields: bool = False


def parse_options(options: Options, prefix: str = "json.") -> JsonOptions:
    """Pop every ``json.*`` option Flink defines; validate values and combinations."""
    o = JsonOptions(
        fail_on_missing_field=options.pop_bool(prefix + "fail-on-missing-field", False),
        ignore_parse_errors=options.pop_bool(prefix + "ignore-parse-errors", False),
        iso=options.pop_choice(prefix + "timestamp-format.standard", ("SQL", "ISO-8601"), "SQL") == "ISO-8601",
        map_null_key_mode=options.pop_choice(prefix + "map-null-key.mode", ("FAIL", "DROP", "LITERAL"), "FAIL"),
        map_null_key_literal=options.pop(prefix + "map-null-key.literal", "null"),
        decimal_plain=options.pop_bool(prefix + "encode.decimal-as-plain-number", False),
        ignore_null_fields=options.pop_bool(prefix + "encode.ignore-null-fields", False),
    )
    options.pop_bool(prefix + "decode.json-parser.enabled", True)  # always our own parser
    # map-null-key.*: Spark maps cannot hold NULL keys, so there is nothing to apply them to.
    if o.fail_on_missing_field and o.ignore_parse_errors:
        raise ConnectorError(
            f"fail-on-missing-field and ignore-parse-errors shouldn't both be true "
            f"('{prefix}fail-on-missing-field', '{prefix}ignore-parse-errors').")
    return o


# -- decode ------------------------------------------------------------------------------
def decode(text: Column, columns: list[tuple[str, DataType]], options: Options,
           prefix: str = "json.") -> tuple[list[Column], Column]:
    """Columns parsed from the JSON object in ``text``, and ``bad`` (see the package doc)."""
    d = decode_detailed(text, columns, parse_options(options, prefix), inline=True)
    return d.columns, d.bad


def decode_detailed(text: Column, columns: list[tuple[str, DataType]], o: JsonOptions,
                    tag: str = "__json", inline: bool = False, fast: Optional[Column] = None,
                    typed: bool = False, sent: Optional[list] = None) -> Decoded:
    """Like ``decode`` plus a ``reason`` Column naming what is wrong with a bad line.

    The parsed objects are ``prelude`` columns (``<tag>_strict``, and ``<tag>_loose``
    computed only for lines the strict reading rejects): every field, check and reason
    refers to them, and inlined they would repeat ``from_json`` so often that the
    projection outgrows whole-stage codegen and runs interpreted (1M records with four
    numeric/time fields: 15 s inlined, ``benchmarks/README.md``). ``inline``: no prelude,
    the parsing repeated in every column (for callers that select the columns directly).
    ``fast``: the strict reading done already where it is not null (json_arrow.py); with
    ``typed`` it holds the table's values themselves (TIMESTAMPs parsed, nothing left to
    convert or check): a row that has it takes them as they are, and only the others are
    parsed here (every expression below is NULL for the first, and cheap); ``sent``: the
    members it has (json_arrow.sent_fields: the values no operator reads left out, NULL
    here), or None for all."""
    for name, t in columns:
        _check_type(t)
    if any(name == CORRUPT for name, _ in columns):
        raise ConnectorError(f"Column name '{CORRUPT}' is reserved by the JSON format.")
    opts = {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": CORRUPT,
            "allowSingleQuotes": "false", "timeZone": "UTC"}
    parsed = F.from_json(text, _wire_schema(columns, lenient=False), opts)
    if fast is not None:
        parsed = F.when(fast.isNull(), parsed) if typed else F.when(fast.isNotNull(), fast).otherwise(parsed)
    prelude = [parsed.alias(f"{tag}_strict")]
    strict = parsed if inline else F.col(f"{tag}_strict")
    strict_ok = strict.getField(CORRUPT).isNull()
    leaves = [_convert(strict.getField(n), t, o, lenient=False) for n, t in columns]
    for i, (n, t) in enumerate(columns):
        if t.root in ("TIMESTAMP", "TIMESTAMP_LTZ") and not inline:
            # Parsed in the prelude: its fallback for text only Flink's SMART resolving reads
            # is interpreted (common.parse_timestamp), which keeps the projection of the
            # values in whole-stage code generation.
            value = _convert(parsed.getField(n), t, o, lenient=False).value
            prelude.append(value.alias(f"{tag}_ts{i}"))
            leaves[i] = _parsed(strict.getField(n), F.col(f"{tag}_ts{i}"))
    line_bad = ~strict_ok
    if any(_needs_lenient(t) for _, t in columns):
        # Only lines Spark's strict reading rejects take this (conditional) path.
        lenient, can_fail = _lenient(text, columns, o, opts)
        loose_expr = F.when(parsed.getField(CORRUPT).isNotNull(), lenient)
        prelude.append(loose_expr.alias(f"{tag}_loose"))
        loose = loose_expr if inline else F.col(f"{tag}_loose")
        alt = _lenient_alt(loose, can_fail)
        leaves = [Leaf(F.when(strict_ok, a.value).otherwise(b.value), pick(strict_ok, a.bad, b.bad))
                  for a, b in zip(leaves, alt)]
        line_bad = ~strict_ok & loose.getField(CORRUPT).isNotNull()
    missing = _missing_fields(text, columns) if o.fail_on_missing_field else None
    typed_values = _typed_values(fast, columns, sent) if typed and fast is not None else None
    decoded = _assemble(text, columns, leaves, line_bad, missing, o.ignore_parse_errors,
                        fast if typed else None, typed_values)
    if not inline:
        decoded.prelude.extend(prelude)
    return decoded


def _lenient(text: Column, columns, o: JsonOptions, opts: dict[str, str]) -> tuple[Column, list[bool]]:
    """The lenient reading of a line: a struct of the corrupt-record field and per column
    its value ``v<i>``, or, when the conversion can fail, ``vb<i>``: its value ``v`` and
    error flag ``b``; and per column whether it can fail.

    Every conversion is bound once (``let``): written out in separate value, check and
    reason expressions they were repeated so often that this path was 96% of the scan's
    generated code (331 KB of Java for four fields, 13 KB without it), which Janino and
    then HotSpot's C2 compiled for every query although good lines never run it
    (benchmarks/README.md)."""
    can_fail: list[bool] = []

    def members(loose: Column) -> Column:
        out = [loose.getField(CORRUPT).alias(CORRUPT)]
        for i, (n, t) in enumerate(columns):
            leaf = _convert(loose.getField(n), t, o, lenient=True)
            can_fail.append(not isinstance(leaf.bad, bool))
            if isinstance(leaf.bad, bool):
                out.append(leaf.value.alias(f"v{i}"))
            else:
                out.append(let(leaf.value, _with_flag(leaf)).alias(f"vb{i}"))
        return F.struct(*out)
    return let(F.from_json(text, _wire_schema(columns, lenient=True), opts), members), can_fail


def _with_flag(leaf: Leaf):
    return lambda v: F.struct(v.alias("v"), as_column(leaf.bad_of(v)).alias("b"))


def _lenient_alt(loose: Column, can_fail: list[bool]) -> list[Leaf]:
    """The lenient leaves, read from the struct ``_lenient`` made."""
    return [Leaf(loose.getField(f"vb{i}").getField("v"), loose.getField(f"vb{i}").getField("b")) if fails
            else Leaf(loose.getField(f"v{i}"), False) for i, fails in enumerate(can_fail)]


def _typed_values(fast: Column, columns, sent: Optional[list]) -> list[Column]:
    """Each column's value in the reader's typed struct ``fast``, which has the members
    ``sent`` (``[name, spec]`` as json_arrow's, all when None): a value left out is NULL,
    a ROW read in part is rebuilt with NULL for the members left out (NULL where it is)."""
    if sent is None:
        return [fast.getField(name) for name, _ in columns]
    specs = {n: s for n, s in sent}
    return [_typed_member(fast, name, t, specs.get(name)) for name, t in columns]


def _typed_member(parent: Column, name: str, t: DataType, spec) -> Column:
    if spec is None:
        return F.lit(None).cast(t.to_spark())
    value = parent.getField(name)
    if isinstance(spec, str) or t.root != "ROW" or _whole(t, spec):
        return value
    members = {n: s for n, s in spec[1]}
    row = F.struct(*[_typed_member(value, f.name, f.type, members.get(f.name)).alias(f.name) for f in t.fields])
    return F.when(value.isNotNull(), row)


def _whole(t: DataType, spec) -> bool:
    """Whether a ROW's sent spec has every member of ``t``, at every depth."""
    if isinstance(spec, str) or t.root != "ROW":
        return True
    members = {n: s for n, s in spec[1]}
    return len(members) == len(t.fields) and all(f.name in members and _whole(f.type, members[f.name])
                                                  for f in t.fields)


def _assemble(text: Column, columns, leaves: list[Leaf], line_bad: Column,
              missing: Optional[Column], ignore: bool, typed: Optional[Column] = None,
              typed_values: Optional[list[Column]] = None) -> Decoded:
    """``typed``: the reader's values where not null (decode_detailed), taken as they are
    (``typed_values``: each column's)."""
    reasons = [F.when(line_bad, F.lit("not a JSON object matching the table schema."))]
    reasons += [F.when(as_column(leaf.bad), F.lit(f"Fail to deserialize at field: {name}."))
                for leaf, (name, _) in zip(leaves, columns) if not isinstance(leaf.bad, bool)]
    if missing is not None:
        reasons.append(F.when(missing, F.lit("Some field is missing in the JSON data.")))
    # A value that cannot be converted is already NULL (as Flink nulls it when ignoring errors).
    values = [leaf.value for leaf in leaves]
    if typed is not None:
        values = [F.when(typed.isNotNull(), tv).otherwise(v) for v, tv in zip(values, typed_values)]
    values = [v.alias(name) for v, (name, _) in zip(values, columns)]
    if ignore:  # only unreadable lines are skipped
        bad = line_bad
    else:
        extra = [missing] if missing is not None else []
        bad = as_column(any_true([line_bad] + [leaf.bad for leaf in leaves] + extra))
    bad = (F.when(text.isNull(), F.lit(False))
           .when(F.trim(text) == "", F.lit(None).cast("boolean")).otherwise(bad))
    if typed is not None:
        bad = F.when(typed.isNotNull(), F.lit(False)).otherwise(bad)
    return Decoded(values, bad, F.concat_ws(" ", *reasons), may_skip=True)


def _missing_fields(text: Column, columns) -> Column:
    keys = F.json_object_keys(text)
    return F.exists(F.array(*[F.lit(n) for n, _ in columns]), lambda n: ~F.array_contains(keys, n))


def _needs_lenient(t: DataType) -> bool:
    if t.root in _LENIENT_ROOTS:
        return True
    return any(_needs_lenient(c) for c in _children(t))


def _children(t: DataType) -> list[DataType]:
    if t.root == "ROW":
        return [f.type for f in t.fields]
    if t.root == "ARRAY":
        return [t.element]
    if t.root in ("MAP", "MULTISET"):
        return [map_value(t)]
    return []


def map_value(t: DataType) -> DataType:
    """The value type of a MAP, or of a MULTISET (element -> count)."""
    return t.value if t.root == "MAP" else DataType("INT", False)


def _check_type(t: DataType) -> None:
    if t.root in ("MAP", "MULTISET"):
        C.check_map_key(t, "json")
    if t.root == "RAW":
        raise ConnectorError(f"JSON format doesn't support type {t.sql()}.")
    for c in _children(t):
        _check_type(c)


def _wire_schema(columns, lenient: bool) -> st.StructType:
    fields = [st.StructField(n, _wire_type(t, lenient), True) for n, t in columns]
    return st.StructType(fields + [st.StructField(CORRUPT, st.StringType(), True)])


def _wire_type(t: DataType, lenient: bool) -> st.DataType:
    """The type ``from_json`` reads a value as before Flink's conversion rules apply."""
    r = t.root
    if r in C.TEMPORAL_ROOTS or (lenient and r in _LENIENT_ROOTS):
        return st.StringType()
    if r == "DECIMAL":
        return st.DecimalType(38, min(t.scale or 0, 38))
    if r == "ROW":
        return st.StructType([st.StructField(f.name, _wire_type(f.type, lenient), True) for f in t.fields])
    if r == "ARRAY":
        return st.ArrayType(_wire_type(t.element, lenient), True)
    if r == "MAP":
        return st.MapType(st.StringType(), _wire_type(t.value, lenient), True)
    if r == "MULTISET":
        return st.MapType(st.StringType(), _wire_type(map_value(t), lenient), True)
    return t.to_spark()


def _convert(c: Column, t: DataType, o: JsonOptions, lenient: bool) -> Leaf:
    """Wire value -> table value (Spark type ``t.to_spark()``) and its error flag."""
    r = t.root
    if r == "TIMESTAMP" or r == "TIMESTAMP_LTZ":
        return _parsed(c, C.parse_timestamp(c, o.iso, r == "TIMESTAMP_LTZ"))
    if r == "DATE":
        return _parsed(c, C.parse_date(c))
    if r == "TIME":
        return _parsed(c, C.parse_time_millis(c, keep_millis=False))
    if r == "DECIMAL":
        return Leaf(c.try_cast(t.to_spark()), False)
    if lenient and r in _LENIENT_ROOTS:
        return _lenient_leaf(c, t)
    if r == "ROW":
        return _convert_row(c, t, o, lenient)
    if r in ("ARRAY", "MAP", "MULTISET") and _needs_conversion(t, lenient):
        return _convert_collection(c, t, o, lenient)
    return Leaf(c, False)


def _parsed(text: Column, value: Column) -> Leaf:
    return Leaf(value, text.isNotNull() & value.isNull(), source=text)


def _lenient_leaf(c: Column, t: DataType) -> Leaf:
    if t.root == "BOOLEAN":
        return Leaf(C.parse_boolean(c), False)
    if t.root in C.FLOATING_ROOTS:
        return _parsed(c, C.parse_floating(c, t))
    return _parsed(c, C.parse_integral(c, t))


def _needs_conversion(t: DataType, lenient: bool) -> bool:
    if t.root in C.TEMPORAL_ROOTS or t.root == "DECIMAL" or (lenient and t.root in _LENIENT_ROOTS):
        return True
    if t.root == "MULTISET":
        return lenient
    return any(_needs_conversion(c, lenient) for c in _children(t))


def _convert_row(c: Column, t: DataType, o: JsonOptions, lenient: bool) -> Leaf:
    if not _needs_conversion(t, lenient):
        return Leaf(c, False)
    leaves = [_convert(c.getField(f.name), f.type, o, lenient) for f in t.fields]
    value = F.when(c.isNotNull(), F.struct(*[leaf.value.alias(f.name) for leaf, f in zip(leaves, t.fields)]))
    return Leaf(value, any_true([leaf.bad for leaf in leaves]))


def _convert_collection(c: Column, t: DataType, o: JsonOptions, lenient: bool) -> Leaf:
    inner = t.element if t.root == "ARRAY" else map_value(t)
    if t.root == "ARRAY":
        value = F.transform(c, lambda x: _convert(x, inner, o, lenient).value)
        bad = F.exists(c, lambda x: as_column(_convert(x, inner, o, lenient).bad))
    else:
        value = F.transform_values(c, lambda k, v: _convert(v, inner, o, lenient).value)
        bad = F.exists(F.map_values(c), lambda v: as_column(_convert(v, inner, o, lenient).bad))
    return Leaf(value, F.coalesce(bad, F.lit(False)))


# -- encode ------------------------------------------------------------------------------
def encode(cols: list[tuple[Column, DataType, str]], options: Options, prefix: str = "json.",
           local_time_zone: str = "UTC") -> Column:
    """One JSON object per row, every column in order, exactly as Flink writes it.

    ``local_time_zone`` is accepted for symmetry with other formats; Flink's JSON
    writer prints TIMESTAMP_LTZ in UTC with a ``Z`` suffix regardless of it.
    """
    return encode_with(cols, parse_options(options, prefix))


def encode_with(cols: list[tuple[Column, DataType, str]], o: JsonOptions) -> Column:
    for _, t, _ in cols:
        _check_type(t)
    return _object([(name, c, t) for c, t, name in cols], o)


def _object(members: list[tuple[str, Column, DataType]], o: JsonOptions) -> Column:
    parts = []
    for name, c, t in members:
        part = F.concat(F.lit(quote(name) + ":"), value_text(c, t, o))
        parts.append(F.when(c.isNotNull(), part) if o.ignore_null_fields else part)
    return F.concat(F.lit("{"), F.concat_ws(",", *parts), F.lit("}"))


def value_text(c: Column, t: DataType, o: JsonOptions) -> Column:
    """The JSON text of one value (``null`` for NULL); never NULL itself."""
    if t.root == "ROW":
        inner = _object([(f.name, c.getField(f.name), f.type) for f in t.fields], o)
        return F.when(c.isNull(), F.lit("null")).otherwise(inner)
    return F.coalesce(_text(c, t, o), F.lit("null"))


def _text(c: Column, t: DataType, o: JsonOptions) -> Optional[Column]:
    r = t.root
    if r == "NULL":
        return F.lit("null")
    if r == "BOOLEAN" or r in C.INTEGRAL_ROOTS:
        return c.cast("string")
    if r in C.FLOATING_ROOTS:
        text = C.floating_text(c)
        special = F.isnan(c) | (F.abs(c) == F.lit(float("inf")))
        return F.when(special, F.concat(F.lit('"'), text, F.lit('"'))).otherwise(text)
    if r == "DECIMAL":
        return C.decimal_text(c, t.scale or 0, o.decimal_plain)
    if r in ("CHAR", "VARCHAR"):
        return string_text(c)
    if r in ("BINARY", "VARBINARY"):
        return _quoted(F.regexp_replace(F.base64(c), r"[\r\n]", ""))
    if r in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return _quoted(C.format_timestamp(c, o.iso, r == "TIMESTAMP_LTZ"))
    if r == "DATE":
        return _quoted(F.date_format(c, "yyyy-MM-dd"))
    if r == "TIME":
        return _quoted(C.format_time(c, with_fraction=False))
    if r == "ARRAY":
        items = F.transform(c, lambda x: value_text(x, t.element, o))
        return F.concat(F.lit("["), F.array_join(items, ","), F.lit("]"))
    if r in ("MAP", "MULTISET"):
        vt = map_value(t)
        entries = F.transform(F.map_entries(c), lambda e: F.concat(
            string_text(e.getField("key")), F.lit(":"), value_text(e.getField("value"), vt, o)))
        return F.concat(F.lit("{"), F.array_join(entries, ","), F.lit("}"))
    raise ConnectorError(f"JSON format doesn't support type {t.sql()}.")


def _quoted(text: Column) -> Column:
    return F.concat(F.lit('"'), text, F.lit('"'))


def string_text(c: Column) -> Column:
    """A JSON string literal escaped as Jackson escapes it (Spark's ``to_json`` is Jackson):
    the one-string array's JSON with its brackets trimmed (the literal starts and ends with
    '"', so only the array's go). Every string goes through Jackson: a regular expression
    choosing the strings that need escaping, and ``substr`` cutting the brackets (it counts
    the characters of the whole text, twice), cost more than Jackson's pass: 17% of the JVM's
    samples writing Nexmark's q23 (strings of up to 400 characters, with backslashes), and
    1.8-2.9 s against 1.1-1.5 s for 1M such strings in local Spark; the same time for strings
    with nothing to escape (benchmarks/README.md). The brackets are cut from the text's bytes:
    ``btrim(text, '[]')`` walks the whole string and allocates two int arrays of its length
    (Spark's ``UTF8String.trimRight(trimString)``), 7% of the JVM's samples in Nexmark's q20,
    and 3.2 s against 1.0 s (``to_json`` alone 0.7 s) for 3M strings of up to 340 characters."""
    return F.when(c.isNotNull(), C.cut_bytes(F.to_json(F.array(c)), 1, 1))


def quote(text: str) -> str:
    """A static JSON string literal, escaped like Jackson (upper-case ``\\u00XX``)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[ch])
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


_SHORT_ESCAPES = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
