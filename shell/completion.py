"""Completion in the interactive shell: keywords, catalog objects, columns, functions,
``SET`` keys and connector options, chosen by the context of the text before the cursor.

Two halves, as in pgcli: ``suggest(text, cursor)`` is pure. It reads the tokens of the
statement the cursor is in with a tolerant lexer (a statement being typed rarely parses,
and sqlglot's tokenizer raises on an unterminated string) and says *what* fits at the
cursor, as a ``Context`` of items (``Tables``, ``Columns``, ``OptionKeys``, ...).
``SqlCompleter`` turns each item into candidates from the live session.

prompt_toolkit's ``ThreadedCompleter`` runs the completer off the UI thread while the
main thread executes statements, so the catalog may change under it: the completer only
reads, and an error while reading one kind of candidate drops that kind, never the
completion. ``list_views`` reads every object of a persistent catalog, so which names
are views is remembered per database until its table names change.
"""
from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Optional

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from shell.highlight import KEYWORDS, TYPES

if TYPE_CHECKING:
    from sqlengine.api.session import Session

_log = logging.getLogger("sqlengine.shell.completion")

# -- what can be completed, besides the catalog ---------------------------------------
STATEMENT_STARTS = (
    "SELECT", "INSERT INTO", "INSERT OVERWRITE", "VALUES", "WITH", "CREATE TABLE",
    "CREATE TEMPORARY TABLE", "CREATE VIEW", "CREATE TEMPORARY VIEW", "CREATE DATABASE",
    "CREATE CATALOG", "CREATE FUNCTION", "CREATE TEMPORARY FUNCTION",
    "CREATE TEMPORARY SYSTEM FUNCTION", "DROP TABLE", "DROP TEMPORARY TABLE", "DROP VIEW",
    "DROP TEMPORARY VIEW", "DROP DATABASE", "DROP CATALOG", "DROP FUNCTION",
    "DROP TEMPORARY FUNCTION", "DESCRIBE", "EXPLAIN", "EXPLAIN CHANGELOG_MODE", "USE",
    "USE CATALOG", "SHOW CATALOGS", "SHOW CURRENT CATALOG", "SHOW DATABASES",
    "SHOW CURRENT DATABASE", "SHOW TABLES", "SHOW VIEWS", "SHOW FUNCTIONS",
    "SHOW USER FUNCTIONS", "SHOW MODULES", "SHOW JOBS", "SHOW CREATE TABLE", "SHOW CREATE VIEW",
    "SET", "RESET", "STOP JOB", "EXECUTE STATEMENT SET", "BEGIN STATEMENT SET", "END",
)

# Session keys the engine reads (grep for them before adding one): key -> (what it does,
# the values it takes when they are a fixed set).
CONFIG_KEYS: dict[str, tuple[str, tuple[str, ...]]] = {
    "execution.runtime-mode": ("streaming or batch execution", ("streaming", "batch")),
    "parallelism.default": ("parallelism of jobs (tasks per stage)", ()),
    "pipeline.max-parallelism": ("key groups of stateful operators, fixed per checkpoint", ()),
    "pipeline.name": ("name of the next job (SHOW JOBS)", ()),
    "pipeline.job-id": ("id of the next job", ()),
    "table.dml-sync": ("INSERT waits for its job to end", ("true", "false")),
    "table.local-time-zone": ("session time zone (TIMESTAMP_LTZ, CURRENT_TIMESTAMP)", ()),
    "table.exec.state.ttl": ("how long idle state is kept, e.g. '1 h' (0: forever)", ()),
    "table.exec.source.idle-timeout": ("an idle split stops holding back the watermark", ()),
    "table.exec.source.cdc-events-duplicate": (
        "CDC source may repeat changes: normalize by primary key", ("true", "false")),
    "execution.checkpointing.dir": ("base directory of job checkpoints", ()),
    "execution.state-recovery.path": ("checkpoint the next job resumes from", ()),
    "state.backend.type": ("state store of stateful operators", ("hashmap", "rocksdb", "forst")),
    "sql-client.execution.result-mode": ("how the shell shows SELECT results",
                                         ("table", "changelog", "tableau")),
    "sql-client.verbose": ("print the stack trace of errors", ("true", "false")),
    "sqlengine.source.max-rows-per-epoch": ("rows a source admits per epoch (0: no cap)", ()),
    "sqlengine.kafka.max-rows-per-epoch": ("rows a Kafka source admits per epoch", ()),
    "sqlengine.kafka.timeout": ("Kafka client timeout, e.g. '60 s'", ()),
    "sqlengine.filesystem.max-lines-per-batch": ("lines a file source admits per epoch", ()),
    "sqlengine.filesystem.min-split-bytes": ("smallest file split read by one task", ()),
    "spark.master": ("Spark master, before Spark starts (e.g. local[4])", ()),
    "spark.sql.shuffle.partitions": ("Spark shuffle partitions, before Spark starts", ()),
}

