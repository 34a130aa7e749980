"""Expressions where sqlglot's parser is more lenient than Flink's: an operator without
its operand (Flink stops at the operator: ``Encountered "+ FROM"``), IS / IN / BETWEEN /
CASE / CAST / OVER / FOR SYSTEM_TIME AS OF without their parts, and reserved words where a
value begins (``year`` is the start of ``year(...)`` for Flink, ``value`` no name).

A mixin of :class:`sqlengine.dialect.parser.FlinkParser`, next to ``parse_strict``.
"""
from __future__ import annotations

from sqlglot import exp
from sqlglot.tokens import TokenType

from sqlengine.dialect.errors import BETWEEN_WITHOUT_AND
from sqlengine.dialect.keywords import CONTEXT_VARIABLES, RESERVED_FUNCTIONS
from sqlengine.dialect.parse_strict import is_name, is_reserved, starts_expression

# Reserved words Flink reads as the start of a call or literal (``year(``, ``DATE '...'``):
# used as a name, Flink prints them with the token after them.
CALL_WORDS = (RESERVED_FUNCTIONS - CONTEXT_VARIABLES) | {
    "DATE", "TIME", "TIMESTAMP", "DATETIME", "INTERVAL", "ARRAY"}
# What may follow IS [NOT].
IS_FORMS = ("NULL", "TRUE", "FALSE", "UNKNOWN", "DISTINCT", "JSON")
# Prefix operators: after a binary operator Flink looks one token further past them.
PREFIXES = ("-", "+", "NOT", "INTERVAL")
# Operators whose operand may begin with a name: there a keyword operator without its
# operand reads "Incorrect syntax near the keyword 'AND'".
NAME_OPERANDS = (TokenType.AND, TokenType.OR, TokenType.LIKE, TokenType.ILIKE,
                 TokenType.RLIKE, TokenType.SIMILAR_TO, TokenType.BETWEEN, TokenType.ESCAPE)


