"""Plan shapes the binder produces for joins, subqueries, OVER, Top-N, grouping sets and
UNNEST (streaming unless stated), and Flink's error messages."""
from __future__ import annotations

import pytest

from sqlengine import errors
from sqlengine.binder.joins import conjuncts
from sqlengine.plan import nodes as P
from tests.binder.helpers import bind, nodes, run_ddl, session, updating_node

DDL = """
CREATE TABLE orders (id INT, cur STRING, amount INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '/tmp/o', 'format' = 'json');
CREATE TABLE ships (sid INT, order_id INT, sts TIMESTAMP(3),
  WATERMARK FOR sts AS sts) WITH ('connector' = 'filesystem', 'path' = '/tmp/s', 'format' = 'json');
CREATE TABLE rates (cur STRING, rate INT, rts TIMESTAMP(3), WATERMARK FOR rts AS rts,
  PRIMARY KEY (cur) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = '/tmp/r', 'format' = 'json');
CREATE TABLE plain (id INT, name STRING, tags ARRAY<STRING>, m MAP<STRING, INT>,
  pts ARRAY<ROW<x INT, y STRING>>) WITH ('connector' = 'filesystem', 'path' = '/tmp/p', 'format' = 'json');
"""


@pytest.fixture(scope="module")
def st():
    s = session("streaming")
    run_ddl(s, DDL)
    return s


@pytest.fixture(scope="module")
def bt():
    s = session("batch")
    run_ddl(s, DDL)
    return s


def one(plan, cls):
    found = nodes(plan, cls)
    assert len(found) == 1, [type(n).__name__ for n in P.walk(plan)]
    return found[0]


# -- regular joins ---------------------------------------------------------------------
def test_inner_join_extracts_equi_keys_and_keeps_full_condition(st):
    j = one(bind(st, "SELECT o.id, p.name FROM orders o JOIN plain p ON o.id = p.id AND o.amount > p.id",
                 optimized=False), P.Join)
    assert (j.kind, j.left_keys, j.right_keys) == ("INNER", (0,), (0,))
    assert str(j.condition) == "id = id AND amount > id"


@pytest.mark.parametrize("sql,kind", [("LEFT JOIN", "LEFT"), ("LEFT OUTER JOIN", "LEFT"), ("RIGHT JOIN", "RIGHT"),
                                      ("FULL OUTER JOIN", "FULL"), ("INNER JOIN", "INNER")])
def test_join_kinds(st, sql, kind):
    j = one(bind(st, f"SELECT * FROM orders o {sql} plain p ON p.id = o.id"), P.Join)
    assert j.kind == kind and j.left_keys == (0,) and j.right_keys == (0,)


def test_comma_join_takes_equi_predicates_from_where(st):
    plan = bind(st, "SELECT * FROM orders o, plain p WHERE o.id = p.id AND p.name = 'x' AND o.amount > 1")
    j = one(plan, P.Join)
    assert j.kind == "INNER" and j.left_keys == (0,) and j.right_keys == (0,)
    assert str(j.condition) == "id = id"  # the other conjuncts went below the join
    assert filters(j.left) == ["amount > 1"] and filters(j.right) == ["name = 'x'"]


def filters(node: P.Node) -> list[str]:
    """The conditions of the Calcs between ``node`` and the next node of another kind."""
    out = []
    while isinstance(node, P.Calc):
        if node.condition is not None:
            out.append(str(node.condition))
        node = node.input
    return out


WHERE_CASES = [  # (join, where-clause) -> (condition above, filter on left, filter on right)
    ("JOIN", "o.amount > 1 AND p.name = 'x'", [], ["amount > 1"], ["name = 'x'"]),
    ("LEFT JOIN", "o.amount > 1 AND p.name = 'x'", ["name = 'x'"], ["amount > 1"], []),
    ("RIGHT JOIN", "o.amount > 1 AND p.name = 'x'", ["amount > 1"], [], ["name = 'x'"]),
    ("FULL JOIN", "o.amount > 1 AND p.name = 'x'", ["amount > 1 AND name = 'x'"], [], []),
    ("JOIN", "o.amount > 1 OR p.name = 'x'", [], [], []),  # both sides: into the join's condition
    ("JOIN", "o.amount > RAND() AND p.name = UUID()", ["amount > RAND()"], [], []),  # non-deterministic
]


