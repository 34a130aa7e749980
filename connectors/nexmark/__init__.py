"""The ``nexmark`` source connector: Nexmark's events, generated (see source.py, generator.py)."""
from connectors.base import register
from connectors.nexmark.source import NexmarkFactory

FACTORY = register(NexmarkFactory())

__all__ = ["FACTORY", "NexmarkFactory"]
