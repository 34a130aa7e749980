"""A view's query at CREATE / ALTER VIEW: validated as Flink validates it (without planning
it), and expanded as Flink stores it for SHOW CREATE VIEW."""
from __future__ import annotations

from sqlglot import exp

from sqlengine.api.state import SessionState
from sqlengine.dialect.script import generate


def view_binder(session: SessionState, source: str):
    """The binder that validates a view's query: Flink validates it without planning it, so
    what only a streaming plan refuses (ORDER BY a column that is no time attribute) is
    refused when the view is queried, not when it is created."""
    from sqlengine.binder.query import QueryBinder
    return QueryBinder(session.catalogs, source, False, conf=dict(session.conf))


def view_expansion(session: SessionState, query: exp.Expression):
    """The view's expanded query (sqlengine/binder/expand.py), computed once the query bound;
    None (SHOW CREATE VIEW then prints the query as written) for a query the expansion
    cannot qualify, logged."""
    from sqlengine.binder.expand import expanded_query
    try:
        return expanded_query(query, session.catalogs)
    except Exception:  # noqa: BLE001 - the view is valid (it bound); only its printed form is lost
        import logging
        logging.getLogger(__name__).warning("no expanded query for view: %s", generate(query), exc_info=True)
        return None
