"""DESCRIBE / SHOW CREATE / tableau output against Flink's own expected outputs.

Goldens marked "Flink" are copied from Flink's SQL client test script
(flink-sql-client/src/test/resources/sql/table.q) and docs (dev/table/sql/describe.md).
"""
from __future__ import annotations

import pytest

from catalog.objects import (
    CatalogTable,
    CatalogView,
    Column,
    ObjectPath,
    TableSchema,
    WatermarkSpec,
)
from catalog.show import (
    describe_catalog_rows,
    describe_rows,
    flink_expression,
    is_secret_key,
    render_show_result,
    render_tableau,
    serializable_type,
    show_create_table,
    show_create_view,
)
from catalog.tableau import (
    changelog_footer,
    changelog_header,
    column_widths_by_type,
    display_width,
    tableau_row,
)
from sqlengine.types import (
    ARRAY, BIGINT, BOOLEAN, DATE, DECIMAL, DOUBLE, INT, INTERVAL_MS, MAP, ROW, STRING, TIME,
    TIMESTAMP, TIMESTAMP_LTZ, VARCHAR, DataType, RowField,
)

ORDERS = ObjectPath("default_catalog", "default_database", "orders")


def flink_orders(comments: bool = False) -> CatalogTable:
    """CREATE TABLE orders (`user` BIGINT NOT NULL, product VARCHAR(32), amount INT,
    ts TIMESTAMP(3), ptime AS PROCTIME(), PRIMARY KEY(`user`) NOT ENFORCED,
    WATERMARK FOR ts AS ts - INTERVAL '1' SECONDS) WITH ('connector' = 'datagen')"""
    def c(text):
        return text if comments else None
    schema = TableSchema(
        (Column("user", BIGINT(False), comment=c("this is primary key")),
         Column("product", VARCHAR(32)),
         Column("amount", INT()),
         Column("ts", TIMESTAMP(3), comment=c("notice: watermark")),
         Column("ptime", TIMESTAMP_LTZ(3, False), "computed", "PROCTIME()",
                comment=c("this is a computed column"))),
        (WatermarkSpec("ts", "ts - INTERVAL '1' SECONDS"),),
        ("user",))
    return CatalogTable(schema, (("connector", "datagen"),))


FLINK_DESCRIBE = """\
+---------+-----------------------------+-------+-----------+---------------+----------------------------+
|    name |                        type |  null |       key |        extras |                  watermark |
+---------+-----------------------------+-------+-----------+---------------+----------------------------+
|    user |                      BIGINT | FALSE | PRI(user) |               |                            |
| product |                 VARCHAR(32) |  TRUE |           |               |                            |
|  amount |                         INT |  TRUE |           |               |                            |
|      ts |      TIMESTAMP(3) *ROWTIME* |  TRUE |           |               | `ts` - INTERVAL '1' SECOND |
|   ptime | TIMESTAMP_LTZ(3) *PROCTIME* | FALSE |           | AS PROCTIME() |                            |
+---------+-----------------------------+-------+-----------+---------------+----------------------------+
5 rows in set"""

FLINK_DESCRIBE_WITH_COMMENTS = """\
+---------+-----------------------------+-------+-----------+---------------+----------------------------+---------------------------+
|    name |                        type |  null |       key |        extras |                  watermark |                   comment |
+---------+-----------------------------+-------+-----------+---------------+----------------------------+---------------------------+
|    user |                      BIGINT | FALSE | PRI(user) |               |                            |       this is primary key |
| product |                 VARCHAR(32) |  TRUE |           |               |                            |                           |
|  amount |                         INT |  TRUE |           |               |                            |                           |
|      ts |      TIMESTAMP(3) *ROWTIME* |  TRUE |           |               | `ts` - INTERVAL '1' SECOND |         notice: watermark |
|   ptime | TIMESTAMP_LTZ(3) *PROCTIME* | FALSE |           | AS PROCTIME() |                            | this is a computed column |
+---------+-----------------------------+-------+-----------+---------------+----------------------------+---------------------------+
5 rows in set"""


def test_describe_matches_flink():
    header, rows = describe_rows(flink_orders())
    assert header == ["name", "type", "null", "key", "extras", "watermark"]
    assert rows[0] == ["user", "BIGINT", "FALSE", "PRI(user)", None, None]
    assert render_show_result(header, rows) == FLINK_DESCRIBE


def test_describe_adds_comment_column_only_when_a_column_has_one():
    header, rows = describe_rows(flink_orders(comments=True))
    assert header[-1] == "comment"
    assert render_show_result(header, rows) == FLINK_DESCRIBE_WITH_COMMENTS