# Connector options, as each connector's parser pops them (connectors/*/options.py,
# factory.py; tests/shell/test_completion.py checks the tables against that code).
# A key ending in '.' is a prefix (properties.*, fields.<column>.*).
CONNECTOR_OPTIONS: dict[str, dict[str, str]] = {
    "kafka": {
        "topic": "topic(s) to read or write, ';'-separated",
        "topic-pattern": "regular expression of topics to read",
        "properties.bootstrap.servers": "Kafka brokers, host:port,...",
        "properties.group.id": "consumer group (committed offsets)",
        "properties.": "Kafka client property",
        "format": "format of the record value",
        "value.format": "format of the record value",
        "key.format": "format of the record key",
        "key.fields": "columns in the record key, ';'-separated",
        "key.fields-prefix": "prefix of the key columns",
        "value.fields-include": "ALL or EXCEPT_KEY",
        "scan.startup.mode": "where reading starts",
        "scan.startup.specific-offsets": "partition:0,offset:42;...",
        "scan.startup.timestamp-millis": "start at this timestamp",
        "scan.bounded.mode": "where reading stops (bounded source)",
        "scan.bounded.specific-offsets": "partition:0,offset:42;...",
        "scan.bounded.timestamp-millis": "stop at this timestamp",
        "scan.topic-partition-discovery.interval": "how often new partitions are found",
        "scan.watermark.idle-timeout": "a partition without rows this long stops holding the watermark",
        "scan.watermark.emit.strategy": "on-event or on-periodic",
        "scan.parallelism": "accepted, not used",
        "sink.delivery-guarantee": "none, at-least-once or exactly-once",
        "sink.semantic": "deprecated: sink.delivery-guarantee",
        "sink.transactional-id-prefix": "transactional ids (exactly-once)",
        "sink.partitioner": "default, fixed or round-robin",
        "sink.parallelism": "tasks writing the topic",
        "sink.buffer-flush.max-rows": "accepted, not used",
        "sink.buffer-flush.interval": "accepted, not used",
    },
    "jdbc": {
        "url": "jdbc:postgresql://host:port/database",
        "table-name": "table in the database",
        "driver": "org.postgresql.Driver",
        "username": "database user",
        "password": "database password",
        "connection.max-retry-timeout": "how long to retry connecting",
        "scan.partition.column": "column splitting the scan",
        "scan.partition.num": "number of scan partitions",
        "scan.partition.lower-bound": "smallest value of the partition column",
        "scan.partition.upper-bound": "largest value of the partition column",
        "scan.fetch-size": "rows fetched per round trip",
        "scan.auto-commit": "accepted, not used",
        "lookup.cache": "NONE or PARTIAL",
        "lookup.partial-cache.max-rows": "rows in the lookup cache",
        "lookup.partial-cache.expire-after-write": "lookup cache entry lifetime",
        "lookup.partial-cache.expire-after-access": "accepted, not used",
        "lookup.partial-cache.cache-missing-key": "cache keys with no row",
        "lookup.cache.max-rows": "deprecated: lookup.partial-cache.max-rows",
        "lookup.cache.ttl": "deprecated: lookup.partial-cache.expire-after-write",
        "lookup.cache.caching-missing-key": "deprecated, not used",
        "lookup.max-retries": "retries of a failed lookup",
        "sink.buffer-flush.max-rows": "accepted, not used",
        "sink.buffer-flush.interval": "accepted, not used",
        "sink.max-retries": "retries of a failed write",
        "sink.parallelism": "tasks writing the table",
        "sink.delivery-guarantee": "none, at-least-once or exactly-once",
        "filter.handling.policy": "accepted, not used",
    },
    "filesystem": {
        "path": "file or directory",
        "format": "format of the lines",
        "source.monitor-interval": "not supported (continuous monitoring)",
        "sink.rolling-policy.file-size": "accepted: files roll at every checkpoint",
        "sink.rolling-policy.rollover-interval": "accepted: files roll at every checkpoint",
        "sink.rolling-policy.check-interval": "accepted: files roll at every checkpoint",
        "sink.rolling-policy.inactivity-interval": "accepted: files roll at every checkpoint",
        "partition.default-name": "folder name of a NULL or empty partition value",
        "sink.shuffle-by-partition.enable": "send each partition's rows to one task",
        "sink.partition-commit.trigger": "process-time or partition-time",
        "sink.partition-commit.delay": "how long after its time a partition is committed",
        "sink.partition-commit.watermark-time-zone": "time zone of the watermark (partition-time)",
        "sink.partition-commit.policy.kind": "success-file (metastore, custom: not supported)",
        "sink.partition-commit.policy.class": "not supported (a Java class)",
        "sink.partition-commit.policy.class.parameters": "not supported (a Java class)",
        "sink.partition-commit.success-file.name": "name of the success file (_SUCCESS)",
        "partition.time-extractor.kind": "default (custom: not supported)",
        "partition.time-extractor.class": "not supported (a Java class)",
        "partition.time-extractor.timestamp-pattern": "a partition's time from its values ($dt $hm:00)",
        "partition.time-extractor.timestamp-formatter": "the pattern's format (yyyy-MM-dd HH:mm:ss)",
    },
    "datagen": {
        "rows-per-second": "rows generated per second",
        "number-of-rows": "rows in total (bounded source)",
        "scan.parallelism": "tasks generating rows",
        "fields.": "per-column generator option",
    },
    "print": {
        "print-identifier": "prefix of every printed line",
        "standard-error": "print to standard error",
        "sink.parallelism": "tasks printing",
    },
    "blackhole": {},
}
CONNECTOR_OPTIONS["upsert-kafka"] = {k: v for k, v in CONNECTOR_OPTIONS["kafka"].items()
                                     if k not in ("key.fields", "topic-pattern") and "startup" not in k}
