"""Union (ALL): the inputs' rows, no data movement."""
from __future__ import annotations

from sqlengine.physical.node import Operator, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered, drop_eoi


@register(P.Union)
class Union(Operator):
    def label(self, node: P.Union) -> str:
        return "Union"

    def lower(self, lw, node: P.Union, *children: Lowered) -> Lowered:
        parts = [drop_eoi(c) for c in children]
        out = parts[0].df
        for p in parts[1:]:
            out = out.unionAll(p.df)
        return Lowered(out, False, any(p.updating for p in parts))
