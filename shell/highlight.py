"""Syntax highlighting of Flink SQL in the shell: a pygments lexer and a prompt_toolkit style.

pygments' ``SqlLexer`` is ANSI SQL: it lexes a backquoted identifier as operators, a
double-quoted text as a string, does not know Flink's words (``WATERMARK``, ``TUMBLE``,
``STATEMENT``, ``METADATA``, ...) and colours a misspelt keyword like a good one. Flink
SQL quotes identifiers with backquotes and strings with single quotes only, so this
lexer keeps SqlLexer's token types and redefines its rules. ``KEYWORDS`` and ``TYPES``
are also what the completer offers (shell/completion.py).
"""
from __future__ import annotations

from pygments.lexer import words
from pygments.lexers.sql import SqlLexer
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text

# Flink SQL's keywords (Calcite's parser plus Flink's DDL and streaming extensions), as a
# user types them; not every reserved word of Flink's list, only those that start or
# shape a clause.
KEYWORDS = (
    "ADD", "ALL", "ALTER", "ANALYZE", "AND", "ANY", "AS", "ASC", "AT", "BEGIN", "BETWEEN", "BOTH",
    "BY", "CALL", "CASCADE", "CASE", "CAST", "CATALOG", "CATALOGS", "COLUMNS", "COMMENT",
    "COMPILE", "CONSTRAINT", "CREATE", "CROSS", "CUBE", "CUMULATE", "CURRENT", "DATABASE",
    "DATABASES", "DEFAULT", "DELETE", "DESC", "DESCRIBE", "DESCRIPTOR", "DISTINCT",
    "DISTRIBUTED", "DROP", "ELSE", "END", "ENFORCED", "ESCAPE", "EXCEPT", "EXECUTE", "EXISTS",
    "EXPLAIN", "EXTENDED", "FALSE", "FETCH", "FILTER", "FIRST", "FOLLOWING", "FOR", "FROM",
    "FULL", "FUNCTION", "FUNCTIONS", "GROUP", "GROUPING", "HAVING", "HOP", "IF", "IN", "INNER",
    "INSERT", "INTERSECT", "INTERVAL", "INTO", "IS", "JAR", "JOB", "JOBS", "JOIN", "KEY", "LANGUAGE",
    "LAST", "LATERAL", "LEADING", "LEFT", "LIKE", "LIMIT", "LOAD", "MATCH_RECOGNIZE", "METADATA",
    "MODULE", "MODULES", "NATURAL", "NOT", "NULL", "NULLS", "OF", "OFFSET", "ON", "OPTIONS",
    "OR", "ORDER", "OUTER", "OVER", "OVERWRITE", "PARTITION", "PARTITIONED", "PARTITIONS",
    "PERIOD", "PRECEDING", "PRIMARY", "PROCTIME", "RANGE", "RENAME", "REPLACE", "RESET", "RIGHT",
    "ROLLUP", "ROWS", "SELECT", "SESSION", "SET", "SETS", "SHOW", "STATEMENT", "STOP", "SYSTEM",
    "SYSTEM_TIME", "TABLE", "TABLES", "TEMPORARY", "THEN", "TO", "TRAILING", "TRUE", "TUMBLE",
    "UNBOUNDED", "UNION", "UNKNOWN", "UNLOAD", "UNNEST", "USE", "USER", "USING", "VALUES", "VIEW",
    "VIEWS", "VIRTUAL", "WATERMARK", "WATERMARKS", "WHEN", "WHERE", "WINDOW", "WITH", "WITHIN",
    "WITHOUT",
    # time units (INTERVAL '10' MINUTES, EXTRACT(HOUR FROM ...), DAY TO SECOND)
    "YEAR", "YEARS", "QUARTER", "MONTH", "MONTHS", "WEEK", "DAY", "DAYS", "HOUR", "HOURS", "MINUTE",
    "MINUTES", "SECOND", "SECONDS", "MILLISECOND", "MICROSECOND", "NANOSECOND",
)
# Flink's data type names (``TIMESTAMP_LTZ``, ``STRING``, ``BYTES`` are Flink's own).
TYPES = (
    "ARRAY", "BIGINT", "BINARY", "BOOLEAN", "BYTES", "CHAR", "DATE", "DEC", "DECIMAL", "DOUBLE",
    "FLOAT", "INT", "INTEGER", "MAP", "MULTISET", "NUMERIC", "RAW", "REAL", "ROW", "SMALLINT",
    "STRING", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ", "TINYINT", "VARBINARY", "VARCHAR", "ZONE",
    "LOCAL",
)


class FlinkSqlLexer(SqlLexer):
    """Flink SQL: backquoted identifiers, single-quoted strings, Flink's keywords and types."""

    name = "Flink SQL"
    aliases = ["flinksql"]
    filenames: list[str] = []
    mimetypes: list[str] = []

    tokens = {
        "root": [
            (r"\s+", Text.Whitespace),
            (r"--[^\n]*", Comment.Single),
            (r"/\*\+", Comment.Special, "hint"),
            (r"/\*", Comment.Multiline, "multiline-comments"),
            (r"'(''|[^'])*'?", String.Single),
            (r"`(``|[^`])*`?", Name.Quoted),
            (r"[xu]&?'(''|[^'])*'?", String.Single),
            (r"(\d+\.\d*|\.\d+|\d+)[eE][+-]?\d+", Number.Float),
            (r"\d+\.\d*|\.\d+", Number.Float),
            (r"\d+", Number.Integer),
            (words(KEYWORDS, prefix=r"\b", suffix=r"\b"), Keyword),
            (words(TYPES, prefix=r"\b", suffix=r"\b"), Keyword.Type),
            (r"[A-Za-z_$][\w$]*(?=\s*\()", Name.Function),
            (r"[A-Za-z_$][\w$]*", Name),
            (r"<>|!=|>=|<=|\|\||[+*/<>=%-]", Operator),
            (r"[;:()\[\],.]", Punctuation),
            (r".", Text),
        ],
        "multiline-comments": [
            (r"\*/", Comment.Multiline, "#pop"),
            (r"[^*]+", Comment.Multiline),
            (r"\*", Comment.Multiline),
        ],
        "hint": [
            (r"\*/", Comment.Special, "#pop"),
            (r"[^*]+", Comment.Special),
            (r"\*", Comment.Special),
        ],
    }

    def analyse_text(text: str) -> float:  # type: ignore[override]  # never guess this lexer
        return 0.0


def lexer():
    """The prompt_toolkit lexer for the shell's input buffer."""
    from prompt_toolkit.lexers import PygmentsLexer
    return PygmentsLexer(FlinkSqlLexer)


# Colours readable on dark and on light backgrounds: mid-tone ANSI colours, no white or
# black text, no background colours except the completion menu's own.
_STYLE = {
    "pygments.keyword": "ansibrightblue bold",
    "pygments.keyword.type": "ansicyan",
    "pygments.name.function": "ansimagenta",
    "pygments.name.quoted": "ansiyellow",
    "pygments.literal.string": "ansigreen",
    "pygments.literal.number": "ansiyellow",
    "pygments.comment": "ansibrightblack italic",
    "pygments.operator": "",
    "completion-menu.completion": "bg:ansibrightblack ansiwhite",
    "completion-menu.completion.current": "bg:ansiblue ansiwhite bold",
    "completion-menu.meta.completion": "bg:ansibrightblack ansiwhite",
    "completion-menu.meta.completion.current": "bg:ansiblue ansiwhite",
}


def style():
    """The prompt_toolkit Style for the highlighted SQL and the completion menu."""
    from prompt_toolkit.styles import Style
    return Style.from_dict(_STYLE)
