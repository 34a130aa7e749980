#!/usr/bin/env bash
# Install sqlengine into ./.venv and run the whole test suite (unit, end-to-end, conformance).
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
# The Kafka tests start a real broker from jars that Maven fetches (tests/connectors/kafka/broker.py).
if ! command -v mvn >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq maven >/dev/null
  else
    echo "[test] Maven (mvn) is needed to fetch the Kafka broker for the tests" >&2
    exit 1
  fi
fi
# The JDBC tests start a throw-away PostgreSQL cluster from Debian's package (tests/connectors/jdbc/postgres.py).
if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 && [ -z "${SQLENGINE_TEST_POSTGRES:-}" ]; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq postgresql >/dev/null
  else
    echo "[test] PostgreSQL is needed for the JDBC tests: apt-get install -y postgresql" >&2
    exit 1
  fi
fi
# The dashboard's test drives a headless Chromium through Selenium (tests/service/test_dashboard.py).
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq chromium chromium-driver >/dev/null
  else
    echo "[test] Chromium is needed for the dashboard's test: apt-get install -y chromium chromium-driver" >&2
    exit 1
  fi
fi
# The avro format's tests load Spark's spark-avro module: fetched once from Maven Central into
# ~/.cache/sqlengine (connectors/formats/spark_avro.py), here rather than by two test workers at once.
.venv/bin/python -m connectors.formats.spark_avro >/dev/null
export PYSPARK_PYTHON="$PWD/.venv/bin/python"
# Three workers (pytest-xdist), whole test files each: much of a test's time is spent in one
# single-threaded place (Spark's planner, a JVM starting, a job waiting on a broker, a Spark
# job's fixed cost), so they interleave well even on 2 cores. Measured on a clean clone of
# ac21f8d on this 2-core machine (2026-12-03): two workers 2,507 s of tests (files summing to
# 4,948 s), three 2,051 s (5,960 s: each test slower, the cores busy throughout), both green.
# SQLENGINE_TEST_WORKERS=0 runs everything in one process.
workers=${SQLENGINE_TEST_WORKERS:-3}
if [ "$workers" -gt 0 ]; then
  exec .venv/bin/python -m pytest -q -n "$workers" --dist loadfile --no-loadscope-reorder "$@"
fi
exec .venv/bin/python -m pytest -q "$@"
