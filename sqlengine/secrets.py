"""Secrets in table options and configuration: which keys hold one, and their values masked
wherever text leaves the engine (SHOW CREATE, REST and SQL Gateway responses, log files).

A key holds a secret when it contains one of Flink's sensitive markers (``password``,
``secret``, ``token``, ``sasl.jaas.config``, ...). In SQL text, the value of every
``'key' = 'value'`` option whose key is one is replaced by ``******``."""
from __future__ import annotations

import re

MARKERS = ("password", "secret", "token", "sasl.jaas.config", "apikey", "api-key", "auth-params",
           "service-key", "basic-auth", "http-headers", "account.key")
MASK = "******"
# 'key' = 'value' with SQL's doubled quotes inside either string.
_OPTION = re.compile(r"('(?:[^']|'')*'\s*=\s*)'((?:[^']|'')*)'")


def is_secret_key(key: str) -> bool:
    lowered = key.lower()
    return any(marker in lowered for marker in MARKERS)


def mask_conf(conf: dict[str, str]) -> dict[str, str]:
    """The configuration with the values of secret keys masked."""
    return {k: MASK if is_secret_key(k) else v for k, v in conf.items()}


def mask_sql(text: str) -> str:
    """``text`` (a statement, a message quoting one) with secret options' values masked."""
    def repl(m: re.Match) -> str:
        key = m.group(1).split("=", 1)[0].strip()[1:-1].replace("''", "'")
        return f"{m.group(1)}'{MASK}'" if is_secret_key(key) else m.group(0)
    return _OPTION.sub(repl, text) if "'" in text else text
