-- Array, map, regex, JSON quoting, PRINTF, ELT and INET functions over columns: ARRAY_APPEND/PREPEND/EXCEPT/INTERSECT/UNION/SLICE/SORT, MAP_UNION, REGEXP_COUNT/INSTR/SUBSTR/EXTRACT_ALL, JSON_QUOTE/UNQUOTE, PRINTF, ELT, INET_ATON/NTOA (NULLs, empty arrays, negative bounds)
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE vals (
  id INT,
  a ARRAY<INT>,
  b ARRAY<INT>,
  s STRING,
  ip STRING,
  n BIGINT,
  k INT,
  d DOUBLE,
  m1 MAP<STRING, INT>,
  m2 MAP<STRING, INT>
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/vals.jsonl',
  'format' = 'json'
);
CREATE TABLE arrays_out (
  id INT,
  appended ARRAY<INT>,
  prepended ARRAY<INT>,
  excepted ARRAY<INT>,
  intersected ARRAY<INT>,
  unioned ARRAY<INT>,
  slice_k ARRAY<INT>,
  slice_neg ARRAY<INT>,
  slice_k_end ARRAY<INT>,
  sorted_asc ARRAY<INT>,
  sorted_desc ARRAY<INT>,
  sorted_nulls_last ARRAY<INT>,
  merged MAP<STRING, INT>
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/arrays_out',
  'format' = 'json'
);
CREATE TABLE strings_out (
  id INT,
  cnt INT,
  pos INT,
  first_match STRING,
  all_digits ARRAY<STRING>,
  all_letters ARRAY<STRING>,
  quoted STRING,
  unquoted STRING,
  roundtrip STRING,
  formatted STRING,
  formatted_bad STRING,
  picked STRING,
  ip_num BIGINT,
  ip_text STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/strings_out',
  'format' = 'json'
);

INSERT INTO arrays_out
SELECT
  id,
  ARRAY_APPEND(a, k),
  ARRAY_PREPEND(a, CAST(NULL AS INT)),
  ARRAY_EXCEPT(a, b),
  ARRAY_INTERSECT(a, b),
  ARRAY_UNION(a, b),
  ARRAY_SLICE(a, k),
  ARRAY_SLICE(a, -2),
  ARRAY_SLICE(a, k, k + 1),
  ARRAY_SORT(a),
  ARRAY_SORT(a, FALSE),
  ARRAY_SORT(a, TRUE, FALSE),
  MAP_UNION(m1, m2)
FROM vals;

INSERT INTO strings_out
SELECT
  id,
  REGEXP_COUNT(s, '[a-z]'),
  REGEXP_INSTR(s, '\d+'),
  REGEXP_SUBSTR(s, '[a-z]\d+'),
  REGEXP_EXTRACT_ALL(s, '\d+', 0),
  REGEXP_EXTRACT_ALL(s, '([a-z])(\d+)'),
  JSON_QUOTE(s),
  JSON_UNQUOTE(JSON_QUOTE(s)),
  JSON_UNQUOTE(s),
  PRINTF('%d:%s|%5.2f', id, s, d),
  PRINTF('%d', d),
  ELT(MOD(id, 4), s, ip, 'third'),
  INET_ATON(ip),
  INET_NTOA(n)
FROM vals;