# Format options, without the '<format>.' prefix (connectors/formats/*.parse_options).
FORMAT_OPTIONS: dict[str, dict[str, str]] = {
    "json": {
        "fail-on-missing-field": "fail when a field is missing", "ignore-parse-errors":
        "skip malformed records", "timestamp-format.standard": "SQL or ISO-8601",
        "map-null-key.mode": "FAIL, DROP or LITERAL", "map-null-key.literal": "text of a NULL key",
        "encode.decimal-as-plain-number": "no scientific notation",
        "encode.ignore-null-fields": "omit NULL fields", "decode.json-parser.enabled": "accepted",
    },
    "csv": {
        "field-delimiter": "one character", "quote-character": "one character",
        "disable-quote-character": "no quoting", "allow-comments": "skip lines starting with #",
        "ignore-parse-errors": "skip malformed lines", "array-element-delimiter": "between elements",
        "escape-character": "one character", "null-literal": "text of NULL",
        "write-bigdecimal-in-scientific-notation": "e.g. 1E+2",
    },
    "debezium-json": {
        "ignore-parse-errors": "skip malformed records", "timestamp-format.standard": "SQL or ISO-8601",
        "map-null-key.mode": "FAIL, DROP or LITERAL", "map-null-key.literal": "text of a NULL key",
        "encode.decimal-as-plain-number": "no scientific notation",
        "schema-include": "records carry their schema",
    },
    "avro": {"encoding": "binary or json", "timestamp_mapping.legacy": "Flink's legacy timestamps",
             "open.fastread": "accepted"},
    "raw": {"charset": "of text values", "endianness": "big-endian or little-endian"},
}
FORMAT_KEYS = ("format", "value.format", "key.format")
WINDOW_COLUMNS = ("window_start", "window_end", "window_time")
_NILADIC = {"CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP"}
_OPERATORS = {"AND", "OR", "NOT", "IN", "LIKE", "CASE", "ITEM", "NEG", "POS", "FIELD"}


# -- tokens --------------------------------------------------------------------------
_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>--[^\n]*|/\*(?:[^*]|\*(?!/))*(?:\*/)?)
  | (?P<string>'(?:[^']|'')*'?)
  | (?P<ident>`(?:[^`]|``)*`?)
  | (?P<number>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)
  | (?P<word>[A-Za-z_$][\w$]*)
  | (?P<op><>|!=|>=|<=|\|\||.)
""", re.X | re.S)


@dataclass(frozen=True)
class Token:
    kind: str  # word, ident (backquoted), string, number, op
    text: str
    start: int

    @property
    def end(self) -> int:
        return self.start + len(self.text)

    @property
    def upper(self) -> str:
        """The keyword this token may be (words only)."""
        return self.text.upper() if self.kind == "word" else ""

    @property
    def closed(self) -> bool:
        quote = {"string": "'", "ident": "`"}.get(self.kind)
        if quote is None:
            return True
        body = self.text[1:]
        return (len(body) - len(body.rstrip(quote))) % 2 == 1

    @property
    def value(self) -> str:
        """A name without its backquotes, a string's content."""
        quote = {"string": "'", "ident": "`"}.get(self.kind)
        if quote is None:
            return self.text
        inner = self.text[1:-1] if self.closed else self.text[1:]
        return inner.replace(quote * 2, quote)

    @property
    def is_name(self) -> bool:
        return self.kind in ("word", "ident")


def tokenize(text: str) -> list[Token]:
    """Tokens without whitespace and comments; never fails (unterminated quotes end the text)."""
    return [Token(m.lastgroup or "op", m.group(), m.start()) for m in _TOKEN.finditer(text)
            if m.lastgroup not in ("ws", "comment")]


def _after_last_semicolon(tokens: list[Token]) -> list[Token]:
    cut = max((i for i, t in enumerate(tokens) if t.text == ";"), default=-1)
    return tokens[cut + 1:]


def _matching(tokens: list[Token], i: int) -> int:
    """Index of the ')' closing the '(' at ``i`` (len(tokens) while unclosed)."""
    depth = 0
    for j in range(i, len(tokens)):
        depth += {"(": 1, ")": -1}.get(tokens[j].text, 0)
        if depth == 0:
            return j
    return len(tokens)


def _read_name(tokens: list[Token], i: int) -> tuple[tuple[str, ...], int]:
    """``a.b.c`` from ``i``: its parts and the index after it."""
    parts = []
    while i < len(tokens) and tokens[i].is_name:
        parts.append(tokens[i].value)
        if i + 2 < len(tokens) and tokens[i + 1].text == "." and tokens[i + 2].is_name:
            i += 2
        else:
            return tuple(parts), i + 1
    return tuple(parts), i


# -- table references of a statement ---------------------------------------------------
@dataclass(frozen=True)
class TableRef:
    """A table in FROM/JOIN: its name as written (1-3 parts) and alias."""

    parts: tuple[str, ...]
    alias: Optional[str] = None
    window: bool = False  # the input of a window TVF: adds window_start/_end/_time


