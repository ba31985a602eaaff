"""The Map view's page per site, built again only when the site's store changed.

Why: the page of a 100,000-page crawl takes seconds to make (read the store,
build the tree, encode the payload) and the Map view asks for it on every
visit; the browser's own part is about half a second.  The key is the store's
stamp (:func:`~sitemapkit.app.pages.store_stamp`, the Pages cache's key), so a
crawl, a resume or an audit writing the store makes the next visit build anew.
One page per site is kept (a few MB for 100,000 pages).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from sitemapkit.app.pages import store_stamp


class MapCache:
    """``get(db, build)``: the cached text for ``db``, or ``build()``'s when the store moved."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._building: dict[Path, threading.Lock] = {}
        self._pages: dict[Path, tuple[tuple[int, ...], str]] = {}

    def peek(self, db: Path) -> str | None:
        """The page :meth:`get` would return without building, or ``None``."""
        stamp = store_stamp(db)
        with self._lock:
            hit = self._pages.get(db)
        return hit[1] if hit is not None and hit[0] == stamp else None

    def get(self, db: Path, build: Callable[[], str]) -> str:
        """In a worker thread: ``build`` may read the store for seconds.  Asked twice at
        once (the build behind a first screen, a tab that wants the whole map), it builds once.
        """
        text = self.peek(db)
        if text is not None:
            return text
        with self._lock:
            building = self._building.setdefault(db, threading.Lock())
        with building:
            text = self.peek(db)
            if text is None:
                stamp = store_stamp(db)
                text = build()
                with self._lock:
                    self._pages[db] = (stamp, text)
        return text
