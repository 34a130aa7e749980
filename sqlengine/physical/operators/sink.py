"""Sink: the root of an INSERT; the job hands the lowered input to the connector's
writer (``Sink.write_batch`` / ``write_epoch``)."""
from __future__ import annotations

from sqlengine.physical.node import Operator, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered


@register(P.Sink)
class Sink(Operator):
    def label(self, node: P.Sink) -> str:
        return f"Sink: {node.table}"

    def lower(self, lw, node: P.Sink, child: Lowered) -> Lowered:
        return child

    def lower_epoch(self, lw, node: P.Sink, child: Lowered) -> Lowered:
        return child
