"""A streaming SELECT's result on screen while the query runs (the shell's result modes).

* ``table`` (Flink's default): the materialized result — an insert or update-after adds
  a row, a delete or update-before removes it — redrawn in place as changes arrive;
* ``changelog``: the changes, with the ``op`` column, redrawn in place (the newest at the
  bottom);
* ``tableau``: rows printed one after another with the ``op`` column, as Flink's
  streaming tableau (column widths from the types).

The view ends when the query ends (bounded input) or on Ctrl-C, which cancels the query
and keeps the shell. At most ``max_rows`` rows are kept (Flink's
``sql-client.execution.max-table-result.rows``); the screen shows the last rows that fit.
"""
from __future__ import annotations

import time
from typing import TextIO

from sqlengine.api.result import CtrlC, Materialized, TableResult

REFRESH_S = 0.25  # at most four redraws a second
_NUMERIC = ("TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL")


def show_live(result: TableResult, mode: str, out: TextIO, max_rows: int = 1_000_000) -> None:
    if mode == "tableau":
        result.print(out, live=True)
        return
    LiveView(result, mode == "changelog", max_rows).run(out)


class LiveView:
    def __init__(self, result: TableResult, changelog: bool, max_rows: int):
        self.result = result
        self.table = Materialized(result.header, result.types, changelog, max_rows, result.time_zone)
        self.status = "running"
        self.started = time.monotonic()

    def render(self, height: int):
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text
        live = self.table
        table = Table(show_lines=False, expand=False, header_style="bold")
        kinds = ([None] if live.changelog else []) + list(live.types)
        for name, t in zip(live.header, kinds):
            numeric = getattr(t, "root", None) in _NUMERIC
            table.add_column(name, overflow="ellipsis", no_wrap=True, max_width=30,
                             justify="right" if numeric else "left")
        for cells in live.cells()[-max(1, height - 8):]:
            texts = [Text("NULL", style="dim") if c is None else Text(c) for c in cells]
            if live.changelog:
                texts[0].stylize("cyan")
            table.add_row(*texts)
        what = "changes" if live.changelog else "rows"
        elapsed = time.monotonic() - self.started
        status = (f"{len(live)} {what}, {live.received} change(s) received, {elapsed:.0f} s · "
                  + ("query running — Ctrl-C to cancel" if self.status == "running" else self.status))
        return Group(table, Text(status, style="dim"))

    def run(self, out: TextIO) -> None:
        from rich.console import Console
        from rich.live import Live
        console = Console(file=out, highlight=False)
        height = console.size.height
        last = 0.0
        with Live(self.render(height), console=console, auto_refresh=False, transient=False) as live:
            try:
                with CtrlC() as ctrl_c:
                    for batch in self.result.batches(timeout=REFRESH_S):
                        ctrl_c.check()
                        self.table.apply(batch)
                        now = time.monotonic()
                        if now - last >= REFRESH_S:
                            live.update(self.render(height), refresh=True)
                            last = now
                self.status = "query finished"
            except KeyboardInterrupt:
                self.result.cancel()
                self.status = "query cancelled"
            live.update(self.render(height), refresh=True)
        if self.status == "query cancelled":
            print("[INFO] Query cancelled.", file=out, flush=True)
