"""The persistent catalog: files on disk, other processes, concurrent writers."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from catalog.file import FileCatalog, decode_name, encode_name
from catalog.objects import (
    CatalogFunction,
    CatalogTable,
    CatalogView,
    Column,
    TableSchema,
    WatermarkSpec,
)
from catalog.serde import object_from_json
from sqlengine.errors import CatalogError
from sqlengine.types import ARRAY, BIGINT, DECIMAL, MAP, ROW, STRING, TIMESTAMP, TIMESTAMP_LTZ

REPO = Path(__file__).resolve().parents[2]


def run_python(code: str, *args: str) -> str:
    """Run ``code`` in a fresh interpreter (a second process, nothing shared)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def orders_table() -> CatalogTable:
    schema = TableSchema(
        (Column("id", BIGINT()),
         Column("customer", ROW([("name", STRING(False)), ("tags", ARRAY(STRING()))])),
         Column("attrs", MAP(STRING(), DECIMAL(10, 2))),
         Column("ts", TIMESTAMP(3)),
         Column("ingested", TIMESTAMP_LTZ(3), "metadata", metadata_key="timestamp", virtual=True),
         Column("total", DECIMAL(12, 2), "computed", "CASE WHEN id > 0 THEN 1 ELSE 0 END")),
        (WatermarkSpec("ts", "`ts` - INTERVAL '1' SECOND"),),
        ("id",))
    return CatalogTable(schema, (("connector", "kafka"), ("topic", "orders"),
                                 ("properties.bootstrap.servers", "localhost:9092")),
                        ("id",), "the orders")


READ_SCRIPT = """
    import json, sys
    from catalog.file import FileCatalog
    from catalog.serde import object_to_json
    cat = FileCatalog("c", sys.argv[1])
    out = {"databases": cat.list_databases(), "objects": {}}
    for db in cat.list_databases():
        out[db] = {"tables": cat.list_tables(db), "views": cat.list_views(db),
                   "functions": cat.list_functions(db)}
        for name in cat.list_tables(db):
            t = cat.get_table(db, name)
            out["objects"][db + "." + name] = object_to_json(t)
            out["objects"][db + "." + name + ":types"] = [str(c.type) for c in t.schema.columns]
        for name in cat.list_functions(db):
            out["objects"][db + "." + name] = object_to_json(cat.get_function(db, name))
    print(json.dumps(out))
"""


def test_second_process_lists_and_reads_definitions(tmp_path):
    root = tmp_path / "cat"
    cat = FileCatalog("c", root)
    table = orders_table()
    view = CatalogView("SELECT id FROM orders", TableSchema((Column("id", BIGINT(False)),)))
    fn = CatalogFunction("udfs.plus_one", "PYTHON")
    cat.create_database("Sales", False, comment="sales data")
    cat.create_table("Sales", "Orders", table, False)
    cat.create_table("Sales", "order_ids", view, False)
    cat.create_function("Sales", "PlusOne", fn, False)

    out = json.loads(run_python(READ_SCRIPT, str(root)))

    assert out["databases"] == ["Sales", "default_database"]
    assert out["Sales"] == {"tables": ["Orders", "order_ids"], "views": ["order_ids"],
                            "functions": ["plusone"]}
    assert object_from_json(out["objects"]["Sales.Orders"]) == table
    assert object_from_json(out["objects"]["Sales.order_ids"]) == view
    assert object_from_json(out["objects"]["Sales.plusone"]) == fn
    assert out["objects"]["Sales.Orders:types"] == [
        "BIGINT NOT NULL", "ROW<`name` STRING NOT NULL, `tags` ARRAY<STRING>>",
        "MAP<STRING, DECIMAL(10, 2)>", "TIMESTAMP(3)", "TIMESTAMP_LTZ(3)", "DECIMAL(12, 2)"]


def test_definitions_made_by_another_process_are_visible_here(tmp_path):
    root = tmp_path / "cat"
    cat = FileCatalog("c", root)  # opened before the other process writes
    run_python("""
        import sys
        from catalog.file import FileCatalog
        from catalog.objects import CatalogTable, Column, TableSchema
        from sqlengine.types import INT
        cat = FileCatalog("c", sys.argv[1])
        cat.create_database("db2", False)
        cat.create_table("db2", "t", CatalogTable(TableSchema((Column("a", INT()),)),
                                                  {"connector": "print"}), False)
        cat.drop_table("default_database", "gone", True, None)
    """, str(root))
    assert cat.list_databases() == ["db2", "default_database"]
    t = cat.get_table("db2", "t")
    assert t.options_dict() == {"connector": "print"}
    assert str(t.schema.columns[0].type) == "INT"


