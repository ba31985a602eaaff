"""Start ``sitemapkit serve`` as a real child process on a free port and learn its address.

Why a child process: the browser tests, ``make screenshots`` and
``bench/app_bench.py`` drive the app as a user runs it (the whole CLI process,
its crawls as grandchildren), so what they see and time is what a user gets.
The port is 0 (the kernel picks a free one); the address comes from the
``open http://...`` line the command prints.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

__all__ = ["served_app"]

_OPEN = re.compile(r"^open (http://\S+)$")
#: Seconds ``serve`` gets to print its address, and to save its crawls when stopped.
START_TIMEOUT = 30.0
STOP_TIMEOUT = 30.0


def _address(proc: subprocess.Popen[str], log: IO[bytes]) -> str:
    assert proc.stdout is not None
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        found = _OPEN.match(line.strip())
        if found:
            return found.group(1)
    proc.kill()
    proc.wait(timeout=STOP_TIMEOUT)
    log.seek(0)
    err = log.read().decode("utf-8", "replace").strip()[-500:]
    raise RuntimeError(f"sitemapkit serve did not print its address: {err}")


@contextlib.contextmanager
def served_app(workspace: Path, *extra: str) -> Iterator[str]:
    """``sitemapkit serve --workspace WORKSPACE --port 0 EXTRA...``; yields ``http://127.0.0.1:N/``.

    On exit the server gets SIGTERM (its crawls save themselves, as on Ctrl-C)
    and is waited for; a server that hangs is killed so no process outlives the caller.
    """
    argv = [sys.executable, "-m", "sitemapkit", "serve", "--workspace", str(workspace),
            "--port", "0", *extra]  # fmt: skip
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    # stderr to a file, not a pipe: nobody reads it while the app runs, and a full pipe
    # would block the server
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=log, text=True, env=env)
        try:
            yield _address(proc, log)
        finally:
            _stop(proc)


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()
