"""Where sitemap bytes come from, and the caps that keep hostile ones harmless.

Why a module of its own: files, stdin and HTTP bodies all end in the same
:class:`Decoder` (gzip by magic bytes, whatever the name or headers say, with
a cap on decompressed bytes) so a gzip bomb or a zip posing as ``.gz`` is
caught in one place.  The network seam is :func:`fetch_chunks`: it receives
the caller's ``aiohttp.ClientSession`` and streams the body under a byte cap
and a timeout.  aiohttp is imported only when a URL is actually read, so
reading local files stays quick to start.
"""

from __future__ import annotations

import sys
import zlib
from collections.abc import AsyncGenerator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from sitemapkit import limits
from sitemapkit.addresses import AddressClass, AddressGuard
from sitemapkit.agent import USER_AGENT

if TYPE_CHECKING:
    import aiohttp

#: Seconds allowed for one sitemap request, from connect to the last body byte.
FETCH_TIMEOUT: Final = 60.0
#: Bytes read per chunk from a file or a response body.
CHUNK_BYTES: Final = 256 * 1024

#: Largest piece of inflated bytes handed on at once (bounds memory under a gzip bomb).
PIECE_BYTES: Final = 1 << 20

_GZIP_MAGIC: Final = b"\x1f\x8b"
_ZIP_MAGIC: Final = b"PK\x03\x04"


@dataclass(frozen=True, slots=True)
class ReadLimits:
    """The safety caps one read runs under; each hit is reported under its ``limit-*`` code."""

    max_download_bytes: int = limits.MAX_DOWNLOAD_BYTES
    max_decompressed_bytes: int = limits.MAX_DECOMPRESSED_BYTES
    max_index_depth: int = limits.MAX_INDEX_DEPTH
    max_sitemaps: int = limits.MAX_SITEMAPS_FOLLOWED
    timeout: float = FETCH_TIMEOUT
    #: follow index children on another origin than the index (else ``loc-other-host``)
    allow_other_hosts: bool = False
    #: let a public start lead to private, loopback or link-local addresses
    allow_private: bool = False
    #: the class of the start URL's address; None: resolved from the first URL read
    start_class: AddressClass | None = None

    def guard(self) -> AddressGuard:
        """The address rule for one read under these settings."""
        return AddressGuard(allow_private=self.allow_private, start=self.start_class)


#: Short alias used inside the package.
Limits = ReadLimits


