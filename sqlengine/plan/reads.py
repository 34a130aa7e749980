"""Which fields of each table a job reads: the columns, and the members of ROW columns,
that some operator of the DAG uses (a liveness analysis from the sinks down to the scans).

A connector may leave the rest out (``ScanContext.unread``) where that cannot change an
answer: the Kafka reader sends NULL for them in batches its Arrow decoding has already
checked in full, so a bad value in an unread field still fails the job, as in Flink,
whose scans read and decode every physical column (benchmarks/README.md, "Decoding only
the fields a query uses?"). Nexmark's q3 reads no member of the bids that are 92% of its
events.

A demand on a node's output is ``None`` (every column, whole) or a dict from column
position to a ``Tree``: ``None`` for the whole value, or a dict from a ROW member's name
to its own ``Tree``. Projections and filters (``Calc``) and watermark assigners pass on
exactly what they use, and so do unions, window table functions, group and window
aggregations and regular, interval and window joins (their keys, conditions, arguments
and time columns, and what is read of their output); every other operator is taken to
read all of its inputs, whole.
"""
from __future__ import annotations

import functools
from typing import Optional

from sqlengine.plan import nodes as P
from sqlengine.plan.dag import Dag, PhysicalNode

Tree = Optional[dict]  # None: the whole value; else ROW member name -> Tree
Demand = Optional[dict]  # None: every column whole; else column position -> Tree


def scan_reads(dag: Dag) -> dict[P.TableScan, Demand]:
    """Per logical table scan of ``dag``: what its operators read of its output."""
    watermarked = dag.watermarked()
    return dag.to_scans(lambda demands: functools.reduce(merge_demand, demands, {}),
                        lambda n, demand: _inputs(n, demand, n in watermarked))


def watermark_reads(dag: Dag) -> set[P.TableScan]:
    """The logical table scans of ``dag`` whose watermark an operator reads (through their
    watermark assigner): only their rows need a split (per-split watermarks)."""
    return {n.logical for n in dag.watermarked() if n.op.source and isinstance(n.logical, P.TableScan)}


def unread(fields: tuple[P.Field, ...], demand: Demand) -> tuple[tuple[str, ...], ...]:
    """The paths (a column's name, then ROW member names) of the values of ``fields`` that
    ``demand`` does not read: whole columns, and members of the ROW columns read in part."""
    if demand is None:
        return ()
    paths: list[tuple[str, ...]] = []

    def walk(prefix: tuple[str, ...], members, tree: dict) -> None:
        for f in members:
            if f.name not in tree:
                paths.append(prefix + (f.name,))
            elif tree[f.name] is not None and f.type.root == "ROW":
                walk(prefix + (f.name,), f.type.fields, tree[f.name])
    for i, f in enumerate(fields):
        if i not in demand:
            paths.append((f.name,))
        elif demand[i] is not None and f.type.root == "ROW":
            walk((f.name,), f.type.fields, demand[i])
    return tuple(paths)


def merge_demand(a: Demand, b: Demand) -> Demand:
    """What two readers read together (demands and trees alike: None is all of it)."""
    if a is None or b is None:
        return None
    out = dict(a)
    for k, t in b.items():
        out[k] = merge_demand(out[k], t) if k in out else t
    return out


def _inputs(n: PhysicalNode, demand: Demand, watermarked: bool) -> list[Demand]:
    """What ``n`` reads of each of its inputs when ``demand`` is read of its output."""
    node = n.logical
    if isinstance(node, P.Calc):
        read: dict = {}
        wanted = range(len(node.projections)) if demand is None else sorted(demand)
        for i in wanted:
            _use(node.projections[i], None if demand is None else demand[i], read)
        if node.condition is not None:
            _use(node.condition, None, read)
        return [read]
    if isinstance(node, P.WatermarkAssigner):
        if demand is None:
            return [None]
        read = dict(demand)
        if watermarked:  # the watermark is computed from the rowtime column
            read[node.rowtime] = None
        return [read]
    if isinstance(node, P.Union):
        return [demand for _ in n.children]
    if isinstance(node, P.WindowTableFunction):
        if demand is None:
            return [None]
        width = len(node.input.schema)
        read = {i: t for i, t in demand.items() if i < width}
        _whole(read, (node.window.time_col,))
        return [read]
    if isinstance(node, (P.Aggregate, P.WindowAggregate)):
        read = {}
        _whole(read, node.keys)
        for agg in node.aggs:
            for arg in agg.args:
                _use(arg, None, read)
            if agg.filter is not None:
                _use(agg.filter, None, read)
        if isinstance(node, P.WindowAggregate):
            w = node.window
            _whole(read, (w.time_col,) + tuple(w.partition_keys) + tuple(w.attached or ()))
        return [read]
    if type(node) in (P.Join, P.IntervalJoin, P.WindowJoin):
        return _join_inputs(node, demand)
    return [None for _ in n.children]


def _join_inputs(node: P.Join, demand: Demand) -> list[Demand]:
    """A join's output is its left columns then (but for SEMI / ANTI) its right ones; it
    also reads its keys, its condition and its time or window columns."""
    nl, nr = len(node.left.schema), len(node.right.schema)
    if demand is None:
        return [None, None]
    both = dict(demand)
    if node.condition is not None:
        _use(node.condition, None, both)
    _whole(both, node.left_keys + tuple(nl + k for k in node.right_keys))
    if isinstance(node, P.IntervalJoin):
        _whole(both, (node.left_time, nl + node.right_time))
    if isinstance(node, P.WindowJoin):
        _whole(both, node.left_window + tuple(nl + k for k in node.right_window))
    left = {i: t for i, t in both.items() if i < nl}
    right = {i - nl: t for i, t in both.items() if nl <= i < nl + nr}
    return [left, right]


def _whole(read: dict, columns) -> None:
    for c in columns:
        read[c] = None


def _use(e: P.Expr, tree: Tree, read: dict) -> None:
    """Record in ``read`` what ``e`` uses of its input, when ``tree`` of its value is used."""
    path = _path(e)
    if path is not None:
        index, names = path
        nested: Tree = tree
        for name in reversed(names):
            nested = {name: nested}
        read[index] = merge_demand(read[index], nested) if index in read else nested
        return
    for c in e.children():
        _use(c, None, read)


def _path(e: P.Expr) -> Optional[tuple[int, list[str]]]:
    """(column, member names) when ``e`` is a column or a chain of ROW member accesses on one."""
    if isinstance(e, P.ColRef):
        return e.index, []
    if isinstance(e, P.Call) and e.name == "FIELD" and len(e.args) == 2 and isinstance(e.args[1], P.Lit) \
            and isinstance(e.args[1].value, str):
        inner = _path(e.args[0])
        if inner is not None:
            return inner[0], inner[1] + [e.args[1].value]
    return None
