"""Regular-expression, hashing, encoding, URL and JSON string functions.

REGEXP_COUNT, REGEXP_INSTR, REGEXP_SUBSTR and REGEXP_EXTRACT_ALL return NULL for a
pattern Java cannot compile (Spark fails the query) and REGEXP_EXTRACT_ALL for a group
the pattern does not have (its default group is 1, so a pattern without groups gives
NULL). JSON_QUOTE escapes ``/`` and every non-ASCII character (``\\uXXXX``) as Flink
does; JSON_UNQUOTE unquotes a valid JSON string literal and returns anything else as it is.

Flink's REGEXP_EXTRACT returns NULL when nothing matches (Spark returns '') and
when the group index exceeds the pattern's groups (Spark throws); REGEXP_REPLACE
takes the replacement literally (Matcher.quoteReplacement), while Spark expands
``$1``; TO_BASE64 never wraps lines (Spark's encoder inserts CRLF every 76 chars).
"""
from __future__ import annotations

import re

from pyspark.sql import functions as F

from sqlengine.types import ARRAY, BOOLEAN, INT, STRING as STRING_T, VARCHAR, DataType

from .base import ANY, BINARY, INTEGER, STRING, STRING_OR_BINARY, Arg, any_nullable, check, scalar
from .sparkutil import java_regex_groups, null_of
from .strings import escaped_replacement


def _string_result(args: list[Arg]) -> DataType:
    return STRING_T(any_nullable(args))


def _regexp_extract_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING], [STRING, STRING, INTEGER])
    return STRING_T(True)


@scalar("REGEXP_EXTRACT", infer=_regexp_extract_infer)
def _regexp_extract(cols, args, result, ctx):
    s, pattern = cols[0], cols[1]
    group = cols[2].cast("int") if len(cols) == 3 else F.lit(0)
    if args[1].literal and args[1].value is not None and (len(args) == 2 or args[2].literal):
        wanted = args[2].value if len(args) == 3 else 0
        groups = java_regex_groups(str(args[1].value))
        if wanted is None or wanted < 0 or groups is not None and wanted > groups:
            return F.lit(None).cast("string")
    extracted = F.call_function("regexp_extract", s, pattern, group)
    return F.when(F.rlike(s, pattern), extracted).otherwise(F.lit(None).cast("string"))


def _regexp_replace_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING, STRING])
    return _string_result(args)


@scalar("REGEXP_REPLACE", infer=_regexp_replace_infer)
def _regexp_replace(cols, args, result, ctx):
    return F.regexp_replace(cols[0], cols[1], escaped_replacement(cols[2], args[2]))


def _regexp_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING])
    return BOOLEAN(any_nullable(args))


@scalar("REGEXP", infer=_regexp_infer)
def _regexp(cols, args, result, ctx):
    return F.when(cols[1] == "", F.lit(False)).otherwise(F.rlike(cols[0], cols[1]))


def _invalid_pattern(arg: Arg) -> bool:
    """A constant pattern Java's regex cannot compile (Flink's functions then give NULL)."""
    return arg.literal and arg.value is not None and java_regex_groups(str(arg.value)) is None


def _regexp_int_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING])
    return INT(any_nullable(args) or _invalid_pattern(args[1]))


@scalar("REGEXP_COUNT", infer=_regexp_int_infer)
def _regexp_count(cols, args, result, ctx):
    if _invalid_pattern(args[1]):
        return null_of(result)
    return F.regexp_count(cols[0], cols[1]).cast("int")


@scalar("REGEXP_INSTR", infer=_regexp_int_infer)
def _regexp_instr(cols, args, result, ctx):
    if _invalid_pattern(args[1]):
        return null_of(result)
    return F.regexp_instr(cols[0], cols[1]).cast("int")


def _regexp_substr_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING])
    return STRING_T(True)


