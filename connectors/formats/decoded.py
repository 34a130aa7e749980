"""Small value types shared by the format decoders."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import reduce
from typing import Callable, Optional, Union

from pyspark.sql import Column
from pyspark.sql import functions as F

Flag = Union[Column, bool]  # a static False avoids building always-false expressions


@dataclass(frozen=True)
class Leaf:
    """A converted value and whether its conversion failed.

    ``source``: when set, ``bad`` is ``source IS NOT NULL AND value IS NULL`` (a parser
    that returns NULL for text it cannot read), so that it can be stated over the value
    bound once (``bad_of``) instead of over a second copy of the conversion."""

    value: Column
    bad: Flag
    source: Optional[Column] = None

    def bad_of(self, value: Column) -> Flag:
        """``bad`` for ``value``, this leaf's value computed elsewhere."""
        if self.source is None:
            return self.bad
        return self.source.isNotNull() & value.isNull()


def let(value: Column, body: Callable[[Column], Column]) -> Column:
    """``body(v)`` with ``v`` bound to ``value`` (computed once), evaluated by Spark's
    interpreter: for paths few rows take (a format's fallback for a rejected line).

    A Column used twice in an expression is two copies of its tree, each evaluated and
    compiled (Spark's common-subexpression elimination skips conditional branches); a
    lambda variable is a real binding. ``transform_values`` is one of Spark's
    higher-order functions without code generation, so the whole body stays out of the
    generated code, which Janino and then HotSpot compile for every query."""
    return F.transform_values(F.create_map(F.lit(0), value), lambda _, v: body(v)).getItem(0)


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
