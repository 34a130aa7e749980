"""Count (and optionally check) the statements of the Flink SQL corpus in this folder.

File format (see README.md):
  * ``*.sql`` except ``statement_sets.sql``: every statement is preceded by a
    ``-- source: ...`` comment line and ends with ``;`` at the end of its last line.
    Comment and blank lines between statements are ignored; a statement starts at the
    first non-blank, non-comment line after its ``-- source:`` line and ends at the
    first line whose text (trailing whitespace ignored) ends with ``;``.
  * ``statement_sets.sql``: blocks separated by lines containing only ``-- next``;
    each block holds one ``-- source:`` line and one ``EXECUTE STATEMENT SET`` /
    ``EXPLAIN STATEMENT SET`` statement whose inner INSERTs also end with ``;``.

Usage:
  python count.py            # statements per file and the total
  python count.py --check    # additionally verify the format (exit status 1 on problems)
  python count.py --list F   # print the statements of file F, separated by blank lines
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
STATEMENT_SETS = "statement_sets.sql"


def parse_file(path: Path) -> list[tuple[str, str]]:
    """Return ``[(source, statement_text), ...]`` for one corpus file."""
    lines = path.read_text(encoding="utf-8").split("\n")
    if path.name == STATEMENT_SETS:
        return _parse_blocks(lines)
    result: list[tuple[str, str]] = []
    source: str | None = None
    current: list[str] | None = None
    for line in lines:
        if current is None:
            stripped = line.strip()
            if stripped.startswith("-- source:"):
                source = stripped[len("-- source:"):].strip()
                continue
            if not stripped or stripped.startswith("--"):
                continue
            current = []
        current.append(line)
        if line.rstrip().endswith(";"):
            result.append((source or "", "\n".join(current)))
            source, current = None, None
    if current is not None:
        raise ValueError(f"{path.name}: unterminated statement: {current[:3]}")
    return result


def _parse_blocks(lines: list[str]) -> list[tuple[str, str]]:
    blocks: list[list[str]] = [[]]
    for line in lines:
        if line.strip() == "-- next":
            blocks.append([])
        else:
            blocks[-1].append(line)
    result = []
    for block in blocks:
        source = ""
        body: list[str] = []
        for line in block:
            stripped = line.strip()
            if not body and (not stripped or stripped.startswith("--")):
                if stripped.startswith("-- source:"):
                    source = stripped[len("-- source:"):].strip()
                continue
            body.append(line)
        while body and not body[-1].strip():
            body.pop()
        if body:
            result.append((source, "\n".join(body)))
    return result


def top_level_semicolons(sql: str) -> list[int]:
    """Offsets of ';' outside string literals, quoted identifiers and comments."""
    offsets, state, i, n = [], None, 0, len(sql)
    while i < n:
        c = sql[i]
        if state is None:
            if c in "'`\"":
                state = c
            elif sql.startswith("--", i):
                state = "--"
            elif sql.startswith("/*", i):
                state = "/*"
                i += 1
            elif c == ";":
                offsets.append(i)
        elif state in ("'", "`", '"'):
            if c == state:
                if i + 1 < n and sql[i + 1] == state:
                    i += 1
                else:
                    state = None
        elif state == "--":
            if c == "\n":
                state = None
        elif state == "/*" and sql.startswith("*/", i):
            state = None
            i += 1
        i += 1
    return offsets


def check(path: Path, statements: list[tuple[str, str]]) -> list[str]:
    problems = []
    seen: set[str] = set()
    for source, sql in statements:
        head = sql.strip().split("\n")[0][:60]
        if not source:
            problems.append(f"{path.name}: statement without '-- source:' line: {head}")
        if sql in seen:
            problems.append(f"{path.name}: duplicate statement: {head}")
        seen.add(sql)
        semis = top_level_semicolons(sql)
        if not semis or semis[-1] != len(sql.rstrip()) - 1:
            problems.append(f"{path.name}: statement does not end with a top-level ';': {head}")
        if path.name != STATEMENT_SETS and len(semis) != 1:
            problems.append(f"{path.name}: {len(semis)} top-level ';' in one statement: {head}")
        if path.name == STATEMENT_SETS and not re.match(
            r"(?is)^\s*(EXECUTE|EXPLAIN)\s+STATEMENT\s+SET\s+BEGIN\b.*\bEND\s*;\s*$", sql
        ):
            problems.append(f"{path.name}: block is not a STATEMENT SET: {head}")
    return problems


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "--list":
        for _, sql in parse_file(HERE / argv[1]):
            print(sql)
            print()
        return 0
    do_check = "--check" in argv
    files = sorted(HERE.glob("*.sql"))
    total = 0
    unique: set[str] = set()
    problems: list[str] = []
    width = max(len(f.name) for f in files)
    for f in files:
        statements = parse_file(f)
        total += len(statements)
        unique.update(sql for _, sql in statements)
        print(f"{f.name:<{width}}  {len(statements):4d}")
        if do_check:
            problems += check(f, statements)
    print(f"{'TOTAL':<{width}}  {total:4d}")
    print(f"{'distinct across files':<{width}}  {len(unique):4d}")
    if do_check:
        for p in problems:
            print("PROBLEM:", p)
        print("check:", "OK" if not problems else f"{len(problems)} problem(s)")
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
