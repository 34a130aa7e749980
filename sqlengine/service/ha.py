"""High availability of a cluster's JobManager, as Flink's ZooKeeper HA services do it.

Configuration is Flink's (``high-availability.*``, read by ``ha_config``): the ``type``
(or its former name ``high-availability``), ``NONE`` (the default) or ``zookeeper``; the
``zookeeper.quorum``; the znode tree ``<path.root>/<cluster-id>``; the ``storageDir``
folder (a local or shared file system; Flink requires it with ZooKeeper).

Leader election (``HaServices.elect``). Every JobManager of a cluster is a contender: it
joins a latch, an ephemeral sequential node under ``<root>/<cluster-id>/leader-latch``
(Curator's ``LeaderLatch``, which Flink uses, works this way). The contender whose node
sorts first is the leader; every other one watches the node just before its own, so a
leader's end wakes one standby. Ephemeral nodes end with their session: a leader that
closes hands over at once, one that dies (SIGKILL, a lost machine) once its session
times out (``zookeeper.client.session-timeout``). The leader publishes its REST address
in the ephemeral ``<root>/<cluster-id>/leader/rest_server``, in one transaction with a
check that its latch node still exists, so a contender that is no longer first cannot
publish. A leader that loses its connection to ZooKeeper stops being leader at once
(``on_revoke``), as Flink does by default (Curator's SUSPENDED state): its session may
expire without it hearing, and a standby takes over then. Once reconnected it joins the
latch again, behind the others. The callbacks run one at a time on a thread of the
contender's own (never on kazoo's event thread, which they would block), and alternate:
grant, revoke, grant...

Job store (``job_store``). What a JobManager needs to resume its jobs after a failover or
a restart: one JSON document per job in ``<storageDir>/<cluster-id>/jobs/<job_id>.json``,
written to a temporary file and renamed, so a reader sees a whole document or none. With
ZooKeeper a persistent node ``<root>/<cluster-id>/jobs/<job_id>`` points at the file, as
Flink keeps small pointers in ZooKeeper and contents in the storageDir; the file is
written before its pointer and removed after it, so a pointer always names a whole file.
With ``type = NONE`` and a storageDir the files alone are the store: a single JobManager
that resumes its jobs when restarted.

Nothing here runs Spark; kazoo is imported only when ZooKeeper is used.
"""
from __future__ import annotations

import json
import logging
import os
import queue
import re
import threading
import uuid
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional
from urllib.parse import urlparse

from sqlengine.api.control import duration_ms
from sqlengine.errors import ExecutionError, ValidationError

log = logging.getLogger("sqlengine.service.ha")

HA_TYPE = "high-availability.type"
HA_TYPE_DEPRECATED = "high-availability"  # Flink's former name of the type, still read
QUORUM = "high-availability.zookeeper.quorum"
ROOT = "high-availability.zookeeper.path.root"
CLUSTER_ID = "high-availability.cluster-id"
STORAGE_DIR = "high-availability.storageDir"
SESSION_TIMEOUT = "high-availability.zookeeper.client.session-timeout"
CONNECTION_TIMEOUT = "high-availability.zookeeper.client.connection-timeout"
NONE, ZOOKEEPER = "NONE", "ZOOKEEPER"
JOB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_HOST_PORT = re.compile(r"^[^\s:/,]+:(\d{1,5})$")
RETRY_SECONDS = 1.0  # a contender whose ZooKeeper request failed joins again after this


@dataclass(frozen=True)
class HaConfig:
    """The validated ``high-availability.*`` settings."""
    type: str  # NONE | ZOOKEEPER
    quorum: str
    root: str  # "/flink"
    cluster_id: str  # "/default"
    storage_dir: Optional[Path]
    session_timeout_ms: int
    connection_timeout_ms: int

    @property
    def znode(self) -> str:
        """The cluster's znode: ``<root>/<cluster-id>``."""
        return "/" + "/".join(p for p in (self.root + self.cluster_id).split("/") if p)

    @property
    def jobs_dir(self) -> Optional[Path]:
        """``<storageDir>/<cluster-id>/jobs``: the job store's files."""
        if self.storage_dir is None:
            return None
        return self.storage_dir.joinpath(*[p for p in self.cluster_id.split("/") if p], "jobs")


