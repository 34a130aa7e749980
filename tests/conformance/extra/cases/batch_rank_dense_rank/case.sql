-- Batch Top-N with RANK (<= 2, ties share a rank and leave gaps) and DENSE_RANK (<= 3) per team, NULL scores sorted last
SET 'execution.runtime-mode' = 'batch';
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE scores (
  player STRING,
  team STRING,
  score INT
) WITH (
  'connector' = 'filesystem',
  'path' = '${CASE_DIR}/input/scores.jsonl',
  'format' = 'json'
);
CREATE TABLE rank_top (
  team STRING,
  player STRING,
  score INT,
  rk BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/rank_top',
  'format' = 'json'
);
CREATE TABLE dense_top (
  team STRING,
  player STRING,
  score INT,
  drk BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUT_DIR}/dense_top',
  'format' = 'json'
);

EXECUTE STATEMENT SET
BEGIN
INSERT INTO rank_top
SELECT team, player, score, rk FROM (
  SELECT *, RANK() OVER (PARTITION BY team ORDER BY score DESC NULLS LAST) AS rk FROM scores
) WHERE rk <= 2;
INSERT INTO dense_top
SELECT team, player, score, drk FROM (
  SELECT *, DENSE_RANK() OVER (PARTITION BY team ORDER BY score DESC NULLS LAST) AS drk FROM scores
) WHERE drk <= 3;
END;
