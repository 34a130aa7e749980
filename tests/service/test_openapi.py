"""Flink's own OpenAPI documents, run against sqlengine's REST API and SQL Gateway.

Flink publishes its REST APIs as OpenAPI documents (apache/flink
``docs/static/generated/rest_v1_dispatcher.yml`` and ``rest_v4_sql_gateway.yml``, vendored
in ``tests/service/openapi/``, Apache License 2.0). Restricted to the endpoints sqlengine
serves, schemathesis generates requests from them (valid and malformed: random ids, bodies,
query strings) against a running cluster; no answer may be a server error, and every
answer Flink documents must match Flink's schema. Then each read endpoint is called with
the ids of a real running job (its vertices, its checkpoints) and its 200 answer is
checked against Flink's schema: paths, fields and types are Flink's by construction.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import content_type_conformance, not_a_server_error, response_schema_conformance

from tests.service.test_cluster import cluster, sqlengine  # noqa: F401 - the cluster fixture
from tests.service.test_rest_api import http

SPECS = Path(__file__).parent / "openapi"
DISPATCHER = {("GET", p) for p in (
    "/config", "/overview", "/jobs", "/jobs/overview", "/jobs/{jobid}", "/jobs/{jobid}/plan", "/jobs/{jobid}/status",
    "/jobs/{jobid}/exceptions", "/jobs/{jobid}/metrics", "/jobs/{jobid}/checkpoints",
    "/jobs/{jobid}/checkpoints/config", "/jobs/{jobid}/checkpoints/details/{checkpointid}",
    "/jobs/{jobid}/vertices/{vertexid}", "/jobs/{jobid}/vertices/{vertexid}/metrics",
    "/jobs/{jobid}/vertices/{vertexid}/watermarks", "/jobs/{jobid}/vertices/{vertexid}/backpressure",
    "/jobs/{jobid}/savepoints/{triggerid}", "/taskmanagers")} | {
    ("PATCH", "/jobs/{jobid}"), ("POST", "/jobs/{jobid}/stop"), ("POST", "/jobs/{jobid}/savepoints")}
GATEWAY = {("GET", "/api_versions"), ("GET", "/info"), ("POST", "/sessions"), ("GET", "/sessions/{session_handle}"),
           ("DELETE", "/sessions/{session_handle}"), ("POST", "/sessions/{session_handle}/heartbeat"),
           ("POST", "/sessions/{session_handle}/statements"),
           ("POST", "/sessions/{session_handle}/configure-session"),
           ("GET", "/sessions/{session_handle}/complete-statement"),
           ("GET", "/sessions/{session_handle}/operations/{operation_handle}/status"),
           ("POST", "/sessions/{session_handle}/operations/{operation_handle}/cancel"),
           ("DELETE", "/sessions/{session_handle}/operations/{operation_handle}/close"),
           ("GET", "/sessions/{session_handle}/operations/{operation_handle}/result/{token}")}
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]
JOB = """CREATE TABLE ticks (id BIGINT, ts AS LOCALTIMESTAMP, WATERMARK FOR ts AS ts)
  WITH ('connector' = 'datagen', 'rows-per-second' = '20');
