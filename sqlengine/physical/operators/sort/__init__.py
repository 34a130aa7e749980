"""Sort / SortLimit / Limit (batch; over a bounded input in streaming mode the job is
a batch job). Sorting runs in one task (a ``single`` edge); a limit without an order
keeps its input's tasks."""
from __future__ import annotations

from sqlengine.errors import UnsupportedError
from sqlengine.hidden import Lowered, drop_eoi
from sqlengine.physical.operator import Operator, register
from sqlengine.plan import nodes as P
from sqlengine.plan.dag import ALL_KINDS, FORWARD, SINGLE, Edge
from sqlengine.runtime.context import BatchContext, EpochContext
from sqlengine.runtime.exprs import sort_order

UNBOUNDED = ("ORDER BY/LIMIT over an unbounded stream is not supported yet "
             "(use a Top-N query: ROW_NUMBER() OVER (...) with a filter)")


@register(P.Sort)
class Sort(Operator):
    def explain(self, node: P.Sort) -> str:
        names = node.input.names()
        order = ", ".join(f"{names[k.index]} {'ASC' if k.ascending else 'DESC'}" for k in node.keys)
        lim = f", offset=[{node.offset}], fetch=[{node.limit}]" if node.limit is not None else ""
        return (f"SortLimit(orderBy=[{order}]{lim})" if node.limit is not None and node.keys
                else f"Limit(offset=[{node.offset}], fetch=[{node.limit}])" if not node.keys
                else f"Sort(orderBy=[{order}])")

    def validate(self, node: P.Sort, unbounded: bool) -> None:
        if unbounded:
            raise UnsupportedError(UNBOUNDED)

    def edges(self, node: P.Sort, streaming: bool) -> list[Edge]:
        return [SINGLE if node.keys else FORWARD]

    def changelog(self, node: P.Sort, inputs: list[frozenset]) -> frozenset:
        return ALL_KINDS if node.limit is not None and node.keys else inputs[0]

    def lower(self, ctx: BatchContext, node: P.Sort, child: Lowered) -> Lowered:
        df = drop_eoi(child).df
        if node.keys:
            df = df.repartition(1).sortWithinPartitions(*[sort_order(k) for k in node.keys])
        if node.limit is not None:
            df = df.limit(node.limit + node.offset)
        if node.offset:
            df = df.offset(node.offset)
        return Lowered(df)

    def lower_epoch(self, ctx: EpochContext, node: P.Sort, child: Lowered) -> Lowered:
        raise UnsupportedError(UNBOUNDED)
