"""Built-in connectors. Each package registers its factory when imported; the runtime
imports a connector's package the first time a table names it (``factory_for``), so a
job loads only the connectors it uses."""
from __future__ import annotations

from connectors.base import BUILTIN

__all__ = ["BUILTIN"]
