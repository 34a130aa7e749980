"""examples/notebook.ipynb, executed by nbclient on a real Jupyter kernel, and its outputs.

The kernel runs this interpreter (a kernel spec in a temporary ``JUPYTER_PATH`` pointing
at ``sys.executable``) with this checkout first on its path; it starts its own JVM. One
cell is added at the end: an unbounded streaming SELECT that the test interrupts (SIGINT,
as Jupyter's "interrupt kernel") once its table shows rows.
"""
from __future__ import annotations

import json
import os
import re
import signal
import sys
from decimal import Decimal
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "examples" / "notebook.ipynb"
KERNEL = "sqlengine-test"
# What Spark, log4j or the JVM print when their output is not redirected.
SPARK_NOISE = re.compile(r"\bWARN\b|log4j|SparkContext|Using Spark's default|setLogLevel|NativeCodeLoader|"
                         r"\bINFO (?!\])|WARNING: |py4j|Exception in thread")
# Unbounded; the timeout only keeps a broken interrupt from hanging the test (nbclient's 600 s).
INTERRUPTED = "%%sql --timeout 300\nSELECT user_id, url FROM clicks"


class InterruptingClient(NotebookClient):
    """Sends SIGINT to the kernel once the last cell's live table has shown rows."""

    interrupted = False

    def process_message(self, msg, cell, cell_index):
        if (not self.interrupted and cell_index == len(self.nb.cells) - 1
                and msg["msg_type"] == "update_display_data"
                and "Running" in msg["content"]["data"].get("text/plain", "")):
            self.interrupted = True
            os.kill(self.km.provisioner.pid, signal.SIGINT)
        return super().process_message(msg, cell, cell_index)


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """The example notebook (plus the interrupted cell) after a run on a real kernel."""
    tmp = tmp_path_factory.mktemp("notebook")
    kernels = tmp / "jupyter" / "kernels" / KERNEL
    kernels.mkdir(parents=True)
    env = {"PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
           "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable,
           "XDG_STATE_HOME": str(tmp / "state")}
    (kernels / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "sqlengine test", "language": "python", "env": env}))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(INTERRUPTED))
    saved = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = str(tmp / "jupyter")
    try:
        client = InterruptingClient(nb, kernel_name=KERNEL, timeout=600, startup_timeout=120,
                                    resources={"metadata": {"path": str(tmp)}})
        client.execute()
    finally:
        if saved is None:
            del os.environ["JUPYTER_PATH"]
        else:
            os.environ["JUPYTER_PATH"] = saved
    assert client.interrupted
    return nb, tmp / "state" / "sqlengine" / "log"


def code_cells(nb) -> list:
    return [c for c in nb.cells if c.cell_type == "code"]


def cell(nb, source_start: str):
    (found,) = [c for c in code_cells(nb) if c.source.startswith(source_start)]
    return found


