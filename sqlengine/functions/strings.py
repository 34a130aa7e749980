"""Character-string functions with Flink's edge-case semantics.

Notable differences from Spark that the lowerings correct: SUBSTRING with a start
before the string's beginning yields '' (Spark counts from the clipped start),
LPAD/RPAD return NULL for a negative length or an empty pad, SPLIT_INDEX of '' is
NULL, INITCAP starts a word after any non-alphanumeric character (Calcite), REPLACE
with an empty search string inserts the replacement between characters (Java), and
STR_TO_MAP keeps the last value of a repeated key.
"""
from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from sqlengine.errors import UnsupportedError
from sqlengine.types import CHAR, INT, MAP, STRING as STRING_T, DataType

from .base import INTEGER, STRING, Arg, any_nullable, check, check_variadic, scalar
from .sparkutil import INT_MAX, java_string_literal, null_of
from .typeinfer import varying


def _string_result(args: list[Arg]) -> DataType:
    return STRING_T(any_nullable(args))


def _same_as_first(name: str, args: list[Arg], varying_result: bool = False) -> DataType:
    t = args[0].type
    if not t.is_string:
        t = STRING_T()
    t = varying(t) if varying_result else t
    return t.with_nullable(any_nullable(args))


def _infer_unary_same(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING])
    return _same_as_first(name, args)


scalar("UPPER", "UCASE", infer=_infer_unary_same)(lambda cols, args, r, ctx: F.upper(cols[0]))
scalar("LOWER", "LCASE", infer=_infer_unary_same)(lambda cols, args, r, ctx: F.lower(cols[0]))
scalar("REVERSE", infer=_infer_unary_same)(lambda cols, args, r, ctx: F.reverse(cols[0]))


@scalar("INITCAP", infer=_infer_unary_same)
def _initcap(cols, args, result, ctx):
    """Calcite's initcap: ASCII letters only; any non-[A-Za-z0-9] char starts a new word."""
    s = cols[0]
    chars = F.split(s, "")

    def one(c: Column, i: Column) -> Column:
        prev = F.element_at(chars, F.greatest(i, F.lit(1)))
        starts = (i == 0) | ~prev.rlike("^[0-9A-Za-z]$")
        return (F.when(starts & c.rlike("^[a-z]$"), F.upper(c))
                .when(~starts & c.rlike("^[A-Z]$"), F.lower(c)).otherwise(c))

    return F.when(s == "", s).otherwise(F.array_join(F.transform(chars, one), ""))


# -- length / position ---------------------------------------------------------------
def _int_result(name: str, args: list[Arg]) -> DataType:
    return INT(any_nullable(args))


def _char_length_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING])
    return _int_result(name, args)


scalar("CHAR_LENGTH", "CHARACTER_LENGTH", infer=_char_length_infer)(
    lambda cols, args, r, ctx: F.char_length(cols[0]))


def _position_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING], [STRING, STRING, INTEGER])
    return _int_result(name, args)


@scalar("POSITION", "LOCATE", infer=_position_infer)
def _position(cols, args, result, ctx):
    if len(cols) == 3:
        return F.position(cols[0], cols[1], F.greatest(cols[2].cast("int"), F.lit(1)))
    return F.position(cols[0], cols[1])


def _instr_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING], [STRING, STRING, INTEGER],
          [STRING, STRING, INTEGER, INTEGER])
    return _int_result(name, args)


@scalar("INSTR", infer=_instr_infer)
def _instr(cols, args, result, ctx):
    """The position of the ``nth`` (default 1) occurrence of ``sub`` in ``s``, searching
    forwards from ``start`` (default 1), or from a negative ``start`` counted from the end
    backwards; 0 when there is none."""
    if len(args) == 2:
        return F.position(cols[1], cols[0])
    s, sub = cols[0], cols[1]
    start = cols[2].cast("int")
    nth = cols[3].cast("int") if len(cols) == 4 else F.lit(1)
    n, width = F.char_length(s), F.char_length(sub)
    at = F.filter(F.sequence(F.lit(1), F.greatest(n - width + 1, F.lit(1))),
                  lambda i: s.substr(i, width) == sub)
    forward = F.filter(at, lambda i: i >= start)
    backward = F.reverse(F.filter(at, lambda i: i <= n + start + 1))
    found = F.when(start > 0, forward).when(start < 0, backward)
    return F.when(nth > 0, F.coalesce(F.try_element_at(found, nth), F.lit(0))).cast("int")


# -- substrings ------------------------------------------------------------------------
def _substring_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, INTEGER], [STRING, INTEGER, INTEGER])
    return _same_as_first(name, args, varying_result=True)