@scalar("REGEXP_SUBSTR", infer=_regexp_substr_infer)
def _regexp_substr(cols, args, result, ctx):
    if _invalid_pattern(args[1]):
        return null_of(result)
    # Spark's regexp_substr gives NULL for an empty match; Flink the empty string.
    return F.when(F.rlike(cols[0], cols[1]), F.call_function("regexp_extract", cols[0], cols[1], F.lit(0)))


def _regexp_extract_all_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING], [STRING, STRING, INTEGER])
    return ARRAY(STRING_T(True), nullable=True)


@scalar("REGEXP_EXTRACT_ALL", infer=_regexp_extract_all_infer)
def _regexp_extract_all(cols, args, result, ctx):
    """Every match's group (1 unless given); NULL for a group the pattern lacks."""
    group = cols[2].cast("int") if len(cols) == 3 else F.lit(1)
    if args[1].literal and args[1].value is not None:
        groups = java_regex_groups(str(args[1].value))
        if groups is None:
            return null_of(result)
        if len(args) == 2 or args[2].literal:
            wanted = args[2].value if len(args) == 3 else 1
            if wanted is None or not 0 <= int(wanted) <= groups:
                return null_of(result)
        else:
            return F.when((group >= 0) & (group <= groups),
                          F.regexp_extract_all(cols[0], cols[1], group))
    return F.when(group >= 0, F.regexp_extract_all(cols[0], cols[1], group))


# -- hashes / encodings ---------------------------------------------------------------
def _hash_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING_OR_BINARY])
    length = {"MD5": 32, "SHA1": 40, "SHA224": 56, "SHA256": 64, "SHA384": 96, "SHA512": 128}
    return VARCHAR(length[name], any_nullable(args)) if name in length else _string_result(args)


scalar("MD5", infer=_hash_infer)(lambda cols, args, r, ctx: F.md5(cols[0]))
scalar("SHA1", infer=_hash_infer)(lambda cols, args, r, ctx: F.sha1(cols[0]))
for _bits in (224, 256, 384, 512):
    scalar(f"SHA{_bits}", infer=_hash_infer)(
        lambda cols, args, r, ctx, _b=_bits: F.sha2(cols[0], _b))


def _sha2_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING_OR_BINARY, INTEGER])
    return _string_result(args)


@scalar("SHA2", infer=_sha2_infer)
def _sha2(cols, args, result, ctx):
    if args[1].literal and args[1].value in (224, 256, 384, 512):
        return F.sha2(cols[0], int(args[1].value))
    bits = cols[1].cast("int")
    return (F.when(bits == 224, F.sha2(cols[0], 224)).when(bits == 256, F.sha2(cols[0], 256))
            .when(bits == 384, F.sha2(cols[0], 384)).when(bits == 512, F.sha2(cols[0], 512)))


def _base64_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING_OR_BINARY])
    return _string_result(args)


scalar("TO_BASE64", infer=_base64_infer)(
    lambda cols, args, r, ctx: F.regexp_replace(F.base64(cols[0]), "\r\n", ""))
scalar("FROM_BASE64", infer=_base64_infer)(
    lambda cols, args, r, ctx: F.unbase64(cols[0]).cast("string"))


def _encode_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING])
    return DataType("VARBINARY", any_nullable(args), precision=2147483647)


scalar("ENCODE", infer=_encode_infer)(lambda cols, args, r, ctx: F.encode(cols[0], str(args[1].value)))


def _decode_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [BINARY, STRING])
    return _string_result(args)


scalar("DECODE", infer=_decode_infer)(lambda cols, args, r, ctx: F.decode(cols[0], str(args[1].value)))


def _prefix_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING], [BINARY, BINARY])
    return BOOLEAN(any_nullable(args))


scalar("STARTSWITH", infer=_prefix_infer)(lambda cols, args, r, ctx: F.startswith(cols[0], cols[1]))
scalar("ENDSWITH", infer=_prefix_infer)(lambda cols, args, r, ctx: F.endswith(cols[0], cols[1]))


def _translate_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING, STRING])
    return _string_result(args)


scalar("TRANSLATE", infer=_translate_infer)(
    lambda cols, args, r, ctx: F.call_function("translate", *cols))


