#!/usr/bin/env bash
# Create ./.venv and install sqlengine into it (idempotent). Needs Python >= 3.10 and Java 17.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if ! command -v java >/dev/null 2>&1; then
  echo "[setup] Java 17 is required by Spark 4 (install openjdk-17-jre-headless)" >&2
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq openjdk-17-jre-headless >/dev/null
  else
    exit 1
  fi
fi
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.sqlengine-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e '.[test,notebook,bench]'  # bench: the benchmarks' charts (matplotlib)
  touch "$stamp"
fi
# Bytecode of our own packages (an editable install compiles nothing): Python only reads a
# .pyc that matches its source, and a machine with PYTHONDONTWRITEBYTECODE set would
# otherwise compile them again in every process (the CLI, each Python worker Spark starts).
.venv/bin/python -m compileall -q -j 0 sqlengine connectors shell catalog >/dev/null
# The driver JVM's class-data archive (sqlengine/runtime/classdata.py): made once per
# machine, in the user's cache, so that every Spark start after it is seconds faster.
.venv/bin/python -m sqlengine.api.classdata >/dev/null
