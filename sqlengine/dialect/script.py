"""Splitting a Flink SQL script into statements and parsing each with its span.

``EXECUTE STATEMENT SET BEGIN ... END;`` contains semicolons, so statements are cut
from the token stream (not the text), and each statement keeps a ``Span`` into the
whole script for error messages (``line:col``, the line and a caret).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from sqlengine.dialect import nodes as n
from sqlengine.dialect.errors import (Stop, StatementTokens, after_parse, describe,
                                     first_unterminated, flink_tokens, unterminated)
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
    """The span of ``node``: its first positioned token, leftmost first (depth first, as
    Calcite places an expression at its start)."""
    for sub in node.walk(bfs=False):
        meta = getattr(sub, "_meta", None) or {}
        if "start" in meta:
            return Span(source, meta["start"], meta["end"] + 1)
    return None


def span_covering(nodes, source: str) -> Span | None:
    """The span from the first to the last positioned token of ``nodes`` (a dotted name's parts)."""
    metas = [m for n in nodes for sub in n.walk() if "start" in (m := getattr(sub, "_meta", None) or {})]
    if not metas:
        return None
    return Span(source, min(m["start"] for m in metas), max(m["end"] for m in metas) + 1)


def _tokenize(text: str) -> list[Token]:
    try:
        return _DIALECT.tokenize(text)
    except TokenError:
        raise _unterminated(text) from None


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


def _split(tokens: list[Token]) -> list[tuple[int, int]]:
    """Top-level statements as token ranges. ``EXECUTE|EXPLAIN STATEMENT SET BEGIN ... END``
    is one statement (inner semicolons kept); so is a client-style ``BEGIN STATEMENT SET;
    ...; END`` when its END follows in the script (otherwise BEGIN and END are statements of
    their own)."""
    ranges = _statement_ranges(tokens)
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(ranges):
        chunk = tokens[ranges[i][0]: ranges[i][1]]
        end = _statement_set_end(chunk, [tokens[a:b] for a, b in ranges[i + 1:]])
        out.append(ranges[i] if end is None else (ranges[i][0], ranges[i + end][1]))
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


# -- how Flink's SQL Client sees a script ----------------------------------------------------
def _unit_ends(text: str, tokens: list[Token], ranges: list[tuple[int, int]]) -> list[int]:
    """Where the SQL Client's buffers end: it reads a file line by line and a statement is
    complete at a line that ends with its ``;`` (a comment after the ``;`` keeps it open;
    a statement set block is one statement). Offsets of the next line's start."""
    ends = []
    for a, b in ranges:
        block = _block_begin(tokens[a:b]) is not None
        for i in ([b] if block else range(a, b + 1)):
            if i < len(tokens) and tokens[i].token_type == TokenType.SEMICOLON:
                line_end = text.find("\n", tokens[i].end)
                rest = text[tokens[i].end + 1: line_end if line_end >= 0 else len(text)]
                if not rest.strip():
                    ends.append(line_end + 1 if line_end >= 0 else len(text))
    return ends


def _buffer_start(text: str, ends: list[int], offset: int) -> int:
    """The start of the SQL Client's buffer for the statement at ``offset``: after the last
    complete line before it, else the file's first character after leading whitespace
    (the client trims the file)."""
    before = [e for e in ends if e <= offset]
    return before[-1] if before else len(text) - len(text.lstrip())


def _statement_tokens(text: str, tokens: list[Token], a: int, b: int, ends: list[int]
                      ) -> StatementTokens:
    end = tokens[b] if b < len(tokens) else None
    return StatementTokens(text, tokens[a:b], _buffer_start(text, ends, tokens[a].start), end)


def _sub(stmt: StatementTokens, a: int, b: int) -> StatementTokens:
    """Tokens ``a:b`` of ``stmt`` (an INSERT of a statement set), counted from its buffer."""
    end = stmt.tokens[b] if b < len(stmt.tokens) else stmt.end
    return StatementTokens(stmt.text, stmt.tokens[a:b], stmt.buffer, end)


# -- parsing -----------------------------------------------------------------------------------
def _parse_chunk(stmt: StatementTokens) -> exp.Expression:
    parser = _DIALECT.parser()
    try:
        trees = parser.parse(stmt.tokens, stmt.text)
    except ParseError as err:
        raise _syntax_error(stmt, getattr(err, "stop", None) or Stop(parser._index)) from None
    rejected = after_parse(stmt)
    if rejected is not None:
        raise _syntax_error(stmt, rejected)
    if len(trees) != 1 or trees[0] is None or isinstance(trees[0], exp.Command):
        raise _syntax_error(stmt, Stop(0))
    return trees[0]


def _syntax_error(stmt: StatementTokens, stop: Stop) -> SqlSyntaxError:
    """``SQL parse failed. <Flink's message>``, the caret at the token Flink names."""
    text, offset = describe(stmt, stop)
    return _located(stmt, f"SQL parse failed. {text}", offset)


def _located(stmt: StatementTokens, message: str, offset: int) -> SqlSyntaxError:
    token = next((t for t in stmt.tokens if t.start == offset), None)
    span = Span(stmt.text, offset, token.end + 1 if token is not None else offset + 1)
    script_place = f"line {span.line}, column {span.column}"
    return SqlSyntaxError(message, span, script_lines=stmt.place(offset) != script_place)


def _unterminated(text: str) -> SqlSyntaxError:
    """A back-quote or block comment left open: Flink's lexer reports it at the end."""
    start = first_unterminated(text)
    if start is None:
        return SqlSyntaxError("SQL parse failed. Cannot read the statement.")
    tokens = _DIALECT.tokenize(text[:start])
    stmt = StatementTokens(text, [], _buffer_start(text, _unit_ends(text, tokens, _split(tokens)), start), None)
    message, offset = unterminated(stmt, start)
    return _located(stmt, f"SQL parse failed. {message}", offset)


def _script_tokens(text: str) -> list[Token]:
    """The script's tokens as Flink's lexer cuts them. A string left open is a lone quote
    token where the statement ends: Flink's parser stops at it, or before it."""
    try:
        return flink_tokens(_DIALECT.tokenize(text))
    except TokenError:
        start = first_unterminated(text)
        if start is None or text[start] != "'":
            raise _unterminated(text) from None
    tokens = flink_tokens(_tokenize(text[:start]))
    return tokens + [Token(TokenType.UNKNOWN, "'", start=start, end=start)]


def _parse_statement_set(stmt: StatementTokens) -> exp.Expression:
    """Parse the head (``EXECUTE STATEMENT SET BEGIN``, ``EXPLAIN ... STATEMENT SET BEGIN``,
    ``COMPILE PLAN 'f' FOR STATEMENT SET BEGIN``, ``BEGIN STATEMENT SET``) with the parser; it
    holds an empty StatementSet that gets each INSERT of the body."""
    chunk, text = stmt.tokens, stmt.text
    begin = _block_begin(chunk)
    head_end = begin if begin is not None else 3
    head = _parse_chunk(_sub(stmt, 0, head_end + 1 if begin is not None else 3))
    body = chunk[head_end + 1:]
    if not body or body[-1].token_type != TokenType.END:  # the block runs to the end of input
        raise _syntax_error(replace(stmt, end=None), Stop(len(chunk)))
    if isinstance(head, n.BeginStatementSet):
        head = n.StatementSet(expressions=[])
    statement_set = head.find(n.StatementSet)
    inner = [_sub(stmt, head_end + 1 + a, head_end + 1 + b)
             for a, b in _statement_ranges(body[:-1])]
    if not inner or any(c.tokens[0].token_type != TokenType.INSERT for c in inner):
        first = next((c.tokens[0] for c in inner if c.tokens[0].token_type != TokenType.INSERT), body[-1])
        raise _syntax_error(stmt, Stop(chunk.index(first), ident_ok=False))  # only INSERTs
    inserts = [_parse_chunk(c) for c in inner]
    for node, c in zip(inserts, inner):
        node.meta["span"] = Span(text, c.tokens[0].start, c.tokens[-1].end + 1)
    statement_set.set("expressions", inserts)
    return head


def parse_script(text: str) -> list[Statement]:
    """Parse every statement of a script; raises ``SqlSyntaxError`` at the first bad one,
    with Flink's message (line and column as Flink's SQL Client counts them)."""
    statements = []
    for parsed in parse_each(text):
        if isinstance(parsed, SqlSyntaxError):
            raise parsed
        statements.append(parsed)
    return statements


def parse_each(text: str) -> list[Statement | SqlSyntaxError]:
    """Each statement of a script parsed on its own: the statement, or the ``SqlSyntaxError``
    Flink's parser gives it (a client running statement by statement reports a bad one when
    it gets there, after the ones before it ran)."""
    tokens = _script_tokens(text)
    ranges = _split(tokens)
    ends = _unit_ends(text, tokens, ranges)
    statements: list[Statement | SqlSyntaxError] = []
    for a, b in ranges:
        stmt = _statement_tokens(text, tokens, a, b, ends)
        try:
            node = _parse_statement_set(stmt) if _is_statement_set(stmt.tokens) else _parse_chunk(stmt)
        except SqlSyntaxError as err:
            statements.append(err)
            continue
        span = Span(text, tokens[a].start, tokens[b - 1].end + 1)
        node.meta["span"] = span
        statements.append(Statement(node, span))
    return statements


def split_script(text: str) -> list[str]:
    """The text of each top-level statement (no parsing), e.g. to parse them one by one."""
    tokens = _tokenize(text)
    return [text[tokens[a].start: tokens[b - 1].end + 1] for a, b in _split(tokens)]


def parse_one(text: str) -> exp.Expression:
    stmts = parse_script(text)
    if len(stmts) != 1:
        raise SqlSyntaxError(f"Expected exactly one statement, found {len(stmts)}.")
    return stmts[0].node


def generate(node: exp.Expression) -> str:
    return node.sql(dialect=_DIALECT)


def is_complete(text: str) -> bool:
    """Whether ``text`` ends a statement: a top-level ``;`` not in a string or comment, and
    ``EXECUTE STATEMENT SET BEGIN ...`` block still open. The shell submits on Enter then
    (the client's ``BEGIN STATEMENT SET;`` too: the session holds the set until ``END;``,
    as Flink's SQL Client does)."""
    try:
        tokens = _tokenize(text)
    except SqlSyntaxError:  # an open quote or comment
        return False
    if not tokens or tokens[-1].token_type != TokenType.SEMICOLON:
        return False
    chunks = [tokens[a:b] for a, b in _split(tokens)]
    if not chunks:
        return False
    last = chunks[-1]
    return not (_block_begin(last) is not None and last[-1].token_type != TokenType.END)
