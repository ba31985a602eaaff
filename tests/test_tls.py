"""``trust_loads_deferred``: loads recorded inside, done before first use, ``ssl`` restored."""

from __future__ import annotations

import ssl

from sitemapkit.tls import TrustOnFirstUse, trust_loads_deferred


class _Own(ssl.SSLContext):
    """Someone's own context class: never swapped, its loads never deferred."""


def test_loads_are_recorded_then_done_before_use() -> None:
    with trust_loads_deferred():
        default = ssl.create_default_context()
        keyword = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        keyword.load_default_certs(purpose=ssl.Purpose.SERVER_AUTH)
        own = _Own(ssl.PROTOCOL_TLS_CLIENT)
        own.load_default_certs()
    assert isinstance(default, TrustOnFirstUse)
    assert default.trust_pending
    assert isinstance(keyword, TrustOnFirstUse)
    assert keyword.trust_pending
    assert type(own) is _Own
    fresh = ssl.create_default_context()  # outside the window: as ever
    assert type(fresh) is ssl.SSLContext
    assert "set_default_verify_paths" not in vars(ssl.SSLContext)
    expected = fresh.cert_store_stats()
    assert default.cert_store_stats() == expected  # reading the store loads it first
    assert not default.trust_pending
    assert keyword.get_ca_certs() == fresh.get_ca_certs()
    assert own.cert_store_stats() == expected
    assert (default.verify_mode, default.check_hostname) == (ssl.CERT_REQUIRED, True)
