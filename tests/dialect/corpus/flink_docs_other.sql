-- Flink SQL DML and utility statements (INSERT, SET/RESET, SHOW, DESCRIBE, EXPLAIN, USE, LOAD/UNLOAD, ...)
-- copied verbatim from the Apache Flink documentation. Format: see README.md.

-- source: https://github.com/apache/flink/blob/024f29a39cc4449089371d8a72b88ad8679f7fc4/docs/content/docs/dev/table/sql/create.md
INSERT INTO RubberOrders SELECT product, amount FROM Orders WHERE product LIKE '%Rubber%';

-- source: https://github.com/apache/flink/blob/024f29a39cc4449089371d8a72b88ad8679f7fc4/docs/content/docs/dev/table/sql/create.md
INSERT INTO MyTable SELECT user_id, name, record_time + INTERVAL '1' SECOND FROM MyTable;

-- source: https://github.com/apache/flink/blob/024f29a39cc4449089371d8a72b88ad8679f7fc4/docs/content/docs/dev/table/sql/create.md
INSERT INTO my_ctas_table SELECT id, name, age FROM source_table WHERE mod(id, 10) = 0;

-- source: https://github.com/apache/flink/blob/024f29a39cc4449089371d8a72b88ad8679f7fc4/docs/content/docs/dev/table/sql/create.md
INSERT INTO my_rtas_table SELECT id, name, age FROM source_table WHERE mod(id, 10) = 0;

-- source: https://github.com/apache/flink/blob/05b0e88630ecd88537cd4ebb37ea4e030649cc2a/docs/content/docs/dev/table/sql/alter.md
DESCRIBE Orders;

-- source: https://github.com/apache/flink/blob/05b0e88630ecd88537cd4ebb37ea4e030649cc2a/docs/content/docs/dev/table/sql/alter.md
SHOW TABLES;

-- source: https://github.com/apache/flink/blob/010f3f82c853482ff4518e8e6c99d6b0c8d60a0a/docs/content/docs/dev/table/sql/describe.md
DESC Orders;

-- source: https://github.com/apache/flink/blob/010f3f82c853482ff4518e8e6c99d6b0c8d60a0a/docs/content/docs/dev/table/sql/describe.md
CREATE CATALOG cat2 WITH ('type'='generic_in_memory', 'default-database'='db');

-- source: https://github.com/apache/flink/blob/010f3f82c853482ff4518e8e6c99d6b0c8d60a0a/docs/content/docs/dev/table/sql/describe.md
DESCRIBE CATALOG cat2;

-- source: https://github.com/apache/flink/blob/010f3f82c853482ff4518e8e6c99d6b0c8d60a0a/docs/content/docs/dev/table/sql/describe.md
DESC CATALOG EXTENDED cat2;

-- source: https://github.com/apache/flink/blob/377c770f9d592388a43fe0fbb4ea3eb6155f4664/docs/content/docs/dev/table/sql/explain.md
EXPLAIN PLAN FOR SELECT `count`, word FROM MyTable1 WHERE word LIKE 'F%' 
UNION ALL 
SELECT `count`, word FROM MyTable2;

-- source: https://github.com/apache/flink/blob/377c770f9d592388a43fe0fbb4ea3eb6155f4664/docs/content/docs/dev/table/sql/explain.md
EXPLAIN ESTIMATED_COST, CHANGELOG_MODE, JSON_EXECUTION_PLAN SELECT `count`, word FROM MyTable1 
WHERE word LIKE 'F%' 
UNION ALL 
SELECT `count`, word FROM MyTable2;

-- source: https://github.com/apache/flink/blob/c5ed2b740eb2c5c366c4fa20abbb88faef2398dd/docs/content/docs/dev/table/sql/explain.md
EXPLAIN PLAN FOR SELECT `count`, COUNT(word) FROM
( SELECT `count`, word FROM MyTable1 WHERE word LIKE 'F%' 
  UNION ALL 
  SELECT `count`, word FROM MyTable2 ) tmp GROUP BY `count`;

