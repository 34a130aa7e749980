"""ChangelogNormalize: an upsert stream (``+U``/``-D`` by key, no ``-U``) made a full
changelog, hashed on the key (``epoch.py``): the last row per key is kept, so an
update retracts the old row (``-U``) and a delete carries the whole row. Streaming only."""
from __future__ import annotations

from sqlengine.errors import UnsupportedError
from sqlengine.hidden import Lowered
from sqlengine.physical.operator import Operator, register
from sqlengine.physical.operators.changelog_normalize.epoch import epoch_normalize
from sqlengine.plan import nodes as P
from sqlengine.plan.dag import ALL_KINDS, Edge, hash_edge
from sqlengine.runtime.context import BatchContext, EpochContext


@register(P.ChangelogNormalize)
class ChangelogNormalize(Operator):
    stateful = True

    def materializes(self, node: P.Node) -> bool:
        """Per epoch the last change per key is persisted and the changes come from it."""
        return True

    def explain(self, node: P.ChangelogNormalize) -> str:
        names = node.input.names()
        return f"ChangelogNormalize(key=[{', '.join(names[k] for k in node.keys)}])"

    def edges(self, node: P.ChangelogNormalize, streaming: bool) -> list[Edge]:
        return [hash_edge(node.input, node.keys)]

    def changelog(self, node: P.ChangelogNormalize, inputs: list[frozenset]) -> frozenset:
        return ALL_KINDS

    def lower(self, ctx: BatchContext, node: P.ChangelogNormalize, child: Lowered) -> Lowered:
        raise UnsupportedError("ChangelogNormalize runs only in streaming mode")

    def lower_epoch(self, ctx: EpochContext, node: P.ChangelogNormalize, child: Lowered) -> Lowered:
        if ctx.idle((child,), on_watermark=False):
            return ctx.nothing(updating=True)
        return epoch_normalize(ctx, node, child)
