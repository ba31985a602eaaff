"""Turn ``sqlite3`` failures into one line naming the store file, the act and the cause.

Why a module of its own: the crawl tables (:mod:`~sitemapkit.store.sqlite`) and the audit
tables (:mod:`~sitemapkit.store.sqlite_audit`, which the former imports) both guard their
methods this way, and one guard keeps the wording and the error classes from drifting.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Iterator
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from sitemapkit.errors import StoreError

_P = ParamSpec("_P")
_R = TypeVar("_R")
_T = TypeVar("_T")


class Named(Protocol):
    """A store that names its file in messages."""

    @property
    def name(self) -> str: ...


_S = TypeVar("_S", bound=Named)


def guard(
    what: str, error: type[StoreError]
) -> Callable[[Callable[Concatenate[_S, _P], _R]], Callable[Concatenate[_S, _P], _R]]:
    """A decorator: an ``sqlite3`` failure in the method is ``error("NAME: cannot WHAT: ...")``."""

    def decorate(method: Callable[Concatenate[_S, _P], _R]) -> Callable[Concatenate[_S, _P], _R]:
        @functools.wraps(method)
        def guarded(self: _S, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
            try:
                return method(self, *args, **kwargs)
            except sqlite3.Error as exc:
                raise error(f"{self.name}: cannot {what}: {exc}") from exc

        return guarded

    return decorate


def guard_stream(
    what: str, error: type[StoreError]
) -> Callable[
    [Callable[Concatenate[_S, _P], Iterator[_T]]], Callable[Concatenate[_S, _P], Iterator[_T]]
]:
    """:func:`guard` for a method that streams rows (the failure may come mid-stream)."""

    def decorate(
        method: Callable[Concatenate[_S, _P], Iterator[_T]],
    ) -> Callable[Concatenate[_S, _P], Iterator[_T]]:
        @functools.wraps(method)
        def guarded(self: _S, /, *args: _P.args, **kwargs: _P.kwargs) -> Iterator[_T]:
            try:
                yield from method(self, *args, **kwargs)
            except sqlite3.Error as exc:
                raise error(f"{self.name}: cannot {what}: {exc}") from exc

        return guarded

    return decorate