def substring_sql(s: Column, pos: Column, length: Column) -> Column:
    """Flink's substringSQL: 1-based, negative start counts from the end, out of range -> ''."""
    n = F.char_length(s)
    start = F.when(pos > 0, pos - 1).when(pos < 0, n + pos).otherwise(F.lit(0))
    empty = ((pos > 0) & (start >= n)) | ((pos < 0) & (start < 0))
    take = F.least(length, n - start)
    return (F.when(length < 0, F.lit(None).cast("string")).when(empty, F.lit(""))
            .otherwise(s.substr(start + 1, take)))


@scalar("SUBSTRING", "SUBSTR", infer=_substring_infer)
def _substring(cols, args, result, ctx):
    length = cols[2].cast("int") if len(cols) == 3 else F.lit(INT_MAX)
    return substring_sql(cols[0], cols[1].cast("int"), length)


def _left_right_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, INTEGER])
    return _same_as_first(name, args, varying_result=True)


scalar("LEFT", infer=_left_right_infer)(
    lambda cols, args, r, ctx: F.left(cols[0], cols[1].cast("int")))
scalar("RIGHT", infer=_left_right_infer)(lambda cols, args, r, ctx: F.right(cols[0], cols[1].cast("int")))


def _overlay_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING, INTEGER], [STRING, STRING, INTEGER, INTEGER])
    return _string_result(args)


@scalar("OVERLAY", infer=_overlay_infer)
def _overlay(cols, args, result, ctx):
    s, r, start = cols[0], cols[1], cols[2].cast("int")
    length = cols[3].cast("int") if len(cols) == 4 else F.char_length(r)
    head = s.substr(F.lit(1), start - 1)
    tail = F.when(length > 0, s.substr(start + length, F.lit(INT_MAX))).otherwise(F.lit(""))
    out = F.concat(head, r, F.coalesce(tail, F.lit("")))
    unchanged = (start <= 0) | (start > F.char_length(s))
    return F.when(length.isNull(), F.lit(None)).when(unchanged, s).otherwise(out)


# -- trimming / padding ------------------------------------------------------------------
def _trim_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING, STRING])
    t = args[2].type if args[2].type.is_string else STRING_T()
    return varying(t).with_nullable(any_nullable(args[1:]))


@scalar("TRIM", infer=_trim_infer)
def _trim(cols, args, result, ctx):
    mode = str(args[0].value or "BOTH").upper()
    fn = {"BOTH": F.trim, "LEADING": F.ltrim, "TRAILING": F.rtrim}[mode]
    return fn(cols[2], cols[1])


def _side_trim_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING], [STRING, STRING])
    return _same_as_first(name, args, varying_result=True)


scalar("LTRIM", infer=_side_trim_infer)(
    lambda cols, args, r, ctx: F.ltrim(cols[0], cols[1] if len(cols) == 2 else None))
scalar("RTRIM", infer=_side_trim_infer)(
    lambda cols, args, r, ctx: F.rtrim(cols[0], cols[1] if len(cols) == 2 else None))
scalar("BTRIM", infer=_side_trim_infer)(
    lambda cols, args, r, ctx: F.btrim(cols[0], cols[1] if len(cols) == 2 else None))


def _pad_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, INTEGER, STRING])
    return _string_result(args)


def _pad(fn):
    def lower(cols, args, result, ctx):
        length = cols[1].cast("int")
        invalid = (length < 0) | (cols[2] == "")
        return F.when(invalid, F.lit(None).cast("string")).otherwise(fn(cols[0], length, cols[2]))

    return lower


scalar("LPAD", infer=_pad_infer)(_pad(F.lpad))
scalar("RPAD", infer=_pad_infer)(_pad(F.rpad))


def _repeat_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, INTEGER])
    return _string_result(args)


scalar("REPEAT", infer=_repeat_infer)(lambda cols, args, r, ctx: F.repeat(cols[0], cols[1].cast("int")))


# -- replace / concat ----------------------------------------------------------------------
def _replace_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING, STRING])
    return _string_result(args)


def escaped_replacement(col: Column, arg: Arg) -> Column:
    """A replacement string taken literally by Java's replaceAll (Matcher.quoteReplacement)."""
    if arg.literal:
        return F.lit(None if arg.value is None else java_string_literal(str(arg.value)))
    return F.regexp_replace(col, r"([\\$])", r"\\$1")


@scalar("REPLACE", infer=_replace_infer)
def _replace(cols, args, result, ctx):
    s, search, repl = cols
    insert_between = F.regexp_replace(s, F.lit(""), escaped_replacement(repl, args[2]))
    return F.when(search == "", insert_between).otherwise(F.replace(s, search, repl))


def _concat_infer(name: str, args: list[Arg]) -> DataType:
    check_variadic(name, args, STRING, minimum=1)
    return _string_result(args)


