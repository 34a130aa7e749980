"""MATCH_RECOGNIZE through the engine: streaming over many small epochs (runs, waiting
matches and row numbers carried in state from epoch to epoch) gives the batch answer,
which the conformance cases check against Flink (tests/conformance/extra/cases/match_*)."""
from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest

from tests.runtime.changelog_util import run_both, write_jsonl

DDL = """CREATE TABLE ticker (symbol STRING, price INT, tax INT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')"""


def ticker(n: int, seed: int) -> list[dict]:
    r = random.Random(seed)
    price = {s: r.randint(8, 30) for s in ("A", "B", "C")}
    rows, t = [], datetime(2024, 3, 1, 9)
    for _ in range(n):
        t += timedelta(seconds=r.randint(1, 4))
        s = r.choice("ABC")
        price[s] = min(30, max(8, price[s] + r.choice([-3, -2, -1, 0, 1, 2, 3])))
        rows.append({"symbol": s, "price": price[s], "tax": r.randint(0, 3), "rowtime": t.isoformat(" ")})
    return rows


QUERIES = {
    "price_down": """SELECT * FROM ticker MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY rowtime
        MEASURES START_ROW.rowtime AS s, LAST(PRICE_DOWN.rowtime) AS b, LAST(PRICE_UP.rowtime) AS e,
                 COUNT(PRICE_DOWN.price) AS n
        ONE ROW PER MATCH AFTER MATCH SKIP TO LAST PRICE_UP PATTERN (START_ROW PRICE_DOWN+ PRICE_UP)
        DEFINE PRICE_DOWN AS (LAST(PRICE_DOWN.price, 1) IS NULL AND PRICE_DOWN.price < START_ROW.price)
                             OR PRICE_DOWN.price < LAST(PRICE_DOWN.price, 1),
               PRICE_UP AS PRICE_UP.price > LAST(PRICE_DOWN.price, 1))""",
    "avg_next_row": """SELECT * FROM ticker MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY rowtime
        MEASURES FIRST(A.rowtime) AS s, LAST(A.rowtime) AS e, AVG(A.price) AS a, SUM(price) AS total
        ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (A+ B) DEFINE A AS AVG(A.price) < 20)""",
    "within": """SELECT * FROM ticker MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY rowtime
        MEASURES A.rowtime AS a, C.rowtime AS c, A.price - C.price AS d
        ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B* C) WITHIN INTERVAL '15' SECOND
        DEFINE B AS B.price > A.price - 3, C AS C.price < A.price - 3)""",
    "reluctant_skip_to_first": """SELECT * FROM ticker MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY rowtime
        MEASURES A.rowtime AS a, FIRST(B.rowtime) AS b1, LAST(B.rowtime, 1) AS b2, C.rowtime AS c
        ONE ROW PER MATCH AFTER MATCH SKIP TO FIRST B PATTERN (A B{1,3}? C)
        DEFINE A AS A.price < 20, B AS B.price >= A.price, C AS C.price < LAST(B.price))""",
}


@pytest.mark.parametrize("query", sorted(QUERIES))
def test_small_epochs_give_the_batch_answer(spark, tmp_path, query):
    path = write_jsonl(tmp_path / "ticker.jsonl", ticker(150, 5))
    changes, streaming, batch = run_both(spark, tmp_path, DDL.format(path=path), QUERIES[query], lines_per_epoch=12)
    assert {c[0] for c in changes} == {"+I"}  # insert-only
    assert len(batch) >= 3
    assert streaming == batch
