"""The ``filesystem`` connector (json and csv formats); importing registers its factory."""
from __future__ import annotations

from connectors.base import register
from connectors.filesystem.factory import FilesystemFactory

FACTORY = register(FilesystemFactory())