def _path_option(conf: dict[str, str], key: str, default: str) -> str:
    raw = (conf.get(key) or default).strip()
    parts = [p for p in raw.split("/") if p]
    if not parts or any(p in (".", "..") for p in parts):
        raise ValidationError(f"Invalid value for '{key}': '{raw}' is not a ZooKeeper path (for example '{default}').")
    return "/" + "/".join(parts)


def _duration_option(conf: dict[str, str], key: str, default_ms: int) -> int:
    raw = (conf.get(key) or "").strip()
    if not raw:
        return default_ms
    ms = duration_ms(raw)
    if not ms:
        raise ValidationError(f"Invalid value for '{key}': '{raw}' is not a positive duration (for example '60 s').")
    return ms


def _storage_dir(conf: dict[str, str]) -> Optional[Path]:
    raw = (conf.get(STORAGE_DIR) or "").strip()
    if not raw:
        return None
    url = urlparse(raw)
    if url.scheme not in ("", "file") or url.netloc not in ("", "localhost"):
        raise ValidationError(f"Invalid value for '{STORAGE_DIR}': '{raw}' is not a folder of a local or shared "
                              "file system (a path or a file: URI).")
    return Path(url.path if url.scheme else raw)


def _quorum(conf: dict[str, str]) -> str:
    raw = (conf.get(QUORUM) or "").strip()
    hosts = [h.strip() for h in raw.split(",")]
    for host in hosts:
        match = _HOST_PORT.match(host)
        if not match or not 0 < int(match.group(1)) < 65536:
            raise ValidationError(f"Invalid value for '{QUORUM}': '{host}' is not host:port "
                                  "(for example 'zk1:2181,zk2:2181').")
    return ",".join(hosts)


def ha_config(conf: dict[str, str]) -> HaConfig:
    """``conf``'s ``high-availability.*`` settings, validated: an unknown type, ZooKeeper
    without a quorum or storageDir, or a malformed value is a ``ValidationError`` naming
    the key."""
    key = HA_TYPE if conf.get(HA_TYPE) else HA_TYPE_DEPRECATED
    kind = (conf.get(key) or NONE).strip().upper()
    if kind not in (NONE, ZOOKEEPER):
        raise ValidationError(f"Invalid value for '{key}': '{conf[key]}' (valid: NONE, zookeeper).")
    quorum = ""
    if kind == ZOOKEEPER:
        for key in (QUORUM, STORAGE_DIR):
            if not (conf.get(key) or "").strip():
                raise ValidationError(f"'{HA_TYPE}' = zookeeper needs '{key}'.")
        quorum = _quorum(conf)
    return HaConfig(kind, quorum, _path_option(conf, ROOT, "/flink"), _path_option(conf, CLUSTER_ID, "/default"),
                    _storage_dir(conf), _duration_option(conf, SESSION_TIMEOUT, 60_000),
                    _duration_option(conf, CONNECTION_TIMEOUT, 15_000))


def ha_enabled(conf: dict[str, str]) -> bool:
    """Whether ``conf`` asks for ZooKeeper HA (validating every ``high-availability.*`` key)."""
    return ha_config(conf).type == ZOOKEEPER


