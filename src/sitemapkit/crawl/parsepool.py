"""Where a fetched page is parsed: in the crawl's own process, or in a pool of processes.

``crawl --workers N`` (N >= 2) moves the CPU work of a page (decoding, the HTML
parse, link extraction, URL normalisation, the content fingerprint: everything in
:func:`~sitemapkit.crawl.extract.extract_page`) into N parse processes, while the
crawl's one event loop keeps the network and the store.  Why this shape:

* **Processes, not threads**: the parse holds the GIL for most of its time.
* **Our own small pool, not** ``ProcessPoolExecutor``: when one of its processes
  dies, the executor fails *every* pending page and cannot say which page killed
  it.  Here each parse process handles one page at a time over its own pipes, so a
  dead process (SIGKILL, the OOM killer, a crash in the C parser) costs exactly the
  page it held: a new process takes its place and that page is parsed again.  A
  page that kills :data:`MAX_PARSE_ATTEMPTS` processes in a row is given up
  (:class:`ParseFailed`; the engine records it as ``parse-failed``), instead of
  killing processes forever.
* **Plain subprocesses** (``python -m sitemapkit.crawl.parseworker``) speaking
  length-prefixed pickles on stdin/stdout: asyncio reads and writes the pipes without
  blocking the loop, and a child imports only the parser, not the CLI.
* **The same function on both sides**: the pool runs :func:`extract_page` itself, so
  ``--workers N`` gives the same facts, hence the same sitemap, as ``--workers 1``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import sys
from collections.abc import Mapping
from typing import Final, Protocol

from sitemapkit.crawl.extract import PageFacts, extract_page
from sitemapkit.crawl.heap import BIG_BODY, trim_heap
from sitemapkit.crawl.parseworker import FRAME
from sitemapkit.crawl.urlnorm import QueryPolicy

#: Processes a page may kill before it is given up as ``parse-failed``.
MAX_PARSE_ATTEMPTS: Final = 3
#: Most parse processes ``--workers`` starts (more rarely pays: the event loop that
#: fetches and stores is one process, and it becomes the bottleneck).
MAX_WORKERS: Final = 8
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

    async def start(self) -> None: ...
    async def parse(self, body: bytes, url: str, headers: Mapping[str, str]) -> PageFacts: ...
    async def close(self) -> None: ...


class InlineParser:
    """``--workers 1``: parse in the crawl's own process (no pipes, no copies)."""

    def __init__(self, policy: QueryPolicy) -> None:
        self.policy = policy

    async def start(self) -> None:
        return None

    async def parse(self, body: bytes, url: str, headers: Mapping[str, str]) -> PageFacts:
        facts = extract_page(body, url=url, headers=headers, policy=self.policy)
        if len(body) >= BIG_BODY:
            trim_heap()
        return facts

    async def close(self) -> None:
        return None


class _Child:
    """One parse process and its pipes; ``url`` is the page it holds, if any."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.url: str | None = None

    @property
    def pid(self) -> int:
        return self.proc.pid


class _DiedError(Exception):
    """The parse process ended (or its pipe broke) while it held a page."""


class ProcessParser:
    """``--workers N``: N parse processes, one page each at a time (module docstring)."""

    def __init__(self, size: int, policy: QueryPolicy) -> None:
        self.size = size
        self.policy = policy
        self._idle: asyncio.Queue[_Child] = asyncio.Queue()
        self._children: list[_Child] = []
        #: Parse processes started to replace dead ones.
        self.replaced = 0
        #: Pages parsed by the pool.
        self.parsed = 0
        #: Every parse process started, replacements included (pids).
        self.started: list[int] = []

    async def start(self) -> None:
        for _ in range(self.size):
            self._idle.put_nowait(await self._spawn())

    async def _spawn(self) -> _Child:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "sitemapkit.crawl.parseworker",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        child = _Child(proc)
        self._children.append(child)
        self.started.append(proc.pid)
        return child

    def busy(self) -> dict[int, str]:
        """``pid -> URL`` of the parse processes holding a page now (for tests, progress)."""
        return {c.pid: c.url for c in self._children if c.url is not None}

    async def parse(self, body: bytes, url: str, headers: Mapping[str, str]) -> PageFacts:
        wire = [(k, v) for k, v in headers.items() if k.lower() in PARSE_HEADERS]
        request = pickle.dumps((body, url, wire, self.policy), pickle.HIGHEST_PROTOCOL)
        for _attempt in range(MAX_PARSE_ATTEMPTS):
            child = await self._idle.get()
            try:
                facts = await self._ask(child, url, request)
            except _DiedError:
                await self._bury(child)
                self._idle.put_nowait(await self._spawn())
                self.replaced += 1
                continue
            except BaseException:
                # Cancelled (the crawl stops) or a reply we cannot read: the child may hold
                # half a conversation, so it is not reused.
                await self._bury(child)
                raise
            self._idle.put_nowait(child)
            self.parsed += 1
            return facts
        raise ParseFailed(
            f"the page killed {MAX_PARSE_ATTEMPTS} parse processes in a row; not parsed"
        )

    async def _ask(self, child: _Child, url: str, request: bytes) -> PageFacts:
        stdin, stdout = child.proc.stdin, child.proc.stdout
        assert stdin is not None  # both are PIPEs
        assert stdout is not None
        child.url = url
        try:
            stdin.write(FRAME.pack(len(request)) + request)
            await stdin.drain()
            size = FRAME.unpack(await stdout.readexactly(FRAME.size))[0]
            kind, value = pickle.loads(await stdout.readexactly(size))  # noqa: S301 - our child
        except (asyncio.IncompleteReadError, ConnectionError) as exc:
            raise _DiedError from exc
        finally:
            child.url = None
        if kind != "ok":
            raise RuntimeError(f"parse process failed on {url}: {value}")
        facts: PageFacts = value
        return facts

    async def _bury(self, child: _Child) -> None:
        with contextlib.suppress(ValueError):
            self._children.remove(child)
        with contextlib.suppress(ProcessLookupError):
            child.proc.kill()
        await child.proc.wait()

    async def close(self) -> None:
        """End every parse process: EOF on its stdin, then a kill for one that lingers."""
        children, self._children = self._children, []
        for child in children:
            if child.proc.stdin is not None:
                child.proc.stdin.close()
        for child in children:
            try:
                await asyncio.wait_for(child.proc.wait(), 5.0)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    child.proc.kill()
                await child.proc.wait()


def make_parser(workers: int, policy: QueryPolicy) -> PageParser:
    """The parser ``--workers`` asks for: in-process for 1, else a pool of that many."""
    if workers <= 1:
        return InlineParser(policy)
    return ProcessParser(workers, policy)
