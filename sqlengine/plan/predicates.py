"""The forms in which a connector gets the rows a scan's job uses (``ScanContext.filter``
and ``tops``; sqlengine/plan/pushdown.py derives them, connectors/predicate.py evaluates
them with Arrow), and the rule that weakens a condition.

The form, JSON-serializable (it travels in a Python data source's options):

* ``["and", p, q, ...]``, ``["or", p, q, ...]``, ``["not", p]``;
* ``["cmp", op, path, value]``: ``op`` one of ``= <> < <= > >=``, ``value`` an integer, a
  string or a boolean of the column's own kind (an INT column and an integer; no
  conversion);
* ``["null", path]``, ``["notnull", path]``;

where ``path`` is a column's name, then ROW member names (``["?"]``: a part with no such
form, which ``restrict`` takes out). Its truth is SQL's three-valued logic; a row is used
only where the condition is TRUE (not FALSE, not NULL).

The *tops* beside it (``ScanContext.tops``) are values in this form:

* ``["path", path]``: a TIMESTAMP or integer column or member;
* ``["case", cond, value, cond, value, ..., else]``: SQL's searched CASE (conditions in
  the form above, exact; without the ``else`` it is NULL), as a computed rowtime column is.

Per split and batch read, a row with the largest non-NULL value of each top is used too,
whatever the condition: a watermark is the largest event time per split.
"""
from __future__ import annotations

from typing import Callable, Optional

Predicate = list  # the form above


def restrict(pred: Optional[Predicate], usable: Callable[[list], bool]) -> Optional[Predicate]:
    """``pred`` without the conditions on paths ``usable`` rejects, made weaker (never
    stronger: every row meeting ``pred`` meets the result); None: every row meets it."""
    return None if pred is None else _restrict(pred, usable)[0]


def _restrict(p: Predicate, usable) -> tuple[Optional[Predicate], bool]:
    """(the weaker condition or None for TRUE, whether it is exactly ``p``)."""
    op = p[0]
    if op in ("and", "or"):
        parts = [_restrict(q, usable) for q in p[1:]]
        exact = all(e for _, e in parts)
        kept = [q for q, _ in parts if q is not None]
        if op == "or" and len(kept) < len(parts):
            return None, False  # one side may be anything: so may the whole
        if not kept:
            return None, False
        return (kept[0] if len(kept) == 1 else [op, *kept]), exact
    if op == "not":
        inner, exact = _restrict(p[1], usable)
        return (["not", inner], True) if exact and inner is not None else (None, False)
    if op == "?":
        return None, False
    path = p[2] if op == "cmp" else p[1]
    return (p, True) if usable(path) else (None, False)


def paths(pred: Optional[Predicate]) -> list[list]:
    """The paths a condition or a value reads."""
    if pred is None:
        return []
    if pred[0] in ("and", "or", "not", "case"):
        return [x for q in pred[1:] for x in paths(q)]
    return [pred[2] if pred[0] == "cmp" else pred[1]]
