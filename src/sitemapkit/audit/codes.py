"""Every code ``sitemapkit audit`` adds to the validator's, with its severity and meaning.

Why a table: the codes are part of the interface (CI gates on them, the README
documents them, the reports name them), so code, severity and meaning live in
one place; the findings, the SARIF rules, the JUnit test cases and the README
table are all made from it.  Validator findings keep their own codes
(:mod:`sitemapkit.rulebook.codes`); ``lastmod-uniform`` is one of those.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from sitemapkit.model import Severity
from sitemapkit.rulebook.codes import ALL_CODES
from sitemapkit.rulebook.codes import meaning as rule_meaning

E, W = Severity.ERROR, Severity.WARNING


class AuditCode(NamedTuple):
    severity: Severity
    meaning: str


AUDIT_CODES: Final[dict[str, AuditCode]] = {
    "sitemap-missing": AuditCode(E, "no sitemap found through robots.txt or the usual paths"),
    "sitemap-not-in-robots": AuditCode(W, "a sitemap exists but robots.txt does not name it"),
    "robots-sitemap-broken": AuditCode(
        E, "robots.txt names a sitemap that cannot be fetched or parsed"
    ),
    "listed-redirect": AuditCode(E, "listed URL answers 3xx (evidence: the chain and its end)"),
    "listed-error": AuditCode(E, "listed URL answers 4xx/5xx, or cannot be fetched"),
    "listed-noindex": AuditCode(E, "listed URL is noindex (meta or X-Robots-Tag header)"),
    "listed-canonicalised": AuditCode(E, "listed URL names another canonical (evidence: which)"),
    "listed-blocked": AuditCode(E, "listed URL is disallowed by robots.txt"),
    "listed-not-html": AuditCode(W, "listed URL is not an HTML page"),
    "listed-out-of-scope": AuditCode(
        E, "listed URL on another host or outside its sitemap's folder"
    ),
    "listed-orphan": AuditCode(W, "listed and indexable, but no crawled page links to it"),
    "listed-duplicate": AuditCode(W, "the same URL (after normalisation) listed more than once"),
    "listed-unverified": AuditCode(
        W, "listed URL whose fate is unknown: not fetched (crawl limit, trap, excluded, offline)"
    ),
    "missing-indexable": AuditCode(W, "crawled, indexable, linked, but in no sitemap"),
    "lastmod-ahead": AuditCode(
        W,
        "sitemap lastmod over a day after the page's own date, or a page date that moved "
        "while its content did not",
    ),
    "lastmod-behind": AuditCode(W, "sitemap lastmod earlier than the page's own date by > 1 day"),
    "hreflang-target-broken": AuditCode(
        E, "an hreflang alternate in the sitemap that redirects, errors or is noindex"
    ),
}

#: Codes an audit may report: ours, then every validator and reader code.
REPORTED_SEVERITY: Final[dict[str, Severity]] = {
    **ALL_CODES,
    **{code: c.severity for code, c in AUDIT_CODES.items()},
}


def audit_severity(code: str) -> Severity:
    """The severity of any code an audit reports (``http-404`` and unknown ones: error)."""
    return REPORTED_SEVERITY.get(code, E)


def meaning(code: str) -> str:
    """One line saying what ``code`` means (validator codes: the rule book's words)."""
    known = AUDIT_CODES.get(code)
    return known.meaning if known is not None else rule_meaning(code)