class HaServices:
    """A JobManager's connection to the cluster's ZooKeeper: leader election, the leader's
    address, and the client the ZooKeeper job store uses. One contender per instance
    (one ZooKeeper session: the unit that fails over)."""

    def __init__(self, conf: dict[str, str]):
        from kazoo.client import KazooClient
        from kazoo.handlers.threading import KazooTimeoutError
        self.config = ha_config(conf)
        if self.config.type != ZOOKEEPER:
            raise ValidationError(f"HA services need '{HA_TYPE}' = zookeeper, not NONE.")
        retry = {"max_tries": -1, "delay": 0.1, "max_delay": 1.0}
        self.client = KazooClient(hosts=self.config.quorum, timeout=self.config.session_timeout_ms / 1000,
                                  connection_retry=retry,
                                  command_retry={**retry, "deadline": self.config.connection_timeout_ms / 1000})
        try:
            self.client.start(timeout=self.config.connection_timeout_ms / 1000)
        except KazooTimeoutError as exc:
            raise ExecutionError(f"Could not connect to ZooKeeper at '{self.config.quorum}' ({QUORUM}) within "
                                 f"{self.config.connection_timeout_ms} ms ({CONNECTION_TIMEOUT}).") from exc
        self._contender: Optional[_Contender] = None

    @property
    def leader_path(self) -> str:
        """The ephemeral node holding the leader's REST address."""
        return f"{self.config.znode}/leader/rest_server"

    def elect(self, contender_id: str, address: str, on_grant: Callable[[], None],
              on_revoke: Callable[[], None]) -> None:
        """Join the election as ``contender_id``; while leader, ``address`` (``host:port``)
        is published. ``on_grant`` / ``on_revoke`` run on the contender's thread, in turn;
        they must not raise (an exception is logged)."""
        if self._contender is not None:
            raise RuntimeError("this HaServices already takes part in the election")
        self._contender = _Contender(self, contender_id, address, on_grant, on_revoke)

    @property
    def is_leader(self) -> bool:
        """Whether this instance's contender holds leadership (on_grant ran, on_revoke not yet)."""
        return self._contender is not None and self._contender.leader

    def leader_address(self) -> Optional[str]:
        """The leader's REST address, or None while there is none."""
        from kazoo.exceptions import KazooException, NoNodeError
        try:
            data, _ = self.client.retry(self.client.get, self.leader_path)
        except NoNodeError:
            return None
        except KazooException as exc:
            raise ExecutionError(f"Could not read the leader's address from ZooKeeper at '{self.config.quorum}': "
                                 f"{type(exc).__name__}") from exc
        return data.decode()

    def close(self) -> None:
        """Leave the election (on_revoke if leader: a standby takes over at once) and end the session."""
        if self._contender is not None:
            self._contender.close()
        self.client.stop()
        self.client.close()


class _Contender:
    """One JobManager's part in the election: its latch node, the watch on the node before
    it (or on its own, while leader), and the thread that reacts to both and to the
    connection's state changes. Every change arrives as an event in ``events``."""

    def __init__(self, ha: HaServices, contender_id: str, address: str, on_grant: Callable[[], None],
                 on_revoke: Callable[[], None]):
        self.ha, self.client = ha, ha.client
        self.latch = f"{ha.config.znode}/leader-latch"
        self.prefix = f"{uuid.uuid4().hex}-latch-"  # finds our node when a create's reply was lost
        self.contender_id, self.address = contender_id, address
        self.on_grant, self.on_revoke = on_grant, on_revoke
        self.node: Optional[str] = None
        self.joined = False
        self.leader = False
        self.events: queue.Queue[str] = queue.Queue()
        self.client.add_listener(self._state_changed)
        self.events.put("join")
        self.thread = threading.Thread(target=self._run, name=f"ha-election-{contender_id}", daemon=True)
        self.thread.start()

    def _state_changed(self, state: str) -> None:  # kazoo's connection thread: never block
        self.events.put(state)

    def _watch(self, event) -> None:  # kazoo's event thread
        self.events.put("check")

    def _run(self) -> None:
        from kazoo.exceptions import KazooException
        while True:
            event = self.events.get()
            if event == "close":
                self._leave()
                return
            try:
                self._handle(event)
            except KazooException as exc:
                self._failed(exc)

    def _failed(self, exc: Exception) -> None:
        """A ZooKeeper request failed: leadership is no longer certain, so give it up and
        join afresh, when the connection comes back (its state event) or, connected, in a
        second (e.g. the latch's parent node was deleted)."""
        log.warning("leader election of %s: %s; joining again", self.contender_id, type(exc).__name__)
        self.joined = False
        self._revoke()
        if self.client.connected:
            timer = threading.Timer(RETRY_SECONDS, self.events.put, ("join",))
            timer.daemon = True
            timer.start()

    def _handle(self, event: str) -> None:
        if event in ("SUSPENDED", "LOST"):
            self.joined = False
            self._revoke()
        elif event in ("join", "CONNECTED") and not self.joined:
            self._join()
        elif event == "check" and self.joined and self.client.connected:
            self._check()

    def _join(self) -> None:
        """Enter the latch afresh: drop what this contender left from an earlier session
        (its address first, so that it never outlives its latch node), then a new node."""
        self._unpublish()
        self._delete_own_nodes()
        self.node = self.client.create(f"{self.latch}/{self.prefix}", self.contender_id.encode(),
                                       ephemeral=True, sequence=True, makepath=True)
        self.joined = True
        self._check()

    def _check(self) -> None:
        """Leader if our node is first; else watch the node just before ours."""
        children = sorted(self.client.get_children(self.latch), key=lambda name: name[-10:])
        ours = self.node.rsplit("/", 1)[1]
        if ours not in children:  # deleted under us: start over
            self._revoke()
            self._join()
            return
        index = children.index(ours)
        if index == 0:
            if self.client.exists(self.node, watch=self._watch) is None:
                self.events.put("check")
            elif not self.leader:
                self._grant()
            return
        self._revoke()
        if self.client.exists(f"{self.latch}/{children[index - 1]}", watch=self._watch) is None:
            self.events.put("check")

    def _grant(self) -> None:
        from kazoo.exceptions import NoNodeError
        path = self.ha.leader_path
        self.client.ensure_path(path.rsplit("/", 1)[0])
        try:  # a former leader's address whose session has not ended yet: ours replaces it
            self.client.delete(path)
        except NoNodeError:
            pass
        tx = self.client.transaction()
        tx.check(self.node, 0)
        tx.create(path, self.address.encode(), ephemeral=True)
        if any(isinstance(result, Exception) for result in tx.commit()):
            self.events.put("check")  # no longer first, or another address appeared: look again
            return
        self.leader = True
        self._callback(self.on_grant)

    def _revoke(self) -> None:
        if self.leader:
            self.leader = False
            self._callback(self.on_revoke)

    def _callback(self, callback: Callable[[], None]) -> None:
        try:
            callback()
        except Exception:  # noqa: BLE001 - the election goes on; the contender's owner logs nothing else
            log.exception("leader election callback of %s failed", self.contender_id)

    def _unpublish(self) -> None:
        from kazoo.exceptions import NoNodeError
        stat = self.client.exists(self.ha.leader_path)
        if stat is not None and stat.ephemeralOwner == self.client.client_id[0]:
            try:
                self.client.delete(self.ha.leader_path, version=stat.version)
            except NoNodeError:
                pass

    def _delete_own_nodes(self) -> None:
        from kazoo.exceptions import NoNodeError
        self.client.ensure_path(self.latch)
        for name in self.client.get_children(self.latch):
            if name.startswith(self.prefix):
                try:
                    self.client.delete(f"{self.latch}/{name}")
                except NoNodeError:
                    pass

    def _leave(self) -> None:
        from kazoo.exceptions import KazooException
        self.client.remove_listener(self._state_changed)
        try:
            if self.client.connected:
                self._unpublish()
                self._delete_own_nodes()
        except KazooException:  # the session's end removes them anyway
            pass
        self._revoke()

    def close(self) -> None:
        self.events.put("close")
        if threading.current_thread() is not self.thread:
            self.thread.join(self.ha.config.connection_timeout_ms / 1000)


