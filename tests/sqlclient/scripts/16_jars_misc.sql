-- JARs, jobs and other client statements.
SHOW JARS;
ADD JAR '/no/such/file.jar';
SHOW JARS;
REMOVE JAR '/no/such/file.jar';
SHOW JOBS;
SHOW PROCEDURES;
SHOW CURRENT CATALOG;
SHOW PARTITIONS nope;
CREATE TABLE p (a INT, dt STRING) PARTITIONED BY (dt) WITH ('connector' = 'blackhole');
SHOW PARTITIONS p;
DESCRIBE JOB 'abc';
STOP JOB 'abc';
SHOW PROCEDURES IN default_catalog.default_database;
SHOW PROCEDURES FROM nope LIKE 'a%';
SHOW PROCEDURES IN nocat.db;
