"""SSL contexts whose CA certificates are loaded just before their first connection.

Used by :mod:`sitemapkit.lazytrust` for aiohttp's two default contexts, which
aiohttp builds (and fills from the system CA bundle, 0.47 G instructions) when
``aiohttp.connector`` is imported.  Inside :func:`trust_loads_deferred`, a plain
``ssl.SSLContext`` records the trust-store loads asked of it instead of doing them
and becomes a :class:`TrustOnFirstUse`, which does them, with the arguments they
were asked with, before its first TLS handshake or when its CA list is read: the
same context, options and default verify paths, so certificates are checked exactly
as before.  Outside the window ``ssl`` is untouched.
"""

from __future__ import annotations

import contextlib
import ssl
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

#: The ``ssl.SSLContext`` methods that load a trust store (both read the CA bundle).
_LOADS = ("load_default_certs", "set_default_verify_paths")
#: Where a context keeps the loads it was asked for and has not done yet.
_PENDING = "_sitemapkit_pending_trust"
_LOCK = threading.Lock()
#: A load asked for: the method's name and its arguments.
Call = tuple[str, tuple[Any, ...], dict[str, Any]]
_ORIGINAL: dict[str, Callable[..., None]] = {name: getattr(ssl.SSLContext, name) for name in _LOADS}


class TrustOnFirstUse(ssl.SSLContext):
    """A client context whose trust-store loads run before its first connection."""

    def load_pending_trust(self) -> None:
        """Do the loads this context was asked for (once; later calls do nothing)."""
        with _LOCK:
            pending: Sequence[Call] = self.__dict__.pop(_PENDING, ())
            for name, args, kwargs in pending:
                _ORIGINAL[name](self, *args, **kwargs)

    @property
    def trust_pending(self) -> bool:
        """Whether the CA certificates are still to be loaded."""
        return _PENDING in self.__dict__

    def wrap_socket(self, *args: Any, **kwargs: Any) -> ssl.SSLSocket:
        self.load_pending_trust()
        return super().wrap_socket(*args, **kwargs)

    def wrap_bio(self, *args: Any, **kwargs: Any) -> ssl.SSLObject:
        self.load_pending_trust()  # asyncio's TLS (aiohttp's https) comes through here
        return super().wrap_bio(*args, **kwargs)

    def get_ca_certs(self, binary_form: bool = False) -> Any:
        self.load_pending_trust()
        return super().get_ca_certs(binary_form)

    def cert_store_stats(self) -> dict[str, int]:
        self.load_pending_trust()
        return super().cert_store_stats()


def _deferring(name: str) -> Callable[..., None]:
    """A stand-in for the load ``name`` that records it on a plain ``SSLContext``."""

    def load_later(context: ssl.SSLContext, *args: Any, **kwargs: Any) -> None:
        if type(context) not in (ssl.SSLContext, TrustOnFirstUse):
            _ORIGINAL[name](context, *args, **kwargs)  # someone's own subclass: leave it alone
            return
        context.__dict__.setdefault(_PENDING, []).append((name, args, kwargs))
        context.__class__ = TrustOnFirstUse

    return load_later


@contextlib.contextmanager
def trust_loads_deferred() -> Iterator[None]:
    """While inside, ``SSLContext`` trust-store loads are recorded, not done."""
    cls = ssl.SSLContext
    own = {name: cls.__dict__[name] for name in _LOADS if name in cls.__dict__}
    for name in _LOADS:
        setattr(cls, name, _deferring(name))
    try:
        yield
    finally:
        for name in _LOADS:
            if name in own:
                setattr(cls, name, own[name])
            else:
                delattr(cls, name)  # inherited from _ssl._SSLContext again


_CLIENT: list[ssl.SSLContext] = []


def client_context() -> ssl.SSLContext:
    """The verifying client context of the crawl's HTTP client, one per process.

    :func:`ssl.create_default_context`: the system CA bundle, ``CERT_REQUIRED`` and the
    hostname check, as aiohttp's default.  Made on the first ``https`` connection, so a
    plain-http crawl never reads the bundle (0.47 G instructions).
    """
    with _LOCK:
        if not _CLIENT:
            _CLIENT.append(ssl.create_default_context())
        return _CLIENT[0]