class StrictExpressionParser:
    """Expression parse methods that stop where Flink's parser stops."""

    # -- required parts -----------------------------------------------------------------------
    def validate_expression(self, expression, args=None):
        """A node without a part it requires: Flink stops where that part should begin."""
        errors = expression.error_messages(args)
        if errors:
            self._stop_at_missing(expression, errors[0])
        return super().validate_expression(expression, args)

    def _stop_at_missing(self, expression: exp.Expression, text: str) -> None:
        if isinstance(expression, exp.Binary) and expression.this is not None and \
                expression.args.get("expression") is None and self._is_operator(self._index - 1):
            self._stop_at_operator(self._index - 1, text)
        if isinstance(expression, (exp.Neg, exp.Not)) and self._is_operator(self._index - 2):
            self._stop_at_operator(self._index - 2, text)  # a = - ;
        self._stop(text=text)

    def _is_operator(self, index: int) -> bool:
        if index < 0 or index >= len(self._tokens):
            return False
        kind = self._tokens[index].token_type
        return kind in NAME_OPERANDS or any(kind in table for table in (
            self.EQUALITY, self.COMPARISON, self.TERM, self.FACTOR, self.BITWISE)) or \
            kind == TokenType.DPIPE

    def _stop_at_operator(self, op: int, text: str) -> None:
        """An operator without its right operand: Flink stops at the operator and prints it
        with the tokens it looked at after it (``Encountered "+ FROM"``, ``"= - ;"``)."""
        if op > 0 and self._tokens[op - 1].token_type == TokenType.NOT:
            self._stop(text=text)  # NOT LIKE, NOT IN ...: the operand is missing after them
        width = 3 if self._word_at(op + 1) in PREFIXES else 2
        ident_ok = self._tokens[op].token_type in NAME_OPERANDS
        self._stop(op, width=width, ident_ok=ident_ok, text=text)

    # -- operators ----------------------------------------------------------------------------
    def _parse_is(self, this):
        """``IS [NOT]`` then NULL, TRUE, FALSE, UNKNOWN, DISTINCT FROM or JSON."""
        is_ = self._index - 1
        negated = self._word_at(is_ + 1) == "NOT"
        if self._word_at(is_ + 1 + negated) not in IS_FORMS and negated:
            self._stop(is_ + 2, ident_ok=False)
        if self._word_at(is_ + 1 + negated) not in IS_FORMS:
            self._stop(is_, width=2, ident_ok=False)
        return super()._parse_is(this)

    def _parse_in(self, this, alias: bool = False):
        """``IN`` takes a parenthesized list of at least one value, or a query."""
        if not self._match(TokenType.L_PAREN, advance=False):
            self._stop(self._index - 1, width=2, ident_ok=False)
        if self._next and self._next.token_type == TokenType.R_PAREN:
            self._stop(self._index + 1)
        return super()._parse_in(this, alias=alias)

    def _parse_between(self, this):
        """``BETWEEN low AND high``: without ``low`` Flink stops at BETWEEN; without ``AND
        high`` it says so."""
        between = self._index - 1
        self._match_texts(("SYMMETRIC", "ASYMMETRIC"))
        if self._parse_bitwise() is None:
            self._stop(between)
        if not self._match(TokenType.AND) or self._parse_bitwise() is None:
            self._stop(message=BETWEEN_WITHOUT_AND)
        self._retreat(between + 1)
        return super()._parse_between(this)

    # -- calls, CASE, windows -----------------------------------------------------------------
    def _parse_case(self):
        """``CASE [operand] WHEN c THEN r ... [ELSE r] END``, each part required."""
        operand = self._parse_disjunction()
        ifs = []
        while self._match(TokenType.WHEN):
            condition = self._required(self._parse_disjunction)
            if not self._match(TokenType.THEN):
                self._stop(ident_ok=False)
            ifs.append(self.expression(exp.If(this=condition,
                                              true=self._required(self._parse_disjunction))))
        if not ifs:
            self._stop(ident_ok=operand is None)
        default = self._required(self._parse_disjunction) if self._match(TokenType.ELSE) else None
        if not self._match(TokenType.END):
            self._stop(ident_ok=False)
        return self.expression(exp.Case(this=operand, ifs=ifs, default=default))

    def _parse_lambda(self, alias: bool = False):
        """``COUNT(DISTINCT)``: a value after DISTINCT."""
        if self._word_at(self._index) == "DISTINCT" and self._next and \
                self._next.token_type == TokenType.R_PAREN:
            self._stop(self._index + 1)
        return super()._parse_lambda(alias=alias)

    def _parse_cast(self, strict: bool, safe=None):
        """``CAST(value AS type)`` (Flink has no FORMAT and no ``CAST(value, type)``)."""
        this = self._required(self._parse_disjunction)
        if not self._match(TokenType.ALIAS):
            self._stop(ident_ok=False)
        to = self._required(self._parse_types)
        return self.build_cast(strict=strict, this=this, to=to, safe=safe)

    def _parse_window(self, this, alias: bool = False):
        """``OVER`` takes ``(spec)`` or a window name; ``FILTER (WHERE ...)``."""
        if self._match(TokenType.FILTER, advance=False) and self._next and \
                self._next.token_type == TokenType.L_PAREN and self._word_at(self._index + 2) != "WHERE":
            self._stop(self._index + 2, ident_ok=False)
        if self._match(TokenType.OVER, advance=False) and not alias and not (
                is_name(self._next) or (self._next and self._next.token_type == TokenType.L_PAREN)):
            self._stop(self._index + 1)
        return super()._parse_window(this, alias=alias)

    def _parse_window_spec(self):
        """A frame bound: ``UNBOUNDED | CURRENT ROW | n`` with PRECEDING / FOLLOWING."""
        spec = super()._parse_window_spec()
        if not spec.get("value"):
            self._stop()
        return spec

    def _parse_version(self):
        """``FOR SYSTEM_TIME AS OF expression``."""
        if not self._match_text_seq("FOR", "SYSTEM_TIME", advance=False):
            return super()._parse_version()
        at = self._index + 2
        for i, word in enumerate(("AS", "OF")):
            if self._word_at(at + i) != word:
                self._stop(at + i, ident_ok=False)
        if at + 2 >= len(self._tokens) or not starts_expression(self._tokens[at + 2]):
            self._stop(at + 2)
        return super()._parse_version()

    # -- names in expressions -----------------------------------------------------------------
    def _parse_field(self, any_token: bool = False, tokens=None, anonymous_func: bool = False):
        """``CURRENT_TIMESTAMP``, ``USER``, ...: values without parentheses."""
        if not any_token and self._curr and self._curr.text.upper() in CONTEXT_VARIABLES and not (
                self._next and self._next.token_type in (TokenType.L_PAREN, TokenType.DOT)):
            self._advance()
            return self.expression(exp.Column(this=self._identifier_expression()))
        return super()._parse_field(any_token=any_token, tokens=tokens, anonymous_func=anonymous_func)

    def _parse_column(self):
        """A column reference: no reserved word in it (``t.from``: Flink stops at the dot;
        ``year`` alone: Flink wanted ``year(``)."""
        self._check_call_word()
        column = super()._parse_column()
        if isinstance(column, (exp.Column, exp.Dot)):
            self._check_name_parts([p for p in column.parts if isinstance(p, exp.Identifier)])
        return column

    def _check_name_parts(self, parts: list[exp.Identifier]) -> None:
        for n, part in enumerate(parts):
            word = part.name.upper()
            if not is_reserved(part) or (len(parts) == 1 and word in CONTEXT_VARIABLES):
                continue
            i = self._index_at(part.meta.get("start"))
            if n:
                self._stop(i - 1, width=2, ident_ok=False)
            if word == "ROW":  # the row constructor: "(" must follow
                self._stop(i + 1, ident_ok=False)
            self._stop(i, width=2 if word in CALL_WORDS else 1)

    def _check_call_word(self) -> None:
        """``year``, ``date``, ``row`` where a value begins: Flink read the start of a call
        or a literal and stops there, or after ROW."""
        tok, after = self._curr, self._next
        if not tok or tok.token_type == TokenType.IDENTIFIER:
            return
        word = tok.text.upper()
        follows = after.token_type if after else None
        if word == "ROW" and follows != TokenType.L_PAREN:
            self._stop(self._index + 1, ident_ok=False)
        if word in CALL_WORDS and follows not in (TokenType.L_PAREN, TokenType.L_BRACKET,
                                                  TokenType.STRING):
            self._stop(width=2)

    def _parse_column_ops(self, this):
        """``t.`` needs a name or ``*`` after the dot."""
        if self._match(TokenType.DOT, advance=False) and not (
                is_name(self._next) or (self._next and self._next.token_type == TokenType.STAR)):
            self._stop(self._index, width=2, ident_ok=False)
        return super()._parse_column_ops(this)