def test_only_one_of_several_racing_processes_creates_a_table(tmp_path):
    root = tmp_path / "cat"
    FileCatalog("c", root)
    script = textwrap.dedent("""
        import sys
        from catalog.file import FileCatalog
        from catalog.objects import CatalogTable, Column, TableSchema
        from sqlengine.errors import CatalogError
        from sqlengine.types import INT
        cat = FileCatalog("c", sys.argv[1])
        t = CatalogTable(TableSchema((Column("a", INT()),)), {"writer": sys.argv[2]})
        try:
            cat.create_table("default_database", "t", t, False)
            print("created")
        except CatalogError as exc:
            print("refused:", exc)
    """)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen([sys.executable, "-c", script, str(root), str(i)], cwd=REPO,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for i in range(4)]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outputs]
    created = [i for i, (out, _) in enumerate(outputs) if out.startswith("created")]
    assert len(created) == 1
    assert all("already exists" in out for out, _ in outputs if not out.startswith("created"))
    winner = FileCatalog("c", root).get_table("default_database", "t")
    assert winner.options_dict() == {"writer": str(created[0])}


def test_readers_never_see_half_written_files(tmp_path):
    root = tmp_path / "cat"
    cat = FileCatalog("c", root)
    big = {f"k{i}": "x" * 2000 for i in range(50)}
    schema = TableSchema((Column("a", BIGINT()),))
    cat.create_table("default_database", "t", CatalogTable(schema, big), False)
    writer = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import sys
        from catalog.file import FileCatalog
        from catalog.objects import CatalogTable, Column, TableSchema
        from sqlengine.types import BIGINT
        cat = FileCatalog("c", sys.argv[1])
        schema = TableSchema((Column("a", BIGINT()),))
        for n in range(60):
            opts = {f"k{i}": str(n) * 500 for i in range(50)}
            cat.alter_table("default_database", "t", CatalogTable(schema, opts))
    """), str(root)], cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)},
        stderr=subprocess.PIPE, text=True)
    reads = 0
    while writer.poll() is None or reads == 0:
        opts = cat.get_table("default_database", "t").options_dict()
        assert len(opts) == 50 and len(set(opts.values())) == 1  # one consistent version
        reads += 1
    assert writer.returncode == 0, writer.stderr.read()
    assert reads > 0
    leftovers = [p for p in (root / "default_database" / "tables").iterdir()
                 if p.name.startswith(".")]
    assert leftovers == []


def test_file_layout_and_name_encoding(tmp_path):
    cat = FileCatalog("c", tmp_path)
    cat.create_table("default_database", "My Table/x", orders_table(), False)
    cat.create_table("default_database", "my table/x", orders_table(), False)
    files = sorted(p.name for p in (tmp_path / "default_database" / "tables").iterdir())
    assert files == ["%4Dy%20%54able%2Fx.json", "my%20table%2Fx.json"]
    assert (tmp_path / "default_database" / "database.json").is_file()
    assert cat.list_tables("default_database") == ["My Table/x", "my table/x"]
    doc = json.loads((tmp_path / "default_database" / "tables" / files[1]).read_text())
    assert doc["kind"] == "TABLE" and doc["version"] == 1


@pytest.mark.parametrize("name", ["t", "T", "Ünïcödé", "a.b", "..", "%41", "名前", "x y"])
def test_name_encoding_round_trips(name):
    encoded = encode_name(name)
    assert decode_name(encoded) == name
    assert "/" not in encoded and not encoded.startswith(".")


def test_corrupt_file_is_reported_with_its_path(tmp_path):
    cat = FileCatalog("c", tmp_path)
    bad = tmp_path / "default_database" / "tables" / "t.json"
    bad.write_text("{not json")
    with pytest.raises(CatalogError, match="Corrupt catalog file .*t.json"):
        cat.get_table("default_database", "t")


def test_reopening_keeps_everything_and_a_new_default_database_is_created(tmp_path):
    cat = FileCatalog("c", tmp_path)
    cat.create_table("default_database", "t", orders_table(), False)
    again = FileCatalog("other_name", tmp_path, default_database="db2")
    assert again.list_databases() == ["db2", "default_database"]
    assert again.get_table("default_database", "t") == orders_table()


def test_drop_database_removes_its_folder(tmp_path):
    cat = FileCatalog("c", tmp_path)
    cat.create_database("db1", False)
    cat.create_table("db1", "t", orders_table(), False)
    cat.drop_database("db1", False, cascade=True)
    assert not (tmp_path / "db1").exists()
    assert cat.list_databases() == ["default_database"]


def test_unusable_path_is_a_catalog_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(CatalogError, match="Cannot create catalog folder"):
        FileCatalog("c", blocker / "sub")
