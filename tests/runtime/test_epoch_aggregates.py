"""Streaming aggregation in the epoch runtime over several epochs: the materialized
changelog equals the batch result of the same SQL (and the expected rows)."""
from __future__ import annotations

import random
from collections import Counter

import pytest

from tests.runtime.changelog_util import run, run_both, write_jsonl

N = 60


@pytest.fixture
def bids(tmp_path):
    rnd = random.Random(7)
    rows = [{"bidtime": f"2024-01-01 10:{i // 6:02d}:{(i * 7) % 60:02d}.000", "bidder": rnd.randint(1, 6),
             "price": rnd.randint(1, 50), "channel": rnd.choice(["a", "b", None])} for i in range(N)]
    rows.sort(key=lambda r: r["bidtime"])
    src = write_jsonl(tmp_path / "in" / "bids.jsonl", rows)
    ddl = f"""CREATE TABLE bids (bidtime TIMESTAMP(3), bidder INT, price INT, channel STRING,
      WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND)
      WITH ('connector' = 'filesystem', 'path' = '{src}', 'format' = 'json')"""
    return ddl, rows


def test_group_by_over_group_by_histogram(spark, tmp_path, bids):
    ddl, rows = bids
    q = """SELECT cnt, COUNT(*) AS bidders FROM
           (SELECT bidder, COUNT(*) AS cnt FROM bids GROUP BY bidder) GROUP BY cnt"""
    changes, streamed, batch = run_both(spark, tmp_path, ddl, q)
    expected = Counter(Counter(r["bidder"] for r in rows).values())
    assert streamed == batch == Counter({(c, n): 1 for c, n in expected.items()})
    assert {c[0] for c in changes} >= {"+I", "-U", "+U", "-D"}, "several epochs, a changing histogram"


def test_min_max_distinct_filter_under_retraction(spark, tmp_path, bids):
    ddl, _ = bids
    q = """SELECT m, MIN(bidder) AS lo, MAX(bidder) AS hi, COUNT(DISTINCT bidder) AS n,
                  COUNT(*) FILTER (WHERE m > 20) AS big, SUM(m) AS total, AVG(m) AS mean
           FROM (SELECT bidder, MAX(price) AS m FROM bids GROUP BY bidder) GROUP BY m"""
    changes, streamed, batch = run_both(spark, tmp_path, ddl, q)
    assert streamed == batch
    assert any(c[0] == "-D" for c in changes)


MAXES = "(SELECT bidder, channel, MAX(price) AS m FROM bids GROUP BY bidder, channel)"


def _maxes(rows, key) -> dict:
    """MAX(price) per ``key(row)``: the inner aggregate of ``MAXES``'s shapes."""
    out: dict = {}
    for r in rows:
        out[key(r)] = max(out.get(key(r), 0), r["price"])
    return out


def _aggregate_tables(ckpt, operator: str = "-Aggregate") -> set:
    return {p.name for p in ckpt.rglob("*") if p.is_dir() and p.parent.name.endswith(operator)}


@pytest.mark.parametrize("keys", ["m / 10", "channel", ""])
def test_count_sum_avg_over_an_updating_input_fold_signed_sums(spark, tmp_path, bids, keys):
    """COUNT / SUM / AVG over an updating input (each bidder's maximum moves between
    buckets as it grows): integral and DECIMAL arguments (a scale above 6 too), FILTER,
    a SUM of only NULLs, COUNT of a column with NULLs; keys that empty out (``-D``), a
    NULL key, a global aggregate. Each change folds into per-key sums (state ``acc``);
    no input multiset is kept (no ``input`` table). Several epochs, the batch answer."""
    ddl, _ = bids
    group = f"GROUP BY {keys}" if keys else ""
    head = f"{keys} AS k, " if keys else ""
    q = f"""SELECT {head}COUNT(*) AS n, COUNT(channel) AS nc, SUM(m) AS total, AVG(m) AS mean,
                   AVG(CAST(m AS DECIMAL(10, 2))) AS dmean, SUM(CAST(m AS DECIMAL(10, 8)) / 7) AS dsum,
                   SUM(IF(m > 45, m, NULL)) AS top, COUNT(*) FILTER (WHERE channel IS NULL) AS nulls,
                   AVG(CAST(bidder AS BIGINT)) FILTER (WHERE m > 30) AS high
            FROM {MAXES} {group}"""
    changes, streamed, batch = run_both(spark, tmp_path, ddl, q)
    assert streamed == batch and batch
    assert {c[0] for c in changes} >= ({"+I", "-U", "+U", "-D"} if keys == "m / 10" else {"+I", "-U", "+U"})
    assert any(r[-3] is None for r in batch) if keys == "m / 10" else True, "a SUM of only NULLs"
    tables = _aggregate_tables(tmp_path / "ckpt")
    assert "acc" in tables and "input" not in tables, tables


