"""TemporalJoin: ``FOR SYSTEM_TIME AS OF``, hashed on the equi keys. Event time: a left
row joins the right version valid at its time once the watermark has passed it;
processing time (a lookup join): the right table as it is in the row's epoch."""
from __future__ import annotations

from connectors.base import factory_for
from sqlengine.hidden import Lowered, drop_eoi
from sqlengine.physical.operator import register
from sqlengine.physical.operators.temporal_join.epoch import epoch_temporal_join
from sqlengine.physical.shared.joins import JoinOperator, batch_temporal_join
from sqlengine.plan import nodes as P
from sqlengine.plan.dag import Edge, hash_edge
from sqlengine.runtime.context import BatchContext, EpochContext


def lookup_side(node: P.TemporalJoin) -> "P.TableScan | None":
    """The table scan under the right input of a processing-time temporal join, through
    projections and filters, when its connector is a lookup source."""
    if node.right_time >= 0:
        return None
    r = node.right
    while isinstance(r, P.Calc):
        r = r.input
    if not isinstance(r, P.TableScan):
        return None
    try:
        factory = factory_for(r.connector or None, r.table)
    except Exception:  # noqa: BLE001 - reported when the scan is lowered
        return None
    return r if factory.lookup_source else None


@register(P.TemporalJoin)
class TemporalJoin(JoinOperator):
    insert_only_inputs = "StreamPhysicalTemporalJoin"
    kind = "TemporalJoin"

    def checked_inputs(self, node: P.TemporalJoin) -> tuple[P.Node, ...]:
        return (node.left,)  # the versioned side may be a changelog

    def reads_watermark(self, node: P.TemporalJoin) -> bool:
        return True

    def lookup_inputs(self, node: P.TemporalJoin) -> tuple[P.Node, ...]:
        side = lookup_side(node)
        return (side,) if side is not None else ()

    def edges(self, node: P.TemporalJoin, streaming: bool) -> list[Edge]:
        return [hash_edge(node.left, node.left_keys), hash_edge(node.right, node.right_keys)]

    def lower(self, ctx: BatchContext, node: P.TemporalJoin, left: Lowered, right: Lowered) -> Lowered:
        return Lowered(batch_temporal_join(ctx, node, drop_eoi(left).df, drop_eoi(right).df))

    def lower_epoch(self, ctx: EpochContext, node: P.TemporalJoin, left: Lowered, right: Lowered) -> Lowered:
        if ctx.idle((left, right), on_watermark=True):
            return ctx.nothing(updating=False)
        return epoch_temporal_join(ctx, node, left, right, lookup_side(node) is not None)