class JobStore(ABC):
    """Where a JobManager keeps what it needs to resume its jobs: one JSON document per
    job, keyed by its ``job_id``."""

    @abstractmethod
    def put(self, spec: dict) -> None:
        """Store ``spec`` (a JSON document with a ``job_id``), replacing the job's former one."""

    @abstractmethod
    def remove(self, job_id: str) -> None:
        """Forget the job (nothing happens if it is not stored)."""

    @abstractmethod
    def list(self) -> list[dict]:
        """Every stored job's document, ordered by job id."""


def _job_id(spec: dict) -> str:
    job_id = spec.get("job_id")
    if not isinstance(job_id, str) or not JOB_ID.match(job_id):
        raise ValueError(f"a job spec needs a job_id of letters, digits, '_', '.' and '-', not {job_id!r}")
    return job_id


class FileJobStore(JobStore):
    """The documents as files of one folder (``<storageDir>/<cluster-id>/jobs``)."""

    def __init__(self, folder: Path):
        self.folder = folder

    def path(self, job_id: str) -> Path:
        return self.folder / f"{job_id}.json"

    def put(self, spec: dict) -> None:
        self.write(spec)

    def write(self, spec: dict) -> Path:
        """Write ``spec``'s file atomically (temporary file, fsync, rename); its path."""
        path = self.path(_job_id(spec))
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / f".{path.name}.{uuid.uuid4().hex}.tmp"
        with open(tmp, "w") as out:
            json.dump(spec, out, sort_keys=True)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
        _fsync_dir(self.folder)
        return path

    def remove(self, job_id: str) -> None:
        self.path(job_id).unlink(missing_ok=True)

    def list(self) -> list[dict]:
        if not self.folder.is_dir():
            return []
        return [_read(path) for path in sorted(self.folder.glob("*.json"))]


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ExecutionError(f"The job store's file '{path}' cannot be read as a job's JSON document: {exc}") from exc


