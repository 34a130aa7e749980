-- EXECUTE STATEMENT SET blocks from the Apache Flink documentation and the conformance cases.
-- Blocks are separated by a line containing only "-- next"; each block is one statement
-- (the ';' inside BEGIN ... END terminate the inner INSERTs). Format: see README.md.

-- source: https://github.com/apache/flink/blob/master/docs/content/docs/dev/table/sql/insert.md
EXECUTE STATEMENT SET
BEGIN
INSERT INTO students
  VALUES ('fred flintstone', 35, 1.28), ('barney rubble', 32, 2.32);
INSERT INTO students
  VALUES ('fred flintstone', 35, 1.28), ('barney rubble', 32, 2.32);
END;
-- next
-- source: https://issues.apache.org/jira/browse/FLINK-25392 (quoted at https://mail-archive.com/issues@flink.apache.org/msg569575.html)
EXECUTE STATEMENT SET
BEGIN
  INSERT INTO pageview_pv_sink
  SELECT page_id, count(1) FROM clicks GROUP BY page_id;
  INSERT INTO pageview_uv_sink
  SELECT page_id, count(distinct user_id) FROM clicks GROUP BY page_id;
END;
-- next
-- source: https://issues.apache.org/jira/browse/FLINK-25392 (quoted at https://mail-archive.com/issues@flink.apache.org/msg569575.html)
EXPLAIN STATEMENT SET
BEGIN
  INSERT INTO pageview_pv_sink
  SELECT page_id, count(1) FROM clicks GROUP BY page_id;
  INSERT INTO pageview_uv_sink
  SELECT page_id, count(distinct user_id) FROM clicks GROUP BY page_id;
END;
-- next
-- source: /work/shared/conformance/cases/batch_grouping_sets/case.sql
EXECUTE STATEMENT SET
BEGIN
INSERT INTO by_sets
SELECT region, product, GROUPING(region), GROUPING(product), SUM(qty), SUM(revenue), COUNT(*)
FROM sales
GROUP BY GROUPING SETS ((region, product), (region), ());
INSERT INTO by_rollup
SELECT region, country, SUM(qty), SUM(revenue)
FROM sales
GROUP BY ROLLUP (region, country);
END;
