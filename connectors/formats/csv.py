"""Flink's ``csv`` format: decode a line into columns, encode columns into a line.

Flink reads and writes CSV with Jackson's ``CsvMapper`` (``CsvRowDataDeserializationSchema``,
``CsvRowDataSerializationSchema``); this module reproduces it with regex and cast
expressions:

* Fields are split by ``csv.field-delimiter`` (default ``,``); a field starting with
  ``csv.quote-character`` (default ``"``) is quoted, a doubled quote inside stands for
  one; ``csv.escape-character`` (off by default) escapes the next character. No header.
* ``csv.null-literal`` (off by default) reads as NULL. An empty field is an empty
  STRING; for other types Flink fails to parse it, we read NULL (deliberately, so
  that Flink's own output, which writes NULL as an empty field, reads back).
* ARRAY and nested ROW values are joined with ``csv.array-element-delimiter`` (``;``).
* A line whose field count differs from the schema is malformed; with
  ``csv.ignore-parse-errors`` missing fields are NULL, unconvertible fields NULL, and
  only lines with broken quoting are skipped. ``csv.allow-comments`` skips ``#`` lines.
* Writing quotes a text value as Jackson does by default: when it is longer than 24
  characters or contains a character below the highest of delimiter, quote and
  newline (so ``a b`` and timestamps are quoted, ``abc`` is not).
"""
from __future__ import annotations

import codecs
from dataclasses import dataclass
from typing import Optional

from pyspark.sql import Column
from pyspark.sql import functions as F

from connectors.base import Options
from connectors.formats import common as C
from connectors.formats.decoded import Decoded, Leaf, any_true, as_column
from sqlengine.errors import ConnectorError
from sqlengine.types import DataType

MAX_QUOTE_CHECK = 24  # Jackson's CsvEncoder: longer values are always quoted
_NESTED_OK = ("BOOLEAN", "DECIMAL", "CHAR", "VARCHAR", "BINARY", "VARBINARY", "NULL") + \
    C.INTEGRAL_ROOTS + C.FLOATING_ROOTS + C.TEMPORAL_ROOTS


@dataclass(frozen=True)
class CsvOptions:
    field_delimiter: str = ","
    quote: Optional[str] = '"'  # None: quoting disabled
    allow_comments: bool = False
    ignore_parse_errors: bool = False
    array_delimiter: str = ";"
    escape: Optional[str] = None
    null_literal: Optional[str] = None
    decimal_scientific: bool = True  # csv.write-bigdecimal-in-scientific-notation


def parse_options(options: Options, prefix: str = "csv.") -> CsvOptions:
    """Pop every ``csv.*`` option Flink defines; validate values and combinations."""
    delimiter = _char(options, prefix + "field-delimiter", ",")
    quote = _char(options, prefix + "quote-character", None)
    disable = options.pop_bool(prefix + "disable-quote-character", False)
    if disable and quote is not None:
        raise ConnectorError("Format cannot define a quote character and disabled quote character at the same "
                             f"time ('{prefix}quote-character', '{prefix}disable-quote-character').")
    return CsvOptions(
        field_delimiter=delimiter,
        quote=None if disable else (quote or '"'),
        allow_comments=options.pop_bool(prefix + "allow-comments", False),
        ignore_parse_errors=options.pop_bool(prefix + "ignore-parse-errors", False),
        array_delimiter=_unescape(options.pop(prefix + "array-element-delimiter", ";")),
        escape=_char(options, prefix + "escape-character", None),
        null_literal=options.pop(prefix + "null-literal"),
        decimal_scientific=options.pop_bool(prefix + "write-bigdecimal-in-scientific-notation", True),
    )


def _char(options: Options, key: str, default: Optional[str]) -> Optional[str]:
    raw = options.pop(key)
    if raw is None:
        return default
    value = _unescape(raw)
    if len(value) != 1:
        raise ConnectorError(f"Option '{key}' must be a string with single character, but was: {raw}")
    return value


def _unescape(raw: str) -> str:
    """``\\t`` and ``\\u0001`` style escapes, as Flink's StringEscapeUtils.unescapeJava."""
    return codecs.decode(raw, "unicode_escape") if "\\" in raw else raw


def _rx(ch: str) -> str:
    """A character as a Java regex escape (safe inside and outside classes)."""
    return f"\\x{{{ord(ch):X}}}"


# -- decode ------------------------------------------------------------------------------
def decode(text: Column, columns: list[tuple[str, DataType]], options: Options,
           prefix: str = "csv.") -> tuple[list[Column], Column]:
    """Columns parsed from the CSV record in ``text``, and ``bad`` (see the package doc)."""
    d = decode_detailed(text, columns, parse_options(options, prefix))
    return d.columns, d.bad