def _url_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING])
    return STRING_T(True)


scalar("URL_ENCODE", infer=_url_infer)(lambda cols, args, r, ctx: F.url_encode(cols[0]))
scalar("URL_DECODE", infer=_url_infer)(
    lambda cols, args, r, ctx: F.call_function("try_url_decode", cols[0]))


def _unhex_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING])
    return DataType("VARBINARY", any_nullable(args), precision=2147483647)


scalar("UNHEX", infer=_unhex_infer)(lambda cols, args, r, ctx: F.unhex(cols[0]))


# -- URL / JSON -------------------------------------------------------------------------
def _parse_url_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING], [STRING, STRING, STRING])
    return STRING_T(True)


@scalar("PARSE_URL", infer=_parse_url_infer)
def _parse_url(cols, args, result, ctx):
    return F.call_function("try_parse_url", *cols)


def _json_value_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING], [STRING, STRING, STRING, ANY, ANY])
    return STRING_T(True)


@scalar("JSON_VALUE", infer=_json_value_infer)
def _json_value(cols, args, result, ctx):
    """The scalar at a JSON path. What is not there (lax mode; strict: an error), JSON
    text that does not parse, and an object or array (strict mode; lax: NULL) take the
    ON EMPTY / ON ERROR behaviour (NULL, DEFAULT v, ERROR; NULL unless given)."""
    doc, (path, lax) = cols[0], _json_path(cols[1], args[1])
    kinds = _json_behaviors(args, 2)
    defaults = {"EMPTY": cols[3], "ERROR": cols[4]} if len(cols) == 5 else {}

    def outcome(on: str):
        return _json_outcome(kinds.get(on, "NULL"), defaults.get(on), "string", "JSON_VALUE", on, cols[1])

    found = F.call_function("get_json_object", doc, path)
    composite = found.startswith("{") | found.startswith("[")
    null = F.lit(None).cast("string")
    value = (_json_checked(doc, kinds, outcome("ERROR"))
             .when(found.isNull(), _by_mode(lax, outcome("EMPTY"), outcome("ERROR")))
             .when(composite, _by_mode(lax, null, outcome("ERROR")))
             .otherwise(found))
    return F.when(doc.isNotNull() & cols[1].isNotNull(), value)


def _json_path(col, arg: Arg):
    """(the path without its mode, whether the mode is lax): ``lax $.a`` / ``strict $.a``;
    a path without a mode is strict (Flink 2.3 takes it so)."""
    if arg.literal and arg.value is not None:
        m = re.match(r"(?is)^\s*(lax|strict)\s+(.*)$", str(arg.value))
        if m is None:
            return F.lit(str(arg.value)), False
        return F.lit(m.group(2)), m.group(1).lower() == "lax"
    return F.regexp_replace(col, r"(?i)^\s*(lax|strict)\s+", ""), col.rlike(r"(?i)^\s*lax\s")


def _by_mode(lax, if_lax, if_strict):
    if isinstance(lax, bool):
        return if_lax if lax else if_strict
    return F.when(lax, if_lax).otherwise(if_strict)


def _json_behaviors(args: list[Arg], i: int) -> dict[str, str]:
    """The binder's ``EMPTY=...;ERROR=...`` literal at argument ``i`` (absent: none given)."""
    if len(args) <= i:
        return {}
    return dict(item.split("=", 1) for item in str(args[i].value).split(";") if item)


def _json_checked(doc, kinds: dict[str, str], on_error):
    """A CASE that first sends text that is not JSON to ``on_error`` (only checked when
    ON ERROR is not NULL: otherwise the path finds nothing in it, which gives NULL too)."""
    if kinds.get("ERROR", "NULL") == "NULL":
        return F.when(F.lit(False), on_error)
    return F.when(~valid_json(doc), on_error)