@pytest.mark.parametrize("join,where,above,left,right", WHERE_CASES)
def test_where_conjuncts_over_one_input_go_below_the_join(st, join, where, above, left, right):
    """As Flink's FilterIntoJoinRule: never into the side a join null-extends."""
    plan = bind(st, f"SELECT o.id, p.name FROM orders o {join} plain p ON o.id = p.id WHERE {where}")
    j = one(plan, P.Join)
    assert filters(plan) == above
    assert (filters(j.left), filters(j.right)) == (left, right)


ON_CASES = [  # (join) -> (condition left in the join, filter on left, filter on right)
    ("JOIN", ["id = id"], ["amount > 1"], ["name = 'x'"]),
    ("LEFT JOIN", ["id = id", "amount > 1"], [], ["name = 'x'"]),
    ("RIGHT JOIN", ["id = id", "name = 'x'"], ["amount > 1"], []),
    ("FULL JOIN", ["id = id", "amount > 1", "name = 'x'"], [], []),
]


@pytest.mark.parametrize("join,cond,left,right", ON_CASES)
def test_on_conjuncts_over_one_input_go_below_the_join(st, join, cond, left, right):
    """As Flink's JoinConditionPushRule: never into the side whose rows the join preserves."""
    plan = bind(st, f"SELECT o.id, p.name FROM orders o {join} plain p ON o.id = p.id AND o.amount > 1 "
                    "AND p.name = 'x'")
    j = one(plan, P.Join)
    assert [str(c) for c in conjuncts(j.condition)] == cond
    assert (filters(j.left), filters(j.right)) == (left, right)


def test_pushed_filters_reach_through_a_join_into_the_next(st):
    plan = bind(st, "SELECT * FROM orders o JOIN plain p ON o.id = p.id JOIN ships s ON s.order_id = o.id "
                    "WHERE o.amount > 1 AND s.sid < 5 AND p.id <> s.sid")
    top, low = [n for n in P.walk(plan) if isinstance(n, P.Join)]
    assert filters(top.right) == ["sid < 5"] and filters(low.left) == ["amount > 1"]
    assert "id <> sid" in str(top.condition)


def test_semi_and_anti_joins_filter_their_subquery_below_the_join(st):
    plan = bind(st, "SELECT * FROM orders o WHERE o.amount > 2 AND EXISTS "
                    "(SELECT 1 FROM ships s WHERE s.order_id = o.id AND s.sid > 3 AND o.cur = 'EUR')")
    j = one(plan, P.Join)
    assert j.kind == "SEMI" and str(j.condition) == "order_id = id"
    assert filters(j.left) == ["cur = 'EUR' AND amount > 2"] and filters(j.right) == ["sid > 3"]
    anti = one(bind(st, "SELECT * FROM orders o WHERE NOT EXISTS "
                        "(SELECT 1 FROM ships s WHERE s.order_id = o.id AND s.sid > 3 AND o.cur = 'EUR')"), P.Join)
    assert anti.kind == "ANTI" and str(anti.condition) == "order_id = id AND cur = 'EUR'"
    assert filters(anti.left) == [] and filters(anti.right) == ["sid > 3"]


def test_a_pushed_filter_over_a_time_attribute_keeps_it_for_the_operator_below(st):
    plan = bind(st, "SELECT * FROM orders o JOIN plain p ON o.id = p.id WHERE o.ts > TIMESTAMP '2024-01-01 00:00:00'")
    j = one(plan, P.Join)
    assert j.left.schema[3].type.time_attr == "ROWTIME" and plan.schema[3].type.time_attr is None


def test_a_join_keeps_only_the_columns_read_above_it(st):
    """As Flink's ProjectJoinTransposeRule: each input is cut to what the query, the join
    keys and the join condition read (so the join's state holds nothing more)."""
    plan = bind(st, "SELECT o.amount, p.name FROM orders o JOIN plain p ON o.id = p.id AND o.cur <> p.name")
    j = one(plan, P.Join)
    assert j.left.names() == ["id", "cur", "amount"] and j.right.names() == ["id", "name"]
    assert (j.left_keys, j.right_keys) == ((0,), (0,)) and str(j.condition) == "id = id AND cur <> name"
    assert [str(e) for e in plan.projections] == ["amount", "name"]


