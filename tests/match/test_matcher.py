"""The MATCH_RECOGNIZE matcher without Spark: Flink's documented examples and its NFA's
rules (greedy and reluctant loops, skip strategies, waiting matches, WITHIN), fed row by
row and in batches that split partitions across calls (as epochs do)."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from sqlengine import types as T
from sqlengine.physical.operators.match.automaton import Element, compile_pattern
from sqlengine.physical.operators.match.evaluate import Leaf
from sqlengine.physical.operators.match.matcher import Matcher, MatchError, Nav, Program, Runs, Completed
from sqlengine.plan import nodes as P

BIG = T.BIGINT()


def lit(v):
    return P.Lit(T.BIGINT(False), v)


def call(name, *args, t=T.BOOLEAN()):
    return P.Call(t, name, tuple(args))


PRICE = Leaf(BIG, 0)


def last(var, offset=0, leaf=0):
    return Nav(BIG, "last", var, leaf, offset)


def first(var, offset=0, leaf=0):
    return Nav(BIG, "first", var, leaf, offset)


def run(elements, conditions, measures, rows, skip="PAST LAST ROW", skip_var=None, within=None,
        batches=None, watermark_end=None):
    """``rows``: (partition, ts, price); returns the emitted measure tuples, in emission order.
    ``batches``: split the rows (in order) into calls, carrying runs and waiting matches."""
    prog = Program(compile_pattern(tuple(elements)), tuple(conditions), tuple(measures), skip, skip_var,
                   within, (pa.int64(),))
    mtypes = {f"m{i}": (pa.int64()) for i in range(len(measures))}
    matcher = Matcher(prog, mtypes)
    nparts = max(p for p, _, _ in rows) + 1
    runs = Runs.empty(matcher.types)
    waiting = Completed.concat([], mtypes)
    next_seq = np.zeros(nparts, np.int64)
    out = []
    chunks = batches or [len(rows)]
    pos = 0
    for size in chunks:
        chunk = sorted(rows[pos:pos + size], key=lambda r: r[0])  # stable: processing order kept
        pos += size
        part = np.array([r[0] for r in chunk], np.int64)
        ts = np.array([r[1] for r in chunk], np.int64)
        leaves = [pa.array([r[2] for r in chunk], pa.int64())]
        wm = watermark_end if pos == len(rows) else None
        res = matcher.run(part, ts, leaves, nparts, next_seq, runs, waiting, wm)
        runs, waiting, next_seq = res.runs, res.waiting, res.next_seq
        for i in range(len(res.match_part)):
            out.append((int(res.match_part[i]),) + tuple(
                res.match_ts[i] if measures[j].kind == "rowtime" else res.match_values[f"m{j}"][i].as_py()
                for j in range(len(measures))))
    return out


TICKER = [10, 11, 12, 13, 14, 16]  # Flink docs: greedy & reluctant quantifiers


def test_greedy_loop_keeps_the_rows_its_condition_accepts():
    conds = [call(">", PRICE, lit(10)), call("<", PRICE, lit(15)), call(">", PRICE, lit(12))]
    rows = [(0, t, p) for t, p in enumerate(TICKER)]
    els = [Element("A", 1, 1, False), Element("B", 0, None, True), Element("C", 1, 1, False)]
    assert run(els, conds, [last("C")], rows) == [(0, 16)]
    els[1] = Element("B", 0, None, False)  # B*?
    assert run(els, conds, [last("C")], rows) == [(0, 13), (0, 16)]


def test_aggregates_in_define_include_the_current_row():
    """Flink docs: A+ B with A AS AVG(A.price) < 15 (AFTER MATCH SKIP PAST LAST ROW)."""
    prices = [12, 17, 13, 16, 25, 2, 4, 10, 15, 25, 25, 30]  # ACME 10:00:00 .. 10:00:11
    avg = Nav(BIG, "agg", "A", 0, 0, "AVG")
    conds = [call("<", avg, lit(15)), None]
    rows = [(0, t, p) for t, p in enumerate(prices)]
    got = run([Element("A", 1, None, True), Element("B", 1, 1, False)], conds,
              [first("A"), last("A"), avg], [(0, t, p) for t, p in enumerate(prices)])
    # the docs print 10:00:00-10:00:03 (14.5) and 10:00:05-10:00:10 (13.5); a BIGINT average truncates
    assert got == [(0, 12, 16, 14), (0, 2, 25, 13)]


def test_logical_offsets_and_skip_to_last():
    """Flink docs: START_ROW PRICE_DOWN+ PRICE_UP, AFTER MATCH SKIP TO LAST PRICE_UP."""
    prices = [12, 17, 19, 21, 25, 18, 15, 14, 24, 25, 19]  # the docs' ACME rows
    down = call("OR", call("AND", call("IS NULL", last("PRICE_DOWN", 1)), call("<", PRICE, last("START_ROW"))),
                call("<", PRICE, last("PRICE_DOWN", 1)))
    up = call(">", PRICE, last("PRICE_DOWN", 1))
    els = [Element("START_ROW", 1, 1, False), Element("PRICE_DOWN", 1, None, True), Element("PRICE_UP", 1, 1, False)]
    rows = [(0, t, p) for t, p in enumerate(prices)]
    got = run(els, [None, down, up], [first("START_ROW"), last("PRICE_DOWN"), last("PRICE_UP")], rows,
              skip="TO LAST", skip_var="PRICE_UP")
    assert got == [(0, 25, 14, 24)]  # 10:00:04, 10:00:07, 10:00:08


def test_a_waiting_match_is_released_when_the_earlier_run_dies():
    """A B C with B: price > 5: the run from row 0 is alive when the run from row 1
    completes; its match waits, and goes out when row 0's run fails."""
    c_a = None
    c_b = call(">", PRICE, lit(5))
    c_c = call("=", PRICE, lit(100))
    els = [Element("A", 1, 1, False), Element("B", 1, None, True), Element("C", 1, 1, False)]
    # row1 = A (start 1) ... every row starts a run; the run from 0 takes B at 1, 2 ...
    rows = [(0, 0, 1), (0, 1, 7), (0, 2, 100), (0, 3, 1)]
    got = run(els, [c_a, c_b, c_c], [first("A")], rows)
    # from 0: A=1, B=7, C=100 completes at row 2 (greedy B: 100 > 5 is also B, so C needs NOT B: no!)
    assert got == []
    c_b = call("AND", call(">", PRICE, lit(5)), call("<", PRICE, lit(50)))
    assert run(els, [c_a, c_b, c_c], [first("A")], rows) == [(0, 1)]


