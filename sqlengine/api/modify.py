"""DELETE FROM / UPDATE / TRUNCATE TABLE: Flink's checks, in Flink's order, then the work
done by a connector that can (``connectors.abilities``; the ``jdbc`` connector's PostgreSQL).

Flink validates the statement (names, the WHERE condition, the SET targets and types),
creates the table's source (DELETE and UPDATE read the table), then refuses the statement
in streaming mode, or in batch mode for a view or a connector without the ability, each
with its own words. A connector with the ability changes the rows itself, in one
transaction, and the statement answers ``Execute statement succeeded.``
"""
from __future__ import annotations

from sqlglot import exp

from catalog.objects import CatalogView
from sqlengine.api.result import TableResult
from sqlengine.api.state import SessionState
from sqlengine.binder.modify import bind_delete, bind_update, lookup_truncated
from sqlengine.errors import UnsupportedError, ValidationError

ABILITY = "org.apache.flink.table.connector.sink.abilities."
OK = "[INFO] Execute statement succeeded."


def delete(session: SessionState, node: exp.Delete, stmt) -> TableResult:
    m = bind_delete(session.binder(stmt.span.source), node)
    view = isinstance(m.table, CatalogView)
    factory = None if view else _sink_factory(m.table)  # Flink tries a delete push-down first
    if session.streaming:
        raise UnsupportedError("DELETE statement is not supported for streaming mode now.")
    if view:
        raise UnsupportedError(_no_sink(m.path))
    if not hasattr(factory, "delete_rows"):
        raise UnsupportedError(_no_row_level("delete", m.path, "SupportsRowLevelDelete"))
    factory.delete_rows(m.table.options_dict(), m.fields, m.condition)
    return TableResult("OK", text=OK)


def update(session: SessionState, node: exp.Update, stmt) -> TableResult:
    m = bind_update(session.binder(stmt.span.source), node)
    if session.streaming:
        raise UnsupportedError("UPDATE statement is not supported for streaming mode now.")
    if isinstance(m.table, CatalogView):
        raise UnsupportedError(_no_sink(m.path))
    factory = _sink_factory(m.table)
    if not hasattr(factory, "update_rows"):
        raise UnsupportedError(_no_row_level("update", m.path, "SupportsRowLevelUpdate"))
    factory.update_rows(m.table.options_dict(), m.fields, m.assignments, m.condition)
    return TableResult("OK", text=OK)


def truncate(session: SessionState, node: exp.TruncateTable, stmt) -> TableResult:
    path, table = lookup_truncated(session.binder(stmt.span.source), node)
    if isinstance(table, CatalogView):
        raise ValidationError("TRUNCATE TABLE for a view is not allowed")
    if session.streaming:
        raise UnsupportedError("TRUNCATE TABLE statement is not supported in streaming mode.")
    factory = _sink_factory(table)
    if not hasattr(factory, "truncate"):
        raise UnsupportedError(f"TRUNCATE TABLE statement is not supported for the table {path} since the table "
                               f"hasn't implemented the interface {ABILITY}SupportsTruncate.")
    factory.truncate(table.options_dict())
    return TableResult("OK", text=OK)


def _sink_factory(table):
    """The table's connector as a sink (Flink creates the table's sink: a source-only
    connector fails here)."""
    from connectors.base import ConnectorFactory, factory_for
    options = table.options_dict()
    factory = factory_for(options.get("connector") or None, "")
    if type(factory).sink is ConnectorFactory.sink:
        raise ValidationError(f"Connector '{factory.identifier}' can only be used as a source. "
                              "It cannot be used as a sink.")
    return factory


def _no_sink(path) -> str:
    return f"Sink '{path}' does not exists"


def _no_row_level(what: str, path, ability: str) -> str:
    return (f"Can't perform {what} operation of the table {path} because the corresponding dynamic table sink "
            f"has not yet implemented {ABILITY}{ability}.")
