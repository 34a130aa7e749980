"""Completion and highlighting of the interactive shell (shell/completion.py,
shell/highlight.py), driven through ``SqlCompleter.get_completions`` against a real
Session (CREATE TABLE needs no Spark) and through the pure ``suggest``."""
from __future__ import annotations

import re
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from connectors.base import Options
from sqlengine.errors import ConnectorError
from sqlengine.api.session import Session
from shell.completion import (CONFIG_KEYS, CONNECTOR_OPTIONS, FORMAT_OPTIONS, SqlCompleter, suggest,
                              table_refs, tokenize)
from shell.highlight import FlinkSqlLexer

REPO = Path(__file__).resolve().parents[2]
DDL = """
CREATE TABLE orders (order_id BIGINT, customer_id INT, amount DECIMAL(10, 2), ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE customers (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'datagen');
CREATE VIEW big_orders AS SELECT order_id, amount FROM orders WHERE amount > 100;
CREATE DATABASE shop;
CREATE TABLE shop.products (sku STRING, price DOUBLE) WITH ('connector' = 'datagen');
CREATE TEMPORARY FUNCTION my_udf AS 'mymodule.fn' LANGUAGE PYTHON;
"""


@pytest.fixture
def completion_session() -> Session:
    session = Session({})
    session.execute_sql(DDL)
    return session


def complete(session, text: str, cursor: int | None = None) -> dict[str, str]:
    """Inserted text -> meta of every completion at ``cursor`` (default: the end)."""
    doc = Document(text, len(text) if cursor is None else cursor)
    return {c.text: c.display_meta_text for c in SqlCompleter(lambda: session).get_completions(
        doc, CompleteEvent())}


def test_columns_after_an_alias_of_a_join(completion_session):
    got = complete(completion_session, "SELECT * FROM orders AS o JOIN customers c ON o.")
    assert list(got) == ["order_id", "customer_id", "amount", "ts"]
    assert got["amount"].startswith("DECIMAL(10, 2)")
    got = complete(completion_session, "SELECT * FROM orders AS o JOIN customers c ON o.customer_id = c.")
    assert list(got) == ["id", "name"]


def test_alias_resolved_from_the_text_after_the_cursor(completion_session):
    text = "SELECT o.am FROM orders o"
    assert list(complete(completion_session, text, text.index(" FROM"))) == ["amount"]


def test_columns_in_where_group_by_and_select(completion_session):
    got = complete(completion_session, "SELECT * FROM orders WHERE am")
    assert list(got) == ["amount"]
    got = complete(completion_session, "SELECT customer_id, SUM(amount) FROM orders GROUP BY cu")
    assert "customer_id" in got
    text = "SELECT  FROM customers"
    got = complete(completion_session, text, text.index(" FROM"))
    assert {"id", "name"} <= set(got) and "order_id" not in got
    assert "COUNT(" in got  # functions in the same context


def test_columns_of_a_window_tvf(completion_session):
    got = complete(completion_session, "SELECT w. FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), "
                   "INTERVAL '1' MINUTES)) AS w", len("SELECT w."))
    assert {"amount", "window_start", "window_end", "window_time"} <= set(got)
    got = complete(completion_session, "SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(t")
    assert "ts" in got
    assert "TUMBLE(" in complete(completion_session, "SELECT * FROM TABLE(TU")


def test_tables_after_from_and_qualified(completion_session):
    got = complete(completion_session, "SELECT * FROM ")
    assert got["orders"] == "table" and got["big_orders"] == "view" and got["shop"] == "database"
    assert list(complete(completion_session, "SELECT * FROM cu")) == ["customers"]
    assert list(complete(completion_session, "SELECT * FROM default_catalog.shop.")) == ["products"]
    assert list(complete(completion_session, "INSERT INTO shop.")) == ["products"]
    got = complete(completion_session, "SELECT * FROM orders o JOIN ")
    assert "customers" in got
    assert list(complete(completion_session, "SELECT p. FROM shop.products p", len("SELECT p."))) \
        == ["sku", "price"]


def test_catalogs_and_databases(completion_session):
    assert "default_catalog" in complete(completion_session, "USE CATALOG ")
    assert {"shop", "default_database"} <= set(complete(completion_session, "USE "))
    assert "shop" in complete(completion_session, "SHOW TABLES FROM ")


