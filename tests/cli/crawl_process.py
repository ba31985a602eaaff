"""``sitemapkit`` as a real subprocess: start it, watch its progress, kill it with SIGKILL.

Why one module: the kill-and-resume tests (``--resume`` after ``kill -9``, a full
disk, a re-crawl cut short) each had a copy of the start-up, the polling loop and
the kill; a fix to one (wait for the process, not only the clock) reached the
others only by luck.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable

#: Unbuffered, so a killed process has written what it printed.
ENV = {**os.environ, "PYTHONUNBUFFERED": "1"}


def cli(*args: str) -> list[str]:
    """The command line of ``sitemapkit ARGS`` in this interpreter."""
    return [sys.executable, "-m", "sitemapkit", *args]


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``sitemapkit ARGS`` to its end; its output captured as text."""
    return subprocess.run(
        cli(*args), env=ENV, capture_output=True, text=True, timeout=timeout, check=False
    )


def start(*args: str, output: int = subprocess.PIPE) -> subprocess.Popen[str]:
    """Start ``sitemapkit ARGS`` (stdout and stderr to ``output``: a pipe or DEVNULL)."""
    return subprocess.Popen(cli(*args), env=ENV, stdout=output, stderr=output, text=True)


def wait_until(
    proc: subprocess.Popen[str], progress: Callable[[], int], n: int, timeout: float = 60
) -> int:
    """Poll ``progress()`` until it reaches ``n``, ``proc`` ends or ``timeout`` passes;
    the last value seen."""
    deadline = time.monotonic() + timeout
    done = 0
    while time.monotonic() < deadline and proc.poll() is None:
        done = progress()
        if done >= n:
            return done
        time.sleep(0.05)
    return done


def kill_at(
    proc: subprocess.Popen[str], progress: Callable[[], int], n: int, timeout: float = 60
) -> int:
    """``kill -9`` ``proc`` once ``progress()`` reaches ``n`` (or at ``timeout``; killed
    whatever happens); the progress seen just before the kill."""
    try:
        done = wait_until(proc, progress, n, timeout)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    return done
