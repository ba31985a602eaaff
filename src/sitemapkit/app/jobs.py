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
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

from sitemapkit.app.workspace import Job, SitePaths
from sitemapkit.cli.status import ExitStatus
from sitemapkit.store.lock import lock_path

#: Lines of a child's output kept in memory (its first and its last).
KEEP_LINES = 40
#: Seconds a stopping child gets to save its crawl before it is killed (server shutdown).
STOP_GRACE = 20.0
_PR_SET_PDEATHSIG = 1


def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:  # pragma: no cover - not Linux/glibc
        return None


#: Loaded once here: between fork and exec the child may only call what is already loaded.
_LIBC = _libc()


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Ask Linux to SIGTERM this child when the server that started it dies."""
    if _LIBC is not None:
        with contextlib.suppress(AttributeError):
            _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


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


def last_error_line(lines: Sequence[str]) -> str | None:
    """The last ``sitemapkit:`` line the child printed (its one-line reason for stopping)."""
    for line in reversed(lines):
        if line.startswith("sitemapkit:"):
            return line.removeprefix("sitemapkit:").strip()
    return None


def first_summary_line(lines: Sequence[str]) -> str | None:
    """The summary's first line (``crawled N URLs in ...``), when the child printed it."""
    return next((line for line in lines if line.startswith(("crawled ", "audit"))), None)


def describe_exit(job: Job, lines: Sequence[str]) -> str:
    """One line saying how a child ended, for people."""
    code = job.exit_code
    if code == ExitStatus.OK or (job.kind == "audit" and code == ExitStatus.ERROR):
        line = first_summary_line(lines)
        return f"{job.kind} finished" + (f": {line}" if line else "")
    if code in (ExitStatus.TERMINATED, -signal.SIGTERM):
        return "stopped; the crawl is saved and can be resumed"
    if code in (ExitStatus.INTERRUPTED, -signal.SIGINT):
        return "interrupted; the crawl is saved and can be resumed"
    if code == -signal.SIGKILL:
        return "killed; the crawl can be resumed from its last commit"
    reason = last_error_line(lines) or f"exit status {code}"
    return f"{job.kind} failed: {reason}"


class Output:
    """A child's output: copied to ``crawl.log`` while the disk allows, its lines kept too.

    The log lives in the workspace, which may be the disk that just filled up: the
    lines that say why the crawl stopped are kept in memory so the app can still say it.
    """

    def __init__(self, log: Path) -> None:
        self.lines: deque[str] = deque(maxlen=KEEP_LINES)
        self.head: list[str] = []
        try:
            self._file: IO[bytes] | None = log.open("wb")
        except OSError:
            self._file = None

    async def pump(self, stream: asyncio.StreamReader) -> None:
        async for raw in stream:
            self._write(raw)
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if len(self.head) < KEEP_LINES:
                self.head.append(line)
            self.lines.append(line)
        self.close()

    def _write(self, raw: bytes) -> None:
        if self._file is None:
            return
        try:
            self._file.write(raw)
            self._file.flush()
        except OSError:  # full disk: the lines are still kept
            self.close()

    def close(self) -> None:
        f, self._file = self._file, None
        if f is not None:
            with contextlib.suppress(OSError):
                f.close()

    def all_lines(self) -> list[str]:
        return [*self.head, *self.lines]


def orphan_message(job: Job) -> str:
    """What to say of a job whose server died before it could record the end."""
    return f"{job.kind} stopped when the server did; it can be resumed"


class Jobs:
    """The children this server runs, one per site at most."""

    def __init__(self, on_change: Callable[[str], None] | None = None) -> None:
        self._procs: dict[str, asyncio.subprocess.Process] = {}
        self._waiters: dict[str, asyncio.Task[None]] = {}
        self._stopping: set[str] = set()
        self._last: dict[str, Job] = {}
        self._on_change = on_change

    def state(self, paths: SitePaths) -> str:
        """``running``, ``stopping``, ``busy`` (another process holds the store) or ``idle``."""
        if paths.id in self._procs:
            return "stopping" if paths.id in self._stopping else "running"
        return "busy" if holder_pid(paths.db) is not None else "idle"

    def running(self, site_id: str) -> bool:
        return site_id in self._procs

    def last(self, site_id: str) -> Job | None:
        """The last job this server ran for the site (``job.json`` may not have been
        written: a full disk), or ``None``."""
        return self._last.get(site_id)

    async def start(self, paths: SitePaths, kind: str, argv: list[str]) -> Job:
        """Start ``argv`` for the site; its output goes to ``crawl.log``; ``job.json`` kept."""
        job = Job(kind=kind, argv=argv, started_at=time.time())
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_die_with_parent,
            env={**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "200"},
        )
        output = Output(paths.log)
        assert proc.stdout is not None
        pump = asyncio.create_task(output.pump(proc.stdout))
        job.pid = proc.pid
        self._procs[paths.id] = proc
        try:
            paths.write_job(job)
        except OSError as exc:
            job.message = f"cannot record the job in {paths.job_file}: {exc.strerror or exc}"
        self._last[paths.id] = job
        self._waiters[paths.id] = asyncio.create_task(self._wait(paths, proc, job, pump, output))
        self._changed(paths.id)
        return job

    async def _wait(
        self,
        paths: SitePaths,
        proc: asyncio.subprocess.Process,
        job: Job,
        pump: asyncio.Task[None],
        output: Output,
    ) -> None:
        code = await proc.wait()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(pump, 10)  # the rest of its output
        job.ended_at = time.time()
        job.exit_code = code
        job.message = describe_exit(job, output.all_lines())
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