-- source: https://github.com/apache/flink/blob/c5ed2b740eb2c5c366c4fa20abbb88faef2398dd/docs/content/docs/dev/table/sql/explain.md
EXPLAIN ESTIMATED_COST, CHANGELOG_MODE, PLAN_ADVICE, JSON_EXECUTION_PLAN SELECT `count`, COUNT(word) FROM
( SELECT `count`, word FROM MyTable1 WHERE word LIKE 'F%' 
  UNION ALL 
  SELECT `count`, word FROM MyTable2 ) tmp GROUP BY `count`;

-- source: https://github.com/apache/flink/blob/c5ed2b740eb2c5c366c4fa20abbb88faef2398dd/docs/content/docs/dev/table/sql/explain.md
SET 'table.exec.mini-batch.enabled' = 'true';

-- source: https://github.com/apache/flink/blob/c5ed2b740eb2c5c366c4fa20abbb88faef2398dd/docs/content/docs/dev/table/sql/explain.md
SET 'table.exec.mini-batch.allow-latency' = '5s';

-- source: https://github.com/apache/flink/blob/c5ed2b740eb2c5c366c4fa20abbb88faef2398dd/docs/content/docs/dev/table/sql/explain.md
SET 'table.exec.mini-batch.size' = '200';

-- source: https://github.com/apache/flink/blob/c5ed2b740eb2c5c366c4fa20abbb88faef2398dd/docs/content/docs/dev/table/sql/explain.md
SET 'table.optimizer.agg-phase-strategy' = 'ONE_PHASE';

-- source: https://github.com/apache/flink/blob/c5ed2b740eb2c5c366c4fa20abbb88faef2398dd/docs/content/docs/dev/table/sql/explain.md
EXPLAIN PLAN_ADVICE
SELECT
  AVG(a) AS avg_a,
  COUNT(*) AS cnt,
  COUNT(b) AS cnt_b,
  MIN(b) AS min_b,
  MAX(c) FILTER (WHERE a > 1) AS max_c
FROM MyTable;

-- source: https://github.com/apache/flink/blob/c5ed2b740eb2c5c366c4fa20abbb88faef2398dd/docs/content/docs/dev/table/sql/explain.md
EXPLAIN PLAN_ADVICE
INSERT INTO MySink
SELECT a, b, `day`
FROM MyTable
WHERE b > 100;

-- source: https://github.com/apache/flink/blob/c5ed2b740eb2c5c366c4fa20abbb88faef2398dd/docs/content/docs/dev/table/sql/explain.md
EXPLAIN PLAN_ADVICE
SELECT * FROM MyTable WHERE b > 100;

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
SHOW CATALOGS;

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
SHOW CURRENT CATALOG;

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
SHOW DATABASES;

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
SHOW CURRENT DATABASE;

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
SHOW CREATE TABLE my_table;

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
SHOW COLUMNS FROM my_table LIKE '%f%';

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
SHOW COLUMNS from MyUserTable LIKE '%f%';

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
SHOW VIEWS;

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
SHOW CREATE VIEW my_view;

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
SHOW FUNCTIONS;

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
SHOW USER FUNCTIONS;

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
SHOW MODULES;

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
SHOW FULL MODULES;

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
SHOW JARS;

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
SHOW JOBS;

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
show tables from db1;

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
show tables in catalog1.db1;

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
show tables from db1 like '%n';

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
show tables in catalog1.db1 not like '%n';

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
show tables;

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
show create table orders;

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
show columns from orders;

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
show columns in catalog1.database1.orders;

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
show columns from orders like '%r';

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
show columns from orders not like '%_r';

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
show partitions table1;

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
show partitions table1 partition (id=1002);

-- source: https://github.com/apache/flink/blob/040d69e506e1014df05368a7bd2e7c48016290aa/docs/content/docs/dev/table/sql/show.md
show partitions catalog1.database1.table1 partition (id=1002);

