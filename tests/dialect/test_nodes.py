"""Node types for Flink-specific syntax, and syntax errors with line, column and caret."""
from __future__ import annotations

import pytest
from sqlglot import exp

from sqlengine.dialect import nodes as n
from sqlengine.dialect import parse_one, parse_script
from sqlengine.errors import SqlSyntaxError

DDL = """CREATE TABLE Bid (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  `dateTime` AS CASE WHEN price > 1 THEN bidtime END,
  ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL,
  addr ROW<street STRING, geo ROW<lat DOUBLE>>,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND,
  PRIMARY KEY (price) NOT ENFORCED
) PARTITIONED BY (price) WITH ('connector' = 'filesystem', 'path' = '/tmp/x', 'format' = 'json')"""


def test_watermark_is_a_watermark_node():
    tree = parse_one(DDL)
    wm = list(tree.find_all(exp.WatermarkColumnConstraint))
    assert len(wm) == 1
    assert wm[0].this.name == "bidtime"
    assert isinstance(wm[0].expression, exp.Sub)
    assert isinstance(wm[0].expression.expression, exp.Interval)


def test_with_options_are_properties():
    tree = parse_one(DDL)
    props = {p.this.name: p.args["value"].name for p in tree.args["properties"].expressions
             if type(p) is exp.Property}  # PartitionedByProperty subclasses exp.Property
    assert props == {"connector": "filesystem", "path": "/tmp/x", "format": "json"}


def test_computed_and_metadata_columns():
    cols = {c.name: c for c in parse_one(DDL).this.expressions if isinstance(c, exp.ColumnDef)}
    computed = cols["dateTime"].args["constraints"][0].args["kind"]
    assert isinstance(computed, exp.ComputedColumnConstraint)
    meta = [c.args["kind"] for c in cols["ts"].args["constraints"]]
    assert isinstance(meta[0], n.MetadataColumnConstraint) and meta[0].args["virtual"]
    assert cols["addr"].args["kind"].is_type("struct")


@pytest.mark.parametrize("kind,args", [
    ("TUMBLE", "INTERVAL '10' MINUTES"),
    ("HOP", "INTERVAL '5' MINUTES, INTERVAL '10' MINUTES"),
    ("CUMULATE", "INTERVAL '2' MINUTES, INTERVAL '10' MINUTES"),
    ("SESSION", "INTERVAL '5' MINUTES"),
])
def test_window_tvfs(kind, args):
    sql = f"SELECT * FROM TABLE({kind}(TABLE Bid, DESCRIPTOR(bidtime), {args}))"
    tvf = parse_one(sql).find(n.WindowTVF)
    assert tvf is not None and tvf.kind == kind
    call_args = tvf.this.expressions
    assert isinstance(call_args[0], n.TableArg) and call_args[0].this.name == "Bid"
    assert isinstance(call_args[1], n.Descriptor)
    units = [i.unit.name for i in tvf.find_all(exp.Interval)]
    assert units and all(u == "MINUTE" for u in units)


def test_statement_set_and_other_statements():
    stmts = parse_script("""SET 'parallelism.default' = '2';
EXECUTE STATEMENT SET BEGIN
  INSERT INTO a SELECT 1;
  INSERT INTO b SELECT 2;
END;
RESET 'parallelism.default';
SHOW TABLES;
EXPLAIN CHANGELOG_MODE SELECT 1;
""")
    kinds = [type(s.node) for s in stmts]
    assert kinds == [exp.Set, n.StatementSet, n.Reset, n.FlinkShow, n.FlinkExplain]
    assert len(stmts[1].node.expressions) == 2
    assert stmts[1].span.line == 2


def test_syntax_error_has_line_column_and_caret():
    """Flink counts lines from the statement; the place under the message is the script's."""
    with pytest.raises(SqlSyntaxError) as info:
        parse_script("SELECT 1;\nSELECT a FROM WHERE x;")
    assert info.value.render().splitlines() == [
        "SQL parse failed. Incorrect syntax near the keyword 'WHERE' at line 1, column 15.",
        "  at line 2 of the script, column 15:",
        "  SELECT a FROM WHERE x;",
        "                ^^^^^"]


def test_syntax_error_in_the_first_statement_has_the_plain_place():
    with pytest.raises(SqlSyntaxError) as info:
        parse_script("SELECT a,\n  FROM t;")
    assert info.value.render().splitlines()[:2] == [
        "SQL parse failed. Incorrect syntax near the keyword 'FROM' at line 2, column 3.",
        "  at line 2, column 3:"]