def test_an_aggregate_over_a_join_cuts_the_join_to_its_keys_and_arguments(st):
    plan = bind(st, "SELECT p.name, SUM(o.amount) FROM orders o LEFT JOIN plain p ON o.id = p.id GROUP BY p.name")
    j = one(plan, P.Join)
    assert j.left.names() == ["id", "amount"] and j.right.names() == ["id", "name"]
    assert plan.names() == ["name", "EXPR$1"]


def test_a_join_whose_input_is_not_read_keeps_one_column_of_it(st):
    plan = bind(st, "SELECT o.amount FROM orders o CROSS JOIN plain p")
    j = one(plan, P.Join)
    assert j.left.names() == ["amount"] and j.right.names() == ["id"]


def test_multi_way_join_is_left_deep(st):
    plan = bind(st, "SELECT * FROM orders o JOIN plain p ON o.id = p.id JOIN ships s ON s.order_id = o.id")
    top = [n for n in P.walk(plan) if isinstance(n, P.Join)]
    assert len(top) == 2 and top[1] is top[0].left
    assert top[0].left_keys == (0,) and top[0].right_keys == (1,)


def test_using_lists_common_columns_once(st):
    plan = bind(st, "SELECT * FROM orders JOIN plain USING (id)")
    assert plan.names() == ["id", "cur", "amount", "ts", "name", "tags", "m", "pts"]
    assert one(plan, P.Join).left_keys == (0,)


def test_cross_join_has_no_keys(st):
    j = one(bind(st, "SELECT * FROM orders CROSS JOIN plain"), P.Join)
    assert j.condition is None and j.left_keys == ()


@pytest.mark.parametrize("join", ["JOIN", "INNER JOIN", "LEFT JOIN", "RIGHT OUTER JOIN", "FULL JOIN"])
def test_join_without_condition_is_flinks_error_at_the_join_keyword(st, join):
    """Flink 2.3: 'SELECT a FROM t t1 JOIN t t2' fails validation at JOIN (p21)."""
    sql = f"SELECT o.id FROM orders o {join} plain p"
    with pytest.raises(errors.ValidationError) as info:
        bind(st, sql)
    assert info.value.message == ("INNER, LEFT, RIGHT or FULL join requires a condition "
                                  "(NATURAL keyword or ON or USING clause)")
    span = info.value.diagnostic.span
    assert sql[span.start: span.end] == "JOIN"


def test_map_needs_key_value_pairs(st):
    with pytest.raises(errors.ValidationError, match="^Map requires an even number of arguments$"):
        bind(st, "SELECT MAP['a', 1, 'b'] FROM plain")


def test_regular_join_materializes_time_attributes(st):
    plan = bind(st, "SELECT o.ts FROM orders o JOIN plain p ON o.id = p.id")
    assert plan.schema[0].type.time_attr is None


def test_ambiguous_and_missing_columns(st):
    with pytest.raises(errors.ValidationError, match="Column 'id' is ambiguous"):
        bind(st, "SELECT id FROM orders o JOIN plain p ON o.id = p.id")
    with pytest.raises(errors.ValidationError, match="Column 'nope' not found in any table"):
        bind(st, "SELECT nope FROM orders o JOIN plain p ON o.id = p.id")
    with pytest.raises(errors.ValidationError, match="Column 'nope' not found in table 'o'"):
        bind(st, "SELECT o.nope FROM orders o JOIN plain p ON o.id = p.id")


def test_outer_join_is_updating_inner_is_not(st):
    assert updating_node(bind(st, "SELECT * FROM orders o LEFT JOIN plain p ON o.id = p.id", False), True)
    assert updating_node(bind(st, "SELECT * FROM orders o JOIN plain p ON o.id = p.id", False), True) is None


