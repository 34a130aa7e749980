"""Shared fixtures: one local SparkSession for the whole test session."""
from __future__ import annotations

import os
import sys

import pytest

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
# Every Spark driver JVM of the test suite runs with the C1 compiler only and a code cache
# that does not fill (``SPARK_SUBMIT_OPTS`` reaches the driver JVM spark-submit starts): the
# test session's own (``spark`` below) and the CLI processes the tests start (crash matrix,
# outages, e2e). A test JVM keeps meeting new Catalyst code paths (every test plans new
# queries), so C2 keeps compiling. Measured on tests/runtime/test_epoch_aggregates.py alone
# (15 tests, one worker): C2 on, its compiler threads were 72% of the driver JVM's CPU (104 s
# of 145 s), the machine 82% busy for 200 s; C1 only with the default code cache, 252 s (its
# sweeper thread spent 26 s flushing a full cache); C1 only with a 1 GB cache, 184-208 s and
# 63% busy (compiler threads 7 s). A CLI run of 3 epochs costs ~14 CPU seconds instead of
# ~30. Over the whole suite it is a trade, not a cut: in a clean-clone CI run planning-bound
# files gained (fault matrix 849 -> 721 s) and compute-bound ones lost (Python UDAF 161 ->
# 247 s); the total stayed within the machine's noise (~55-58 min).
TEST_JIT = "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=1g"
os.environ.setdefault("SPARK_SUBMIT_OPTS", TEST_JIT)


@pytest.fixture(scope="session")
def spark():
    from sqlengine.runtime.spark import get_spark

    session = get_spark({"spark.sql.shuffle.partitions": "2"})
    yield session


@pytest.fixture(scope="session")
def kafka_bootstrap(tmp_path_factory):
    """Bootstrap servers of a real Kafka: ``KAFKA_BOOTSTRAP_SERVERS``, else a broker of our own."""
    external = os.environ.get("KAFKA_BOOTSTRAP_SERVERS")
    if external:
        yield external
        return
    from tests.connectors.kafka.broker import Broker
    broker = Broker(tmp_path_factory.mktemp("kafka")).start()
    try:
        yield broker.bootstrap
    finally:
        broker.stop()


# The longest test files, first: under pytest-xdist (test.sh runs three workers, whole files
# each) a long file that starts last keeps one worker busy while the others idle.
LONGEST_FIRST = (  # by their time in a CI run (3 workers, 2026-12-03), longest first (pytest-xdist hands
    # whole files out in this order); then the files that were long in earlier runs
    "tests/runtime/test_epoch_aggregates.py", "tests/connectors/kafka/test_fault_matrix.py",
    "tests/conformance/test_extra.py", "tests/runtime/test_epoch_joins_ranks.py",
    "tests/conformance/test_conformance.py", "tests/connectors/kafka/test_kafka_connector.py",
    "tests/e2e/test_rescale_restore.py", "tests/runtime/test_touched_keys.py", "tests/e2e/test_cli_errors.py",
    "tests/connectors/kafka/test_standalone_cluster.py", "tests/service/test_failover.py",
    "tests/nexmark/test_nexmark_queries.py", "tests/connectors/kafka/test_outages.py",
    "tests/service/test_rest_api.py", "tests/match/test_match_sql.py", "tests/e2e/test_kill_restart.py",
    "tests/functions/test_python_udaf.py", "tests/runtime/test_restart.py", "tests/service/test_cluster.py",
    "tests/runtime/test_streaming_sort_limit.py", "tests/e2e/test_statement_set.py",
    "tests/runtime/test_state_ttl.py", "tests/e2e/test_shuffles.py", "tests/shell/test_terminal.py",
    "tests/service/test_openapi.py", "tests/service/test_sql_client.py", "tests/runtime/test_hdfs_checkpoints.py",
    "tests/connectors/filesystem/test_filesystem_conformance_io.py",
    "tests/connectors/kafka/test_changelog_sources.py", "tests/runtime/test_codegen_cache.py",
    "tests/shell/test_cli_modes.py", "tests/binder/test_batch_rows.py", "tests/functions/test_python_udf.py",
    "tests/connectors/nexmark/test_nexmark.py", "tests/e2e/test_cli.py", "tests/e2e/test_bad_input.py",
    "tests/e2e/test_stop_signal.py", "tests/notebook/test_notebook.py", "tests/runtime/test_result_stream.py",
    "tests/e2e/test_changelog_print.py", "tests/connectors/jdbc/test_jdbc_connector.py",
    "tests/runtime/test_savepoints.py", "tests/service/test_dashboard.py")


