"""Batch operators: pure functions from input DataFrames (columns ``f0..fn``) to the
output DataFrame (columns ``f0..fn``).

The batch lowering calls them on whole inputs; the epoch runtime
(``runtime/streaming``) calls the same functions on subsets of state (e.g. the
partitions or keys an epoch touched). They read no global state and add no hidden
columns to their output.
"""
