"""The web dashboard, served by a cluster's REST endpoint (like Flink's web UI, but small).

The page is static: ``/`` is ``web/index.html`` and ``/web/<file>`` its script and style
sheet. Everything it shows it reads from the REST API next to it (``/v1/overview``,
``/v1/jobs/...``) in the browser, so the dashboard has no handler of its own to keep in
step with the API, and a client that speaks Flink's REST API sees exactly what it sees.
Only the files listed in ``FILES`` are served: a request never names a path on disk.
"""
from __future__ import annotations

from importlib import resources

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

# The page's files and their media types (shipped as package data: pyproject.toml).
FILES = {"index.html": "text/html; charset=utf-8", "app.js": "text/javascript; charset=utf-8",
         "style.css": "text/css; charset=utf-8"}
# Always revalidated: a cluster started from a newer install serves its own page.
HEADERS = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}


def _file(name: str) -> Response:
    body = resources.files("sqlengine.service").joinpath("web", name).read_bytes()
    return Response(body, media_type=FILES[name], headers=HEADERS)


async def index(request: Request) -> Response:
    return _file("index.html")


async def static(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in FILES:
        return Response(f"Not found: /web/{name}", status_code=404, media_type="text/plain")
    return _file(name)


def routes() -> list[Route]:
    """The dashboard's routes: ``/`` and ``/web/<file>`` (no REST path starts so)."""
    return [Route("/", index, methods=["GET"]), Route("/web/{name}", static, methods=["GET"])]
