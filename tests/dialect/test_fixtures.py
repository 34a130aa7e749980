"""Golden generator fixtures: ``identity.sql`` lines must come back character for character;
each ``normalize.sql`` statement must generate its ``==>`` line, and both must parse to the
same tree. Together they pin Flink's spelling of functions, types, clauses and statements."""
from __future__ import annotations

from pathlib import Path

import pytest

from sqlengine.dialect import generate, parse_script

FIXTURES = Path(__file__).parent / "fixtures"


def _lines(name: str) -> list[str]:
    return [line for line in (FIXTURES / name).read_text().splitlines()
            if line.strip() and not line.startswith("--")]


def _pairs(name: str) -> list[tuple[str, str]]:
    lines = _lines(name)
    assert all(b.startswith("==> ") for b in lines[1::2]), f"{name}: every statement needs a ==> line"
    return [(a, b[4:]) for a, b in zip(lines[::2], lines[1::2])]


def _flat(node) -> str:
    """Generated SQL on one line (statement sets put each INSERT on its own line)."""
    return generate(node).replace("\n", " ")


def _one(sql: str):
    statements = parse_script(sql)
    assert len(statements) == 1, sql
    return statements[0].node


@pytest.mark.parametrize("sql", _lines("identity.sql"))
def test_identity(sql):
    assert _flat(_one(sql)) == sql


@pytest.mark.parametrize("sql,expected", _pairs("normalize.sql"))
def test_normalize(sql, expected):
    node = _one(sql)
    assert _flat(node) == expected
    assert _one(expected) == node
