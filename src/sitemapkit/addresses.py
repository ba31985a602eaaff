"""Where a fetch may go: the address rule every reader of remote URLs calls.

Why: a sitemap, a redirect or an index child names any URL its author likes.
A public sitemap that points at ``http://localhost:8080/admin``, ``10.0.0.5`` or
the cloud metadata address ``169.254.169.254`` would make us fetch a private
page on the caller's network (and ``urls`` would print what it found).  The
rule: when the start URL is public, every URL reached from it (redirects and
index children included) must resolve to public addresses only, unless the
caller allows private ones.  A start URL that is itself private or loopback
(a local server, an intranet) was chosen by the user and may lead anywhere.

The rule is a pure function of address *classes* (:func:`may_reach`), so it is
tested without a public network; :class:`AddressGuard` resolves names and
applies it per request.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Final, Literal
from urllib.parse import urlsplit

#: What an address is: on the internet, or somewhere only this machine or network reaches.
AddressClass = Literal["public", "private", "loopback", "link-local", "unspecified"]

#: Resolves a host name to its IP addresses (the system resolver by default).
Resolve = Callable[[str], Awaitable[list[str]]]

_NOT_PUBLIC: Final = {
    "private": "a private network address",
    "loopback": "a loopback address (this machine)",
    "link-local": "a link-local address (cloud metadata lives here)",
    "unspecified": "an unspecified address",
}


def address_class(ip: str) -> AddressClass:
    """The class of one IP address (IPv4-mapped IPv6 judged as its IPv4)."""
    addr = ipaddress.ip_address(ip.split("%", 1)[0])
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    if addr.is_loopback:
        return "loopback"
    if addr.is_link_local:
        return "link-local"
    if addr.is_unspecified:
        return "unspecified"
    if addr.is_global and not addr.is_multicast:
        return "public"
    return "private"  # RFC 1918, ULA, CGNAT, reserved, multicast, documentation ranges


def may_reach(start: AddressClass, target: AddressClass, *, allow_private: bool = False) -> bool:
    """May a read that started at an address of class ``start`` fetch from ``target``?"""
    return allow_private or start != "public" or target == "public"


def refusal(host: str, target: AddressClass, ip: str) -> str:
    """The one message for a refused fetch."""
    return (
        f"not fetched: {host} is {_NOT_PUBLIC.get(target, target)} ({ip}) and the start URL "
        "is public (--allow-private-addresses to allow)"
    )


def ip_literal(host: str) -> str | None:
    """``host`` as an IP address when it is one (``[::1]`` -> ``::1``), else None."""
    bare = host.strip("[]")
    try:
        ipaddress.ip_address(bare.split("%", 1)[0])
    except ValueError:
        return None
    return bare


async def system_resolve(host: str) -> list[str]:
    """Every address the name ``host`` resolves to."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


@dataclass(slots=True)
class AddressGuard:
    """Applies :func:`may_reach` to each URL of one read.

    ``start`` is the class of the first URL's addresses; it is found on the first
    :meth:`check` unless given (tests pass ``"public"`` to act out a public start
    on 127.0.0.1).  A name that does not resolve is left to the fetch to report.
    """

    allow_private: bool = False
    start: AddressClass | None = None
    resolve: Resolve = system_resolve
    _seen: dict[str, tuple[AddressClass, str]] = field(default_factory=dict)

    async def _classify(self, host: str) -> tuple[AddressClass, str] | None:
        got = self._seen.get(host)
        if got is not None:
            return got
        literal = ip_literal(host)
        try:
            ips = [literal] if literal is not None else await self.resolve(host)
        except OSError:
            return None
        if not ips:
            return None
        classes = [(address_class(ip), ip) for ip in ips]
        # the worst address decides: one private answer is enough to be refused
        worst = next((c for c in classes if c[0] != "public"), classes[0])
        self._seen[host] = worst
        return worst

    async def check(self, url: str, *, start: bool = False) -> str | None:
        """None when ``url`` may be fetched, else the reason it may not.

        ``start``: the URL the user gave, always fetched; its class is the start's
        (unless one was given).
        """
        host = (urlsplit(url).hostname or "").lower()
        if not host:
            return None
        got = await self._classify(host)
        if got is None:
            return None
        if start or self.start is None:
            if self.start is None:
                self.start = got[0]
            if start:
                return None
        if may_reach(self.start, got[0], allow_private=self.allow_private):
            return None
        return refusal(host, got[0], got[1])
