"""Sort / SortLimit / Limit (batch): ORDER BY gathers the rows into one partition."""
from __future__ import annotations

from sqlengine.errors import UnsupportedError
from sqlengine.physical.node import ALL_KINDS, FORWARD, SINGLE, Edge, Operator, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered, drop_eoi, sort_order


UNBOUNDED = ("ORDER BY/LIMIT over an unbounded stream is not supported yet "
             "(use a Top-N query: ROW_NUMBER() OVER (...) with a filter)")


@register(P.Sort)
class Sort(Operator):
    def validate(self, node: P.Sort, unbounded: bool) -> None:
        if unbounded:
            raise UnsupportedError(UNBOUNDED)

    def edges(self, node: P.Sort, streaming: bool) -> list[Edge]:
        return [SINGLE if node.keys else FORWARD]

    def changelog(self, node: P.Sort, inputs: list[frozenset]) -> frozenset:
        return ALL_KINDS if node.limit is not None and node.keys else inputs[0]

    def lower(self, lw, node: P.Sort, child: Lowered) -> Lowered:
        df = drop_eoi(child).df
        if node.keys:
            df = df.repartition(1).sortWithinPartitions(*[sort_order(k) for k in node.keys])
        if node.limit is not None:
            df = df.limit(node.limit + node.offset)
        if node.offset:
            df = df.offset(node.offset)
        return Lowered(df)

    def lower_epoch(self, lw, node: P.Sort, child: Lowered) -> Lowered:
        raise UnsupportedError(UNBOUNDED)
