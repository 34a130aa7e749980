"""Test helper: the filesystem tables declared in the conformance cases' ``case.sql``.

A deliberately small reader of ``CREATE TABLE name (...) WITH (...)`` for the types
the corpus uses (physical columns only), so these tests do not depend on the SQL
front end.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from sqlengine import types as T

HERE = Path(__file__).resolve()
CORPUS = [HERE.parents[2] / "conformance" / "flink" / "cases", HERE.parents[4] / "shared" / "conformance" / "cases"]


@dataclass(frozen=True)
class Table:
    case: Path
    name: str
    columns: list[tuple[str, T.DataType]]
    options: dict[str, str]


def cases_dir() -> Path:
    for p in CORPUS:
        if p.is_dir():
            return p
    raise FileNotFoundError("conformance corpus not found")


def tables(case: Path) -> list[Table]:
    sql = re.sub(r"--[^\n]*", "", (case / "case.sql").read_text())
    out = []
    for m in re.finditer(r"CREATE TABLE\s+`?(\w+)`?\s*\(", sql, re.I):
        body, end = _balanced(sql, m.end() - 1)
        w = re.match(r"\s*WITH\s*\(", sql[end:], re.I)
        opts_text, _ = _balanced(sql, end + w.end() - 1)
        options = dict(re.findall(r"'([^']*)'\s*=\s*'([^']*)'", opts_text))
        out.append(Table(case, m.group(1), _columns(body), options))
    return out


def _balanced(text: str, open_at: int) -> tuple[str, int]:
    depth = 0
    for i in range(open_at, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[open_at + 1:i], i + 1
    raise ValueError("unbalanced parentheses")


def _split(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += {"(": 1, "<": 1, ")": -1, ">": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return [p.strip() for p in parts + [cur] if p.strip()]


def _columns(body: str) -> list[tuple[str, T.DataType]]:
    cols = []
    for item in _split(body):
        if re.match(r"(WATERMARK|PRIMARY|CONSTRAINT)\b", item, re.I):
            continue
        name, rest = _name(item)
        if re.match(r"AS\b", rest, re.I):
            continue  # computed column
        cols.append((name, parse_type(rest)))
    return cols


def _name(item: str) -> tuple[str, str]:
    m = re.match(r"`([^`]+)`\s*(.*)", item, re.S) or re.match(r"(\w+)\s*(.*)", item, re.S)
    return m.group(1), m.group(2).strip()


def parse_type(text: str) -> T.DataType:
    text = " ".join(text.split())
    m = re.match(r"(ROW|ARRAY|MAP)\s*<(.*)>$", text, re.I)
    if m:
        kind, inner = m.group(1).upper(), m.group(2)
        if kind == "ROW":
            return T.ROW([(n, parse_type(t)) for n, t in (_name(f) for f in _split(inner))])
        if kind == "ARRAY":
            return T.ARRAY(parse_type(inner))
        k, v = _split(inner)
        return T.MAP(parse_type(k), parse_type(v))
    m = re.match(r"([A-Za-z_ ]+?)\s*(?:\((\d+)(?:\s*,\s*(\d+))?\))?(\s+NOT NULL)?$", text, re.I)
    root, p, s = T.canonical_root(m.group(1)), m.group(2), m.group(3)
    nullable = not m.group(4)
    if root == "VARCHAR":
        return T.VARCHAR(int(p), nullable) if p else T.STRING(nullable)
    if root == "DECIMAL":
        return T.DECIMAL(int(p or 10), int(s or 0), nullable)
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ", "TIME"):
        default = 0 if root == "TIME" else 6
        return T.DataType(root, nullable, precision=int(p) if p else default)
    return T.DataType(root, nullable)
