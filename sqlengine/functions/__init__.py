"""Flink SQL built-in functions and operators: Flink type inference plus lowering to
native Spark expressions. Start at ``registry``."""
from .registry import (AGGREGATES, SCALARS, AggregateFunction, Arg, LowerContext,  # noqa: F401
                       ScalarFunction, cast_allowed, cast_error, coerce, lookup_aggregate,
                       lookup_scalar, lower_cast, row_type, to_arg)
