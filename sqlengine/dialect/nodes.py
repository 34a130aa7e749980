"""Expression nodes for Flink SQL syntax that sqlglot has no node for."""
from __future__ import annotations

from sqlglot import exp


class MetadataColumnConstraint(exp.Expression, exp.ColumnConstraintKind):
    """``col TYPE METADATA [FROM 'key'] [VIRTUAL]``."""

    arg_types = {"this": False, "virtual": False}


class NotEnforced(exp.Expression):
    arg_types = {}


class TableArg(exp.Expression):
    """``TABLE t [PARTITION BY k, ...]`` as an argument of a table-valued function."""

    arg_types = {"this": True, "partition": False}


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
    """``SHOW <kind> [FROM|IN x] [[NOT] LIKE|ILIKE 'p']``; ``this`` is the kind text, e.g.
    ``TABLES`` or ``CREATE TABLE``; ``SHOW PARTITIONS t [PARTITION (...)]`` sets ``partition``."""

    arg_types = {"this": True, "target": False, "like": False, "not_like": False, "scope": False,
                 "ilike": False, "partition": False}


class FlinkExplain(exp.Expression):
    """``EXPLAIN [PLAN FOR | detail, ...] <statement>``; ``this`` may be a StatementSet."""

    arg_types = {"this": True, "details": False, "plan_for": False}


class CreateCatalog(exp.Expression):
    arg_types = {"this": True, "exists": False, "properties": False, "comment": False}


class CreateFunction(exp.Expression):
    """``CREATE [TEMPORARY [SYSTEM]] FUNCTION [IF NOT EXISTS] f AS 'cls' [LANGUAGE l]
    [USING JAR 'p', ...] [WITH (...)]``; ``resources`` are FunctionResource nodes."""

    arg_types = {"this": True, "identifier": True, "temporary": False, "system": False,
                 "exists": False, "language": False, "resources": False, "properties": False}


class DropFunction(exp.Expression):
    arg_types = {"this": True, "temporary": False, "system": False, "exists": False}


class AlterTableFlink(exp.Expression):
    """``ALTER TABLE [IF EXISTS] t <action>``. ``action`` is one of ``ADD`` / ``MODIFY``
    (``columns``: ColumnDef, WatermarkColumnConstraint, PrimaryKey or Constraint nodes; a
    ColumnDef may carry a ``position``), ``DROP`` (``columns``: identifiers), ``DROP WATERMARK``,
    ``DROP PRIMARY KEY``, ``DROP CONSTRAINT`` (``keys``: [name]), ``RENAME`` (``rename``: the
    new table), ``RENAME COLUMN`` (``columns``: [old], ``rename``: new), ``SET``
    (``properties``) and ``RESET`` (``keys``: option keys)."""

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


# -- statements added for the full Flink statement set ---------------------------------
class BeginStatementSet(exp.Expression):
    """``BEGIN STATEMENT SET`` of the interactive client, when its ``END`` is not in the script."""

    arg_types = {}


class EndStatementSet(exp.Expression):
    """``END`` closing an interactive ``BEGIN STATEMENT SET``."""

    arg_types = {}


class AddJar(exp.Expression):
    """``ADD JAR 'path'``."""

    arg_types = {"this": True}


class RemoveJar(exp.Expression):
    """``REMOVE JAR 'path'``."""

    arg_types = {"this": True}


class Call(exp.Expression):
    """``CALL [catalog.db.]procedure(arg, ...)``; ``this`` is the procedure name (a Table)."""

    arg_types = {"this": True, "expressions": False}


class LoadModule(exp.Expression):
    """``LOAD MODULE name [WITH ('k' = 'v', ...)]``."""

    arg_types = {"this": True, "properties": False}


class UnloadModule(exp.Expression):
    """``UNLOAD MODULE name``."""

    arg_types = {"this": True}


class DescribeCatalog(exp.Expression):
    """``DESC[RIBE] CATALOG [EXTENDED] name``."""

    arg_types = {"this": True, "extended": False}


class DescribeFunction(exp.Expression):
    """``DESC[RIBE] FUNCTION [EXTENDED] [catalog.db.]name``."""

    arg_types = {"this": True, "extended": False}


class FunctionResource(exp.Expression):
    """``JAR 'path'`` / ``ARTIFACT 'path'`` in ``CREATE FUNCTION ... USING``; ``kind`` is the word."""

    arg_types = {"this": True, "kind": True}


