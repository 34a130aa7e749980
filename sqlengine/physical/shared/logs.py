"""Multiset logs: an operator's state as a chain of netted deltas, compacted into a
snapshot every few epochs."""
from __future__ import annotations

from typing import Optional

from pyspark.sql import Column, DataFrame

from sqlengine.runtime.delta import net
from sqlengine.runtime.state import COMPACT_EVERY, Table


def append_log(table: Table, epoch: int, delta: DataFrame, cols: list[str],
               keep: Optional[Column] = None) -> None:
    """Add a netted delta to a multiset log; every few epochs compact it into a snapshot
    (of the rows that satisfy ``keep``: what an operator can still need)."""
    if table.chain_length(epoch) >= COMPACT_EVERY:
        rows = net(table.read(epoch).unionByName(delta), cols)
        table.write(epoch, rows if keep is None else rows.where(keep), snapshot=True)
    else:
        table.write(epoch, delta, snapshot=False)