def decode_detailed(text: Column, columns: list[tuple[str, DataType]], o: CsvOptions, tag: str = "") -> Decoded:
    for _, t in columns:
        _check_type(t, nested=False)
    quoted, plain = _field_patterns(o)
    field = f"(?:{quoted}|{plain})" if quoted else plain
    sep = _rx(o.field_delimiter)
    raw = F.regexp_extract_all(text, F.lit(f"(?:^|{sep})({field})"), 1)
    fields = F.transform(raw, lambda f: _unquote(f, o))
    leaves = [_convert(F.get(fields, i), t, o) for i, (_, t) in enumerate(columns)]
    broken = F.lit(False)
    if o.quote is not None:
        whole = f"^{field}(?:{sep}{field})*$"
        broken = (F.instr(text, o.quote) > 0) & ~text.rlike(whole)
    arity = F.size(raw) != F.lit(len(columns))
    values = [leaf.value.alias(name) for leaf, (name, _) in zip(leaves, columns)]
    if o.ignore_parse_errors:
        bad = broken
    else:
        bad = as_column(any_true([broken, arity] + [leaf.bad for leaf in leaves]))
    reason = F.concat_ws(" ", F.when(broken, F.lit("Unbalanced quotes.")),
                         F.when(arity, F.concat(F.lit(f"Row length mismatch. {len(columns)} fields expected but was "),
                                                F.size(raw).cast("string"), F.lit("."))),
                         *[F.when(as_column(leaf.bad), F.lit(f"Fail to deserialize at field: {name}."))
                           for leaf, (name, _) in zip(leaves, columns) if not isinstance(leaf.bad, bool)])
    skip = F.trim(text) == ""
    if o.allow_comments:
        skip = skip | text.startswith("#")
    bad = F.when(text.isNull(), F.lit(False)).when(skip, F.lit(None).cast("boolean")).otherwise(bad)
    return Decoded(values, bad, reason, may_skip=True)


def _field_patterns(o: CsvOptions) -> tuple[Optional[str], str]:
    sep = _rx(o.field_delimiter)
    esc = _rx(o.escape) if o.escape else None
    plain = f"(?:[^{sep}{esc}]|{esc}.)*" if esc else f"[^{sep}]*"
    if o.quote is None:
        return None, plain
    q = _rx(o.quote)
    # An unquoted field must not start with the quote character (that is an open quote).
    first = f"(?:[^{sep}{q}{esc}]|{esc}.)" if esc else f"[^{sep}{q}]"
    plain = f"(?:{first}{plain})?"
    inner = f"[^{q}{esc}]|{q}{q}|{esc}." if esc else f"[^{q}]|{q}{q}"
    return f"{q}(?:{inner})*{q}", plain


def _unquote(f: Column, o: CsvOptions) -> Column:
    value = f
    if o.quote is not None:
        q = o.quote
        inner = F.regexp_replace(f.substr(F.lit(2), F.length(f) - 2), _rx(q) * 2, _replacement(q))
        value = F.when(f.startswith(q) & (F.length(f) >= 2), inner).otherwise(f)
    if o.escape:
        value = _unescape_value(value, o.escape)
    if o.null_literal is not None:
        value = F.when(value != F.lit(o.null_literal), value)
    return value


def _unescape_value(value: Column, esc: str) -> Column:
    """Jackson's CsvDecoder: ``\\n`` ``\\r`` ``\\t`` ``\\0`` are control characters, ``\\x`` is ``x``."""
    e = _rx(esc)
    value = F.regexp_replace(value, e + e, _PLACEHOLDER)
    for letter, char in (("n", "\n"), ("r", "\r"), ("t", "\t"), ("0", "\0")):
        value = F.regexp_replace(value, e + letter, char)
    value = F.regexp_replace(value, e + "(.)", "$1")
    return F.regexp_replace(value, _PLACEHOLDER, _replacement(esc))


def _replacement(text: str) -> str:
    """``text`` as a literal regex replacement (Java treats ``\\`` and ``$`` specially)."""
    return text.replace("\\", "\\\\").replace("$", "\\$")


_PLACEHOLDER = "\uE000"  # stands for an escaped escape character while unescaping


def _check_type(t: DataType, nested: bool) -> None:
    ok = _NESTED_OK if nested else _NESTED_OK + ("ARRAY", "ROW")
    if t.root not in ok:
        where = " nested in ARRAY/ROW." if nested else "."
        raise ConnectorError(f"CSV format doesn't support type {t.sql()}{where}")
    for child in ([t.element] if t.root == "ARRAY" else [f.type for f in t.fields] if t.root == "ROW" else []):
        _check_type(child, nested=True)


def _convert(raw: Column, t: DataType, o: CsvOptions) -> Leaf:
    """A field's text -> value; an empty field is NULL except for strings."""
    r = t.root
    if r in ("CHAR", "VARCHAR"):
        return Leaf(raw, False)
    text = F.when(raw != "", raw)
    if r == "ARRAY":
        items = F.split(text, _rx(o.array_delimiter), -1)
        value = F.transform(items, lambda x: _convert(_null(x, o), t.element, o).value)
        bad = F.exists(items, lambda x: as_column(_convert(_null(x, o), t.element, o).bad))
        return Leaf(value, F.coalesce(bad, F.lit(False)))
    if r == "ROW":
        parts = F.split(text, _rx(o.array_delimiter), -1)
        leaves = [_convert(_null(F.get(parts, i), o), f.type, o) for i, f in enumerate(t.fields)]
        value = F.when(text.isNotNull(), F.struct(*[lf.value.alias(f.name) for lf, f in zip(leaves, t.fields)]))
        return Leaf(value, any_true([lf.bad for lf in leaves]))
    return _scalar(text, t)


