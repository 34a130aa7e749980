-- Every statement of every /work/shared/conformance/cases/*/case.sql (Flink 2.3 conformance corpus),
-- in case order, with ${CASE_DIR} -> /data/case and ${OUT_DIR} -> /data/out. Exact duplicates
-- (e.g. the shared Nexmark source DDL) are kept once; the source line lists the other cases.
-- The EXECUTE STATEMENT SET block is in statement_sets.sql. Format: see README.md.

-- source: /work/shared/conformance/cases/batch_dedup/case.sql (identical statement also in: batch_grouping_sets, batch_null_aggregates, batch_topn, nexmark_q15, nexmark_q16, nexmark_q17, nexmark_q18, nexmark_q19, nexmark_q4, nexmark_q5, nexmark_q9)
SET 'execution.runtime-mode' = 'batch';

-- source: /work/shared/conformance/cases/batch_dedup/case.sql (identical statement also in: batch_grouping_sets, batch_null_aggregates, batch_topn, cast_edge_cases, docs_cumulate_window, docs_hop_window, docs_interval_join, docs_temporal_join, docs_tumble_window, docs_window_dedup, docs_window_join, docs_window_topn, functions_case_string, functions_temporal, neg_insert_type_mismatch, neg_unknown_column, neg_update_into_append_sink, neg_watermark_timestamp6, neg_window_on_non_time_attribute, nested_row_access, nexmark_q0, nexmark_q1, nexmark_q11, nexmark_q13, nexmark_q15, nexmark_q16, nexmark_q17, nexmark_q18, nexmark_q19, nexmark_q2, nexmark_q20, nexmark_q21, nexmark_q22, nexmark_q3, nexmark_q4, nexmark_q5, nexmark_q7, nexmark_q8, nexmark_q9, null_handling, over_range, over_rows, union_all)
SET 'table.local-time-zone' = 'UTC';

-- source: /work/shared/conformance/cases/batch_dedup/case.sql (identical statement also in: batch_topn)
CREATE TABLE ShopOrders (
  order_id INT,
  user_id STRING,
  category STRING,
  amount_cents BIGINT,
  order_time TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/case/input/shop_orders.jsonl',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/batch_dedup/case.sql
CREATE TABLE first_orders (
  user_id STRING,
  order_id INT,
  category STRING,
  order_time TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/first_orders',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/batch_dedup/case.sql
INSERT INTO first_orders
SELECT user_id, order_id, category, order_time
FROM (
   SELECT *,
     ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY order_time ASC) AS row_num
   FROM ShopOrders)
WHERE row_num = 1;

-- source: /work/shared/conformance/cases/batch_grouping_sets/case.sql
CREATE TABLE sales (
  region STRING,
  country STRING,
  product STRING,
  qty INT,
  revenue DECIMAL(10, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/case/input/sales.jsonl',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/batch_grouping_sets/case.sql
CREATE TABLE by_sets (
  region STRING,
  product STRING,
  g_region BIGINT,
  g_product BIGINT,
  total_qty INT,
  revenue DECIMAL(38, 2),
  n BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/by_sets',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/batch_grouping_sets/case.sql
CREATE TABLE by_rollup (
  region STRING,
  country STRING,
  total_qty INT,
  revenue DECIMAL(38, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/by_rollup',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/batch_null_aggregates/case.sql (identical statement also in: cast_edge_cases, functions_case_string, functions_temporal, nested_row_access, null_handling)
CREATE TABLE people (
  id INT,
  name STRING,
  age INT,
  score DOUBLE,
  code STRING,
  birth STRING,
  ts TIMESTAMP(3),
  address ROW<street STRING, city STRING, geo ROW<lat DOUBLE, lon DOUBLE>>,
  flag BOOLEAN
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/case/input/people.jsonl',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/batch_null_aggregates/case.sql
CREATE TABLE null_aggs (
  grp INT,
  n BIGINT,
  n_age BIGINT,
  sum_age INT,
  avg_score DOUBLE,
  min_name STRING,
  max_flag BOOLEAN,
  n_distinct_city BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/null_aggs',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/batch_null_aggregates/case.sql
INSERT INTO null_aggs
SELECT id % 4, COUNT(*), COUNT(age), SUM(age), AVG(score), MIN(name), MAX(flag), COUNT(DISTINCT address.city)
FROM people
GROUP BY id % 4;

-- source: /work/shared/conformance/cases/batch_topn/case.sql
CREATE TABLE topn (
  category STRING,
  order_id INT,
  amount_cents BIGINT,
  row_num BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/topn',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/batch_topn/case.sql
INSERT INTO topn
SELECT category, order_id, amount_cents, row_num
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY amount_cents DESC) AS row_num
  FROM ShopOrders)
WHERE row_num <= 3;

-- source: /work/shared/conformance/cases/cast_edge_cases/case.sql
CREATE TABLE casts (
  id INT,
  code STRING,
  code_int INT,
  code_dec DECIMAL(10, 2),
  code_bool BOOLEAN,
  score DOUBLE,
  score_int INT,
  score_dec DECIMAL(5, 1),
  score_str STRING,
  age_str STRING,
  birth_date DATE,
  birth_str STRING,
  big BIGINT,
  ts_str STRING,
  flag_str STRING,
  dbl_from_int DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/casts',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/cast_edge_cases/case.sql
INSERT INTO casts
SELECT id, code,
  TRY_CAST(code AS INT), TRY_CAST(code AS DECIMAL(10, 2)), TRY_CAST(code AS BOOLEAN),
  score, CAST(score AS INT), CAST(score AS DECIMAL(5, 1)), CAST(score AS STRING),
  CAST(age AS STRING), TRY_CAST(birth AS DATE), CAST(TRY_CAST(birth AS DATE) AS STRING),
  CAST(age AS BIGINT) * 3000000000, CAST(ts AS STRING), CAST(flag AS STRING), CAST(age AS DOUBLE) / 4
FROM people;

-- source: /work/shared/conformance/cases/docs_cumulate_window/case.sql (identical statement also in: docs_hop_window, docs_tumble_window, docs_window_dedup, docs_window_topn, neg_insert_type_mismatch, neg_unknown_column, neg_update_into_append_sink, over_range, over_rows)
CREATE TABLE Bid (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  item STRING,
  supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/case/input/bid.jsonl',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/docs_cumulate_window/case.sql
CREATE TABLE cumulate_result (
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  total_price DECIMAL(38, 2),
  n BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/cumulate_result',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/docs_cumulate_window/case.sql
INSERT INTO cumulate_result
SELECT window_start, window_end, SUM(price) AS total_price, COUNT(*) AS n
  FROM TABLE(
    CUMULATE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '2' MINUTES, INTERVAL '10' MINUTES))
  GROUP BY window_start, window_end;

-- source: /work/shared/conformance/cases/docs_hop_window/case.sql
CREATE TABLE hop_result (
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  item STRING,
  total_price DECIMAL(38, 2),
  max_price DECIMAL(10, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/hop_result',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/docs_hop_window/case.sql
INSERT INTO hop_result
SELECT window_start, window_end, item, SUM(price) AS total_price, MAX(price) AS max_price
  FROM TABLE(
    HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))
  GROUP BY window_start, window_end, item;

-- source: /work/shared/conformance/cases/docs_interval_join/case.sql (identical statement also in: docs_temporal_join)
CREATE TABLE Orders (
  id INT,
  order_time TIMESTAMP(3),
  currency STRING,
  amount INT,
  WATERMARK FOR order_time AS order_time - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/case/input/orders.jsonl',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/docs_interval_join/case.sql
CREATE TABLE Shipments (
  id INT,
  order_id INT,
  ship_time TIMESTAMP(3),
  WATERMARK FOR ship_time AS ship_time - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/case/input/shipments.jsonl',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/docs_interval_join/case.sql
CREATE TABLE interval_join (
  id INT,
  order_time TIMESTAMP(3),
  ship_id INT,
  ship_time TIMESTAMP(3),
  hours_to_ship INT
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/interval_join',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/docs_interval_join/case.sql
INSERT INTO interval_join
SELECT o.id, o.order_time, s.id, CAST(s.ship_time AS TIMESTAMP(3)), TIMESTAMPDIFF(HOUR, o.order_time, s.ship_time)
FROM Orders o, Shipments s
WHERE o.id = s.order_id
AND o.order_time BETWEEN s.ship_time - INTERVAL '4' HOUR AND s.ship_time;

-- source: /work/shared/conformance/cases/docs_temporal_join/case.sql
CREATE TABLE currency_rates (
  currency STRING,
  conversion_rate DECIMAL(32, 4),
  update_time TIMESTAMP(3),
  WATERMARK FOR update_time AS update_time - INTERVAL '15' SECOND,
  PRIMARY KEY(currency) NOT ENFORCED
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/case/input/currency_rates.jsonl',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/docs_temporal_join/case.sql
CREATE TABLE temporal_join (
  order_id INT,
  amount INT,
  currency STRING,
  conversion_rate DECIMAL(32, 4),
  converted DECIMAL(38, 4),
  order_time TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/temporal_join',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/docs_temporal_join/case.sql
INSERT INTO temporal_join
SELECT
     Orders.id,
     amount,
     Orders.currency,
     conversion_rate,
     amount * conversion_rate,
     order_time
FROM Orders
LEFT JOIN currency_rates FOR SYSTEM_TIME AS OF Orders.order_time
ON Orders.currency = currency_rates.currency;

-- source: /work/shared/conformance/cases/docs_tumble_window/case.sql
CREATE TABLE tumble_result (
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  window_time TIMESTAMP(3),
  total_price DECIMAL(38, 2),
  cnt BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/tumble_result',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/docs_tumble_window/case.sql
INSERT INTO tumble_result
SELECT window_start, window_end, window_time, SUM(price) AS total_price, COUNT(*) AS cnt
  FROM TABLE(
    TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
  GROUP BY window_start, window_end, window_time;

-- source: /work/shared/conformance/cases/docs_window_dedup/case.sql
CREATE TABLE window_dedup (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  item STRING,
  supplier_id STRING,
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  rownum BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/window_dedup',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/docs_window_dedup/case.sql
INSERT INTO window_dedup
SELECT *
  FROM (
    SELECT bidtime, price, item, supplier_id, window_start, window_end,
      ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY bidtime DESC) AS rownum
    FROM TABLE(
               TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
  ) WHERE rownum <= 1;

-- source: /work/shared/conformance/cases/docs_window_join/case.sql
CREATE TABLE LeftTable (
  row_time TIMESTAMP(3),
  num INT,
  id STRING,
  WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/case/input/left_table.jsonl',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/docs_window_join/case.sql
CREATE TABLE RightTable (
  row_time TIMESTAMP(3),
  num INT,
  id STRING,
  WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/case/input/right_table.jsonl',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/docs_window_join/case.sql
CREATE TABLE window_join (
  L_Num INT,
  L_Id STRING,
  R_Num INT,
  R_Id STRING,
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/window_join',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/docs_window_join/case.sql
INSERT INTO window_join
SELECT L.num as L_Num, L.id as L_Id, R.num as R_Num, R.id as R_Id,
       COALESCE(L.window_start, R.window_start) as window_start,
       COALESCE(L.window_end, R.window_end) as window_end
  FROM (
      SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
  ) L
  FULL JOIN (
      SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
  ) R
  ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end;

-- source: /work/shared/conformance/cases/docs_window_topn/case.sql
CREATE TABLE window_topn (
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  supplier_id STRING,
  price DECIMAL(38, 2),
  cnt BIGINT,
  rownum BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/window_topn',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/docs_window_topn/case.sql
INSERT INTO window_topn
SELECT *
  FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC, supplier_id) as rownum
    FROM (
      SELECT window_start, window_end, supplier_id, SUM(price) as price, COUNT(*) as cnt
      FROM TABLE(
        TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
      GROUP BY window_start, window_end, supplier_id
    )
  ) WHERE rownum <= 3;

-- source: /work/shared/conformance/cases/functions_case_string/case.sql
CREATE TABLE string_fns (
  id INT,
  name STRING,
  u STRING,
  l STRING,
  tr STRING,
  len INT,
  sub STRING,
  rep STRING,
  cc STRING,
  cws STRING,
  lp STRING,
  rp STRING,
  pos INT,
  ini STRING,
  rr STRING,
  bucket STRING,
  simple_case STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/string_fns',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/functions_case_string/case.sql
INSERT INTO string_fns
SELECT id, name,
  UPPER(name), LOWER(name), TRIM(name), CHAR_LENGTH(name),
  SUBSTRING(name FROM 2 FOR 3), REPLACE(name, 'a', '@'),
  CONCAT(name, '#', code), CONCAT_WS('|', name, code, CAST(age AS STRING)),
  LPAD(CAST(id AS STRING), 4, '0'), RPAD(COALESCE(name, '?'), 6, '.'),
  POSITION('e' IN name), INITCAP(name), REGEXP_REPLACE(name, '[aeiou]', '*'),
  CASE WHEN age IS NULL THEN 'unknown' WHEN age < 18 THEN 'minor' WHEN age < 65 THEN 'adult' ELSE 'senior' END,
  CASE id % 3 WHEN 0 THEN 'zero' WHEN 1 THEN 'one' END
FROM people;

-- source: /work/shared/conformance/cases/functions_temporal/case.sql
CREATE TABLE temporal_fns (
  id INT,
  ts TIMESTAMP(3),
  df STRING,
  yr BIGINT,
  mon BIGINT,
  dom BIGINT,
  hr BIGINT,
  dow BIGINT,
  fl_hour TIMESTAMP(3),
  ce_day TIMESTAMP(3),
  plus_90m TIMESTAMP(3),
  minus_2d TIMESTAMP(3),
  birth_date DATE,
  age_days INT,
  q BIGINT,
  wk BIGINT,
  ts_date DATE,
  ts_time TIME(0)
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/temporal_fns',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/functions_temporal/case.sql
INSERT INTO temporal_fns
SELECT id, ts,
  DATE_FORMAT(ts, 'yyyy/MM/dd HH:mm:ss'),
  EXTRACT(YEAR FROM ts), MONTH(ts), DAYOFMONTH(ts), HOUR(ts), DAYOFWEEK(ts),
  FLOOR(ts TO HOUR), CEIL(ts TO DAY),
  TIMESTAMPADD(MINUTE, 90, ts), ts - INTERVAL '2' DAY,
  TO_DATE(birth),
  TIMESTAMPDIFF(DAY, CAST(TO_DATE(birth) AS TIMESTAMP(3)), ts),
  QUARTER(ts), WEEK(ts),
  CAST(ts AS DATE), CAST(ts AS TIME(0))
FROM people;

-- source: /work/shared/conformance/cases/neg_insert_type_mismatch/case.sql
CREATE TABLE out_types (
  item STRING,
  n INT
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/out_types',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/neg_insert_type_mismatch/case.sql
INSERT INTO out_types SELECT item, supplier_id FROM Bid;

-- source: /work/shared/conformance/cases/neg_unknown_column/case.sql
CREATE TABLE out_cols (
  item STRING,
  q INT
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/out_cols',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/neg_unknown_column/case.sql
INSERT INTO out_cols SELECT item, quantity FROM Bid;

-- source: /work/shared/conformance/cases/neg_update_into_append_sink/case.sql
CREATE TABLE per_item (
  item STRING,
  total DECIMAL(38, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/per_item',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/neg_update_into_append_sink/case.sql
INSERT INTO per_item SELECT item, SUM(price) FROM Bid GROUP BY item;

-- source: /work/shared/conformance/cases/neg_watermark_timestamp6/case.sql
CREATE TABLE Bid6 (
  bidtime TIMESTAMP(6),
  price DECIMAL(10, 2),
  item STRING,
  supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/case/input/bid.jsonl',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/neg_watermark_timestamp6/case.sql
CREATE TABLE out6 (
  item STRING,
  price DECIMAL(10, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/out6',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/neg_watermark_timestamp6/case.sql
INSERT INTO out6 SELECT item, price FROM Bid6;

-- source: /work/shared/conformance/cases/neg_window_on_non_time_attribute/case.sql
CREATE TABLE Bid (
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  item STRING,
  supplier_id STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/case/input/bid.jsonl',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/neg_window_on_non_time_attribute/case.sql
CREATE TABLE out_win (
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  cnt BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/out_win',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/neg_window_on_non_time_attribute/case.sql
INSERT INTO out_win
SELECT window_start, window_end, COUNT(*)
FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
GROUP BY window_start, window_end;

-- source: /work/shared/conformance/cases/nested_row_access/case.sql
CREATE TABLE nested (
  id INT,
  street STRING,
  city STRING,
  lat DOUBLE,
  has_addr BOOLEAN,
  loc ROW<city STRING, lat_rounded DOUBLE>,
  name_and_id ROW<n STRING, i INT>
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/nested',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/nested_row_access/case.sql
INSERT INTO nested
SELECT id, address.street, people.address.city, address.geo.lat, address IS NOT NULL,
  ROW(address.city, ROUND(address.geo.lat, 1)),
  ROW(name, id)
FROM people
WHERE id <= 30;

-- source: /work/shared/conformance/cases/nexmark_q0/case.sql (identical statement also in: nexmark_q1, nexmark_q11, nexmark_q13, nexmark_q15, nexmark_q16, nexmark_q17, nexmark_q18, nexmark_q19, nexmark_q2, nexmark_q20, nexmark_q21, nexmark_q22, nexmark_q3, nexmark_q4, nexmark_q5, nexmark_q7, nexmark_q8, nexmark_q9)
CREATE TABLE datagen (
    event_type int,
    person ROW<
        id  BIGINT,
        name  VARCHAR,
        emailAddress  VARCHAR,
        creditCard  VARCHAR,
        city  VARCHAR,
        state  VARCHAR,
        `dateTime` TIMESTAMP(3),
        extra  VARCHAR>,
    auction ROW<
        id  BIGINT,
        itemName  VARCHAR,
        description  VARCHAR,
        initialBid  BIGINT,
        reserve  BIGINT,
        `dateTime`  TIMESTAMP(3),
        expires  TIMESTAMP(3),
        seller  BIGINT,
        category  BIGINT,
        extra  VARCHAR>,
    bid ROW<
        auction  BIGINT,
        bidder  BIGINT,
        price  BIGINT,
        channel  VARCHAR,
        url  VARCHAR,
        `dateTime`  TIMESTAMP(3),
        extra  VARCHAR>,
    `dateTime` AS
        CASE
            WHEN event_type = 0 THEN person.`dateTime`
            WHEN event_type = 1 THEN auction.`dateTime`
            ELSE bid.`dateTime`
        END,
    WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH (
    'connector' = 'filesystem',
    'path' = '/data/case/../_data/nexmark_events.jsonl',
    'format' = 'json'
);

-- source: /work/shared/conformance/cases/nexmark_q0/case.sql (identical statement also in: nexmark_q1, nexmark_q11, nexmark_q13, nexmark_q15, nexmark_q16, nexmark_q17, nexmark_q18, nexmark_q19, nexmark_q2, nexmark_q20, nexmark_q21, nexmark_q22, nexmark_q3, nexmark_q4, nexmark_q5, nexmark_q7, nexmark_q8, nexmark_q9)
CREATE VIEW person AS
SELECT
    person.id,
    person.name,
    person.emailAddress,
    person.creditCard,
    person.city,
    person.state,
    `dateTime`,
    person.extra
FROM datagen WHERE event_type = 0;

-- source: /work/shared/conformance/cases/nexmark_q0/case.sql (identical statement also in: nexmark_q1, nexmark_q11, nexmark_q13, nexmark_q15, nexmark_q16, nexmark_q17, nexmark_q18, nexmark_q19, nexmark_q2, nexmark_q20, nexmark_q21, nexmark_q22, nexmark_q3, nexmark_q4, nexmark_q5, nexmark_q7, nexmark_q8, nexmark_q9)
CREATE VIEW auction AS
SELECT
    auction.id,
    auction.itemName,
    auction.description,
    auction.initialBid,
    auction.reserve,
    `dateTime`,
    auction.expires,
    auction.seller,
    auction.category,
    auction.extra
FROM datagen WHERE event_type = 1;

-- source: /work/shared/conformance/cases/nexmark_q0/case.sql (identical statement also in: nexmark_q1, nexmark_q11, nexmark_q13, nexmark_q15, nexmark_q16, nexmark_q17, nexmark_q18, nexmark_q19, nexmark_q2, nexmark_q20, nexmark_q21, nexmark_q22, nexmark_q3, nexmark_q4, nexmark_q5, nexmark_q7, nexmark_q8, nexmark_q9)
CREATE VIEW bid AS
SELECT
    bid.auction,
    bid.bidder,
    bid.price,
    bid.channel,
    bid.url,
    `dateTime`,
    bid.extra
FROM datagen WHERE event_type = 2;

-- source: /work/shared/conformance/cases/nexmark_q0/case.sql
CREATE TABLE nexmark_q0 (
  auction  BIGINT,
  bidder  BIGINT,
  price  BIGINT,
  `dateTime`  TIMESTAMP(3),
  extra  VARCHAR
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/nexmark_q0',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/nexmark_q0/case.sql
INSERT INTO nexmark_q0
SELECT auction, bidder, price, `dateTime`, extra FROM bid;

-- source: /work/shared/conformance/cases/nexmark_q1/case.sql
CREATE TABLE nexmark_q1 (
  auction  BIGINT,
  bidder  BIGINT,
  price  DECIMAL(23, 3),
  `dateTime`  TIMESTAMP(3),
  extra  VARCHAR
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/nexmark_q1',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/nexmark_q1/case.sql
INSERT INTO nexmark_q1
SELECT
    auction,
    bidder,
    0.908 * price as price, -- convert dollar to euro
    `dateTime`,
    extra
FROM bid;

-- source: /work/shared/conformance/cases/nexmark_q11/case.sql
CREATE TABLE nexmark_q11 (
  bidder BIGINT,
  bid_count BIGINT,
  starttime TIMESTAMP(3),
  endtime TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/nexmark_q11',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/nexmark_q11/case.sql
INSERT INTO nexmark_q11
SELECT
    B.bidder,
    count(*) as bid_count,
    SESSION_START(B.`dateTime`, INTERVAL '10' SECOND) as starttime,
    SESSION_END(B.`dateTime`, INTERVAL '10' SECOND) as endtime
FROM bid B
GROUP BY B.bidder, SESSION(B.`dateTime`, INTERVAL '10' SECOND);

-- source: /work/shared/conformance/cases/nexmark_q13/case.sql
CREATE TABLE side_input (
  key BIGINT,
  `value` VARCHAR
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/case/input/side_input.csv',
  'format' = 'csv'
);

-- source: /work/shared/conformance/cases/nexmark_q13/case.sql
CREATE TABLE nexmark_q13 (
  auction  BIGINT,
  bidder  BIGINT,
  price  BIGINT,
  `dateTime`  TIMESTAMP(3),
  `value`  VARCHAR
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/nexmark_q13',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/nexmark_q13/case.sql
INSERT INTO nexmark_q13
SELECT
    B.auction,
    B.bidder,
    B.price,
    B.`dateTime`,
    S.`value`
FROM bid B
JOIN side_input AS S
ON mod(B.auction, 10000) = S.key;

-- source: /work/shared/conformance/cases/nexmark_q15/case.sql
CREATE TABLE nexmark_q15 (
  `day` VARCHAR,
  total_bids BIGINT,
  rank1_bids BIGINT,
  rank2_bids BIGINT,
  rank3_bids BIGINT,
  total_bidders BIGINT,
  rank1_bidders BIGINT,
  rank2_bidders BIGINT,
  rank3_bidders BIGINT,
  total_auctions BIGINT,
  rank1_auctions BIGINT,
  rank2_auctions BIGINT,
  rank3_auctions BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/nexmark_q15',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/nexmark_q15/case.sql
INSERT INTO nexmark_q15
SELECT
     DATE_FORMAT(`dateTime`, 'yyyy-MM-dd') as `day`,
     count(*) AS total_bids,
     count(*) filter (where price < 10000) AS rank1_bids,
     count(*) filter (where price >= 10000 and price < 1000000) AS rank2_bids,
     count(*) filter (where price >= 1000000) AS rank3_bids,
     count(distinct bidder) AS total_bidders,
     count(distinct bidder) filter (where price < 10000) AS rank1_bidders,
     count(distinct bidder) filter (where price >= 10000 and price < 1000000) AS rank2_bidders,
     count(distinct bidder) filter (where price >= 1000000) AS rank3_bidders,
     count(distinct auction) AS total_auctions,
     count(distinct auction) filter (where price < 10000) AS rank1_auctions,
     count(distinct auction) filter (where price >= 10000 and price < 1000000) AS rank2_auctions,
     count(distinct auction) filter (where price >= 1000000) AS rank3_auctions
FROM bid
GROUP BY DATE_FORMAT(`dateTime`, 'yyyy-MM-dd');

-- source: /work/shared/conformance/cases/nexmark_q16/case.sql
CREATE TABLE nexmark_q16 (
  channel VARCHAR,
  `day` VARCHAR,
  `minute` VARCHAR,
  total_bids BIGINT,
  rank1_bids BIGINT,
  rank2_bids BIGINT,
  rank3_bids BIGINT,
  total_bidders BIGINT,
  rank1_bidders BIGINT,
  rank2_bidders BIGINT,
  rank3_bidders BIGINT,
  total_auctions BIGINT,
  rank1_auctions BIGINT,
  rank2_auctions BIGINT,
  rank3_auctions BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/nexmark_q16',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/nexmark_q16/case.sql
INSERT INTO nexmark_q16
SELECT
    channel,
    DATE_FORMAT(`dateTime`, 'yyyy-MM-dd') as `day`,
    max(DATE_FORMAT(`dateTime`, 'HH:mm')) as `minute`,
     count(*) AS total_bids,
     count(*) filter (where price < 10000) AS rank1_bids,
     count(*) filter (where price >= 10000 and price < 1000000) AS rank2_bids,
     count(*) filter (where price >= 1000000) AS rank3_bids,
     count(distinct bidder) AS total_bidders,
     count(distinct bidder) filter (where price < 10000) AS rank1_bidders,
     count(distinct bidder) filter (where price >= 10000 and price < 1000000) AS rank2_bidders,
     count(distinct bidder) filter (where price >= 1000000) AS rank3_bidders,
     count(distinct auction) AS total_auctions,
     count(distinct auction) filter (where price < 10000) AS rank1_auctions,
     count(distinct auction) filter (where price >= 10000 and price < 1000000) AS rank2_auctions,
     count(distinct auction) filter (where price >= 1000000) AS rank3_auctions
FROM bid
GROUP BY channel, DATE_FORMAT(`dateTime`, 'yyyy-MM-dd');

-- source: /work/shared/conformance/cases/nexmark_q17/case.sql
CREATE TABLE nexmark_q17 (
  auction BIGINT,
  `day` VARCHAR,
  total_bids BIGINT,
  rank1_bids BIGINT,
  rank2_bids BIGINT,
  rank3_bids BIGINT,
  min_price BIGINT,
  max_price BIGINT,
  avg_price BIGINT,
  sum_price BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/nexmark_q17',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/nexmark_q17/case.sql
INSERT INTO nexmark_q17
SELECT
     auction,
     DATE_FORMAT(`dateTime`, 'yyyy-MM-dd') as `day`,
     count(*) AS total_bids,
     count(*) filter (where price < 10000) AS rank1_bids,
     count(*) filter (where price >= 10000 and price < 1000000) AS rank2_bids,
     count(*) filter (where price >= 1000000) AS rank3_bids,
     min(price) AS min_price,
     max(price) AS max_price,
     avg(price) AS avg_price,
     sum(price) AS sum_price
FROM bid
GROUP BY auction, DATE_FORMAT(`dateTime`, 'yyyy-MM-dd');

-- source: /work/shared/conformance/cases/nexmark_q18/case.sql
CREATE TABLE nexmark_q18 (
  auction  BIGINT,
  bidder  BIGINT,
  price  BIGINT,
  channel  VARCHAR,
  url  VARCHAR,
  `dateTime`  TIMESTAMP(3),
  extra  VARCHAR
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/nexmark_q18',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/nexmark_q18/case.sql
INSERT INTO nexmark_q18
SELECT auction, bidder, price, channel, url, `dateTime`, extra
 FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY `dateTime` DESC) AS rank_number
       FROM bid)
 WHERE rank_number <= 1;

-- source: /work/shared/conformance/cases/nexmark_q19/case.sql
CREATE TABLE nexmark_q19 (
  auction  BIGINT,
  bidder  BIGINT,
  price  BIGINT,
  channel  VARCHAR,
  url  VARCHAR,
  `dateTime`  TIMESTAMP(3),
  extra  VARCHAR,
  rank_number  BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/nexmark_q19',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/nexmark_q19/case.sql
INSERT INTO nexmark_q19
SELECT * FROM
(SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rank_number FROM bid)
WHERE rank_number <= 10;

-- source: /work/shared/conformance/cases/nexmark_q2/case.sql
CREATE TABLE nexmark_q2 (
  auction  BIGINT,
  price  BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/nexmark_q2',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/nexmark_q2/case.sql
INSERT INTO nexmark_q2
SELECT auction, price FROM bid WHERE MOD(auction, 123) = 0;

-- source: /work/shared/conformance/cases/nexmark_q20/case.sql
CREATE TABLE nexmark_q20 (
  auction  BIGINT,
  bidder  BIGINT,
  price  BIGINT,
  channel  VARCHAR,
  url  VARCHAR,
  bid_dateTime  TIMESTAMP(3),
  bid_extra  VARCHAR,
  itemName  VARCHAR,
  description  VARCHAR,
  initialBid  BIGINT,
  reserve  BIGINT,
  auction_dateTime  TIMESTAMP(3),
  expires  TIMESTAMP(3),
  seller  BIGINT,
  category  BIGINT,
  auction_extra  VARCHAR
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/nexmark_q20',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/nexmark_q20/case.sql
INSERT INTO nexmark_q20
SELECT
    auction, bidder, price, channel, url, B.`dateTime`, B.extra,
    itemName, description, initialBid, reserve, A.`dateTime`, expires, seller, category, A.extra
FROM
    bid AS B INNER JOIN auction AS A on B.auction = A.id
WHERE A.category = 10;

-- source: /work/shared/conformance/cases/nexmark_q21/case.sql
CREATE TABLE nexmark_q21 (
  auction  BIGINT,
  bidder  BIGINT,
  price  BIGINT,
  channel  VARCHAR,
  channel_id  VARCHAR
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/nexmark_q21',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/nexmark_q21/case.sql
INSERT INTO nexmark_q21
SELECT
    auction, bidder, price, channel,
    CASE
        WHEN lower(channel) = 'apple' THEN '0'
        WHEN lower(channel) = 'google' THEN '1'
        WHEN lower(channel) = 'facebook' THEN '2'
        WHEN lower(channel) = 'baidu' THEN '3'
        ELSE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2)
        END
    AS channel_id FROM bid
    where REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) is not null or
          lower(channel) in ('apple', 'google', 'facebook', 'baidu');

-- source: /work/shared/conformance/cases/nexmark_q22/case.sql
CREATE TABLE nexmark_q22 (
  auction  BIGINT,
  bidder  BIGINT,
  price  BIGINT,
  channel  VARCHAR,
  dir1  VARCHAR,
  dir2  VARCHAR,
  dir3  VARCHAR
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/nexmark_q22',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/nexmark_q22/case.sql
INSERT INTO nexmark_q22
SELECT
    auction, bidder, price, channel,
    SPLIT_INDEX(url, '/', 3) as dir1,
    SPLIT_INDEX(url, '/', 4) as dir2,
    SPLIT_INDEX(url, '/', 5) as dir3 FROM bid;

-- source: /work/shared/conformance/cases/nexmark_q3/case.sql
CREATE TABLE nexmark_q3 (
  name  VARCHAR,
  city  VARCHAR,
  state  VARCHAR,
  id  BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/nexmark_q3',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/nexmark_q3/case.sql
INSERT INTO nexmark_q3
SELECT
    P.name, P.city, P.state, A.id
FROM
    auction AS A INNER JOIN person AS P on A.seller = P.id
WHERE
    A.category = 10 and (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA');

-- source: /work/shared/conformance/cases/nexmark_q4/case.sql
CREATE TABLE nexmark_q4 (
  id BIGINT,
  final BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/nexmark_q4',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/nexmark_q4/case.sql
INSERT INTO nexmark_q4
SELECT
    Q.category,
    AVG(Q.final)
FROM (
    SELECT MAX(B.price) AS final, A.category
    FROM auction A, bid B
    WHERE A.id = B.auction AND B.`dateTime` BETWEEN A.`dateTime` AND A.expires
    GROUP BY A.id, A.category
) Q
GROUP BY Q.category;

-- source: /work/shared/conformance/cases/nexmark_q5/case.sql
CREATE TABLE nexmark_q5 (
  auction  BIGINT,
  num  BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/nexmark_q5',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/nexmark_q5/case.sql
INSERT INTO nexmark_q5
SELECT AuctionBids.auction, AuctionBids.num
 FROM (
   SELECT
     auction,
     count(*) AS num,
     window_start AS starttime,
     window_end AS endtime
     FROM TABLE(
             HOP(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
     GROUP BY auction, window_start, window_end
 ) AS AuctionBids
 JOIN (
   SELECT
     max(CountBids.num) AS maxn,
     CountBids.starttime,
     CountBids.endtime
   FROM (
     SELECT
       count(*) AS num,
       window_start AS starttime,
       window_end AS endtime
     FROM TABLE(
                HOP(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
     GROUP BY auction, window_start, window_end
     ) AS CountBids
   GROUP BY CountBids.starttime, CountBids.endtime
 ) AS MaxBids
 ON AuctionBids.starttime = MaxBids.starttime AND
    AuctionBids.endtime = MaxBids.endtime AND
    AuctionBids.num >= MaxBids.maxn;

-- source: /work/shared/conformance/cases/nexmark_q7/case.sql
CREATE TABLE nexmark_q7 (
  auction  BIGINT,
  bidder  BIGINT,
  price  BIGINT,
  `dateTime`  TIMESTAMP(3),
  extra  VARCHAR
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/nexmark_q7',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/nexmark_q7/case.sql
INSERT INTO nexmark_q7
SELECT B.auction, B.price, B.bidder, B.`dateTime`, B.extra
from bid B
JOIN (
  SELECT MAX(price) AS maxprice, window_end as `dateTime`
  FROM TABLE(
          TUMBLE(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))
  GROUP BY window_start, window_end
) B1
ON B.price = B1.maxprice
WHERE B.`dateTime` BETWEEN B1.`dateTime`  - INTERVAL '10' SECOND AND B1.`dateTime`;

-- source: /work/shared/conformance/cases/nexmark_q8/case.sql
CREATE TABLE nexmark_q8 (
  id  BIGINT,
  name  VARCHAR,
  stime  TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/nexmark_q8',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/nexmark_q8/case.sql
INSERT INTO nexmark_q8
SELECT P.id, P.name, P.starttime
FROM (
  SELECT id, name,
        window_start AS starttime,
        window_end AS endtime
  FROM TABLE(
            TUMBLE(TABLE person, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))
  GROUP BY id, name, window_start, window_end
) P
JOIN (
  SELECT seller,
        window_start AS starttime,
        window_end AS endtime
  FROM TABLE(
        TUMBLE(TABLE auction, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))
  GROUP BY seller, window_start, window_end
) A
ON P.id = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime;

-- source: /work/shared/conformance/cases/nexmark_q9/case.sql
CREATE TABLE nexmark_q9 (
  id  BIGINT,
  itemName  VARCHAR,
  description  VARCHAR,
  initialBid  BIGINT,
  reserve  BIGINT,
  `dateTime`  TIMESTAMP(3),
  expires  TIMESTAMP(3),
  seller  BIGINT,
  category  BIGINT,
  extra  VARCHAR,
  auction  BIGINT,
  bidder  BIGINT,
  price  BIGINT,
  bid_dateTime  TIMESTAMP(3),
  bid_extra  VARCHAR
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/nexmark_q9',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/nexmark_q9/case.sql
INSERT INTO nexmark_q9
SELECT
    id, itemName, description, initialBid, reserve, `dateTime`, expires, seller, category, extra,
    auction, bidder, price, bid_dateTime, bid_extra
FROM (
   SELECT A.*, B.auction, B.bidder, B.price, B.`dateTime` AS bid_dateTime, B.extra AS bid_extra,
     ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.`dateTime` ASC) AS rownum
   FROM auction A, bid B
   WHERE A.id = B.auction AND B.`dateTime` BETWEEN A.`dateTime` AND A.expires
)
WHERE rownum <= 1;

-- source: /work/shared/conformance/cases/null_handling/case.sql
CREATE TABLE nulls (
  id INT,
  name_or STRING,
  nif INT,
  distinct_age BOOLEAN,
  not_distinct BOOLEAN,
  and3 BOOLEAN,
  or3 BOOLEAN,
  not3 BOOLEAN,
  ifn DOUBLE,
  eq_null BOOLEAN,
  is_true BOOLEAN,
  is_unknown BOOLEAN,
  empty_name BOOLEAN,
  plus_null INT
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/nulls',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/null_handling/case.sql
INSERT INTO nulls
SELECT id,
  COALESCE(name, address.city, 'nobody'),
  NULLIF(age, 0),
  age IS DISTINCT FROM 30,
  age IS NOT DISTINCT FROM CAST(NULL AS INT),
  flag AND age > 40,
  flag OR age > 40,
  NOT flag,
  IFNULL(score, -1.0),
  name = CAST(NULL AS STRING),
  flag IS TRUE,
  (age > 40) IS UNKNOWN,
  name = '',
  age + CAST(NULL AS INT)
FROM people;

-- source: /work/shared/conformance/cases/over_range/case.sql
CREATE TABLE over_range (
  supplier_id STRING,
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  avg_10m DECIMAL(38, 6),
  cnt_10m BIGINT,
  min_10m DECIMAL(10, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/over_range',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/over_range/case.sql
INSERT INTO over_range
SELECT supplier_id, bidtime, price,
  AVG(price) OVER (PARTITION BY supplier_id ORDER BY bidtime RANGE BETWEEN INTERVAL '10' MINUTE PRECEDING AND CURRENT ROW) AS avg_10m,
  COUNT(*) OVER (PARTITION BY supplier_id ORDER BY bidtime RANGE BETWEEN INTERVAL '10' MINUTE PRECEDING AND CURRENT ROW) AS cnt_10m,
  MIN(price) OVER (PARTITION BY supplier_id ORDER BY bidtime RANGE BETWEEN INTERVAL '10' MINUTE PRECEDING AND CURRENT ROW) AS min_10m
FROM Bid;

-- source: /work/shared/conformance/cases/over_rows/case.sql
CREATE TABLE over_rows (
  item STRING,
  bidtime TIMESTAMP(3),
  price DECIMAL(10, 2),
  sum3 DECIMAL(38, 2),
  cnt3 BIGINT,
  max3 DECIMAL(10, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/over_rows',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/over_rows/case.sql
INSERT INTO over_rows
SELECT item, bidtime, price,
  SUM(price) OVER w AS sum3,
  COUNT(*) OVER w AS cnt3,
  MAX(price) OVER w AS max3
FROM Bid
WINDOW w AS (PARTITION BY item ORDER BY bidtime ROWS BETWEEN 2 PRECEDING AND CURRENT ROW);

-- source: /work/shared/conformance/cases/union_all/case.sql
CREATE TABLE ClicksA (
  user_name STRING,
  url STRING,
  ctime TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/case/input/clicks_a.jsonl',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/union_all/case.sql
CREATE TABLE ClicksB (
  user_name STRING,
  url STRING,
  ctime TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/case/input/clicks_b.jsonl',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/union_all/case.sql
CREATE TABLE all_clicks (
  src STRING,
  user_name STRING,
  url STRING,
  ctime TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '/data/out/all_clicks',
  'format' = 'json'
);

-- source: /work/shared/conformance/cases/union_all/case.sql
INSERT INTO all_clicks
SELECT 'A' AS src, user_name, url, ctime FROM ClicksA WHERE url <> '/page1'
UNION ALL
SELECT 'B', user_name, url, ctime FROM ClicksB
UNION ALL
SELECT 'A2', UPPER(user_name), url, ctime FROM ClicksA WHERE user_name = 'Liz';