# -- interval, window, temporal joins -----------------------------------------------------
@pytest.mark.parametrize("pred,lower,upper", [
    ("o.ts BETWEEN s.sts - INTERVAL '4' HOUR AND s.sts", 0, 4 * 3600000),
    ("s.sts BETWEEN o.ts AND o.ts + INTERVAL '1' HOUR", 0, 3600000),
    ("s.sts >= o.ts - INTERVAL '10' MINUTE AND s.sts < o.ts + INTERVAL '1' MINUTE", -600000, 59999),
    ("o.ts > s.sts AND o.ts <= s.sts + INTERVAL '2' SECOND", -2000, -1),
])
def test_interval_join_bounds(st, pred, lower, upper):
    plan = bind(st, f"SELECT o.id, s.sid FROM orders o, ships s WHERE o.id = s.order_id AND {pred}")
    j = one(plan, P.IntervalJoin)
    assert (j.left_time, j.right_time, j.lower_ms, j.upper_ms) == (3, 2, lower, upper)
    assert j.left_keys == (0,) and j.right_keys == (1,)
    assert updating_node(bind(st, f"SELECT * FROM orders o, ships s WHERE o.id = s.order_id AND {pred}", False),
                         True) is None


def test_interval_join_needs_both_bounds(st):
    plan = bind(st, "SELECT * FROM orders o JOIN ships s ON o.id = s.order_id AND s.sts >= o.ts")
    assert type(one(plan, P.Join)) is P.Join


def test_batch_interval_predicate_is_a_regular_join(bt):
    plan = bind(bt, "SELECT * FROM orders o JOIN ships s ON o.id = s.order_id AND s.sts BETWEEN o.ts AND o.ts")
    assert type(one(plan, P.Join)) is P.Join


WINDOWED = """SELECT * FROM (SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' MINUTES))) L
{kind} JOIN (SELECT * FROM TABLE(TUMBLE(TABLE ships, DESCRIPTOR(sts), INTERVAL '5' MINUTES))) R
ON L.id = R.order_id AND L.window_start = R.window_start AND L.window_end = R.window_end"""


@pytest.mark.parametrize("kind", ["", "LEFT", "FULL"])
def test_window_join(st, kind):
    plan = bind(st, WINDOWED.format(kind=kind), False)
    j = one(plan, P.WindowJoin)
    assert j.left_window == (4, 5) and j.right_window == (3, 4)
    assert j.left_keys == (0,) and j.right_keys == (1,)
    assert updating_node(plan, True) is None


def test_window_join_of_window_aggregates(st):
    plan = bind(st, """SELECT * FROM
      (SELECT id, window_start AS s, window_end AS e, COUNT(*) AS c
       FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY id, window_start, window_end) a
      JOIN (SELECT order_id, window_start AS s, window_end AS e
       FROM TABLE(TUMBLE(TABLE ships, DESCRIPTOR(sts), INTERVAL '1' MINUTE)) GROUP BY order_id, window_start, window_end) b
      ON a.id = b.order_id AND a.s = b.s AND a.e = b.e""")
    assert one(plan, P.WindowJoin).left_window == (1, 2)


@pytest.mark.parametrize("kind", ["", "LEFT"])
def test_temporal_join(st, kind):
    plan = bind(st, f"SELECT o.id, r.rate FROM orders o {kind} JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r "
                    "ON o.cur = r.cur")
    j = one(plan, P.TemporalJoin)
    assert (j.kind, j.left_keys, j.right_keys, j.left_time, j.right_time) == \
        (kind or "INNER", (1,), (0,), 3, 2)
    assert updating_node(plan, True) is None


def test_temporal_join_errors(st):
    with pytest.raises(errors.ValidationError, match="requires primary key"):
        bind(st, "SELECT * FROM orders o JOIN ships FOR SYSTEM_TIME AS OF o.ts ON o.id = ships.sid")
    with pytest.raises(errors.ValidationError, match="equality condition on fields of table"):
        bind(st, "SELECT * FROM orders o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.amount = r.rate")


# -- subqueries, CTEs, set operations -----------------------------------------------------
def test_in_and_exists_are_semi_and_anti_joins(st):
    plan = bind(st, "SELECT * FROM orders o WHERE o.id IN (SELECT id FROM plain) "
                    "AND NOT EXISTS (SELECT 1 FROM ships s WHERE s.order_id = o.id AND s.sid > 3)")
    kinds = sorted(j.kind for j in P.walk(plan) if isinstance(j, P.Join))
    assert kinds == ["ANTI", "SEMI"]
    anti = next(j for j in P.walk(plan) if isinstance(j, P.Join) and j.kind == "ANTI")
    assert anti.left_keys == (0,) and anti.right_keys == (1,)
    assert plan.names() == ["id", "cur", "amount", "ts"]


