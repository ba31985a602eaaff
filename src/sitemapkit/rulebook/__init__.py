"""Value checks that return ``(code, message)``: the one rule book the writer, the reader's
strict lane, the validator and the crawler call.  No XML, no I/O.

Why one place: the writer promises never to publish what the validator rejects.  When both
ask the same function about the same text (the writer about what it is about to write,
the validator about what it read), the promise holds by construction instead of by two
copies of each rule kept in step by hand.

Modules: :mod:`~sitemapkit.rulebook.loc` (absolute, escaped, length),
:mod:`~sitemapkit.rulebook.hints` (lastmod, changefreq, priority),
:mod:`~sitemapkit.rulebook.media` (image, video, news values),
:mod:`~sitemapkit.rulebook.hreflang` (codes, and the set rules: self, conflict,
reciprocity), :mod:`~sitemapkit.rulebook.langcodes` (the ISO lists) and
:mod:`~sitemapkit.rulebook.codes` (every code and its severity).
"""

from __future__ import annotations

#: A broken rule: its RULES.md code and a message naming the value.
Problem = tuple[str, str]

__all__ = ["Problem"]