def test_functions_complete_with_a_parenthesis(completion_session):
    got = complete(completion_session, "SELECT cou")
    assert got == {"COUNT(": "aggregate function"}
    got = complete(completion_session, "select upp")
    assert "UPPER(" in got
    assert complete(completion_session, "SELECT my_")["my_udf("] == "user function"
    assert "CURRENT_TIMESTAMP" in complete(completion_session, "SELECT CURRENT_TI")


def test_set_keys_and_values(completion_session):
    got = complete(completion_session, "SET '")
    assert "execution.runtime-mode'" in got and "sql-client.execution.result-mode'" in got
    assert got["table.dml-sync'"] == CONFIG_KEYS["table.dml-sync"][0]
    got = complete(completion_session, "SET 'sql-client.execution.result-mode' = '")
    assert list(got) == ["table'", "changelog'", "tableau'"]
    got = complete(completion_session, "SET 'execution.runtime-mode' = 'b")
    assert list(got) == ["batch'"]
    # without the opening quote, candidates are whole string literals
    assert "'parallelism.default'" in complete(completion_session, "SET para")
    # segment match: a word of the key, not only its start
    assert "execution.runtime-mode'" in complete(completion_session, "SET 'runtime")


def test_kafka_option_keys_inside_with(completion_session):
    text = "CREATE TABLE k (a INT, b STRING) WITH (\n  'connector' = 'kafka',\n  '"
    got = complete(completion_session, text)
    assert {"topic'", "properties.bootstrap.servers'", "scan.startup.mode'", "format'"} <= set(got)
    assert "connector'" not in got  # already given
    assert "path'" not in got  # a filesystem option
    assert "'topic'" in complete(completion_session, text[:-1])  # not yet in a string
    got = complete(completion_session, text + "scan.startup.mode' = '")
    assert set(got) == {f"{m}'" for m in ("earliest-offset", "latest-offset", "group-offsets",
                                          "timestamp", "specific-offsets")}
    got = complete(completion_session, text + "format' = 'json', 'json.ign")
    assert list(got) == ["json.ignore-parse-errors'"]


def test_connector_names_and_datagen_field_options(completion_session):
    got = complete(completion_session, "CREATE TABLE t (a INT) WITH ('connector' = '")
    assert {"kafka'", "datagen'", "filesystem'", "upsert-kafka'"} <= set(got)
    text = "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen', 'fields.b."
    assert "fields.b.kind'" in complete(completion_session, text)
    assert list(complete(completion_session, "CREATE TABLE t (a INT) WITH ('")) == ["connector'"]


def test_catalog_options_from_the_catalog_types(completion_session):
    assert list(complete(completion_session, "CREATE CATALOG c WITH ('")) == ["type'"]
    assert set(complete(completion_session, "CREATE CATALOG c WITH ('type' = '")) == {
        "generic_in_memory'", "file'"}
    got = complete(completion_session, "CREATE CATALOG c WITH ('type' = 'file', '")
    assert set(got) == {"path'", "default-database'", "property-version'"}


def test_types_in_a_column_list_and_cast(completion_session):
    assert "TIMESTAMP_LTZ" in complete(completion_session, "CREATE TABLE t (a INT, b TIMESTAMP_")
    assert "DECIMAL" in complete(completion_session, "SELECT CAST(amount AS DEC")
    text = "CREATE TABLE t (order_time TIMESTAMP(3), WATERMARK FOR ord"
    assert "order_time" in complete(completion_session, text)


def test_insert_column_list_and_job_ids(completion_session):
    assert set(complete(completion_session, "INSERT INTO shop.products (sku, ")) == {"sku", "price"}
    completion_session.jobs["4f1c"] = SimpleNamespace(name="insert-into_orders")
    assert complete(completion_session, "STOP JOB '") == {"4f1c'": "insert-into_orders"}


def test_keywords_and_statement_starts_without_a_session():
    completer = SqlCompleter(lambda: None)

    def words(text):
        return {c.text: c.display_meta_text for c in completer.get_completions(
            Document(text, len(text)), CompleteEvent())}

    assert words("sel") == {"SELECT": "statement"}
    assert {"SHOW TABLES", "SHOW JOBS"} <= set(words("show"))
    assert "EXECUTE STATEMENT SET" in words("exec")
    assert {"TEMPORARY TABLE", "TABLE"} <= set(words("create t"))  # the rest of a statement start
    assert list(words("show create v").items())[0] == ("VIEW", "statement")
    assert "WHERE" in words("SELECT * FROM orders wh")
    assert not any(t == "orders" for t in words("SELECT * FROM ord"))  # no catalog yet


