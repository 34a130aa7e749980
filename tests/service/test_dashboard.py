"""The cluster's web dashboard, in a real browser (headless Chromium driven by Selenium).

A real cluster process runs an unbounded job submitted by a real ``sqlengine -m`` client
(datagen at 50 rows/s -> GROUP BY -> blackhole: two tasks joined by a HASH edge). The page
must show the job, draw its DAG (one box per vertex of ``/v1/jobs/:id``, the HASH edge),
count its records as they grow, and cancel it from its button. The job's name holds markup,
which the page must show as text.

A second, bounded job has a restart strategy with a long backoff and fails once where its
input ends (``SQLENGINE_FAULT=end-of-input``, raised once in the cluster process: the
endless job never gets there): over HTTP it is RESTARTING while it backs off, with
``numRestarts`` 1 and its failure in ``/jobs/:id/exceptions``; the page shows the state and
the exception.

``SQLENGINE_DASHBOARD_SCREENSHOT=docs/dashboard.png`` also saves the job page (the README's
picture)."""
from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

import pytest

from tests.service.test_cluster import sqlengine
from tests.service.test_rest_api import free_port, http

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
NAME = 'count by <id % 3> & "more"'  # shown as text, never as markup (no <id> element)
JOB = f"""
CREATE TABLE endless (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '50');
CREATE TABLE counts (k BIGINT, n BIGINT) WITH ('connector' = 'blackhole');
SET 'pipeline.name' = '{NAME}';
INSERT INTO counts SELECT id % 3, COUNT(*) FROM endless GROUP BY id % 3;
"""


RESTARTING_JOB = """
CREATE TABLE few (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '20');
CREATE TABLE nowhere (id BIGINT) WITH ('connector' = 'blackhole');
SET 'pipeline.name' = 'restarting-job';
SET 'restart-strategy.type' = 'fixed-delay';
SET 'restart-strategy.fixed-delay.delay' = '10 min';
INSERT INTO nowhere SELECT id FROM few;
"""


def submit(env: dict, port: int, folder: Path, name: str, sql: str) -> str:
    """Submit a script with a real ``sqlengine -m`` client; the job's id."""
    script = folder / f"{name}.sql"
    script.write_text(sql)
    submitted = sqlengine(env, "-m", f"127.0.0.1:{port}", "-f", str(script))
    job = re.search(r"Job ID: ([0-9a-f]{32})", submitted.stdout)
    assert submitted.returncode == 0 and job, submitted.stdout + submitted.stderr
    return job.group(1)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A cluster on free ports (its state in a folder of its own) running the job: (port, job id,
    the client's environment, a folder for scripts)."""
    state = tmp_path_factory.mktemp("dashboard-cluster")
    rest = free_port()
    (state / "faults").mkdir()
    env = dict(os.environ, XDG_STATE_HOME=str(state), XDG_DATA_HOME=str(state / "data"),
               SQLENGINE_FAULT="end-of-input", SQLENGINE_FAULT_ACTION=f"raise:{state / 'faults'}")
    conf = ["-D", f"rest.port={rest}", "-D", f"sql-gateway.endpoint.rest.port={free_port()}",
            "-D", "spark.master=local[2]", "-D", "parallelism.default=2",
            "-D", "sqlengine.cluster.warm-up=false"]  # (its bounded warm-up job would take the one failure)
    started = sqlengine(env, "cluster", "start", *conf, timeout=240)
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        yield rest, submit(env, rest, state, "job", JOB), env, state
    finally:
        sqlengine(env, "cluster", "stop", *conf, timeout=300)


@pytest.fixture(scope="module")
def browser():
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and driver):
        pytest.skip("Chromium is absent (test.sh installs it: apt-get install -y chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1400,1000"):
        options.add_argument(arg)
    # The driver is Debian's: Selenium Manager downloads nothing.
    chrome = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=driver))
    try:
        yield chrome
    finally:
        chrome.quit()


def wait(browser, condition, timeout: float = 60):
    """``condition(browser)`` once truthy (the page polls the REST API every 1.5 s)."""
    return WebDriverWait(browser, timeout, poll_frequency=0.2,
                         ignored_exceptions=[StaleElementReferenceException]).until(condition)


def text(browser, css: str) -> str:
    found = browser.find_elements(By.CSS_SELECTOR, css)
    return found[0].text if found else ""


def records_out(browser, vertex: str) -> int:
    """The vertex's records out as the page shows them (0 while it shows none)."""
    shown = text(browser, f'#vertices tr[data-vertex="{vertex}"] td.records-out').replace(",", "")
    return int(shown) if shown.isdigit() else 0


