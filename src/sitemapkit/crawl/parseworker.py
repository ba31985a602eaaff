"""One parse process of ``crawl --workers N`` (:mod:`sitemapkit.crawl.parsepool`).

Reads framed batches of pages on stdin and answers each batch with their
:class:`~sitemapkit.crawl.extract.PageFacts` on stdout, until stdin ends (the crawl
closed it, or died).  Ctrl-C goes to the whole process group: the crawl saves its
state and closes the pipes, so this process ignores SIGINT instead of dying first.
"""

from __future__ import annotations

import pickle
import signal
import struct
import sys
import traceback
from typing import BinaryIO, Final

from sitemapkit.crawl.extract import extract_page
from sitemapkit.crawl.headers import Headers
from sitemapkit.crawl.heap import trim_after

#: Message frame, both ways: a 4-byte big-endian length, then a pickle.
FRAME: Final = struct.Struct(">I")


def _read(stream: BinaryIO, size: int) -> bytes | None:
    data = stream.read(size)
    return data if len(data) == size else None


def serve(stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Answer batches until stdin ends: ``(policy, [(body, url, headers)...])`` in,
    ``[("ok", PageFacts) | ("error", traceback)...]`` out, in the same order."""
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
        for body, url, headers in pages:
            parsed += len(body)
            try:
                facts = extract_page(body, url=url, headers=Headers(headers), policy=policy)
                answers.append(("ok", facts))
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
    serve(sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    main()