class AlterFunction(exp.Expression):
    """``ALTER [TEMPORARY [SYSTEM]] FUNCTION [IF EXISTS] f AS 'cls' [LANGUAGE l]``."""

    arg_types = {"this": True, "identifier": True, "temporary": False, "system": False,
                 "exists": False, "language": False}


class AlterView(exp.Expression):
    """``ALTER VIEW v RENAME TO n`` (``rename``) or ``ALTER VIEW v AS <query>`` (``expression``)."""

    arg_types = {"this": True, "rename": False, "expression": False}


class AlterDatabase(exp.Expression):
    """``ALTER DATABASE db SET ('k' = 'v', ...)``."""

    arg_types = {"this": True, "properties": True}


class AlterMaterializedTable(exp.Expression):
    """``ALTER MATERIALIZED TABLE t SUSPEND | RESUME [WITH (...)] | REFRESH [PARTITION (...)]``."""

    arg_types = {"this": True, "action": True, "properties": False, "partition": False}


class FreshnessProperty(exp.Expression):
    """``FRESHNESS = INTERVAL ...`` of a materialized table (not an exp.Property, so that
    code collecting the ``WITH`` options by ``isinstance(p, exp.Property)`` skips it)."""

    arg_types = {"this": True}


class RefreshModeProperty(exp.Expression):
    """``REFRESH_MODE = FULL | CONTINUOUS`` of a materialized table."""

    arg_types = {"this": True}


# -- clauses inside JSON function calls -----------------------------------------------
class JsonReturning(exp.Expression):
    """``RETURNING <type>`` inside ``JSON_VALUE(...)``."""

    arg_types = {"this": True}


class JsonBehavior(exp.Expression):
    """``<behavior> ON EMPTY|ERROR|NULL``; ``this`` is e.g. ``NULL``, ``EMPTY ARRAY`` or
    ``DEFAULT`` (then ``expression`` holds the default value), ``on`` the condition word."""

    arg_types = {"this": True, "on": True, "expression": False}


class JsonWrapper(exp.Expression):
    """``WITHOUT | WITH [CONDITIONAL | UNCONDITIONAL] [ARRAY] WRAPPER`` of ``JSON_QUERY``."""

    arg_types = {"this": True}


class DistributionProperty(exp.Expression):
    """``DISTRIBUTED BY [HASH | RANGE] (k, ...) [INTO n BUCKETS]`` or ``DISTRIBUTED INTO n
    BUCKETS`` of CREATE TABLE (Flink 2.0); ``kind`` is ``HASH`` / ``RANGE`` or None."""

    arg_types = {"expressions": False, "kind": False, "buckets": False}


class AlterCatalog(exp.Expression):
    """``ALTER CATALOG c SET (...) | RESET ('k', ...) | COMMENT 'c'``; ``action`` is the word."""

    arg_types = {"this": True, "action": True, "properties": False, "keys": False, "comment": False}


class CompilePlan(exp.Expression):
    """``COMPILE [AND EXECUTE] PLAN 'file' [IF NOT EXISTS] FOR <INSERT | STATEMENT SET>``;
    ``expression`` is the Insert or StatementSet, ``execute`` marks COMPILE AND EXECUTE."""

    arg_types = {"this": True, "expression": True, "exists": False, "execute": False}


class ExecutePlan(exp.Expression):
    """``EXECUTE PLAN 'file'``."""

    arg_types = {"this": True}


class TypedLiteral(exp.Expression):
    """``DATE '2020-04-15'``, ``TIME '08:05:00'``, ``TIMESTAMP '2020-04-15 08:05:00.12'`` (and
    ``TIMESTAMP WITH LOCAL TIME ZONE '...'``): a datetime literal, not a CAST, because its
    precision is the number of fraction digits written (``TIMESTAMP(2)`` here, where
    ``CAST(... AS TIMESTAMP)`` is ``TIMESTAMP(6)``); ``to`` is the type without precision."""

    arg_types = {"this": True, "to": True}


class MatchRecognize(exp.MatchRecognize):
    """sqlglot's MATCH_RECOGNIZE with Flink's ``WITHIN <interval>`` after the pattern."""

    arg_types = {**exp.MatchRecognize.arg_types, "within": False}
