"""Regular-expression, hashing, encoding, URL and JSON string functions.

Flink's REGEXP_EXTRACT returns NULL when nothing matches (Spark returns '') and
when the group index exceeds the pattern's groups (Spark throws); REGEXP_REPLACE
takes the replacement literally (Matcher.quoteReplacement), while Spark expands
``$1``; TO_BASE64 never wraps lines (Spark's encoder inserts CRLF every 76 chars).
"""
from __future__ import annotations

import re
from typing import Optional

from pyspark.sql import functions as F

from sqlengine.types import BOOLEAN, STRING as STRING_T, VARCHAR, DataType

from .base import ANY, BINARY, INTEGER, STRING, STRING_OR_BINARY, Arg, any_nullable, check, scalar
from .strings import escaped_replacement


def _string_result(args: list[Arg]) -> DataType:
    return STRING_T(any_nullable(args))


def _group_count(pattern: str) -> Optional[int]:
    """Number of capturing groups, when Python's regex dialect can tell (Java is close)."""
    try:
        return re.compile(pattern).groups
    except re.error:
        return None


def _regexp_extract_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING], [STRING, STRING, INTEGER])
    return STRING_T(True)


@scalar("REGEXP_EXTRACT", infer=_regexp_extract_infer)
def _regexp_extract(cols, args, result, ctx):
    s, pattern = cols[0], cols[1]
    group = cols[2].cast("int") if len(cols) == 3 else F.lit(0)
    if args[1].literal and args[1].value is not None and (len(args) == 2 or args[2].literal):
        wanted = args[2].value if len(args) == 3 else 0
        groups = _group_count(str(args[1].value))
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
    check(name, args, [STRING, STRING])
    return STRING_T(True)


@scalar("JSON_VALUE", infer=_json_value_infer)
def _json_value(cols, args, result, ctx):
    """Scalar at a JSON path (lax mode, NULL ON EMPTY / NULL ON ERROR); objects -> NULL."""
    found = F.call_function("get_json_object", cols[0], cols[1])
    is_composite = found.startswith("{") | found.startswith("[")
    return F.when(is_composite, F.lit(None).cast("string")).otherwise(found)


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