class SourceProblem(Exception):  # noqa: N818 - carries a finding, not a programming error
    """Reading a source failed or was stopped: ``code`` is a RULES.md or ``limit-*`` code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Decoder:
    """Turns raw bytes into document bytes: sniffs gzip/zip, inflates under a cap.

    Multi-member gzip files are followed member by member; a stream that ends
    inside a member is ``gzip-invalid`` (truncated), not silently short.
    """

    def __init__(self, max_decompressed: int, *, name: str = "") -> None:
        self.max = max_decompressed
        self.name = name
        self.gzip: bool | None = None
        self.out_bytes = 0
        self._head = b""
        self._z: zlib._Decompress | None = None
        self._members_done = 0
        self._first_out = True

    def feed(self, data: bytes) -> Iterator[bytes]:
        """Document bytes for ``data``, in pieces of at most :data:`PIECE_BYTES`."""
        if self.gzip is None:
            self._head += data
            if len(self._head) < 4:
                return
            data, self._head = self._head, b""
            if data.startswith(_ZIP_MAGIC):
                raise SourceProblem(
                    "gzip-invalid", "is a zip archive, not gzip (sitemaps may only be gzipped)"
                )
            self.gzip = data.startswith(_GZIP_MAGIC)
            if self.gzip:
                self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        if not self.gzip:
            room = self.max - self.out_bytes
            if len(data) > room > 0:
                yield self._count(data[:room])  # what fits is still read
            yield self._count(data)
            return
        yield from self._inflate(data)

    def _count(self, data: bytes) -> bytes:
        self.out_bytes += len(data)
        if self.out_bytes > self.max:
            raise SourceProblem(
                "limit-decompressed-bytes",
                f"more than {self.max:,} bytes of content (limit max-decompressed-bytes)",
            )
        return data

    def _inflate(self, data: bytes) -> Iterator[bytes]:
        # Output is taken in bounded pieces: one 256 KiB chunk of a bomb inflates to
        # hundreds of MB, which must never exist at once.
        while data:
            z = self._z
            if z is None or z.eof:
                if not data.strip(b"\x00"):
                    break  # zero padding after the last member is tolerated
                if not data.startswith(_GZIP_MAGIC[:1]) or (
                    len(data) > 1 and not data.startswith(_GZIP_MAGIC)
                ):
                    raise SourceProblem("gzip-invalid", "has trailing bytes that are not gzip")
                self._members_done += 1
                z = self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
            room = self.max - self.out_bytes + 1
            try:
                chunk = z.decompress(data, max(1, min(room, PIECE_BYTES)))
            except zlib.error as exc:
                raise SourceProblem("gzip-invalid", f"does not decompress: {exc}") from None
            if chunk:
                if self._first_out:
                    self._first_out = False
                    _refuse_nested(chunk)
                yield self._count(chunk)
            data = z.unconsumed_tail or z.unused_data
            if z.unconsumed_tail:
                continue
            if not z.eof:
                break

    def finish(self) -> bytes:
        """Flush; raise ``gzip-invalid`` when the stream stopped inside a member."""
        if self.gzip is None:
            data, self._head = self._head, b""
            if data.startswith(_GZIP_MAGIC):
                raise SourceProblem("gzip-invalid", "is truncated (ends inside the gzip header)")
            self.gzip = False
            return self._count(data)
        if self.gzip and self._z is not None and not self._z.eof:
            raise SourceProblem("gzip-invalid", "is truncated (the gzip stream ends early)")
        return b""


def _refuse_nested(first: bytes) -> None:
    """A gzip whose content is gzip again (compressed twice) is named, not read as text."""
    if first.startswith(_GZIP_MAGIC):
        raise SourceProblem(
            "gzip-invalid",
            "is gzip inside gzip (compressed twice); a sitemap may be gzipped only once",
        )
    if first.startswith(_ZIP_MAGIC):
        raise SourceProblem("gzip-invalid", "is a zip archive inside gzip, not a sitemap")


def iter_file_chunks(path: str) -> Iterator[bytes]:
    """Raw chunks of a local file, or of stdin for ``-``; ``OSError`` passes up."""
    if path == "-":
        stream = sys.stdin.buffer
        while chunk := stream.read(CHUNK_BYTES):
            yield chunk
        return
    with Path(path).open("rb") as fh:
        while chunk := fh.read(CHUNK_BYTES):
            yield chunk


@dataclass(slots=True)
class FetchInfo:
    """What the response said: the final URL after redirects, status and headers we use."""

    url: str
    final_url: str = ""
    status: int = 0
    content_type: str = ""
    content_encoding: str = ""


_REDIRECTS: Final = frozenset({301, 302, 303, 307, 308})


async def fetch_chunks(
    session: aiohttp.ClientSession,
    url: str,
    lim: ReadLimits,
    info: FetchInfo,
    guard: AddressGuard | None = None,
    *,
    start: bool = False,
) -> AsyncGenerator[bytes, None]:
    """Stream the body of ``url`` through ``session``; raise :class:`SourceProblem` on failure.

    Redirects are followed here, hop by hop, up to :data:`limits.MAX_REDIRECTS`, so that
    ``guard`` (the address rule) judges every hop before it is requested; ``start`` marks
    the URL the user gave (always allowed: it sets the start's address class).  A body
    over ``lim.max_download_bytes`` stops with ``limit-download-bytes``.
    """
    import asyncio
    from urllib.parse import urljoin

    import aiohttp

    timeout = aiohttp.ClientTimeout(total=lim.timeout)
    current = url
    try:
        for hop in range(limits.MAX_REDIRECTS + 1):
            if guard is not None:
                refused = await guard.check(current, start=start and hop == 0)
                if refused is not None:
                    raise SourceProblem("fetch-refused", refused)
            async with session.get(
                current,
                timeout=timeout,
                allow_redirects=False,
                headers={"User-Agent": USER_AGENT},
            ) as resp:
                location = resp.headers.get("Location")
                if resp.status in _REDIRECTS and location:
                    current = urljoin(str(resp.url), location)
                    continue
                info.final_url = str(resp.url)
                info.status = resp.status
                info.content_type = resp.headers.get("Content-Type", "")
                info.content_encoding = resp.headers.get("Content-Encoding", "")
                async for chunk in _body(resp, lim):
                    yield chunk
                return
        raise SourceProblem("fetch-failed", f"more than {limits.MAX_REDIRECTS} redirects")
    except TimeoutError:
        raise SourceProblem(
            "limit-timeout", f"timed out after {lim.timeout:g} s (limit timeout)"
        ) from None
    except aiohttp.ClientResponseError as exc:
        raise SourceProblem("fetch-failed", f"bad response: {exc.message}") from None
    except (aiohttp.ClientError, asyncio.CancelledError) as exc:
        if isinstance(exc, asyncio.CancelledError):
            raise
        raise SourceProblem("fetch-failed", f"could not be fetched: {exc}") from None
    except (ValueError, OSError) as exc:
        raise SourceProblem("fetch-failed", f"could not be fetched: {exc}") from None


async def _body(resp: aiohttp.ClientResponse, lim: ReadLimits) -> AsyncGenerator[bytes, None]:
    """The body of a final (non-redirect) response, under the download cap."""
    if resp.status != 200:
        raise SourceProblem(f"http-{resp.status}", f"answered HTTP {resp.status}")
    declared = resp.content_length
    if declared is not None and declared > lim.max_download_bytes:
        raise SourceProblem(
            "limit-download-bytes",
            f"declares {declared:,} bytes, over {lim.max_download_bytes:,} "
            "(limit max-download-bytes)",
        )
    got = 0
    async for chunk in resp.content.iter_chunked(CHUNK_BYTES):
        got += len(chunk)
        if got > lim.max_download_bytes:
            raise SourceProblem(
                "limit-download-bytes",
                f"sent more than {lim.max_download_bytes:,} bytes (limit max-download-bytes)",
            )
        yield chunk
