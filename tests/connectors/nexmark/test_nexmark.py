"""The ``nexmark`` source (connectors/nexmark): the reference generator's events, field by
field, and the connector in SQL.

``fixture/events-100k.jsonl.gz`` holds the first 100,000 events (parallelism 2, base time
1700000000000) of Nexmark's own Java generator, compiled from its sources with per-event
seeds by ``fixture/regenerate.sh`` (the extras as their length and Java hash code)."""
from __future__ import annotations

import gzip
import json
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import pytest

from connectors.nexmark.generator import Config
from sqlengine.api.session import Session

FIXTURE = Path(__file__).parent / "fixture" / "events-100k.jsonl.gz"
BASE = 1700000000000
KINDS = ("person", "auction", "bid")

DDL = """
CREATE TABLE datagen (
    event_type int,
    person ROW<id BIGINT, name VARCHAR, emailAddress VARCHAR, creditCard VARCHAR, city VARCHAR, state VARCHAR,
               `dateTime` TIMESTAMP(3), extra VARCHAR>,
    auction ROW<id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT, reserve BIGINT,
                `dateTime` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra VARCHAR>,
    bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, `dateTime` TIMESTAMP(3),
            extra VARCHAR>,
    `dateTime` AS CASE WHEN event_type = 0 THEN person.`dateTime` WHEN event_type = 1 THEN auction.`dateTime`
                  ELSE bid.`dateTime` END,
    WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'first-event.rate' = '10000', 'next-event.rate' = '10000',
        'events.num' = '100000', 'base-time' = '{base}'{more})
"""


@pytest.fixture(scope="module")
def reference() -> list[dict]:
    with gzip.open(FIXTURE, "rt") as f:
        return [json.loads(line) for line in f]


def _java_hash(s: str) -> int:
    h = 0
    for ch in s:
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def test_the_events_are_the_reference_generators_field_by_field(reference):
    config = Config(events=100_000, generators=2, base_time=BASE)
    mine = []
    for split in config.splits():
        for row in split.batch(0, split.count).to_pylist():
            kind = row["event_type"]
            event = {"split": split.index, "event_type": kind}
            for k, v in row[KINDS[kind]].items():
                if k == "extra":
                    v = [len(v), _java_hash(v)]
                elif isinstance(v, datetime):
                    v = round(v.timestamp() * 1000)
                event[k] = v
            assert all(row[other] is None for other in KINDS if other != KINDS[kind])
            mine.append(event)
    assert len(mine) == len(reference) == 100_000
    differ = [(i, a, b) for i, (a, b) in enumerate(zip(mine, reference)) if a != b]
    assert not differ, f"{len(differ)} events differ, the first: {differ[0]}"
    # what makes Nexmark Nexmark: the 1:3:46 mix and the hot keys
    assert Counter(e["event_type"] for e in reference) == {0: 2000, 1: 6000, 2: 92000}
    bids = [e for e in reference if e["event_type"] == 2]
    hot = sum(1 for e in bids if e["bidder"] % 100 == 1)  # bid.hot-ratio.bidders 4: 3 in 4 by a hot bidder
    assert 0.74 < hot / len(bids) < 0.77


def test_a_batch_can_start_anywhere(reference):
    split = Config(events=100_000, generators=2, base_time=BASE).splits()[1]
    whole = split.batch(0, 5000).to_pylist()
    assert split.batch(1234, 4321).to_pylist() == whole[1234:4321]


def _session(spark, tmp_path, conf=None, more="") -> Session:
    s = Session({"parallelism.default": "2", "execution.checkpointing.dir": str(tmp_path / "ck"), **(conf or {})},
                spark=spark)
    s.execute_sql(DDL.format(base=BASE, more=more))
    return s