def pytest_collection_modifyitems(config, items):
    def rank(item) -> int:
        path = item.nodeid.split("::")[0]
        return LONGEST_FIRST.index(path) if path in LONGEST_FIRST else len(LONGEST_FIRST)
    items.sort(key=rank)  # stable: the order within and among the other files is kept


@pytest.fixture(scope="session")
def postgres():
    """A real PostgreSQL (``SQLENGINE_TEST_POSTGRES``, else a cluster of our own), for the
    jdbc tests, the fault matrix and the failover tests."""
    from tests.connectors.jdbc.pg_util import postgres_server
    yield from postgres_server()


@pytest.fixture(scope="session")
def hdfs(tmp_path_factory):
    """A real HDFS (a NameNode and a DataNode) shared by the session; ``.url`` its root."""
    from tests.hdfs import Hdfs
    server = Hdfs(tmp_path_factory.mktemp("hdfs")).start()
    try:
        yield server
    finally:
        server.stop()


# --- the fault matrix: one table of every cell the session ran (tests/fault_cells.py) -------
_CELLS: list = []
_PASSED: set = set()
_FAILED: set = set()


_FILE_SECONDS: dict = {}


def pytest_runtest_logreport(report):
    """Collect the cells (under pytest-xdist: on the controller, from its workers' reports),
    and each test file's time (setup, call and teardown) for the summary's slowest files."""
    from tests import fault_cells
    path = report.nodeid.split("::")[0]
    _FILE_SECONDS[path] = _FILE_SECONDS.get(path, 0.0) + (report.duration or 0.0)
    test = fault_cells.function_of(report.nodeid)
    if test not in fault_cells.TESTS:
        return
    _CELLS.extend(fault_cells.from_report(report))
    if report.failed:
        _FAILED.add(test)
    elif report.when == "call" and report.passed:
        _PASSED.add(test)


def _matrix_short(config) -> str:
    """Why the session's cells are fewer than the issue asks for ('' if they are not, or if
    not every test with cells ran and passed: then the count is not checkable)."""
    from tests import fault_cells
    if config.option.keyword or config.option.markexpr or _FAILED or _PASSED != fault_cells.TESTS:
        return ""
    distinct = len({c.key for c in _CELLS})
    return "" if distinct >= fault_cells.MINIMUM else \
        f"the fault matrix has {distinct} distinct cells, fewer than {fault_cells.MINIMUM}"


def pytest_sessionfinish(session, exitstatus):
    if hasattr(session.config, "workerinput"):
        return  # an xdist worker: its reports reach the controller
    if _matrix_short(session.config) and exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    from tests import fault_cells
    if hasattr(config, "workerinput"):
        return
    if _FILE_SECONDS:  # what LONGEST_FIRST (above) and the CI budget are kept by
        slowest = sorted(_FILE_SECONDS.items(), key=lambda kv: -kv[1])[:30]
        terminalreporter.write_sep("=", f"slowest test files (all: {sum(_FILE_SECONDS.values()):.0f} s)")
        for path, seconds in slowest:
            terminalreporter.write_line(f"{seconds:8.1f} s  {path}")
    if not _CELLS:
        return
    terminalreporter.write_sep("=", "fault matrix")
    terminalreporter.write_line(fault_cells.table(_CELLS))
    short = _matrix_short(config)
    if short:
        terminalreporter.write_line(f"FAILED: {short}", red=True)