def test_only_the_current_statement_counts(completion_session):
    text = "SELECT * FROM customers c;\nSELECT * FROM orders o WHERE o."
    assert "order_id" in complete(completion_session, text)
    text = "SELECT c. FROM orders c; SELECT * FROM customers c"
    assert list(complete(completion_session, text, len("SELECT c."))) == \
        ["order_id", "customer_id", "amount", "ts"]
    assert complete(completion_session, "SELECT 'FROM orders; x") is not None  # ; inside a string


def test_a_failing_catalog_drops_only_its_candidates(completion_session, monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("dictionary changed size during iteration")

    monkeypatch.setattr(completion_session.catalogs, "list_tables", boom)
    got = complete(completion_session, "SELECT * FROM ")
    assert "orders" not in got and "shop" in got and "TABLE" in got


def test_table_refs_without_parsing():
    refs = table_refs(tokenize("SELECT * FROM a AS x, cat.db.b y LEFT JOIN c ON x.k = c.k "
                               "JOIN d FOR SYSTEM_TIME AS OF x.t AS e WHERE (SELECT 1 FROM f)"))
    assert [(r.parts, r.alias) for r in refs] == [
        (("a",), "x"), (("cat", "db", "b"), "y"), (("c",), None), (("d",), "e"), (("f",), None)]


STATEMENTS = [
    "SELECT o.order_id, SUM(o.amount) AS total FROM orders AS o JOIN customers c ON o.customer_id = c.id "
    "WHERE o.amount > 10 GROUP BY o.order_id HAVING COUNT(*) > 1 ORDER BY total DESC LIMIT 5;",
    "CREATE TEMPORARY TABLE IF NOT EXISTS `my t` (`a``b` INT, ts AS PROCTIME(), PRIMARY KEY (a) NOT ENFORCED)"
    " WITH ('connector' = 'kafka', 'topic' = 'it''s', 'format' = 'json');",
    "SET 'table.local-time-zone' = 'Europe/Berlin'; RESET 'x';",
    "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT * FROM b; INSERT INTO c VALUES (1, 'x'); END;",
    "SELECT window_start, COUNT(*) FROM TABLE(HOP(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' MINUTES, "
    "INTERVAL '10' MINUTES)) GROUP BY window_start, window_end /* comment ; */ -- line ;",
    "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts DESC) AS rn FROM t) WHERE rn = 1",
    "STOP JOB 'abc' WITH SAVEPOINT; SHOW CREATE TABLE shop.products; DESCRIBE orders; USE CATALOG x;",
    ")))((( ' ` . , ; = /* -- '' `` ... FROM FROM . . WITH ( ( ' = '",
]


@pytest.mark.parametrize("statement", STATEMENTS)
def test_every_prefix_of_a_statement_is_completed_without_error(completion_session, statement):
    """``get_completions`` swallows errors, so ``suggest`` and the sources are run bare."""
    completer = SqlCompleter(lambda: completion_session)
    for end in range(len(statement) + 1):
        ctx = suggest(statement, end)
        list(completer._completions(ctx, completion_session, statement[end:]))


def test_completion_is_fast_with_a_thousand_tables():
    session = Session({})
    session.execute_sql(";".join(f"CREATE TABLE t{i} (a INT, b STRING) WITH ('connector' = 'datagen')"
                                 for i in range(1000)))
    completer = SqlCompleter(lambda: session)
    texts = ["SELECT * FROM ", "SELECT * FROM t99", "SELECT x.a FROM t1 x JOIN t2 y ON x.", "SELECT "]
    for text in texts:
        best = min(_timed(completer, text) for _ in range(5))
        assert best < 0.05, f"{text!r}: {best * 1000:.0f} ms"
    assert len(list(completer.get_completions(Document("SELECT * FROM t99"), CompleteEvent()))) == 11


def _timed(completer, text: str) -> float:
    start = time.perf_counter()
    list(completer.get_completions(Document(text, len(text)), CompleteEvent()))
    return time.perf_counter() - start


# -- the tables of the completion module against the code they describe --------------------
def _supported(parse, connector: str, options: dict[str, str]) -> set[str]:
    """The keys a connector's parser lists as supported (its 'Unsupported options' error)."""
    with pytest.raises(ConnectorError) as info:
        parse(Options(connector, {**options, "no.such.key": "1"}))
    listed = str(info.value).split("Supported options:")[1].split()
    return {k[:-1] if k.endswith("*") else k for k in listed} - {"connector"}


def _ours(connector: str, fmt: str) -> set[str]:
    keys = set(CONNECTOR_OPTIONS[connector]) | {f"{fmt}.{k}" for k in FORMAT_OPTIONS.get(fmt, {})}
    return {k for k in keys if not any(k.startswith(p) and k != p for p in keys if p.endswith("."))}


def test_connector_option_tables_match_the_connectors():
    from connectors.filesystem.factory import parse_table_options
    from connectors.jdbc import options as JO
    from connectors.kafka import options as KO
    from connectors.printsink.sink import PrintSettings
    from sqlengine.types import INT, STRING
    cols = [("a", INT()), ("b", STRING())]
    kafka = {"topic": "t", "properties.bootstrap.servers": "h:9092", "format": "json"}
    assert _supported(lambda o: KO.parse(o, cols), "kafka", kafka) == _ours("kafka", "json")
    upsert = {"topic": "t", "properties.bootstrap.servers": "h:9092", "key.format": "raw",
              "value.format": "avro"}
    supported = _supported(lambda o: KO.parse(o, cols, ("b",), upsert=True), "upsert-kafka", upsert)
    ours = _ours("upsert-kafka", "raw") | _ours("upsert-kafka", "avro")
    assert supported - ours == {"key.fields", "topic-pattern"}  # read only to reject them
    assert ours <= supported
    jdbc = {"url": "jdbc:postgresql://h/db", "table-name": "t"}
    assert _supported(lambda o: JO.parse(o, "t"), "jdbc", jdbc) == _ours("jdbc", "")
    for fmt in ("csv", "json", "debezium-json"):
        fs = {"path": "/tmp/x", "format": fmt}
        assert _supported(lambda o: parse_table_options(o, True), "filesystem", fs) == _ours("filesystem", fmt)
    assert _supported(lambda o: PrintSettings(o, 1), "print", {}) == _ours("print", "")


def test_datagen_options_match_the_connector():
    from connectors.datagen import source as S
    assert set(CONNECTOR_OPTIONS["datagen"]) == {S.ROWS_PER_SECOND, S.NUMBER_OF_ROWS, S.SCAN_PARALLELISM,
                                                 "fields."}


def test_config_keys_are_read_by_the_engine():
    code = "\n".join(p.read_text() for folder in ("sqlengine", "connectors", "catalog", "shell")
                     for p in (REPO / folder).rglob("*.py") if p.name != "completion.py")
    unread = [k for k in CONFIG_KEYS if f'"{k}"' not in code]
    assert unread == []
    from sqlengine.runtime.job import STATE_BACKENDS
    assert set(CONFIG_KEYS["state.backend.type"][1]) == set(STATE_BACKENDS)


# -- highlighting --------------------------------------------------------------------------
def test_lexer_token_types():
    sql = ("CREATE TABLE `my t` (ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) "
           "WITH ('connector' = 'kafka') -- note\nSELECT count(*), 1.5 FROM TABLE(TUMBLE(TABLE t, "
           "DESCRIPTOR(ts), INTERVAL '1' MINUTES))")
    tokens = [(str(t), v) for t, v in FlinkSqlLexer().get_tokens(sql) if v.strip()]
    kinds = dict((v, t) for t, v in tokens)
    for word in ("CREATE", "WATERMARK", "INTERVAL", "WITH", "TUMBLE", "DESCRIPTOR", "TABLE"):
        assert kinds[word] == "Token.Keyword", word
    assert kinds["TIMESTAMP_LTZ"] == "Token.Keyword.Type"
    assert kinds["'connector'"].startswith("Token.Literal.String")
    assert kinds["`my t`"] == "Token.Name.Quoted"
    assert kinds["3"] == "Token.Literal.Number.Integer" and kinds["1.5"] == "Token.Literal.Number.Float"
    assert kinds["count"] == "Token.Name.Function"
    assert kinds["-- note"] == "Token.Comment.Single"
    assert re.sub(r"\s", "", "".join(v for _, v in tokens)) == re.sub(r"\s", "", sql)


def test_lexer_and_style_plug_into_prompt_toolkit():
    from prompt_toolkit.lexers import PygmentsLexer
    from prompt_toolkit.styles import Style

    from shell.highlight import lexer, style
    assert isinstance(lexer(), PygmentsLexer) and isinstance(style(), Style)
