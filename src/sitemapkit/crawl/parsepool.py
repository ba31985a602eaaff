"""Where a fetched page is parsed: in the crawl's own process, or in a pool of processes.

``crawl --workers N`` (N >= 2) moves the CPU work of a page (decoding, the HTML
parse, link extraction, URL normalisation, the content fingerprint: everything in
:func:`~sitemapkit.crawl.extract.extract_page`) into N parse processes, while the
crawl's one event loop keeps the network and the store.  Why this shape:

* **Processes, not threads**: the parse holds the GIL for most of its time.
* **Our own small pool, not** ``ProcessPoolExecutor``: when one of its processes
  dies, the executor fails *every* pending page and cannot say which page killed
  it.  Here each parse process gets its own batches over its own pipes, so a dead
  process (SIGKILL, the OOM killer, a crash in the C parser) costs only the pages
  it held: a new process takes its place and they are parsed again, one by one, so
  the page that kills is found.  A page that kills :data:`MAX_PARSE_ATTEMPTS`
  processes in a row on its own is given up (:class:`ParseFailed`; the engine
  records it as ``parse-failed``), instead of killing processes forever.
* **Ready when ready**: the processes start with the crawl and import the parser
  meanwhile; until one says it is ready (an empty frame), pages are parsed in the
  crawl's own process, as ``--workers 1`` does, so a small site does not wait for
  two interpreters to start (the PostgreSQL manual's first page was parsed by the
  pool only after its processes had imported the parser).
* **Batches**: a page per message cost a wake-up of both processes per page, about
  as much CPU as the parse itself on a busy machine; what waits is sent together.
* **Two batches in flight** (:data:`IN_FLIGHT`): the next batch waits in a process's pipe
  while it parses one, so it starts on it the moment it has answered.  With one batch at a
  time it idled from its answer until the busy event loop had read it and sent another:
  on the PostgreSQL manual the two parse processes were busy about half the time while
  every page they could take was waiting for them.
* **Nicer than the crawl** (:data:`PARSE_NICENESS`): the one event loop paces the
  whole pipeline (it fetches what the parse processes parse and stores what they
  return).  With N parse processes on N cores, equal priorities give each of the
  N + 1 processes N / (N + 1) of a core, the loop included, and the loop's share is
  the crawl's speed; nicer parse processes leave it a whole core when it wants one
  and take every cycle it does not use.
* **Plain subprocesses** (``python -m sitemapkit.crawl.parseworker``) speaking
  length-prefixed pickles on stdin/stdout: asyncio reads and writes the pipes without
  blocking the loop, and a child imports only the parser, not the CLI.
* **The same function on both sides**: the pool runs :func:`~.parseworker.parse_page`, so
  ``--workers N`` gives the same facts, hence the same sitemap, as ``--workers 1``.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import pickle
import sys
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol

from sitemapkit.crawl.forked import fork_parse_process, may_fork
from sitemapkit.crawl.heap import trim_after
from sitemapkit.crawl.parseworker import FRAME, Parsed, parse_page
from sitemapkit.crawl.urlnorm import QueryPolicy

#: Processes a page may kill before it is given up as ``parse-failed``.
MAX_PARSE_ATTEMPTS: Final = 3
#: Most pages, and most body bytes, sent to a parse process in one message.
MAX_BATCH: Final = 16
MAX_BATCH_BYTES: Final = 4 << 20
#: Bytes a pipe to a parse process holds (Linux's default most for an unprivileged
#: process, ``/proc/sys/fs/pipe-max-size``): a whole batch is written at once.
PIPE_BYTES: Final = 1 << 20
#: Batches sent to a parse process and not answered yet: one being parsed, the next in its
#: pipe, so the process never waits for the event loop between two batches.
IN_FLIGHT: Final = 2
#: Pages a parse process keeps the crawl fetching ahead for (:meth:`ProcessParser.ahead`):
#: its batches in flight and one more waiting to be sent.
PAGES_AHEAD: Final = (IN_FLIGHT + 1) * MAX_BATCH
#: Most parse processes ``--workers`` starts (more rarely pays: the event loop that
#: fetches and stores is one process, and it becomes the bottleneck).
MAX_WORKERS: Final = 8
#: How much nicer than the crawl a parse process runs (``nice`` steps: weight 526 against
#: the loop's 1024 under Linux's scheduler, so the loop keeps a core of its own).
PARSE_NICENESS: Final = 3
#: The response headers :func:`extract_page` reads; only these cross the pipe.
PARSE_HEADERS: Final = frozenset(
    {"content-type", "link", "x-robots-tag", "refresh", "date", "last-modified"}
)


def default_workers() -> int:
    """The ``--workers`` default: the cores this process may use, at most :data:`MAX_WORKERS`."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_WORKERS))


