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
    with pytest.raises(SqlSyntaxError) as info:
        parse_script("SELECT 1;\nSELECT a FROM WHERE x;")
    text = info.value.render()
    assert "line 2, column 15" in text
    assert "SELECT a FROM WHERE x;" in text
    assert "\n                ^^^^^" in text
