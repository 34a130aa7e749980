"""ORDER BY and LIMIT over an unbounded input, as Flink's streaming planner runs them
(SortLimit: a global Top-N; Limit: the first rows to arrive; TemporalSort: rows in time
order once the watermark passes them), over several epochs of a few lines each. Flink's
own outputs for the same forms are conformance cases (tests/conformance/extra/cases:
sort_limit_*, limit_*, temporal_sort_rowtime, sort_error_*)."""
from __future__ import annotations

import random
from collections import Counter

import pytest

from sqlengine.errors import UnsupportedError
from tests.runtime.changelog_util import materialize, run, run_both, write_jsonl

N = 40


@pytest.fixture
def bids(tmp_path):
    rnd = random.Random(5)
    prices = rnd.sample(range(1, 500), N)  # distinct: every ranking is defined
    rows = [{"t": f"2024-01-01 10:00:{i:02d}.000", "item": rnd.choice("abc"), "price": p} for i, p in enumerate(prices)]
    src = write_jsonl(tmp_path / "in" / "bids.jsonl", rows)
    ddl = f"""CREATE TABLE bids (t TIMESTAMP(3), item STRING, price INT,
      WATERMARK FOR t AS t - INTERVAL '2' SECOND)
      WITH ('connector' = 'filesystem', 'path' = '{src}', 'format' = 'json')"""
    return ddl, rows


def test_sort_limit_is_a_global_top_n_over_epochs(spark, tmp_path, bids):
    ddl, rows = bids
    q = "SELECT item, price FROM bids ORDER BY price DESC LIMIT 3 OFFSET 1"
    changes, streamed, batch = run_both(spark, tmp_path, ddl, q, lines_per_epoch=4)
    top = sorted(rows, key=lambda r: -r["price"])[1:4]
    assert streamed == batch == Counter((r["item"], r["price"]) for r in top)
    assert any(op == "-D" for op, *_ in changes), "a row left the top in a later epoch"
    assert list((tmp_path / "ckpt").glob("*/state/*-Sort/input")), "the Top-N's rows are its state"


def test_sort_limit_over_an_updating_input(spark, tmp_path, bids):
    ddl, rows = bids
    q = "SELECT item, COUNT(*) AS n, MAX(price) AS top FROM bids GROUP BY item ORDER BY n DESC, item LIMIT 2"
    _, streamed, batch = run_both(spark, tmp_path, ddl, q, lines_per_epoch=5)
    assert streamed == batch and sum(batch.values()) == 2


def test_limit_takes_the_first_rows_to_arrive_insert_only(spark, tmp_path, bids):
    """Rows 4..10 of the file (OFFSET 3, FETCH 7), over epochs of 2 lines: insert-only,
    and once ten rows have arrived no later epoch emits anything."""
    ddl, rows = bids
    q = "SELECT t, price FROM bids OFFSET 3 ROWS FETCH NEXT 7 ROWS ONLY"
    changes = run(spark, tmp_path, ddl, q, "streaming", lines_per_epoch=2)
    assert {op for op, *_ in changes} == {"+I"}
    assert [c[2] for c in changes] == [r["price"] for r in rows[3:10]]
    assert not list((tmp_path / "ckpt").glob("*/state/*-Sort/*")), \
        "the limit keeps no state table, only how many rows arrived"


def test_limit_over_an_updating_input_keeps_n_current_rows(spark, tmp_path, bids):
    ddl, rows = bids
    q = "SELECT item, COUNT(*) AS n FROM bids GROUP BY item LIMIT 2"
    changes = run(spark, tmp_path, ddl, q, "streaming", lines_per_epoch=6)
    final = materialize(changes)
    counts = Counter(r["item"] for r in rows)
    assert sum(final.values()) == 2 and all(counts[item] == n for item, n in final)


def test_temporal_sort_emits_in_time_order_and_drops_late_rows(spark, tmp_path):
    """ORDER BY the rowtime, then price descending: each epoch emits the rows the watermark
    has passed, in order; a row older than the watermark when it arrives is late (dropped)."""
    times = [3, 1, 2, 6, 5, 5, 9, 2, 8, 12, 11, 15]  # the 2 after 9 is late: the watermark is 9 - 2 = 7
    rows = [{"t": f"2024-01-01 10:00:{s:02d}.000", "price": p} for p, s in enumerate(times)]
    src = write_jsonl(tmp_path / "in" / "t.jsonl", rows)
    ddl = f"""CREATE TABLE e (t TIMESTAMP(3), price INT, WATERMARK FOR t AS t - INTERVAL '2' SECOND)
      WITH ('connector' = 'filesystem', 'path' = '{src}', 'format' = 'json')"""
    changes = run(spark, tmp_path, ddl, "SELECT t, price FROM e ORDER BY t, price DESC", "streaming",
                  lines_per_epoch=3)
    kept = [(r["t"], r["price"]) for i, r in enumerate(rows) if i != 7]
    expected = sorted(kept, key=lambda r: (r[0], -r[1]))
    assert [(str(c[1])[:19].replace("T", " "), c[2]) for c in changes] == [(t[:19], p) for t, p in expected]
    assert {op for op, *_ in changes} == {"+I"}


@pytest.mark.parametrize("query,message", [
    ("SELECT price FROM bids ORDER BY price", "Sort on a non-time-attribute field is not supported."),
    ("SELECT t, price FROM bids ORDER BY t DESC", "Sort on a non-time-attribute field is not supported."),
    ("SELECT price FROM bids OFFSET 2 ROWS", "FETCH is missed, which on streaming table is not supported currently."),
])
def test_what_flink_refuses_in_streaming(spark, tmp_path, bids, query, message):
    ddl, _ = bids
    with pytest.raises(UnsupportedError, match=message.replace(".", r"\.")):
        run(spark, tmp_path, ddl, query, "streaming")
