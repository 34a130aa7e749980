#!/usr/bin/env bash
# Install sqlengine into ./.venv and run examples/quickstart.sql on local Spark.
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
.venv/bin/sqlengine --help >/dev/null
exec .venv/bin/sqlengine -f examples/quickstart.sql "$@"
