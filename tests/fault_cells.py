"""The fault matrix's cells, reported by the tests that run them and printed as one table
at the end of the test session (tests/conftest.py).

A cell is one kind of failure (a process killed at a fault point, a failure the restart
strategy recovers in process, the leader JobManager or a Spark worker killed, a component's
outage) at one point of one pipeline. The test that runs it counts what the pipeline
committed against the output it computed itself from the input (never from the engine),
and reports the cell through ``item.user_properties``: pytest copies those into the test's
report, and pytest-xdist carries reports from its workers to the controller, which prints
the table (``pytest_terminal_summary``).
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass

PROPERTY = "fault_matrix_cell"
MINIMUM = 30  # distinct cells the issue asks for (checked when every test below ran and passed)
# The tests that report cells ("file::function", parameters left out).
TESTS = frozenset({
    "tests/connectors/kafka/test_fault_matrix.py::test_kafka_pipelines_killed_or_failed_in_their_tasks_stay_exact",
    "tests/connectors/kafka/test_fault_matrix.py::test_kafka_pipelines_failed_on_their_driver_restart_and_stay_exact",
    "tests/runtime/test_restart.py::test_a_failed_job_restarts_from_its_checkpoint_and_stays_exact",
    "tests/service/test_failover.py::test_a_standby_takes_over_from_a_killed_leader_and_resumes_every_job_exactly",
    "tests/service/test_failover.py::test_a_restarted_cluster_resumes_the_jobs_it_had",
    "tests/connectors/kafka/test_standalone_cluster.py::test_window_job_on_a_standalone_cluster_survives_a_lost_worker",
    "tests/connectors/kafka/test_outages.py::test_broker_restart_mid_run_loses_and_duplicates_nothing",
    "tests/connectors/kafka/test_outages.py::test_postgres_down_during_commit_then_restart_completes",
    "tests/connectors/kafka/test_outages.py::test_broker_down_while_the_job_runs_is_outlasted_by_its_restart_strategy",
    "tests/connectors/kafka/test_outages.py::test_postgres_down_during_commit_is_outlasted_by_the_restart_backoff",
})


@dataclass(frozen=True)
class Cell:
    kind: str  # kill | restart (in process) | leader kill | cluster kill | worker kill | outage
    point: str  # where it failed (fault points, with the arrivals let pass first)
    pipeline: str
    expected: int  # records the test computed from the input
    committed: int  # records the pipeline committed (read back from its sink)
    lost: int
    duplicated: int

    @property
    def key(self) -> tuple:
        return self.kind, self.point, self.pipeline


def report(node, kind: str, point: str, pipeline: str, expected: Counter, committed: Counter) -> Cell:
    """Count ``committed`` against ``expected`` and report the cell for the session's table
    (``node``: the test's ``request.node``). Report before asserting, so a failing cell shows."""
    cell = Cell(kind, point, pipeline, sum(expected.values()), sum(committed.values()),
                sum((expected - committed).values()), sum((committed - expected).values()))
    node.user_properties.append((PROPERTY, json.dumps(asdict(cell))))
    return cell


def from_report(report) -> list[Cell]:
    """The cells a test's call report carries."""
    if report.when != "call":
        return []
    return [Cell(**json.loads(value)) for name, value in report.user_properties if name == PROPERTY]


def table(cells: list[Cell]) -> str:
    distinct = {c.key: c for c in cells}
    rows = sorted(distinct.values(), key=lambda c: (c.kind, c.pipeline, c.point))
    width = max([len(c.point) for c in rows] + [24])
    head = (f"{'failure':12s} {'point':{width}s} {'pipeline':34s} {'expected':>8s} {'committed':>9s} "
            f"{'lost':>5s} {'duplicated':>10s}")
    lines = [head, "-" * len(head)]
    for c in rows:
        lines.append(f"{c.kind:12s} {c.point:{width}s} {c.pipeline:34s} {c.expected:8d} {c.committed:9d} "
                     f"{c.lost:5d} {c.duplicated:10d}")
    lines.append(f"{len(rows)} distinct cells; {sum(1 for c in rows if c.lost or c.duplicated)} with records "
                 f"lost or duplicated")
    return "\n".join(lines)


def function_of(nodeid: str) -> str:
    """``file::function`` of a test's node id (its parameters left out)."""
    return nodeid.split("[", 1)[0]