class ParseFailed(Exception):  # noqa: N818 - an outcome, like the fetch errors
    """A page killed :data:`MAX_PARSE_ATTEMPTS` parse processes in a row."""


class PageParser(Protocol):
    """Turns a fetched HTML body into :class:`PageFacts` (see :func:`make_parser`)."""

    def ahead(self, concurrency: int) -> int:
        """Pages beyond ``concurrency`` the crawl keeps in flight for this parser."""
        ...

    async def start(self) -> None: ...
    async def parse(
        self, body: bytes, url: str, headers: Mapping[str, str], judge_scripts: bool = False
    ) -> Parsed:
        """The page's :class:`Parsed` facts (``judge_scripts``: and its scripts' verdict)."""
        ...

    async def close(self) -> None: ...


class InlineParser:
    """``--workers 1``: parse in the crawl's own process (no pipes, no copies)."""

    def __init__(self, policy: QueryPolicy) -> None:
        self.policy = policy

    def ahead(self, concurrency: int) -> int:
        """None: a page is parsed by the task that fetched it, at once."""
        return 0

    async def start(self) -> None:
        return None

    async def parse(
        self, body: bytes, url: str, headers: Mapping[str, str], judge_scripts: bool = False
    ) -> Parsed:
        parsed = parse_page(body, url, headers, self.policy, judge_scripts)
        trim_after(len(body))
        return parsed

    async def close(self) -> None:
        return None


@dataclass(slots=True, eq=False)
class _Page:
    """A page waiting for (or in) a parse process, and who waits for its facts."""

    body: bytes
    url: str
    headers: list[tuple[str, str]]
    judge: bool
    done: asyncio.Future[Parsed]
    #: Parse processes that died while holding this page alone.
    attempts: int = 0
    #: Sent on its own: it was in a batch whose process died.
    alone: bool = False


class _DiedError(Exception):
    """The parse process ended (or its pipe broke) while it held pages."""


class _Child(Protocol):
    """A parse process: an :class:`asyncio.subprocess.Process` or a forked one
    (:class:`~sitemapkit.crawl.forked.ForkedProcess`)."""

    pid: int
    stdin: asyncio.StreamWriter | None
    stdout: asyncio.StreamReader | None

    def kill(self) -> None: ...
    async def wait(self) -> int: ...


