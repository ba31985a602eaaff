"""The one robots.txt ``Sitemap:`` parser, for the reader, the validator and the crawler.

Why one: the reader resolved a relative ``Sitemap:`` value against robots.txt
while the crawler dropped it, and they capped the body at 512 and 500 KiB.  A
site's sitemaps must be the same whichever command asks.  The rules here:

* the first :data:`~sitemapkit.limits.MAX_ROBOTS_BYTES` are read (RFC 9309 2.5,
  Google's 500 KiB), a UTF-8 BOM removed, a UTF-16 file with its BOM read as UTF-8,
  comments cut at ``#``;
* ``Sitemap:`` (any case, ``Site-map:`` too) lines give URLs in file order, each once;
* a relative value is ``robots-sitemap-relative`` (an error, [SM] wants full URLs)
  and is still read, resolved against robots.txt as scrapy and browsers resolve it;
* a value with another scheme (``ftp:``) is ``robots-sitemap-relative`` and not read;
* a line that is not UTF-8 is ``encoding-not-utf8`` and not read: a URL guessed from
  replacement characters would only fetch a page that does not exist.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from sitemapkit.limits import MAX_ROBOTS_BYTES
from sitemapkit.model import Finding, Severity

_KEYS = (b"sitemap", b"site-map")


@dataclass(frozen=True, slots=True)
class RobotsSitemaps:
    """The sitemaps a robots.txt names: URLs to read, and what was wrong on the way."""

    #: absolute URLs in file order, each once (relative values resolved)
    urls: tuple[str, ...] = ()
    #: one finding per line that is not a full http(s) URL, or not UTF-8
    findings: tuple[Finding, ...] = ()
    #: the values as written that drew a finding (the crawler reports them)
    invalid: tuple[str, ...] = field(default=())
    #: the body was longer than the cap and only its start was read
    truncated: bool = False


def capped(body: bytes) -> tuple[bytes, bool]:
    """The part of a robots.txt body that is read (cut at a line end), and whether it was cut.

    A file saved as UTF-16 with its byte order mark (Windows editors do) is read as the
    UTF-8 it means: RFC 9309 asks for UTF-8, but read as UTF-8 such a file is noise and
    every rule of the site would be lost (crawler-commons reads it too).
    """
    for bom, codec in ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if body.startswith(bom):
            body = body[len(bom) :].decode(codec, "replace").encode("utf-8")
            break
    if len(body) <= MAX_ROBOTS_BYTES:
        return body, False
    cut = body.rfind(b"\n", 0, MAX_ROBOTS_BYTES)
    return body[: cut if cut > 0 else MAX_ROBOTS_BYTES], True


def parse_robots_sitemaps(body: bytes, robots_url: str) -> RobotsSitemaps:
    """The ``Sitemap:`` URLs of a robots.txt ``body`` (bytes as served) at ``robots_url``."""
    body, truncated = capped(body)
    body = body.removeprefix(b"\xef\xbb\xbf")
    urls: list[str] = []
    findings: list[Finding] = []
    invalid: list[str] = []

    def bad(code: str, message: str, lineno: int, value: str) -> None:
        findings.append(Finding(code, Severity.ERROR, message, robots_url, lineno, 1, url=value))
        invalid.append(value)

    for lineno, raw in enumerate(body.splitlines(), start=1):
        key, sep, rest = raw.split(b"#", 1)[0].partition(b":")
        if not sep or key.strip().lower() not in _KEYS:
            continue
        try:
            value = rest.strip().decode("utf-8")
        except UnicodeDecodeError:
            shown = rest.strip().decode("utf-8", "replace")
            bad(
                "encoding-not-utf8",
                f'Sitemap: value "{shown}" is not UTF-8; not read',
                lineno,
                shown,
            )
            continue
        if not value:
            continue
        parts = urlsplit(value)
        scheme = parts.scheme.lower()
        if scheme in ("http", "https") and parts.netloc:
            url = value
        elif scheme and scheme not in ("http", "https"):
            bad(
                "robots-sitemap-relative",
                f'Sitemap: value "{value}" is not an http(s) URL; not read',
                lineno,
                value,
            )
            continue
        else:
            bad(
                "robots-sitemap-relative",
                f'Sitemap: value "{value}" is not a full URL',
                lineno,
                value,
            )
            url = urljoin(robots_url, value)
        if url not in urls:
            urls.append(url)
    return RobotsSitemaps(tuple(urls), tuple(findings), tuple(invalid), truncated)
