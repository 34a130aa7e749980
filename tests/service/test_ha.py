"""High availability against a real ZooKeeper (``tests/service/zookeeper.py``): leader
election and failover (a clean close, a SIGKILLed leader), revocation when the leader's
session is lost or ZooKeeper goes away, the job stores, and configuration errors.

Sessions time out after 2 s here (Flink's default is 60 s), so a dead leader's session
ends, and a standby takes over, within a few seconds."""
from __future__ import annotations

import json
import select
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from sqlengine.errors import ValidationError
from sqlengine.service.ha import (CLUSTER_ID, CONNECTION_TIMEOUT, HA_TYPE, QUORUM, ROOT, SESSION_TIMEOUT, STORAGE_DIR,
                                  FileJobStore, HaServices, ZooKeeperJobStore, ha_config, ha_enabled, job_store)
from tests.service.zookeeper import ZooKeeper

REPO = Path(__file__).resolve().parents[2]
FAILOVER_SECONDS = 10  # a 2 s session timeout, the server's tick, reconnect back-off: well within


def ha_conf(quorum: str, tmp_path: Path) -> dict[str, str]:
    return {HA_TYPE: "zookeeper", QUORUM: quorum, STORAGE_DIR: f"file:{tmp_path}/ha",
            CLUSTER_ID: f"/{uuid.uuid4().hex}", SESSION_TIMEOUT: "2 s", CONNECTION_TIMEOUT: "10 s"}


class Contender:
    """Records a contender's on_grant / on_revoke calls; ``wait`` for a sequence of them."""

    def __init__(self):
        self.calls: list[str] = []
        self.changed = threading.Condition()

    def grant(self) -> None:
        self._record("grant")

    def revoke(self) -> None:
        self._record("revoke")

    def _record(self, call: str) -> None:
        with self.changed:
            self.calls.append(call)
            self.changed.notify_all()

    def wait(self, *calls: str, timeout: float = FAILOVER_SECONDS) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: self.calls == list(calls), timeout), \
                f"expected {list(calls)} within {timeout} s, got {self.calls}"


def until(condition, timeout: float = FAILOVER_SECONDS) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.05)


@pytest.fixture
def services():
    """HaServices that are closed at the end of the test, whatever happens."""
    opened: list[HaServices] = []

    def open_services(conf: dict[str, str]) -> HaServices:
        opened.append(HaServices(conf))
        return opened[-1]
    yield open_services
    for ha in opened:
        ha.close()


def latch_size(ha: HaServices) -> int:
    return len(ha.client.get_children(f"{ha.config.znode}/leader-latch"))


def test_first_contender_leads_and_a_standby_takes_over_when_it_closes(zookeeper, tmp_path, services):
    conf = ha_conf(zookeeper.quorum, tmp_path)
    first, standby = services(conf), services(conf)
    first_calls, standby_calls = Contender(), Contender()
    first.elect("first", "127.0.0.1:1111", first_calls.grant, first_calls.revoke)
    first_calls.wait("grant")
    standby.elect("standby", "127.0.0.1:2222", standby_calls.grant, standby_calls.revoke)
    until(lambda: latch_size(first) == 2)
    assert standby.leader_address() == first.leader_address() == "127.0.0.1:1111"
    assert first.is_leader and not standby.is_leader and standby_calls.calls == []

    started = time.monotonic()
    first.close()
    first_calls.wait("grant", "revoke")
    standby_calls.wait("grant", timeout=2)  # a closed session hands over at once, no timeout
    assert time.monotonic() - started < 2
    assert standby.leader_address() == "127.0.0.1:2222" and standby.is_leader


CONTENDER = """
import json, sys, threading
from sqlengine.service.ha import HaServices
ha = HaServices(json.loads(sys.argv[1]))
ha.elect("doomed", sys.argv[2], lambda: print("granted", flush=True), lambda: print("revoked", flush=True))
threading.Event().wait()
"""


