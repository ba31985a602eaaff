"""The reader's safety caps as CLI options, shared by ``urls`` and ``validate``.

Both commands read the same hostile input through the same walker, so they
take the same caps under the same names, defaults and help.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

import click

from sitemapkit import limits
from sitemapkit.read.source import FETCH_TIMEOUT, ReadLimits
from sitemapkit.read.walk import is_url

F = TypeVar("F", bound=Callable[..., Any])

_OPTIONS = (
    click.option(
        "--max-download-bytes",
        type=click.IntRange(1),
        default=limits.MAX_DOWNLOAD_BYTES,
        show_default=True,
        help="Cap on bytes downloaded per sitemap.",
    ),
    click.option(
        "--max-decompressed-bytes",
        type=click.IntRange(1),
        default=limits.MAX_DECOMPRESSED_BYTES,
        show_default=True,
        help="Cap on bytes after gunzip per sitemap (gzip bombs).",
    ),
    click.option(
        "--max-depth",
        type=click.IntRange(0),
        default=limits.MAX_INDEX_DEPTH,
        show_default=True,
        help="How deep indexes are followed.",
    ),
    click.option(
        "--max-sitemaps",
        type=click.IntRange(0),
        default=limits.MAX_SITEMAPS_FOLLOWED,
        show_default=True,
        help="How many sitemaps are followed in all.",
    ),
    click.option(
        "--timeout",
        type=click.FloatRange(0.1),
        default=FETCH_TIMEOUT,
        show_default=True,
        help="Seconds per sitemap request.",
    ),
    click.option(
        "--allow-other-hosts",
        is_flag=True,
        help="Follow index children on another host than the index (else loc-other-host).",
    ),
    click.option(
        "--allow-private-addresses",
        "allow_private",
        is_flag=True,
        help="Let a public start URL lead to loopback, link-local or private addresses.",
    ),
)


def read_limit_options(func: F) -> F:
    """Add the cap and fetch-rule options (in help order) to a click command function."""
    for option in reversed(_OPTIONS):
        func = option(func)
    return func


def read_limits(
    max_download_bytes: int,
    max_decompressed_bytes: int,
    max_depth: int,
    max_sitemaps: int,
    timeout: float,
    allow_other_hosts: bool = False,
    allow_private: bool = False,
) -> ReadLimits:
    """The :class:`ReadLimits` the options above describe."""
    return ReadLimits(
        max_download_bytes,
        max_decompressed_bytes,
        max_depth,
        max_sitemaps,
        timeout,
        allow_other_hosts=allow_other_hosts,
        allow_private=allow_private,
    )


def check_source(source: str) -> str:
    """The SOURCE of ``urls``/``validate`` to read; one that is not a URL, ``-`` or a file
    is a usage error.  A ``file:`` URI (``file:///srv/sitemap.xml``, what advertools and
    browsers hand out) is the local file it names."""
    if source[:5].lower() == "file:":
        parts = urlsplit(source)
        if parts.netloc in ("", "localhost"):
            source = unquote(parts.path)
    if not is_url(source) and source != "-" and not Path(source).is_file():
        raise click.UsageError(f"{source}: no such file (give a file, '-', or a URL)")
    return source
