"""Which rows of a table a job uses (sqlengine/plan/pushdown.py): the condition handed to
the connector (``ScanContext.filter``, connectors/predicate.py's form). Planned, not run:
the DAG of the INSERTs, then the condition of its one scan."""
from __future__ import annotations

import json

import pytest

from sqlengine.plan.pushdown import scan_filters, to_predicate, to_values

from tests.binder.helpers import run_ddl, session
from tests.binder.test_scan_reads import EVENTS

PERSON = ["cmp", "=", ["event_type"], 0]
BID = ["cmp", "=", ["event_type"], 2]


def with_tops(*inserts: str):
    """(the condition, the tops) in the connector's forms; (None, []): every row."""
    s = session()
    dag = s.planner().dag(run_ddl(s, EVENTS + "\n".join(inserts)))
    (scan, used), = scan_filters(dag).items()
    if used is None:
        return None, []
    return to_predicate(used.cond, scan.fields), to_values(used.tops, scan.fields)


def used(*inserts: str):
    cond, tops = with_tops(*inserts)
    assert tops == [], tops
    return cond


def either(*parts) -> set:
    """An OR's parts, in any order (as the consumers of the scan come)."""
    return {json.dumps(p) for p in parts}


def parts(pred) -> set:
    assert pred[0] == "or", pred
    return {json.dumps(p) for p in pred[1:]}


def test_a_view_filter_and_the_query_filter_both_reach_the_scan():
    got = used("INSERT INTO out1 SELECT id, name FROM person WHERE city = 'x';")
    assert got == ["and", PERSON, ["cmp", "=", ["person", "city"], "x"]]


def test_the_two_sides_of_a_join_use_the_rows_either_uses():
    # Nexmark's q3 shape: a regular join of two views of one table; the join's WHERE on
    # each side is pushed below the join, and so reaches the scan.
    got = used("INSERT INTO out1 SELECT B.price, P.name FROM person AS P JOIN bid AS B "
               "ON P.id = B.auction WHERE P.city IN ('a', 'b') AND B.price > 10;")
    assert parts(got) == either(
        ["and", PERSON, ["or", ["cmp", "=", ["person", "city"], "a"], ["cmp", "=", ["person", "city"], "b"]]],
        ["and", BID, ["cmp", ">", ["bid", "price"], 10]])


def test_union_branches_and_statements_of_a_set_add_up():
    assert parts(used("INSERT INTO out1 SELECT id, name FROM person UNION ALL SELECT auction, extra FROM bid;")) \
        == either(PERSON, BID)
    assert parts(used("INSERT INTO out1 SELECT id, name FROM person;",
                      "INSERT INTO out1 SELECT auction, extra FROM bid;")) == either(PERSON, BID)
    # one statement reads every row: so does the job
    assert used("INSERT INTO out1 SELECT id, name FROM person;",
                "INSERT INTO out3 SELECT event_type, person FROM events;") is None


ROWTIME = ["case", PERSON, ["path", ["person", "dateTime"]], ["path", ["bid", "dateTime"]]]


def test_a_window_keeps_each_splits_largest_event_time():
    """The watermark is over every row of the table: the rowtime column's expression (a
    CASE over the members' times) is a top, so the row holding each split's largest
    event time is kept with the bids."""
    cond, tops = with_tops("INSERT INTO out2 SELECT auction, MAX(price), window_start FROM TABLE(TUMBLE(TABLE bid, "
                           "DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end;")
    assert cond == BID and tops == [ROWTIME]
    # with a statement that reads no watermark: the rows either uses, the one top
    cond, tops = with_tops("INSERT INTO out2 SELECT auction, MAX(price), window_start FROM TABLE(TUMBLE(TABLE bid, "
                           "DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end;",
                           "INSERT INTO out1 SELECT id, name FROM person;")
    assert parts(cond) == either(BID, PERSON) and tops == [ROWTIME]


def test_a_rowtime_with_no_exact_form_keeps_every_row():
    s = session()
    dag = s.planner().dag(run_ddl(s, EVENTS.replace("CASE WHEN event_type = 0", "CASE WHEN UPPER(person.name) = 'X'") +
                                  "INSERT INTO out2 SELECT auction, MAX(price), window_start FROM TABLE(TUMBLE("
                                  "TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND)) "
                                  "GROUP BY auction, window_start, window_end;"))
    (scan, used), = scan_filters(dag).items()
    assert to_predicate(used.cond, scan.fields) == BID and to_values(used.tops, scan.fields) is None