# -- statements and clauses beyond the core ----------------------------------------------
def test_table_hints_are_hint_nodes_with_options():
    tree = parse_one("SELECT * FROM t /*+ OPTIONS('k' = 'v') */ AS a")
    table = tree.find(exp.Table)
    assert table.alias == "a"
    (hint,) = table.args["hints"]
    (options,) = hint.expressions
    assert isinstance(options, exp.Anonymous) and options.name == "OPTIONS"
    assert [(p.this.name, p.args["value"].name) for p in options.expressions] == [("k", "v")]
    sink = parse_one("INSERT INTO s /*+ OPTIONS('a' = 'b') */ SELECT 1").this
    assert isinstance(sink, exp.Table) and sink.args["hints"]


def test_named_window_arguments_and_partitioned_table_argument():
    tvf = parse_one("SELECT * FROM TABLE(SESSION(DATA => TABLE Bid PARTITION BY item, "
                    "TIMECOL => DESCRIPTOR(ts), GAP => INTERVAL '5' MINUTES))").find(n.WindowTVF)
    named = {a.this.name: a.expression for a in tvf.this.expressions}
    assert isinstance(named["DATA"], n.TableArg)
    assert [c.name for c in named["DATA"].args["partition"]] == ["item"]
    assert isinstance(named["TIMECOL"], n.Descriptor)
    assert named["GAP"].unit.name == "MINUTE"


def test_create_table_like_and_partitioned_by():
    tree = parse_one("CREATE TABLE t (a INT) PARTITIONED BY (a) WITH ('connector' = 'x') "
                     "LIKE s (EXCLUDING ALL INCLUDING WATERMARKS)")
    props = tree.args["properties"].expressions
    like = next(p for p in props if isinstance(p, exp.LikeProperty))
    assert like.this.name == "s"
    assert [(o.name, o.text("value")) for o in like.expressions] == [("EXCLUDING", "ALL"),
                                                                     ("INCLUDING", "WATERMARKS")]
    assert any(isinstance(p, exp.PartitionedByProperty) for p in props)


@pytest.mark.parametrize("sql,action,columns", [
    ("ALTER TABLE t ADD (a INT FIRST, WATERMARK FOR ts AS ts)", "ADD",
     [exp.ColumnDef, exp.WatermarkColumnConstraint]),
    ("ALTER TABLE t MODIFY b AS a + 1 AFTER a", "MODIFY", [exp.ColumnDef]),
    ("ALTER TABLE t DROP (a, b)", "DROP", [exp.Identifier, exp.Identifier]),
    ("ALTER TABLE t DROP WATERMARK", "DROP WATERMARK", []),
    ("ALTER TABLE t RENAME a TO b", "RENAME COLUMN", [exp.Identifier]),
    ("ALTER TABLE t RESET ('k')", "RESET", []),
])
def test_alter_table_actions(sql, action, columns):
    node = parse_one(sql)
    assert isinstance(node, n.AlterTableFlink) and node.args["action"] == action
    assert [type(c) for c in node.args.get("columns") or []] == columns


def test_alter_table_column_position():
    (col,) = parse_one("ALTER TABLE t ADD a INT AFTER b").args["columns"]
    assert col.args["position"].args["position"] == "AFTER" and col.args["position"].this.name == "b"


def test_show_describe_and_modules():
    show = parse_one("SHOW PARTITIONS c.db.t PARTITION (id = 1)")
    assert show.this == "PARTITIONS" and show.args["target"].name == "t"
    assert isinstance(show.args["partition"], exp.Partition)
    ilike = parse_one("SHOW USER FUNCTIONS IN c.db NOT ILIKE 'f%'")
    assert ilike.args["ilike"] and ilike.args["not_like"] and ilike.args["like"].name == "f%"
    assert isinstance(parse_one("DESC CATALOG EXTENDED c"), n.DescribeCatalog)
    assert isinstance(parse_one("DESCRIBE t"), exp.Describe)
    assert [e.name for e in parse_one("USE MODULES hive, core").expressions] == ["hive", "core"]
    load = parse_one("LOAD MODULE hive WITH ('hive-version' = '3.1.2')")
    assert isinstance(load, n.LoadModule) and load.this.name == "hive"
    assert isinstance(parse_one("UNLOAD MODULE core"), n.UnloadModule)


@pytest.mark.parametrize("sql,key,value", [
    ("SET 'a.b' = 'c'", "a.b", "c"),
    ("SET sql-client.execution.result-mode = tableau", "sql-client.execution.result-mode", "tableau"),
    ("SET table.dml-sync=true", "table.dml-sync", "true"),
])
def test_set_forms_share_one_shape(sql, key, value):
    (item,) = parse_one(sql).expressions
    assert isinstance(item.this, exp.EQ)
    assert (item.this.this.name, item.this.expression.name) == (key, value)
    assert isinstance(item.this.this, exp.Literal) and isinstance(item.this.expression, exp.Literal)


