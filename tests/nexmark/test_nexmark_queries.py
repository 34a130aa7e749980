"""Every Nexmark query, as upstream wrote it (benchmarks/nexmark/queries; q23's ``dateTime``
quoted, as Flink needs: suite.QUOTED), over the first 100,000 events of the ``nexmark``
connector, answers as Apache Flink 2.3 answered over the same events (tests/nexmark/expected,
recorded by tests/nexmark/flink_oracle.py): the same rows (materialized for updating
queries), by count and digest."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.nexmark import suite
from sqlengine.api.session import Session
from tests.nexmark.flink_oracle import rate_of

EXPECTED = Path(__file__).resolve().parent / "expected"
EVENTS, BASE = 100_000, 1700000000000
# Queries whose answer is not a function of the events, or that sqlengine does not run yet.
NOT_COMPARED = {
    "q12": "processing-time windows: the rows of a window depend on when they are processed",
}


def _queries() -> list:
    out = []
    for q in suite.QUERIES + suite.CEP:
        reason = NOT_COMPARED.get(q)
        if not (EXPECTED / f"{q}.json").exists():
            reason = reason or "not recorded from Flink yet"
        out.append(pytest.param(q, marks=pytest.mark.skip(reason=reason)) if reason else q)
    return out


@pytest.mark.parametrize("query", _queries())
def test_the_query_answers_as_flink(spark, tmp_path, query):
    expected = json.loads((EXPECTED / f"{query}.json").read_text())
    side = tmp_path / "side_input.csv"
    side.write_text("".join(f"{k},{k * 2}\n" for k in range(10_000)))
    s = Session({"parallelism.default": "2", "execution.checkpointing.dir": str(tmp_path / "ck")}, spark=spark)
    source = suite.nexmark_source(EVENTS, rate=rate_of(query), base_time=BASE)
    before, select = suite.statements(query, source, str(side))
    if "error" in expected:  # Flink refuses the query: so must sqlengine
        with pytest.raises(Exception):
            for st in before:
                s.execute_sql(st)
            s.execute_sql(select).collect()
        return
    for st in before:
        s.execute_sql(st)
    changes = [(r[0], tuple(r[1:])) for r in s.execute_sql(select).collect()]
    assert suite.digest(suite.materialize(changes), query) == expected


@pytest.mark.parametrize("query", sorted(suite.QUOTED))
def test_a_query_flink_refuses_as_upstream_wrote_it_is_refused_with_flinks_error(spark, query):
    """Upstream's text of a query the suite quotes (``suite.QUOTED``): Flink 2.3's error
    (tests/nexmark/expected/<query>.upstream.json, recorded by flink_oracle.py from that
    text) is sqlengine's, word for word after the exception's class."""
    from sqlengine.errors import SqlSyntaxError
    flink = json.loads((EXPECTED / f"{query}.upstream.json").read_text())["error"]
    s = Session({}, spark=spark)
    before, select = suite.statements(query, suite.nexmark_source(10), "unused.csv", upstream=True)
    for st in before:
        s.execute_sql(st)
    with pytest.raises(SqlSyntaxError) as err:
        s.execute_sql(select)
    assert str(err.value) == flink.split(": ", 1)[1]
    _, quoted = suite.statements(query, suite.nexmark_source(10), "unused.csv")
    assert quoted != select
