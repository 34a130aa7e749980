"""Values that change every epoch (watermarks, processing time), kept out of Spark's code.

Spark writes a BIGINT literal into the Java source it generates for a stage
(``filter_value_3 > 1700003294353L``), and caches the compiled classes by that text: an
epoch lowers the same operators over a new watermark, so each of its watermark
comparisons made Spark compile its stages anew (Janino), and the JVM compile them
again (C1, then C2 for the hot ones): in a dump of q8's generated code at 10M events,
a third of the classes differed from another only by a watermark.

``varying(value, anchor)`` is the value as a column whose code is the same for every
value: the value sits in a one-element array literal, which Spark's code passes by
reference (``references[i]``), and is read with ``element_at``. A literal-only
expression would be folded back into a BIGINT literal by the optimizer
(``ConstantFolding``), so the array is chosen by a condition on a column of the rows
(``anchor``) that no rule can decide: ``anchor % 2 = 2``, never true (NULL when the
anchor is NULL), with the same value in both arrays, so the result is always
``value``. Each row pays a remainder and an array read; no stage is compiled twice.
What Spark cannot see through is lost: a filter against it is not pushed into a file
scan, nor used to skip cached batches (state and epoch inputs are read whole anyway).
"""
from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F


def varying(value: int, anchor: Column) -> Column:
    """``value`` (BIGINT) as a column of the rows ``anchor`` (a numeric column of them)
    belongs to, outside the generated code (see the module docstring)."""
    one = F.array(F.lit(value).cast("long"))
    other = F.array(F.lit(value).cast("long"), F.lit(0).cast("long"))
    return F.element_at(F.when(anchor % F.lit(2) == F.lit(2), other).otherwise(one), 1)


def unanchored(value: int) -> Column:
    """``varying`` where no column of the rows is at hand, or every one is a constant (a
    processing-time attribute is ``current_timestamp()``, which Spark writes into each job's
    code as a literal, and a remainder of it folds like one): anchored on the task's
    partition id, never NULL. ``spark_partition_id`` is nondeterministic to Spark, so a
    filter on the value stays where it is written."""
    return varying(value, F.spark_partition_id())


def above(x: Column, value: int) -> Column:
    """``x > value``, ``value`` outside the generated code (``x`` anchors it)."""
    return x > varying(value, x)


def at_most(x: Column, value: int) -> Column:
    """``x <= value``, ``value`` outside the generated code."""
    return x <= varying(value, x)


def at_least(x: Column, value: int) -> Column:
    """``x >= value``, ``value`` outside the generated code."""
    return x >= varying(value, x)
