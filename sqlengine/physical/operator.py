"""The operator contract: what the planner reads of an operator, and what the runtime calls.

Each physical operator is one package under ``physical/operators`` holding one
``Operator`` subclass (registered for the logical node classes it runs) and its
lowerings. The planner asks it for its input edges, its changelog and its EXPLAIN
text; the runtime calls ``lower`` (batch: whole inputs) or ``lower_epoch`` (streaming:
one epoch's changes) with the node's inputs already lowered, in dependency order,
and a context that declares everything the operator may read and write
(``runtime/context.py``: ``BatchContext`` and ``EpochContext``). The runtime never
names an operator; an operator never reaches into the runtime's internals.
"""
from __future__ import annotations

from typing import Callable, Optional

from sqlengine.errors import UnsupportedError
from sqlengine.hidden import Lowered
from sqlengine.plan import nodes as P
from sqlengine.plan.dag import FORWARD, INSERT_ONLY, Edge
from sqlengine.runtime.context import BatchContext, EpochContext


class Operator:
    """One physical operator (see the module docstring). Defaults fit a stateless,
    chained operator: forward edges, the union of its inputs' changelogs, the batch
    lowering applied to an epoch's rows."""

    logical: tuple[type, ...] = ()
    stateful = False
    source = False  # reads a table (the runtime opens it before the job's first epoch)
    # Flink's name of the operator when it refuses updating inputs (``check_inputs``).
    insert_only_inputs: Optional[str] = None

    # -- the node: what the planner and EXPLAIN read ---------------------------------
    def label(self, node: P.Node) -> str:
        """The operator's name in the execution plan (``Rank``, ``Sink: t``)."""
        return self.explain(node).split("(")[0]

    def explain(self, node: P.Node) -> str:
        """The node's line in EXPLAIN, in Flink's words."""
        return type(node).__name__

    def validate(self, node: P.Node, unbounded: bool) -> None:
        """Raise for what this operator cannot run; ``unbounded``: over a streaming input."""

    def edges(self, node: P.Node, streaming: bool) -> list[Edge]:
        """How each input must be distributed (the planner puts the exchanges there)."""
        return [FORWARD for _ in node.children()]

    def changelog(self, node: P.Node, inputs: list[frozenset]) -> frozenset:
        """The row kinds the operator emits, given its inputs' (streaming)."""
        return frozenset().union(*inputs) if inputs else INSERT_ONLY

    def checked_inputs(self, node: P.Node) -> tuple[P.Node, ...]:
        """The inputs that must be insert-only when ``insert_only_inputs`` is set."""
        return node.children()

    def reads_watermark(self, node: P.Node) -> bool:
        """Whether the operator fires on its inputs' watermark (an event-time operator);
        a watermark assigner with no such operator downstream computes none."""
        return False

    def materializes(self, node: P.Node) -> bool:
        """Whether everything ``lower_epoch`` emits is computed from frames it persisted
        (``EpochContext.persist``) that hold all of its inputs' rows: then the node's
        consumers, however many, never read the epoch's input again, and the runtime need
        not persist the input for them (runtime/epoch.py). A wrong True costs a second
        read of the input, never a wrong answer (sources are replayable)."""
        return False

    def lookup_inputs(self, node: P.Node) -> tuple[P.Node, ...]:
        """Scans below this node that are read as lookup tables, not as streams."""
        return ()

    # -- lowering: what the runtime calls ---------------------------------------------
    def lower(self, ctx: BatchContext, node: P.Node, *inputs: Lowered) -> Lowered:
        raise UnsupportedError(f"No translation rule for {type(node).__name__}")

    def lower_epoch(self, ctx: EpochContext, node: P.Node, *inputs: Lowered) -> Lowered:
        """A stateless operator: the batch lowering over the delta; empty in, empty out."""
        out = self.lower(ctx, node, *inputs)
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
