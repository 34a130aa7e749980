"""Opening a table through its connector: the ``ScanContext`` a factory reads, the
columns by position, and the hidden columns the job needs (end of input, row kind,
split)."""
from __future__ import annotations

from pyspark.sql import functions as F

from connectors.base import Options, ScanContext, check_metadata, factory_for
from sqlengine.hidden import EOI, OP, SEQ, SPLIT, Lowered
from sqlengine.plan import nodes as P
from sqlengine.runtime.context import BatchContext


def scan(ctx: BatchContext, node: P.TableScan) -> Lowered:
    """The table's rows; one lowering per distinct scan in a job (a scan shared by two
    branches of a batch job is read once and persisted)."""
    cached = ctx.cached_scan(node)
    if cached is not None:
        if not cached.df.isStreaming and not cached.df.is_cached:
            cached.df.persist()  # read once, used by several branches
        return cached
    low = _open(ctx, node)
    ctx.cache_scan(node, low)
    return low


def lookup_scan(ctx: BatchContext, node: P.TableScan) -> Lowered:
    """The lookup side of a processing-time temporal join in a streaming job: a batch
    DataFrame that reads the table when an epoch's action runs (never persisted)."""
    key = ("lookup", node)
    low = ctx.cached_scan(key)
    if low is None:
        low = _open(ctx, node, lookup=True)
        ctx.cache_scan(key, low)
    return low


def _quoted(name: str) -> str:
    """A column reference Spark reads literally (backticks doubled inside backticks)."""
    return "`" + name.replace("`", "``") + "`"


def _physical(paths: tuple[tuple[str, ...], ...], physical) -> tuple[tuple[str, ...], ...]:
    """The paths into physical columns (a metadata column is not the format's)."""
    names = {f.name for f in physical}
    return tuple(p for p in paths if p[0] in names)


def _open(ctx: BatchContext, node: P.TableScan, lookup: bool = False) -> Lowered:
    job = ctx.job
    factory = factory_for(node.connector or None, node.table)
    opts = Options(node.connector, dict(node.options))
    n_meta = len(node.metadata)
    physical = node.fields[:len(node.fields) - n_meta]
    check_metadata(factory, node.table, [k for _, k in node.metadata], source=True)
    meta = [(name, key, f.type) for (name, key), f in zip(node.metadata, node.fields[len(physical):])]
    used, tops = (None, []) if lookup else job.filter(node)
    result = factory.scan(ScanContext(job.spark, job.streaming and not lookup, job.parallelism, node.table,
                                      [(f.name, f.type) for f in physical], opts,
                                      job.functions.local_time_zone, job.job_id, job.conf, meta,
                                      node.primary_key, lookup=lookup, partition_keys=node.partition_keys,
                                      unread=() if lookup else _physical(job.unread(node), physical),
                                      filter=used, tops=tops))
    df = result.df
    if not lookup:
        number = ctx.register_scan(result)
        if result.metrics:
            df = df.observe(f"metrics_{number}", *[c.alias(k) for k, c in result.metrics.items()])
    cols = [F.col(_quoted(f.name)).alias(f"f{i}") for i, f in enumerate(node.fields)]
    if lookup:
        return Lowered(df.where(~F.col(EOI)).select(*cols))
    if node.changelog:  # the row kind, and for an upsert source its position
        cols.append(F.coalesce(F.col(OP), F.lit("+I")).alias(OP))
        if SEQ in df.columns:  # for a ChangelogNormalize
            cols.append(F.col(SEQ))
    keep_eoi = job.streaming and df.isStreaming
    # (a split per row only where a watermark is read: it is a string built per row)
    split = keep_eoi and node.watermarked and node in job.watermark_read and result.splits is not None \
        and SPLIT in df.columns
    if split:
        cols.append(F.col(SPLIT))
    out = df.select(*cols, F.col(EOI)) if keep_eoi else df.where(~F.col(EOI)).select(*cols)
    return Lowered(out, keep_eoi, bool(node.changelog), split=split)