@pytest.mark.parametrize("insert", [
    # an aggregation over the scan (no filter between)
    "INSERT INTO out1 SELECT CAST(event_type AS BIGINT), CAST(COUNT(*) AS VARCHAR) FROM events GROUP BY event_type;",
    # a condition with no connector form at all
    "INSERT INTO out1 SELECT person.id, person.name FROM events WHERE event_type = 0 OR UPPER(person.name) = 'X';",
])
def test_every_row_used(insert):
    assert used(insert) is None


def test_parts_without_a_connector_form_make_the_condition_weaker_never_stronger():
    # a function call is left out of a conjunction, ...
    assert used("INSERT INTO out1 SELECT id, name FROM person WHERE UPPER(name) = 'X' AND id > 5;") == \
        ["and", PERSON, ["cmp", ">", ["person", "id"], 5]]
    # ... and a negation of a weakened part is no condition at all
    assert used("INSERT INTO out1 SELECT id, name FROM person WHERE NOT (UPPER(name) = 'X' AND id > 5);") == PERSON
    # an exact one is negated; IS [NOT] NULL; a literal on the left; a comparison of two columns is left out
    assert used("INSERT INTO out1 SELECT id, name FROM person WHERE NOT (id > 5 OR name IS NULL) "
                "AND 7 > id AND city IS NOT NULL AND id <> CHAR_LENGTH(name);") == \
        ["and", PERSON, ["not", ["or", ["cmp", ">", ["person", "id"], 5], ["null", ["person", "name"]]]],
         ["cmp", "<", ["person", "id"], 7], ["notnull", ["person", "city"]]]


def test_an_integer_widened_for_a_comparison_keeps_its_value():
    got = used("INSERT INTO out1 SELECT id, name FROM events_all WHERE event_type = 10000000000;"
               .replace("events_all", "(SELECT person.id, person.name, event_type FROM events)"))
    assert got == ["cmp", "=", ["event_type"], 10000000000]


def test_a_changelog_is_read_whole():
    """An update's before and after rows are one history: dropping one of them (the old
    value passes the filter, the new one does not) would leave the old row standing."""
    s = session()
    sinks = run_ddl(s, EVENTS + """
        CREATE TABLE cdc (id BIGINT, name STRING) WITH ('connector' = 'kafka', 'topic' = 'c',
            'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'debezium-json',
            'scan.startup.mode' = 'earliest-offset');
        INSERT INTO out1 SELECT id, name FROM cdc WHERE id > 5;""")
    (scan, cond), = scan_filters(s.planner().dag(sinks)).items()
    assert scan.changelog and cond is None


def test_in_and_between_in_all_their_forms():
    assert used("INSERT INTO out1 SELECT id, name FROM person WHERE id BETWEEN 3 AND 9 AND id NOT BETWEEN 5 AND 6 "
                "AND name NOT IN ('a', 'b') AND city IN ('c');") == \
        ["and", PERSON, ["cmp", ">=", ["person", "id"], 3], ["cmp", "<=", ["person", "id"], 9],
         ["or", ["cmp", "<", ["person", "id"], 5], ["cmp", ">", ["person", "id"], 6]],
         ["not", ["or", ["cmp", "=", ["person", "name"], "a"], ["cmp", "=", ["person", "name"], "b"]]],
         ["cmp", "=", ["person", "city"], "c"]]


def test_an_integer_scaled_by_a_decimal_literal_is_bounded_exactly():
    """Nexmark's q14 filters on ``0.908 * price``: a DECIMAL product of an integer column,
    the same rows as a bound on the column (its floor or ceiling), in every operator, the
    literal on either side, a negative factor flipping it; an equality no integer meets,
    an integer product (it wraps), and a DECIMAL column are left out."""
    price = ["bid", "price"]
    got = used("INSERT INTO out1 SELECT auction, extra FROM bid WHERE 0.908 * price > 1000000 "
               "AND 0.908 * price < 50000000 AND price * 2.5 >= 7 AND 2.5 * price <= 12.5 AND 3 > price * -0.5 "
               "AND 0.5 * price = 4 AND 0.5 * price <> 3;")
    assert got == ["and", BID, ["cmp", ">", price, 1101321], ["cmp", "<", price, 55066080],
                   ["cmp", ">=", price, 3], ["cmp", "<=", price, 5], ["cmp", ">", price, -6],
                   ["cmp", "=", price, 8], ["cmp", "<>", price, 6]]
    # (1101321 * 0.908 = 999999.468, 1101322 * 0.908 = 1000000.376: the bound is the floor)
    assert used("INSERT INTO out1 SELECT auction, extra FROM bid WHERE 0.3 * price = 1 AND price * 3 > 10 "
                "AND CAST(price AS DECIMAL(30, 2)) * 0.5 > 1;") == BID