def read_line(proc: subprocess.Popen, timeout: float) -> str:
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, f"the contender process said nothing within {timeout} s"
    return proc.stdout.readline().strip()


def test_a_standby_takes_over_from_a_killed_leader_once_its_session_ends(zookeeper, tmp_path, services):
    conf = ha_conf(zookeeper.quorum, tmp_path)
    proc = subprocess.Popen([sys.executable, "-c", CONTENDER, json.dumps(conf), "127.0.0.1:1111"], cwd=REPO,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert read_line(proc, 30) == "granted"
        standby, calls = services(conf), Contender()
        standby.elect("standby", "127.0.0.1:2222", calls.grant, calls.revoke)
        until(lambda: latch_size(standby) == 2)
        assert standby.leader_address() == "127.0.0.1:1111" and calls.calls == []
        proc.kill()
        proc.wait()
        calls.wait("grant")
        assert standby.leader_address() == "127.0.0.1:2222"
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()


def test_a_leader_whose_session_expires_is_revoked_and_joins_again(zookeeper, tmp_path, services):
    from kazoo.client import KazooClient
    leader, calls = services(ha_conf(zookeeper.quorum, tmp_path)), Contender()
    leader.elect("leader", "127.0.0.1:1111", calls.grant, calls.revoke)
    calls.wait("grant")
    session = leader.client.client_id[0]
    # ZooKeeper's way to expire a session from outside: a second client on the same
    # session closes it; the first hears SESSION_EXPIRED when it reconnects.
    twin = KazooClient(zookeeper.quorum, client_id=leader.client.client_id, timeout=2)
    twin.start(timeout=10)
    twin.stop()
    twin.close()
    calls.wait("grant", "revoke", "grant")  # revoked, then leader again with a new session
    assert leader.leader_address() == "127.0.0.1:1111" and leader.is_leader
    assert leader.client.client_id[0] != session


def test_a_leader_that_loses_zookeeper_stops_leading(tmp_path, services):
    server = ZooKeeper(tmp_path / "zookeeper").start()
    try:
        leader, calls = services(ha_conf(server.quorum, tmp_path)), Contender()
        leader.elect("leader", "127.0.0.1:1111", calls.grant, calls.revoke)
        calls.wait("grant")
        server.kill()
        calls.wait("grant", "revoke", timeout=3)  # at once: the connection is gone, its session may be
        assert not leader.is_leader
        server.start()
        calls.wait("grant", "revoke", "grant")
        assert leader.leader_address() == "127.0.0.1:1111"
    finally:
        server.stop()


def round_trip(conf: dict[str, str], first, reopened) -> None:
    """``put`` / ``list`` / ``remove`` through ``first``; ``reopened`` (a restarted
    JobManager's store) sees what ``first`` left."""
    first.put({"job_id": "j1", "sql": "INSERT INTO a SELECT 1", "savepoint": None})
    first.put({"job_id": "j2", "sql": "INSERT INTO b SELECT 2"})
    first.put({"job_id": "j1", "sql": "INSERT INTO a SELECT 1", "savepoint": "file:/sp/1"})
    expected = [{"job_id": "j1", "sql": "INSERT INTO a SELECT 1", "savepoint": "file:/sp/1"},
                {"job_id": "j2", "sql": "INSERT INTO b SELECT 2"}]
    assert first.list() == expected
    store = reopened()
    assert store.list() == expected
    store.remove("j1")
    store.remove("j1")  # nothing stored: nothing happens
    assert store.list() == expected[1:]
    folder = ha_config(conf).jobs_dir
    assert sorted(p.name for p in folder.iterdir()) == ["j2.json"]  # no temporary file left
    with pytest.raises(ValueError, match="job_id"):
        store.put({"sql": "INSERT INTO c SELECT 3"})


def test_zookeeper_job_store_survives_a_new_jobmanager(zookeeper, tmp_path, services):
    conf = ha_conf(zookeeper.quorum, tmp_path)
    ha = services(conf)
    store = job_store(conf, ha)
    assert isinstance(store, ZooKeeperJobStore)

    def reopened():
        ha.close()
        return job_store(conf, services(conf))
    round_trip(conf, store, reopened)
    survivor = services(conf)
    pointers = f"{survivor.config.znode}/jobs"
    assert survivor.client.get_children(pointers) == ["j2"]
    pointer, _ = survivor.client.get(f"{pointers}/j2")
    assert pointer.decode() == str(tmp_path / "ha" / conf[CLUSTER_ID][1:] / "jobs" / "j2.json")


def test_file_job_store_without_zookeeper(tmp_path):
    conf = {STORAGE_DIR: str(tmp_path / "ha"), CLUSTER_ID: "cluster-a"}
    store = job_store(conf, None)
    assert isinstance(store, FileJobStore) and store.folder == tmp_path / "ha" / "cluster-a" / "jobs"
    round_trip(conf, store, lambda: job_store(conf, None))
    assert job_store({**conf, CLUSTER_ID: "cluster-b"}).list() == []
    assert job_store({}) is None and job_store({HA_TYPE: "NONE"}) is None


@pytest.mark.parametrize("conf, key", [
    ({HA_TYPE: "kubernetes"}, HA_TYPE),
    ({"high-availability": "kubernetes"}, "high-availability"),
    ({HA_TYPE: "zookeeper", STORAGE_DIR: "/ha"}, QUORUM),
    ({HA_TYPE: "zookeeper", QUORUM: "zk1:2181"}, STORAGE_DIR),
    ({HA_TYPE: "zookeeper", QUORUM: "zk1:2181,zk2", STORAGE_DIR: "/ha"}, QUORUM),
    ({HA_TYPE: "zookeeper", QUORUM: "zk1:99999", STORAGE_DIR: "/ha"}, QUORUM),
    ({STORAGE_DIR: "hdfs://namenode/ha"}, STORAGE_DIR),
    ({SESSION_TIMEOUT: "soon"}, SESSION_TIMEOUT),
    ({CONNECTION_TIMEOUT: "0 s"}, CONNECTION_TIMEOUT),
    ({ROOT: "/flink/../etc"}, ROOT),
])
def test_invalid_settings_name_their_key(conf, key):
    with pytest.raises(ValidationError) as err:
        ha_enabled(conf)
    assert f"'{key}'" in str(err.value) and "\n" not in str(err.value)


def test_settings_and_defaults():
    assert not ha_enabled({}) and not ha_enabled({HA_TYPE: "NONE"})
    for key, kind in ((HA_TYPE, "zookeeper"), (HA_TYPE, "ZOOKEEPER"), ("high-availability", "zookeeper")):
        assert ha_enabled({key: kind, QUORUM: "zk1:2181, zk2:2181", STORAGE_DIR: "file:///ha"})
    assert not ha_enabled({HA_TYPE: "NONE", "high-availability": "zookeeper"})  # the current name wins
    config = ha_config({HA_TYPE: "zookeeper", QUORUM: "zk1:2181, zk2:2181", STORAGE_DIR: "file:///ha",
                        SESSION_TIMEOUT: "5000 ms"})
    assert (config.quorum, config.znode, config.storage_dir) == ("zk1:2181,zk2:2181", "/flink/default", Path("/ha"))
    assert (config.session_timeout_ms, config.connection_timeout_ms) == (5000, 15_000)
    assert config.jobs_dir == Path("/ha/default/jobs")
    with pytest.raises(ValidationError, match=HA_TYPE):
        HaServices({})
    with pytest.raises(ValueError, match="HaServices"):
        job_store({HA_TYPE: "zookeeper", QUORUM: "zk1:2181", STORAGE_DIR: "/ha"}, None)


def test_the_module_imports_without_kazoo():
    code = "import sys; sys.modules['kazoo'] = None; import sqlengine.service.ha"
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True)
