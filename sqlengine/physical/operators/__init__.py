"""One file per physical operator; importing this package registers them all
(``physical/node.register``). A logical node class without an operator here fails at
planning ("No physical operator for ...")."""
from sqlengine.physical.operators import (calc, changelog_normalize, expand, group_aggregate,  # noqa: F401
                                          interval_join, join, over, rank, sink, sort, source, temporal_join,
                                          union, unnest, watermark_assigner, window_aggregate, window_join,
                                          window_table_function)
