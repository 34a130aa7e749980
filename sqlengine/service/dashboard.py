"""The web dashboard, served by a cluster's REST endpoint (placeholder: no pages yet)."""
from __future__ import annotations

from starlette.routing import Route


def routes() -> list[Route]:
    return []
