"""Evaluating, with Arrow, the rows a scan's job uses (``ScanContext.filter`` and
``tops``), in sqlengine/plan/predicates.py's forms.

A connector *may* drop the rows that do not meet the condition, never must: the engine
applies its filters above the scan all the same. So a connector drops a row only where
that changes no answer and no error: a row whose reading could still fail later (in
Spark's conversions) is kept, as Flink's scans decode every record whatever the query's
filters.
"""
from __future__ import annotations

from typing import Callable

from sqlengine.plan.predicates import Predicate, paths, restrict  # noqa: F401 - the forms' helpers


def arrow_values(value: list, column: Callable[[list], object]):
    """A value form's values, as an Arrow array (``column`` as for ``arrow_mask``)."""
    import pyarrow.compute as pc
    if value[0] == "path":
        return column(value[1])
    parts = value[1:]
    conds = [arrow_mask(c, column) for c in parts[0:len(parts) - 1:2]]
    values = [arrow_values(v, column) for v in parts[1::2]]
    if len(parts) % 2:
        values.append(arrow_values(parts[-1], column))
    # (a NULL condition is not TRUE: Arrow's case_when takes it as false, as SQL's CASE)
    return pc.case_when(pc.make_struct(*conds, field_names=[str(i) for i in range(len(conds))]), *values)


def top_rows(tops: list, column: Callable[[list], object], splits=None):
    """A numpy mask of one row per split (``splits``: each row's split number; None: one
    split) with the largest non-NULL value of each of ``tops``."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    keep = None
    for top in tops:
        values = arrow_values(top, column)
        if keep is None:
            keep = np.zeros(len(values), np.bool_)
        if pa.types.is_timestamp(values.type):
            values = values.cast(pa.int64())
        valid = np.flatnonzero(pc.is_valid(values).to_numpy(zero_copy_only=False))
        if not len(valid):
            continue
        x = values.fill_null(0).to_numpy(zero_copy_only=False)[valid]
        s = np.zeros(len(valid), np.int64) if splits is None else np.asarray(splits)[valid]
        order = np.lexsort((x, s))  # by split, then value: each split's last is its largest
        ordered = s[order]
        last = np.append(np.flatnonzero(ordered[1:] != ordered[:-1]), len(order) - 1)
        keep[valid[order[last]]] = True
    return keep


def arrow_mask(pred: Predicate, column: Callable[[list], object]):
    """Where ``pred`` is TRUE, as an Arrow boolean array (NULL where it is NULL): the
    rows' values at a path come from ``column`` (an Arrow array). Kleene logic, as SQL's."""
    import pyarrow as pa
    import pyarrow.compute as pc
    op = pred[0]
    if op == "and":
        out = arrow_mask(pred[1], column)
        for q in pred[2:]:
            out = pc.and_kleene(out, arrow_mask(q, column))
        return out
    if op == "or":
        out = arrow_mask(pred[1], column)
        for q in pred[2:]:
            out = pc.or_kleene(out, arrow_mask(q, column))
        return out
    if op == "not":
        return pc.invert(arrow_mask(pred[1], column))
    if op == "null":
        return pc.is_null(column(pred[1]))
    if op == "notnull":
        return pc.is_valid(column(pred[1]))
    _, cmp, path, value = pred
    values = column(path)
    if pa.types.is_integer(values.type) and not isinstance(value, bool):
        values = values.cast(pa.int64())  # the value may lie outside the column's range
    scalar = pa.scalar(value, values.type)
    fn = {"=": pc.equal, "<>": pc.not_equal, "<": pc.less, "<=": pc.less_equal, ">": pc.greater,
          ">=": pc.greater_equal}[cmp]
    return fn(values, scalar)