CREATE TABLE nowhere (k BIGINT, n BIGINT) WITH ('connector' = 'blackhole');
SET 'pipeline.name' = 'openapi-job';
INSERT INTO nowhere SELECT id % 3, COUNT(*) FROM ticks GROUP BY id % 3;
"""


# Where Flink's generated document and Flink's wire format differ, the wire wins (it is what
# Flink's clients parse): a SlotSharingGroupId is written as 32 hex digits by its
# serializer (SlotSharingGroupIDSerializer), not the object the document describes; a
# checkpoint's processing mode is written in lower case (ProcessingModeSerializer); a
# metrics answer is a bare array of {id, value} (MetricCollectionResponseBodySerializer).
CORRECTIONS = {"MetricCollectionResponseBody": {
                   "type": "array", "items": {"type": "object", "required": ["id"], "additionalProperties": False,
                                              "properties": {"id": {"type": "string"}, "value": {"type": "string"}}}},
               "SlotSharingGroupId": {"type": "string", "pattern": "[0-9a-f]{32}"},
               "ProcessingMode": {"type": "string", "enum": ["at_least_once", "exactly_once"]}}


def _load(spec: str):
    import yaml
    doc = yaml.safe_load((SPECS / spec).read_text())
    doc["components"]["schemas"].update(CORRECTIONS if spec.startswith("rest_v1_dispatcher") else {})
    return schemathesis.openapi.from_dict(doc)


def _only(implemented: set) -> callable:
    return lambda ctx: (ctx.operation.method.upper(), ctx.operation.path) in implemented


@pytest.fixture(scope="module")
def job(cluster, tmp_path_factory):  # noqa: F811
    """A running job on the cluster, with at least one completed epoch."""
    script = tmp_path_factory.mktemp("openapi") / "job.sql"
    script.write_text(JOB)
    out = sqlengine(cluster["env"], "-m", f"127.0.0.1:{cluster['rest']}", "-f", str(script))
    assert out.returncode == 0, out.stderr
    job_id = out.stdout.split("Job ID: ")[1].split()[0]
    deadline = time.monotonic() + 120
    while http(cluster["rest"], f"/v1/jobs/{job_id}/checkpoints")[1]["counts"]["completed"] < 1:
        assert time.monotonic() < deadline, "no epoch completed"
        time.sleep(0.2)
    yield {"id": job_id, **cluster}
    http(cluster["rest"], f"/v1/jobs/{job_id}?mode=cancel", method="PATCH")


FUZZ = settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), database=None)


def _operations(spec: str, implemented: set) -> list:
    schema = _load(spec).include(_only(implemented))
    ops = [r.ok() for r in schema.get_all_operations()]
    assert {(o.method.upper(), o.path) for o in ops} == implemented  # every served endpoint is in Flink's document
    return ops


def _fuzz(op, base_url: str) -> None:
    """Requests generated from ``op``'s declaration (schemathesis's strategy, run by
    hypothesis): no server error, and answers as Flink's document says."""
    @given(case=op.as_strategy())
    @FUZZ
    def run(case) -> None:
        case.call_and_validate(base_url=base_url, checks=CHECKS)
    run()


@pytest.mark.parametrize("op", _operations("rest_v1_dispatcher.yml", DISPATCHER), ids=lambda o: f"{o.method} {o.path}")
def test_flinks_rest_api_document_against_the_cluster(op, job):
    _fuzz(op, f"http://127.0.0.1:{job['rest']}/v1")


@pytest.mark.parametrize("op", _operations("rest_v4_sql_gateway.yml", GATEWAY), ids=lambda o: f"{o.method} {o.path}")
def test_flinks_sql_gateway_document_against_the_cluster(op, job):
    _fuzz(op, f"http://127.0.0.1:{job['gateway']}/v4")


def test_a_running_jobs_answers_match_flinks_schemas(job):
    """Every read endpoint, with the ids of a real job: 200 and Flink's schema."""
    schema = _load("rest_v1_dispatcher.yml")
    rest, job_id = job["rest"], job["id"]
    details = http(rest, f"/v1/jobs/{job_id}")[1]
    vertex = details["vertices"][0]["id"]
    checkpoint = http(rest, f"/v1/jobs/{job_id}/checkpoints")[1]["history"][0]["id"]
    ids = {"jobid": job_id, "vertexid": vertex, "checkpointid": checkpoint}
    checked = []
    for method, path in sorted(DISPATCHER):
        if method != "GET" or "{triggerid}" in path:
            continue
        params = {k: v for k, v in ids.items() if "{" + k + "}" in path}
        case = schema[path]["GET"].Case(path_parameters=params)
        response = case.call(base_url=f"http://127.0.0.1:{rest}/v1")
        assert response.status_code == 200, (path, response.text)
        case.validate_response(response, checks=[response_schema_conformance, content_type_conformance])
        checked.append(path)
    assert len(checked) == 17
    # The gateway: a session, a statement, its status and its first page.
    gw = _load("rest_v4_sql_gateway.yml")
    base = f"http://127.0.0.1:{job['gateway']}/v4"
    opened = gw["/sessions"]["POST"].Case(body={"sessionName": "schema", "properties": {}})
    response = opened.call(base_url=base)
    opened.validate_response(response, checks=[response_schema_conformance])
    handle = json.loads(response.text)["sessionHandle"]
    run = gw["/sessions/{session_handle}/statements"]["POST"].Case(
        path_parameters={"session_handle": handle}, body={"statement": "SHOW TABLES;"})
    response = run.call(base_url=base)
    run.validate_response(response, checks=[response_schema_conformance])
    operation = json.loads(response.text)["operationHandle"]
    status = gw["/sessions/{session_handle}/operations/{operation_handle}/status"]["GET"].Case(
        path_parameters={"session_handle": handle, "operation_handle": operation})
    response = status.call(base_url=base)
    status.validate_response(response, checks=[response_schema_conformance])
    assert json.loads(response.text)["status"] in ("RUNNING", "FINISHED")
