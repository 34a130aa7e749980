-- Flink SQL statements from Apache Flink's own tests: the SQL-client end-to-end scripts
-- (flink-table/flink-sql-client/src/test/resources/sql/*.q, only statements Flink executes
-- successfully), PythonFunctionFactoryTest and FlinkSqlParserViewTest (SQL strings passed to
-- executeSql / the parser in tests expected to succeed; Java string concatenation evaluated).
-- They cover CREATE/ALTER/DROP DATABASE/CATALOG/FUNCTION/VIEW forms the docs only show as
-- grammar. Format: see README.md.

-- source: https://github.com/apache/flink/blob/c100972a71748d7eb1cfec29437b8fa72633fa91/flink-table/flink-sql-client/src/test/resources/sql/statement_set.q
SET 'sql-client.execution.result-mode' = 'tableau';

-- source: https://github.com/apache/flink/blob/c100972a71748d7eb1cfec29437b8fa72633fa91/flink-table/flink-sql-client/src/test/resources/sql/statement_set.q
SET 'table.dml-sync' = 'true';

-- source: https://github.com/apache/flink/blob/c100972a71748d7eb1cfec29437b8fa72633fa91/flink-table/flink-sql-client/src/test/resources/sql/statement_set.q
create table src (
  id int,
  str string
) with (
  'connector' = 'values'
);

-- source: https://github.com/apache/flink/blob/c100972a71748d7eb1cfec29437b8fa72633fa91/flink-table/flink-sql-client/src/test/resources/sql/statement_set.q
SET 'execution.runtime-mode' = 'streaming';

-- source: https://github.com/apache/flink/blob/c100972a71748d7eb1cfec29437b8fa72633fa91/flink-table/flink-sql-client/src/test/resources/sql/statement_set.q
create table StreamingTable (
  id int,
  str string
) with (
  'connector' = 'filesystem',
  'path' = '$VAR_STREAMING_PATH',
  'format' = 'csv'
);

-- source: https://github.com/apache/flink/blob/c100972a71748d7eb1cfec29437b8fa72633fa91/flink-table/flink-sql-client/src/test/resources/sql/statement_set.q
INSERT INTO StreamingTable SELECT * FROM (VALUES (1, 'Hello World'), (2, 'Hi'), (2, 'Hi'), (3, 'Hello'), (3, 'World'), (4, 'ADD'), (5, 'LINE'));

-- source: https://github.com/apache/flink/blob/c100972a71748d7eb1cfec29437b8fa72633fa91/flink-table/flink-sql-client/src/test/resources/sql/statement_set.q
SELECT id, str FROM (VALUES (1, 'Hello World'), (2, 'Hi'), (2, 'Hi')) as T(id, str);

-- source: https://github.com/apache/flink/blob/c100972a71748d7eb1cfec29437b8fa72633fa91/flink-table/flink-sql-client/src/test/resources/sql/statement_set.q
create table BatchTable (
id int,
str string
) with (
'connector' = 'filesystem',
'path' = '$VAR_BATCH_PATH',
'format' = 'csv'
);

-- source: https://github.com/apache/flink/blob/dd47530f1eee829242c1c7a5fab9b4b8553cba5a/flink-table/flink-sql-client/src/test/resources/sql/function.q
create function func1 as 'LowerUDF' LANGUAGE JAVA;

-- source: https://github.com/apache/flink/blob/dd47530f1eee829242c1c7a5fab9b4b8553cba5a/flink-table/flink-sql-client/src/test/resources/sql/function.q
show user functions like 'func%';

-- source: https://github.com/apache/flink/blob/dd47530f1eee829242c1c7a5fab9b4b8553cba5a/flink-table/flink-sql-client/src/test/resources/sql/function.q
show user functions ilike 'func%';

-- source: https://github.com/apache/flink/blob/dd47530f1eee829242c1c7a5fab9b4b8553cba5a/flink-table/flink-sql-client/src/test/resources/sql/function.q
SELECT id, func1(str) FROM (VALUES (1, 'Hello World'), (2, 'Hi')) as T(id, str);

-- source: https://github.com/apache/flink/blob/dd47530f1eee829242c1c7a5fab9b4b8553cba5a/flink-table/flink-sql-client/src/test/resources/sql/function.q
create temporary function if not exists func2 as 'LowerUDF' LANGUAGE JAVA;

-- source: https://github.com/apache/flink/blob/dd47530f1eee829242c1c7a5fab9b4b8553cba5a/flink-table/flink-sql-client/src/test/resources/sql/function.q
create catalog c1 with ('type'='generic_in_memory');

-- source: https://github.com/apache/flink/blob/dd47530f1eee829242c1c7a5fab9b4b8553cba5a/flink-table/flink-sql-client/src/test/resources/sql/function.q
create function c1.db.func3 as 'LowerUDF' LANGUAGE JAVA;

-- source: https://github.com/apache/flink/blob/dd47530f1eee829242c1c7a5fab9b4b8553cba5a/flink-table/flink-sql-client/src/test/resources/sql/function.q
create temporary function if not exists c1.db.func4 as 'LowerUDF' LANGUAGE JAVA;

-- source: https://github.com/apache/flink/blob/dd47530f1eee829242c1c7a5fab9b4b8553cba5a/flink-table/flink-sql-client/src/test/resources/sql/function.q
show user functions from c1.db like 'func3%';

-- source: https://github.com/apache/flink/blob/dd47530f1eee829242c1c7a5fab9b4b8553cba5a/flink-table/flink-sql-client/src/test/resources/sql/function.q
show user functions in c1.db ilike 'FUNC3%';

-- source: https://github.com/apache/flink/blob/dd47530f1eee829242c1c7a5fab9b4b8553cba5a/flink-table/flink-sql-client/src/test/resources/sql/function.q
create function `default`.func5 as 'LowerUDF';

-- source: https://github.com/apache/flink/blob/dd47530f1eee829242c1c7a5fab9b4b8553cba5a/flink-table/flink-sql-client/src/test/resources/sql/function.q
drop function if exists c1.db.func10;

-- source: https://github.com/apache/flink/blob/dd47530f1eee829242c1c7a5fab9b4b8553cba5a/flink-table/flink-sql-client/src/test/resources/sql/function.q
alter function func11 as 'org.apache.flink.table.client.gateway.local.ExecutorImplITCase$TestScalaFunction';

-- source: https://github.com/apache/flink/blob/dd47530f1eee829242c1c7a5fab9b4b8553cba5a/flink-table/flink-sql-client/src/test/resources/sql/function.q
create temporary function tmp_func as 'LowerUDF';

-- source: https://github.com/apache/flink/blob/dd47530f1eee829242c1c7a5fab9b4b8553cba5a/flink-table/flink-sql-client/src/test/resources/sql/function.q
create temporary function temp_upperudf AS 'UpperUDF' using jar '$VAR_UDF_JAR_PATH';

-- source: https://github.com/apache/flink/blob/dd47530f1eee829242c1c7a5fab9b4b8553cba5a/flink-table/flink-sql-client/src/test/resources/sql/function.q
create function upperudf AS 'UpperUDF' using jar '$VAR_UDF_JAR_PATH';

-- source: https://github.com/apache/flink/blob/7bb710025389c36074628b6305e366818237a7ea/flink-python/src/test/java/org/apache/flink/client/python/PythonFunctionFactoryTest.java
create function func1 as 'test1.func1' language python;

-- source: https://github.com/apache/flink/blob/7bb710025389c36074628b6305e366818237a7ea/flink-python/src/test/java/org/apache/flink/client/python/PythonFunctionFactoryTest.java
alter function func1 as 'test1.func1' language python;

-- source: https://github.com/apache/flink/blob/7bb710025389c36074628b6305e366818237a7ea/flink-python/src/test/java/org/apache/flink/client/python/PythonFunctionFactoryTest.java
create temporary function func1 as 'test1.func1' language python;

-- source: https://github.com/apache/flink/blob/7bb710025389c36074628b6305e366818237a7ea/flink-python/src/test/java/org/apache/flink/client/python/PythonFunctionFactoryTest.java
create temporary system function func1 as 'test1.func1' language python;

-- source: https://github.com/apache/flink/blob/cbde864922bc2a51f065b1a41a57aeae50d72e7e/flink-table/flink-sql-client/src/test/resources/sql/view.q
CREATE TABLE orders (
 `user` BIGINT NOT NULl,
 product VARCHAR(32),
 amount INT,
 ts TIMESTAMP(3),
 ptime AS PROCTIME(),
 PRIMARY KEY(`user`) NOT ENFORCED,
 WATERMARK FOR ts AS ts - INTERVAL '1' SECONDS
) with (
 'connector' = 'datagen'
);

-- source: https://github.com/apache/flink/blob/cbde864922bc2a51f065b1a41a57aeae50d72e7e/flink-table/flink-sql-client/src/test/resources/sql/view.q
create temporary view v1 as select * from orders;

-- source: https://github.com/apache/flink/blob/cbde864922bc2a51f065b1a41a57aeae50d72e7e/flink-table/flink-sql-client/src/test/resources/sql/view.q
create temporary view if not exists v2 as select * from v1;

-- source: https://github.com/apache/flink/blob/cbde864922bc2a51f065b1a41a57aeae50d72e7e/flink-table/flink-sql-client/src/test/resources/sql/view.q
describe v1;

-- source: https://github.com/apache/flink/blob/cbde864922bc2a51f065b1a41a57aeae50d72e7e/flink-table/flink-sql-client/src/test/resources/sql/view.q
drop temporary view v1;

-- source: https://github.com/apache/flink/blob/cbde864922bc2a51f065b1a41a57aeae50d72e7e/flink-table/flink-sql-client/src/test/resources/sql/view.q
drop view v1;

-- source: https://github.com/apache/flink/blob/cbde864922bc2a51f065b1a41a57aeae50d72e7e/flink-table/flink-sql-client/src/test/resources/sql/view.q
create view `mod` as select * from orders;

-- source: https://github.com/apache/flink/blob/cbde864922bc2a51f065b1a41a57aeae50d72e7e/flink-table/flink-sql-client/src/test/resources/sql/view.q
desc `mod`;

-- source: https://github.com/apache/flink/blob/cbde864922bc2a51f065b1a41a57aeae50d72e7e/flink-table/flink-sql-client/src/test/resources/sql/view.q
drop view `mod`;

-- source: https://github.com/apache/flink/blob/bedab2aa002ed36c6263f553b09bbbf8688b04bc/flink-table/flink-sql-client/src/test/resources/sql/catalog_database.q
drop catalog default_catalog;

-- source: https://github.com/apache/flink/blob/bedab2aa002ed36c6263f553b09bbbf8688b04bc/flink-table/flink-sql-client/src/test/resources/sql/catalog_database.q
create database db1;

-- source: https://github.com/apache/flink/blob/bedab2aa002ed36c6263f553b09bbbf8688b04bc/flink-table/flink-sql-client/src/test/resources/sql/catalog_database.q
create database db2 comment 'db2_comment' with ('k1' = 'v1');

-- source: https://github.com/apache/flink/blob/bedab2aa002ed36c6263f553b09bbbf8688b04bc/flink-table/flink-sql-client/src/test/resources/sql/catalog_database.q
alter database db2 set ('k1' = 'a', 'k2' = 'b');

-- source: https://github.com/apache/flink/blob/bedab2aa002ed36c6263f553b09bbbf8688b04bc/flink-table/flink-sql-client/src/test/resources/sql/catalog_database.q
drop database if exists db2;

-- source: https://github.com/apache/flink/blob/bedab2aa002ed36c6263f553b09bbbf8688b04bc/flink-table/flink-sql-client/src/test/resources/sql/catalog_database.q
use catalog `mod`;

-- source: https://github.com/apache/flink/blob/bedab2aa002ed36c6263f553b09bbbf8688b04bc/flink-table/flink-sql-client/src/test/resources/sql/catalog_database.q
drop database `default`;

-- source: https://github.com/apache/flink/blob/bedab2aa002ed36c6263f553b09bbbf8688b04bc/flink-table/flink-sql-client/src/test/resources/sql/catalog_database.q
create catalog hivecatalog with (
 'type' = 'hive-test',
 'hive-version' = '2.3.4'
);

-- source: https://github.com/apache/flink/blob/bedab2aa002ed36c6263f553b09bbbf8688b04bc/flink-table/flink-sql-client/src/test/resources/sql/catalog_database.q
describe hivecatalog.`default`.param_types_table;

-- source: https://github.com/apache/flink/blob/bedab2aa002ed36c6263f553b09bbbf8688b04bc/flink-table/flink-sql-client/src/test/resources/sql/catalog_database.q
select * from hivecatalog.`default`.param_types_table;

-- source: https://github.com/apache/flink/blob/bedab2aa002ed36c6263f553b09bbbf8688b04bc/flink-table/flink-sql-client/src/test/resources/sql/catalog_database.q
create view MyView1 as select 1 + 1;

-- source: https://github.com/apache/flink/blob/bedab2aa002ed36c6263f553b09bbbf8688b04bc/flink-table/flink-sql-client/src/test/resources/sql/catalog_database.q
create table c1.db1.MyTable3 (a int, b string) with ('connector' = 'values');

-- source: https://github.com/apache/flink/blob/bedab2aa002ed36c6263f553b09bbbf8688b04bc/flink-table/flink-sql-client/src/test/resources/sql/catalog_database.q
create view `default`.MyView5 as select 1 + 1;

-- source: https://github.com/apache/flink/blob/bedab2aa002ed36c6263f553b09bbbf8688b04bc/flink-table/flink-sql-client/src/test/resources/sql/catalog_database.q
drop table c1.`default`.MyTable6;

-- source: https://github.com/apache/flink/blob/bedab2aa002ed36c6263f553b09bbbf8688b04bc/flink-table/flink-sql-client/src/test/resources/sql/catalog_database.q
drop view c1.`default`.MyView6;

-- source: https://github.com/apache/flink/blob/bedab2aa002ed36c6263f553b09bbbf8688b04bc/flink-table/flink-sql-client/src/test/resources/sql/catalog_database.q
reset;

-- source: https://github.com/apache/flink/blob/bedab2aa002ed36c6263f553b09bbbf8688b04bc/flink-table/flink-sql-client/src/test/resources/sql/catalog_database.q
create database catalog1.db1;

-- source: https://github.com/apache/flink/blob/bedab2aa002ed36c6263f553b09bbbf8688b04bc/flink-table/flink-sql-client/src/test/resources/sql/catalog_database.q
create view catalog1.db1.v_person as select * from catalog1.db1.person;

-- source: https://github.com/apache/flink/blob/bedab2aa002ed36c6263f553b09bbbf8688b04bc/flink-table/flink-sql-client/src/test/resources/sql/catalog_database.q
show tables from catalog1.db1 like '%person%';

-- source: https://github.com/apache/flink/blob/bedab2aa002ed36c6263f553b09bbbf8688b04bc/flink-table/flink-sql-client/src/test/resources/sql/catalog_database.q
show tables from db1 like 'p_r%';

-- source: https://github.com/apache/flink/blob/267121dfbe0c0e5c997d3cef4f9a4246955d9d73/flink-table/flink-sql-parser/src/test/java/org/apache/flink/sql/parser/FlinkSqlParserViewTest.java
create view v COMMENT 'this is a view' as select col1 from tbl;

-- source: https://github.com/apache/flink/blob/267121dfbe0c0e5c997d3cef4f9a4246955d9d73/flink-table/flink-sql-parser/src/test/java/org/apache/flink/sql/parser/FlinkSqlParserViewTest.java
create view v(col1, col2) as select col3, col4 from tbl;

-- source: https://github.com/apache/flink/blob/267121dfbe0c0e5c997d3cef4f9a4246955d9d73/flink-table/flink-sql-parser/src/test/java/org/apache/flink/sql/parser/FlinkSqlParserViewTest.java
create view if not exists v as select col1 from tbl;

-- source: https://github.com/apache/flink/blob/267121dfbe0c0e5c997d3cef4f9a4246955d9d73/flink-table/flink-sql-parser/src/test/java/org/apache/flink/sql/parser/FlinkSqlParserViewTest.java
DROP VIEW IF EXISTS view_name;

-- source: https://github.com/apache/flink/blob/267121dfbe0c0e5c997d3cef4f9a4246955d9d73/flink-table/flink-sql-parser/src/test/java/org/apache/flink/sql/parser/FlinkSqlParserViewTest.java
DROP TEMPORARY VIEW IF EXISTS view_name;

-- source: https://github.com/apache/flink/blob/267121dfbe0c0e5c997d3cef4f9a4246955d9d73/flink-table/flink-sql-parser/src/test/java/org/apache/flink/sql/parser/FlinkSqlParserViewTest.java
ALTER VIEW v1 RENAME TO v2;

-- source: https://github.com/apache/flink/blob/267121dfbe0c0e5c997d3cef4f9a4246955d9d73/flink-table/flink-sql-parser/src/test/java/org/apache/flink/sql/parser/FlinkSqlParserViewTest.java
ALTER VIEW v1 AS SELECT c1, c2 FROM tbl;

-- source: https://github.com/apache/flink/blob/267121dfbe0c0e5c997d3cef4f9a4246955d9d73/flink-table/flink-sql-parser/src/test/java/org/apache/flink/sql/parser/FlinkSqlParserViewTest.java
show views not like '%';

-- source: https://github.com/apache/flink/blob/267121dfbe0c0e5c997d3cef4f9a4246955d9d73/flink-table/flink-sql-parser/src/test/java/org/apache/flink/sql/parser/FlinkSqlParserViewTest.java
show views in catalog1.db1 like '%';

-- source: https://github.com/apache/flink/blob/267121dfbe0c0e5c997d3cef4f9a4246955d9d73/flink-table/flink-sql-parser/src/test/java/org/apache/flink/sql/parser/FlinkSqlParserViewTest.java
show partitions tbl partition (p=1);

-- source: https://github.com/apache/flink/blob/267121dfbe0c0e5c997d3cef4f9a4246955d9d73/flink-table/flink-sql-parser/src/test/java/org/apache/flink/sql/parser/FlinkSqlParserViewTest.java
CREATE VIEW v1 AS SELECT 1;

-- source: https://github.com/apache/flink/blob/267121dfbe0c0e5c997d3cef4f9a4246955d9d73/flink-table/flink-sql-parser/src/test/java/org/apache/flink/sql/parser/FlinkSqlParserViewTest.java
create temporary system function  function1 as 'org.apache.flink.function.function1' language scala;

-- source: https://github.com/apache/flink/blob/267121dfbe0c0e5c997d3cef4f9a4246955d9d73/flink-table/flink-sql-parser/src/test/java/org/apache/flink/sql/parser/FlinkSqlParserViewTest.java
create function function1 as 'org.apache.flink.function.function1' language java using JAR 'file:///path/to/test.jar', jar 'hdfs:///path/to/test2.jar';

-- source: https://github.com/apache/flink/blob/267121dfbe0c0e5c997d3cef4f9a4246955d9d73/flink-table/flink-sql-parser/src/test/java/org/apache/flink/sql/parser/FlinkSqlParserViewTest.java
create function function1 as 'org.apache.flink.function.function1' language java using JAR 'file:///path/to/test.jar' WITH ('k1' = 'v1', 'k2' = 'v2');

-- source: https://github.com/apache/flink/blob/267121dfbe0c0e5c997d3cef4f9a4246955d9d73/flink-table/flink-sql-parser/src/test/java/org/apache/flink/sql/parser/FlinkSqlParserViewTest.java
create function function1 as 'org.apache.flink.function.function1' language java using jar 'file:///path/to/test.jar', artifact 'hdfs:///path/to/test2.jar';

-- source: https://github.com/apache/flink/blob/267121dfbe0c0e5c997d3cef4f9a4246955d9d73/flink-table/flink-sql-parser/src/test/java/org/apache/flink/sql/parser/FlinkSqlParserViewTest.java
drop temporary system function catalog1.db1.function1;
