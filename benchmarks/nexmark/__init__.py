"""Nexmark\x27s queries and the pieces sqlengine runs them with (suite.py, udf.py); the benchmark is benchmarks/nexmark.py."""