def test_not_in_is_null_aware(st):
    j = one(bind(st, "SELECT * FROM orders WHERE id NOT IN (SELECT id FROM plain)"), P.Join)
    assert j.kind == "ANTI" and "IS NULL" in str(j.condition)


def test_in_subquery_under_or_is_unsupported(st):
    with pytest.raises(errors.UnsupportedError, match="IN / EXISTS"):
        bind(st, "SELECT * FROM orders WHERE id = 1 OR id IN (SELECT id FROM plain)")


def test_ctes_inline_and_see_earlier_ones(st):
    plan = bind(st, "WITH a AS (SELECT id, amount FROM orders), b AS (SELECT id FROM a WHERE amount > 1) "
                    "SELECT * FROM b JOIN a ON a.id = b.id")
    assert one(plan, P.Join).left_keys == (0,)


def test_intersect_except(bt):
    assert one(bind(bt, "SELECT id FROM orders INTERSECT SELECT id FROM plain"), P.Join).kind == "SEMI"
    assert one(bind(bt, "SELECT id FROM orders EXCEPT SELECT id FROM plain"), P.Join).kind == "ANTI"


# -- OVER ----------------------------------------------------------------------------------
def test_over_rows_and_range_frames(st):
    plan = bind(st, "SELECT id, SUM(amount) OVER w, COUNT(*) OVER w FROM orders "
                    "WINDOW w AS (PARTITION BY cur ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)")
    o = one(plan, P.Over)
    assert o.partition_keys == (1,) and o.order_keys == (P.SortKey(3, True, True),) or o.order_keys[0].index == 3
    assert [c.frame for c in o.calls] == [P.Frame("ROWS", 2, 0)] * 2
    plan = bind(st, "SELECT AVG(amount) OVER (PARTITION BY cur ORDER BY ts RANGE BETWEEN INTERVAL '10' MINUTE "
                    "PRECEDING AND CURRENT ROW), MAX(amount) OVER (PARTITION BY cur ORDER BY ts) FROM orders")
    o = one(plan, P.Over)
    assert [c.frame for c in o.calls] == [P.Frame("RANGE", 600000, 0), P.Frame("RANGE", None, 0)]
    assert updating_node(plan, True) is None


def test_several_windows_stack_in_batch_and_fail_in_streaming(st, bt):
    sql = "SELECT SUM(amount) OVER (PARTITION BY cur ORDER BY ts), SUM(amount) OVER (ORDER BY ts) FROM orders"
    assert len(nodes(bind(bt, sql), P.Over)) == 2
    with pytest.raises(errors.UnsupportedError, match="All aggregates must be computed on the same window"):
        bind(st, sql)


def test_streaming_over_needs_ascending_time_order(st):
    with pytest.raises(errors.ValidationError, match="must be defined on a time attribute"):
        bind(st, "SELECT SUM(amount) OVER (ORDER BY id) FROM orders")
    with pytest.raises(errors.ValidationError, match="ASCENDING"):
        bind(st, "SELECT SUM(amount) OVER (ORDER BY ts DESC) FROM orders")


def test_row_number_without_filter_is_batch_only(st, bt):
    sql = "SELECT id, ROW_NUMBER() OVER (PARTITION BY cur ORDER BY amount) FROM orders"
    assert one(bind(bt, sql), P.Over).calls[0].name == "ROW_NUMBER"
    with pytest.raises(errors.UnsupportedError, match="ROW_NUMBER"):
        bind(st, sql)


# -- Top-N / dedup ---------------------------------------------------------------------------
TOPN = "SELECT {cols} FROM (SELECT *, {fn}() OVER (PARTITION BY cur ORDER BY {order}) AS rn FROM orders) WHERE {cond}"


