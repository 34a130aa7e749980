"""WindowTableFunction: TUMBLE/HOP/CUMULATE columns on each row (stateless)."""
from __future__ import annotations

from sqlengine.physical.node import Operator, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered, drop_eoi


@register(P.WindowTableFunction)
class WindowTableFunction(Operator):
    def lower(self, lw, node: P.WindowTableFunction, child: Lowered) -> Lowered:
        from sqlengine.runtime.windows import lower_window_tvf
        return lower_window_tvf(lw, node, drop_eoi(child))
