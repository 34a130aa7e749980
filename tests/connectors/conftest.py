from __future__ import annotations

import pytest

from tests.connectors.jdbc.pg_util import postgres_server


@pytest.fixture(scope="session")
def postgres():
    """A real PostgreSQL (``SQLENGINE_TEST_POSTGRES``, else a cluster of our own), for the
    jdbc tests and the crash matrix."""
    yield from postgres_server()