@pytest.mark.parametrize("cond,start,end", [("rn <= 3", 1, 3), ("rn < 3", 1, 2), ("rn = 1", 1, 1),
                                            ("rn BETWEEN 2 AND 5", 2, 5), ("3 >= rn", 1, 3),
                                            ("rn <= 3 AND amount > 0", 1, 3)])
def test_topn_bounds(st, cond, start, end):
    r = one(bind(st, TOPN.format(cols="*", fn="ROW_NUMBER", order="amount DESC", cond=cond)), P.Rank)
    assert (r.rank_start, r.rank_end, r.output_rank, r.partition_keys) == (start, end, True, (1,))
    assert r.order_keys[0].index == 2 and not r.order_keys[0].ascending


@pytest.mark.parametrize("fn", ["RANK", "DENSE_RANK"])
def test_rank_functions(st, fn):
    assert one(bind(st, TOPN.format(cols="id", fn=fn, order="amount", cond="rn <= 2")), P.Rank).rank_fn == fn


def test_dedup_without_rank_column(st):
    plan = bind(st, TOPN.format(cols="id, cur", fn="ROW_NUMBER", order="ts DESC", cond="rn = 1"))
    r = one(plan, P.Rank)
    from sqlengine.physical.operators import operator_for
    assert not r.output_rank and r.is_deduplicate() and "Deduplicate(keep=[LastRow]" in operator_for(r).explain(r)
    assert updating_node(plan, True) is not None


def test_window_topn_is_insert_only(st):
    plan = bind(st, """SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end
        ORDER BY amount DESC) AS rn FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE)))
        WHERE rn <= 2""")
    r = one(plan, P.Rank)
    assert r.partition_keys == (4, 5) and updating_node(plan, True) is None


# -- GROUPING SETS, UNNEST, DISTINCT --------------------------------------------------------
def test_grouping_sets_rollup_cube(bt):
    agg = one(bind(bt, "SELECT cur, id, GROUPING(cur), SUM(amount) FROM orders "
                       "GROUP BY GROUPING SETS ((cur, id), (cur), ())"), P.Aggregate)
    assert agg.keys == (1, 0) and agg.grouping_sets == ((1, 0), (1,), ())
    assert agg.aggs[0].name == "GROUPING" and agg.schema[0].type.nullable
    assert one(bind(bt, "SELECT cur, id, COUNT(*) FROM orders GROUP BY ROLLUP (cur, id)"),
               P.Aggregate).grouping_sets == ((1, 0), (1,), ())
    assert len(one(bind(bt, "SELECT cur, id, GROUPING_ID(cur, id) FROM orders GROUP BY CUBE (cur, id)"),
                   P.Aggregate).grouping_sets) == 4


def test_unnest_forms(st):
    u = one(bind(st, "SELECT id, t FROM plain CROSS JOIN UNNEST(tags) AS x(t)"), P.Unnest)
    assert [f.name for f in u.out_fields] == ["t"] and not u.left_outer
    u = one(bind(st, "SELECT * FROM plain CROSS JOIN UNNEST(pts) WITH ORDINALITY AS x(a, b, n)"), P.Unnest)
    assert [f.name for f in u.out_fields] == ["a", "b", "n"] and u.with_ordinality
    u = one(bind(st, "SELECT k, v FROM plain LEFT JOIN UNNEST(m) AS x(k, v) ON TRUE"), P.Unnest)
    assert u.left_outer and [f.type.root for f in u.out_fields] == ["VARCHAR", "INT"]
    assert updating_node(bind(st, "SELECT * FROM plain CROSS JOIN UNNEST(tags) AS x(t)", False), True) is None


def test_select_distinct_is_an_aggregate(st):
    agg = one(bind(st, "SELECT DISTINCT cur FROM orders"), P.Aggregate)
    assert agg.keys == (0,) and agg.aggs == ()


def test_expression_equality_becomes_computed_keys(st):
    plan = bind(st, "SELECT o.id, p.name FROM orders o JOIN plain p ON MOD(o.amount, 10) = p.id + 1", False)
    j = one(plan, P.Join)
    assert j.left_keys == (4,) and j.right_keys == (5,)
    assert [type(j.left).__name__, type(j.right).__name__] == ["Calc", "Calc"]
    assert plan.names() == ["id", "name"]


