"""Splitting a Flink SQL script into statements and parsing each with its span.

``EXECUTE STATEMENT SET BEGIN ... END;`` contains semicolons, so statements are cut
from the token stream (not the text), and each statement keeps a ``Span`` into the
whole script for error messages (``line:col``, the line and a caret).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from sqlengine.dialect import nodes as n
from sqlengine.dialect.flink import Flink
from sqlengine.errors import Span, SqlSyntaxError

_DIALECT = Flink()


@dataclass(frozen=True)
class Statement:
    node: exp.Expression
    span: Span

    @property
    def text(self) -> str:
        return self.span.source[self.span.start: self.span.end]


def span_of(node: exp.Expression, source: str) -> Span | None:
    """The span of ``node`` (from position meta of its first positioned descendant)."""
    for sub in node.walk():
        meta = getattr(sub, "_meta", None) or {}
        if "start" in meta:
            return Span(source, meta["start"], meta["end"] + 1)
    return None


def _tokenize(text: str) -> list[Token]:
    try:
        return _DIALECT.tokenize(text)
    except TokenError as err:
        raise SqlSyntaxError(f"SQL parse failed. {err}") from None


def _statements(tokens: list[Token]) -> list[list[Token]]:
    """The tokens between top-level semicolons (the semicolons themselves dropped)."""
    return [tokens[a:b] for a, b in _statement_ranges(tokens)]


def _statement_ranges(tokens: list[Token]) -> list[tuple[int, int]]:
    ranges, start = [], 0
    for i, tok in enumerate(tokens + [Token(TokenType.SEMICOLON, ";")]):
        if tok.token_type == TokenType.SEMICOLON:
            if i > start:
                ranges.append((start, i))
            start = i + 1
    return ranges


def _block_begin(chunk: list[Token]) -> int | None:
    """Index of BEGIN in ``EXECUTE|EXPLAIN [details]|COMPILE [AND EXECUTE] PLAN 'f' FOR
    STATEMENT SET BEGIN ...``, else None."""
    if not chunk or chunk[0].text.upper() not in ("EXECUTE", "EXPLAIN", "COMPILE"):
        return None
    words = [t.text.upper() if t.token_type != TokenType.STRING else "" for t in chunk[:14]]
    for i in range(1, len(words) - 2):
        if words[i: i + 3] == ["STATEMENT", "SET", "BEGIN"]:
            return i + 2
    return None


def _is_client_begin(chunk: list[Token]) -> bool:
    return [t.text.upper() for t in chunk] == ["BEGIN", "STATEMENT", "SET"]


def _is_end(chunk: list[Token]) -> bool:
    return len(chunk) == 1 and chunk[0].token_type == TokenType.END


def _split(tokens: list[Token]) -> list[list[Token]]:
    """Top-level statements. ``EXECUTE|EXPLAIN STATEMENT SET BEGIN ... END`` is one statement
    (inner semicolons kept); so is a client-style ``BEGIN STATEMENT SET; ...; END`` when its
    END follows in the script (otherwise BEGIN and END are statements of their own)."""
    ranges = _statement_ranges(tokens)
    out: list[list[Token]] = []
    i = 0
    while i < len(ranges):
        chunk = tokens[ranges[i][0]: ranges[i][1]]
        end = _statement_set_end(chunk, [tokens[a:b] for a, b in ranges[i + 1:]])
        out.append(chunk if end is None else tokens[ranges[i][0]: ranges[i + end][1]])
        i += 1 if end is None else end + 1
    return out


def _statement_set_end(chunk: list[Token], rest: list[list[Token]]) -> int | None:
    """How many following statements belong to the statement set ``chunk`` opens, if any."""
    begin = _block_begin(chunk)
    block = begin is not None and not (begin == len(chunk) - 2 and chunk[-1].token_type == TokenType.END)
    if not block and not _is_client_begin(chunk):
        return None
    end = next((j for j, c in enumerate(rest) if _is_end(c)), None)
    if end is None:
        return len(rest) if block and rest else None
    return end + 1


def _is_statement_set(chunk: list[Token]) -> bool:
    return _block_begin(chunk) is not None or (
        len(chunk) > 3 and _is_client_begin(chunk[:3]) and chunk[3].token_type == TokenType.SEMICOLON)


def _parse_chunk(chunk: list[Token], text: str) -> exp.Expression:
    parser = _DIALECT.parser()
    try:
        trees = parser.parse(chunk, text)
    except ParseError as err:
        raise _syntax_error(err, parser, text) from None
    if len(trees) != 1 or trees[0] is None:
        raise SqlSyntaxError("SQL parse failed. Expected one statement.",
                             Span(text, chunk[0].start, chunk[-1].end + 1))
    tree = trees[0]
    if isinstance(tree, exp.Command):
        raise SqlSyntaxError(f"SQL parse failed. Unsupported statement '{tree.name}'.",
                             Span(text, chunk[0].start, chunk[0].end + 1))
    return tree


def _syntax_error(err: ParseError, parser, text: str) -> SqlSyntaxError:
    tok = getattr(parser, "error_token", None)
    first = err.errors[0] if err.errors else {}
    desc = re.sub(r"\s*(but got )?<Token [^>]*>", "", first.get("description") or str(err)).strip()
    if tok is not None:
        span = Span(text, tok.start, tok.end + 1)
        found = text[tok.start: tok.end + 1]
        return SqlSyntaxError(
            f"SQL parse failed. Encountered \"{found}\" at line {span.line}, column {span.column}. {desc}.", span)
    return SqlSyntaxError(f"SQL parse failed. {desc}")


def _parse_statement_set(chunk: list[Token], text: str) -> exp.Expression:
    """Parse the head (``EXECUTE STATEMENT SET BEGIN``, ``EXPLAIN ... STATEMENT SET BEGIN``,
    ``COMPILE PLAN 'f' FOR STATEMENT SET BEGIN``, ``BEGIN STATEMENT SET``) with the parser; it
    holds an empty StatementSet that gets each INSERT of the body."""
    begin = _block_begin(chunk)
    head_end = begin if begin is not None else 3
    head = _parse_chunk(chunk[: head_end + 1] if begin is not None else chunk[:3], text)
    body = chunk[head_end + 1:]
    if not body or body[-1].token_type != TokenType.END:
        raise SqlSyntaxError("SQL parse failed. Statement set is missing its END.",
                             Span(text, chunk[0].start, chunk[-1].end + 1))
    if isinstance(head, n.BeginStatementSet):
        head = n.StatementSet(expressions=[])
    statement_set = head.find(n.StatementSet)
    inner = _statements(body[:-1])
    inserts = [_parse_chunk(c, text) for c in inner]
    for node, c in zip(inserts, inner):
        if not isinstance(node, exp.Insert):
            raise SqlSyntaxError("Only INSERT statements are allowed in a statement set.",
                                 Span(text, c[0].start, c[-1].end + 1))
        node.meta["span"] = Span(text, c[0].start, c[-1].end + 1)
    statement_set.set("expressions", inserts)
    return head


def parse_script(text: str) -> list[Statement]:
    """Parse every statement of a script; raises ``SqlSyntaxError`` at the first bad one."""
    statements = []
    for chunk in _split(_tokenize(text)):
        span = Span(text, chunk[0].start, chunk[-1].end + 1)
        node = _parse_statement_set(chunk, text) if _is_statement_set(chunk) else _parse_chunk(chunk, text)
        node.meta["span"] = span
        statements.append(Statement(node, span))
    return statements


def split_script(text: str) -> list[str]:
    """The text of each top-level statement (no parsing), e.g. to parse them one by one."""
    return [text[c[0].start: c[-1].end + 1] for c in _split(_tokenize(text))]


def parse_one(text: str) -> exp.Expression:
    stmts = parse_script(text)
    if len(stmts) != 1:
        raise SqlSyntaxError(f"Expected exactly one statement, found {len(stmts)}.")
    return stmts[0].node


def generate(node: exp.Expression) -> str:
    return node.sql(dialect=_DIALECT)


def is_complete(text: str) -> bool:
    """Whether ``text`` ends a statement: a top-level ``;`` not in a string or comment, and
    no statement set still open (``EXECUTE STATEMENT SET BEGIN ...`` or the client's
    ``BEGIN STATEMENT SET;`` without its ``END;``). The shell submits on Enter then."""
    try:
        tokens = _tokenize(text)
    except SqlSyntaxError:  # an open quote or comment
        return False
    if not tokens or tokens[-1].token_type != TokenType.SEMICOLON:
        return False
    chunks = _split(tokens)
    if not chunks or any(_is_client_begin(c) for c in chunks):  # _split joins a BEGIN to its END
        return False
    last = chunks[-1]
    return not (_block_begin(last) is not None and last[-1].token_type != TokenType.END)
