"""Java datetime patterns (Flink's DATE_FORMAT, TO_TIMESTAMP, ...) as Spark patterns.

Flink formats TIMESTAMPs with ``java.time.DateTimeFormatter`` and parses/format
strings with ``SimpleDateFormat``; Spark's patterns are DateTimeFormatter's minus a
few letters. Common letters pass through unchanged; ``u`` (year in
DateTimeFormatter) becomes ``y``; letters Spark cannot format are rejected loudly
instead of producing different text.
"""
from __future__ import annotations

from sqlengine.errors import UnsupportedError

# Letters Spark's formatter accepts with the same meaning as Java's.
_SAME = set("GyDMLdQqEaHhKkmsSVzOXxZFn")
_UNSUPPORTED = {
    "Y": "week-based year", "w": "week of year", "W": "week of month",
    "e": "localized day of week", "c": "localized day of week", "A": "milli of day",
    "N": "nano of day", "B": "period of day", "g": "modified julian day",
}


def to_spark_pattern(pattern: str, simple_date_format: bool = False) -> str:
    """Translate a Java pattern; ``simple_date_format`` selects SimpleDateFormat's letters."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "'":
            end = pattern.find("'", i + 1)
            end = len(pattern) - 1 if end < 0 else end
            out.append(pattern[i:end + 1])
            i = end + 1
            continue
        if c.isalpha():
            j = i
            while j < len(pattern) and pattern[j] == c:
                j += 1
            out.append(_letter(c, j - i, simple_date_format, pattern))
            i = j
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _letter(c: str, count: int, sdf: bool, pattern: str) -> str:
    if c == "u" and not sdf:
        return "y" * count
    if c == "u" and sdf:
        raise UnsupportedError(
            f"Pattern letter 'u' (day number of week) in '{pattern}' is not supported")
    if c in _UNSUPPORTED:
        raise UnsupportedError(
            f"Pattern letter '{c}' ({_UNSUPPORTED[c]}) in '{pattern}' is not supported")
    if c not in _SAME:
        raise UnsupportedError(f"Unknown pattern letter '{c}' in '{pattern}'")
    if c == "S" and sdf and count < 3:
        count = 3  # SimpleDateFormat's S is milliseconds, not a fraction
    return c * count