def test_window_semi_and_anti_joins(st):
    tvf = "(SELECT * FROM TABLE(TUMBLE(TABLE {t}, DESCRIPTOR({c}), INTERVAL '5' MINUTES)))"
    left, right = tvf.format(t="orders", c="ts"), tvf.format(t="ships", c="sts")
    plan = bind(st, f"SELECT * FROM {left} L WHERE L.id IN (SELECT order_id FROM {right} R "
                    "WHERE L.window_start = R.window_start AND L.window_end = R.window_end)")
    j = one(plan, P.WindowJoin)
    assert j.kind == "SEMI" and j.left_keys == (0,) and j.right_keys == (1,) and j.right_window == (3, 4)
    plan = bind(st, f"SELECT * FROM {left} L WHERE NOT EXISTS (SELECT * FROM {right} R WHERE L.id = R.order_id "
                    "AND L.window_start = R.window_start AND L.window_end = R.window_end)")
    assert one(plan, P.WindowJoin).kind == "ANTI"


def test_over_rejects_an_updating_input(st):
    with pytest.raises(errors.ValidationError, match="StreamPhysicalOverAggregate doesn't support consuming update"):
        bind(st, "SELECT cur, SUM(c) OVER (PARTITION BY cur ORDER BY t) FROM "
                 "(SELECT cur, COUNT(*) AS c, MAX(ts) AS t FROM orders GROUP BY cur)", False)


@pytest.mark.parametrize("sql,match", [
    ("SELECT * FROM orders NATURAL JOIN plain", "NATURAL JOIN"),
    ("SELECT id FROM orders INTERSECT ALL SELECT id FROM plain", "INTERSECT ALL is not supported in streaming"),
    ("SELECT cur FROM orders GROUP BY cur HAVING cur IN (SELECT name FROM plain)", "subqueries"),
    ("SELECT * FROM plain CROSS JOIN UNNEST(tags, tags) AS t(a, b)", "UNNEST of several"),
])
def test_unsupported_constructs_are_named(st, sql, match):
    with pytest.raises(errors.UnsupportedError, match=match):
        bind(st, sql)


def test_window_aggregate_through_a_filter_and_a_projection(st):
    """Flink's window aggregation when a WHERE or a subquery sits between the TVF and the
    GROUP BY: the Calc moves below the windowing, carrying the time column."""
    plan = bind(st, """SELECT ws, COUNT(*) FROM (SELECT amount + 1 AS a, window_start AS ws, window_end AS we
        FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) WHERE amount > 10) GROUP BY ws, we""")
    agg = one(plan, P.WindowAggregate)
    assert isinstance(agg.input, P.Calc) and agg.input.condition is not None
    assert agg.input.schema[agg.window.time_col].name == "$windowts"
    assert updating_node(plan, True) is None
    # a window property used in an expression below the GROUP BY: a group aggregate, as before
    plan = bind(st, """SELECT s, COUNT(*) FROM (SELECT window_start + INTERVAL '1' SECOND AS s, window_end AS e
        FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE))) GROUP BY s, e""")
    assert not nodes(plan, P.WindowAggregate) and nodes(plan, P.Aggregate)


def test_grouping_sets_in_streaming_and_over_windows_expand_below_the_aggregate(st):
    """Flink's plan: Expand (the keys outside a set NULL, the set's number $e), then the
    aggregate grouped by the keys and $e; GROUPING() from $e."""
    plan = bind(st, "SELECT window_start, cur, COUNT(*), GROUPING(cur) FROM TABLE(TUMBLE(TABLE orders, "
                    "DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, GROUPING SETS ((cur), ())")
    agg, ex = one(plan, P.WindowAggregate), one(plan, P.Expand)
    assert agg.input is ex and ex.sets == ((1,), ())
    assert [f.name for f in ex.schema[-2:]] == ["cur", "$e"] and ex.schema[-2].type.nullable
    assert updating_node(plan, True) is None  # a window aggregate: insert-only
    plan = bind(st, "SELECT cur, id, SUM(amount) FROM orders GROUP BY ROLLUP (cur, id)")
    agg = one(plan, P.Aggregate)
    assert isinstance(agg.input, P.Expand) and agg.grouping_sets is None and len(agg.input.sets) == 3
