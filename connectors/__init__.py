"""Built-in connectors; importing this package registers their factories."""
from __future__ import annotations

import importlib

BUILTIN = ("connectors.filesystem", "connectors.datagen", "connectors.printsink", "connectors.blackhole")

for _name in BUILTIN:
    try:
        importlib.import_module(_name)
    except ModuleNotFoundError as _err:  # a connector package not installed in this checkout
        if _err.name != _name:
            raise
