"""Crawls and audits started from the app, each a child ``sitemapkit`` process.

Why a child process and not a task in the server: the crawl is then exactly
the CLI's crawl (same store, same lock, same publishing, same messages), the
server's event loop stays free for the browser, and a crash of either side
leaves the other's state intact.  The child is in its own session (a Ctrl-C
in the server's terminal reaches the server, which stops its children
cleanly) and gets SIGTERM if the server dies (``PR_SET_PDEATHSIG``, so even a
``kill -9`` of the server leaves a saved, resumable crawl instead of an orphan).
What happened is kept in ``job.json`` and shown as one line.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

from sitemapkit.app.workspace import Job, SitePaths
from sitemapkit.cli.status import ExitStatus
from sitemapkit.store.lock import lock_path

#: Seconds a stopping child gets to save its crawl before it is killed (server shutdown).
STOP_GRACE = 20.0
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Ask Linux to SIGTERM this child when the server that started it dies."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def sitemapkit_argv(*args: str) -> list[str]:
    """The command line that runs this sitemapkit's CLI with ``args``."""
    return [sys.executable, "-m", "sitemapkit", *args]


def holder_pid(db: Path) -> int | None:
    """The live process holding ``db``'s crawl lock (a CLI crawl, or a crawl of a dead server)."""
    try:
        text = lock_path(db).read_text("ascii").strip()
        pid = int(text)
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    return pid


def last_error_line(log: Path) -> str | None:
    """The last ``sitemapkit:`` line the child printed (its one-line reason for stopping)."""
    try:
        with log.open("rb") as f:
            f.seek(max(0, log.stat().st_size - 16384))
            tail = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    for line in reversed(tail):
        if line.startswith("sitemapkit:"):
            return line.removeprefix("sitemapkit:").strip()
    return None


def first_summary_line(log: Path) -> str | None:
    """The crawl summary's first line (``crawled N URLs in ...``), when the child printed it."""
    try:
        for line in log.read_text("utf-8", "replace").splitlines():
            if line.startswith(("crawled ", "audit")):
                return line
    except OSError:
        return None
    return None


def describe_exit(job: Job, log: Path) -> str:
    """One line saying how a child ended, for people."""
    code = job.exit_code
    if code == ExitStatus.OK or (job.kind == "audit" and code == ExitStatus.ERROR):
        return f"{job.kind} finished" + (f": {line}" if (line := first_summary_line(log)) else "")
    if code in (ExitStatus.TERMINATED, -signal.SIGTERM):
        return "stopped; the crawl is saved and can be resumed"
    if code in (ExitStatus.INTERRUPTED, -signal.SIGINT):
        return "interrupted; the crawl is saved and can be resumed"
    if code == -signal.SIGKILL:
        return "killed; the crawl can be resumed from its last commit"
    reason = last_error_line(log) or f"exit status {code}"
    return f"{job.kind} failed: {reason}"


def orphan_message(job: Job) -> str:
    """What to say of a job whose server died before it could record the end."""
    return f"{job.kind} stopped when the server did; it can be resumed"


class Jobs:
    """The children this server runs, one per site at most."""

    def __init__(self, on_change: Callable[[str], None] | None = None) -> None:
        self._procs: dict[str, asyncio.subprocess.Process] = {}
        self._waiters: dict[str, asyncio.Task[None]] = {}
        self._stopping: set[str] = set()
        self._on_change = on_change

    def state(self, paths: SitePaths) -> str:
        """``running``, ``stopping``, ``busy`` (another process holds the store) or ``idle``."""
        if paths.id in self._procs:
            return "stopping" if paths.id in self._stopping else "running"
        return "busy" if holder_pid(paths.db) is not None else "idle"

    def running(self, site_id: str) -> bool:
        return site_id in self._procs

    async def start(self, paths: SitePaths, kind: str, argv: list[str]) -> Job:
        """Start ``argv`` for the site; its output goes to ``crawl.log``; ``job.json`` kept."""
        job = Job(kind=kind, argv=argv, started_at=time.time())
        with paths.log.open("wb") as log:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=log,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent,
                env={**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "200"},
            )
        job.pid = proc.pid
        self._procs[paths.id] = proc
        try:
            paths.write_job(job)
        except OSError as exc:
            job.message = f"cannot record the job in {paths.job_file}: {exc.strerror or exc}"
        self._waiters[paths.id] = asyncio.create_task(self._wait(paths, proc, job))
        self._changed(paths.id)
        return job

    async def _wait(self, paths: SitePaths, proc: asyncio.subprocess.Process, job: Job) -> None:
        code = await proc.wait()
        job.ended_at = time.time()
        job.exit_code = code
        job.message = describe_exit(job, paths.log)
        with contextlib.suppress(OSError):  # a full disk: the store still says where it is
            paths.write_job(job)
        self._procs.pop(paths.id, None)
        self._stopping.discard(paths.id)
        self._waiters.pop(paths.id, None)
        self._changed(paths.id)

    def stop(self, site_id: str) -> bool:
        """SIGTERM the site's child (the crawl saves itself); False when none runs."""
        proc = self._procs.get(site_id)
        if proc is None:
            return False
        self._stopping.add(site_id)
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)
        self._changed(site_id)
        return True

    async def shutdown(self) -> None:
        """Stop every child and wait for each to save (killed after :data:`STOP_GRACE`)."""
        for site_id in list(self._procs):
            self.stop(site_id)
        waiters = list(self._waiters.values())
        if not waiters:
            return
        _, pending = await asyncio.wait(waiters, timeout=STOP_GRACE)
        if pending:
            for proc in self._procs.values():
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
            await asyncio.wait(pending, timeout=5)

    def _changed(self, site_id: str) -> None:
        if self._on_change is not None:
            self._on_change(site_id)
