-- JSON functions over columns: JSON_VALUE (RETURNING), JSON_QUERY (wrappers), JSON_EXISTS, IS JSON kinds, JSON_STRING, JSON_OBJECT and JSON_ARRAY (null handling, nesting)
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE docs (
  id INT,
  doc STRING,
  name STRING,
  score DECIMAL(5, 1)
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/docs.jsonl',
  'format' = 'json'
);
CREATE TABLE json_out (
  id INT,
  user_id INT,
  n STRING,
  tags STRING,
  user_obj STRING,
  wrapped STRING,
  has_user BOOLEAN,
  has_x BOOLEAN,
  is_json BOOLEAN,
  is_object BOOLEAN,
  is_array BOOLEAN,
  name_json STRING,
  obj STRING,
  obj_absent STRING,
  arr STRING,
  arr_nulls STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/json_out',
  'format' = 'json'
);

INSERT INTO json_out
SELECT
  id,
  JSON_VALUE(doc, '$.user.id' RETURNING INT),
  JSON_VALUE(doc, '$.n'),
  JSON_QUERY(doc, '$.user.tags'),
  JSON_QUERY(doc, '$.user'),
  JSON_QUERY(doc, '$.user.tags' WITH CONDITIONAL ARRAY WRAPPER),
  JSON_EXISTS(doc, '$.user'),
  JSON_EXISTS(doc, '$.x'),
  doc IS JSON,
  doc IS JSON OBJECT,
  doc IS JSON ARRAY,
  JSON_STRING(name),
  JSON_OBJECT('id' VALUE id, 'name' VALUE name, 'score' VALUE score),
  JSON_OBJECT(KEY 'name' VALUE name, KEY 'inner' VALUE JSON_OBJECT('s' VALUE score ABSENT ON NULL) ABSENT ON NULL),
  JSON_ARRAY(id, name, score),
  JSON_ARRAY(name, JSON_ARRAY(id) NULL ON NULL)
FROM docs;
