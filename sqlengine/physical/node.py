"""The physical operator DAG: the program a job runs and the object EXPLAIN prints.

A physical node wraps one logical node (equal logical subtrees are one node: a scan
shared by two sinks is read once) with the ``Operator`` that runs it and typed input
edges. Each operator lives in its own file under ``physical/operators`` and holds its
explain label, its required input distribution (the edges), its changelog contract
and its lowering, in batch (``lower``) and per epoch (``lower_epoch``).

Edges: ``forward`` (chained into the producer's task, no data movement), ``hash``
(partitioned by hash(keys) mod max-parallelism: the key groups; one Spark
``Exchange hashpartitioning(keys, key groups)``), ``single`` (one partition:
``Exchange SinglePartition``), ``broadcast`` (the input is copied to every task).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from sqlengine.errors import UnsupportedError
from sqlengine.plan import nodes as P

INSERT_ONLY = frozenset({"I"})
RETRACT = frozenset({"I", "UB", "UA"})
ALL_KINDS = frozenset({"I", "UB", "UA", "D"})


@dataclass(frozen=True)
class Edge:
    kind: str  # forward | hash | single | broadcast
    keys: tuple[int, ...] = ()  # input column indexes (hash)
    names: tuple[str, ...] = ()  # the keys' names (a window's bounds have no index)

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


def hash_edge(node: P.Node, keys, extra: tuple[str, ...] = ()) -> Edge:
    """Hash on ``keys`` of ``node``'s output (and ``extra`` computed keys), or one
    partition when there are none."""
    keys = tuple(keys)
    if not keys and not extra:
        return SINGLE
    names = node.names()
    return Edge("hash", keys, tuple(names[k] for k in keys) + tuple(extra))


class Operator:
    """One physical operator. Subclasses live one per file in ``physical/operators``.

    ``edges`` states how each input must be distributed, ``changelog`` what the
    operator emits given its inputs' changelog kinds (streaming), ``lower`` its batch
    lowering (inputs already lowered and distributed as the edges say) and
    ``lower_epoch`` its lowering over one epoch's deltas (stateless by default).
    """

    logical: tuple[type, ...] = ()
    stateful = False

    def label(self, node: P.Node) -> str:
        return node.explain().split("(")[0]

    def explain(self, node: P.Node) -> str:
        return node.explain()

    def validate(self, node: P.Node, unbounded: bool) -> None:
        """Raise for what this operator cannot run; ``unbounded``: over a streaming input."""

    def edges(self, node: P.Node, streaming: bool) -> list[Edge]:
        return [FORWARD for _ in node.children()]

    def changelog(self, node: P.Node, inputs: list[frozenset]) -> frozenset:
        return frozenset().union(*inputs) if inputs else INSERT_ONLY

    def reads_watermark(self, node: P.Node) -> bool:
        """Whether the operator fires on its inputs' watermark (an event-time operator);
        a watermark assigner with no such operator downstream computes none."""
        return False

    def lower(self, lw, node: P.Node, *inputs):
        raise UnsupportedError(f"No translation rule for {type(node).__name__}")

    def lower_epoch(self, lw, node: P.Node, *inputs):
        """A stateless operator: the batch lowering over the delta; empty in, empty out."""
        out = self.lower(lw, node, *inputs)
        out.empty = bool(inputs) and all(i.empty for i in inputs)
        return out


OPERATORS: dict[type, Operator] = {}


def register(*logical: type) -> Callable[[type], type]:
    """Class decorator: the operator that runs these logical node classes."""
    def wrap(cls: type) -> type:
        op = cls()
        op.logical = logical
        for t in logical:
            assert t not in OPERATORS, f"two operators for {t.__name__}"
            OPERATORS[t] = op
        return cls
    return wrap


def operator_for(node: P.Node) -> Operator:
    from sqlengine.physical import operators  # noqa: F401 - registers every operator
    op = OPERATORS.get(type(node))
    if op is None:
        raise UnsupportedError(f"No physical operator for {type(node).__name__}")
    return op


@dataclass(eq=False)
class PhysicalNode:
    id: str  # deterministic: state paths and sink ids derive from it
    logical: P.Node
    op: Operator
    inputs: list[tuple["PhysicalNode", Edge]]
    changelog: frozenset

    @property
    def label(self) -> str:
        return self.op.label(self.logical)

    def explain(self) -> str:
        return self.op.explain(self.logical)


@dataclass
class Dag:
    nodes: list[PhysicalNode]  # dependency order: inputs before their consumers
    roots: list[PhysicalNode]
    streaming: bool
    parallelism: int
    max_parallelism: int
    by_logical: dict[P.Node, PhysicalNode] = field(default_factory=dict)

    def exchanges(self) -> list[tuple[PhysicalNode, Edge]]:
        return [(n, e) for n in self.nodes for _, e in n.inputs if e.exchange]

    def ids(self) -> dict[P.Node, str]:
        return {n.logical: n.id for n in self.nodes}

    def watermarked(self) -> set[P.Node]:
        """The logical nodes whose watermark an operator downstream reads."""
        consumers: dict[str, list[PhysicalNode]] = {n.id: [] for n in self.nodes}
        for n in self.nodes:
            for src, _ in n.inputs:
                consumers[src.id].append(n)
        need: set[P.Node] = set()
        for n in reversed(self.nodes):
            if any(c.op.reads_watermark(c.logical) or c.logical in need for c in consumers[n.id]):
                need.add(n.logical)
        return need

    def signature(self) -> str:
        """A digest of the operators and their edges: a checkpoint's state belongs to it."""
        import hashlib
        text = "\n".join(f"{n.id} {n.explain()} <- {[(i.id, e.render()) for i, e in n.inputs]}"
                         for n in self.nodes)
        return hashlib.sha1(text.encode()).hexdigest()[:16]

    def run(self, lower_node: Callable[[PhysicalNode, list[Any]], Any]) -> list[Any]:
        """Lower every node once, in dependency order; returns the roots' results."""
        memo: dict[PhysicalNode, Any] = {}
        for n in self.nodes:
            memo[n] = lower_node(n, [memo[i] for i, _ in n.inputs])
        return [memo[r] for r in self.roots]
