"""sqlengine as a service: Flink's REST API over the jobs of a session (``rest.py``).

This package is a client of the public API (``sqlengine.api``) only, as the shell is;
nothing here is imported until a REST endpoint is asked for (``rest.port``)."""
from __future__ import annotations

from typing import Optional


def serve_if_configured(session) -> Optional[object]:
    """Flink's REST endpoint for ``session``'s jobs when ``rest.port`` is set (the
    started server, or None)."""
    if session.conf.get("rest.port") in (None, ""):
        return None
    from sqlengine.service.rest import serve
    return serve(session)
