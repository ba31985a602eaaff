"""The ``--db`` value every command takes: a SQLite path or a ``postgresql://`` URL.

Why a type of its own: ``click.Path`` would turn ``postgresql://host/db`` into the
path ``postgresql:/host/db`` (a path collapses ``//``), so a server store must stay
a string while a file stays a :class:`~pathlib.Path`; the store registry
(:func:`sitemapkit.store.open_store`) takes either.
"""

from __future__ import annotations

from pathlib import Path

import click

from sitemapkit.store.spec import is_pg_spec, shown

__all__ = ["DB_SPEC", "DbSpec", "DbSpecType", "is_local", "shown"]

#: What ``--db`` holds once parsed.
DbSpec = Path | str


def is_local(db: DbSpec) -> bool:
    """True for a store that is a file on this machine (SQLite)."""
    return isinstance(db, Path)


class DbSpecType(click.ParamType[DbSpec]):
    """``FILE`` (SQLite, the default) or ``postgresql://[user@]host[:port]/db[?schema=NAME]``."""

    name = "FILE|postgresql://..."

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> DbSpec:
        if isinstance(value, Path):
            return value
        text = str(value)
        if is_pg_spec(text):
            return text
        path = Path(text)
        if path.is_dir():
            self.fail(f"{text!r} is a directory, not a crawl store", param, ctx)
        return path


DB_SPEC = DbSpecType()
