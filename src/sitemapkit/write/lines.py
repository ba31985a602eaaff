"""Physical lines of a ``build`` input, read in blocks, with a cap on one line's length.

Iterating a binary file line by line costs a Python step per line and holds
a whole line in memory however long it is (a 1 GB line took 93 s and 3.2 GB).
:class:`Lines` reads fixed-size blocks instead and hands out *runs* of
complete lines as one ``bytes`` (the text reader decodes and splits a run in
one call), so time is linear in the input and memory is one block plus at
most one line under the cap.  A line longer than the cap is reported as
:class:`LongLine` as soon as the cap is passed; the rest of it is skipped
without being kept, and reading goes on at the next line break, so nothing
after it is lost.

Line breaks are ``\\n`` (a ``\\r`` before it is the line's to strip), the same
as iterating the file, so line numbers match what an editor shows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Final

from sitemapkit import limits

#: Bytes read at a time: large enough that the per-block work is noise.
BLOCK: Final = 1 << 20
_BOM: Final = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class LongLine:
    """Line ``number`` has more than ``cap`` bytes; none of it is kept."""

    number: int
    cap: int

    def message(self) -> str:
        return f"line longer than {self.cap:,} bytes; skipped up to its end"


#: What :meth:`Lines.runs` yields: ``(number of the first line, lines joined by \\n)``
#: (no trailing break), or a :class:`LongLine`.
Run = tuple[int, bytes] | LongLine


class Lines:
    """The lines of ``stream`` (after ``head``, bytes already read from it) as runs.

    ``on_block`` is called after each block is read (a progress bar).  A UTF-8
    byte order mark at the very start is dropped.
    """

    def __init__(
        self,
        stream: IO[bytes],
        head: bytes = b"",
        *,
        cap: int = limits.MAX_INPUT_LINE_BYTES,
        on_block: Callable[[], None] | None = None,
    ) -> None:
        self.stream = stream
        #: Bytes read so far (the head included).
        self.bytes_read = 0
        self._head = head
        self.cap = cap
        self._on_block = on_block

    def _blocks(self) -> Iterator[bytes]:
        first = True
        if self._head:
            self.bytes_read += len(self._head)
            yield self._head.removeprefix(_BOM)
            first = False
        read = self.stream.read
        while block := read(BLOCK):
            self.bytes_read += len(block)
            if first:
                block = block.removeprefix(_BOM)  # a BOM split over two reads is not a BOM
                first = False
            if self._on_block is not None:
                self._on_block()
            yield block

    def runs(self) -> Iterator[Run]:
        """Complete lines in order; an over-long line as :class:`LongLine` at its place."""
        cap = self.cap
        number = 1  # the number of the line `pending` starts
        pending = b""
        skipping = False  # inside a line already reported as too long
        for block in self._blocks():
            if skipping:
                cut = block.find(b"\n")
                if cut < 0:
                    continue
                block = block[cut + 1 :]
                number += 1
                skipping = False
            data = pending + block if pending else block
            last = data.rfind(b"\n")
            if last < 0:
                pending = data
            else:
                body, pending = data[:last], data[last + 1 :]
                yield from self._checked(number, body)
                number += body.count(b"\n") + 1
            if len(pending) > cap:
                yield LongLine(number, cap)
                pending = b""
                skipping = True
        if pending and not skipping:
            yield from self._checked(number, pending)

    def _checked(self, number: int, body: bytes) -> Iterator[Run]:
        """``body`` as runs, with any line over the cap split out as :class:`LongLine`."""
        cap = self.cap
        if len(body) <= cap:
            yield number, body
            return
        keep: list[bytes] = []
        first = number
        for offset, line in enumerate(body.split(b"\n")):
            if len(line) <= cap:
                keep.append(line)
                continue
            if keep:
                yield first, b"\n".join(keep)
                keep = []
            yield LongLine(number + offset, cap)
            first = number + offset + 1
        if keep:
            yield first, b"\n".join(keep)

    def lines(self) -> Iterator[tuple[int, bytes] | LongLine]:
        """One ``(number, line)`` per line (the slow, simple form, for CSV and JSON Lines)."""
        for run in self.runs():
            if isinstance(run, LongLine):
                yield run
                continue
            number, body = run
            for offset, line in enumerate(body.split(b"\n")):
                yield number + offset, line
