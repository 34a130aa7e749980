"""One error tree and one diagnostic renderer for the whole engine.

Every user-facing failure is a ``SqlEngineError``. Errors about SQL text carry a
``Diagnostic`` whose ``Span`` points into the original script, so the CLI, the
shell and notebooks all print the same ``line:col``, source line and caret.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional


@dataclass(frozen=True)
class Span:
    """A character range [start, end) in ``source`` (the whole script text)."""

    source: str
    start: int
    end: int

    @property
    def line(self) -> int:
        return self.source.count("\n", 0, self.start) + 1

    @property
    def column(self) -> int:
        return self.start - (self.source.rfind("\n", 0, self.start) + 1) + 1

    def source_line(self) -> str:
        begin = self.source.rfind("\n", 0, self.start) + 1
        end = self.source.find("\n", self.start)
        return self.source[begin: end if end >= 0 else len(self.source)]


@dataclass(frozen=True)
class Diagnostic:
    message: str
    span: Optional[Span] = None
    hint: Optional[str] = None
    # The message counts lines from its statement, as Flink does; the place printed below
    # it says that its line is the script's.
    script_lines: bool = False

    def render(self) -> str:
        """``message`` then, when the place is known, ``at line:col``, the line and a caret."""
        parts = [self.message]
        if self.span is not None:
            sp = self.span
            line = sp.source_line()
            width = max(1, min(sp.end - sp.start, len(line) - sp.column + 1))
            where = f"line {sp.line} of the script" if self.script_lines else f"line {sp.line}"
            parts.append(f"  at {where}, column {sp.column}:")
            parts.append(f"  {line}")
            parts.append("  " + " " * (sp.column - 1) + "^" * width)
        if self.hint:
            parts.append(f"  hint: {self.hint}")
        return "\n".join(parts)


class SqlEngineError(Exception):
    """Root of every error the engine reports to a user."""

    kind = "error"

    def __init__(self, message: str, span: Optional[Span] = None, hint: Optional[str] = None):
        self.diagnostic = Diagnostic(message, span, hint)
        super().__init__(message)

    @property
    def message(self) -> str:
        return self.diagnostic.message

    def render(self) -> str:
        return self.diagnostic.render()

    def with_span(self, span: Optional[Span]) -> "SqlEngineError":
        if self.diagnostic.span is None and span is not None:
            self.diagnostic = replace(self.diagnostic, span=span)
        return self


class SqlSyntaxError(SqlEngineError):
    """A statement Flink's parser rejects; its message is Flink's, whose line numbers count
    from the statement (``script_lines``: the rendered place names the script's line)."""

    kind = "syntax"

    def __init__(self, message: str, span: Optional[Span] = None, hint: Optional[str] = None,
                 script_lines: bool = False):
        super().__init__(message, span, hint)
        self.diagnostic = replace(self.diagnostic, script_lines=script_lines)


class ValidationError(SqlEngineError):
    kind = "validation"


class CatalogError(SqlEngineError):
    kind = "catalog"


class ConnectorError(SqlEngineError):
    kind = "connector"


class ExecutionError(SqlEngineError):
    kind = "execution"


class UnsupportedError(SqlEngineError):
    kind = "unsupported"
