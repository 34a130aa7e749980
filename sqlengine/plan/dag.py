"""The physical operator DAG: the program a job runs and the object EXPLAIN prints.

A physical node wraps one logical node (equal logical subtrees are one node: a scan
shared by two sinks is read once) with the operator that runs it (one package per
operator under ``physical/operators``), its typed input edges and the changelog it
emits. The planner (``planner.plan``) builds the DAG once per statement; EXPLAIN
prints it, the runtime lowers it, and both number operators and tasks the same way.

Edges: ``forward`` (chained into the producer's task, no data movement), ``hash``
(partitioned by the key's key group: ``pmod(hash(keys), max-parallelism)``; each of
the consumer's tasks owns a contiguous range of key groups, as Flink's
``KeyGroupRangeAssignment``), ``single`` (one task), ``broadcast`` (the input is copied
to every task).

This module holds data only: it knows operators by the methods it calls on them
(``Operator`` in ``physical/operator.py``) and never imports one.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional

from sqlengine.plan import nodes as P

INSERT_ONLY = frozenset({"I"})
RETRACT = frozenset({"I", "UB", "UA"})
ALL_KINDS = frozenset({"I", "UB", "UA", "D"})


def changelog_text(kinds: frozenset) -> str:
    """Flink's ``changelogMode=[...]`` text of a set of row kinds."""
    return ",".join(k for k in ("I", "UB", "UA", "D") if k in kinds)


@dataclass(frozen=True)
class Edge:
    kind: str  # forward | hash | single | broadcast
    keys: tuple[int, ...] = ()  # input column indexes (hash)
    names: tuple[str, ...] = ()  # the keys' names, then computed keys' (a batch window's bounds)

    def __post_init__(self) -> None:
        assert self.kind in ("forward", "hash", "single", "broadcast"), self.kind
        assert (self.kind == "hash") == bool(self.names), (self.kind, self.names)

    @property
    def exchange(self) -> bool:
        return self.kind != "forward"

    def render(self) -> str:
        return f"hash[{', '.join(self.names)}]" if self.kind == "hash" else self.kind


FORWARD = Edge("forward")
SINGLE = Edge("single")
BROADCAST = Edge("broadcast")


def hash_edge(node: P.Node, keys: Iterable[int], extra: tuple[str, ...] = ()) -> Edge:
    """Hash on the columns ``keys`` of ``node``'s output (and ``extra`` keys the consumer
    computes), or one task when there are none."""
    keys = tuple(keys)
    if not keys and not extra:
        return SINGLE
    names = node.names()
    return Edge("hash", keys, tuple(names[k] for k in keys) + tuple(extra))


@dataclass(eq=False)
class PhysicalNode:
    id: str  # deterministic: state paths and sink ids derive from it
    logical: P.Node
    op: Any  # the Operator (physical/operator.py) that runs ``logical``
    inputs: list[tuple["PhysicalNode", Edge]]
    changelog: frozenset
    parallelism: int  # the tasks that run it

    @property
    def label(self) -> str:
        return self.op.label(self.logical)

    def explain(self) -> str:
        return self.op.explain(self.logical)

    @property
    def children(self) -> list["PhysicalNode"]:
        return [n for n, _ in self.inputs]


@dataclass
class Task:
    """A chain of operators joined by forward edges, run as one task per parallel instance."""

    number: int  # 1.. in dependency order, as EXPLAIN prints it
    operators: list[PhysicalNode]
    parallelism: int

    @property
    def head(self) -> PhysicalNode:
        return self.operators[0]


