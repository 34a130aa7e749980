"""What a table's connector can do besides reading and writing rows: Flink's sink abilities
for the batch statements DELETE FROM / UPDATE (``SupportsRowLevelModify``, Flink's
SupportsDeletePushDown and row-level update), TRUNCATE TABLE (``SupportsTruncate``) and
INSERT OVERWRITE (``SupportsOverwrite``).
A connector that has them does the work in its external system, in one transaction."""
from __future__ import annotations

from typing import Optional, Sequence

from sqlengine.plan.nodes import Expr, Field


class SupportsRowLevelModify:
    """DELETE / UPDATE of the rows ``condition`` holds for (every row when None); the
    expressions are over the table's columns ``fields`` (plan ``ColRef`` indexes). A
    connector that cannot express one raises ConnectorError saying what it cannot do."""

    def delete_rows(self, options: dict[str, str], fields: Sequence[Field], condition: Optional[Expr]) -> int:
        raise NotImplementedError

    def update_rows(self, options: dict[str, str], fields: Sequence[Field],
                    assignments: Sequence[tuple[str, Expr]], condition: Optional[Expr]) -> int:
        raise NotImplementedError


class SupportsOverwrite:
    """INSERT OVERWRITE: the statement's rows replace what the table (or partition) holds.
    No connector has it yet (the filesystem sink, which has it in Flink, appends here), so
    INSERT OVERWRITE is refused with Flink's words rather than run as an INSERT INTO."""


class SupportsTruncate:
    """TRUNCATE TABLE: every row of the table gone."""

    def truncate(self, options: dict[str, str]) -> None:
        raise NotImplementedError
