"""Unbounded streaming GROUP BY producing a changelog (+I/-U/+U)."""
from __future__ import annotations

from sqlengine.errors import UnsupportedError


def lower_group_aggregate(lw, node, child):
    raise UnsupportedError("Unbounded streaming GROUP BY is not supported yet; "
                           "SET 'execution.runtime-mode' = 'batch' or use a window aggregation")