def _json_outcome(kind: str, default, spark_type: str, name: str, on: str, path):
    if kind == "DEFAULT":
        return default.cast(spark_type)
    if kind == "ERROR":
        reason = "no value at the path" if on == "EMPTY" else "not valid JSON, or no scalar at the path"
        return F.raise_error(F.concat(F.lit(f"{name}: {reason} "), path, F.lit(f" (ERROR ON {on})"))).cast(spark_type)
    return {"EMPTY ARRAY": F.lit("[]"), "EMPTY OBJECT": F.lit("{}"), "TRUE": F.lit(True),
            "FALSE": F.lit(False)}.get(kind, F.lit(None)).cast(spark_type)


def valid_json(doc):
    """Whether ``doc`` is one JSON value (FALSE for NULL)."""
    return F.coalesce(F.call_function("json_array_length", F.concat(F.lit("["), doc, F.lit("]"))) == 1, F.lit(False))


# -- IS_ALPHA / IS_DIGIT / IS_DECIMAL ---------------------------------------------------
def _is_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [ANY])
    return BOOLEAN(False)


def _is_lower(pattern: str, numeric_is_true: bool):
    def lower(cols, args, result, ctx):
        t = args[0].type
        if t.is_numeric:
            return F.lit(numeric_is_true and (t.is_integer or name_is_decimal(pattern)))
        if not t.is_string:
            return F.lit(False)
        return F.coalesce(cols[0].rlike(pattern), F.lit(False))

    return lower


def name_is_decimal(pattern: str) -> bool:
    return pattern == _DECIMAL


_DECIMAL = r"^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[dDfF]?\s*$|^\s*[+-]?(NaN|Infinity)\s*$"
scalar("IS_ALPHA", infer=_is_infer)(_is_lower(r"^\p{L}+$", False))
scalar("IS_DIGIT", infer=_is_infer)(_is_lower(r"^\p{Nd}+$", True))
scalar("IS_DECIMAL", infer=_is_infer)(_is_lower(_DECIMAL, True))


# -- SQL/JSON: JSON_QUERY, JSON_EXISTS, JSON_STRING, JSON_OBJECT, JSON_ARRAY, IS JSON ------
# The binder (binder/expressions.py ``json_call``) passes a call's clauses as trailing
# string literals: the wrapper of JSON_QUERY, the null handling of JSON_OBJECT/ARRAY, the
# kind of IS JSON. Text is Flink's: compact (the binder sorts JSON_OBJECT's literal keys, as
# Flink writes them).
def _json_query_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING], [STRING, STRING, STRING], [STRING, STRING, STRING, STRING])
    return STRING_T(True)


@scalar("JSON_QUERY", infer=_json_query_infer)
def _json_query(cols, args, result, ctx):
    """The object or array at a path; a scalar there is an error without a wrapper; WITH
    [UNCONDITIONAL] ARRAY WRAPPER wraps any value found, WITH CONDITIONAL ARRAY WRAPPER
    all but an array. Nothing there (lax; strict: an error), text that is not JSON and
    errors take the ON EMPTY / ON ERROR behaviour (NULL, EMPTY ARRAY, EMPTY OBJECT, ERROR)."""
    doc, (path, lax) = cols[0], _json_path(cols[1], args[1])
    kinds = _json_behaviors(args, 3)

    def outcome(on: str):
        return _json_outcome(kinds.get(on, "NULL"), None, "string", "JSON_QUERY", on, cols[1])

    found = F.call_function("get_json_object", doc, path)
    composite = found.startswith("{") | found.startswith("[")
    wrapper = args[2].value if len(args) > 2 else "WITHOUT ARRAY"
    checked = (_json_checked(doc, kinds, outcome("ERROR"))
               .when(found.isNull(), _by_mode(lax, outcome("EMPTY"), outcome("ERROR"))))
    if wrapper.startswith("WITHOUT"):
        value = checked.when(composite, found).otherwise(outcome("ERROR"))
    else:
        # a scalar: Spark's get_json_object drops a string's quotes, so text that reads as a
        # number or a boolean is taken for one (a JSON string "3" is wrapped as [3])
        plain = found.rlike(r"^(-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?|true|false)$")
        scalar_text = F.when(plain, found).otherwise(json_text(found, STRING_T()))
        text = F.when(composite, found).otherwise(scalar_text)
        wrap = F.concat(F.lit("["), text, F.lit("]"))
        if "CONDITIONAL" in wrapper and "UNCONDITIONAL" not in wrapper:
            wrap = F.when(found.startswith("["), found).otherwise(wrap)
        value = checked.otherwise(wrap)
    return F.when(doc.isNotNull() & cols[1].isNotNull(), value)


