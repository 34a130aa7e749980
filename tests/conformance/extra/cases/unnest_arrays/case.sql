-- CROSS JOIN UNNEST of an ARRAY<STRING> and of an ARRAY<ROW<..>> (DECIMAL field), WITH ORDINALITY, LEFT JOIN UNNEST ON TRUE for empty/NULL arrays
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE orders (
  oid INT,
  tags ARRAY<STRING>,
  items ARRAY<ROW<sku STRING, qty INT, price DECIMAL(8, 2)>>,
  ts TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/orders.jsonl',
  'format' = 'json'
);
CREATE TABLE order_tags (
  oid INT,
  tag STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/order_tags',
  'format' = 'json'
);
CREATE TABLE order_items (
  oid INT,
  sku STRING,
  qty INT,
  line_total DECIMAL(18, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/order_items',
  'format' = 'json'
);
CREATE TABLE tag_positions (
  oid INT,
  tag STRING,
  pos INT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/tag_positions',
  'format' = 'json'
);
CREATE TABLE tags_or_none (
  oid INT,
  tag STRING,
  n_tags INT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/tags_or_none',
  'format' = 'json'
);

EXECUTE STATEMENT SET
BEGIN
INSERT INTO order_tags
SELECT o.oid, t.tag FROM orders o CROSS JOIN UNNEST(o.tags) AS t (tag);
INSERT INTO order_items
SELECT o.oid, i.sku, i.qty, i.qty * i.price FROM orders o CROSS JOIN UNNEST(o.items) AS i (sku, qty, price);
INSERT INTO tag_positions
SELECT o.oid, t.tag, t.pos FROM orders o CROSS JOIN UNNEST(o.tags) WITH ORDINALITY AS t (tag, pos);
INSERT INTO tags_or_none
SELECT o.oid, t.tag, CARDINALITY(o.tags) FROM orders o LEFT JOIN UNNEST(o.tags) AS t (tag) ON TRUE;
END;
