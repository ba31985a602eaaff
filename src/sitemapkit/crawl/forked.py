"""A parse process forked from the crawl: ready at once, no interpreter to start.

``crawl --workers N`` used to start each parse process as ``python -m
sitemapkit.crawl.parseworker``: a new interpreter that imports the parser (about 0.1 s
of CPU each) while the crawl parses pages itself, on the cores the parse processes
are meant to take.  On the PostgreSQL manual (1,169 pages, about a second) that was a
tenth of the crawl's CPU and a third of its pages parsed in-process.  The crawl has
imported the parser already (``--workers 1`` parses in-process with it), so a fork of
it holds everything a parse process needs and answers its first batch at once.

Why it is safe, and when it is not done:

* **Only from a process with one thread** (:func:`may_fork`): a thread holding a lock at
  the fork would leave it locked forever in the child.  The CLI starts its parse
  processes first thing in the event loop, before any thread exists; elsewhere (a
  library caller, a test with servers on threads) and for the processes that replace
  dead ones, the pool starts them as before.
* **The child keeps nothing of the crawl's**: every inherited descriptor but its two
  pipes is closed (the store, its lock, the event loop's), the signal handlers the
  crawl installed are reset (SIGINT ignored, as ``parseworker`` does: Ctrl-C reaches the
  whole group and the crawl saves itself first), the objects it inherited are frozen
  out of the collector (no finalizer of the crawl's runs here), and it ends with
  ``os._exit``: no ``atexit`` hook, buffered output or store of the crawl's is flushed
  twice.
* **It is reaped through a pidfd** (Linux 5.3): the event loop watches it, no thread
  waits for it.
"""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import threading
from typing import BinaryIO, NoReturn, cast

from sitemapkit.crawl.parseworker import FRAME, serve


def may_fork() -> bool:
    """Whether a parse process can be forked from here: Linux, and this thread alone."""
    return (
        hasattr(os, "fork")
        and hasattr(os, "pidfd_open")
        and hasattr(os, "waitstatus_to_exitcode")
        and threading.active_count() == 1
    )


class ForkedProcess:
    """A forked parse process, with the face of :class:`asyncio.subprocess.Process` the
    pool uses (``pid``, ``stdin``, ``stdout``, ``kill``, ``wait``)."""

    def __init__(
        self,
        pid: int,
        stdin: asyncio.StreamWriter,
        stdout: asyncio.StreamReader,
        stdout_transport: asyncio.BaseTransport,
    ) -> None:
        self.pid = pid
        self.stdin: asyncio.StreamWriter | None = stdin
        self.stdout: asyncio.StreamReader | None = stdout
        self.returncode: int | None = None
        self._stdout_transport = stdout_transport
        loop = asyncio.get_running_loop()
        self._exited: asyncio.Future[int] = loop.create_future()
        self._pidfd = os.pidfd_open(pid)
        loop.add_reader(self._pidfd, self._reap)

    def _reap(self) -> None:
        """The process ended (its pidfd is readable): collect its exit status.

        Its pipes stay open: an answer it wrote before it ended may still be unread.
        """
        asyncio.get_running_loop().remove_reader(self._pidfd)
        os.close(self._pidfd)
        _, status = os.waitpid(self.pid, 0)
        self.returncode = os.waitstatus_to_exitcode(status)
        self._exited.set_result(self.returncode)

    def kill(self) -> None:
        if self.returncode is not None:
            raise ProcessLookupError(self.pid)
        os.kill(self.pid, signal.SIGKILL)

    async def wait(self) -> int:
        """Its exit status, once it ended; then its pipes are closed (the pool reads no more)."""
        code = await asyncio.shield(self._exited)
        if self.stdin is not None:
            self.stdin.close()
        self._stdout_transport.close()
        return code


async def fork_parse_process() -> ForkedProcess | None:
    """Fork a parse process from this one; None when a pipe would land on 0, 1 or 2
    (the crawl runs without standard streams: start one the usual way)."""
    request_r, request_w = os.pipe()
    answer_r, answer_w = os.pipe()
    if min(request_r, request_w, answer_r, answer_w) < 3:  # pragma: no cover - no stdio
        for fd in (request_r, request_w, answer_r, answer_w):
            os.close(fd)
        return None
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child: measured by what it answers
        _child(request_r, answer_w)
    os.close(request_r)
    os.close(answer_w)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(answer_r, "rb", buffering=0)
    )
    write_transport, write_protocol = await loop.connect_write_pipe(
        lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()),
        os.fdopen(request_w, "wb", buffering=0),
    )
    writer = asyncio.StreamWriter(write_transport, write_protocol, None, loop)
    return ForkedProcess(pid, writer, reader, read_transport)


def _child(request_r: int, answer_w: int) -> NoReturn:  # pragma: no cover - in the child
    """The forked process: drop the crawl's state, answer batches, exit without cleanup."""
    code = 1
    try:
        gc.freeze()  # the crawl's objects: never collected (nor finalized) here
        signal.set_wakeup_fd(-1)  # the event loop's: a signal here must not wake the crawl
        for sig in signal.valid_signals():
            handler = signal.getsignal(sig)
            if callable(handler) or sig == signal.SIGINT:
                signal.signal(sig, signal.SIG_IGN if sig == signal.SIGINT else signal.SIG_DFL)
        os.dup2(request_r, 0)
        os.dup2(answer_w, 1)
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        stdin = cast(BinaryIO, os.fdopen(0, "rb", closefd=False))
        stdout = cast(BinaryIO, os.fdopen(1, "wb", closefd=False))
        stdout.write(FRAME.pack(0))  # ready: nothing to import
        stdout.flush()
        serve(stdin, stdout)
        code = 0
    finally:
        os._exit(code)
