"""Fault injection for the crash tests (tests/e2e/test_fault_matrix.py): a real component
cannot be told to die at an exact point, so the runtime and the Kafka connector call
``reached(point)`` at the places where a crash matters. With the environment variable
``SQLENGINE_FAULT=<point>`` set (inherited by Spark's executors and Python workers),
the first process that reaches the point kills the job with SIGKILL: the process group
in ``SQLENGINE_FAULT_PGID`` (the CLI, its JVM) and then itself. Unset, ``reached`` costs
one dictionary lookup.

Points: ``epoch-start``, ``state-write`` (a stateful operator's new state version),
``before-sink``, ``after-sink`` (every sink wrote, the epoch's facts not yet recorded),
``after-meta`` (recorded, Spark's commit log not yet written), ``source-commit`` (Spark
committed the epoch to the source), ``kafka-read`` (a task read a first batch),
``kafka-produced`` (a writer task produced its records, its transaction not committed),
``kafka-committed`` (one writer task committed, the others maybe not), ``recovery``
(the Kafka sink resolving open transactions at job start).
"""
from __future__ import annotations

import os
import signal

ENV = "SQLENGINE_FAULT"
PGID = "SQLENGINE_FAULT_PGID"


def arm() -> None:
    """In the CLI process, before Spark starts: its process group is the one to kill
    (executors and Python workers inherit the variable)."""
    if os.environ.get(ENV) and not os.environ.get(PGID):
        os.environ[PGID] = str(os.getpgrp())


def reached(point: str) -> None:
    if os.environ.get(ENV) != point:
        return
    group = os.environ.get(PGID)
    if group:
        try:
            os.killpg(int(group), signal.SIGKILL)
        except OSError:
            pass
    os.kill(os.getpid(), signal.SIGKILL)
