"""Correlate over UNNEST: one output row per element of the array (or map entry)."""
from __future__ import annotations

from sqlengine.physical.node import Operator, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered, drop_eoi


@register(P.Unnest)
class Unnest(Operator):
    def lower(self, lw, node: P.Unnest, child: Lowered) -> Lowered:
        from sqlengine.runtime.ops.unnest import batch_unnest
        child = drop_eoi(child)
        return Lowered(batch_unnest(lw, node, child.df), False, child.updating)
