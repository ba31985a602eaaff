"""One parse process of ``crawl --workers N`` (:mod:`sitemapkit.crawl.parsepool`).

Reads framed requests ``(body, url, headers, policy)`` on stdin, answers
``("ok", PageFacts)`` on stdout, one page at a time, until stdin ends (the crawl
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

from multidict import CIMultiDict

from sitemapkit.crawl.extract import extract_page
from sitemapkit.crawl.heap import BIG_BODY, trim_heap

#: Message frame, both ways: a 4-byte big-endian length, then a pickle.
FRAME: Final = struct.Struct(">I")


def _read(stream: BinaryIO, size: int) -> bytes | None:
    data = stream.read(size)
    return data if len(data) == size else None


def serve(stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Answer requests until stdin ends."""
    while True:
        head = _read(stdin, FRAME.size)
        if head is None:
            return
        request = _read(stdin, FRAME.unpack(head)[0])
        if request is None:
            return
        body, url, headers, policy = pickle.loads(request)  # noqa: S301 - from our crawl
        try:
            answer: tuple[str, object] = (
                "ok",
                extract_page(body, url=url, headers=CIMultiDict(headers), policy=policy),
            )
        except Exception:  # noqa: BLE001 - reported to the crawl, which raises it
            answer = ("error", traceback.format_exc(limit=5))
        if len(body) >= BIG_BODY:
            del body, request
            trim_heap()
        data = pickle.dumps(answer, pickle.HIGHEST_PROTOCOL)
        stdout.write(FRAME.pack(len(data)) + data)
        stdout.flush()


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    serve(sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    main()