@dataclass
class Dag:
    nodes: list[PhysicalNode]  # dependency order: inputs before their consumers
    roots: list[PhysicalNode]
    streaming: bool
    parallelism: int
    max_parallelism: int
    by_logical: dict[P.Node, PhysicalNode] = field(default_factory=dict)

    def node(self, logical: P.Node) -> PhysicalNode:
        return self.by_logical[logical]

    def exchanges(self) -> list[tuple[PhysicalNode, Edge]]:
        return [(n, e) for n in self.nodes for _, e in n.inputs if e.exchange]

    def consumers(self) -> dict[str, list[tuple[PhysicalNode, Edge]]]:
        out: dict[str, list[tuple[PhysicalNode, Edge]]] = {n.id: [] for n in self.nodes}
        for n in self.nodes:
            for src, edge in n.inputs:
                out[src.id].append((n, edge))
        return out

    def sources(self) -> list[PhysicalNode]:
        """The nodes that read a table (their operator opens a connector)."""
        return [n for n in self.nodes if n.op.source]

    def watermarked(self) -> set[PhysicalNode]:
        """The nodes whose watermark an operator downstream reads."""
        consumers = self.consumers()
        need: set[PhysicalNode] = set()
        for n in reversed(self.nodes):
            if any(c.op.reads_watermark(c.logical) or c in need for c, _ in consumers[n.id]):
                need.add(n)
        return need

    def to_scans(self, merge: Callable[[list], Any], inputs: Callable[[PhysicalNode, Any], list]) -> dict:
        """A backward pass from the roots to the table scans (plan/reads.py, plan/pushdown.py):
        a root's or an unconsumed node's value is None (everything), any other node's is
        ``merge`` of what its consumers ask; ``inputs(node, value)`` is what it asks of each
        input. The value per logical table scan (``merge`` over its physical nodes)."""
        consumers = self.consumers()
        asked: dict[str, list] = {n.id: [] for n in self.nodes}
        out: dict = {}
        for n in reversed(self.nodes):  # consumers before their inputs
            value = None if n in self.roots or not consumers[n.id] else merge(asked[n.id])
            if n.op.source and isinstance(n.logical, P.TableScan):
                out[n.logical] = merge([out[n.logical], value]) if n.logical in out else value
            for child, v in zip(n.children, inputs(n, value)):
                asked[child.id].append(v)
        return out

    def lookups(self) -> set[P.Node]:
        """Logical scans read as lookup tables (by a processing-time temporal join)."""
        return {scan for n in self.nodes for scan in n.op.lookup_inputs(n.logical)}

    def tasks(self) -> list[Task]:
        """Maximal runs of operators joined by forward edges (one task each), numbered in
        dependency order: the numbers EXPLAIN prints and the runtime reports."""
        consumers = self.consumers()

        def chained(node: PhysicalNode) -> bool:
            return (len(node.inputs) == 1 and not node.inputs[0][1].exchange
                    and len(consumers[node.inputs[0][0].id]) == 1)
        out = []
        for head in [n for n in self.nodes if not chained(n)]:
            chain = [head]
            while True:
                nxt = consumers[chain[-1].id]
                if len(nxt) == 1 and chained(nxt[0][0]):
                    chain.append(nxt[0][0])
                else:
                    break
            out.append(Task(len(out) + 1, chain, head.parallelism))
        return out

    def restricted(self, roots: list[PhysicalNode]) -> "Dag":
        """The part of this DAG that ``roots`` read (same nodes, same ids)."""
        keep: set[str] = set()

        def visit(n: PhysicalNode) -> None:
            if n.id not in keep:
                keep.add(n.id)
                for c in n.children:
                    visit(c)
        for r in roots:
            visit(r)
        nodes = [n for n in self.nodes if n.id in keep]
        return Dag(nodes, list(roots), self.streaming, self.parallelism, self.max_parallelism,
                   {n.logical: n for n in nodes})

    def signature(self) -> str:
        """A digest of the operators and their edges: a checkpoint's state belongs to it.
        The parallelism is not part of it (a job may restart with another)."""
        text = "\n".join(f"{n.id} {n.explain()} <- {[(i.id, e.render()) for i, e in n.inputs]}"
                         for n in self.nodes)
        return hashlib.sha1(text.encode()).hexdigest()[:16]

    def operator_signatures(self) -> dict[str, str]:
        """Per node: what its state is tied to when a checkpoint is restored into a changed
        query, as Flink matches a savepoint's operator state: the operator itself (what
        EXPLAIN prints of it, its changelog), the shape of the plan feeding it (the kinds of
        the nodes upstream, not their expressions) and the schemas and edges of its
        inputs. A filter or projection added after it, or a sink's options, leave it as it
        was; an operator whose signature differs cannot take its old state."""
        shape: dict[str, str] = {}
        out: dict[str, str] = {}
        for n in self.nodes:
            shape[n.id] = f"{type(n.logical).__name__}(" + ",".join(shape[i.id] for i, _ in n.inputs) + ")"
            inputs = [f"{shape[i.id]}:{[str(f) for f in i.logical.schema]}:{e.render()}" for i, e in n.inputs]
            text = f"{_unnamed(n)}|{sorted(n.changelog)}|{inputs}"
            out[n.id] = hashlib.sha1(text.encode()).hexdigest()[:16]
        return out

    def run(self, lower_node: Callable[[PhysicalNode, list[Any]], Any],
            memo: Optional[dict] = None) -> list[Any]:
        """Lower every node once, in dependency order; returns the roots' results."""
        memo = {} if memo is None else memo
        for n in self.nodes:
            if n not in memo:
                memo[n] = lower_node(n, [memo[i] for i in n.children])
        return [memo[r] for r in self.roots]


def _unnamed(n: "PhysicalNode") -> str:
    """The node's EXPLAIN with its aggregate calls' names left out: a name is the query's
    alias (``COUNT(*) AS n``) and no part of the state, so renaming one keeps the state
    (as Flink's operator hashes ignore them)."""
    import dataclasses
    names = getattr(n.logical, "agg_names", None)
    if not names:
        return n.explain()
    return n.op.explain(dataclasses.replace(n.logical, agg_names=tuple(f"$agg{i}" for i in range(len(names)))))