def _expected(reference) -> dict:
    out: dict = {}
    for e in reference:
        n, prices, lengths, first, last = out.get(e["event_type"], (0, 0, 0, None, None))
        text = {0: "emailAddress", 1: "description", 2: "url"}[e["event_type"]]
        value = {0: e.get("id"), 1: e.get("reserve"), 2: e.get("price")}[e["event_type"]]
        out[e["event_type"]] = (n + 1, prices + value, lengths + len(e[text]),
                                min(first or e["dateTime"], e["dateTime"]), max(last or 0, e["dateTime"]))
    return out


def _ms(t: datetime) -> int:
    return round(t.replace(tzinfo=timezone.utc).timestamp() * 1000)


@pytest.mark.parametrize("conf", [{}, {"sqlengine.nexmark.max-rows-per-epoch": "30000"}])
def test_the_connector_reads_the_reference_events_in_sql(spark, tmp_path, reference, conf):
    s = _session(spark, tmp_path, conf)
    rows = s.execute_sql("""
        SELECT event_type, COUNT(*),
               SUM(CASE event_type WHEN 0 THEN person.id WHEN 1 THEN auction.reserve ELSE bid.price END),
               SUM(CHAR_LENGTH(CASE event_type WHEN 0 THEN person.emailAddress WHEN 1 THEN auction.description
                                               ELSE bid.url END)),
               MIN(`dateTime`), MAX(`dateTime`)
        FROM datagen GROUP BY event_type""").collect()
    final = {}
    for op, kind, n, total, length, lo, hi in rows:  # the last change per event type
        if op in ("+I", "+U"):
            final[kind] = (n, total, length, _ms(lo), _ms(hi))
    assert final == _expected(reference)


def test_windows_over_the_generated_bids(spark, tmp_path, reference):
    s = _session(spark, tmp_path)
    rows = s.execute_sql("""
        SELECT window_start, COUNT(*), MAX(bid.price), COUNT(DISTINCT bid.bidder)
        FROM TABLE(TUMBLE(TABLE datagen, DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND))
        WHERE event_type = 2 GROUP BY window_start, window_end""").collect()
    expected: dict = {}
    for e in reference:
        if e["event_type"] == 2:
            w = (e["dateTime"] - BASE) // 2000 * 2000 + BASE
            n, top, bidders = expected.get(w, (0, 0, set()))
            expected[w] = (n + 1, max(top, e["price"]), bidders | {e["bidder"]})
    assert {_ms(w): (n, top, k) for _, w, n, top, k in rows} == \
        {w: (n, top, len(b)) for w, (n, top, b) in expected.items()}


def test_options_and_schema_are_checked(spark, tmp_path):
    s = Session({"parallelism.default": "2"}, spark=spark)
    s.execute_sql("CREATE TABLE a (event_type INT) WITH ('connector' = 'nexmark', 'event.num' = '10')")
    with pytest.raises(Exception, match=r"(?s)Unsupported options found for 'nexmark'.*event\.num.*events\.num"):
        s.execute_sql("SELECT * FROM a").collect()
    s.execute_sql("CREATE TABLE b (event_type INT, price BIGINT) WITH ('connector' = 'nexmark')")
    with pytest.raises(Exception, match="has the column 'price': the source makes only event_type, person"):
        s.execute_sql("SELECT * FROM b").collect()
    s.execute_sql("CREATE TABLE c (event_type INT) WITH ('connector' = 'nexmark', 'person.avg-size' = 'big')")
    with pytest.raises(Exception, match="'person.avg-size' of connector 'nexmark': 'big' is not a memory size"):
        s.execute_sql("SELECT * FROM c").collect()
    s.execute_sql("SET 'execution.runtime-mode' = 'batch'")
    s.execute_sql("CREATE TABLE d (event_type INT) WITH ('connector' = 'nexmark', 'events.num' = '10')")
    with pytest.raises(Exception, match="Querying an unbounded table '.*d' in batch mode is not allowed"):
        s.execute_sql("SELECT * FROM d").collect()
