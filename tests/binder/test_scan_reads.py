"""What a job reads of its tables (sqlengine/plan/reads.py): the values a connector may
leave out. Planned, not run: the DAG of each INSERT, then the paths of the scan's values
that no operator reads."""
from __future__ import annotations

import pytest

from sqlengine.plan import nodes as P
from sqlengine.plan.reads import scan_reads, unread, watermark_reads

from tests.binder.helpers import run_ddl, session

EVENTS = """
CREATE TABLE events (
    event_type INT,
    person ROW<id BIGINT, name VARCHAR, city VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR>,
    bid ROW<auction BIGINT, price BIGINT, `dateTime` TIMESTAMP(3), extra VARCHAR>,
    `dateTime` AS CASE WHEN event_type = 0 THEN person.`dateTime` ELSE bid.`dateTime` END,
    WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH ('connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = 'localhost:9092',
        'format' = 'json', 'scan.startup.mode' = 'earliest-offset');
CREATE VIEW person AS SELECT person.id, person.name, person.city, `dateTime`, person.extra
    FROM events WHERE event_type = 0;
CREATE VIEW bid AS SELECT bid.auction, bid.price, `dateTime`, bid.extra FROM events WHERE event_type = 2;
CREATE TABLE out1 (a BIGINT, b VARCHAR) WITH ('connector' = 'blackhole');
CREATE TABLE out2 (a BIGINT, b BIGINT, ws TIMESTAMP(3)) WITH ('connector' = 'blackhole');
CREATE TABLE out3 (e INT, p ROW<id BIGINT, name VARCHAR, city VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR>)
    WITH ('connector' = 'blackhole');
"""


def unread_of(insert: str) -> set[tuple[str, ...]]:
    s = session()
    sinks = run_ddl(s, EVENTS + insert)
    dag = s.planner().dag(sinks)
    reads = scan_reads(dag)
    (scan, demand), = reads.items()
    assert isinstance(scan, P.TableScan)
    return set(unread(scan.fields, demand))


def test_members_no_operator_reads_are_unread():
    # The persons' names and ids only: no bid member, no time (the watermark is not used).
    got = unread_of("INSERT INTO out1 SELECT id, name FROM person WHERE city = 'x';")
    assert got == {("bid",), ("person", "dateTime"), ("person", "extra")}


def test_a_used_watermark_reads_the_rowtime_and_all_it_is_computed_from():
    got = unread_of("INSERT INTO out2 SELECT auction, MAX(price), window_start FROM TABLE("
                    "TUMBLE(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND)) "
                    "GROUP BY auction, window_start, window_end;")
    # The rowtime column is computed from both members' times; the persons' other members
    # and the bids' extra are read by no one.
    assert got == {("person", "id"), ("person", "name"), ("person", "city"), ("person", "extra"),
                   ("bid", "extra")}


def test_a_whole_row_read_whole():
    got = unread_of("INSERT INTO out3 SELECT event_type, person FROM events;")
    assert got == {("bid",)}


@pytest.mark.parametrize("insert", [
    # a user-defined or built-in function of a whole ROW reads all of it
    "INSERT INTO out1 SELECT CAST(event_type AS BIGINT), CAST(person AS VARCHAR) FROM events;",
    # two branches: the union of what each reads
    "INSERT INTO out1 SELECT id, name FROM person UNION ALL SELECT auction, extra FROM bid;",
])
def test_nothing_read_is_called_unread(insert):
    got = unread_of(insert)
    assert ("person",) not in got
    if "UNION" in insert:
        assert got == {("person", "city"), ("person", "dateTime"), ("person", "extra"),
                       ("bid", "price"), ("bid", "dateTime")}
    else:
        assert got == {("bid",)}


def test_a_join_reads_its_keys_and_what_is_read_of_its_output():
    got = unread_of("INSERT INTO out1 SELECT B.price, P.name FROM person AS P JOIN bid AS B "
                    "ON P.id = B.auction WHERE P.city = 'x';")
    assert got == {("person", "dateTime"), ("person", "extra"), ("bid", "dateTime"), ("bid", "extra")}


def test_a_group_aggregation_reads_its_keys_and_arguments():
    got = unread_of("INSERT INTO out1 SELECT auction, CAST(COUNT(DISTINCT extra) AS VARCHAR) FROM bid "
                    "GROUP BY auction;")
    assert got == {("person",), ("bid", "price"), ("bid", "dateTime")}


@pytest.mark.parametrize("insert,read", [
    ("INSERT INTO out1 SELECT id, name FROM person WHERE city = 'x';", False),
    ("INSERT INTO out2 SELECT auction, MAX(price), window_start FROM TABLE(TUMBLE(TABLE bid, "
     "DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end;", True),
])
def test_only_a_scan_whose_watermark_is_read_needs_the_split_of_each_row(insert, read):
    """A table with a WATERMARK whose job never reads it computes no per-row split (a
    string built per row, for per-split watermarks; physical/operators/source/scan.py)."""
    s = session()
    dag = s.planner().dag(run_ddl(s, EVENTS + insert))
    (scan,) = scan_reads(dag)
    assert scan.watermarked
    assert watermark_reads(dag) == ({scan} if read else set())