def test_describe_extras_for_computed_and_metadata_columns():
    schema = TableSchema(
        (Column("id", INT()), Column("price", DECIMAL(10, 2)),
         Column("double_price", DECIMAL(21, 2), "computed", "price * 2"),
         Column("ts", TIMESTAMP_LTZ(3), "metadata", metadata_key="timestamp", virtual=True),
         Column("part", INT(), "metadata"),
         Column("a", INT(), "metadata", metadata_key="it's")),
        primary_key=("id", "price"))
    _, rows = describe_rows(CatalogTable(schema, ()))
    by_name = {r[0]: r for r in rows}
    assert by_name["double_price"][4] == "AS `price` * 2"
    assert by_name["ts"][4] == "METADATA FROM 'timestamp' VIRTUAL"
    assert by_name["part"][4] == "METADATA"
    assert by_name["a"][4] == "METADATA FROM 'it''s'"
    assert by_name["id"][3] == by_name["price"][3] == "PRI(id, price)"
    assert by_name["price"][2] == "FALSE"  # key columns are NOT NULL, as in Flink
    assert by_name["ts"][1] == "TIMESTAMP_LTZ(3)"


def test_describe_view_and_time_attribute_already_on_the_type():
    view = CatalogView("SELECT ...", TableSchema((
        Column("w", TIMESTAMP(3).with_time_attr("ROWTIME")),
        Column("r", ROW([("a", INT(False))], nullable=False)))))
    _, rows = describe_rows(view)
    assert rows == [["w", "TIMESTAMP(3) *ROWTIME*", "TRUE", None, None, None],
                    ["r", "ROW<`a` INT NOT NULL>", "FALSE", None, None, None]]


# -- SHOW CREATE ------------------------------------------------------------------------
# Flink 2.x (ShowCreateUtil) puts WITH on its own line: "\n)\nWITH (\n" (1.x printed ") WITH (").
FLINK_SHOW_CREATE = """\
CREATE TABLE `default_catalog`.`default_database`.`orders` (
  `user` BIGINT NOT NULL,
  `product` VARCHAR(32),
  `amount` INT,
  `ts` TIMESTAMP(3),
  `ptime` AS PROCTIME(),
  WATERMARK FOR `ts` AS `ts` - INTERVAL '1' SECOND,
  CONSTRAINT `PK_user` PRIMARY KEY (`user`) NOT ENFORCED
)
WITH (
  'connector' = 'datagen'
)
"""


def test_show_create_table_matches_flink():
    assert show_create_table(ORDERS, flink_orders()) == FLINK_SHOW_CREATE


def test_show_create_table_with_everything():
    schema = TableSchema(
        (Column("id", BIGINT(), comment="the 'id'"),
         Column("name", STRING()),
         Column("payload", ROW([("a", ARRAY(INT(False))), ("m", MAP(STRING(), DOUBLE()))])),
         Column("ts", TIMESTAMP_LTZ(3), "metadata", metadata_key="timestamp"),
         Column("off", BIGINT(), "metadata", metadata_key="offset", virtual=True),
         Column("upper_name", STRING(), "computed", "upper(name)"),
         Column("dt", STRING())),
        (WatermarkSpec("ts", "ts - interval '5' second"),),
        ("id",), "pk_id")
    table = CatalogTable(schema, {"topic": "t", "connector": "kafka",
                                  "properties.sasl.jaas.config": "secret stuff",
                                  "password": "hunter2", "value.format": "json"},
                         ("dt",), "orders from 'kafka'")
    expected = """\
CREATE TEMPORARY TABLE `c`.`d`.`t` (
  `id` BIGINT NOT NULL COMMENT 'the ''id''',
  `name` VARCHAR(2147483647),
  `payload` ROW<`a` ARRAY<INT NOT NULL>, `m` MAP<VARCHAR(2147483647), DOUBLE>>,
  `ts` TIMESTAMP(3) WITH LOCAL TIME ZONE METADATA FROM 'timestamp',
  `off` BIGINT METADATA FROM 'offset' VIRTUAL,
  `upper_name` AS UPPER(`name`),
  `dt` VARCHAR(2147483647),
  WATERMARK FOR `ts` AS `ts` - INTERVAL '5' SECOND,
  CONSTRAINT `pk_id` PRIMARY KEY (`id`) NOT ENFORCED
)
COMMENT 'orders from ''kafka'''
PARTITIONED BY (`dt`)
WITH (
  'connector' = 'kafka',
  'password' = '******',
  'properties.sasl.jaas.config' = '******',
  'topic' = 't',
  'value.format' = 'json'
)
"""
    assert show_create_table(ObjectPath("c", "d", "t"), table, is_temporary=True) == expected
    assert "hunter2" not in show_create_table(ObjectPath("c", "d", "t"), table)