scalar("CONCAT", infer=_concat_infer)(lambda cols, args, r, ctx: F.concat(*cols))


def _concat_ws_infer(name: str, args: list[Arg]) -> DataType:
    check_variadic(name, args, STRING, minimum=2)
    return STRING_T(args[0].type.nullable)


@scalar("CONCAT_WS", infer=_concat_ws_infer)
def _concat_ws(cols, args, result, ctx):
    return F.call_function("concat_ws", cols[0], *cols[1:])


# -- splitting -------------------------------------------------------------------------------
# The characters String.split does not take literally alone (its fast path's list).
_REGEX_META = ".$|()[{^?*+\\"


def quoted_regex(col: Column, arg: Arg) -> Column:
    """The Java regex matching ``col`` literally (Pattern.quote). A literal of one BMP
    character is written as ``String.split``'s fast path reads it (the character, or a
    backslash before a non-alphanumeric one): Spark's ``split`` calls ``String.split``
    per row, which compiles any other regex again for every row."""
    if arg.literal and arg.value is not None:
        text = str(arg.value)
        if len(text) == 1 and (ord(text) < 0xD800 or 0xE000 <= ord(text) <= 0xFFFF):
            return F.lit("\\" + text if text in _REGEX_META else text)
        return F.lit("\\Q" + text.replace("\\E", "\\E\\\\E\\Q") + "\\E")
    return F.concat(F.lit("\\Q"), col, F.lit("\\E"))


def _split_index_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING, STRING, INTEGER], [STRING, INTEGER, INTEGER])
    return STRING_T(True)


@scalar("SPLIT_INDEX", infer=_split_index_infer)
def _split_index(cols, args, result, ctx):
    s, sep, index = cols[0], cols[1], cols[2].cast("int")
    if args[1].type.is_integer:
        code = sep.cast("int")
        pattern = F.when((code >= 1) & (code <= 255), F.concat(F.lit("\\Q"), F.char(code), F.lit("\\E")))
    elif args[1].literal and args[1].value == "":
        pattern = F.lit("\\s")  # StringUtils splits on whitespace for an empty separator
    else:
        pattern = quoted_regex(sep, args[1])
    parts = F.split(s, pattern, -1)
    return F.when((s == "") | (index < 0), F.lit(None).cast("string")).otherwise(F.get(parts, index))


def _str_to_map_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING], [STRING, STRING, STRING])
    return MAP(STRING_T(), STRING_T(), nullable=any_nullable(args))


@scalar("STR_TO_MAP", infer=_str_to_map_infer)
def _str_to_map(cols, args, result, ctx):
    s = cols[0]
    pair_delim = cols[1] if len(cols) == 3 else F.lit(",")
    kv_delim = cols[2] if len(cols) == 3 else F.lit("=")
    # Java's String.split drops trailing empty strings.
    body = F.regexp_replace(s, F.concat(F.lit("(?:"), pair_delim, F.lit(")+$")), F.lit(""))
    entries = F.transform(F.split(body, pair_delim, -1), lambda p: F.struct(
        F.get(F.split(p, kv_delim, 2), 0).alias("key"), F.get(F.split(p, kv_delim, 2), 1).alias("value")))
    last_wins = F.filter(entries, lambda e, i: ~F.exists(
        F.slice(entries, i + 2, F.size(entries)), lambda o: o["key"] == e["key"]))
    empty = F.create_map().cast(result.to_spark())
    return F.when(s.isNull(), null_of(result)).when(body == "", empty).otherwise(
        F.map_from_entries(last_wins))


# -- character codes / misc ------------------------------------------------------------------
def _ascii_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING])
    return _int_result(name, args)


scalar("ASCII", infer=_ascii_infer)(lambda cols, args, r, ctx: F.ascii(cols[0]))


def _chr_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [INTEGER])
    return CHAR(1, any_nullable(args))


scalar("CHR", infer=_chr_infer)(lambda cols, args, r, ctx: F.char(cols[0].cast("long")))


def _uuid_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [])
    return CHAR(36, False)


scalar("UUID", infer=_uuid_infer)(lambda cols, args, r, ctx: F.call_function("uuid"))


def _hash_code_infer(name: str, args: list[Arg]) -> DataType:
    check(name, args, [STRING])
    return INT(any_nullable(args))


@scalar("HASH_CODE", infer=_hash_code_infer)
def _hash_code(cols, args, result, ctx):
    """abs(String.hashCode()) with Java int overflow (BMP characters)."""
    codes = F.transform(F.split(cols[0], ""), lambda c: F.when(c == "", 0).otherwise(F.ascii(c)))
    h = F.aggregate(codes, F.lit(0), lambda acc, c: acc * F.lit(31) + c)
    return F.abs(h)

