#!/usr/bin/env bash
# Install sqlengine into ./.venv and run the whole test suite (unit, end-to-end, conformance).
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
export PYSPARK_PYTHON="$PWD/.venv/bin/python"
exec .venv/bin/python -m pytest -q "$@"
