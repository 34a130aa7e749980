"""Savepoints, and where a restored job keeps its checkpoint (Flink's claim modes).

A job's checkpoint is a folder (``<execution.checkpointing.dir>/<job id>``) holding one
Spark streaming checkpoint per query of the job (its offsets and commit logs, the epoch
driver's state under ``state/``). A **savepoint** is a self-contained, immutable copy of
it taken at an epoch boundary (the last epoch committed by every sink and in Spark's
commit log, no epoch running), named as Flink names one
(``savepoint-<job id prefix>-<12 hex digits>``), with a ``_metadata`` file: the format
version, the job, the DAG's signature, and per query the epoch it holds, the source
offsets after it and the epoch its sinks committed. The copy is made under a temporary
name and renamed into place once whole, so a savepoint folder is complete or absent.

Restoring (``execution.state-recovery.path``) never writes into what it restores from
unless told to: in ``NO_CLAIM`` mode (Flink's default) the job copies the checkpoint or
savepoint into its own checkpoint folder and runs there, so one savepoint restores any
number of times to the same result; in ``CLAIM`` mode the job takes the folder over and
runs in it (as a job restarting in its own checkpoint folder always does).
"""
from __future__ import annotations

import json
import os
import time
import uuid
from typing import Any, Optional

from sqlengine.errors import ExecutionError, ValidationError
from sqlengine.runtime import fs

FORMAT_VERSION = 1
METADATA = "_metadata"
CLAIM_MODE = "execution.state-recovery.claim-mode"
CLAIM_MODES = ("CLAIM", "NO_CLAIM")
SAVEPOINT_DIRS = ("execution.checkpointing.savepoint-dir", "state.savepoints.dir")


def claim_mode(conf: dict[str, str]) -> str:
    raw = (conf.get(CLAIM_MODE) or "NO_CLAIM").strip()
    mode = raw.upper().replace("-", "_")
    if mode not in CLAIM_MODES:
        raise ValidationError(f"Unknown claim mode '{raw}' in '{CLAIM_MODE}'. Valid values: {', '.join(CLAIM_MODES)}.")
    return mode


def savepoint_dir(conf: dict[str, str]) -> Optional[str]:
    """The configured default savepoint folder (Flink's key, or its old name)."""
    for key in SAVEPOINT_DIRS:
        if (conf.get(key) or "").strip():
            return conf[key].strip()
    return None


def default_savepoint_dir(conf: dict[str, str], checkpoint_root: Optional[str]) -> Optional[str]:
    """Where ``STOP JOB ... WITH SAVEPOINT`` puts a savepoint: the configured savepoint
    folder, else ``savepoints`` beside the job's checkpoint folder (Flink would refuse
    without a configured folder; a local user should not need one)."""
    configured = savepoint_dir(conf)
    if configured or not checkpoint_root:
        return configured
    return os.path.join(os.path.dirname(fs.abspath(checkpoint_root).rstrip("/")), "savepoints")


def new_path(job_id: str, target_directory: str) -> str:
    """A new savepoint's folder in ``target_directory``, named as Flink names one."""
    target = fs.local(target_directory)
    fs.makedirs(target)
    return os.path.join(target, f"savepoint-{job_id[:6]}-{uuid.uuid4().hex[:12]}")


def take(root: str, target: str, job_id: str, job_name: str, dags: dict[str, str]) -> str:
    """Copy the checkpoint ``root`` (at an epoch boundary: the caller holds every query
    between two epochs) into the savepoint ``target``; returns ``target``. ``dags``: per
    query folder, the signature of the DAG it runs."""
    partial = f"{target}.inprogress"
    fs.copytree(root, partial, skip=lambda name: name.endswith((".tmp", ".tmp.crc")))
    queries = {}
    for name in sorted(fs.subdirs(partial)):  # (not a drained checkpoint's marker)
        folder = os.path.join(partial, name)
        epoch = fs.last_number(os.path.join(folder, "commits"))
        if epoch is None:
            continue
        queries[name] = {"epoch": epoch, "sources": _offsets(folder, epoch), "sinks-committed-epoch": epoch,
                         "dag": dags.get(name)}
    meta = {"format-version": FORMAT_VERSION, "kind": "savepoint", "job-id": job_id, "job-name": job_name,
            "time-ms": int(time.time() * 1000), "queries": queries}
    fs.write_text(os.path.join(partial, METADATA), json.dumps(meta, indent=1))
    fs.rename(partial, target)
    return target


def read_metadata(path: str) -> Optional[dict[str, Any]]:
    """A savepoint's ``_metadata`` (None for a job's checkpoint folder)."""
    try:
        meta = json.loads(fs.read_text(os.path.join(path, METADATA)))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise ExecutionError(f"Cannot restore from '{path}': its savepoint metadata cannot be read ({exc}).") from None
    if meta.get("format-version") != FORMAT_VERSION:
        raise ExecutionError(f"Cannot restore from '{path}': it is a savepoint of format version "
                             f"{meta.get('format-version')}, and this sqlengine reads version {FORMAT_VERSION}.")
    return meta


def restore_into(restore: str, own: str, mode: str) -> str:
    """Where a job restoring from ``restore`` runs: in ``restore`` itself (``CLAIM``, or it
    is the job's own checkpoint folder ``own``), else in ``own`` as a copy (``NO_CLAIM``)."""
    meta = read_metadata(restore)
    if fs.same(restore, own) or (mode == "CLAIM" and meta is None):
        return restore
    if mode == "CLAIM":  # a claimed savepoint becomes a checkpoint: it is no longer immutable
        fs.remove(os.path.join(restore, METADATA))
        return restore
    if fs.isdir(own) and fs.listdir(own):
        raise ExecutionError(
            f"Cannot restore from '{restore}' into '{own}': the job's checkpoint folder is in use (a job with "
            f"this 'pipeline.job-id' ran there). Choose another 'pipeline.job-id', or restore with "
            f"'{CLAIM_MODE}' = 'CLAIM' to run in '{restore}' itself.")
    fs.makedirs(os.path.dirname(own) or ".")
    fs.copytree(restore, own, skip=lambda name: name == METADATA)
    return own


def _offsets(query: str, epoch: int) -> list:
    """The source offsets after ``epoch`` (Spark's offsets log entry: one line per source)."""
    try:
        lines = fs.read_text(os.path.join(query, "offsets", str(epoch))).splitlines()
    except FileNotFoundError:
        return []
    return [None if ln.strip() in ("", "-") else json.loads(ln) for ln in lines[2:]]