class ProcessParser:
    """``--workers N``: N parse processes fed batches of pages (module docstring).

    One driver task per process takes what is waiting (its share, at most
    :data:`MAX_BATCH` pages or :data:`MAX_BATCH_BYTES`), sends it as one message and
    hands each page's facts to whoever waits for them: a batch costs one wake-up of
    each side instead of one per page.  When the process dies, a new one takes its
    place; the pages of a batch are sent again one by one, and only a page that was
    alone when its process died counts an attempt.
    """

    def __init__(self, size: int, policy: QueryPolicy, *, fork: bool | None = None) -> None:
        self.size = size
        self.policy = policy
        #: Fork the first processes from this one (:mod:`~sitemapkit.crawl.forked`): None
        #: when :func:`~sitemapkit.crawl.forked.may_fork` says so at :meth:`start`.
        self.fork = fork
        self._waiting: deque[_Page] = deque()
        self._ready = asyncio.Event()
        self._drivers: list[asyncio.Task[None]] = []
        self._procs: dict[int, _Child] = {}
        #: ``pid -> batches`` sent to each process and not answered yet, oldest first.
        self._holding: dict[int, deque[list[_Page]]] = {}
        #: Parse processes started to replace dead ones.
        self.replaced = 0
        #: Pages parsed by the pool, and the messages they took.
        self.parsed = 0
        self.batches = 0
        #: Every parse process started, replacements included (pids).
        self.started: list[int] = []
        #: Parse processes that said they are ready (imports done) and are alive.
        self.ready = 0
        #: Pages parsed in the crawl's own process while no parse process was ready.
        self.inline = 0
        #: Parse processes forked from this one (the others were started as programs).
        self.forked = 0

    def ahead(self, concurrency: int) -> int:
        """:data:`PAGES_AHEAD` a parse process, so each has a batch in hand and one waiting.

        ``--concurrency 1`` takes one page at a time from fetch to store, as ``--workers 1``
        does: its crawls list pages in one reproducible order whatever the parse costs.
        """
        return 0 if concurrency <= 1 else PAGES_AHEAD * self.size

    async def start(self) -> None:
        """Start the parse processes (once); pages are parsed here until one is ready.

        They are forked from this process when it may (one thread: the CLI's case), so
        they are ready at once; else, and for a dead one's replacement, started as
        ``python -m sitemapkit.crawl.parseworker``, which imports the parser first.
        """
        if self._drivers:
            return
        fork = may_fork() if self.fork is None else self.fork
        procs = [await self._spawn(fork=fork) for _ in range(self.size)]
        self._drivers = [asyncio.create_task(self._drive(proc)) for proc in procs]

    async def _spawn(self, *, fork: bool = False) -> _Child:
        proc: _Child | None = await fork_parse_process() if fork else None
        if proc is not None:
            self.forked += 1
        else:
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "sitemapkit.crawl.parseworker",
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
            )
        with contextlib.suppress(OSError, AttributeError):  # refused, or no such call: unranked
            nicer = os.getpriority(os.PRIO_PROCESS, 0) + PARSE_NICENESS
            os.setpriority(os.PRIO_PROCESS, proc.pid, min(nicer, 19))
        _widen(proc)
        self._procs[proc.pid] = proc
        self.started.append(proc.pid)
        return proc

    def busy(self) -> dict[int, tuple[str, ...]]:
        """``pid -> URLs`` of the batch each parse process is parsing (the oldest it holds)."""
        return {pid: tuple(p.url for p in sent[0]) for pid, sent in self._holding.items() if sent}

    def unanswered(self) -> dict[int, int]:
        """``pid -> batches`` sent to each parse process and not answered yet (tests)."""
        return {pid: len(sent) for pid, sent in self._holding.items()}

    async def parse(
        self, body: bytes, url: str, headers: Mapping[str, str], judge_scripts: bool = False
    ) -> Parsed:
        if not self.ready:  # the processes are still starting: do not wait for them
            self.inline += 1
            parsed = parse_page(body, url, headers, self.policy, judge_scripts)
            trim_after(len(body))
            return parsed
        wire = [(k, v) for k, v in headers.items() if k.lower() in PARSE_HEADERS]
        page = _Page(body, url, wire, judge_scripts, asyncio.get_running_loop().create_future())
        self._waiting.append(page)
        self._ready.set()
        return await page.done

    async def _take(self) -> list[_Page]:
        """The next batch: a page to be sent alone, or this process's share of the rest."""
        while True:
            while self._waiting and self._waiting[0].done.done():  # its crawl task was cancelled
                self._waiting.popleft()
            if self._waiting:
                break
            self._ready.clear()
            await self._ready.wait()
        first = self._waiting.popleft()
        if first.alone:
            return [first]
        share = min(MAX_BATCH, -(-(len(self._waiting) + 1) // self.size))
        batch, size = [first], len(first.body)
        while self._waiting and len(batch) < share and not self._waiting[0].alone:
            if size + len(self._waiting[0].body) > MAX_BATCH_BYTES:
                break
            page = self._waiting.popleft()
            if not page.done.done():
                batch.append(page)
                size += len(page.body)
        return batch

    async def _drive(self, proc: _Child) -> None:
        """Feed one process batch after batch once it is ready; replace it when it dies."""
        while True:
            if not await self._handshake(proc):
                await self._bury(proc)  # died while starting: no page was lost
                proc = await self._spawn()
                self.replaced += 1
                continue
            self.ready += 1
            try:
                lost = await self._feed(proc)
            finally:
                self.ready -= 1
            proc = await self._spawn()  # the process died: a new one takes its place
            if lost is not None:  # ... before its pages go back (or one is given up)
                self._died(lost)
                self.replaced += 1

    async def _handshake(self, proc: _Child) -> bool:
        """Wait for the process's ready frame (empty); False if it ended first."""
        assert proc.stdout is not None
        try:
            head = await proc.stdout.readexactly(FRAME.size)
        except (asyncio.IncompleteReadError, ConnectionError):
            return False
        size: int = FRAME.unpack(head)[0]
        return size == 0

    async def _feed(self, proc: _Child) -> deque[list[_Page]] | None:
        """Batches to one ready process, :data:`IN_FLIGHT` at a time, until it dies.

        A sender task keeps up to :data:`IN_FLIGHT` batches in the process's pipe; this
        task reads the answers, in the order sent.  When the process dies, the batches
        it held are returned, for :meth:`_died` once its replacement is started.
        """
        sent: deque[list[_Page]] = deque()
        self._holding[proc.pid] = sent
        room = asyncio.Semaphore(IN_FLIGHT)
        sender = asyncio.create_task(self._send_batches(proc, sent, room))
        try:
            while True:
                try:
                    answers = await self._answer(proc)
                except _DiedError:
                    await self._bury(proc)
                    return sent
                except asyncio.CancelledError:
                    for batch in sent:  # the crawl ends: nobody waits any more
                        for page in batch:
                            page.done.cancel()
                    raise
                except Exception as exc:  # noqa: BLE001 - a reply we cannot read: the pages fail
                    await self._bury(proc)  # it may hold half a conversation: not reused
                    failed = sent.popleft() if sent else []
                    for page in failed:
                        if not page.done.done():
                            page.done.set_exception(exc)
                    self._put_back(sent)
                    return None
                self._deliver(sent.popleft(), answers)
                room.release()
        finally:
            self._holding.pop(proc.pid, None)
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sender

    async def _send_batches(
        self, proc: _Child, sent: deque[list[_Page]], room: asyncio.Semaphore
    ) -> None:
        """Send batch after batch while fewer than :data:`IN_FLIGHT` are unanswered."""
        while True:
            await room.acquire()
            batch = await self._take()
            sent.append(batch)
            try:
                await self._send(proc, batch)
            except _DiedError:
                return  # the reader sees the end of the process and puts the pages back

    def _deliver(self, batch: list[_Page], answers: list[tuple[str, Any]]) -> None:
        """Hand each page of an answered batch its facts (or its failure)."""
        self.batches += 1
        for page, (kind, value) in zip(batch, answers, strict=True):
            if page.done.done():
                continue
            if kind == "ok":
                self.parsed += 1
                page.done.set_result(Parsed(*value))
            else:
                page.done.set_exception(RuntimeError(f"parse failed on {page.url}: {value}"))

    def _put_back(self, batches: deque[list[_Page]]) -> None:
        """Batches a dead process never started go back to the front, in their order."""
        for batch in reversed(batches):
            for page in reversed(batch):
                if not page.done.done():
                    self._waiting.appendleft(page)
        batches.clear()
        self._ready.set()

    def _died(self, sent: deque[list[_Page]]) -> None:
        """Send a dead process's pages again: the batch it was parsing alone, page by page
        (a page that died alone too often is given up); the batches behind it as they were.
        """
        batch = sent.popleft() if sent else []
        self._put_back(sent)
        for page in reversed(batch):
            if page.done.done():  # its crawl task was cancelled meanwhile
                continue
            if len(batch) == 1:
                page.attempts += 1
            if page.attempts >= MAX_PARSE_ATTEMPTS:
                page.done.set_exception(
                    ParseFailed(
                        f"the page killed {MAX_PARSE_ATTEMPTS} parse processes in a row; not parsed"
                    )
                )
                continue
            page.alone = True
            self._waiting.appendleft(page)
        self._ready.set()

    async def _send(self, proc: _Child, batch: list[_Page]) -> None:
        stdin = proc.stdin
        assert stdin is not None  # a PIPE
        request = pickle.dumps(
            (self.policy, [(p.body, p.url, p.headers, p.judge) for p in batch]),
            pickle.HIGHEST_PROTOCOL,
        )
        try:
            stdin.write(FRAME.pack(len(request)))
            stdin.write(request)
            del request
            await stdin.drain()
        except ConnectionError as exc:
            raise _DiedError from exc

    async def _answer(self, proc: _Child) -> list[tuple[str, Any]]:
        """The answer to the oldest batch sent to ``proc``."""
        stdout = proc.stdout
        assert stdout is not None  # a PIPE
        try:
            size = FRAME.unpack(await stdout.readexactly(FRAME.size))[0]
            answers: list[tuple[str, Any]] = pickle.loads(  # noqa: S301 - from our own child
                await stdout.readexactly(size)
            )
        except (asyncio.IncompleteReadError, ConnectionError) as exc:
            raise _DiedError from exc
        return answers

    async def _bury(self, proc: _Child) -> None:
        self._procs.pop(proc.pid, None)
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()

    async def close(self) -> None:
        """End every parse process: EOF on its stdin, then a kill for one that lingers."""
        for task in self._drivers:
            task.cancel()
        await asyncio.gather(*self._drivers, return_exceptions=True)
        self._drivers = []
        for page in self._waiting:
            page.done.cancel()
        self._waiting.clear()
        procs, self._procs = list(self._procs.values()), {}
        for proc in procs:
            if proc.stdin is not None:
                proc.stdin.close()
        for proc in procs:
            try:
                await asyncio.wait_for(proc.wait(), 5.0)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()


def _widen(proc: _Child) -> None:
    """Make the pipes to and from a parse process hold :data:`PIPE_BYTES` (Linux).

    With the default 64 KiB, a batch of JDK pages (about 450 KiB) went in seven writes,
    each one more turn of the event loop and a move of what was left in the transport's
    buffer; a batch now goes in one write while the process parses the one before.
    """
    setsize = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setsize is None:  # pragma: no cover - not Linux
        return
    pipe = None if proc.stdin is None else proc.stdin.transport.get_extra_info("pipe")
    if pipe is None:  # pragma: no cover - stdin is always a PIPE here
        return
    with contextlib.suppress(OSError, ValueError):  # over the system's limit: left as it is
        fcntl.fcntl(pipe.fileno(), setsize, PIPE_BYTES)


def make_parser(workers: int, policy: QueryPolicy) -> PageParser:
    """The parser ``--workers`` asks for: in-process for 1, else a pool of that many."""
    if workers <= 1:
        return InlineParser(policy)
    return ProcessParser(workers, policy)