_NOT_ALIAS = {"WHERE", "JOIN", "LEFT", "RIGHT", "FULL", "INNER", "CROSS", "OUTER", "NATURAL",
              "ON", "USING", "GROUP", "ORDER", "HAVING", "WINDOW", "LIMIT", "UNION", "EXCEPT",
              "INTERSECT", "FOR", "AS", "LATERAL", "OFFSET", "FETCH", "MATCH_RECOGNIZE",
              "SELECT", "FROM", "VALUES", "QUALIFY", "TABLESAMPLE"}
_FROM_ENDS = {"WHERE", "GROUP", "HAVING", "ORDER", "WINDOW", "LIMIT", "UNION", "EXCEPT",
              "INTERSECT", "SELECT"}


def _read_alias(tokens: list[Token], i: int) -> tuple[Optional[str], int]:
    if i < len(tokens) and tokens[i].upper == "AS":
        i += 1
    if i < len(tokens) and tokens[i].is_name and tokens[i].upper not in _NOT_ALIAS:
        return tokens[i].value, i + 1
    return None, i


def _read_ref(tokens: list[Token], i: int) -> tuple[Optional[TableRef], int]:
    if i >= len(tokens):
        return None, i
    if tokens[i].upper == "TABLE" and i + 1 < len(tokens) and tokens[i + 1].text == "(":
        end = _matching(tokens, i + 1)
        inner = next((k for k in range(i + 2, min(end, len(tokens) - 1))
                      if tokens[k].upper == "TABLE" and tokens[k + 1].is_name), None)
        alias, after = _read_alias(tokens, end + 1)
        if inner is None:
            return None, after
        return TableRef(_read_name(tokens, inner + 1)[0], alias, window=True), after
    if not tokens[i].is_name or tokens[i].upper in _NOT_ALIAS:
        return None, i
    parts, i = _read_name(tokens, i)
    if [t.upper for t in tokens[i:i + 4]] == ["FOR", "SYSTEM_TIME", "AS", "OF"]:
        i = _read_name(tokens, i + 4)[1]
    alias, i = _read_alias(tokens, i)
    return TableRef(parts, alias), i


def table_refs(tokens: list[Token]) -> tuple[TableRef, ...]:
    """The tables of FROM and JOIN clauses (subqueries' too), read without parsing."""
    refs: list[TableRef] = []
    from_depths: list[int] = []  # depths at which a FROM list is open (for ',')
    depth, i = 0, 0
    while i < len(tokens):
        t = tokens[i]
        depth += {"(": 1, ")": -1}.get(t.text, 0)
        from_depths = [d for d in from_depths if d <= depth]
        in_list = t.text == "," and from_depths and from_depths[-1] == depth
        if t.upper in ("FROM", "JOIN") or in_list:
            if t.upper == "FROM":
                from_depths = [d for d in from_depths if d < depth] + [depth]
            ref, after = _read_ref(tokens, i + 1)
            if ref is not None:
                refs.append(ref)
                i = after
                continue
        elif t.upper in _FROM_ENDS and from_depths and from_depths[-1] == depth:
            from_depths.pop()
        i += 1
    return tuple(refs)


def created_columns(tokens: list[Token]) -> tuple[str, ...]:
    """The column names of a ``CREATE [TEMPORARY] TABLE name (...)`` statement."""
    heads = [t.upper for t in tokens[:3]]
    if heads[:1] != ["CREATE"] or "TABLE" not in heads:
        return ()
    start = next((i for i, t in enumerate(tokens) if t.text == "("), None)
    if start is None:
        return ()
    end, names = _matching(tokens, start), []
    i = start
    while i < min(end, len(tokens) - 1):
        nxt = tokens[i + 1]
        if tokens[i].text in "(," and nxt.is_name and nxt.upper not in (
                "WATERMARK", "PRIMARY", "CONSTRAINT", "PERIOD", "LIKE"):
            names.append(nxt.value)
        i = _matching(tokens, i) + 1 if tokens[i].text == "(" and i != start else i + 1
    return tuple(names)


# -- what fits at the cursor -------------------------------------------------------------
@dataclass(frozen=True)
class Keywords:
    starts: bool = False  # statement starts (CREATE TABLE, SHOW JOBS, ...) first
    words: tuple[str, ...] = ()  # only these (default: every keyword)
    after: tuple[str, ...] = ()  # the start's words already typed: complete the rest


@dataclass(frozen=True)
class Catalogs:
    pass


@dataclass(frozen=True)
class Databases:
    catalog: Optional[str] = None


@dataclass(frozen=True)
class Tables:
    qualifier: tuple[str, ...] = ()  # (), (database,) or (catalog, database)


@dataclass(frozen=True)
class Columns:
    tables: tuple[TableRef, ...] = ()
    qualifier: tuple[str, ...] = ()  # an alias or a table name: only its columns
    own: tuple[str, ...] = ()  # columns of the CREATE TABLE being written


@dataclass(frozen=True)
class Functions:
    window_tvfs: bool = False  # TUMBLE, HOP, ... (after FROM TABLE()


@dataclass(frozen=True)
class Types:
    pass


@dataclass(frozen=True)
class ConfigKeys:
    pass


@dataclass(frozen=True)
class ConfigValues:
    key: str