def test_client_statement_set_and_explain_statement_set():
    merged = parse_script("BEGIN STATEMENT SET;\nINSERT INTO a SELECT 1;\nINSERT INTO b SELECT 2;\nEND;")
    assert len(merged) == 1 and isinstance(merged[0].node, n.StatementSet)
    assert len(merged[0].node.expressions) == 2
    alone = parse_script("BEGIN STATEMENT SET;")
    assert isinstance(alone[0].node, n.BeginStatementSet)
    assert isinstance(parse_one("END"), n.EndStatementSet)
    explain = parse_one("EXPLAIN CHANGELOG_MODE STATEMENT SET BEGIN INSERT INTO a SELECT 1; END;")
    assert isinstance(explain, n.FlinkExplain) and isinstance(explain.this, n.StatementSet)
    assert [d.name for d in explain.args["details"]] == ["CHANGELOG_MODE"]
    assert isinstance(explain.this.expressions[0], exp.Insert)


def test_function_ddl():
    create = parse_one("CREATE TEMPORARY SYSTEM FUNCTION f AS 'a.B' LANGUAGE PYTHON "
                       "USING JAR 'x.jar', ARTIFACT 'y.jar' WITH ('k' = 'v')")
    assert create.args["temporary"] and create.args["system"]
    assert create.args["language"].name == "PYTHON"
    assert [(r.args["kind"], r.name) for r in create.args["resources"]] == [("JAR", "x.jar"),
                                                                           ("ARTIFACT", "y.jar")]
    alter = parse_one("ALTER FUNCTION IF EXISTS f AS 'a.C'")
    assert isinstance(alter, n.AlterFunction) and alter.args["identifier"].name == "a.C"
    drop = parse_one("DROP CATALOG IF EXISTS c")
    assert isinstance(drop, exp.Drop) and drop.args["kind"] == "CATALOG"


def test_json_function_clauses_follow_the_arguments():
    call = parse_one("SELECT JSON_VALUE(s, '$.a' RETURNING INT DEFAULT 0 ON EMPTY) FROM t").find(exp.Anonymous)
    assert call.name == "JSON_VALUE"
    plain, path, returning, behavior = call.expressions
    assert isinstance(returning, n.JsonReturning) and returning.this.is_type("int")
    assert isinstance(behavior, n.JsonBehavior) and behavior.this == "DEFAULT"
    assert behavior.args["on"] == "EMPTY" and behavior.expression.name == "0"


def test_nested_types():
    cols = {c.name: c.args["kind"] for c in parse_one(
        "CREATE TABLE t (a ARRAY<INT NOT NULL>, m MULTISET<STRING>, r ROW<x INT 'the x'>)").this.expressions}
    assert cols["a"].expressions[0].args["nullable"] is False
    assert cols["m"].this == exp.DType.LIST
    (field,) = cols["r"].expressions
    assert field.args["constraints"][0].args["kind"].name == "the x"


@pytest.mark.parametrize("sql,column", [
    ("GRANT SELECT ON t TO u", 1),
    ("SELECT 1;\nCREATE TABLE t (a INT) ENGINE = x", 24),
    ("CREATE TABLE t (a INT) WITH ('k' = 1)", 36),
    ("SHOW THINGS", 1),
])
def test_unsupported_syntax_is_a_syntax_error(sql, column):
    with pytest.raises(SqlSyntaxError) as info:
        parse_script(sql)
    assert f"column {column}" in str(info.value)


def test_datetime_literals_are_typed_literals_not_casts():
    select = parse_one("SELECT TIMESTAMP '2020-04-15 08:05:00.12', CAST('2020-04-15' AS DATE), "
                       "TIMESTAMP WITH LOCAL TIME ZONE '2020-04-15 08:05:00'")
    lit, cast, ltz = select.expressions
    assert isinstance(lit, n.TypedLiteral) and lit.this.name == "2020-04-15 08:05:00.12"
    assert lit.args["to"].this == exp.DType.TIMESTAMP
    assert type(cast) is exp.Cast
    assert isinstance(ltz, n.TypedLiteral) and ltz.args["to"].this == exp.DType.TIMESTAMPLTZ


def test_map_value_constructor():
    select = parse_one("SELECT MAP['a', 1, 'b', 2]['b'], `map`['k'] FROM t")
    access, column = select.expressions
    assert isinstance(access, exp.Bracket) and isinstance(access.this, exp.VarMap)
    assert [k.name for k in access.this.args["keys"].expressions] == ["a", "b"]
    assert [v.name for v in access.this.args["values"].expressions] == ["1", "2"]
    assert isinstance(column, exp.Bracket) and isinstance(column.this, exp.Column)


def test_map_constructor_with_odd_arguments_parses():
    """As in Flink, an odd number of MAP[...] arguments is the binder's error, not the parser's."""
    (keys, values) = parse_one("SELECT MAP['a', 1, 'b']").expressions[0].args.values()
    assert [k.name for k in keys.expressions] == ["a", "b"] and [v.name for v in values.expressions] == ["1"]
