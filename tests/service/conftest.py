"""Fixtures of the service tests: a real ZooKeeper for high availability."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def zookeeper(tmp_path_factory):
    """A real ZooKeeper server shared by the session (``.quorum`` its address). Tests that
    stop or kill a server start one of their own (``tests.service.zookeeper.ZooKeeper``)."""
    from tests.service.zookeeper import ZooKeeper
    server = ZooKeeper(tmp_path_factory.mktemp("zookeeper")).start()
    try:
        yield server
    finally:
        server.stop()
