"""Cascaded window aggregation: a GROUP BY whose keys hold window_start and window_end of
a window aggregation below is a window aggregation over those windows (Flink's
``WindowAttachedWindowingStrategy``), so it is insert-only and fires with the watermark,
not an updating GroupAggregate. Nexmark's q5 (the maximum count per sliding window over
the counts per auction and window) is the classic case:

    SELECT MAX(num), starttime, endtime FROM (SELECT COUNT(*) AS num, window_start AS
    starttime, window_end AS endtime FROM TABLE(HOP(...)) GROUP BY auction, window_start,
    window_end) GROUP BY starttime, endtime

The rewrite keeps the node's output (keys in their order, then the aggregates): the
window's start and end become the new node's window properties, named as the keys
were, and a Calc puts the columns back in the Aggregate's order."""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from sqlengine.plan import nodes as P
from sqlengine.plan.lineage import attached_window


def window_cascade(node: P.Node) -> Optional[P.Node]:
    if not isinstance(node, P.Aggregate):
        return None
    found = attached_window(node)
    if found is None:
        return None
    s_pos, e_pos, spec = found
    window = replace(spec, time_col=node.keys[e_pos], partition_keys=(),
                     attached=(node.keys[s_pos], node.keys[e_pos]))
    names = node.input.names()
    rest = [i for i in range(len(node.keys)) if i not in (s_pos, e_pos)]
    agg = P.WindowAggregate(node.input, window, tuple(node.keys[i] for i in rest), node.aggs, node.agg_names,
                            ("window_start", "window_end"), (names[node.keys[s_pos]], names[node.keys[e_pos]]),
                            True)
    # the Aggregate's column j is the new node's column where[j]
    where = {i: n for n, i in enumerate(rest)}
    where[s_pos], where[e_pos] = len(rest), len(rest) + 1
    order = [where[i] for i in range(len(node.keys))] + [len(node.keys) + j for j in range(len(node.aggs))]
    sch, want = agg.schema, node.schema
    return P.Calc(agg, tuple(P.ColRef(sch[i].type, i, want[j].name) for j, i in enumerate(order)),
                  tuple(f.name for f in want))