class ZooKeeperJobStore(JobStore):
    """Pointers in ZooKeeper (``<root>/<cluster-id>/jobs/<job_id>``, holding the file's
    path), the documents in the storageDir."""

    def __init__(self, ha: HaServices):
        self.client = ha.client
        self.files = FileJobStore(ha.config.jobs_dir)
        self.znode = f"{ha.config.znode}/jobs"

    def put(self, spec: dict) -> None:
        path = self.files.write(spec)
        self._zk(self._point, f"{self.znode}/{_job_id(spec)}", str(path).encode())

    def _point(self, node: str, data: bytes) -> None:
        from kazoo.exceptions import NodeExistsError
        try:
            self.client.create(node, data, makepath=True)
        except NodeExistsError:
            self.client.set(node, data)

    def remove(self, job_id: str) -> None:
        from kazoo.exceptions import NoNodeError
        try:
            self._zk(self.client.delete, f"{self.znode}/{job_id}")
        except NoNodeError:
            pass
        self.files.remove(job_id)

    def list(self) -> list[dict]:
        from kazoo.exceptions import NoNodeError
        try:
            names = sorted(self._zk(self.client.get_children, self.znode))
        except NoNodeError:
            return []
        specs = []
        for name in names:
            try:
                data, _ = self._zk(self.client.get, f"{self.znode}/{name}")
            except NoNodeError:  # removed meanwhile
                continue
            path = Path(data.decode())
            if path.exists() or self._zk(self.client.exists, f"{self.znode}/{name}") is not None:
                specs.append(_read(path))
        return specs

    def _zk(self, op: Callable, *args):
        """``op`` retried while ZooKeeper reconnects (up to the connection timeout)."""
        from kazoo.retry import RetryFailedError
        try:
            return self.client.retry(op, *args)
        except RetryFailedError as exc:
            raise ExecutionError(f"The job store could not reach ZooKeeper ({QUORUM}).") from exc


def job_store(conf: dict[str, str], ha: Optional[HaServices] = None) -> Optional[JobStore]:
    """The cluster's job store: ZooKeeper's with ZooKeeper HA (``ha`` its services), the
    storageDir's files alone without, or None when neither is configured."""
    config = ha_config(conf)
    if config.type == ZOOKEEPER:
        if ha is None:
            raise ValueError("with ZooKeeper HA, the job store needs the JobManager's HaServices")
        return ZooKeeperJobStore(ha)
    return FileJobStore(config.jobs_dir) if config.storage_dir is not None else None


def follow_leader(services: HaServices) -> list:
    """The routes of a standby JobManager's REST endpoints: every request is forwarded to the
    leader's REST address (published in ZooKeeper), so a client, ``flink`` or the dashboard
    pointed at any JobManager of the cluster reaches the leader. 503 while there is none."""
    import urllib.error
    import urllib.request

    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    async def forward(request: Request) -> Response:
        leader = services.leader_address()
        if leader is None:
            return JSONResponse({"errors": ["No leader JobManager yet: the cluster is failing over, retry."]}, 503)
        body = await request.body()
        query = f"?{request.url.query}" if request.url.query else ""
        headers = {"Content-Type": request.headers.get("content-type", "application/json")}

        def call() -> tuple[int, bytes, str]:
            req = urllib.request.Request(f"http://{leader}{request.url.path}{query}", data=body or None,
                                         method=request.method, headers=headers)
            try:
                with urllib.request.urlopen(req, timeout=120) as reply:
                    return reply.status, reply.read(), reply.headers.get("Content-Type", "application/json")
            except urllib.error.HTTPError as err:
                return err.code, err.read(), err.headers.get("Content-Type", "application/json")
            except OSError as err:
                payload = json.dumps({"errors": [f"The leader JobManager at {leader} did not answer: {err}"]})
                return 503, payload.encode(), "application/json"
        status, data, media = await run_in_threadpool(call)
        return Response(data, status, media_type=media)

    methods = ["GET", "POST", "PATCH", "PUT", "DELETE"]
    return [Route("/", forward, methods=methods), Route("/{path:path}", forward, methods=methods)]
