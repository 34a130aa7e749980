"""Join: a regular join (INNER/LEFT/RIGHT/FULL/SEMI/ANTI). Both inputs are hashed on
the equi keys (a join without equi keys: one task per side in streaming, the right
side broadcast in batch). Per epoch (``epoch.py``): the delta rule, retractions."""
from __future__ import annotations

from sqlengine.hidden import Lowered, drop_eoi
from sqlengine.physical.operator import Operator, register
from sqlengine.physical.operators.join.epoch import epoch_join
from sqlengine.physical.shared.joins import batch_join
from sqlengine.plan import nodes as P
from sqlengine.plan.dag import ALL_KINDS, BROADCAST, FORWARD, INSERT_ONLY, SINGLE, Edge, hash_edge
from sqlengine.runtime.context import BatchContext, EpochContext


@register(P.Join)
class Join(Operator):
    stateful = True

    def explain(self, node: P.Join) -> str:
        return (f"Join(joinType=[{node.join_type()}], where=[{node.condition}], "
                f"select=[{', '.join(node.names())}])")

    def edges(self, node: P.Join, streaming: bool) -> list[Edge]:
        if not node.left_keys:
            return [SINGLE, SINGLE] if streaming else [FORWARD, BROADCAST]
        return [hash_edge(node.left, node.left_keys), hash_edge(node.right, node.right_keys)]

    def changelog(self, node: P.Join, inputs: list[frozenset]) -> frozenset:
        """An outer join retracts its NULL-padded rows, an anti join a row whose first
        match arrives; an inner or semi join is insert-only over insert-only inputs."""
        if node.kind in ("LEFT", "RIGHT", "FULL", "ANTI") or any(i != INSERT_ONLY for i in inputs):
            return ALL_KINDS
        return INSERT_ONLY

    def lower(self, ctx: BatchContext, node: P.Join, left: Lowered, right: Lowered) -> Lowered:
        return Lowered(batch_join(ctx, node, drop_eoi(left).df, drop_eoi(right).df))

    def lower_epoch(self, ctx: EpochContext, node: P.Join, left: Lowered, right: Lowered) -> Lowered:
        updating = node.kind != "INNER" or left.updating or right.updating
        if ctx.idle((left, right), on_watermark=False):
            return ctx.nothing(updating)
        return epoch_join(ctx, node, left, right)
