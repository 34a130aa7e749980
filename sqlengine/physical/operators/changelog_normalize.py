"""ChangelogNormalize: an upsert source's stream (``+U``/``-D`` by primary key, no
``-U``) made a full changelog, as Flink's ``StreamPhysicalChangelogNormalize``. Keyed
state holds each key's last row; per epoch the key's last change (in the source's
order, ``__seq``) is compared with it: a new key is ``+I``, a changed row ``-U`` old
``+U`` new, a delete ``-D`` with the stored row (a delete carries only the key); a
repeated identical row and a delete of an absent key emit nothing. Runtime:
``runtime/streaming/normalize``."""
from __future__ import annotations

from sqlengine.errors import UnsupportedError
from sqlengine.physical.node import ALL_KINDS, Edge, Operator, hash_edge, register
from sqlengine.plan import nodes as P
from sqlengine.runtime.lower import Lowered


@register(P.ChangelogNormalize)
class ChangelogNormalize(Operator):
    stateful = True

    def edges(self, node: P.ChangelogNormalize, streaming: bool) -> list[Edge]:
        return [hash_edge(node.input, node.keys)]

    def changelog(self, node: P.ChangelogNormalize, inputs: list[frozenset]) -> frozenset:
        return ALL_KINDS

    def lower(self, lw, node: P.ChangelogNormalize, child: Lowered) -> Lowered:
        raise UnsupportedError("ChangelogNormalize runs only in streaming mode")

    def lower_epoch(self, lw, node: P.ChangelogNormalize, child: Lowered) -> Lowered:
        if lw.idle(node, (child,), on_watermark=False):
            return lw.nothing(node, updating=True)
        from sqlengine.runtime.streaming.normalize import epoch_normalize
        return epoch_normalize(lw, node, child)
