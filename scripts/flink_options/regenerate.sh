#!/usr/bin/env bash
# Regenerate sqlengine/flink_options.txt (every configuration key of Flink 2.3) from the jars
# of PyFlink 2.3.0 in its own venv (never a project dependency) and flink-sql-gateway 2.3.0:
#   scripts/flink_options/regenerate.sh <pyflink folder> <flink-sql-gateway-2.3.0.jar>
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
pyflink="$1"; gateway="$2"
cp="$(ls "$pyflink"/lib/*.jar "$pyflink"/opt/*.jar "$gateway" | tr '\n' ':')"
work="$(mktemp -d)"
javac -d "$work" -cp "$cp" "$here/Scan.java"
out="$here/../../sqlengine/flink_options.txt"
{
  echo "# Every configuration key of Apache Flink 2.3 (ConfigOption keys and their deprecated names), read by reflection from"
  echo "# flink-dist, flink-table-api-java-uber, flink-table-runtime, flink-sql-client, flink-sql-gateway, flink-connector-files"
  echo "# and flink-json 2.3.0 (scripts/flink_options/regenerate.sh). One key per line."
  java -cp "$cp:$work" Scan "$pyflink"/lib/flink-dist*.jar "$pyflink"/lib/flink-table-api-java-uber*.jar \
    "$pyflink"/opt/flink-sql-client*.jar "$gateway" "$pyflink"/lib/flink-connector-files*.jar \
    "$pyflink"/lib/flink-json*.jar "$pyflink"/lib/flink-table-runtime*.jar 2>/dev/null
} > "$out"
rm -rf "$work"
