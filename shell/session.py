"""Starting a client's session: the JVM starts in the background while the planner is
imported (a script that sets ``spark.*`` keys itself starts Spark when it first needs
it, with those keys)."""
from __future__ import annotations

import re

_SETS_SPARK = re.compile(r"\bSET\s+'spark\.", re.IGNORECASE)


def start_session(conf: dict[str, str], texts: list[str]):
    """The session; the JVM starts meanwhile, unless a script sets ``spark.*`` keys itself."""
    if conf.get("execution.target", "").strip().lower() == "remote":
        from sqlengine.api.remote import RemoteSession  # the cluster runs Spark: none of it here
        return RemoteSession(conf)
    if not any(_SETS_SPARK.search(t) for t in texts):
        # Start the JVM while the planner is imported; a script that sets spark.* keys
        # itself starts Spark when it first needs it, with those keys.
        from sqlengine.api.control import prestart
        prestart({k: v for k, v in conf.items() if k.startswith("spark.")})
    from sqlengine.api.session import Session
    return Session(conf)




def defines(items: list[str]) -> dict[str, str]:
    """``-D key=value`` options as a configuration."""
    conf = {}
    for item in items:
        if "=" not in item:
            raise SystemExit(f"[ERROR] -D expects key=value, got '{item}'")
        k, v = item.split("=", 1)
        conf[k.strip()] = v.strip()
    return conf
