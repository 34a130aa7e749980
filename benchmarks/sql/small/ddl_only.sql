-- Small script (c): only DDL and catalog statements; no job runs.
CREATE TABLE customers (
    id         BIGINT,
    name       STRING,
    country    STRING,
    created_at TIMESTAMP(3),
    WATERMARK FOR created_at AS created_at - INTERVAL '5' SECOND
) WITH (
    'connector' = 'datagen',
    'number-of-rows' = '10'
);

CREATE TABLE orders (
    order_id    BIGINT,
    customer_id BIGINT,
    amount      DECIMAL(10, 2),
    order_time  TIMESTAMP(3)
) WITH (
    'connector' = 'datagen',
    'number-of-rows' = '10'
);

CREATE TABLE order_totals (
    customer_id BIGINT,
    total       DECIMAL(20, 2),
    PRIMARY KEY (customer_id) NOT ENFORCED
) WITH (
    'connector' = 'blackhole'
);

CREATE VIEW big_orders AS
SELECT order_id, customer_id, amount FROM orders WHERE amount > 100;

SHOW TABLES;
DESCRIBE customers;
DESCRIBE order_totals;
