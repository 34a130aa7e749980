"""Transcripts of SQL Client sessions: scripts split into statements, recorded transcripts
read and written, and two transcripts compared statement by statement.

A transcript file holds one block per statement, as the SQL Client shows it::

    Flink SQL> SHOW TABLES;
    +------------+
    | table name |
    ...

The statement's first line follows ``Flink SQL> ``, its further lines follow ``> `` (the
client's continuation prompt); the output runs to the next ``Flink SQL> ``. Nothing here
imports sqlengine or PyFlink: the recorder (record.py) runs it next to Flink, the test next
to sqlengine.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

PROMPT = "Flink SQL> "
CONTINUATION = "> "
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
TIME_COST = re.compile(r" \(\d+(\.\d+)? seconds\)$")
JOB_ID = re.compile(r"^Job ID: [0-9a-f]+$")
JAVA_CLASS = re.compile(r"^\s*(?:[\w$]+\.)+[\w$]*(?:Exception|Error|Throwable)[\w$]*:\s*")
# Flink prints the root cause's message; sqlengine the wrapping one's, which Flink's words begin:
WRAPPERS = re.compile(r"^(SQL parse failed\. |Could not execute \w+ in path (`[^`]*`\.?)+: )")


@dataclass(frozen=True)
class Block:
    statement: str  # without the closing ';'
    output: str


def split_script(text: str) -> list[str]:
    """The statements of a script as the SQL Client submits them: the text between ``;``
    outside quotes and comments, stripped, comment lines before a statement dropped.
    ``BEGIN STATEMENT SET;`` and ``END;`` are statements of their own (as the client
    runs them); ``EXECUTE STATEMENT SET BEGIN ... END;`` is one statement."""
    out, cur, i, n = [], [], 0, len(text)
    depth_begin = False  # inside EXECUTE STATEMENT SET BEGIN ... END
    while i < n:
        c = text[i]
        if c in "'\"`":
            j = i + 1
            while j < n:
                if text[j] == c:
                    if j + 1 < n and text[j + 1] == c:
                        j += 2
                        continue
                    break
                j += 1
            cur.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("--", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            cur.append(text[i:j])
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            cur.append(text[i:j])
            i = j
        elif c == ";":
            stmt = _strip_comments_before("".join(cur))
            words = " ".join(stmt.upper().split())
            if words.startswith(("EXECUTE ", "EXPLAIN ", "COMPILE ")) and "STATEMENT SET BEGIN" in words:
                depth_begin = True
            if depth_begin and not words.endswith("END"):
                cur.append(";")
                i += 1
                continue
            depth_begin = False
            if stmt:
                out.append(stmt)
            cur = []
            i += 1
        else:
            cur.append(c)
            i += 1
    rest = _strip_comments_before("".join(cur))
    if rest:
        out.append(rest)
    return out


def _strip_comments_before(stmt: str) -> str:
    lines = stmt.strip().splitlines()
    while lines and (not lines[0].strip() or lines[0].strip().startswith("--")):
        lines.pop(0)
    return "\n".join(lines).strip()


def format_transcript(blocks: list[Block]) -> str:
    parts = []
    for b in blocks:
        first, *more = (b.statement + ";").split("\n")
        head = [PROMPT + first] + [CONTINUATION + m for m in more]
        parts.append("\n".join(head) + "\n" + b.output.rstrip("\n") + "\n")
    return "".join(parts)


def parse_transcript(text: str, statements: list[str]) -> list[Block]:
    """Blocks of a transcript file; ``statements`` (the script's) tell how many lines each
    statement has."""
    lines = text.split("\n")
    blocks, i = [], 0
    for stmt in statements:
        count = stmt.count("\n") + 1
        if i >= len(lines) or not lines[i].startswith(PROMPT):
            raise ValueError(f"transcript line {i + 1}: expected '{PROMPT}{stmt.splitlines()[0]}'")
        i += count
        out = []
        while i < len(lines) and not lines[i].startswith(PROMPT):
            out.append(lines[i])
            i += 1
        blocks.append(Block(stmt, "\n".join(out).rstrip("\n")))
    return blocks


def strip_echo(block: str, statement: str) -> str:
    """Flink's client, on a dumb terminal, repeats a statement that wrapped (or had several
    lines) before its output: from its start, or from its second line on (after a line
    break), continuation lines behind ``> ``, sometimes cut short. Drop the longest start
    of ``block`` that is such an echo."""
    best = 0
    starts = [0] + [k + 1 for k, ch in enumerate(statement) if ch == "\n"]
    for start in starts:
        i = 1 if start and block.startswith("\n") else 0
        if start and block.startswith("> ", i):
            i += 2
        best = max(best, _echo_length(block, i, statement, start))
    return block[best:] if best > 8 else block  # a few matching letters are no echo


def _echo_length(block: str, i: int, statement: str, j: int) -> int:
    while i < len(block) and j < len(statement):
        if statement[j] == "\n" and block.startswith("\n> ", i):
            i, j = i + 3, j + 1
        elif block[i] == statement[j]:
            i, j = i + 1, j + 1
        else:
            break
    return i


# -- comparison --------------------------------------------------------------------------------
AST_HEADER = "== Abstract Syntax Tree =="


def ast_section(lines: list[str]) -> list[str]:
    """An EXPLAIN's "Abstract Syntax Tree" section, line by line: the only part of a plan
    compared (the optimized plans are each engine's own: Flink's optimizer against
    sqlengine's operator DAG, with its tasks and exchanges). Flink's client prints the plan
    as the one cell of a ``result`` table, sqlengine's as text: the framing is not compared."""
    start = next(i for i, line in enumerate(lines) if AST_HEADER in line)
    section = [AST_HEADER]
    for line in lines[start + 1:]:
        if line.startswith("== "):
            break
        if line.strip():
            section.append(line)
    return section


def canonical(output: str) -> list[str]:
    """The output as lines to compare: colours, time costs and trailing blanks gone, each
    table line as its stripped cells joined by ``|``, an [ERROR]'s reason as its first line
    without a Java class name (everything after it — Flink's 'Was expecting' lists, our
    caret and log path — is no part of the comparison)."""
    lines = [ANSI.sub("", line).rstrip() for line in output.strip("\n").split("\n")]
    if any(AST_HEADER in line for line in lines):
        return ast_section(lines)
    out: list[str] = []
    k = 0
    while k < len(lines):
        line = lines[k]
        if line.startswith("[ERROR]"):
            out.append(line)
            reason = next((l for l in lines[k + 1:] if l.strip()), "")
            out.append(WRAPPERS.sub("", JAVA_CLASS.sub("", reason).strip()))
            break
        if line.startswith("|"):
            out.append("|".join(c.strip() for c in line.strip("|").split("|")))
        elif line.startswith("+-"):
            pass  # borders: cell widths are the cells' business
        elif line.startswith("[WARNING]"):
            pass  # sqlengine's own line for a SET key it does not use (issue 25 asks for it)
        elif line.strip():
            out.append(JOB_ID.sub("Job ID: <id>", TIME_COST.sub("", line)))
        k += 1
    return out


def first_difference(expected: str, actual: str) -> Optional[str]:
    """None when the outputs agree, else a short description of the first difference."""
    want, got = canonical(expected), canonical(actual)
    for idx, (w, g) in enumerate(zip(want, got)):
        if w != g:
            return f"line {idx + 1}: Flink {w!r}, sqlengine {g!r}"
    if len(want) != len(got):
        extra = (want if len(want) > len(got) else got)[min(len(want), len(got))]
        who = "Flink" if len(want) > len(got) else "sqlengine"
        return f"only {who} has line {min(len(want), len(got)) + 1}: {extra!r}"
    return None
