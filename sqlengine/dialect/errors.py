"""Syntax errors in Flink's words, at Flink's place.

Flink's parser (JavaCC, Calcite's ``Parser.jj``) reports the token where it stopped:
``Encountered "<tokens>" at line L, column C.`` -- two tokens where it had looked two ahead
(an operator without its operand: ``"+ FROM"``) -- or, when that token is a keyword where an
identifier could have stood, ``Incorrect syntax near the keyword 'X' at line L, column C.``
A few errors are Calcite's own sentences without a place (``Non-query expression encountered
in illegal context``), and the lexer's read ``Lexical error at line L, column C.  Encountered:
"@" (64), after : ""``.

The parser (``parse_strict.py``) says *where* it stopped as a ``Stop``; this module turns a
``Stop`` into Flink's sentence. Lines and columns are counted as Flink's SQL Client counts
them: from the start of the statement's buffer (see script.py), columns physical.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from sqlglot.tokens import Token, TokenType

from sqlengine.dialect.keywords import KEYWORDS

NON_QUERY = "Non-query expression encountered in illegal context"
BANG_EQUAL = "Bang equal '!=' is not allowed under the current SQL conformance level"
BETWEEN_WITHOUT_AND = "BETWEEN operator has no terminating AND"
EXPLAIN_CREATE = ("Unsupported CREATE OR REPLACE statement for EXPLAIN. The statement must define a query "
                  "using the AS clause (i.e. CTAS/RTAS statements).")
LIMIT_START_COUNT = "'LIMIT start, count' is not allowed under the current SQL conformance level"
# Characters Flink's lexer has no token for ("!" only as part of "!="), as sqlglot reads them.
LEXICAL = {TokenType.PARAMETER: "@", TokenType.HASH: "#", TokenType.TILDE: "~",
           TokenType.AMP: "&", TokenType.NOT: "!"}
# sqlglot's tokens for what Flink's lexer reads but no rule of its grammar takes.
UNPARSABLE = (TokenType.UNKNOWN, TokenType.CARET, TokenType.PIPE, TokenType.NULLSAFE_EQ,
              TokenType.ARROW, TokenType.DARROW, TokenType.DQMARK, TokenType.COLON)
_ESCAPES = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r",
            '"': '\\"', "'": "\\'", "\\": "\\\\"}


@dataclass(frozen=True)
class Stop:
    """Where Flink's parser stops in a statement, and what it prints there."""

    index: int  # token index in the statement; len(tokens) is its end (";" or <EOF>)
    width: int = 1  # tokens printed after Encountered (2 where Flink looked two ahead)
    ident_ok: bool = True  # an identifier could stand here: a keyword reads "Incorrect syntax near"
    message: Optional[str] = None  # a sentence of Flink's own, printed without a place


@dataclass(frozen=True)
class StatementTokens:
    """A statement's tokens in the script, and where Flink's SQL Client starts counting."""

    text: str  # the whole script
    tokens: list[Token]
    buffer: int  # offset of the first character of the SQL Client's buffer for it
    end: Optional[Token]  # the terminating ";" (None: the statement runs to the end of input)

    def image(self, index: int) -> str:
        """The text Flink prints for token ``index`` (``;`` / ``<EOF>`` past the last)."""
        if index >= len(self.tokens):
            return ";" if self.end is not None and index == len(self.tokens) else "<EOF>"
        tok = self.tokens[index]
        raw = self.text[tok.start: tok.end + 1]
        if tok.token_type not in (TokenType.STRING, TokenType.IDENTIFIER) and raw.split() != [raw]:
            raw = raw.split()[0]  # sqlglot's one token "ORDER BY" is Flink's "ORDER" "BY"
        return raw

    def offset(self, index: int) -> int:
        """Where token ``index`` starts; ``<EOF>`` is at the last character of the input."""
        if index < len(self.tokens):
            return self.tokens[index].start
        if self.end is not None:
            return self.end.start
        return len(self.text.rstrip()) - 1

    def place(self, offset: int) -> str:
        line = self.text.count("\n", self.buffer, offset) + 1
        column = offset - max(self.buffer, self.text.rfind("\n", 0, offset) + 1) + 1
        return f"line {line}, column {column}"


