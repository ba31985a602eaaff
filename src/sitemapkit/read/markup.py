"""The markup still open at the end of each piece of an XML stream, and how long it is.

Why: expat scans an unfinished token again on every feed, so one huge tag (a
60 MB attribute) or comment took a minute.  :class:`OpenMarkup` follows what is
open across pieces, respecting what may hide a ``>`` (quoted attribute values,
comments, CDATA sections, PIs), in a few C-speed searches per piece: only the
markup the piece leaves open is looked at, never each tag.  Text needs no cap
here (expat reports it piece by piece).
"""

from __future__ import annotations

import re
from typing import Final

#: openers of markup that ends with a fixed string, whatever it holds ('>' and quotes too)
_SPECIAL: Final = ((b"<!--", b"-->"), (b"<![CDATA[", b"]]>"), (b"<?", b"?>"))
_TAG_STOP: Final = re.compile(rb"[\"'>]")


class OpenMarkup:
    """Tracks the tag, comment, CDATA section or PI still open at the end of the data."""

    def __init__(self) -> None:
        self.closer = b""  # b"": nothing open; b">": a tag; else the end of a special
        self.quote = b""  # inside a tag: the quote of an attribute value still open
        self.size = 0  # bytes of the open markup so far
        self._carry = b""  # the last bytes of a special, to find a closer split in two

    def feed(self, data: bytes) -> int:
        """Bytes of the markup open at the end of ``data`` (0: none)."""
        pos = 0
        if self.closer:
            pos = self._resume(data)
            if pos < 0:
                self.size += len(data)
                return self.size
        self.closer, self.quote = b"", b""
        self._open_at_end(data, pos)
        return self.size

    def _resume(self, data: bytes) -> int:
        """Where the markup open from before ends in ``data``, or -1 (still open)."""
        if self.closer == b">":
            end = self._tag_end(data, 0)
        else:
            k = len(self._carry)
            joined = self._carry + data[: len(self.closer)]
            hit = joined.find(self.closer)
            if hit >= 0:
                end = hit + len(self.closer) - k
            else:
                at = data.find(self.closer)
                end = at + len(self.closer) if at >= 0 else -1
            self._carry = (self._carry + data)[-(len(self.closer) - 1) :]
        return end

    def _tag_end(self, data: bytes, pos: int) -> int:
        """After ``pos`` inside a tag: where the tag ends (quotes respected), or -1."""
        while True:
            if self.quote:
                q = data.find(self.quote, pos)
                if q < 0:
                    return -1
                self.quote, pos = b"", q + 1
            m = _TAG_STOP.search(data, pos)
            if m is None:
                return -1
            if m[0] == b">":
                return m.end()
            self.quote, pos = m[0], m.end()

    def _open_at_end(self, data: bytes, pos: int) -> None:
        """Find the markup that ``data[pos:]`` leaves open, looking only at its end."""
        n = len(data)
        last, spec = -1, (b"", b"")
        for byte in (b"!", b"?"):
            at = _last_opener(data, pos, byte)
            if at > last:
                found = next((o for o in _SPECIAL if data.startswith(o[0], at)), None)
                if found is not None:
                    last, spec = at, found
        after = pos
        if last >= 0:
            opener, closer = spec
            end = data.find(closer, last + len(opener))
            if end < 0:
                self.closer, self.size = closer, n - last
                self._carry = data[-(len(closer) - 1) :]
                return
            after = end + len(closer)
        lt = data.rfind(b"<", after)
        if lt < 0:
            self.size = 0
            return
        self.closer = b">"
        if self._tag_end(data, lt + 1) >= 0:
            self.closer, self.quote, self.size = b"", b"", 0
        else:
            self.size = n - lt


def _last_opener(data: bytes, start: int, byte: bytes, tries: int = 64) -> int:
    """Where the last ``<`` + ``byte`` of ``data[start:]`` is, or -1.

    ``bytes.rfind`` of a two-byte pattern scans slowly when ``<`` is everywhere (XML);
    of one byte it is ``memrchr``.  So the byte is found first and its ``<`` checked,
    for the few ``!``/``?`` a sitemap has; past ``tries`` of them the slow way.
    """
    end = len(data)
    for _ in range(tries):
        at = data.rfind(byte, start + 1, end)
        if at < 0:
            return -1
        if data[at - 1] == 0x3C:  # "<"
            return at - 1
        end = at
    return data.rfind(b"<" + byte, start)
