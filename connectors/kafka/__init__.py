"""Kafka connectors: ``kafka`` and ``upsert-kafka`` (factory.py registers both)."""