def describe(stmt: StatementTokens, stop: Stop) -> tuple[str, int]:
    """Flink's first line for ``stop`` (without the ``SQL parse failed.`` prefix) and the
    script offset of what it names. A character Flink cannot lex, or a ``!=``, met before
    that place is what Flink reports instead."""
    for i, tok in enumerate(stmt.tokens[: stop.index + stop.width]):
        if tok.token_type == TokenType.UNKNOWN and tok.text in LEXICAL.values():
            return lexical_error(stmt, tok)
        if tok.token_type == TokenType.NEQ and tok.text == "!=" and i < stop.index:
            return BANG_EQUAL, tok.start
    return message(stmt, stop), stmt.offset(stop.index)


def after_parse(stmt: StatementTokens) -> Optional[Stop]:
    """What Flink rejects in a statement sqlglot parsed: ``!=``."""
    for i, tok in enumerate(stmt.tokens):
        if tok.token_type == TokenType.NEQ and tok.text == "!=":
            return Stop(i, message=BANG_EQUAL)
    return None


def message(stmt: StatementTokens, stop: Stop) -> str:
    if stop.message:
        return stop.message
    first = stmt.image(stop.index)
    place = stmt.place(stmt.offset(stop.index))
    if stop.ident_ok and first in KEYWORDS:
        return f"Incorrect syntax near the keyword '{first}' at {place}."
    images = []
    for i in range(stop.index, stop.index + stop.width):
        images.append(_escape(stmt.image(i)))
        if images[-1] == "<EOF>":
            break
    return f"Encountered \"{' '.join(images)}\" at {place}."


def lexical_error(stmt: StatementTokens, tok: Token) -> tuple[str, int]:
    """A character Flink's lexer has no token for (``!`` alone: the character after it)."""
    after, pos = ("!", tok.end + 1) if tok.text == "!" else ("", tok.start)
    char = stmt.text[pos] if pos < len(stmt.text) else ""
    shown = f'"{_escape(char)}" ({ord(char)}),' if char else "<EOF>"
    return f'Lexical error at {stmt.place(pos)}.  Encountered: {shown} after : "{after}"', pos


def unterminated(stmt: StatementTokens, start: int) -> tuple[str, int]:
    """A back-quoted name or comment that runs to the end of the input (Flink's SQL Client
    waits for its end and drops it; ``execute_sql`` reports it like this, at the place
    after the last character)."""
    end = len(stmt.text.rstrip())
    after = _escape(stmt.text[start: end]) if stmt.text[start] == "`" else ""
    return f'Lexical error at {stmt.place(end)}.  Encountered: <EOF> after : "{after}"', end - 1


def _escape(text: str) -> str:
    """JavaCC's ``add_escapes``: quotes, backslashes and control characters escaped."""
    return "".join(_ESCAPES.get(ch, ch) for ch in text)


# -- Flink's lexer where it differs from sqlglot's tokenizer -----------------------------------
def flink_tokens(tokens: list[Token]) -> list[Token]:
    """sqlglot's tokens as Flink's lexer cuts them: ``::`` and ``==`` are two tokens each;
    what Flink cannot lex or parse becomes UNKNOWN, so that the parser stops at it."""
    out = []
    for tok in tokens:
        if tok.text in ("::", "=="):
            kind = TokenType.EQ if tok.text == "==" else TokenType.UNKNOWN
            out += [_token(kind, tok, 0), _token(kind, tok, 1)]
        elif tok.token_type in UNPARSABLE or LEXICAL.get(tok.token_type) == tok.text or \
                (tok.token_type == TokenType.VAR and tok.text == "$"):
            out.append(_token(TokenType.UNKNOWN, tok, 0, len(tok.text)))
        else:
            out.append(tok)
    return out


def _token(kind: TokenType, tok: Token, at: int, size: int = 1) -> Token:
    return Token(kind, tok.text[at: at + size], tok.line, tok.col + at, tok.start + at,
                 tok.start + at + size - 1, tok.comments)


def first_unterminated(text: str) -> Optional[int]:
    """Offset of the first string, back-quoted name or block comment that does not end. A
    quote that does not end is read as far as it can: ``'a''b`` is ``'a'`` then ``'b``."""
    i = 0
    while i < len(text):
        if text.startswith("--", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end + 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                return i
            i = end + 2
        elif text[i] in "'`":
            end = _closing_quote(text, i)
            if end < 0:
                return text.rfind(text[i])
            i = end + 1
        else:
            i += 1
    return None


def _closing_quote(text: str, start: int) -> int:
    quote, j = text[start], start + 1
    while True:
        j = text.find(quote, j)
        if j < 0 or text[j + 1: j + 2] != quote:
            return j
        j += 2
