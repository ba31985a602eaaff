"""Column arrays for ``unnest``, spelled as PostgreSQL array literals (one text parameter).

Why: the store writes a page's links and new URLs as a few arrays unnested by one
statement.  Passed as Python lists, psycopg adapts them element by element in Python
(its list dumper looks up a dumper per element): 120 µs of client CPU for a page's 31
links, against 35 µs when each array is one string made by ``str.join`` (measured in
one pipeline of 2,000 such inserts).  At ~10,000 pages and two such statements a page,
that is about 1.5 s of a crawl's event loop.  The server parses the literal itself.

The quoting is PostgreSQL's array syntax: every text element double-quoted with ``"``
and ``\\`` escaped by a backslash, ``NULL`` unquoted for ``None``; numbers as they are.
Cast the parameter in SQL (``%s::text[]``, ``%s::bigint[]``).
"""

from __future__ import annotations

from collections.abc import Iterable


def int_array(values: Iterable[int]) -> str:
    """``{1,2,3}``: integers (no ``None``)."""
    return "{" + ",".join(map(str, values)) + "}"


def nullable_int_array(values: Iterable[int | None]) -> str:
    """``{1,NULL,3}``."""
    return "{" + ",".join("NULL" if v is None else str(v) for v in values) + "}"


def float_array(values: Iterable[float | None]) -> str:
    """``{1.5,NULL}``: each number as ``repr`` spells it (it reads back the same float)."""
    return "{" + ",".join("NULL" if v is None else repr(v) for v in values) + "}"


def _quoted(text: str) -> str:
    if "\\" in text or '"' in text:
        text = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + text + '"'


def text_array(values: Iterable[str | None]) -> str:
    """``{"a","b c",NULL}``: each text quoted (any character kept), ``None`` as ``NULL``."""
    return "{" + ",".join("NULL" if v is None else _quoted(v) for v in values) + "}"
