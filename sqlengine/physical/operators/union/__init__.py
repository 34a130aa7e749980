"""Union (UNION ALL): the inputs' rows together, in their inputs' tasks."""
from __future__ import annotations

from sqlengine.hidden import Lowered, drop_eoi
from sqlengine.physical.operator import Operator, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import BatchContext


@register(P.Union)
class Union(Operator):
    def label(self, node: P.Union) -> str:
        return "Union"

    def explain(self, node: P.Union) -> str:
        return f"Union(all=[true], union=[{', '.join(node.names())}])"

    def lower(self, ctx: BatchContext, node: P.Union, *children: Lowered) -> Lowered:
        parts = [drop_eoi(c) for c in children]
        out = parts[0].df
        for p in parts[1:]:
            out = out.unionAll(p.df)
        return Lowered(out, False, any(p.updating for p in parts))
