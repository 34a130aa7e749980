"""The Flink SQL client's "tableau" rendering (a port of Flink's ``TableauStyle``).

Flink right-aligns every cell, pads to the widest cell of the column (capped at a
maximum width, beyond which a cell is cut and ends in ``...``), counts East Asian wide
characters as two columns, and finishes with ``N rows in set`` (``1 row in set``), or
prints only ``Empty set``. Three uses, three defaults, as in Flink:

* SHOW / DESCRIBE results (:func:`render_show_result`): no width limit, NULL as empty.
* batch query results (:func:`render_tableau`): NULL as ``<NULL>``, width limit
  ``sql-client.display.max-column-width`` (30) in the SQL client.
* streaming query results: an ``op`` column with the row kind, column widths taken from
  the types up front (rows are printed as they arrive) and ``Received a total of N rows``
  at the end; built from :func:`column_widths_by_type`, :func:`changelog_header`,
  :func:`tableau_row` and :func:`changelog_footer`.

Every function returns text without a trailing newline: ``print()`` it.
"""
from __future__ import annotations

import unicodedata
from typing import Optional, Sequence

from sqlengine.types import DataType

NULL_VALUE = "<NULL>"
TRUNCATED = "..."
ROW_KIND_COLUMN = "op"
DEFAULT_MAX_COLUMN_WIDTH = 30
Cell = Optional[str]


def render_tableau(header: Sequence[str], rows: Sequence[Sequence[Cell]], *,
                   max_column_width: Optional[int] = None,
                   null_as_empty: bool = False) -> str:
    """A whole result as Flink's tableau text (cells must already be Flink-formatted
    strings; None is NULL)."""
    if not rows:
        return "Empty set"
    cells = [[_cell(v, null_as_empty) for v in row] for row in rows]
    widths = _widths_by_content(list(header), cells, max_column_width)
    border = border_line(widths)
    lines = [border, tableau_row(header, widths), border]
    lines += [tableau_row(row, widths) for row in cells]
    lines += [border, f"{len(rows)} {'rows' if len(rows) > 1 else 'row'} in set"]
    return "\n".join(lines)


def render_show_result(header: Sequence[str], rows: Sequence[Sequence[Cell]]) -> str:
    """SHOW / DESCRIBE output as the SQL client prints it (NULL as empty, no width cap)."""
    return render_tableau(header, rows, null_as_empty=True)


def border_line(widths: Sequence[int]) -> str:
    return "+" + "".join("-" * (w + 2) + "+" for w in widths)


def tableau_row(cells: Sequence[Cell], widths: Sequence[int]) -> str:
    """One ``| a | b |`` line; cells right-aligned, too-long cells cut with ``...``."""
    parts = []
    for cell, width in zip(cells, widths):
        text = NULL_VALUE if cell is None else cell
        shown = display_width(text)
        if shown <= width:
            parts.append(" " * (width - shown) + text)
        else:
            parts.append(_truncate(text, width - len(TRUNCATED)) + TRUNCATED)
    return "|" + "".join(f" {p} |" for p in parts)


def changelog_header(names: Sequence[str], widths: Sequence[int]) -> str:
    """Start of a streaming result: border, ``| op | a | b |``, border."""
    border = border_line(widths)
    return "\n".join([border, tableau_row([ROW_KIND_COLUMN, *names], widths), border])


def changelog_footer(count: int, widths: Sequence[int]) -> str:
    """End of a streaming result: closing border (if any row was printed) and the total."""
    total = f"Received a total of {count} {'rows' if count > 1 else 'row'}"
    return border_line(widths) + "\n" + total if count > 0 else total


def column_widths_by_type(names: Sequence[str], types: Sequence[DataType], *,
                          max_column_width: int = DEFAULT_MAX_COLUMN_WIDTH,
                          null_as_empty: bool = False, with_row_kind: bool = True) -> list[int]:
    """Widths decided before any row is seen (Flink's ``columnWidthsByType``)."""
    widths = []
    for name, t in zip(names, types):
        width = _type_width(t, max_column_width)
        if not null_as_empty:
            width = max(width, len(NULL_VALUE))
        widths.append(max(len(name), width))
    return ([len(ROW_KIND_COLUMN)] if with_row_kind else []) + widths


def display_width(text: str) -> int:
    """Terminal columns of ``text`` as Flink counts them: UTF-16 length plus one for each
    East Asian wide/full-width character."""
    utf16 = len(text.encode("utf-16-le")) // 2
    return utf16 + sum(1 for ch in text if _is_wide(ch))


# -- helpers ----------------------------------------------------------------------
def _cell(value: object, null_as_empty: bool) -> Cell:
    if value is None:
        return "" if null_as_empty else NULL_VALUE
    if not isinstance(value, str):
        raise TypeError(f"tableau cells must be strings formatted the Flink way (or None), "
                        f"got {type(value).__name__}: {value!r}")
    return value


def _widths_by_content(header: list[str], rows: list[list[Cell]],
                       max_column_width: Optional[int]) -> list[int]:
    widths = [len(h) for h in header]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], display_width(cell or ""))
    if max_column_width is not None:
        widths = [min(w, max_column_width) for w in widths]
    return widths


def _truncate(text: str, target: int) -> str:
    """Longest prefix that fits ``target`` columns, left-padded to exactly ``target``."""
    passed, end = 0, 0
    for end, ch in enumerate(text):
        passed += 2 if _is_wide(ch) else 1
        if passed > target:
            break
    else:
        end = len(text)
    prefix = text[:end]
    return " " * max(0, target - display_width(prefix)) + prefix


def _is_wide(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in ("W", "F")


def _timestamp_width(precision: int) -> int:
    base = 19  # yyyy-MM-dd HH:mm:ss
    if precision == 0:
        return base
    return base + (4 if precision <= 3 else 7 if precision <= 6 else 10)


_FIXED_WIDTHS = {"TINYINT": 4, "SMALLINT": 6, "INT": 11, "BIGINT": 20, "BOOLEAN": 5, "DATE": 10}


def _type_width(t: DataType, max_column_width: int) -> int:
    if t.root in _FIXED_WIDTHS:
        return _FIXED_WIDTHS[t.root]
    if t.root == "DECIMAL":
        return (t.precision if t.precision is not None else 10) + 2
    if t.root == "TIME":
        p = t.precision or 0
        return 8 if p == 0 else p + 9
    if t.root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return _timestamp_width(t.precision if t.precision is not None else 6)
    return max_column_width