def html_rows(text: str) -> list[list[str]]:
    """The body rows of the (one) HTML table in ``text``, cells unescaped as displayed."""
    import html
    body = text.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [[html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", row)]
            for row in re.findall(r"<tr>(.*?)</tr>", body)]


def rich(c, mime: str) -> list[str]:
    return [o["data"][mime] for o in c.outputs if o.output_type in ("display_data", "execute_result")
            and mime in o["data"]]


def stream(c) -> str:
    return "".join(o.text for o in c.outputs if o.output_type == "stream")


def every_output_text(nb) -> list[str]:
    texts = []
    for c in code_cells(nb):
        for o in c.outputs:
            if o.output_type == "stream":
                texts.append(o.text)
            elif o.output_type == "error":
                texts += [o.ename, o.evalue, *o.traceback]
            else:
                texts += [str(v) for v in o["data"].values()]
    return texts


def test_no_spark_or_jvm_line_reaches_a_cell(executed):
    nb, log = executed
    noisy = [t for t in every_output_text(nb) if SPARK_NOISE.search(t)]
    assert noisy == []
    assert any(log.glob("sqlengine-*.log"))  # where Spark's log went instead


def test_bounded_query_renders_an_html_table_and_flink_tableau(executed):
    nb, _ = executed
    c = cell(nb, "%%sql\nSET 'execution.runtime-mode' = 'batch'")
    assert stream(c) == "[INFO] Execute statement succeeded.\n"
    (table,) = rich(c, "text/html")
    assert html_rows(table) == [["apple", "2", "3.50"], ["pear", "2", "2.00"], ["plum", "1", "<NULL>"]]
    assert "&lt;NULL&gt;" in table
    (text,) = rich(c, "text/plain")
    assert text.splitlines()[1] == "|  item | orders | revenue |"
    assert text.endswith("3 rows in set")


def test_python_variable_is_bound_and_rows_come_back_as_a_dataframe(executed):
    nb, _ = executed
    (table,) = rich(cell(nb, "%%sql -o pricey"), "text/html")
    assert html_rows(table) == [["1", "apple", "1.50"], ["3", "apple", "2.00"], ["5", "pear", "1.25"]]
    assert rich(cell(nb, 'pricey["price"].sum()'), "text/plain") == [repr(Decimal("4.75"))]


def test_error_shows_the_reason_with_a_caret_and_fails_the_cell(executed):
    nb, _ = executed
    c = cell(nb, "%%sql\nSELECT order_id, itme")
    (text,) = rich(c, "text/plain")
    lines = text.splitlines()
    assert lines[:5] == ["[ERROR] Could not execute SQL statement. Reason:",
                         "Column 'itme' not found in any table",
                         "  at line 1, column 18:",
                         "  SELECT order_id, itme FROM orders",
                         "                   ^^^^"]
    assert lines[-1].startswith("(full trace in ") and "sqlengine-" in lines[-1]
    (html_text,) = rich(c, "text/html")
    assert "Column &#x27;itme&#x27; not found" in html_text and "                   ^^^^" in html_text
    (error,) = [o for o in c.outputs if o.output_type == "error"]
    assert error.ename == "SqlError"
    assert error.traceback == ["SqlError: the statement failed (the error is shown above)."]


def test_insert_shows_its_job_id_and_runs_in_the_background(executed):
    nb, _ = executed
    out = stream(cell(nb, "%%sql\nSET 'execution.runtime-mode' = 'streaming'"))
    job_id = re.search(r"^Job ID: (\S+)$", out, re.M).group(1)
    assert out.count("[INFO] Execute statement succeeded.") == 2
    assert "[INFO] SQL update statement has been successfully submitted to the cluster:" in out
    (jobs,) = rich(cell(nb, "%sql SHOW JOBS"), "text/plain")
    assert job_id in jobs


def test_bounded_streaming_cell_ends_with_its_final_table(executed):
    nb, _ = executed
    c = cell(nb, "%%sql --max-rows 6")
    (table,) = rich(c, "text/html")  # the display was updated in place: one output
    rows = html_rows(table)
    assert 1 <= len(rows) <= 3 and {r[0] for r in rows} <= {"1", "2", "3"}
    (text,) = rich(c, "text/plain")
    status = text.splitlines()[-1]
    assert re.fullmatch(rf"Stopped \(--max-rows 6\): {len(rows)} rows? in the table, \d+ changes received\.", status)
    assert int(status.split(", ")[1].split()[0]) >= 6


def test_interrupt_cancels_the_query_and_keeps_the_table(executed):
    nb, _ = executed
    c = code_cells(nb)[-1]
    assert [o.output_type for o in c.outputs] == ["display_data"]  # no traceback
    (text,) = rich(c, "text/plain")
    assert text.splitlines()[-1].startswith("Cancelled (interrupted): ")
    assert len(html_rows(rich(c, "text/html")[0])) >= 1