def test_show_create_table_without_options():
    table = CatalogTable(TableSchema((Column("a", INT()),)), ())
    assert show_create_table(ObjectPath("c", "d", "t"), table) == \
        "CREATE TABLE `c`.`d`.`t` (\n  `a` INT\n)\n"


def test_show_create_view():
    view = CatalogView("SELECT `id`, `name`\nFROM `c`.`d`.`t`",
                       TableSchema((Column("id", BIGINT()), Column("name", STRING()))),
                       "a view")
    assert show_create_view(ObjectPath("c", "d", "v"), view) == (
        "CREATE VIEW `c`.`d`.`v` (\n  `id`,\n  `name`\n)\nCOMMENT 'a view'\n"
        "AS SELECT `id`, `name`\nFROM `c`.`d`.`t`\n")


@pytest.mark.parametrize("key,secret", [
    ("password", True), ("properties.sasl.jaas.config", True), ("Token", True),
    ("aws.secret-key", True), ("sink.transactional-id-prefix", False), ("topic", False)])
def test_secret_keys(key, secret):
    assert is_secret_key(key) is secret


@pytest.mark.parametrize("t,text", [
    (STRING(), "VARCHAR(2147483647)"), (STRING(False), "VARCHAR(2147483647) NOT NULL"),
    (DataType("VARBINARY", precision=2147483647), "VARBINARY(2147483647)"),
    (DataType("BINARY", precision=3), "BINARY(3)"), (DataType("CHAR", precision=2), "CHAR(2)"),
    (TIMESTAMP_LTZ(6), "TIMESTAMP(6) WITH LOCAL TIME ZONE"), (TIMESTAMP(3), "TIMESTAMP(3)"),
    (DECIMAL(10, 2), "DECIMAL(10, 2)"), (DATE(), "DATE"), (TIME(0), "TIME(0)"),
    (BOOLEAN(False), "BOOLEAN NOT NULL"), (INTERVAL_MS(), "INTERVAL DAY(2) TO SECOND(3) NOT NULL"),
    (DataType("MULTISET", element=INT()), "MULTISET<INT>"),
    (DataType("ROW", fields=(RowField("a", INT(), "desc 'x'"),)), "ROW<`a` INT 'desc ''x'''>"),
])
def test_serializable_type(t, text):
    assert serializable_type(t) == text


@pytest.mark.parametrize("expr,expected", [
    ("ts - INTERVAL '1' SECONDS", "`ts` - INTERVAL '1' SECOND"),
    ("`ts` - INTERVAL '1' SECOND", "`ts` - INTERVAL '1' SECOND"),
    ("ts - interval '5' minute", "`ts` - INTERVAL '5' MINUTE"),
    ("price * 2", "`price` * 2"),
    ("case when price > 10 then 'big' else 'small' end",
     "CASE WHEN `price` > 10 THEN 'big' ELSE 'small' END"),
    ("cast(price as decimal(10, 2))", "CAST(`price` AS DECIMAL(10, 2))"),
    ("proctime()", "PROCTIME()"),
    ("payload.a + 1e3", "`payload`.`a` + 1e3"),
    ("'price' || name", "'price' || `name`"),
    ("second + 1", "`second` + 1"),
    ("ts - INTERVAL '1' SECOND(3)", "`ts` - INTERVAL '1' SECOND(3)"),
])
def test_flink_expression(expr, expected):
    columns = ["price", "ts", "payload", "name", "second"]
    assert flink_expression(expr, columns) == expected


# -- tableau --------------------------------------------------------------------------
def test_tableau_matches_flinks_example():
    """The example in Flink's TableauStyle javadoc."""
    header = ["op", "boolean_col", "int_col", "varchar_col"]
    rows = [["+I", "true", "1", "abc"], ["-U", "false", "2", "def"],
            ["+U", "false", "3", "def"], ["-D", None, None, None]]
    assert render_tableau(header, rows) == """\
+----+-------------+---------+-------------+
| op | boolean_col | int_col | varchar_col |
+----+-------------+---------+-------------+
| +I |        true |       1 |         abc |
| -U |       false |       2 |         def |
| +U |       false |       3 |         def |
| -D |      <NULL> |  <NULL> |      <NULL> |
+----+-------------+---------+-------------+
4 rows in set"""


def test_show_tables_matches_flink():
    assert render_show_result(["table name"], [["orders"]]) == """\
+------------+
| table name |
+------------+
|     orders |
+------------+
1 row in set"""


def test_empty_result():
    assert render_tableau(["a"], []) == "Empty set"
    assert render_show_result(["a"], []) == "Empty set"


