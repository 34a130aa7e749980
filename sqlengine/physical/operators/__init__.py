"""The physical operators, one package each; this module is their one registry.

Importing it registers every operator (``physical/operator.register``); a logical node
class without an operator fails at planning ("No physical operator for ...").
"""
from __future__ import annotations

from sqlengine.errors import UnsupportedError
from sqlengine.physical.operator import OPERATORS, Operator
from sqlengine.physical.operators import (calc, changelog_normalize, expand, group_aggregate,  # noqa: F401
                                          interval_join, join, match, over, rank, sink, sort, source, temporal_join,
                                          union, unnest, values, watermark_assigner, window_aggregate,
                                          window_join, window_table_function)
from sqlengine.plan import nodes as P


def operator_for(node: P.Node) -> Operator:
    """The operator that runs ``node``."""
    op = OPERATORS.get(type(node))
    if op is None:
        raise UnsupportedError(f"No physical operator for {type(node).__name__}")
    return op