@dataclass(frozen=True)
class OptionKeys:
    connector: Optional[str]
    given: tuple[str, ...] = ()
    formats: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()
    catalog: bool = False  # CREATE CATALOG: ``connector`` is the 'type'


@dataclass(frozen=True)
class OptionValues:
    key: str
    connector: Optional[str]
    catalog: bool = False


@dataclass(frozen=True)
class Jobs:
    pass


Item = object  # one of the dataclasses above
# Quoting of the candidates: "" names and keywords, "open" the content of the string the
# cursor is in (closed with a quote), "wrap" a string literal still to open.
OPEN, WRAP = "open", "wrap"


@dataclass(frozen=True)
class Context:
    word: str  # the text before the cursor that a completion replaces
    items: tuple[Item, ...]
    quote: str = ""

    @property
    def prefix(self) -> str:
        """What candidates must start with (the word without its quotes)."""
        if self.quote == OPEN or self.word[:1] in ("'", "`"):
            body = self.word[1:] if self.quote != OPEN else self.word
            return body.replace("''", "'").replace("``", "`")
        return self.word


_TABLE_AFTER = {"FROM", "JOIN", "INTO", "OVERWRITE"}
_EXPR_CLAUSES = {"SELECT", "WHERE", "ON", "BY", "HAVING", "QUALIFY", "AND", "OR"}
_CLAUSES = _EXPR_CLAUSES | {"FROM", "WITH", "SET", "VALUES", "INTO", "USING", "LIMIT", "WINDOW",
                            "UNION", "EXCEPT", "INTERSECT", "JOIN", "TABLE"}


def suggest(text: str, cursor: Optional[int] = None) -> Context:
    """What may be written at ``cursor`` in ``text`` (a whole buffer of statements)."""
    cursor = len(text) if cursor is None else cursor
    before = _after_last_semicolon(tokenize(text[:cursor]))
    start = before[0].start if before else cursor
    whole = tokenize(text[start:])
    cut = next((i for i, t in enumerate(whole) if t.text == ";" and t.start + start >= cursor),
               len(whole))
    whole = whole[:cut]
    last = before[-1] if before else None
    if last is not None and last.end == cursor and last.kind in ("string", "ident", "word", "number"):
        if last.kind == "number" or (last.kind == "string" and last.closed):
            return Context("", ())
        prev, word = before[:-1], last
    else:
        prev, word = before, None
    if word is not None and word.kind == "string":
        return Context(word.text[1:], _in_string(prev, whole), OPEN)
    return Context(word.text if word else "", _at_name(prev, whole), WRAP
                   if _string_expected(prev, whole) else "")


def _head(tokens: list[Token]) -> list[str]:
    return [t.upper for t in tokens[:4] if t.upper not in ("TEMPORARY", "OR", "REPLACE")]


def _innermost_open(prev: list[Token]) -> Optional[int]:
    depth = 0
    for i in range(len(prev) - 1, -1, -1):
        if prev[i].text == ")":
            depth += 1
        elif prev[i].text == "(":
            if depth == 0:
                return i
            depth -= 1
    return None


def _clause(prev: list[Token]) -> str:
    """The nearest clause keyword before the cursor, outside closed parentheses."""
    depth = 0
    for t in reversed(prev):
        depth += {")": 1, "(": -1}.get(t.text, 0)
        if depth <= 0 and t.upper in _CLAUSES:
            return t.upper
        depth = max(depth, 0)
    return ""


def _with_options(prev: list[Token]) -> Optional[int]:
    """Index of the '(' of a ``WITH (`` option list around the cursor, if any."""
    i = _innermost_open(prev)
    if i and prev[i - 1].upper == "WITH" and _head(prev)[:1] in (["CREATE"], ["ALTER"]):
        return i
    return None


def _options_item(prev: list[Token], whole: list[Token], open_i: int) -> tuple[Item, ...]:
    end = _matching(whole, open_i)
    pairs = {}
    for k in range(open_i + 1, min(end, len(whole)) - 2):
        a, eq, b = whole[k:k + 3]
        if a.kind == "string" and eq.text == "=" and b.kind == "string":
            pairs[a.value] = b.value
    last, catalog = prev[-1], _head(prev)[:2] == ["CREATE", "CATALOG"]
    kind = pairs.get("type" if catalog else "connector")
    if last.text in "(,":
        formats = tuple(pairs[k] for k in FORMAT_KEYS if k in pairs)
        return (OptionKeys(kind, tuple(pairs), formats, created_columns(whole), catalog),)
    if last.text == "=" and prev[-2].kind == "string":
        return (OptionValues(prev[-2].value, kind, catalog),)
    return ()


def _in_string(prev: list[Token], whole: list[Token]) -> tuple[Item, ...]:
    if not prev:
        return ()
    head = _head(prev)
    if head[:1] in (["SET"], ["RESET"]):
        if prev[-1].upper in ("SET", "RESET"):
            return (ConfigKeys(),)
        if prev[-1].text == "=" and len(prev) >= 2 and prev[-2].kind == "string":
            return (ConfigValues(prev[-2].value),)
        return ()
    if head[:2] == ["STOP", "JOB"] and prev[-1].upper == "JOB":
        return (Jobs(),)
    open_i = _with_options(prev)
    return _options_item(prev, whole, open_i) if open_i is not None else ()


