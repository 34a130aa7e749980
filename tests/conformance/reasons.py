"""The reason sqlengine printed for a rejected case, and Flink's (``expected/ERROR``)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

HEADER = "[ERROR] Could not execute SQL statement. Reason:"


def reason(stderr: str) -> str:
    """The first line of the reason sqlengine printed (the line after the [ERROR] header)."""
    lines = stderr.splitlines()
    return lines[lines.index(HEADER) + 1] if HEADER in lines[:-1] else ""


def expected_error(expected: Path) -> Optional[str]:
    """The first line of Flink's root cause message, for a case Flink rejects."""
    path = expected / "ERROR"
    return path.read_text().splitlines()[0] if path.exists() else None