-- source: https://github.com/apache/flink/blob/0b259ccc50d5368edc8d62df2f8a540b2f30707b/docs/content/docs/dev/table/sql/insert.md
INSERT INTO GlassOrders SELECT product, amount FROM Orders WHERE product LIKE '%Glass%';

-- source: https://github.com/apache/flink/blob/0b259ccc50d5368edc8d62df2f8a540b2f30707b/docs/content/docs/dev/table/sql/insert.md
INSERT INTO country_page_view PARTITION (date='2019-8-30', country='China')
  SELECT user, cnt FROM page_view_source;

-- source: https://github.com/apache/flink/blob/0b259ccc50d5368edc8d62df2f8a540b2f30707b/docs/content/docs/dev/table/sql/insert.md
INSERT INTO country_page_view PARTITION (date='2019-8-30')
  SELECT user, cnt, country FROM page_view_source;

-- source: https://github.com/apache/flink/blob/0b259ccc50d5368edc8d62df2f8a540b2f30707b/docs/content/docs/dev/table/sql/insert.md
INSERT OVERWRITE country_page_view PARTITION (date='2019-8-30', country='China')
  SELECT user, cnt FROM page_view_source;

-- source: https://github.com/apache/flink/blob/0b259ccc50d5368edc8d62df2f8a540b2f30707b/docs/content/docs/dev/table/sql/insert.md
INSERT OVERWRITE country_page_view PARTITION (date='2019-8-30')
  SELECT user, cnt, country FROM page_view_source;

-- source: https://github.com/apache/flink/blob/0b259ccc50d5368edc8d62df2f8a540b2f30707b/docs/content/docs/dev/table/sql/insert.md
INSERT INTO country_page_view PARTITION (date='2019-8-30', country='China') (user)
  SELECT user FROM page_view_source;

-- source: https://github.com/apache/flink/blob/0b259ccc50d5368edc8d62df2f8a540b2f30707b/docs/content/docs/dev/table/sql/insert.md
INSERT INTO students
  VALUES ('fred flintstone', 35, 1.28), ('barney rubble', 32, 2.32);

-- source: https://github.com/apache/flink/blob/49ad82fe382b58480c0960062656521cb3556f5b/docs/content/docs/dev/table/sql/use.md
USE CATALOG cat1;

-- source: https://github.com/apache/flink/blob/49ad82fe382b58480c0960062656521cb3556f5b/docs/content/docs/dev/table/sql/use.md
USE db1;

-- source: https://github.com/apache/flink/blob/49ad82fe382b58480c0960062656521cb3556f5b/docs/content/docs/dev/table/sql/use.md
USE MODULES hive;

-- source: https://github.com/apache/flink/blob/320ed880513377acc622daf7764a9be70e7704f0/docs/content/docs/dev/table/sql/set.md
SET 'table.planner' = 'blink';

-- source: https://github.com/apache/flink/blob/320ed880513377acc622daf7764a9be70e7704f0/docs/content/docs/dev/table/sql/set.md
SET;

-- source: https://github.com/apache/flink/blob/f730b7751f4f96c19fb99049d31adc3c925b665d/docs/content/docs/dev/table/sql/reset.md
RESET 'table.planner';

-- source: https://github.com/apache/flink/blob/f730b7751f4f96c19fb99049d31adc3c925b665d/docs/content/docs/dev/table/sql/reset.md
RESET;

-- source: https://github.com/apache/flink/blob/04cf32ddebf3c1c8bcb8117c27cf1cf3e98cbba5/docs/content/docs/dev/table/sql/load.md
LOAD MODULE hive WITH ('hive-version' = '3.1.2');

-- source: https://github.com/apache/flink/blob/2a192508cfc1415eaffaad28e946663e34bf76a3/docs/content/docs/dev/table/sql/unload.md
UNLOAD MODULE core;

