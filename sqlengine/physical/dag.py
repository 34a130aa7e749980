"""The physical operator DAG: operators, typed edges, chains and key groups.

An edge is ``forward`` (chained into one task, lowered as one Spark stage) or an
exchange: ``hash[keys]`` (partitioned by hash(key) mod max-parallelism: the key
groups), ``single`` (one partition). The Spark plan of a job has exactly the
shuffles the exchanges name (tests/test_shuffles.py checks it).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from sqlengine.plan import nodes as P
from sqlengine.rules.changelog import changelog_mode


@dataclass
class Operator:
    id: int
    label: str
    inputs: list[tuple["Operator", str]] = field(default_factory=list)  # (op, edge)


@dataclass
class Dag:
    operators: list[Operator]
    sinks: list[Operator]
    parallelism: int
    max_parallelism: int

    def exchanges(self) -> list[str]:
        return [edge for op in self.operators for _, edge in op.inputs if edge != "forward"]


class _Builder:
    def __init__(self, streaming: bool, maxp: int):
        self.ops: list[Operator] = []
        self.streaming = streaming
        self.maxp = maxp

    def op(self, label: str, inputs: list[tuple[Operator, str]]) -> Operator:
        o = Operator(len(self.ops) + 1, label, inputs)
        self.ops.append(o)
        return o

    def hash(self, names: list[str]) -> str:
        if not names:
            return "single"
        return f"hash[{', '.join(names)}]"

    def build(self, node: P.Node) -> Operator:
        kids = [self.build(c) for c in node.children()]
        if isinstance(node, P.TableScan):
            return self.op(f"Source: {node.table}", [])
        if isinstance(node, P.Values):
            return self.op("Values", [])
        if isinstance(node, (P.Calc, P.WatermarkAssigner)):
            return self.op(node.explain().split("(")[0], [(kids[0], "forward")])
        if isinstance(node, P.Union):
            return self.op("Union", [(k, "forward") for k in kids])
        if isinstance(node, P.WindowAggregate):
            names = node.input.names()
            local = self.op("LocalWindowAggregate", [(kids[0], "forward")])
            keys = [names[k] for k in node.keys] + ["$window"]
            return self.op("GlobalWindowAggregate", [(local, self.hash(keys))])
        if isinstance(node, P.WindowTableFunction):
            return self.op("WindowTableFunction", [(kids[0], "forward")])
        if isinstance(node, P.Aggregate):
            names = node.input.names()
            keys = [names[k] for k in node.keys]
            if any(a.distinct for a in node.aggs) and keys:
                return self.op("GroupAggregate", [(kids[0], self.hash(keys))])
            local = self.op("LocalGroupAggregate", [(kids[0], "forward")])
            return self.op("GlobalGroupAggregate", [(local, self.hash(keys))])
        if isinstance(node, P.Sort):
            if node.keys:
                return self.op("Sort" + ("Limit" if node.limit is not None else ""), [(kids[0], "single")])
            return self.op("Limit", [(kids[0], "forward")])
        if isinstance(node, P.Join):
            ln, rn = node.left.names(), node.right.names()
            label = node.explain().split("(")[0]
            return self.op(label, [(kids[0], self.hash([ln[k] for k in node.left_keys])),
                                   (kids[1], self.hash([rn[k] for k in node.right_keys]))])
        if isinstance(node, (P.Over, P.Rank)):
            names = node.input.names()
            label = node.explain().split("(")[0]
            return self.op(label, [(kids[0], self.hash([names[k] for k in node.partition_keys]))])
        if isinstance(node, P.Sink):
            return self.op(f"Sink: {node.table}", [(kids[0], "forward")])
        return self.op(type(node).__name__, [(k, "forward") for k in kids])


def build_dag(plans: list[P.Node], streaming: bool, parallelism: int, maxp: int) -> Dag:
    b = _Builder(streaming, maxp)
    sinks = [b.build(p) for p in plans]
    return Dag(b.ops, sinks, parallelism, maxp)


def chains(dag: Dag) -> list[list[Operator]]:
    """Maximal runs of operators joined by forward edges (one task each)."""
    consumers: dict[int, list[tuple[Operator, str]]] = {}
    for op in dag.operators:
        for src, edge in op.inputs:
            consumers.setdefault(src.id, []).append((op, edge))
    heads = [op for op in dag.operators
             if not (len(op.inputs) == 1 and op.inputs[0][1] == "forward"
                     and len(consumers.get(op.inputs[0][0].id, [])) == 1)]
    out = []
    for head in heads:
        chain = [head]
        while True:
            nxt = consumers.get(chain[-1].id, [])
            if len(nxt) == 1 and nxt[0][1] == "forward" and len(nxt[0][0].inputs) == 1:
                chain.append(nxt[0][0])
            else:
                break
        out.append(chain)
    return out


def render_dag(dag: Dag) -> str:
    lines = []
    index = {}
    for i, chain in enumerate(chains(dag)):
        for op in chain:
            index[op.id] = i
    for i, chain in enumerate(chains(dag)):
        head = chain[0]
        for src, edge in head.inputs:
            if edge == "forward":
                lines.append(f"  Forward <- task {index[src.id] + 1}")
            else:
                groups = dag.max_parallelism if edge.startswith("hash") else 1
                lines.append(f"  Exchange({edge}, keyGroups={groups}) <- task {index[src.id] + 1}")
        lines.append(f"Task {i + 1} (parallelism={dag.parallelism}): " + " -> ".join(op.label for op in chain))
    return "\n".join(lines)


def render_plan(node: P.Node, streaming: bool, with_changelog: bool, indent: int = 0) -> str:
    text = node.explain() if hasattr(node, "explain") else type(node).__name__
    if with_changelog:
        text += f", changelogMode=[{changelog_mode(node, streaming)}]"
    lines = [("   " * (indent - 1) + "+- " + text) if indent else text]
    for c in node.children():
        lines.append(render_plan(c, streaming, with_changelog, indent + 1))
    return "\n".join(lines)