def test_distinct_over_an_updating_input_folds_row_counts(spark, tmp_path, bids):
    """SELECT DISTINCT over an updating input: a value's count of rows is its only
    accumulator; it is deleted when its last row leaves."""
    ddl, rows = bids
    changes, streamed, batch = run_both(spark, tmp_path, ddl, f"SELECT DISTINCT m / 10 FROM {MAXES}")
    maxes = _maxes(rows, lambda r: (r["bidder"], r["channel"]))
    assert streamed == batch == Counter({(m // 10,): 1 for m in maxes.values()})
    assert {c[0] for c in changes} == {"+I", "-D"}
    assert "acc" in _aggregate_tables(tmp_path / "ckpt")


@pytest.mark.parametrize("agg, conf", [
    ("SUM(CAST(m AS DOUBLE) / 2)", {}),
    ("SUM(CAST(m AS DECIMAL(38, 2)))", {}),
    ("SUM(m)", {"table.exec.state.ttl": "1 h"}),
])
def test_sums_that_signed_accumulators_would_change_recompute(spark, tmp_path, bids, agg, conf):
    """Over an updating input these keep the multiset and recompute: a FLOAT/DOUBLE sum
    that adds and later removes a value may differ from the sum without it (1 + 1e20 -
    1e20 is 0; halves here: sums exact in any order, as the batch's); a DECIMAL of 38
    digits does not fit the DECIMAL(37, s) accumulator; under a state TTL Flink drops a
    retraction for an expired key, which a signed sum cannot tell from one it holds."""
    ddl, _ = bids
    q = f"SELECT channel, {agg} AS s, COUNT(*) AS n FROM {MAXES} GROUP BY channel"
    _, streamed, batch = run_both(spark, tmp_path, ddl, q, conf=conf)
    assert streamed == batch
    assert "input" in _aggregate_tables(tmp_path / "ckpt")


def test_a_global_sum_over_epochs_whose_input_changes_nothing(spark, tmp_path, bids):
    """A global aggregate's one group comes out of Spark's aggregation even in an epoch
    whose input has no row (the filter below keeps few bids: epochs 5 and 6 change
    nothing above it): its sums stay, and later changes retract the row before."""
    ddl, rows = bids
    q = """SELECT COUNT(*) AS n, SUM(m) AS total FROM
           (SELECT bidder, MAX(price) AS m FROM bids WHERE price > 40 GROUP BY bidder)"""
    changes, streamed, batch = run_both(spark, tmp_path, ddl, q, lines_per_epoch=4)  # changes in epochs 4, 7..10, 12
    maxes = _maxes([r for r in rows if r["price"] > 40], lambda r: r["bidder"])
    assert streamed == batch == Counter({(len(maxes), sum(maxes.values())): 1})
    assert sum(c[0] == "+U" for c in changes) >= 2
    assert "acc" in _aggregate_tables(tmp_path / "ckpt")


def test_count_distinct_over_an_insert_only_input_merges_per_epoch(spark, tmp_path, bids):
    """COUNT(DISTINCT ...) with and without FILTER, of one and two arguments, over a NULL
    key and NULL values, beside COUNT/SUM/MIN/MAX(DISTINCT): over an insert-only input the
    epoch counts only the values new to their key (state ``distinct``: the pairs seen, a
    flag per FILTER) and merges the counts into the emitted results; no input rows are
    kept (no ``input`` table). Several epochs, updates, the batch answer."""
    ddl, rows = bids
    q = """SELECT channel, COUNT(*) AS n, COUNT(DISTINCT bidder) AS bidders,
                  COUNT(DISTINCT bidder) FILTER (WHERE price < 20) AS cheap,
                  COUNT(DISTINCT bidder) FILTER (WHERE price >= 20 AND price < 40) AS mid,
                  COUNT(DISTINCT price) FILTER (WHERE bidder > 3) AS prices,
                  COUNT(DISTINCT bidder, price) AS pairs, COUNT(DISTINCT IF(price > 45, bidder, NULL)) AS top,
                  MAX(DISTINCT price) AS hi, MIN(price) AS lo, SUM(price) AS total
           FROM bids GROUP BY channel"""
    changes, streamed, batch = run_both(spark, tmp_path, ddl, q)
    assert streamed == batch and len(batch) == 3
    assert {c[0] for c in changes} >= {"+I", "-U", "+U"}
    cheap = {ch: len({r["bidder"] for r in rows if r["channel"] == ch and r["price"] < 20}) for ch in ("a", "b", None)}
    assert {r[0]: r[3] for r in batch} == cheap
    tables = {p.name for p in (tmp_path / "ckpt").rglob("*") if p.is_dir() and p.parent.name.endswith("-Aggregate")}
    assert "distinct" in tables and "input" not in tables, tables


@pytest.mark.parametrize("keys", ["channel", "bidder, channel"])
def test_avg_over_an_insert_only_input_merges_sums_and_counts(spark, tmp_path, bids, keys):
    """AVG over an insert-only input merges per epoch as a sum and a count of values
    (Nexmark's q17): of INT (the mean truncated), BIGINT, DECIMAL and DOUBLE values, with
    FILTER, a NULL key and values that are NULL (an average of none is NULL), beside
    COUNT / SUM / MIN / MAX and COUNT(DISTINCT). No input rows are kept (no ``input``
    table); several epochs, updates, the batch answer, and the means by hand."""
    ddl, rows = bids
    q = f"""SELECT {keys}, AVG(price) AS mean, AVG(CAST(price AS BIGINT)) FILTER (WHERE price < 30) AS low,
                   AVG(CAST(price AS DECIMAL(10, 3)) / 7) AS dmean, AVG(CAST(price AS DOUBLE) / 4) AS fmean,
                   AVG(IF(price > 45, price, NULL)) AS top, COUNT(*) AS n, SUM(price) AS total,
                   MIN(price) AS lo, COUNT(DISTINCT price) AS prices
            FROM bids GROUP BY {keys}"""
    changes, streamed, batch = run_both(spark, tmp_path, ddl, q)
    assert streamed == batch and len(batch) >= 3
    assert {c[0] for c in changes} >= {"+I", "-U", "+U"}
    if keys == "channel":
        for ch in ("a", "b", None):
            prices = [r["price"] for r in rows if r["channel"] == ch]
            top = [p for p in prices if p > 45]
            (row,) = [r for r in batch if r[0] == ch]
            assert row[1] == sum(prices) // len(prices), row
            assert row[5] == (sum(top) // len(top) if top else None), row
            assert abs(row[4] - sum(prices) / 4 / len(prices)) < 1e-9, row
    tables = _aggregate_tables(tmp_path / "ckpt")
    assert "output" in tables and "input" not in tables, tables


def test_an_avg_restored_from_a_recomputing_checkpoint_stays_exact(spark, tmp_path, monkeypatch, bids):
    """State an earlier sqlengine wrote for AVG over an insert-only input (the recompute
    path: the input multiset) keeps that path after a restore; merged sums and counts
    would start from nothing and lose the rows before the restore."""
    from sqlengine.physical.operators.group_aggregate import epoch as ga
    ddl, rows = bids
    table, (agg,) = _restored_from_recomputing(
        spark, tmp_path, monkeypatch, ddl, lambda mp: mp.setattr(ga, "MERGED_AVG", set()),
        "channel STRING, n BIGINT, mean INT",
        "SELECT channel, COUNT(*), AVG(price) FROM bids GROUP BY channel", ["channel", "n", "mean"])
    expected = Counter()
    for ch in ("a", "b", None):
        prices = [r["price"] for r in rows if r["channel"] == ch]
        expected[(ch, len(prices), sum(prices) // len(prices))] += 1
    assert table == expected
    assert {p.name for p in agg.iterdir()} == {"input", "output"}, "the restored job kept recomputing"


def test_count_distinct_values_seen_are_a_log_of_gains(spark, tmp_path, bids):
    """The values a COUNT(DISTINCT) has seen per key (state ``distinct``) are a log: an
    epoch writes only the (key, value) pairs new to the key or newly meeting a FILTER (a
    delta version), and every 8th epoch compacts the versions into a snapshot, the pairs'
    flags OR-ed. 15 epochs, a value that meets a FILTER only in a later epoch; the
    stored versions hold exactly the pairs of the input with their flags."""
    import pyarrow.dataset as ds
    ddl, rows = bids
    q = """SELECT channel, COUNT(DISTINCT bidder) AS bidders,
                  COUNT(DISTINCT bidder) FILTER (WHERE price < 20) AS cheap, COUNT(DISTINCT price) AS prices
           FROM bids GROUP BY channel"""
    changes, streamed, batch = run_both(spark, tmp_path, ddl, q, lines_per_epoch=4)
    assert streamed == batch and len(batch) == 3
    first = {}
    for i, r in enumerate(rows):
        first.setdefault((r["channel"], r["bidder"]), i)
    assert any(r["price"] < 20 and i // 4 > first[(r["channel"], r["bidder"])] // 4 and not any(
        s["price"] < 20 for s in rows[:i] if (s["channel"], s["bidder"]) == (r["channel"], r["bidder"]))
        for i, r in enumerate(rows)), "a pair that gains its FILTER's flag in a later epoch"
    table = next(p for p in (tmp_path / "ckpt").rglob("distinct") if p.parent.name.endswith("-Aggregate"))
    versions = sorted((int(p.name[2:]), (p / "_BASE").exists()) for p in table.iterdir() if p.name.startswith("e="))
    assert any(base for _, base in versions) and not versions[-1][1], versions  # compacted, then deltas
    stored = ds.dataset(str(table), format="parquet", partitioning="hive").to_table().to_pylist()
    seen: dict = {}
    for r in stored:
        pair = (r["f0"], r["__g"], r["__v0_0"], r["__v1_0"])
        seen[pair] = tuple(a or b for a, b in zip(seen.get(pair, (False,) * 3), (r["__f0"], r["__f1"], r["__f2"])))
    expected: dict = {}
    for r in rows:
        for pair, flags in (((r["channel"], 0, r["bidder"], None), (True, r["price"] < 20, False)),
                            ((r["channel"], 1, None, r["price"]), (False, False, True))):
            expected[pair] = tuple(a or b for a, b in zip(expected.get(pair, (False,) * 3), flags))
    assert seen == expected
    latest = [r for r in stored if r["e"] == versions[-1][0]]
    assert 0 < len(latest) < len(expected) / 2, "a delta holds only the epoch's gains"


def test_global_aggregate_and_distinct(spark, tmp_path, bids):
    ddl, rows = bids
    _, streamed, batch = run_both(spark, tmp_path, ddl, "SELECT COUNT(*), SUM(price), MAX(channel) FROM bids")
    assert streamed == batch == Counter({(N, sum(r["price"] for r in rows), "b"): 1})
    _, streamed, batch = run_both(spark, tmp_path, ddl, "SELECT DISTINCT channel FROM bids")
    assert streamed == batch == Counter({("a",): 1, ("b",): 1, (None,): 1})


@pytest.mark.parametrize("window", [
    "TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '2' MINUTE)",
    "HOP(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '1' MINUTE, INTERVAL '3' MINUTE)",
    "CUMULATE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '1' MINUTE, INTERVAL '4' MINUTE)",
])
def test_window_aggregate_fires_once_per_window(spark, tmp_path, bids, window):
    ddl, _ = bids
    q = f"""SELECT window_start, window_end, channel, COUNT(*), SUM(price), COUNT(DISTINCT bidder),
                   COUNT(*) FILTER (WHERE price > 25)
            FROM TABLE({window}) GROUP BY window_start, window_end, channel"""
    changes, streamed, batch = run_both(spark, tmp_path, ddl, q)
    assert {c[0] for c in changes} == {"+I"}, "a window fires once, insert-only"
    assert streamed == batch and len(batch) > 3


def test_session_window_with_partition(spark, tmp_path, bids):
    ddl, _ = bids
    q = """SELECT window_start, window_end, bidder, COUNT(*) FROM
           TABLE(SESSION(TABLE bids PARTITION BY bidder, DESCRIPTOR(bidtime), INTERVAL '50' SECOND))
           GROUP BY window_start, window_end, bidder"""
    changes, streamed, batch = run_both(spark, tmp_path, ddl, q)
    assert {c[0] for c in changes} == {"+I"}
    assert streamed == batch and len(batch) > 6


def test_cascaded_windows_over_window_time(spark, tmp_path, bids):
    ddl, rows = bids
    ddl += """;CREATE VIEW per_minute AS SELECT window_time AS t, COUNT(*) AS c
              FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '1' MINUTE))
              GROUP BY window_start, window_end, window_time"""
    q = """SELECT window_start, SUM(c) FROM TABLE(TUMBLE(TABLE per_minute, DESCRIPTOR(t), INTERVAL '5' MINUTE))
           GROUP BY window_start, window_end"""
    changes, streamed, batch = run_both(spark, tmp_path, ddl, q)
    assert {c[0] for c in changes} == {"+I"}
    assert streamed == batch and sum(v for (_, v) in streamed) == N


@pytest.mark.parametrize("window, aggs", [
    ("TUMBLE(TABLE v, DESCRIPTOR(bidtime), INTERVAL '2' MINUTE)", "COUNT(*), COUNT(p), SUM(p), MIN(p), MAX(p)"),
    ("HOP(TABLE v, DESCRIPTOR(bidtime), INTERVAL '1' MINUTE, INTERVAL '3' MINUTE, INTERVAL '20' SECOND)",
     "COUNT(*), COUNT(p), SUM(p), MIN(p), MAX(p), COUNT(*) FILTER (WHERE p > 20)"),
    ("CUMULATE(TABLE v, DESCRIPTOR(bidtime), INTERVAL '1' MINUTE, INTERVAL '4' MINUTE)", "SUM(p), MAX(p)"),
    ("HOP(TABLE v, DESCRIPTOR(bidtime), INTERVAL '1' MINUTE, INTERVAL '2' MINUTE)", ""),
])
def test_window_partials_per_slice(spark, tmp_path, bids, window, aggs):
    """COUNT/SUM/MIN/MAX are kept per key and slice (a HOP window merges its slides, a
    CUMULATE window its steps); slices span epochs; NULLs count as Flink counts them."""
    ddl, _ = bids
    ddl += """;CREATE VIEW v AS SELECT bidtime, channel,
              CASE WHEN price > 35 THEN CAST(NULL AS INT) ELSE price END AS p FROM bids"""
    q = f"SELECT window_start, window_end, channel{', ' + aggs if aggs else ''} FROM TABLE({window}) " \
        "GROUP BY window_start, window_end, channel"
    changes, streamed, batch = run_both(spark, tmp_path, ddl, q, lines_per_epoch=10)
    assert {c[0] for c in changes} == {"+I"}, "a window fires once, insert-only"
    assert streamed == batch and len(batch) > 6


@pytest.mark.parametrize("q", [
    # a WHERE between the window TVF and its GROUP BY
    """SELECT window_start, window_end, COUNT(*), SUM(price) FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime),
       INTERVAL '2' MINUTE)) WHERE price > 20 GROUP BY window_start, window_end""",
    # a subquery over the TVF that filters, computes and renames the window properties
    """SELECT ws, we, COUNT(*), SUM(p2) FROM (SELECT price * 2 AS p2, window_start AS ws, window_end AS we
       FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '2' MINUTE)) WHERE price > 20) GROUP BY ws, we""",
])
def test_window_aggregate_over_a_filtered_window_tvf(spark, tmp_path, bids, q):
    ddl, rows = bids
    changes, streamed, batch = run_both(spark, tmp_path, ddl, q)
    assert {c[0] for c in changes} == {"+I"}, "Flink's window aggregation: insert-only, not a group aggregate"
    expected = Counter()
    for r in rows:
        if r["price"] > 20:
            minute = int(r["bidtime"][14:16]) // 2 * 2
            expected[minute] += 1
    assert sorted((int(str(k[0])[14:16]), k[2]) for k in streamed) == sorted(expected.items())
    assert streamed == batch


def test_session_window_aggregate_over_a_filtered_tvf(spark, tmp_path, bids):
    ddl, _ = bids
    q = """SELECT window_start, window_end, bidder, COUNT(*) FROM
           TABLE(SESSION(TABLE bids PARTITION BY bidder, DESCRIPTOR(bidtime), INTERVAL '50' SECOND))
           WHERE channel IS NOT NULL GROUP BY window_start, window_end, bidder"""
    changes, streamed, batch = run_both(spark, tmp_path, ddl, q)
    assert {c[0] for c in changes} == {"+I"}
    assert streamed == batch and len(batch) > 4


@pytest.mark.parametrize("form", ["group_window", "tvf"])
def test_session_aggregates_merge_sessions_not_rows(spark, tmp_path, form):
    """COUNT/SUM/MIN/MAX [FILTER] over SESSION windows keep per key its open sessions with
    their partial aggregates (state ``sessions``, no rows). Out-of-order rows, 4 an epoch
    (nothing late: 40 minutes of watermark delay): an epoch's two rows of a key that are
    one interval; a stored session that a later epoch's intervals extend, the second of
    them starting after the first one's end but before the stored one's; a row that
    bridges two sessions; a NULL key; a session whose values are all NULL. The emitted
    sessions are the batch answer and the sessions found in Python."""
    arrivals = [(0, "x", 3), (50, "x", None), (0, None, 1), (500, None, 2),
                (110, "x", 7), (400, "x", 5), (560, None, None), (1000, None, 4),
                (230, "x", None), (1030, "x", 1), (620, None, 8), (1500, None, 6),
                (1000, "x", 6), (440, None, 5), (2000, None, 3), (2100, None, None),
                (60, "x", 2), (160, "x", 9)]  # [0, 170] stored; [60, 120] and [160, 220] extend it
    rows = [{"ts": f"2024-01-01 {10 + t // 3600}:{t // 60 % 60:02d}:{t % 60:02d}.000", "k": k, "v": v}
            for t, k, v in arrivals]
    src = write_jsonl(tmp_path / "in" / "r.jsonl", rows)
    ddl = f"""CREATE TABLE r (ts TIMESTAMP(3), k STRING, v INT, WATERMARK FOR ts AS ts - INTERVAL '40' MINUTE)
              WITH ('connector' = 'filesystem', 'path' = '{src}', 'format' = 'json')"""
    aggs = "COUNT(*), COUNT(v), SUM(v), MIN(v), MAX(v), COUNT(*) FILTER (WHERE v > 4)"
    q = (f"""SELECT k, SESSION_START(ts, INTERVAL '60' SECOND), SESSION_END(ts, INTERVAL '60' SECOND),
                    SESSION_ROWTIME(ts, INTERVAL '60' SECOND), {aggs}
             FROM r GROUP BY k, SESSION(ts, INTERVAL '60' SECOND)""" if form == "group_window" else
         f"""SELECT k, window_start, window_end, window_time, {aggs}
             FROM TABLE(SESSION(TABLE r PARTITION BY k, DESCRIPTOR(ts), INTERVAL '60' SECOND))
             GROUP BY k, window_start, window_end, window_time""")
    changes, streamed, batch = run_both(spark, tmp_path, ddl, q, lines_per_epoch=4)
    assert {c[0] for c in changes} == {"+I"} and streamed == batch
    expected = set()
    for key in ("x", None):
        mine = sorted((t, v) for t, k, v in arrivals if k == key)
        sessions: list = []
        for t, v in mine:
            if sessions and t - sessions[-1][-1][0] <= 60:
                sessions[-1].append((t, v))
            else:
                sessions.append([(t, v)])
        for sess in sessions:
            vs = [v for _, v in sess if v is not None]
            expected.add((key, sess[0][0], sess[-1][0] + 60, len(sess), len(vs), sum(vs) if vs else None,
                          min(vs, default=None), max(vs, default=None), sum(v > 4 for v in vs)))
    assert len(expected) == 10
    seconds = [(r[1] - r[1].replace(hour=10, minute=0, second=0)).seconds for r in streamed]
    ends = [(r[2] - r[2].replace(hour=10, minute=0, second=0)).seconds for r in streamed]
    assert {(r[0], s, e, *r[4:]) for r, s, e in zip(streamed, seconds, ends)} == expected
    assert all((r[2] - r[3]).total_seconds() == 0.001 for r in streamed), "the rowtime: the end less 1 ms"
    tables = _aggregate_tables(tmp_path / "ckpt", "-WindowAggregate")
    assert "sessions" in tables and "pending" not in tables, tables


@pytest.mark.parametrize("aggs, state", [("COUNT(*), SUM(v)", "sessions"),
                                         ("COUNT(*), COUNT(DISTINCT v)", "pending")])
def test_a_late_row_counts_in_a_session_still_open(spark, tmp_path, aggs, state):
    """Flink drops a row when its merged session is late, not when the row alone would be
    (MergingWindowProcessFunction): a row older than the watermark that falls into an open
    session counts; one that would start a session of its own is dropped. Both session
    paths (merged partials; the rows, for COUNT(DISTINCT)). No watermark delay, 2 rows an
    epoch: x@100, x@150 (watermark 150); x@80 (80 + 60 <= 150, but [80, 140] touches the open
    [100, 210]), y@0 (late); x@300, y@5 (late). Flink 2.3 gives these rows (one row at a
    time, ``pipeline.auto-watermark-interval`` 0), for the TVF and the GROUP BY SESSION."""
    arrivals = [(100, "x", 1), (150, "x", 2), (80, "x", 3), (0, "y", 4), (300, "x", 5), (5, "y", 6)]
    rows = [{"ts": f"2024-01-01 10:{t // 60:02d}:{t % 60:02d}.000", "k": k, "v": v} for t, k, v in arrivals]
    src = write_jsonl(tmp_path / "in" / "r.jsonl", rows)
    ddl = f"""CREATE TABLE r (ts TIMESTAMP(3), k STRING, v INT, WATERMARK FOR ts AS ts)
              WITH ('connector' = 'filesystem', 'path' = '{src}', 'format' = 'json')"""
    q = f"""SELECT k, window_start, {aggs}
            FROM TABLE(SESSION(TABLE r PARTITION BY k, DESCRIPTOR(ts), INTERVAL '60' SECOND))
            GROUP BY k, window_start, window_end"""
    changes = run(spark, tmp_path, ddl, q, "streaming", lines_per_epoch=2)
    got = {(k, start.minute * 60 + start.second, n) for _, k, start, n, _ in changes}
    assert got == {("x", 80, 3), ("x", 300, 1)}, changes
    assert state in _aggregate_tables(tmp_path / "ckpt", "-WindowAggregate")


def _restored_from_recomputing(spark, tmp_path, monkeypatch, ddl, switch_off, sink, query, fields,
                               restored_with: dict | None = None, sinks: int = 2):
    """Run ``query`` into a debezium-json file (``sink``: its columns) with the fast path
    switched off (``switch_off(monkeypatch)``), fail after the ``sinks``-th epoch's sink,
    restore as the error says with the fast path on (and the settings ``restored_with``);
    returns the materialized output (rows of ``fields``) and the outer aggregate's state
    directory."""
    from collections import Counter as C

    from sqlengine.api.session import Session
    from sqlengine.errors import ExecutionError
    from tests.e2e.conftest import read_rows
    out = tmp_path / "out"
    script = [ddl, f"""CREATE TABLE res ({sink})
                       WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'debezium-json')""",
              f"INSERT INTO res {query}"]

    def run(**conf):
        s = Session({"execution.checkpointing.dir": str(tmp_path / "ckpt"), "pipeline.job-id": "restored",
                     "sqlengine.filesystem.max-lines-per-batch": "12", **conf}, spark=spark)
        for st in script[:-1]:
            s.execute_sql(st)
        return s.execute_sql(script[-1]).job
    (tmp_path / "faults").mkdir()
    switch_off(monkeypatch)
    monkeypatch.setenv("SQLENGINE_FAULT", "after-sink")
    monkeypatch.setenv("SQLENGINE_FAULT_SKIP", str(sinks - 1))
    monkeypatch.setenv("SQLENGINE_FAULT_ACTION", f"raise:{tmp_path / 'faults'}")
    with pytest.raises(ExecutionError):
        run().wait(300)
    state = next((tmp_path / "ckpt" / "restored").rglob("state"))
    aggregates = sorted(state.glob("*-Aggregate"), key=lambda d: d.name)
    monkeypatch.undo()
    run(**{"execution.state-recovery.path": str(tmp_path / "ckpt" / "restored"), **(restored_with or {})}).wait(300)
    table: C = C()
    for event in read_rows(out):
        row = event["after"] if event["op"] == "c" else event["before"]
        table[tuple(row[f] for f in fields)] += 1 if event["op"] == "c" else -1
    return +table, aggregates


def test_a_count_distinct_restored_from_a_recomputing_checkpoint_stays_exact(spark, tmp_path, monkeypatch, bids):
    """State that an earlier sqlengine wrote for COUNT(DISTINCT) (the recompute path: the
    input multiset, no ``distinct`` pairs) keeps that path after a restore; the merge path
    would start with no pairs and count every bidder again. The first run takes the old
    path (the merge switched off), fails after its second epoch's sink and is restored as
    its error says, with the merge on; the materialized changelog is the batch answer."""
    from sqlengine.physical.operators.group_aggregate import epoch as ga
    ddl, rows = bids
    table, (agg,) = _restored_from_recomputing(
        spark, tmp_path, monkeypatch, ddl, lambda mp: mp.setattr(ga, "DISTINCT_MERGE", {"MIN", "MAX"}),
        "channel STRING, n BIGINT, bidders BIGINT",
        "SELECT channel, COUNT(*), COUNT(DISTINCT bidder) FROM bids GROUP BY channel", ["channel", "n", "bidders"])
    expected = Counter((ch, sum(r["channel"] == ch for r in rows), len({r["bidder"] for r in rows if r["channel"] == ch}))
                       for ch in ("a", "b", None))
    assert table == expected
    assert {p.name for p in agg.iterdir()} == {"input", "output"}, "the restored job kept recomputing"


def test_count_distinct_values_logged_then_restored_under_a_state_ttl_stay_exact(spark, tmp_path, monkeypatch, bids):
    """A job whose values seen per key are a log (several versions of a pair whose FILTER
    flag came later) restored with ``table.exec.state.ttl`` set (the table is then a
    snapshot, rewritten whole), after its third epoch's sink (two epochs committed): a
    pair of two versions met again counts once, as the batch answer (an hour's TTL
    expires nothing here)."""
    ddl, rows = bids
    table, _ = _restored_from_recomputing(
        spark, tmp_path, monkeypatch, ddl, lambda mp: None, "channel STRING, bidders BIGINT, cheap BIGINT",
        """SELECT channel, COUNT(DISTINCT bidder), COUNT(DISTINCT bidder) FILTER (WHERE price > 30)
           FROM bids GROUP BY channel""", ["channel", "bidders", "cheap"], {"table.exec.state.ttl": "1 h"},
        sinks=3)
    first = {}
    for i, r in enumerate(rows):
        first.setdefault((r["channel"], r["bidder"]), i)
    assert any(r["price"] > 30 and 12 <= i < 24 and first[(r["channel"], r["bidder"])] < 12 and not any(
        s["price"] > 30 for s in rows[:i] if (s["channel"], s["bidder"]) == (r["channel"], r["bidder"]))
        and any(s["price"] > 30 and (s["channel"], s["bidder"]) == (r["channel"], r["bidder"]) for s in rows[24:])
        for i, r in enumerate(rows)), "a pair logged twice before the restore, met again after it"
    expected = Counter((ch, len({r["bidder"] for r in rows if r["channel"] == ch}),
                        len({r["bidder"] for r in rows if r["channel"] == ch and r["price"] > 30}))
                       for ch in ("a", "b", None))
    assert table == expected

def test_session_counts_restored_from_pending_rows_stay_exact(spark, tmp_path, monkeypatch, bids):
    """A session aggregation restored from the rows an earlier sqlengine kept per open
    session (state ``pending``) keeps them; merged sessions would start from none and
    lose the rows before the restore."""
    from sqlengine.physical.operators.window_aggregate import epoch as wa
    ddl, rows = bids
    table, _ = _restored_from_recomputing(
        spark, tmp_path, monkeypatch, ddl, lambda mp: mp.setattr(wa, "_mergeable", lambda node: False),
        "bidder INT, n BIGINT, total INT",
        """SELECT bidder, COUNT(*), SUM(price) FROM TABLE(SESSION(TABLE bids PARTITION BY bidder,
           DESCRIPTOR(bidtime), INTERVAL '50' SECOND)) GROUP BY window_start, window_end, bidder""",
        ["bidder", "n", "total"])
    assert sum(n for _, n, _ in table.elements()) == N
    windows = {p.name for p in (tmp_path / "ckpt").rglob("*") if p.parent.name.endswith("-WindowAggregate")}
    assert windows == {"pending"}, windows

def test_sums_over_an_updating_input_restored_from_a_recomputing_checkpoint_stay_exact(
        spark, tmp_path, monkeypatch, bids):
    """The same for COUNT / SUM / AVG over an updating input: restored from the input
    multiset an earlier sqlengine kept, the job keeps recomputing (signed sums would start
    from zero and lose the rows before the restore)."""
    from sqlengine.physical.operators.group_aggregate import epoch as ga
    ddl, rows = bids
    table, aggs = _restored_from_recomputing(
        spark, tmp_path, monkeypatch, ddl, lambda mp: mp.setattr(ga, "SIGNED", set()),
        "channel STRING, n BIGINT, total INT, mean INT",
        f"SELECT channel, COUNT(*), SUM(m), AVG(m) FROM {MAXES} GROUP BY channel", ["channel", "n", "total", "mean"])
    maxes = _maxes(rows, lambda r: (r["bidder"], r["channel"]))
    expected = Counter()
    for ch in ("a", "b", None):
        ms = [m for (_, c), m in maxes.items() if c == ch]
        expected[(ch, len(ms), sum(ms), sum(ms) // len(ms))] += 1
    assert table == expected
    outer = [{p.name for p in a.iterdir()} for a in aggs]
    assert {"input", "output"} in outer and not any("acc" in t for t in outer), outer
