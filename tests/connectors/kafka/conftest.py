from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def kafka_bootstrap(tmp_path_factory):
    """Bootstrap servers of a real Kafka: ``KAFKA_BOOTSTRAP_SERVERS``, else a broker of our own."""
    external = os.environ.get("KAFKA_BOOTSTRAP_SERVERS")
    if external:
        yield external
        return
    from tests.connectors.kafka.broker import Broker
    broker = Broker(tmp_path_factory.mktemp("kafka")).start()
    try:
        yield broker.bootstrap
    finally:
        broker.stop()
