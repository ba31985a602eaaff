"""The IndexNow protocol's rules, in one place (https://www.indexnow.org/documentation).

Pure functions and values, no I/O: the key format, where the key file lives, how
pending URLs are cut into requests (one host each, at most
:data:`~sitemapkit.limits.INDEXNOW_MAX_URLS` URLs), the JSON body, and what each
answer of an endpoint means.

Plain ``http`` is refused for the endpoint and the key file except on a loopback
host (``127.0.0.1``, ``::1``, ``localhost``): a test server or a local stand-in.
A real host is always asked over ``https``, as the protocol says.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from sitemapkit.addresses import address_class, ip_literal
from sitemapkit.limits import INDEXNOW_MAX_URLS
from sitemapkit.store.rows import IndexNowChange

#: The shared endpoint: it forwards every submission to all IndexNow search engines.
DEFAULT_ENDPOINT: Final = "https://api.indexnow.org/indexnow"
#: The body's content type, as the protocol writes it.
CONTENT_TYPE: Final = "application/json; charset=utf-8"
_KEY = re.compile(r"[A-Za-z0-9-]{8,128}")
#: What an endpoint's refusal means (the protocol's words, and what to do).
REFUSALS: Final = {
    400: "bad request: the endpoint could not read the submission",
    403: "forbidden: the key is not valid for this host (the endpoint did not find the key "
    "file, or it does not hold the key)",
    422: "unprocessable: a URL is not on the submitted host, or the key does not match the "
    "protocol's format",
}
#: Answers worth asking again after a pause (the 5xx range too).
RETRY_STATUSES: Final = frozenset({429})


def key_problem(key: str) -> str | None:
    """Why ``key`` is not an IndexNow key (8-128 of ``[A-Za-z0-9-]``), or None."""
    if _KEY.fullmatch(key):
        return None
    if not 8 <= len(key) <= 128:
        return f"is {len(key)} characters long; an IndexNow key has 8 to 128"
    bad = next(ch for ch in key if not (ch.isascii() and (ch.isalnum() or ch == "-")))
    return f"holds {bad!r}; an IndexNow key has only letters a-z, A-Z, digits and '-'"


def is_loopback_host(host: str) -> bool:
    """``localhost`` or a loopback IP literal: where plain http is allowed (tests)."""
    if host.lower() == "localhost":
        return True
    literal = ip_literal(host)
    return literal is not None and address_class(literal) == "loopback"


def transport_problem(url: str) -> str | None:
    """Why ``url`` may not be used as an endpoint or key location, or None."""
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return None
    if parts.scheme == "http" and parts.hostname and is_loopback_host(parts.hostname):
        return None
    if parts.scheme == "http":
        return "is plain http; IndexNow needs https (http only for a loopback test server)"
    return "is not an absolute https URL"


def default_key_location(origin: str, key: str) -> str:
    """``https://HOST/KEY.txt`` for the site at ``origin`` (its own scheme on loopback)."""
    parts = urlsplit(origin)
    scheme = parts.scheme if is_loopback_host(parts.hostname or "") else "https"
    return f"{scheme}://{parts.netloc}/{key}.txt"


def host_of(url: str) -> str:
    """The IndexNow ``host`` of a URL: its host name, lower case, without the port."""
    return (urlsplit(url).hostname or "").lower()


@dataclass(frozen=True, slots=True)
class Batch:
    """One IndexNow request: URLs of one host, at most the protocol's limit."""

    host: str
    #: ``scheme://netloc`` of the first URL: where the key file is by default.
    origin: str
    changes: tuple[IndexNowChange, ...]

    def counts(self) -> dict[str, int]:
        """URLs per change (``added``, ``changed``, ``removed``)."""
        out: dict[str, int] = {}
        for change in self.changes:
            out[change.change] = out.get(change.change, 0) + 1
        return out


def batches(changes: Iterable[IndexNowChange], limit: int = INDEXNOW_MAX_URLS) -> Iterator[Batch]:
    """Cut ``changes`` into requests of one host and at most ``limit`` URLs, hosts in order
    of first appearance (a full batch is yielded as soon as it is full)."""
    groups: dict[str, list[IndexNowChange]] = {}
    origins: dict[str, str] = {}
    for change in changes:
        host = host_of(change.url)
        group = groups.setdefault(host, [])
        if not group:
            parts = urlsplit(change.url)
            origins[host] = f"{parts.scheme}://{parts.netloc}"
        group.append(change)
        if len(group) >= limit:
            yield Batch(host, origins[host], tuple(group))
            group.clear()
    for host, group in groups.items():
        if group:
            yield Batch(host, origins[host], tuple(group))


def body(batch: Batch, key: str, key_location: str) -> bytes:
    """The request body: ``{host, key, keyLocation, urlList}`` as UTF-8 JSON."""
    payload = {
        "host": batch.host,
        "key": key,
        "keyLocation": key_location,
        "urlList": [change.url for change in batch.changes],
    }
    return json.dumps(payload, ensure_ascii=False).encode("utf-8")


def accepted(status: int) -> bool:
    """200 (submitted) and 202 (received, key validation pending) are success."""
    return status in (200, 202)


def retryable(status: int) -> bool:
    """429 (too many requests) and every 5xx: ask again after a pause."""
    return status in RETRY_STATUSES or 500 <= status < 600


def meaning(status: int) -> str:
    """What an endpoint's answer means, in words."""
    if status == 200:
        return "accepted"
    if status == 202:
        return "received; the key is still being validated"
    if status in REFUSALS:
        return REFUSALS[status]
    if status == 429:
        return "too many requests"
    if 500 <= status < 600:
        return "server error"
    return "unexpected answer"
