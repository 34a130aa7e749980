"""Every conformance case's queries bind in streaming mode (the epoch runtime runs them),
into the node classes Flink's planner would choose."""
from __future__ import annotations

from pathlib import Path

import pytest

from sqlengine.plan import nodes as P
from tests.binder.helpers import nodes, run_ddl, session

CASES = Path(__file__).parents[1] / "conformance" / "flink" / "cases"
NAMES = sorted(p.name for p in CASES.iterdir() if p.is_dir() and not p.name.startswith(("_", "neg_")))

EXPECTED = {
    "docs_interval_join": [P.IntervalJoin],
    "docs_window_join": [P.WindowJoin],
    "docs_temporal_join": [P.TemporalJoin],
    "over_rows": [P.Over],
    "over_range": [P.Over],
    "docs_window_topn": [P.Rank],
    "docs_window_dedup": [P.Rank],
    "batch_topn": [P.Rank],
    "batch_dedup": [P.Rank],
    "nexmark_q3": [P.Join],
    "nexmark_q4": [P.Join, P.Aggregate],
    "nexmark_q8": [P.WindowJoin],
    "nexmark_q9": [P.Join, P.Rank],
    "nexmark_q13": [P.Join],
    "nexmark_q18": [P.Rank],
    "nexmark_q19": [P.Rank],
    "nexmark_q20": [P.Join],
}


def _sinks(name: str, tmp_path: Path) -> list[P.Sink]:
    text = (CASES / name / "case.sql").read_text()
    text = text.replace("${CASE_DIR}", str(CASES / name)).replace("${OUT_DIR}", str(tmp_path))
    from sqlengine.rules import optimize
    return [optimize(s) for s in run_ddl(session("streaming"), text)]


@pytest.mark.parametrize("name", [n for n in NAMES if n != "batch_grouping_sets"])
def test_case_binds_in_streaming_mode(name: str, tmp_path: Path):
    sinks = _sinks(name, tmp_path)
    assert sinks, name
    for cls in EXPECTED.get(name, []):
        assert any(nodes(s, cls) for s in sinks), f"{name}: no {cls.__name__} in\n" + \
            "\n".join(type(n).__name__ for s in sinks for n in P.walk(s))


@pytest.mark.parametrize("name", ["docs_window_topn", "docs_window_dedup"])
def test_window_rank_is_partitioned_by_the_window(name: str, tmp_path: Path):
    from sqlengine.physical.operators.rank import is_window_rank
    from tests.binder.helpers import updating_node
    sinks = _sinks(name, tmp_path)
    ranks = [n for s in sinks for n in nodes(s, P.Rank)]
    assert ranks and all(is_window_rank(r) for r in ranks)
    assert all(updating_node(s, True) is None for s in sinks)


def test_interval_join_bounds_of_the_docs_case(tmp_path: Path):
    (j,) = [n for s in _sinks("docs_interval_join", tmp_path) for n in nodes(s, P.IntervalJoin)]
    assert (j.lower_ms, j.upper_ms) == (0, 4 * 3600000)
