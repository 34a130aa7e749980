"""Keep ``import connectors`` pointing at the real package.

``tests/`` is on ``sys.path`` under the console-script ``pytest`` (the rootdir
conftest), so the folder ``tests/connectors`` would be picked up as a namespace
package named ``connectors`` and the real package's ``__init__`` (which registers
the built-in connectors) would never run. A regular package anywhere on
``sys.path`` wins over namespace portions, so putting the repository root on it
is enough (``python -m pytest`` does that already).
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[3])
if ROOT not in sys.path:
    sys.path.append(ROOT)
_loaded = sys.modules.get("connectors")
if _loaded is not None and getattr(_loaded, "__file__", None) is None:
    del sys.modules["connectors"]  # a namespace package cached before the fix