def test_skip_to_next_row_keeps_overlapping_matches():
    avg = Nav(BIG, "agg", "A", 0, 0, "AVG")
    conds = [call("<", avg, lit(10)), None]
    rows = [(0, t, p) for t, p in enumerate([1, 2, 30, 4, 50])]
    els = [Element("A", 1, None, True), Element("B", 1, 1, False)]
    past = run(els, conds, [first("A"), last("A")], rows)
    nxt = run(els, conds, [first("A"), last("A")], rows, skip="TO NEXT ROW")
    assert past == [(0, 1, 2), (0, 4, 4)]
    assert nxt == [(0, 1, 2), (0, 2, 2), (0, 4, 4)]


def test_within_ends_runs_and_releases_what_they_held():
    c_b = call("<", PRICE, lit(50))
    c_c = call(">=", PRICE, lit(50))
    els = [Element("A", 1, 1, False), Element("B", 0, None, True), Element("C", 1, 1, False)]
    rows = [(0, 0, 1), (0, 1000, 2), (0, 6000, 60)]
    assert run(els, [None, c_b, c_c], [first("A")], rows) == [(0, 1)]
    # a run ends when the row is WITHIN or more after its first: at 6000, 5001 ends the run
    # from 0 and not the one from 1000; 5000 ends both
    assert run(els, [None, c_b, c_c], [first("A")], rows, within=5001) == [(0, 2)]
    assert run(els, [None, c_b, c_c], [first("A")], rows, within=5000) == []