-- source: https://github.com/apache/flink/blob/149e82025e936e736f0b11795a6bd041279e1da0/docs/content/docs/dev/table/sql/job.md
SET 'state.savepoints.dir'='file:/tmp/';

-- source: https://github.com/apache/flink/blob/77214f138cf759a3ee5466c9b2379e717227a0ae/docs/content/docs/dev/table/sql/delete.md
SET 'execution.runtime-mode' = 'batch';

-- source: https://github.com/apache/flink/blob/77214f138cf759a3ee5466c9b2379e717227a0ae/docs/content/docs/dev/table/sql/delete.md
INSERT INTO Orders VALUES ('Lili', 'Apple', 1), ('Jessica', 'Banana', 1), ('Mr.White', 'Chicken', 3);

-- source: https://github.com/apache/flink/blob/67a02e4201e411fe503b5146c77938ed0943e774/docs/content/docs/dev/table/sql/update.md
INSERT INTO Orders VALUES ('Lili', 'Apple', 1), ('Jessica', 'Banana', 1);

-- source: https://github.com/apache/flink/blob/1a0227f86d34f43d414f9f48e3e0cb7d7124dbcf/docs/content/docs/dev/table/sql/gettingStarted.md
INSERT INTO department_counts
 SELECT 
	dept_id,
	COUNT(*) as emp_count 
FROM employee_information
GROUP BY dept_id;

-- source: https://github.com/apache/flink/blob/dd27ca623ae0314ab10aac13775b93cf1b7b8a3f/docs/content/docs/dev/table/sql/examples/kafka-to-kafka/kafka-to-kafka.md
INSERT INTO kafka_output
SELECT
  UPPER(name) AS name,
  email,
  role
FROM kafka_input
WHERE role = 'developer';

-- source: https://github.com/apache/flink/blob/master/docs/content/docs/dev/table/sql/insert.md
EXECUTE INSERT INTO country_page_view PARTITION (date='2019-8-30', country='China')
  SELECT user, cnt FROM page_view_source;

-- source: https://github.com/apache/flink/blob/04cf32ddebf3c1c8bcb8117c27cf1cf3e98cbba5/docs/content/docs/dev/table/concepts/timezone.md
SET 'table.local-time-zone' = 'UTC';

-- source: https://github.com/apache/flink/blob/04cf32ddebf3c1c8bcb8117c27cf1cf3e98cbba5/docs/content/docs/dev/table/concepts/timezone.md
SET 'table.local-time-zone' = 'Asia/Shanghai';

-- source: https://github.com/apache/flink/blob/04cf32ddebf3c1c8bcb8117c27cf1cf3e98cbba5/docs/content/docs/dev/table/concepts/timezone.md
SET 'table.local-time-zone' = 'America/Los_Angeles';

-- source: https://github.com/apache/flink/blob/04cf32ddebf3c1c8bcb8117c27cf1cf3e98cbba5/docs/content/docs/dev/table/concepts/timezone.md
SET 'sql-client.execution.result-mode' = 'tableau';

-- source: https://github.com/apache/flink/blob/04cf32ddebf3c1c8bcb8117c27cf1cf3e98cbba5/docs/content/docs/dev/table/concepts/timezone.md
DESC MyView1;

-- source: https://github.com/apache/flink/blob/0d0ef54581b1b531a7862507f448bbc5a4344c92/docs/content/docs/connectors/table/filesystem.md
INSERT INTO fs_table 
SELECT 
    user_id, 
    order_amount, 
    DATE_FORMAT(log_ts, 'yyyy-MM-dd'),
    DATE_FORMAT(log_ts, 'HH') 
FROM kafka_table;

-- source: https://github.com/apache/flink/blob/1cd5558ad5984571e0f94670fa833c79c3a299ec/docs/content/docs/connectors/table/upsert-kafka.md
INSERT INTO pageviews_per_region
SELECT
  user_region,
  COUNT(*),
  COUNT(DISTINCT user_id)
FROM pageviews
GROUP BY user_region;
