#!/usr/bin/env python3
"""Record Flink 2.3's SQL Client transcripts of the corpus (the oracle of test_sqlclient.py).

Usage: python tests/sqlclient/record.py [SCRIPT ...] [--flink-home DIR] [--check]

Flink's own ``bin/sql-client.sh`` runs each script in embedded mode, fed on standard input
(as a user pastes it: an error does not end the session, unlike ``-f``), after
``init.sql`` (a local executor, parallelism 1, tableau results, UTC). Its output is cut
at the prompts, one block per statement, the dumb terminal's echo of long statements
dropped, and written to ``expected/<script>.out``. With ``--check`` nothing is written:
the fresh transcript is compared with the committed one (a determinism check).

Flink comes from PyFlink 2.3.0 in its own venv (``--flink-home``, default
``$FLINK_HOME`` or /work/flink-venv's ``pyflink``), never a project dependency. Its SQL
Client needs ``org.apache.flink:flink-sql-gateway:2.3.0``, which is fetched with Maven into
a cache and copied into the Flink home's ``opt/`` once.
"""
from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
from tests.sqlclient.transcript import ANSI, PROMPT, Block, first_difference, format_transcript, \
    parse_transcript, split_script, strip_echo  # noqa: E402

GATEWAY = "org.apache.flink:flink-sql-gateway:2.3.0"
DEFAULT_HOME = "/work/flink-venv/lib/python3.11/site-packages/pyflink"


def flink_home(arg: str | None) -> Path:
    home = Path(arg or os.environ.get("FLINK_HOME") or DEFAULT_HOME)
    if not (home / "bin" / "sql-client.sh").exists():
        raise SystemExit(f"no Flink SQL Client at {home}/bin/sql-client.sh (pip install apache-flink==2.3.0 "
                         "in a venv of its own, then --flink-home <venv>/lib/python3.X/site-packages/pyflink)")
    if not list((home / "opt").glob("flink-sql-gateway-*.jar")):
        shutil.copy(_gateway_jar(), home / "opt")
    return home


def _gateway_jar() -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "sqlengine" / "flink-sql-gateway"
    cache.mkdir(parents=True, exist_ok=True)
    res = subprocess.run(["mvn", "-q", "-B", "dependency:copy", f"-Dartifact={GATEWAY}", f"-DoutputDirectory={cache}"],
                         capture_output=True, text=True, cwd=cache)
    jars = list(cache.glob("flink-sql-gateway-*.jar"))
    if res.returncode != 0 or not jars:
        raise SystemExit(f"Maven could not fetch {GATEWAY}: {res.stdout[-2000:]}{res.stderr[-2000:]}")
    return jars[0]


def record(script: Path, home: Path) -> list[Block]:
    statements = split_script(script.read_text())
    stdin = "".join(s + ";\n" for s in statements)
    env = {**os.environ, "FLINK_HOME": str(home)}
    env["PATH"] = f"{Path(sys.executable).parent}:{env['PATH']}"
    res = subprocess.run(["bash", str(home / "bin" / "sql-client.sh"), "-i", str(HERE / "init.sql")],
                         input=stdin, capture_output=True, text=True, env=env, timeout=1800)
    text = ANSI.sub("", res.stdout)
    chunks = re.split(r"(?m)^" + re.escape(PROMPT), text)[1:]  # [0]: banner and the init's lines
    if len(chunks) != len(statements) + 1:
        raise RuntimeError(f"{script.name}: {len(statements)} statements but {len(chunks) - 1} prompts:\n"
                         f"{text[-3000:]}\n{res.stderr[-3000:]}")
    return [Block(s, strip_echo(c, s).strip("\n")) for s, c in zip(statements, chunks)]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scripts", nargs="*", help="scripts (default: every scripts/*.sql)")
    p.add_argument("--flink-home")
    p.add_argument("--check", action="store_true")
    args = p.parse_args()
    home = flink_home(args.flink_home)
    scripts = [Path(s) for s in args.scripts] or sorted(Path(p) for p in glob.glob(str(HERE / "scripts" / "*.sql")))
    status = 0
    for script in scripts:
        try:
            blocks = record(script, home)
        except RuntimeError as err:
            print(err)
            status = 1
            continue
        target = HERE / "expected" / (script.stem + ".out")
        if args.check:
            old = parse_transcript(target.read_text(), [b.statement for b in blocks])
            for n, (a, b) in enumerate(zip(old, blocks), 1):
                diff = first_difference(a.output, b.output)
                if diff:
                    print(f"{script.name} #{n}: {diff}")
                    status = 2
            continue
        target.parent.mkdir(exist_ok=True)
        target.write_text(format_transcript(blocks))
        print(f"{script.name}: {len(blocks)} statements -> {target.relative_to(HERE.parents[1])}")
    return status


if __name__ == "__main__":
    sys.exit(main())
