-- EXPLAIN: what must fail, and the statements it accepts.
CREATE TABLE src (id INT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE snk (id INT, name STRING) WITH ('connector' = 'blackhole');
EXPLAIN SELECT * FROM nope;
EXPLAIN SELECT nope FROM src;
EXPLAIN INSERT INTO nope SELECT * FROM src;
EXPLAIN INSERT INTO snk SELECT id FROM src;
EXPLAIN PLAN FOR SELECT * FROM nope;
EXPLAIN CREATE TABLE x (a INT);
EXPLAIN ESTIMATED_COST, NOPE SELECT * FROM src;
EXPLAIN STATEMENT SET BEGIN INSERT INTO nope SELECT * FROM src; END;
