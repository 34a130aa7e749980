"""The public registry of Flink built-in functions (see ``base`` for the contract).

Importing this module registers every function module; the binder looks functions
up by canonical upper-case name and the runtime lowers them to Spark expressions.
"""
from __future__ import annotations

from typing import Optional

from . import (aggregates, arrays, conditional, constructors, numeric, operators,  # noqa: F401
               strings, strings_format, strings_regex, temporal)
from .base import (AGGREGATES, SCALARS, AggregateFunction, Arg, LowerContext, to_arg,
                   ScalarFunction)
from .casts import cast_allowed, cast_error, coerce, lower_cast
from .constructors import row_type


def lookup_scalar(name: str) -> Optional[ScalarFunction]:
    """The scalar function or operator registered under ``name`` (case-insensitive)."""
    return SCALARS.get(name.upper())


def lookup_aggregate(name: str) -> Optional[AggregateFunction]:
    """The aggregate function registered under ``name`` (case-insensitive)."""
    return AGGREGATES.get(name.upper())


__all__ = [
    "AGGREGATES", "SCALARS", "AggregateFunction", "Arg", "LowerContext", "ScalarFunction",
    "cast_allowed", "cast_error", "coerce", "lookup_aggregate", "lookup_scalar", "lower_cast",
    "row_type",
]