@pytest.mark.parametrize("batches", [None, [1] * 11, [5, 6], [2, 3, 6]])
def test_batches_split_anywhere_give_the_same_matches(batches):
    prices = [12, 17, 19, 21, 25, 18, 15, 14, 24, 25, 19]
    rows = [(p, t, x + 3 * p) for t, x in enumerate(prices) for p in range(3)]
    down = call("OR", call("AND", call("IS NULL", last("PRICE_DOWN", 1)), call("<", PRICE, last("START_ROW"))),
                call("<", PRICE, last("PRICE_DOWN", 1)))
    up = call(">", PRICE, last("PRICE_DOWN", 1))
    els = [Element("START_ROW", 1, 1, False), Element("PRICE_DOWN", 1, None, True), Element("PRICE_UP", 1, 1, False)]
    sizes = None if batches is None else [b * 3 for b in batches]
    got = run(els, [None, down, up], [first("START_ROW"), last("PRICE_UP")], rows, skip="TO LAST",
              skip_var="PRICE_UP", batches=sizes)
    assert sorted(got) == [(0, 25, 24), (1, 28, 27), (2, 31, 30)]


def test_skip_to_the_first_row_fails_as_flink_does():
    els = [Element("A", 1, 1, False), Element("B", 1, 1, False)]
    rows = [(0, 0, 1), (0, 1, 2)]
    with pytest.raises(MatchError, match="Could not skip to first element of a match"):
        run(els, [None, None], [first("A")], rows, skip="TO FIRST", skip_var="A")


@pytest.mark.parametrize("skip", ["PAST LAST ROW", "TO NEXT ROW"])
@pytest.mark.parametrize("batches", [[1] * 30, [7, 7, 7, 9], [13, 17]])
def test_aggregates_carried_across_batches(batches, skip):
    r = __import__("random").Random(3)
    rows = [(r.randint(0, 2), t, r.randint(5, 30)) for t in range(30)]
    avg = Nav(BIG, "agg", "A", 0, 0, "AVG")
    els = [Element("A", 1, None, True), Element("B", 1, 1, False)]
    args = (els, [call("<", avg, lit(18)), None], [first("A"), last("A"), avg, Nav(BIG, "agg", "*", 0, 0, "SUM")], rows)
    assert sorted(run(*args, skip=skip, batches=batches)) == sorted(run(*args, skip=skip))


def test_aggregates_sharing_an_accumulator_count_each_row_once():
    """AVG, SUM and COUNT of one column share their sum and count."""
    avg, total, n = (Nav(BIG, "agg", "A", 0, 0, fn) for fn in ("AVG", "SUM", "COUNT"))
    els = [Element("A", 1, None, True), Element("B", 1, 1, False)]
    rows = [(0, t, p) for t, p in enumerate([10, 20, 30, 200])]
    assert run(els, [call("<", avg, lit(50)), None], [avg, total, n], rows) == [(0, 20, 60, 3)]


def test_passes_are_whole_partitions_of_about_the_rows_asked():
    """A task's sorted input goes to the matcher in passes of whole partitions: none is
    cut, however the batches split it; a partition larger than a pass is one pass."""
    from sqlengine.physical.operators.match.lower import in_passes
    sizes = [3, 1, 40, 2, 2, 7, 1, 1, 25, 4]  # rows per partition, in key order
    keys = np.repeat(np.arange(len(sizes)), sizes)
    table = pa.table({"k": pa.array(keys, pa.int64()), "v": pa.array(np.arange(len(keys)), pa.int64())})
    batches = table.to_batches(max_chunksize=6)
    for rows in (1, 5, 10, 30, 1000):
        passes = list(in_passes(iter(batches), ["k"], rows))
        assert pa.concat_tables(passes).equals(table), rows
        seen = set()
        for p in passes:
            ks = p.column("k").to_pylist()
            assert not seen & set(ks), f"a partition cut between passes (rows={rows})"
            seen |= set(ks)
            assert len(set(ks)) == 1 or len(ks) < rows + 6 + max(sizes), (rows, len(ks))
        if rows == 1:  # cut at the last partition start of each batch read
            assert [p.num_rows for p in passes] == [4, 42, 2, 9, 29]
        if rows == 1000:
            assert len(passes) == 1
