"""Secrets planted in table options and the session's configuration never leave the
cluster: not in a SQL Gateway answer (every byte the client received is kept and
searched), not in any REST endpoint of any job or vertex, not in the Prometheus text or
the dashboard, not in the cluster's log file, although the tables holding them are
shown, described, read from and written to, and a job using one fails."""
from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from tests.service.test_cluster import cluster  # noqa: F401 - the cluster fixture
from tests.service.test_rest_api import free_port, http

SECRETS = ("PLANTED-pw-4711", "PLANTED-jaas-4712", "PLANTED-conf-4713")


def _get(port: int, path: str) -> str:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as r:
            return r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.read().decode("utf-8", "replace")


def test_planted_secrets_appear_in_no_response_and_no_log(cluster, tmp_path):  # noqa: F811
    from sqlengine.api import Session
    from sqlengine.api.remote import Connection

    received: list[bytes] = []
    original = Connection.request

    def recording(self, method, path, body=None):
        status, reply = original(self, method, path, body)
        received.append(repr(reply).encode())
        return status, reply
    Connection.request = recording
    try:
        s = Session({"execution.target": "remote", "rest.address": "127.0.0.1", "rest.port": str(cluster["rest"])})
        dead = free_port()  # nothing listens there: reading or writing the table fails
        s.execute_sql(f"""CREATE TABLE pg (id BIGINT, name STRING) WITH ('connector' = 'jdbc',
            'url' = 'jdbc:postgresql://127.0.0.1:{dead}/db', 'table-name' = 't', 'username' = 'u',
            'password' = '{SECRETS[0]}')""")
        s.execute_sql(f"""CREATE TABLE k (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 't',
            'properties.bootstrap.servers' = '127.0.0.1:{dead}', 'format' = 'json',
            'properties.sasl.jaas.config' = 'org.apache.kafka.common.security.plain.PlainLoginModule required
            username="u" password="{SECRETS[1]}";')""")
        with pytest.raises(Exception, match="already exists"):  # a failed statement is logged with its text
            s.execute_sql(f"CREATE TABLE pg (id BIGINT) WITH ('connector' = 'jdbc', 'password' = '{SECRETS[0]}')")
        s.execute_sql(f"SET 'fs.s3a.secret.key' = '{SECRETS[2]}'")
        shown = s.execute_sql("SHOW CREATE TABLE pg").render()
        assert "'password' = '******'" in shown and "'username' = 'u'" in shown  # masked, not left out
        assert "'properties.sasl.jaas.config' = '******'" in s.execute_sql("SHOW CREATE TABLE k").render()
        s.execute_sql("DESCRIBE pg")
        s.execute_sql("SET")
        assert s.conf["fs.s3a.secret.key"] == "******"
        with pytest.raises(Exception):
            s.execute_sql("SET 'execution.runtime-mode' = 'batch'; SELECT * FROM pg")
        s.execute_sql("SET 'execution.runtime-mode' = 'streaming'")
        s.execute_sql("CREATE TABLE few (id BIGINT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3')")
        failing = s.execute_sql("INSERT INTO pg SELECT id, name FROM few")
        with pytest.raises(Exception):
            failing.wait(120_000)
        job_id = failing.get_job_client().get_job_id()
        s.close()
    finally:
        Connection.request = original

    rest = cluster["rest"]
    assert http(rest, f"/v1/jobs/{job_id}/status")[1] == {"status": "FAILED"}
    assert http(rest, f"/v1/jobs/{job_id}/exceptions")[1]["exceptionHistory"]["entries"]  # its reason is there
    pages = ["/v1/config", "/v1/overview", "/v1/jobs", "/v1/jobs/overview", "/v1/taskmanagers", "/metrics", "/",
             "/web/app.js"]
    for job in http(rest, "/v1/jobs")[1]["jobs"]:
        jid = job["id"]
        pages += [f"/v1/jobs/{jid}{p}" for p in ("", "/plan", "/exceptions", "/status", "/metrics", "/checkpoints",
                                                  "/checkpoints/config")]
        for v in http(rest, f"/v1/jobs/{jid}")[1]["vertices"]:
            pages += [f"/v1/jobs/{jid}/vertices/{v['id']}{p}" for p in ("", "/metrics", "/watermarks",
                                                                         "/backpressure")]
    texts = {p: _get(rest, p) for p in pages}
    log = (cluster["state"] / "sqlengine" / "cluster" / f"cluster-{rest}.log").read_text(errors="replace")
    assert "Statement failed in statement:\nCREATE TABLE pg (id BIGINT) WITH ('connector' = 'jdbc', " \
           "'password' = '******')" in log  # logged, masked
    for secret in SECRETS:
        for p, text in texts.items():
            assert secret not in text, f"{secret} in GET {p}"
        assert not any(secret.encode() in r for r in received), f"{secret} in a SQL Gateway answer"
        assert secret not in log, f"{secret} in the cluster's log"
