"""Flink's datetime literals: ``DATE '...'``, ``TIME '...'``, ``TIMESTAMP '...'``.

Calcite checks the text against ``yyyy-MM-dd``, ``HH:mm:ss`` or ``yyyy-MM-dd HH:mm:ss``
(TIME and TIMESTAMP may add a fraction) and types the literal with the precision of the
fraction as written: ``TIMESTAMP '2020-04-15 08:05:00.12'`` is a ``TIMESTAMP(2) NOT NULL``
and prints as ``2020-04-15 08:05:00.12``, where ``CAST('...' AS TIMESTAMP)`` is a
``TIMESTAMP(6)``. The binder turns the literal into a CAST of the checked, zero-padded text
to exactly that type, so it is evaluated by the one CAST lowering.
"""
from __future__ import annotations

import datetime as dt
import re
from typing import Optional

from sqlengine import types as T

_DATE = r"(\d{1,4})-(\d{1,2})-(\d{1,2})"
_TIME = r"(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,9}))?"
_SHAPES = {
    "DATE": (re.compile(_DATE), "yyyy-MM-dd"),
    "TIME": (re.compile(_TIME), "HH:mm:ss"),
    "TIMESTAMP": (re.compile(f"{_DATE} {_TIME}"), "yyyy-MM-dd HH:mm:ss"),
}
# The literal's name in Calcite's message.
_LABELS = {"TIMESTAMP_LTZ": "TIMESTAMP WITH LOCAL TIME ZONE"}


def datetime_literal(root: str, text: str) -> tuple[T.DataType, str]:
    """The type and the normalized text of the literal ``<root> 'text'``; a ``ValueError``
    with Calcite's message when the text is not a valid value of that form."""
    shape, fmt = _SHAPES["TIMESTAMP" if root == "TIMESTAMP_LTZ" else root]
    match = shape.fullmatch(text.strip())
    normalized = _normalize(root, match) if match else None
    if normalized is None:
        label = _LABELS.get(root, root)
        raise ValueError(f"Illegal {label} literal '{text}': not in format '{fmt}'")
    return normalized


def _normalize(root: str, match: re.Match) -> Optional[tuple[T.DataType, str]]:
    groups = match.groups()
    try:
        if root == "DATE":
            return T.DATE(False), _date_text(*groups)
        if root == "TIME":
            return T.TIME(len(groups[3] or ""), False), _time_text(*groups)
        fraction = groups[6] or ""
        text = f"{_date_text(*groups[:3])} {_time_text(*groups[3:])}"
        return T.DataType(root, False, precision=len(fraction)), text
    except ValueError:  # a field out of range, e.g. month 13 or 25:00:00
        return None


def _date_text(year: str, month: str, day: str) -> str:
    return dt.date(int(year), int(month), int(day)).isoformat()


def _time_text(hour: str, minute: str, second: str, fraction: Optional[str]) -> str:
    text = dt.time(int(hour), int(minute), int(second)).isoformat()
    return f"{text}.{fraction}" if fraction else text
