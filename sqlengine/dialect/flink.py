"""The sqlglot dialect ``flink``: Flink SQL's tokenizer, and the dialect tying it to the
parser (``parser.py``, with the statement mixins ``parse_commands.py`` / ``parse_ddl.py``)
and the generator (``generator.py``).
"""
from __future__ import annotations

from sqlglot.dialects.dialect import Dialect
from sqlglot.tokens import Tokenizer, TokenType

from sqlengine.dialect.generator import FlinkGenerator
from sqlengine.dialect.parser import WINDOW_TVFS, FlinkParser

__all__ = ["Flink", "FlinkGenerator", "FlinkParser", "FlinkTokenizer", "WINDOW_TVFS"]


class FlinkTokenizer(Tokenizer):
    IDENTIFIERS = ["`"]
    QUOTES = ["'"]
    STRING_ESCAPES = ["'"]
    UNICODE_STRINGS = [("U&'", "'"), ("u&'", "'")]
    HEX_STRINGS = [("X'", "'"), ("x'", "'")]
    KEYWORDS = {
        **Tokenizer.KEYWORDS,
        "STRING": TokenType.TEXT,
        "BYTES": TokenType.VARBINARY,
        "ROW": TokenType.STRUCT,
        "TIMESTAMP_LTZ": TokenType.TIMESTAMPLTZ,
        "MULTISET": TokenType.ARRAY,
        "EXPLAIN": TokenType.VAR,
        "CALL": TokenType.VAR,
        "MATCH_RECOGNIZE": TokenType.MATCH_RECOGNIZE,
    }
    KEYWORDS.pop("SESSION", None)
    COMMANDS = Tokenizer.COMMANDS - {TokenType.SHOW, TokenType.EXECUTE}
    # `/*+ ... */` is always a hint in Flink (after SELECT, INSERT or a table name), never a
    # comment; where the parser does not expect one it is a syntax error, as in Flink.
    TOKENS_PRECEDING_HINT = set(TokenType)


class Flink(Dialect):
    """Flink SQL (Apache Flink 2.x, Calcite-based)."""

    NORMALIZE_FUNCTIONS = False
    SUPPORTS_LIMIT_ALL = True
    Tokenizer = FlinkTokenizer
    Parser = FlinkParser
    Generator = FlinkGenerator
