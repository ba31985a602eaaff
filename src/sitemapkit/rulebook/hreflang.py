"""hreflang rules: one code, one page's alternates, and the set's reciprocity ([GHL]).

The writer applies them before it publishes and the validator after it reads, with the
same functions, so what one writes the other accepts.  A page's alternates are kept as
:data:`Pairs`: ``(code in lower case, href)`` sorted, the valid links only.

What the set cannot tell: an alternate on another host that has no entry in this set
(``https://example.jp/`` listed by pages of ``https://example.com/``) is allowed by Google
and may well list the page back from that host's own sitemap.  Reciprocity is then *not
checked* for it, never an error; :func:`reciprocity` names it so a report can say so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from urllib.parse import urlsplit

from sitemapkit.rulebook import Problem
from sitemapkit.rulebook.langcodes import hreflang_problem

#: A page's valid alternates: ``(code.lower(), href)`` pairs, sorted.
Pairs = tuple[tuple[str, str], ...]

NOT_RECIPROCAL = "hreflang-not-reciprocal"


def code_problem(code: str) -> Problem | None:
    """``hreflang-code`` unless ``code`` is x-default or language[-Script][-REGION] by ISO."""
    why = hreflang_problem(code)
    if why is None:
        return None
    return "hreflang-code", f'hreflang "{code}": {why}'


def conflict_problem(code: str, first: str, href: str) -> Problem | None:
    """``hreflang-conflict`` when ``code`` already points at ``first`` and now at ``href``."""
    if first == href:
        return None
    return "hreflang-conflict", f'hreflang "{code}" points at both "{first}" and "{href}"'


def no_self_problem(page: str, hrefs: set[str] | frozenset[str]) -> Problem | None:
    """``hreflang-no-self`` when a page has alternates and none of them is the page."""
    if not hrefs or page in hrefs:
        return None
    return "hreflang-no-self", f'the page "{page[:200]}" is not among its own alternates'


def _host(url: str) -> str | None:
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


def reciprocity(
    page: str, pairs: Pairs, lookup: Callable[[str], Pairs | None]
) -> tuple[Problem | None, str | None]:
    """Whether ``page``'s alternates list it back: ``(problem, first unchecked href)``.

    ``lookup(href)`` gives the alternates of another page of the set (``None`` when it
    has none there).  Every alternate must carry the very same set.  An alternate on
    another host that the set does not hold cannot be checked here: it is returned as
    unchecked, not as a problem.
    """
    unchecked: str | None = None
    for code, href in pairs:
        if href == page:
            continue
        other = lookup(href)
        if other is None:
            if _host(href) != _host(page):
                unchecked = unchecked or href
                continue
            msg = (
                f'lists "{href}" ({code}) which has no hreflang entry in this set, '
                "so it cannot list this page back"
            )
        elif other != pairs:
            if all(h != page for _, h in other):
                msg = f'lists "{href}" ({code}) but that page does not list it back'
            else:
                msg = f'and its alternate "{href}" ({code}) list different sets'
        else:
            continue
        return (NOT_RECIPROCAL, f'"{page[:200]}" {msg}'), unchecked
    return None, unchecked


def set_failures(pages: Mapping[str, Pairs]) -> dict[str, Problem]:
    """The pages whose alternates break reciprocity once the failing ones lose theirs.

    A page that loses its alternates no longer lists anyone back, so the pages that
    listed it may fail in turn: repeat until nothing changes (two rounds, nearly always).
    """
    failed: dict[str, Problem] = {}

    def lookup(href: str) -> Pairs | None:
        return None if href in failed else pages.get(href)

    changed = True
    while changed:
        changed = False
        for page, pairs in pages.items():
            if page in failed:
                continue
            problem, _ = reciprocity(page, pairs, lookup)
            if problem is not None:
                failed[page] = problem
                changed = True
    return failed
