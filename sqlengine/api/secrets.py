"""Masking secrets in what leaves the engine (sqlengine/secrets.py), for the service."""
from __future__ import annotations

from sqlengine.secrets import MASK, is_secret_key, mask_conf, mask_sql  # noqa: F401 - the API