def _json_exists_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING], [STRING, STRING, STRING])
    return BOOLEAN(any_nullable(args) or len(args) > 2)


@scalar("JSON_EXISTS", infer=_json_exists_infer)
def _json_exists(cols, args, result, ctx):
    """Whether a value (not JSON null) is at the path; text that is not JSON, and (strict
    mode) a path that finds nothing, take the ON ERROR behaviour (FALSE unless given)."""
    doc, (path, lax) = cols[0], _json_path(cols[1], args[1])
    kinds = {"ERROR": "FALSE", **_json_behaviors(args, 2)}
    on_error = _json_outcome(kinds["ERROR"], None, "boolean", "JSON_EXISTS", "ERROR", cols[1])
    found = F.call_function("get_json_object", doc, path)
    value = (F.when(~valid_json(doc), on_error) if kinds["ERROR"] != "FALSE" else F.when(F.lit(False), on_error)) \
        .when(found.isNull(), _by_mode(lax, F.lit(False), on_error)).otherwise(F.lit(True))
    return F.when(doc.isNotNull() & cols[1].isNotNull(), value)


def _json_string_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [ANY])
    return STRING_T(any_nullable(args))


@scalar("JSON_STRING", infer=_json_string_infer)
def _json_string(cols, args, result, ctx):
    return json_text(cols[0], args[0].type)


def json_text(c, t: DataType):
    """A value as JSON text, as Flink's JSON functions print it (NULL for NULL)."""
    if t.root == "NULL":
        return F.lit(None).cast("string")
    if t.root == "BOOLEAN" or t.is_numeric:
        return F.when(c.isNotNull(), c.cast("string"))
    text = F.to_json(F.array(c))  # ["..."]: Spark's JSON text of the value, then unwrapped
    return F.when(c.isNotNull(), text.substr(F.lit(2), F.length(text) - 2))


def _json_object_infer(name: str, args: list[Arg]) -> DataType:
    if len(args) % 2 == 0 or not args[-1].literal:
        raise ValueError("JSON_OBJECT: key/value pairs, then the null handling")
    for k in args[:-1:2]:
        if not k.type.is_string:
            check(name, [k], [STRING])
    return STRING_T(False)


@scalar("JSON_OBJECT", infer=_json_object_infer)
def _json_object(cols, args, result, ctx):
    """``{"k":v,...}``; NULL ON NULL (the default) writes ``"k":null``, ABSENT ON NULL
    leaves the member out; a value made by JSON_OBJECT / JSON_ARRAY is nested as JSON."""
    handling, raw = _json_options(args[-1].value)
    absent = handling == "ABSENT ON NULL"
    members = []
    for i in range(0, len(cols) - 1, 2):
        key = json_text(cols[i], args[i].type)
        value = cols[i + 1] if i + 1 in raw else json_text(cols[i + 1], args[i + 1].type)
        member = F.concat(key, F.lit(":"), value if absent else F.coalesce(value, F.lit("null")))
        members.append(member)
    return F.concat(F.lit("{"), F.concat_ws(",", *members) if members else F.lit(""), F.lit("}"))


def _json_options(option: str) -> tuple[str, set[int]]:
    """binder/expressions._json_options: the null handling, the members nested as JSON."""
    handling, _, raw = option.partition(";")
    return handling, {int(i) for i in raw.split(",") if i}


def _json_array_infer(name: str, args: list[Arg]) -> DataType:
    if not args or not args[-1].literal:
        raise ValueError("JSON_ARRAY: values, then the null handling")
    return STRING_T(False)


