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


def _is_statement_set(chunk: list[Token]) -> bool:
    words = [t.text.upper() for t in chunk[:4]]
    return words[:3] == ["EXECUTE", "STATEMENT", "SET"] or words[:3] == ["BEGIN", "STATEMENT", "SET"]


def _split(tokens: list[Token]) -> list[list[Token]]:
    """Top-level statements; a statement set runs until its END."""
    chunks: list[list[Token]] = []
    current: list[Token] = []
    for tok in tokens:
        if tok.token_type == TokenType.SEMICOLON:
            if _is_statement_set(current) and current[-1].token_type != TokenType.END:
                current.append(tok)
                continue
            if current:
                chunks.append(current)
            current = []
            continue
        current.append(tok)
    if current:
        chunks.append(current)
    return chunks


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
    begin = next(i for i, t in enumerate(chunk) if t.text.upper() == "BEGIN" and i > 0) \
        if chunk[0].text.upper() == "EXECUTE" else 3
    body = chunk[begin + 1:]
    if not body or body[-1].token_type != TokenType.END:
        raise SqlSyntaxError("SQL parse failed. Statement set is missing its END.",
                             Span(text, chunk[0].start, chunk[-1].end + 1))
    inner = _split(body[:-1])
    inserts = [_parse_chunk(c, text) for c in inner]
    for node, c in zip(inserts, inner):
        if not isinstance(node, exp.Insert):
            raise SqlSyntaxError("Only INSERT statements are allowed in a statement set.",
                                 Span(text, c[0].start, c[-1].end + 1))
        node.meta["span"] = Span(text, c[0].start, c[-1].end + 1)
    return n.StatementSet(expressions=inserts)


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
