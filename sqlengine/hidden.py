"""The hidden columns that travel beside a row's values through a job, and the flags that
say which of them a lowered frame carries: the one place that defines them.

Every lowered frame has the node's columns by position (``f0..fn``). Beside them, a
frame may carry hidden columns; which ones is recorded on the frame (``Lowered``), so no
code needs to ask Spark for a frame's schema to know its protocol:

========  ==========  ================================================================
flag      column      meaning
========  ==========  ================================================================
eoi       ``__eoi``   the end-of-input row a bounded source appends in streaming mode
                      (every other column null); it passes every operator up to where
                      it is consumed (``drop_eoi``)
rt        ``__rt``    a row's event time once past a watermark assigner
updating  ``__op``    the row kind of an updating changelog: ``+I -U +U -D``
split     ``__split`` the source split of a row (INT: a Kafka partition's position
                      among the epoch's, ``ScanResult.splits``), up to its
                      watermark assigner (per-split watermarks)
========  ==========  ================================================================

Inside a stateful operator, behind its hash exchange, every frame also carries
``__task``: the task (a key-group range) the exchange routed the row to; the operator
keeps it among its keys so that Spark never moves the rows again, and drops it from its
output (``runtime/keygroups.py``). Columns that never leave one module are not listed.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Final

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

# -- on every lowered frame (see the table above) -------------------------------------
EOI: Final = "__eoi"
RT: Final = "__rt"
OP: Final = "__op"
SPLIT: Final = "__split"
TASK: Final = "__task"

# -- sources ----------------------------------------------------------------------------
SEQ: Final = "__seq"  # an upsert source's position of a change (orders a key's changes)

# -- the tagged union of several frames (a job's sources, a statement set's sinks) -----
TAG: Final = "__sink"  # which frame a row of the union belongs to
EOI_ANY: Final = "__eoi_any"  # the union's row is a source's end-of-input row

# -- state ------------------------------------------------------------------------------
COUNT: Final = "__n"  # the signed multiplicity of a row in a delta or a multiset
KEY_GROUP: Final = "__kg"  # a state row's key group: pmod(hash(key), max-parallelism)

# Event time of the end-of-input row once past a watermark assigner: later than any row.
MAX_EVENT_TIME: Final = "9000-01-01 00:00:00"


def slot(i: int) -> str:
    """The struct column holding frame ``i``'s row in a tagged union."""
    return f"__s{i}"


def fcol(i: int) -> Column:
    """Column ``i`` of a lowered frame."""
    return F.col(f"f{i}")


def fcols(n: int) -> list[str]:
    """The names of a frame's first ``n`` columns."""
    return [f"f{i}" for i in range(n)]


@dataclass
class Lowered:
    """A node's output as Spark computes it: ``df`` with columns ``f0..fn`` and the hidden
    columns its flags name (the table in the module docstring); ``empty``: known to hold
    no row (an epoch's input that did not change), so an operator may skip its work."""

    df: DataFrame
    eoi: bool = False
    updating: bool = False
    rt: bool = False
    empty: bool = False
    split: bool = False
    # A sink's input watermark after the epoch (possibly lazy), for sinks that read it
    # (``connectors.base.Sink.end_epoch``); None elsewhere.
    wm: Any = None

    def hidden(self) -> list[Column]:
        """The hidden columns, in a fixed order (to carry them through a projection)."""
        return [F.col(c) for c, on in ((EOI, self.eoi), (RT, self.rt), (OP, self.updating),
                                         (SPLIT, self.split)) if on]

    def with_df(self, df: DataFrame) -> "Lowered":
        return replace(self, df=df)


def drop_eoi(low: Lowered) -> Lowered:
    """Remove the end-of-input row.

    Past a watermark the filter references the event time (via ``__rt``): Spark pushes
    any other predicate below EventTimeWatermark, where it would remove the end-of-input
    row before the watermark has seen it.
    """
    if not low.eoi:
        return low
    if low.rt:
        keep = ~(F.col(EOI) & (F.col(RT) >= F.lit(MAX_EVENT_TIME).cast("timestamp")))
        return replace(low, df=low.df.where(keep).drop(EOI, RT), eoi=False, rt=False)
    return replace(low, df=low.df.where(~F.col(EOI)).drop(EOI), eoi=False)
