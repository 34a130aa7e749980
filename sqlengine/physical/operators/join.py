"""Join: a regular join (INNER/LEFT/RIGHT/FULL/SEMI/ANTI). Both inputs are hashed on
the equi keys (a join without equi keys: one partition per side in streaming, the
right side broadcast in batch). Per epoch: ``runtime/streaming/join`` (delta rule)."""
from __future__ import annotations

from sqlengine.physical.node import ALL_KINDS, BROADCAST, FORWARD, INSERT_ONLY, SINGLE, Edge, Operator, \
    hash_edge, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered, drop_eoi


class JoinBase(Operator):
    stateful = True

    def edges(self, node: P.Join, streaming: bool) -> list[Edge]:
        if not node.left_keys:
            return [SINGLE, SINGLE] if streaming else [FORWARD, BROADCAST]
        return [hash_edge(node.left, node.left_keys), hash_edge(node.right, node.right_keys)]

    def changelog(self, node: P.Join, inputs: list[frozenset]) -> frozenset:
        return ALL_KINDS if any(i != INSERT_ONLY for i in inputs) else INSERT_ONLY

    def lower(self, lw, node: P.Join, left: Lowered, right: Lowered) -> Lowered:
        from sqlengine.runtime.ops.join import batch_join
        lw.batch_only(node)
        return Lowered(batch_join(lw, node, drop_eoi(left).df, drop_eoi(right).df))


@register(P.Join)
class Join(JoinBase):
    def changelog(self, node: P.Join, inputs: list[frozenset]) -> frozenset:
        """An outer join retracts its NULL-padded rows, an anti join a row whose first
        match arrives; an inner or semi join is insert-only over insert-only inputs."""
        if node.kind in ("LEFT", "RIGHT", "FULL", "ANTI"):
            return ALL_KINDS
        return super().changelog(node, inputs)

    def lower_epoch(self, lw, node: P.Join, left: Lowered, right: Lowered) -> Lowered:
        updating = node.kind != "INNER" or left.updating or right.updating
        if lw.idle(node, (left, right), on_watermark=False):
            return lw.nothing(node, updating)
        from sqlengine.runtime.streaming.join import epoch_join
        return epoch_join(lw, node, left, right)
