"""Fault injection for the crash tests (tests/e2e/test_fault_matrix.py): a real component
cannot be told to die at an exact point, so the runtime and the Kafka connector call
``reached(point)`` at the places where a crash matters. With the environment variable
``SQLENGINE_FAULT=<point>`` set (inherited by Spark's executors and Python workers),
the first process that reaches the point kills the job with SIGKILL: the process group
in ``SQLENGINE_FAULT_PGID`` (the CLI, its JVM) and then itself. Unset, ``reached`` costs
one dictionary lookup.

Points: ``restore`` (a job restoring from its checkpoint, before its query starts),
``epoch-start``, ``end-of-input`` (the epoch in which every bounded source ended),
``state-read`` (a stateful operator reads its state), ``state-write`` (a stateful operator's new state version),
``before-sink``, ``after-sink`` (every sink wrote, the epoch's facts not yet recorded),
``after-meta`` (recorded, Spark's commit log not yet written), ``source-commit`` (Spark
committed the epoch to the source), ``kafka-plan`` (the driver planned an epoch's offset
ranges, not yet in Spark's offsets log), ``kafka-read`` (a task read a first batch),
``group-offsets`` (committing an epoch's offsets to the consumer group),
``kafka-txn-begun`` (a writer task began its transaction, nothing produced),
``kafka-produced`` (a writer task produced its records, its transaction not committed),
``kafka-committed`` (one writer task committed, the others maybe not), ``recovery``
(a transactional sink about to resolve what a crash left open, at job start),
``recovering`` (part of it resolved: one PostgreSQL prepared transaction rolled back, one
Kafka transactional id fenced, a file sink's committed epoch published but its leftovers
not removed), ``file-staged`` (a file sink's writer task staged its file, the epoch not
committed), ``file-marked`` (a file sink recorded an epoch as committed, its files not
yet renamed), ``jdbc-written``
(a PostgreSQL writer task wrote its rows, not prepared), ``jdbc-prepared`` (it prepared
its transaction), ``jdbc-committing`` (the driver committed one task's prepared
transaction, the others not yet), ``jdbc-committed`` (all committed, Spark not told).

``SQLENGINE_FAULT_ACTION=raise:<folder>`` raises ``InjectedError`` instead of killing, once:
the first process to reach the point creates ``<folder>/raised-<point>`` and raises; later
arrivals (a restarted job replaying the epoch) go on. A task or an epoch fails as it would
on a real error, and the job's restart strategy decides what happens next.

``SQLENGINE_FAULT_ACTION=pause:<folder>`` pauses instead of killing, for outage tests:
the first process to reach the point creates ``<folder>/reached`` and waits until ``<folder>/resume`` exists
(at most 5 minutes), so a test can stop a broker or a database at that exact point.

``SQLENGINE_FAULT_SKIP=<n>``: each process lets its first ``n`` arrivals at the point pass
(a driver's point is reached once per epoch: ``1`` kills or fails in the second epoch).
"""
from __future__ import annotations

import os
import signal
import time

ENV = "SQLENGINE_FAULT"
PGID = "SQLENGINE_FAULT_PGID"
ACTION = "SQLENGINE_FAULT_ACTION"
SKIP = "SQLENGINE_FAULT_SKIP"
_arrivals: dict = {}  # (point, action) -> arrivals in this process (a new setting counts afresh)


def arm() -> None:
    """In the CLI process, before Spark starts: its process group is the one to kill
    (executors and Python workers inherit the variable)."""
    if os.environ.get(ENV) and not os.environ.get(PGID):
        os.environ[PGID] = str(os.getpgrp())


class InjectedError(RuntimeError):
    """The failure ``SQLENGINE_FAULT_ACTION=raise:<folder>`` injects."""


def reached(point: str) -> None:
    if os.environ.get(ENV) != point:
        return
    action = os.environ.get(ACTION, "kill")
    if action.startswith("pause:"):
        _pause(action[len("pause:"):], point)
        return
    if _skipped(point, action):
        return
    if action.startswith("raise:"):
        try:
            fd = os.open(os.path.join(action[len("raise:"):], f"raised-{point}"),
                         os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return
        os.close(fd)
        raise InjectedError(f"injected failure at '{point}'")
    group = os.environ.get(PGID)
    if group:
        try:
            os.killpg(int(group), signal.SIGKILL)
        except OSError:
            pass
    os.kill(os.getpid(), signal.SIGKILL)


def _skipped(point: str, action: str) -> bool:
    """Whether this arrival is one of the first ``SQLENGINE_FAULT_SKIP`` at the point."""
    key = (point, action)
    _arrivals[key] = _arrivals.get(key, 0) + 1
    return _arrivals[key] <= int(os.environ.get(SKIP, "0") or 0)


def _pause(folder: str, point: str = "") -> None:
    if _skipped(point, f"pause:{folder}"):
        return
    try:
        fd = os.open(os.path.join(folder, "reached"), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:  # another process (or an earlier arrival) paused already
        return
    os.close(fd)
    resume = os.path.join(folder, "resume")
    deadline = time.monotonic() + 300
    while not os.path.exists(resume) and time.monotonic() < deadline:
        time.sleep(0.05)
