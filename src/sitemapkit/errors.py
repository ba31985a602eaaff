"""One exception tree for the whole package.

Bad *caller* input raises; bad *remote* data (a broken sitemap on someone's
website) becomes a :class:`~sitemapkit.model.Finding` instead.  Every message
names the value, the file or URL, and the rule or limit that was hit, so the
CLI can print it as one line.

::

    SitemapkitError
    ├── InputError            a value the caller gave is not acceptable
    │   └── EntryError        one sitemap entry is invalid (carries source:line)
    ├── LimitError            a protocol or safety limit would be crossed
    ├── PublishError          the output set could not be written or renamed
    ├── FetchError            a URL could not be fetched (network, status, size)
    └── StoreError            the crawl store is unusable (schema, lock, corrupt)
        ├── StoreRefusedError the store cannot be used now or by this version (exit 1)
        │   ├── StoreBusyError        another process holds the store (one writer per run)
        │   ├── StoreVersionError     a newer sitemapkit wrote it
        │   └── StoreUnreachableError its server did not answer (retried with backoff)
        └── StoreWriteError   a write failed mid-run (disk full, I/O); last commit intact
"""

from __future__ import annotations


class SitemapkitError(Exception):
    """Base of every error sitemapkit raises on purpose."""


class InputError(SitemapkitError, ValueError):
    """A value given by the caller breaks a rule; ``rule`` is a RULES.md code when one fits."""

    def __init__(self, message: str, *, rule: str | None = None, value: object = None) -> None:
        super().__init__(message)
        self.rule = rule
        self.value = value


class EntryError(InputError):
    """One input entry is invalid; ``location()`` renders ``FILE:LINE`` for the CLI."""

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        rule: str | None = None,
        value: object = None,
    ) -> None:
        super().__init__(message, rule=rule, value=value)
        self.source = source
        self.line = line

    def location(self) -> str:
        if self.source is None:
            return ""
        return f"{self.source}:{self.line}" if self.line is not None else self.source

    def __str__(self) -> str:
        loc = self.location()
        msg = super().__str__()
        return f"{loc}: {msg}" if loc else msg


class LimitError(SitemapkitError):
    """A limit (protocol or safety) would be crossed; ``limit`` names it."""

    def __init__(self, message: str, *, limit: str) -> None:
        super().__init__(message)
        self.limit = limit


class EmptySetError(LimitError):
    """Nothing to list: no sitemap is published, because an empty ``<urlset>`` fails the
    sitemaps.org schema (``url`` has ``minOccurs="1"``; RULES.md ``urlset-empty``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, limit="urlset-empty")


class PublishError(SitemapkitError, OSError):
    """Writing or renaming the output set failed; nothing half-written is left in place."""


class FetchError(SitemapkitError):
    """A URL could not be fetched; ``url`` and ``reason`` say which and why."""

    def __init__(self, message: str, *, url: str, reason: str) -> None:
        super().__init__(message)
        self.url = url
        self.reason = reason


class StoreError(SitemapkitError):
    """The crawl store cannot be used as asked."""


class StoreRefusedError(StoreError):
    """The store named is one this process cannot use now, or by this version.

    Nothing the command line got wrong, so the commands say it in one line (exit 1),
    never as a usage error: those printed ``Usage: ... Try --help`` and exit 2 for a
    schema written by a newer sitemapkit or a server that did not answer.
    """


class StoreBusyError(StoreRefusedError):
    """Another process is crawling into this store; nothing was touched."""


class StoreVersionError(StoreRefusedError):
    """A newer sitemapkit wrote the store's schema: refused, untouched."""

    @classmethod
    def newer(cls, name: str, current: int, supported: int) -> StoreVersionError:
        """The one line for a schema ``current`` past this sitemapkit's ``supported``."""
        return cls(
            f"{name}: crawl database schema {current} is newer than this sitemapkit "
            f"({supported}); upgrade sitemapkit"
        )


class StoreUnreachableError(StoreRefusedError):
    """The store's server did not answer, tries with backoff included."""


class StoreWriteError(StoreError):
    """The store failed while a crawl wrote to it (disk full, I/O error, lost connection).

    The writes since the last commit are lost; everything committed stays, so
    the crawl can be resumed once the cause is fixed.
    """
