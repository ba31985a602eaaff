"""Turn database failures into one line naming the store, the act and the cause.

Why a module of its own: every store guards its methods this way (the SQLite crawl,
audit and IndexNow tables, and the PostgreSQL store, whose :func:`pg_guard` adds a
reconnect), and one wording and one streaming guard keep the messages and the error
classes from drifting between them.
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


def cannot(store: Named, what: str, cause: object) -> str:
    """The one wording of a store failure: ``NAME: cannot WHAT: CAUSE``."""
    return f"{store.name}: cannot {what}: {cause}"


def _sqlite_error() -> type[Exception]:
    return sqlite3.Error


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
                raise error(cannot(self, what, exc)) from exc

        return guarded

    return decorate


def guard_stream(
    what: str,
    error: type[StoreError],
    *,
    caught: Callable[[], type[Exception]] = _sqlite_error,
    cause: Callable[[BaseException], object] = str,
) -> Callable[
    [Callable[Concatenate[_S, _P], Iterator[_T]]], Callable[Concatenate[_S, _P], Iterator[_T]]
]:
    """:func:`guard` for a method that streams rows (the failure may come mid-stream).

    ``caught`` names the driver's error class when one is raised (so a driver that is
    imported lazily is not imported here) and ``cause`` words it; the defaults are
    ``sqlite3``'s.  No retry: once rows were given, a second try would repeat them.
    """

    def decorate(
        method: Callable[Concatenate[_S, _P], Iterator[_T]],
    ) -> Callable[Concatenate[_S, _P], Iterator[_T]]:
        @functools.wraps(method)
        def guarded(self: _S, /, *args: _P.args, **kwargs: _P.kwargs) -> Iterator[_T]:
            try:
                yield from method(self, *args, **kwargs)
            except caught() as exc:
                raise error(cannot(self, what, cause(exc))) from exc

        return guarded

    return decorate