def _string_expected(prev: list[Token], whole: list[Token]) -> bool:
    """Whether the cursor is where a string literal goes (SET key, WITH option)."""
    head = _head(prev)
    return bool(prev) and (head[:1] in (["SET"], ["RESET"]) or head[:2] == ["STOP", "JOB"]
                           or _with_options(prev) is not None)


def _at_name(prev: list[Token], whole: list[Token]) -> tuple[Item, ...]:
    if not prev:
        return (Keywords(starts=True),)
    typed = tuple(t.upper for t in prev)
    if all(typed) and any(tuple(s.split()[:len(typed)]) == typed for s in STATEMENT_STARTS):
        return (Keywords(starts=True, after=typed),) + _after_start(prev, whole)
    return _after_start(prev, whole)


def _after_start(prev: list[Token], whole: list[Token]) -> tuple[Item, ...]:
    if _string_expected(prev, whole):
        return _in_string(prev, whole)
    last, head = prev[-1], _head(prev)
    if last.text == ".":
        return _qualified(prev, whole)
    if head[:1] == ["CREATE"] and last.upper in ("TABLE", "VIEW", "DATABASE", "CATALOG", "FUNCTION",
                                                  "EXISTS"):
        return (Keywords(),)  # a new name
    if head[:1] != ["CREATE"]:
        if last.upper == "CATALOG" or (last.upper == "EXISTS" and "CATALOG" in head):
            return (Catalogs(), Keywords(words=("IF",)))
        if last.upper == "DATABASE" or (last.upper == "EXISTS" and "DATABASE" in head) or (
                head[:1] == ["SHOW"] and last.upper in ("FROM", "IN")):
            return (Databases(), Catalogs(), Keywords(words=("IF",)))
    if last.upper == "USE":
        return (Databases(), Keywords(words=("CATALOG", "MODULES")))
    if _table_position(prev):
        words = ("TABLE", "LATERAL", "UNNEST") if last.upper in ("FROM", "JOIN") else ("IF",)
        return (Tables(), Databases(), Catalogs(), Keywords(words=words))
    return _in_expression(prev, whole)


def _table_position(prev: list[Token]) -> bool:
    last, head, clause = prev[-1], _head(prev), _clause(prev)
    if last.upper in _TABLE_AFTER or (last.text == "," and clause == "FROM"
                                      and _innermost_open(prev) is None):
        return True
    if last.upper in ("TABLE", "VIEW", "EXISTS") and head[:1] in (["DROP"], ["ALTER"], ["SHOW"], ["ANALYZE"]):
        return True
    if last.upper == "TABLE" and _innermost_open(prev) is not None:  # TUMBLE(TABLE t, ...)
        return True
    return (len(prev) == 1 and last.upper in ("DESCRIBE", "DESC")) or (
        last.upper == "LIKE" and head[:1] == ["CREATE"])


def _qualified(prev: list[Token], whole: list[Token]) -> tuple[Item, ...]:
    parts: list[str] = []
    j = len(prev) - 1
    while j >= 1 and prev[j].text == "." and prev[j - 1].is_name:
        parts.insert(0, prev[j - 1].value)
        j -= 2
    if not parts:
        return ()
    if (j >= 0 and _table_position(prev[:j + 1])) or _head(prev)[:1] == ["USE"]:
        if len(parts) == 1:
            return (Databases(parts[0]), Tables(tuple(parts)))
        return (Tables(tuple(parts[-2:])),)
    return (Columns(table_refs(whole), tuple(parts)),)


def _insert_target(prev: list[Token]) -> tuple[str, ...]:
    """The table name ending ``prev`` if INSERT INTO / OVERWRITE precedes it."""
    j, parts = len(prev) - 1, []
    while j >= 0 and prev[j].is_name:
        parts.insert(0, prev[j].value)
        if j < 2 or prev[j - 1].text != ".":
            j -= 1
            break
        j -= 2
    return tuple(parts) if j >= 0 and prev[j].upper in ("INTO", "OVERWRITE") else ()


def _column_list(prev: list[Token]) -> Optional[int]:
    """Index of the '(' of a CREATE TABLE's column list that the cursor is in, if any."""
    if _head(prev)[:2] != ["CREATE", "TABLE"]:
        return None
    start = next((i for i, t in enumerate(prev) if t.text == "("), None)
    return start if start is not None and _matching(prev, start) == len(prev) else None


def _in_expression(prev: list[Token], whole: list[Token]) -> tuple[Item, ...]:
    open_i, clause, last = _innermost_open(prev), _clause(prev), prev[-1]
    before_open = prev[open_i - 1] if open_i else None
    if before_open is not None and before_open.upper == "TABLE" and clause in ("FROM", "TABLE"):
        return (Functions(window_tvfs=True), Keywords())
    if before_open is not None and before_open.upper == "CAST" and last.upper == "AS":
        return (Types(),)
    column_list = _column_list(prev)
    if column_list is not None:  # CREATE TABLE t (<here>
        own = created_columns(whole)
        if open_i != column_list:  # in a call or a type's parameters
            return (Columns(own=own), Functions(), Keywords())
        if last.text in "(,":
            return (Keywords(words=("WATERMARK", "PRIMARY", "CONSTRAINT", "PERIOD", "LIKE")),)
        if last.is_name and prev[-2].text in "(,":
            return (Types(),)
        return (Columns(own=own), Functions(), Keywords())
    if open_i and before_open.is_name and _insert_target(prev[:open_i]):  # INSERT INTO t (<here>
        return (Columns(qualifier=_insert_target(prev[:open_i])),)
    if clause in _EXPR_CLAUSES or (clause in ("FROM", "TABLE") and open_i is not None):
        return (Columns(table_refs(whole)), Functions(), Keywords())
    return (Keywords(),)


