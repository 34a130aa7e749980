"""The dialect round-trip corpus: real Flink statements parse, generate and re-parse to
the same tree (also when pretty-printed), and none falls back to sqlglot's raw Command node.

Statements are read with the corpus's own format reader (``corpus/count.py``), so test ids
match ``count.py --list`` (``<file>-<index>``)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from sqlglot import exp

from sqlengine.dialect import generate, parse_script
from sqlengine.dialect.flink import Flink

CORPUS = Path(__file__).parent / "corpus"


def _corpus_reader():
    spec = importlib.util.spec_from_file_location("corpus_count", CORPUS / "count.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.parse_file


def corpus_statements():
    parse_file = _corpus_reader()
    out = []
    for f in sorted(CORPUS.glob("*.sql")):
        for i, (_source, text) in enumerate(parse_file(f)):
            out.append(pytest.param(text, id=f"{f.stem}-{i}"))
    return out


STATEMENTS = corpus_statements() if CORPUS.is_dir() else []


def test_corpus_is_large_enough():
    assert len(STATEMENTS) >= 150, f"only {len(STATEMENTS)} statements in the corpus"


@pytest.mark.parametrize("stmt", STATEMENTS)
def test_round_trip(stmt):
    parsed = parse_script(stmt)
    assert len(parsed) == 1
    node = parsed[0].node
    assert not isinstance(node, exp.Command) and not list(node.find_all(exp.Command)), stmt
    sql = generate(node)
    again = parse_script(sql)
    assert len(again) == 1, sql
    assert again[0].node == node, f"{stmt}\n--- generated:\n{sql}"
    pretty = node.sql(dialect=Flink(), pretty=True)
    assert [s.node for s in parse_script(pretty)] == [node], f"{stmt}\n--- pretty:\n{pretty}"