def _null(x: Column, o: CsvOptions) -> Column:
    return F.when(x != F.lit(o.null_literal), x) if o.null_literal is not None else x


def _scalar(text: Column, t: DataType) -> Leaf:
    r = t.root
    if r == "NULL":
        return Leaf(F.lit(None), False)
    if r == "BOOLEAN":
        return Leaf(C.parse_boolean(text), False)
    if r in C.INTEGRAL_ROOTS:
        return _parsed(text, C.parse_integral(text, t, strict=True))
    if r in C.FLOATING_ROOTS:
        return _parsed(text, C.parse_floating(text, t))
    if r == "DECIMAL":
        return Leaf(C.parse_decimal(text, t), text.isNotNull() & ~C.decimal_parse_ok(text))
    if r in ("BINARY", "VARBINARY"):
        return _parsed(text, F.try_to_binary(text, F.lit("base64")))
    if r == "DATE":
        return _parsed(text, C.parse_date(text, lenient=True))
    if r == "TIME":
        return _parsed(text, C.parse_iso_time_millis(text, t.precision or 0))
    return _parsed(text, C.parse_timestamp(F.trim(text), iso=False, ltz=r == "TIMESTAMP_LTZ"))


def _parsed(text: Column, value: Column) -> Leaf:
    return Leaf(value, text.isNotNull() & value.isNull())


# -- encode ------------------------------------------------------------------------------
def encode(cols: list[tuple[Column, DataType, str]], options: Options, prefix: str = "csv.",
           local_time_zone: str = "UTC") -> Column:
    """One CSV record per row (no line separator), as Flink's CSV writer prints it."""
    return encode_with(cols, parse_options(options, prefix))


def encode_with(cols: list[tuple[Column, DataType, str]], o: CsvOptions) -> Column:
    for _, t, _ in cols:
        _check_type(t, nested=False)
    return F.concat_ws(o.field_delimiter, *[_field_text(c, t, o) for c, t, _ in cols])


def _field_text(c: Column, t: DataType, o: CsvOptions) -> Column:
    null = F.lit(o.null_literal or "")
    if t.root in ("ARRAY", "ROW"):
        if t.root == "ARRAY":
            items = F.transform(c, lambda x: F.coalesce(_plain_text(x, t.element, o), null))
        else:
            items = F.array(*[F.coalesce(_plain_text(c.getField(f.name), f.type, o), null) for f in t.fields])
        joined = F.when(c.isNotNull(), _quote_if_needed(F.array_join(items, o.array_delimiter), o))
        return F.coalesce(joined, null)
    text = _plain_text(c, t, o)
    if _is_textual(t):
        text = _quote_if_needed(text, o)
    return F.coalesce(text, null)


def _is_textual(t: DataType) -> bool:
    return t.root not in ("BOOLEAN", "DECIMAL", "NULL") + C.INTEGRAL_ROOTS + C.FLOATING_ROOTS


def _plain_text(c: Column, t: DataType, o: CsvOptions) -> Column:
    r = t.root
    if r == "NULL":
        return F.lit(None).cast("string")
    if r == "BOOLEAN" or r in C.INTEGRAL_ROOTS or r in C.FLOATING_ROOTS:
        return c.cast("string")
    if r == "DECIMAL":
        return C.decimal_text(c, t.scale or 0, plain=not o.decimal_scientific)
    if r in ("BINARY", "VARBINARY"):
        return F.regexp_replace(F.base64(c), r"[\r\n]", "")
    if r == "DATE":
        return F.date_format(c, "yyyy-MM-dd")
    if r == "TIME":
        return C.format_time(c, with_fraction=True)
    if r in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return C.format_timestamp(c, iso=False, ltz=r == "TIMESTAMP_LTZ")
    return c.cast("string")


def _quote_if_needed(text: Column, o: CsvOptions) -> Column:
    """Jackson's loose quoting check (``CsvEncoder._mayNeedQuotes``) and quoting."""
    if o.quote is None:
        return text
    min_safe = max(ord(o.field_delimiter), ord(o.quote), ord("\n")) + 1
    risky = f"[\\x{{0}}-\\x{{{min_safe - 1:X}}}" + (_rx(o.escape) if o.escape else "") + "]"
    needs = (F.length(text) > MAX_QUOTE_CHECK) | text.rlike(risky)
    q = o.quote
    body = F.replace(text, F.lit(q), F.lit(q + q))
    if o.escape:
        body = F.regexp_replace(text, f"({_rx(q)}|{_rx(o.escape)})", "$1$1")
    return F.when(needs, F.concat(F.lit(q), body, F.lit(q))).otherwise(text)
