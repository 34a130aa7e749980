"""A real terminal for the shell's tests: the CLI runs in a pseudo-terminal (pexpect) and
its output is rendered by a terminal emulator (pyte), so a test reads the screen a user
would see (cursor movements, redraws and colours applied) and types keys."""
from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path
from typing import Optional

import pexpect
import pyte

ROOT = Path(__file__).resolve().parents[2]


class Terminal:
    def __init__(self, *args: str, cwd: Path = ROOT, rows: int = 40, cols: int = 150, env: Optional[dict] = None):
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.transcript = b""  # everything the program wrote, raw
        full_env = dict(os.environ, TERM="xterm-256color", PYTHONPATH=str(ROOT),
                        PYSPARK_PYTHON=sys.executable, **(env or {}))
        full_env.pop("PROMPT_TOOLKIT_NO_CPR", None)
        self.child = pexpect.spawn(sys.executable, ["-m", "shell.cli", *args], cwd=str(cwd), env=full_env,
                                   dimensions=(rows, cols), timeout=None)
        # The emulator answers the program's queries (the cursor position, which
        # prompt_toolkit asks for to know the room below the prompt) as a terminal does.
        self.screen.write_process_input = lambda data: self.child.send(data)

    # -- reading the screen ------------------------------------------------------------------
    def _pump(self, wait: float) -> None:
        try:
            data = self.child.read_nonblocking(65536, timeout=wait)
        except pexpect.TIMEOUT:
            return
        except pexpect.EOF:
            raise
        self.transcript += data
        self.stream.feed(data)

    def display(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

    def text(self, since: int = 0) -> str:
        """The output (from byte ``since`` of it, see ``mark``) as plain text, escape
        sequences removed: lines that scrolled off the screen are here too."""
        plain = re.sub(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-B]|\x1b[=>]|\r", b"", self.transcript[since:])
        return plain.decode("utf-8", "replace")

    def mark(self) -> int:
        """A position in the output, for ``wait_for(..., since=...)``."""
        return len(self.transcript)

    def wait_for(self, pattern: str, timeout: float = 120, since: Optional[int] = None) -> re.Match:
        """Read until ``pattern`` (a regex) is on the screen, or, with ``since``, in the
        output written after that mark."""
        deadline = time.monotonic() + timeout
        rx = re.compile(pattern, re.MULTILINE)
        where = "screen" if since is None else "text"
        while True:
            found = rx.search(self.display() if where == "screen" else self.text(since))
            if found:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"{pattern!r} did not appear within {timeout} s; the screen:\n{self.display()}")
            try:
                self._pump(0.1)
            except pexpect.EOF:
                found = rx.search(self.display() if where == "screen" else self.text(since))
                if found:
                    return found
                raise AssertionError(f"the shell exited before {pattern!r} appeared; the screen:\n{self.display()}")

    def settle(self, quiet: float = 0.3, timeout: float = 10) -> None:
        """Read until the program has written nothing for ``quiet`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            before = len(self.transcript)
            try:
                self._pump(quiet)
            except pexpect.EOF:
                return
            if len(self.transcript) == before:
                return

    def prompt_line(self) -> str:
        """The screen line holding the cursor."""
        return self.screen.display[self.screen.cursor.y].rstrip()

    # -- typing ----------------------------------------------------------------------------------
    def type(self, text: str) -> None:
        self.child.send(text)

    def enter(self) -> None:
        self.child.send("\r")

    def ctrl(self, key: str) -> None:
        self.child.sendcontrol(key)

    def quit(self, timeout: float = 120) -> None:
        """Ctrl-D at a prompt that reads keys. Typed while a statement runs, Ctrl-D would
        meet the terminal in cooked mode, where the line discipline turns it into an
        end-of-file no program sees as a key (the shell would never get it)."""
        deadline = time.monotonic() + timeout
        while not self.prompt_line().startswith("Flink SQL>"):
            if time.monotonic() > deadline:
                raise AssertionError(f"no prompt within {timeout} s; the screen:\n{self.display()}")
            self._pump(0.1)
        self.ctrl("d")

    def tab(self) -> None:
        self.child.send("\t")

    def run(self, statement: str, then: str, timeout: float = 120) -> re.Match:
        """Type ``statement`` and Enter; wait until ``then`` is in what follows."""
        start = self.mark()
        self.type(statement)
        self.enter()
        return self.wait_for(then, timeout, since=start)

    def wait_exit(self, timeout: float = 180) -> int:
        deadline = time.monotonic() + timeout
        while self.child.isalive() and time.monotonic() < deadline:
            try:
                self._pump(0.2)
            except pexpect.EOF:
                break
        self.child.close()
        return self.child.exitstatus

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)
