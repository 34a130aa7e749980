"""Join: a regular join (INNER/LEFT/RIGHT/FULL/SEMI/ANTI), hashed on the equi keys. Per
epoch (``epoch.py``): the delta rule, retractions."""
from __future__ import annotations

from sqlengine.hidden import Lowered
from sqlengine.physical.operator import register
from sqlengine.physical.operators.join.epoch import epoch_join
from sqlengine.physical.shared.joins import JoinOperator
from sqlengine.plan import nodes as P
from sqlengine.plan.dag import ALL_KINDS
from sqlengine.runtime.context import EpochContext


@register(P.Join)
class Join(JoinOperator):
    def changelog(self, node: P.Join, inputs: list[frozenset]) -> frozenset:
        """An outer join retracts its NULL-padded rows, an anti join a row whose first
        match arrives; an inner or semi join is insert-only over insert-only inputs."""
        if node.kind in ("LEFT", "RIGHT", "FULL", "ANTI"):
            return ALL_KINDS
        return super().changelog(node, inputs)

    def lower_epoch(self, ctx: EpochContext, node: P.Join, left: Lowered, right: Lowered) -> Lowered:
        updating = node.kind != "INNER" or left.updating or right.updating
        if ctx.idle((left, right), on_watermark=False):
            return ctx.nothing(updating)
        return epoch_join(ctx, node, left, right)