# -- candidates from the session --------------------------------------------------------
@dataclass(frozen=True)
class Candidate:
    name: str  # matched against the typed prefix, shown
    meta: str = ""
    suffix: str = ""  # appended on insertion, e.g. '(' after a function
    keyword: bool = False  # inserted upper-case, never quoted


_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_RESERVED = set(KEYWORDS) | set(TYPES)


def quote_name(name: str) -> str:
    """An identifier as Flink SQL reads it back: backquoted unless it is a plain word."""
    if _PLAIN.match(name) and name.upper() not in _RESERVED:
        return name
    return "`" + name.replace("`", "``") + "`"


def _safe(read: Callable[[], list]) -> list:
    try:
        return read()
    except Exception:  # a catalog changing under us, a file catalog mid-write: nothing
        _log.debug("completion candidates failed", exc_info=True)
        return []


class SqlCompleter(Completer):
    """Completes the shell's buffer from the live session; ``get_session()`` is None while
    the session starts (then only keywords)."""

    def __init__(self, get_session: Callable[[], Optional["Session"]]):
        self._get_session = get_session
        self._lock = threading.Lock()
        self._views: dict[tuple[str, str], tuple[tuple[str, ...], frozenset[str]]] = {}

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        try:
            ctx = suggest(document.text, document.cursor_position)
            session = self._get_session()
            completions = list(self._completions(ctx, session, document.text_after_cursor))
        except Exception:  # completion must never break typing; the log file says why
            _log.debug("completion failed at %r", document.text_before_cursor[-80:], exc_info=True)
            return
        yield from completions

    def _completions(self, ctx: Context, session: Optional["Session"], after: str) -> Iterator[Completion]:
        prefix, seen = ctx.prefix.lower(), set()
        for item in ctx.items:
            if session is None and not isinstance(item, (Keywords, Types, ConfigKeys, ConfigValues,
                                                         OptionKeys, OptionValues)):
                continue
            source = _SOURCES[type(item)]
            for cand in _safe(lambda: list(source(self, item, session))):
                if not _matches(prefix, cand.name) or (cand.keyword and ctx.word.startswith("`")):
                    continue
                completion = self._completion(ctx, cand, after)
                if completion.text not in seen:  # the first of equal insertions wins
                    seen.add(completion.text)
                    yield completion

    def _completion(self, ctx: Context, cand: Candidate, after: str) -> Completion:
        close = "" if cand.name.endswith(".") else "'"  # a prefix key: the user goes on
        if cand.keyword:
            text = cand.name + cand.suffix
        elif ctx.quote == OPEN:
            text = cand.name.replace("'", "''") + ("" if after.startswith("'") else close)
        elif ctx.quote == WRAP:
            text = "'" + cand.name.replace("'", "''") + close
        else:
            text = quote_name(cand.name) + cand.suffix
        return Completion(text, -len(ctx.word), display=cand.name + cand.suffix, display_meta=cand.meta)

    # -- the catalog ------------------------------------------------------------------
    def views(self, session: "Session", catalog: str, database: str, names: list[str]) -> frozenset[str]:
        """The views among ``names`` (cached until the database's names change)."""
        with self._lock:
            cached = self._views.get((catalog, database))
        if cached is not None and cached[0] == tuple(names):
            return cached[1]
        views = frozenset(_safe(lambda: session.catalogs.list_views(catalog, database)))
        with self._lock:
            self._views[(catalog, database)] = (tuple(names), views)
        return views


def _matches(prefix: str, name: str) -> bool:
    low = name.lower()
    return low.startswith(prefix) or (bool(prefix) and "." in low and any(
        seg.startswith(prefix) for seg in re.split(r"[.\-]", low)))


def _keywords(c: SqlCompleter, item: Keywords, session) -> Iterable[Candidate]:
    if item.starts:
        n = len(item.after)
        for start in STATEMENT_STARTS:
            words = start.split()
            if tuple(words[:n]) == item.after and len(words) > n:
                yield Candidate(" ".join(words[n:]), "statement", keyword=True)
        if item.after:
            return
    yield from (Candidate(k, "keyword", keyword=True) for k in item.words or sorted(KEYWORDS))


def _types(c: SqlCompleter, item: Types, session) -> Iterable[Candidate]:
    return [Candidate(t, "type", keyword=True) for t in sorted(TYPES)]


def _catalogs(c: SqlCompleter, item: Catalogs, session: "Session") -> Iterable[Candidate]:
    return [Candidate(n, "catalog") for n in session.catalogs.list_catalogs()]


def _databases(c: SqlCompleter, item: Databases, session: "Session") -> Iterable[Candidate]:
    return [Candidate(n, "database") for n in session.catalogs.list_databases(item.catalog)]


