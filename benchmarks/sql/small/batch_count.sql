-- Small script (a): a batch aggregation over 1,000 generated rows, printed as a table.
SET 'execution.runtime-mode' = 'batch';
SET 'sql-client.execution.result-mode' = 'tableau';
SET 'parallelism.default' = '2';

CREATE TABLE orders (
    id     BIGINT,
    amount INT
) WITH (
    'connector' = 'datagen',
    'number-of-rows' = '1000',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '1',
    'fields.id.end' = '1000',
    'fields.amount.kind' = 'sequence',
    'fields.amount.start' = '1',
    'fields.amount.end' = '1000'
);

-- One row: 1000, 500500 (sequences, so the result is the same on every run).
SELECT COUNT(*) AS cnt, SUM(amount) AS total FROM orders;