@scalar("JSON_ARRAY", infer=_json_array_infer)
def _json_array(cols, args, result, ctx):
    """``[v,...]``; ABSENT ON NULL (the default) leaves NULLs out, NULL ON NULL writes null."""
    handling, raw = _json_options(args[-1].value)
    items = [c if i in raw else json_text(c, a.type) for i, (c, a) in enumerate(zip(cols[:-1], args[:-1]))]
    null_on_null = handling == "NULL ON NULL"
    if null_on_null:
        items = [F.coalesce(i, F.lit("null")) for i in items]
    return F.concat(F.lit("["), F.concat_ws(",", *items) if items else F.lit(""), F.lit("]"))


def _json_quote_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING])
    return STRING_T(any_nullable(args))


_JSON_ESCAPES = (("\\", "\\\\"), ('"', '\\"'), ("/", "\\/"), ("\b", "\\b"), ("\f", "\\f"),
                 ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t"))


@scalar("JSON_QUOTE", infer=_json_quote_infer)
def _json_quote(cols, args, result, ctx):
    """``"..."`` with Flink's escapes: ``\\ " / \\b \\f \\n \\r \\t``, and each non-ASCII
    character as ``\\u`` and its code point in (at least four) lower-case hex digits, a
    character beyond the BMP followed by its low surrogate's (as Flink 2.3 prints it)."""
    s = cols[0]
    for raw, escaped in _JSON_ESCAPES:
        s = F.replace(s, F.lit(raw), F.lit(escaped))

    def char(c):
        cp = F.ascii(c).cast("long")  # the code point of the (only) character
        low = F.lit(0xDC00) + (cp - 0x10000).bitwiseAND(0x3FF)
        digits = F.lower(F.hex(cp))
        digits = F.concat(F.repeat(F.lit("0"), F.greatest(F.lit(0), 4 - F.length(digits))), digits)
        escaped = F.concat(F.lit("\\u"), digits)
        escaped = F.when(cp > 0xFFFF, F.concat(escaped, F.lit("\\u"), F.lower(F.hex(low)))).otherwise(escaped)
        return F.when(cp > 127, escaped).otherwise(c)

    chars = F.transform(F.sequence(F.lit(1), F.length(s)), lambda i: s.substr(i, F.lit(1)))
    non_ascii = F.array_join(F.transform(chars, char), "")
    quoted = F.when(s.rlike("[^\\x00-\\x7F]"), non_ascii).otherwise(s)
    return F.concat(F.lit('"'), quoted, F.lit('"'))


# A whole JSON string literal: no raw control character, only JSON's escapes.
_JSON_STRING = r'^"(?:[^"\\\x00-\x1F]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"$'


@scalar("JSON_UNQUOTE", infer=_json_quote_infer)
def _json_unquote(cols, args, result, ctx):
    s = cols[0]
    unquoted = F.from_json(F.concat(F.lit("["), s, F.lit("]")), "array<string>")[0]
    return F.when(s.rlike(_JSON_STRING), unquoted).otherwise(s)


def _json_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING])
    return STRING_T(any_nullable(args))


# JSON(text): a value JSON_OBJECT / JSON_ARRAY nest as JSON rather than as a string.
scalar("JSON", infer=_json_infer)(lambda cols, args, r, ctx: cols[0])


def _is_json_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING])
    return BOOLEAN(False)


@scalar("IS JSON", infer=_is_json_infer)
def _is_json(cols, args, result, ctx):
    """``s IS JSON [VALUE | SCALAR | ARRAY | OBJECT]``: FALSE for NULL and invalid text."""
    kind = args[1].value
    s = cols[0]
    valid = valid_json(s)
    trimmed = F.ltrim(s)
    if kind == "OBJECT":
        return valid & trimmed.startswith("{")
    if kind == "ARRAY":
        return valid & trimmed.startswith("[")
    if kind == "SCALAR":
        return valid & ~trimmed.startswith("{") & ~trimmed.startswith("[")
    return valid
