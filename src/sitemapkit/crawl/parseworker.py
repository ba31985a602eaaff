"""One parse process of ``crawl --workers N`` (:mod:`sitemapkit.crawl.parsepool`).

Reads framed batches of pages on stdin and answers each batch with their
:class:`~sitemapkit.crawl.extract.PageFacts` on stdout, until stdin ends (the crawl
closed it, or died).  Ctrl-C goes to the whole process group: the crawl saves its
state and closes the pipes, so this process ignores SIGINT instead of dying first.

:func:`parse_page` is the one thing done to a page, here and in the crawl's own process
(``--workers 1``): the facts, and, while an ``--render auto`` crawl has not started its
browser, :func:`~sitemapkit.crawl.scripted.looks_scripted` on the raw bytes (a regular
expression over every page: 10% of the event loop's CPU when the loop ran it).
"""

from __future__ import annotations

import pickle
import signal
import struct
import sys
import traceback
from collections.abc import Mapping
from typing import BinaryIO, Final, NamedTuple

from sitemapkit.crawl.extract import PageFacts, extract_page
from sitemapkit.crawl.headers import Headers
from sitemapkit.crawl.heap import trim_after
from sitemapkit.crawl.scripted import looks_scripted
from sitemapkit.crawl.urlnorm import QueryPolicy

#: Message frame, both ways: a 4-byte big-endian length, then a pickle.
FRAME: Final = struct.Struct(">I")


class Parsed(NamedTuple):
    """A parsed page: its facts, and whether it looks built by scripts (if asked)."""

    facts: PageFacts
    #: :func:`looks_scripted`'s word, when the crawl asked for it (else None).
    scripted: bool | None = None


def parse_page(
    body: bytes,
    url: str,
    headers: Mapping[str, str],
    policy: QueryPolicy,
    judge_scripts: bool = False,
) -> Parsed:
    """The page's facts and, when ``judge_scripts``, whether it looks built by scripts."""
    facts = extract_page(body, url=url, headers=headers, policy=policy)
    if not judge_scripts:
        return Parsed(facts)
    ctype = next((v for k, v in headers.items() if k.lower() == "content-type"), None)
    return Parsed(facts, looks_scripted(body, facts, ctype))


def _read(stream: BinaryIO, size: int) -> bytes | None:
    data = stream.read(size)
    return data if len(data) == size else None


def serve(stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Answer batches until stdin ends: ``(policy, [(body, url, headers, judge)...])`` in,
    ``[("ok", (PageFacts, scripted)) | ("error", traceback)...]`` out, in the same order."""
    while True:
        head = _read(stdin, FRAME.size)
        if head is None:
            return
        request = _read(stdin, FRAME.unpack(head)[0])
        if request is None:
            return
        policy, pages = pickle.loads(request)  # noqa: S301 - from our own crawl
        del request
        answers: list[tuple[str, object]] = []
        parsed = 0
        for body, url, headers, judge in pages:
            parsed += len(body)
            try:
                page = parse_page(body, url, Headers(headers), policy, judge)
                answers.append(("ok", tuple(page)))
            except Exception:  # noqa: BLE001 - reported to the crawl, which raises it
                answers.append(("error", traceback.format_exc(limit=5)))
        del pages
        trim_after(parsed)  # the batch's trees are gone: give back what a big batch took
        data = pickle.dumps(answers, pickle.HIGHEST_PROTOCOL)
        stdout.write(FRAME.pack(len(data)))
        stdout.write(data)
        stdout.flush()


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    stdout = sys.stdout.buffer
    stdout.write(FRAME.pack(0))  # ready: the parser is imported (the crawl parsed meanwhile)
    stdout.flush()
    serve(sys.stdin.buffer, stdout)


if __name__ == "__main__":
    main()
