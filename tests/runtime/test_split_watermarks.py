"""Per-split watermarks (``physical/operators/watermark_assigner._per_split``): the
minimum over live, non-idle splits; idle splits (``table.exec.source.idle-timeout``) and
ended ones do not hold it back; it never moves back."""
from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

from sqlengine.physical.operators.watermark_assigner import _per_split
from sqlengine.runtime.watermarks import WM_MAX, WM_MIN


@dataclass(frozen=True)
class Assigner:
    delay_ms: int


NODE = Assigner(1000)


class Context:
    """What ``_per_split`` reads of its ``EpochContext``: the operator's facts of the
    previous epoch, the configuration, the time and the watermarks."""

    def __init__(self, now: int, facts: dict, conf: dict, prev: int = WM_MIN, upstream: int = WM_MIN):
        self.now_ms, self.facts, self.conf = now, facts, conf
        self.previous_watermark, self.upstream_watermark = prev, upstream
        self.kept: dict = {}

    def fact(self, key, default=None):
        return self.facts.get(key, default)

    def keep(self, key, value):
        self.kept[key] = value


def lw(now: int, facts: dict, conf: dict, prev: int = WM_MIN, upstream: int = WM_MIN) -> Context:
    return Context(now, facts, conf, prev, upstream)


def run(now, facts, splits, text, conf=None, prev=WM_MIN, upstream=WM_MIN):
    ctx = lw(now, facts, conf or {}, prev, upstream)
    fn = _per_split(ctx, NODE, splits, lambda top: WM_MIN if top is None else top - NODE.delay_ms)
    return fn(text), ctx.kept


def test_minimum_over_splits_and_a_split_without_rows_holds_it():
    wm, meta = run(100_000, {}, {"t:0": False, "t:1": False}, "50000,20000")
    assert wm == 20000 - 1000
    assert meta["split_max"] == {"t:0": 50000, "t:1": 20000}
    wm, _ = run(100_000, {}, {"t:0": False, "t:1": False}, "50000,")
    assert wm == WM_MIN  # t:1 never had a row and is not idle


def test_idle_split_stops_holding_it_back():
    meta_in = {"split_max": {"t:0": 50000}, "split_seen": {"t:0": 1000, "t:1": 1000}}
    conf = {"table.exec.source.idle-timeout": "5 s"}
    wm, meta = run(3000, meta_in, {"t:0": False, "t:1": False}, "60000,", conf)
    assert wm == WM_MIN  # t:1 seen at 1000, silent for 2 s < 5 s: still holds it
    wm, meta = run(7000, meta_in, {"t:0": False, "t:1": False}, "60000,", conf)
    assert wm == 60000 - 1000  # t:1 idle now
    assert meta["split_seen"] == {"t:0": 7000, "t:1": 1000}
    # every split idle: the watermark stays where it was
    wm, _ = run(60_000, meta_in, {"t:0": False, "t:1": False}, ",", conf, prev=40000)
    assert wm == 40000


def test_ended_splits_do_not_count_and_it_never_moves_back():
    wm, _ = run(1000, {}, {"t:0": True, "t:1": False}, "90000,30000")
    assert wm == 29000
    wm, _ = run(1000, {}, {"t:0": False, "t:1": False, "t:2": False}, "90000,30000,10000", prev=29000)
    assert wm == 29000  # a split found later with older rows does not lower it
    wm, _ = run(1000, {}, {"t:0": True}, "90000", upstream=WM_MAX)
    assert wm == WM_MAX


def test_the_tables_idle_timeout_wins_over_the_sessions():
    from sqlengine.physical.operators.watermark_assigner import _idle_timeout_ms
    from sqlengine.plan import nodes as P

    def assigner(options):
        scan = P.TableScan(table="t", fields=(), options=tuple(options.items()), connector="kafka")
        return SimpleNamespace(input=P.Calc(input=scan, projections=(), out_names=()))  # through a projection

    session = lw(0, {}, {"table.exec.source.idle-timeout": "5 s"})
    assert _idle_timeout_ms(session, assigner({})) == 5000
    assert _idle_timeout_ms(session, assigner({"scan.watermark.idle-timeout": "1 min"})) == 60_000
    assert _idle_timeout_ms(session, assigner({"scan.watermark.idle-timeout": "0 ms"})) == 0
    assert _idle_timeout_ms(lw(0, {}, {}), assigner({})) == 0
    # the timeout given to _per_split is the one used
    meta_in = {"split_max": {"t:0": 50000}, "split_seen": {"t:0": 1000, "t:1": 1000}}
    low = lw(3000, meta_in, {})
    fn = _per_split(low, NODE, {"t:0": False, "t:1": False},
                    lambda top: WM_MIN if top is None else top - NODE.delay_ms, 1000)
    assert fn("60000,") == 60000 - 1000  # t:1 silent for 2 s > 1 s: idle


def test_kafka_tables_take_flinks_watermark_options():
    import pytest

    from connectors.base import Options
    from connectors.kafka.options import parse
    from sqlengine.errors import ConnectorError
    from sqlengine.types import INT

    base = {"connector": "kafka", "topic": "t", "properties.bootstrap.servers": "localhost:9092",
            "format": "json"}
    columns = [("a", INT())]
    parse(Options("kafka", {**base, "scan.watermark.idle-timeout": "30 s",
                            "scan.watermark.emit.strategy": "on-event"}), columns)
    with pytest.raises(ConnectorError, match="'scan.watermark.idle-timeout': 'soon'"):
        parse(Options("kafka", {**base, "scan.watermark.idle-timeout": "soon"}), columns)
    with pytest.raises(ConnectorError, match="scan.watermark.emit.strategy"):
        parse(Options("kafka", {**base, "scan.watermark.emit.strategy": "sometimes"}), columns)
