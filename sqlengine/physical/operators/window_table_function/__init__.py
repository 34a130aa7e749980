"""WindowTableFunction: a window TVF on its own (TUMBLE, HOP, CUMULATE, with offsets):
each row gets its windows as window_start, window_end, window_time columns; HOP and
CUMULATE give a row per window. Stateless, in its input's task."""
from __future__ import annotations

from sqlengine.hidden import Lowered, drop_eoi
from sqlengine.physical.operator import Operator, register
from sqlengine.physical.shared.windows import assign_windows
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import BatchContext


@register(P.WindowTableFunction)
class WindowTableFunction(Operator):
    def explain(self, node: P.WindowTableFunction) -> str:
        return f"WindowTableFunction(window=[{node.window.describe(node.input.names())}])"

    def lower(self, ctx: BatchContext, node: P.WindowTableFunction, child: Lowered) -> Lowered:
        return Lowered(assign_windows(node.window, drop_eoi(child).df, len(node.input.schema)))
