-- Tables: CREATE TABLE forms, SHOW TABLES, DESCRIBE, DROP.
SHOW TABLES;
CREATE TABLE orders (
  id BIGINT,
  product STRING,
  amount DECIMAL(10, 2),
  ts TIMESTAMP(3),
  PRIMARY KEY (id) NOT ENFORCED
) WITH ('connector' = 'blackhole');
CREATE TABLE events (
  user_id INT COMMENT 'who',
  action STRING NOT NULL,
  ts TIMESTAMP(3),
  pt AS PROCTIME(),
  doubled AS user_id * 2,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) COMMENT 'user events' WITH ('connector' = 'datagen');
CREATE TABLE IF NOT EXISTS orders (x INT) WITH ('connector' = 'blackhole');
CREATE TABLE orders (x INT) WITH ('connector' = 'blackhole');
CREATE TEMPORARY TABLE tmp (a INT, b STRING) WITH ('connector' = 'blackhole');
SHOW TABLES;
DESCRIBE orders;
DESC events;
DESCRIBE tmp;
DESCRIBE nope;
CREATE TABLE types_t (
  c_tinyint TINYINT, c_smallint SMALLINT, c_int INT, c_bigint BIGINT,
  c_float FLOAT, c_double DOUBLE, c_decimal DECIMAL(38, 18), c_bool BOOLEAN,
  c_char CHAR(5), c_varchar VARCHAR(20), c_string STRING, c_bytes BYTES,
  c_date DATE, c_time TIME, c_ts TIMESTAMP, c_ts3 TIMESTAMP(3), c_ltz TIMESTAMP_LTZ(3),
  c_array ARRAY<INT>, c_map MAP<STRING, INT>, c_row ROW<x INT, y STRING>
) WITH ('connector' = 'blackhole');
DESCRIBE types_t;
CREATE TABLE pk2 (a INT NOT NULL, b STRING NOT NULL, c INT, CONSTRAINT pk PRIMARY KEY (a, b) NOT ENFORCED) WITH ('connector' = 'blackhole');
DESCRIBE pk2;
CREATE TABLE meta_t (id INT, k STRING METADATA FROM 'key' VIRTUAL) WITH ('connector' = 'blackhole');
CREATE TABLE like_t WITH ('connector' = 'blackhole') LIKE orders;
CREATE TABLE like_t2 (extra INT) WITH ('connector' = 'blackhole') LIKE events (EXCLUDING ALL);
DESCRIBE like_t;
DESCRIBE like_t2;
CREATE TABLE bad_pk (a INT, PRIMARY KEY (z) NOT ENFORCED) WITH ('connector' = 'blackhole');
CREATE TABLE bad_wm (a INT, WATERMARK FOR a AS a) WITH ('connector' = 'blackhole');
CREATE TABLE dup_col (a INT, a STRING) WITH ('connector' = 'blackhole');
CREATE TABLE bad_type (a NOTATYPE) WITH ('connector' = 'blackhole');
SHOW TABLES;
DROP TABLE like_t2;
DROP TABLE nope;
DROP TABLE IF EXISTS nope;
DROP TEMPORARY TABLE tmp;
DROP TEMPORARY TABLE IF EXISTS tmp;
SHOW TABLES;
