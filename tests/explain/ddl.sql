CREATE TABLE Bid (bidtime TIMESTAMP(3), price DECIMAL(10, 2), item STRING, supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '/data/bid.jsonl', 'format' = 'json');
CREATE TABLE Supplier (name STRING, city STRING)
  WITH ('connector' = 'filesystem', 'path' = '/data/supplier.jsonl', 'format' = 'json');
CREATE TABLE Rates (currency STRING, rate DECIMAL(10, 4), ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts, PRIMARY KEY (currency) NOT ENFORCED)
  WITH ('connector' = 'filesystem', 'path' = '/data/rates.jsonl', 'format' = 'json');
CREATE TABLE Orders (id BIGINT, currency STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '/data/orders.jsonl', 'format' = 'json');
CREATE TABLE updates (k STRING, v BIGINT, x BIGINT) WITH ('connector' = 'print');
CREATE TABLE rows_out (a STRING, b STRING, c DECIMAL(10, 2), d BIGINT) WITH ('connector' = 'print');
CREATE TABLE files_out (item STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '/out', 'format' = 'json');