def test_show_results_print_null_as_empty():
    assert render_show_result(["k", "v"], [["a", None]]).splitlines()[3] == "| a |   |"


def test_long_values_are_cut_at_the_max_width():
    text = render_tableau(["col"], [["x" * 40], ["short"]], max_column_width=10)
    assert text.splitlines()[3] == "| xxxxxxx... |"
    assert text.splitlines()[4] == "|      short |"
    assert text.splitlines()[0] == "+------------+"


def test_wide_characters_count_double():
    assert display_width("名前") == 4
    assert render_tableau(["n"], [["名前"], ["ab"]]).splitlines()[3:5] == ["| 名前 |", "|   ab |"]
    # cutting never splits the width budget: a wide char that does not fit is padded
    assert tableau_row(["名前名前"], [6]) == "|  名... |"


def test_cells_must_be_preformatted_strings():
    with pytest.raises(TypeError, match="formatted the Flink way"):
        render_tableau(["a"], [[1]])


def test_streaming_changelog_pieces():
    names = ["name", "cnt", "ts"]
    widths = column_widths_by_type(names, [STRING(), BIGINT(), TIMESTAMP(3)])
    assert widths == [2, 30, 20, 23]
    assert changelog_header(names, [2, 5, 6, 6]) == (
        "+----+-------+--------+--------+\n"
        "| op |  name |    cnt |     ts |\n"
        "+----+-------+--------+--------+")
    assert tableau_row(["+I", "Bob", "1", None], [2, 5, 6, 6]) == "| +I |   Bob |      1 | <NULL> |"
    assert changelog_footer(0, [2, 5]) == "Received a total of 0 row"
    assert changelog_footer(2, [2, 5]) == "+----+-------+\nReceived a total of 2 rows"
    assert column_widths_by_type(["b"], [BOOLEAN()], with_row_kind=False,
                                 null_as_empty=True) == [5]


def test_describe_catalog_matches_flink(tmp_path):
    from catalog.factory import create_catalog
    cat = create_catalog("cat2", {"type": "generic_in_memory", "default-database": "db"})
    header, rows = describe_catalog_rows(cat)
    assert render_show_result(header, rows) == """\
+-----------+-------------------+
| info name |        info value |
+-----------+-------------------+
|      name |              cat2 |
|      type | generic_in_memory |
|   comment |                   |
+-----------+-------------------+
3 rows in set"""
    header, rows = describe_catalog_rows(cat, extended=True)
    assert render_show_result(header, rows) == """\
+-------------------------+-------------------+
|               info name |        info value |
+-------------------------+-------------------+
|                    name |              cat2 |
|                    type | generic_in_memory |
|                 comment |                   |
| option:default-database |                db |
+-------------------------+-------------------+
4 rows in set"""
    disk = create_catalog("d", {"type": "file", "path": str(tmp_path)})
    _, rows = describe_catalog_rows(disk, extended=True)
    assert ["type", "file"] in rows and ["option:path", str(tmp_path)] in rows


def test_describe_types_computed_columns_and_niladic_functions(spark):
    """Computed columns show their bound type (the catalog keeps only their SQL), and the
    niladic functions (LOCALTIMESTAMP, CURRENT_DATE, ...) are functions there and in
    queries; Flink 2.3 prints this table."""
    from sqlengine.api.session import Session
    s = Session({"execution.runtime-mode": "batch"}, spark=spark)
    s.execute_sql("CREATE TABLE c (a INT, ts AS LOCALTIMESTAMP, d AS CURRENT_DATE, p AS PROCTIME(), b AS a + 1, "
                  "WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen', 'number-of-rows' = '2')")
    assert s.execute_sql("DESCRIBE c").render() == """\
+------+-----------------------------+-------+-----+-------------------+-----------+
| name |                        type |  null | key |            extras | watermark |
+------+-----------------------------+-------+-----+-------------------+-----------+
|    a |                         INT |  TRUE |     |                   |           |
|   ts |      TIMESTAMP(3) *ROWTIME* | FALSE |     | AS LOCALTIMESTAMP |      `ts` |
|    d |                        DATE | FALSE |     |   AS CURRENT_DATE |           |
|    p | TIMESTAMP_LTZ(3) *PROCTIME* | FALSE |     |     AS PROCTIME() |           |
|    b |                         INT |  TRUE |     |        AS `a` + 1 |           |
+------+-----------------------------+-------+-----+-------------------+-----------+
5 rows in set"""
    rows = s.execute_sql("SELECT ts IS NOT NULL, d = CURRENT_DATE, LOCALTIME IS NOT NULL, "
                         "CURRENT_TIMESTAMP IS NOT NULL FROM c").collect()
    assert rows == [[True, True, True, True]] * 2
