"""Response headers as the crawl keeps them: one small class, no asyncio, no multidict.

Used by the HTTP client (:mod:`sitemapkit.crawl.http1`) for every response and by the
parse processes (:mod:`sitemapkit.crawl.parseworker`) for the headers a page crossed the
pipe with, so neither imports aiohttp's multidict for a case-insensitive lookup.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterable, Iterator, Mapping
from typing import Any, Final

#: Header names seen before, and their lower-case form (checked once, not per response).
NAMES: dict[str, str] = {}
#: Names remembered at most (a hostile server may invent a new one per response).
NAMES_MAX: Final = 1024


class Headers(Mapping[str, str]):
    """A response's header lines: case-insensitive lookups, every line kept in order.

    ``get`` answers the first value of a name; ``items()`` and :meth:`getall` see
    every line (``X-Robots-Tag`` and ``Link`` may come several times).
    """

    __slots__ = ("_items", "first", "repeated")

    def __init__(self, items: Iterable[tuple[str, str]]) -> None:
        self._items = items if isinstance(items, list) else list(items)
        first: dict[str, str] = {}
        names = NAMES
        for name, value in self._items:
            low = names.get(name)
            if low is None:
                low = name.lower()
                if len(names) < NAMES_MAX:
                    names[name] = low
            if low not in first:
                first[low] = value
        #: The first value of each name, by its lower-case form (the hot path's lookup).
        self.first = first
        #: Some name came more than once (``getall`` is needed to see every value).
        self.repeated = len(first) != len(self._items)

    def __getitem__(self, key: str) -> str:
        return self.first[key.lower()]

    def get(self, key: str, default: Any = None) -> Any:
        return self.first.get(key.lower(), default)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key.lower() in self.first

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self._items)

    def __len__(self) -> int:
        return len(self._items)

    def items(self) -> ItemsView[str, str]:
        return _AllItems(self)

    def getall(self, key: str, default: list[str] | None = None) -> list[str]:
        """Every value of ``key``, in order (``default`` when there is none, as multidict)."""
        low = key.lower()
        if not self.repeated:  # each name once: its first value is its only one
            value = self.first.get(low)
            found = [] if value is None else [value]
        else:
            found = [value for name, value in self._items if name.lower() == low]
        if not found and default is not None:
            return default
        return found

    def __repr__(self) -> str:
        return f"Headers({self._items!r})"


class _AllItems(ItemsView[str, str]):
    """Every header line, duplicates included (a Mapping's default view keeps the first)."""

    _mapping: Headers

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self._mapping._items)