def test_the_overview_lists_the_running_job(cluster, browser):
    port, job, _, _ = cluster
    browser.get(f"http://127.0.0.1:{port}/")
    row = f'#jobs-running tr[data-job="{job}"]'
    wait(browser, lambda b: text(b, f"{row} .badge") == "RUNNING")
    assert text(browser, f"{row} a.job-link") == NAME
    assert browser.find_elements(By.CSS_SELECTOR, f"{row} a.job-link *") == []  # its name is text
    assert text(browser, "#overview .stat .value")  # the cluster's numbers are there


def test_the_job_page_draws_the_dag_and_counts_live(cluster, browser):
    port, job, _, _ = cluster
    details = http(port, f"/v1/jobs/{job}")[1]
    browser.get(f"http://127.0.0.1:{port}/#/jobs/{job}")
    wait(browser, lambda b: text(b, "#job-state") == "RUNNING")
    assert text(browser, "#job-name") == NAME
    nodes = wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "svg#dag g.node"))
    assert sorted(n.get_attribute("data-vertex") for n in nodes) == sorted(v["id"] for v in details["vertices"])
    assert len(details["vertices"]) == 2
    ships = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "svg#dag g.edge text.ship")]
    assert ships == ["HASH"]
    # A vertex is a chain: "Source: ... -> Calc" is drawn one operator per line.
    source = next(n for n in details["plan"]["nodes"] if not n["inputs"])
    assert len(browser.find_elements(By.CSS_SELECTOR, f'svg#dag g.node[data-vertex="{source["id"]}"] text.op')) \
        == len(source["description"].split(" -> ")) > 1

    earlier = wait(browser, lambda b: records_out(b, source["id"]))
    later = wait(browser, lambda b: records_out(b, source["id"]) > earlier and records_out(b, source["id"]))
    assert later > earlier > 0
    shot = os.environ.get("SQLENGINE_DASHBOARD_SCREENSHOT")
    if shot:
        wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#checkpoints .badge.state-completed"))
        chrome, page = browser.execute_script("return [window.outerHeight - window.innerHeight, "
                                              "document.documentElement.scrollHeight]")
        browser.set_window_size(1400, chrome + page)
        assert browser.save_screenshot(str(ROOT / shot))


def test_the_cancel_button_cancels_the_job(cluster, browser):
    port, job, _, _ = cluster
    browser.get(f"http://127.0.0.1:{port}/#/jobs/{job}")
    wait(browser, lambda b: text(b, "#job-state") == "RUNNING" and b.find_element(By.ID, "cancel").is_enabled())
    browser.find_element(By.ID, "cancel").click()
    confirm = wait(browser, expected_conditions.alert_is_present(), timeout=10)
    assert "Cancel job" in confirm.text
    confirm.accept()
    wait(browser, lambda b: text(b, "#job-state") == "CANCELED")
    assert http(port, f"/v1/jobs/{job}/status") == (200, {"status": "CANCELED"})
    assert not browser.find_element(By.ID, "cancel").is_enabled()


def test_a_restarting_job_shows_restarting_its_restarts_and_its_exception(cluster, browser):
    port, _, env, folder = cluster
    job = submit(env, port, folder, "restarting", RESTARTING_JOB)
    deadline = time.monotonic() + 120
    while http(port, f"/v1/jobs/{job}/status")[1]["status"] not in ("RESTARTING", "FAILED", "FINISHED"):
        assert time.monotonic() < deadline, "the job did not fail"
        time.sleep(0.2)  # polling the cluster's REST API
    assert http(port, f"/v1/jobs/{job}/status") == (200, {"status": "RESTARTING"})
    metrics = http(port, f"/v1/jobs/{job}/metrics?get=numRestarts")[1]
    assert {m["id"]: m["value"] for m in metrics} == {"numRestarts": "1"}
    entries = http(port, f"/v1/jobs/{job}/exceptions")[1]["exceptionHistory"]["entries"]
    assert [(e["exceptionName"], e["stacktrace"]) for e in entries] == \
        [("sqlengine.faults.InjectedError", "injected failure at 'end-of-input'")]
    listed = {j["jid"]: j["state"] for j in http(port, "/v1/jobs/overview")[1]["jobs"]}
    assert listed[job] == "RESTARTING"

    browser.get(f"http://127.0.0.1:{port}/#/jobs/{job}")
    wait(browser, lambda b: text(b, "#job-state") == "RESTARTING")
    shown = wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#exceptions details.exception"))
    assert len(shown) == 1 and "sqlengine.faults.InjectedError" in shown[0].text
    assert shown[0].find_element(By.TAG_NAME, "pre").get_attribute("textContent") == \
        "injected failure at 'end-of-input'"
    assert http(port, f"/v1/jobs/{job}?mode=cancel", "PATCH") == (202, {})  # ends the 10-minute backoff
    wait(browser, lambda b: text(b, "#job-state") == "CANCELED")