def _tables(c: SqlCompleter, item: Tables, session: "Session") -> Iterable[Candidate]:
    cm = session.catalogs
    qualifier = item.qualifier
    catalog = qualifier[0] if len(qualifier) == 2 else cm.current_catalog
    database = qualifier[-1] if qualifier else cm.current_database
    names = cm.list_tables(catalog, database)
    views = c.views(session, catalog, database, names)
    return [Candidate(n, "view" if n in views else "table") for n in names]


def _columns(c: SqlCompleter, item: Columns, session: "Session") -> Iterable[Candidate]:
    for name in item.own:
        yield Candidate(name, "column")
    refs = item.tables
    if item.qualifier:
        q = item.qualifier
        refs = tuple(r for r in refs if r.alias == q[-1] and len(q) == 1) or \
            tuple(r for r in refs if r.alias is None and r.parts[-len(q):] == q) or (TableRef(q),)
    for ref in refs:
        obj = _safe(lambda: [session.catalogs.get_table(session.catalogs.qualify(list(ref.parts)))])
        label = ref.alias or ref.parts[-1]
        for col in obj[0].schema.columns if obj else ():
            kind = "" if col.kind == "physical" else f" {col.kind}"
            yield Candidate(col.name, f"{col.type.sql()}{kind} ({label})")
        if ref.window:
            yield from (Candidate(w, f"window ({label})") for w in WINDOW_COLUMNS)


def _functions(c: SqlCompleter, item: Functions, session: "Session") -> Iterable[Candidate]:
    if item.window_tvfs:
        from sqlengine.api.completion import window_tvfs
        return [Candidate(n, "window function", "(", keyword=True) for n in window_tvfs()]
    return builtin_functions() + [Candidate(n, "user function", "(")
                                  for n in _safe(session.catalogs.list_user_functions)]


_BUILTINS: list[Candidate] = []


def builtin_functions() -> list[Candidate]:
    """Flink's built-in scalar, aggregate and OVER functions (the function registry)."""
    global _BUILTINS
    if not _BUILTINS:
        from sqlengine.api.completion import builtin_functions as registry
        found = registry()
        _BUILTINS = [Candidate(n, meta, "" if n in _NILADIC else "(", keyword=True)
                     for n, meta in sorted(found.items()) if _PLAIN.match(n) and n not in _OPERATORS]
    return _BUILTINS


def _config_keys(c: SqlCompleter, item: ConfigKeys, session) -> Iterable[Candidate]:
    return [Candidate(k, desc) for k, (desc, _) in CONFIG_KEYS.items()]


def _config_values(c: SqlCompleter, item: ConfigValues, session) -> Iterable[Candidate]:
    if item.key == "table.local-time-zone":
        import zoneinfo
        return [Candidate(z, "time zone") for z in sorted(zoneinfo.available_timezones())]
    return [Candidate(v, item.key) for v in CONFIG_KEYS.get(item.key, ("", ()))[1]]


def _option_keys(c: SqlCompleter, item: OptionKeys, session) -> Iterable[Candidate]:
    if item.catalog:
        from sqlengine.api.completion import catalog_types
        ctype = catalog_types().get(item.connector or "")
        keys = ctype.valid_keys() if ctype else ["type"]
        yield from (Candidate(k, "catalog option") for k in keys if k not in item.given)
        return
    if item.connector is None:
        yield Candidate("connector", "connector identifier")
        return
    for key, desc in CONNECTOR_OPTIONS.get(item.connector, {}).items():
        if key == "fields.":  # datagen: fields.<column>.<option>
            from sqlengine.api.completion import datagen_field_options
            yield from (Candidate(f"fields.{col}.{opt}", desc) for col in item.columns
                        for opt in datagen_field_options() if f"fields.{col}.{opt}" not in item.given)
        elif key not in item.given:
            yield Candidate(key, desc)
    for fmt in item.formats:
        for key, desc in FORMAT_OPTIONS.get(fmt, {}).items():
            if f"{fmt}.{key}" not in item.given:
                yield Candidate(f"{fmt}.{key}", f"{fmt}: {desc}")


def _option_values(c: SqlCompleter, item: OptionValues, session) -> Iterable[Candidate]:
    if item.catalog:
        from sqlengine.api.completion import catalog_types
        return [Candidate(n, "catalog type") for n in catalog_types()] if item.key == "type" else []
    from sqlengine.api import completion
    if item.key == "connector":
        return [Candidate(n, "connector") for n in completion.connectors()]
    if item.key in FORMAT_KEYS:
        return [Candidate(n, "format") for n in completion.formats(item.connector in ("kafka", "upsert-kafka"))]
    return [Candidate(v, item.key) for v in completion.option_values(item.connector, item.key)]


def _jobs(c: SqlCompleter, item: Jobs, session: "Session") -> Iterable[Candidate]:
    return [Candidate(job_id, getattr(job, "name", "job")) for job_id, job in list(session.jobs.items())]


_SOURCES: dict[type, Callable[..., Iterable[Candidate]]] = {
    Keywords: _keywords, Types: _types, Catalogs: _catalogs, Databases: _databases,
    Tables: _tables, Columns: _columns, Functions: _functions, ConfigKeys: _config_keys,
    ConfigValues: _config_values, OptionKeys: _option_keys, OptionValues: _option_values,
    Jobs: _jobs,
}
