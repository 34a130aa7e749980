"""Small value types shared by the format decoders."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import reduce
from typing import Union

from pyspark.sql import Column
from pyspark.sql import functions as F

Flag = Union[Column, bool]  # a static False avoids building always-false expressions


@dataclass(frozen=True)
class Leaf:
    """A converted value and whether its conversion failed."""

    value: Column
    bad: Flag


@dataclass(frozen=True)
class Decoded:
    """What a format decoder produces for one line.

    ``bad``: true = malformed, false = good, NULL = skip silently (blank/comment).
    ``reason``: a short text saying why a line is bad (for error messages).
    ``may_skip``: whether ``bad`` can be NULL for a non-null line.
    ``prelude``: columns the connector must add in a projection of their own before
    selecting the others (``df.select("*", *prelude)``), which refer to them by name:
    what the others use many times is computed once that way (see json.py).
    """

    columns: list[Column]
    bad: Column
    reason: Column
    may_skip: bool = False
    prelude: list[Column] = field(default_factory=list)


def any_true(flags: list[Flag]) -> Flag:
    """OR of the flags; the Python value False when none can be true."""
    cols = [f for f in flags if not isinstance(f, bool)]
    if any(f is True for f in flags):
        return True
    if not cols:
        return False
    return reduce(lambda a, b: a | b, [F.coalesce(c, F.lit(False)) for c in cols])


def pick(cond: Column, a: Flag, b: Flag) -> Flag:
    """``a`` where ``cond`` else ``b``, staying static when both are static and equal."""
    if isinstance(a, bool) and isinstance(b, bool) and a == b:
        return a
    return F.when(cond, _col(a)).otherwise(_col(b))


def as_column(f: Flag) -> Column:
    return _col(f)


def _col(f: Flag) -> Column:
    return F.lit(f) if isinstance(f, bool) else f
