-- SHOW CREATE TABLE and DESCRIBE EXTENDED.
CREATE TABLE orders (
  id BIGINT NOT NULL COMMENT 'order id',
  product STRING,
  amount DECIMAL(10, 2),
  ts TIMESTAMP(3),
  cost AS amount * 2,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND,
  PRIMARY KEY (id) NOT ENFORCED
) COMMENT 'all orders' WITH ('connector' = 'blackhole');
SHOW CREATE TABLE orders;
DESCRIBE EXTENDED orders;
DESC EXTENDED orders;
CREATE TABLE part_t (a INT, dt STRING) PARTITIONED BY (dt) WITH ('connector' = 'blackhole');
SHOW CREATE TABLE part_t;
DESCRIBE part_t;
CREATE TABLE dist_t (a INT, b STRING) DISTRIBUTED BY HASH(a) INTO 4 BUCKETS WITH ('connector' = 'blackhole');
SHOW CREATE TABLE dist_t;
CREATE TEMPORARY TABLE tmp_t (a INT) WITH ('connector' = 'datagen', 'rows-per-second' = '5');
SHOW CREATE TABLE tmp_t;
SHOW CREATE TABLE nope;
CREATE TABLE ctas_src (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '2');
CREATE TABLE simple (a INT) WITH ('connector' = 'blackhole');
SHOW CREATE TABLE simple;
DESCRIBE EXTENDED simple;
CREATE TABLE quoted (`select` INT, `my col` STRING) WITH ('connector' = 'blackhole');
SHOW CREATE TABLE quoted;
DESCRIBE quoted;
