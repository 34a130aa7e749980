"""Expression nodes for Flink SQL syntax that sqlglot has no node for."""
from __future__ import annotations

from sqlglot import exp


class MetadataColumnConstraint(exp.Expression, exp.ColumnConstraintKind):
    """``col TYPE METADATA [FROM 'key'] [VIRTUAL]``."""

    arg_types = {"this": False, "virtual": False}


class NotEnforced(exp.Expression):
    arg_types = {}


class TableArg(exp.Expression):
    """``TABLE t`` as an argument of a table-valued function."""

    arg_types = {"this": True}


class Descriptor(exp.Expression):
    """``DESCRIPTOR(col [, col])`` in a window TVF."""

    arg_types = {"expressions": True}


class WindowTVF(exp.Expression):
    """``TABLE(TUMBLE|HOP|CUMULATE|SESSION(...))`` in FROM: ``this`` is the function call."""

    arg_types = {"this": True, "alias": False}

    @property
    def kind(self) -> str:
        return self.this.name.upper()


class StatementSet(exp.Expression):
    """``EXECUTE STATEMENT SET BEGIN <insert>; ... END``."""

    arg_types = {"expressions": True}


class Reset(exp.Expression):
    """``RESET ['key']``."""

    arg_types = {"this": False}


class FlinkShow(exp.Expression):
    """``SHOW <kind> [FROM|IN x] [LIKE 'p']``; ``this`` is the kind text, e.g. ``TABLES``."""

    arg_types = {"this": True, "target": False, "like": False, "not_like": False, "scope": False}


class FlinkExplain(exp.Expression):
    """``EXPLAIN [PLAN FOR | detail, ...] <statement>``."""

    arg_types = {"this": True, "details": False, "plan_for": False}


class CreateCatalog(exp.Expression):
    arg_types = {"this": True, "exists": False, "properties": False, "comment": False}


class CreateFunction(exp.Expression):
    """``CREATE [TEMPORARY [SYSTEM]] FUNCTION [IF NOT EXISTS] f AS 'cls' [LANGUAGE l]``."""

    arg_types = {"this": True, "identifier": True, "temporary": False, "system": False,
                 "exists": False, "language": False}


class DropFunction(exp.Expression):
    arg_types = {"this": True, "temporary": False, "system": False, "exists": False}


class AlterTableFlink(exp.Expression):
    """``ALTER TABLE t RENAME TO n | SET (...) | RESET (...) | ADD/MODIFY/DROP ...``."""

    arg_types = {"this": True, "action": True, "rename": False, "properties": False,
                 "keys": False, "columns": False, "exists": False}


class StopJob(exp.Expression):
    arg_types = {"this": True, "savepoint": False, "drain": False}


class ShowJobs(exp.Expression):
    arg_types = {}


class UseModules(exp.Expression):
    arg_types = {"expressions": True}


class PartitionSpec(exp.Expression):
    """``PARTITION (k = v, ...)`` of INSERT."""

    arg_types = {"expressions": True}
