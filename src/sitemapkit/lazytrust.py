"""Load the system's CA certificates before the first TLS connection, not at start-up.

aiohttp builds two SSL contexts while ``aiohttp.connector`` is imported, and each
reads and parses the whole system CA bundle (``set_default_verify_paths``): 0.47 G
instructions under callgrind, 29 % of a whole one-page crawl, paid by every command
that imports aiohttp, even one that only ever speaks plain http.  aiohttp has no
switch for it (3.14: ``_SSL_CONTEXT_VERIFIED`` is made by the module body).

:func:`install` (the CLI calls it first thing) puts a finder on ``sys.meta_path``
that finds ``aiohttp.connector`` as the path finder does and runs its body inside
:func:`sitemapkit.tls.trust_loads_deferred`: the two contexts load their CA
certificates just before their first TLS handshake, so an https crawl verifies
exactly as before and a plain-http one never reads the bundle.  A program that
imported aiohttp before (a library user, the test suite) is not affected.  This
module does not import ``ssl`` itself: ``--help`` does not need it.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType

#: The module whose body builds the contexts.
TARGET = "aiohttp.connector"


class _ConnectorFinder:
    """Finds :data:`TARGET` as the normal path finder does, with its body run deferred
    (a meta path finder needs only ``find_spec``; ``importlib.abc`` costs an import)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != TARGET:
            return None
        uninstall()
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.loader is None:
            return spec
        run_body = spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            from sitemapkit.tls import trust_loads_deferred

            with trust_loads_deferred():
                run_body(module)

        setattr(spec.loader, "exec_module", exec_module)  # noqa: B010 - this loader only
        return spec


_FINDER = _ConnectorFinder()


def install() -> bool:
    """Defer the CA loads of aiohttp's default contexts; False when it is too late."""
    if TARGET in sys.modules:
        return False
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    return True


def uninstall() -> None:
    """Take the finder off ``sys.meta_path`` (it removes itself once it has run)."""
    with contextlib.suppress(ValueError):
        sys.meta_path.remove(_FINDER)
