"""The audit's heart: each listed URL against what the crawl learnt of it.

The store joins the two sides (:meth:`~sitemapkit.store.base.AuditStore.listed_facts`);
this module only decides, one row at a time, which code a row earns and
writes the evidence a reader needs to act without re-checking: the redirect
chain and its end, the other canonical, the status, the two dates.  A listed
URL earns at most one fate code (the first that applies, in the table's
order of severity), plus ``lastmod-ahead``/``lastmod-behind`` when it is a
healthy page whose own date disagrees with the sitemap.  A page the crawl noted
``lastmod-ahead`` (a re-crawl saw its stated date move while its content did not)
earns the same code, listed or not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

from sitemapkit import dates
from sitemapkit.audit.codes import AUDIT_CODES
from sitemapkit.read.walk import is_url
from sitemapkit.store.base import AuditStore, UrlState
from sitemapkit.store.rows import AuditRow, ListedFacts

#: A sitemap date and a page date further apart than this disagree (issue 11).
LASTMOD_SLACK = timedelta(days=1)
REDIRECT_REASONS = frozenset({"redirect", "redirect-loop", "redirect-chain", "redirect-invalid"})
FETCH_ERRORS = frozenset({"timeout", "connection-error", "bad-response"})
_BATCH = 1000
#: A fate code and its evidence.
Verdict = tuple[str, str]


@dataclass(frozen=True, slots=True)
class Context:
    """What the judge needs beside the row."""

    store: AuditStore
    #: Is the URL on the site (the crawl's origins and host rules, without --include)?
    on_site: Callable[[str], bool]
    #: The crawl's start URL and the URL it settled on (neither is an orphan).
    roots: frozenset[str]
    #: Why the crawl stopped early (``max-pages`` ...), or None.
    stopped_by: str | None
    #: True when no crawl ran for this audit (``--db`` of an earlier crawl).
    offline: bool


def row(code: str, facts: ListedFacts, evidence: str) -> AuditRow:
    listed = facts.listed
    return AuditRow(
        code,
        AUDIT_CODES[code].severity.value,
        listed.loc,
        listed.sitemap,
        listed.line,
        evidence,
    )


def outside_folder(loc: str, sitemap: str) -> bool:
    """A loc on the sitemap's own origin but not under the sitemap's folder."""
    if not is_url(sitemap):
        return False
    sp, lp = urlsplit(sitemap), urlsplit(loc)
    if (sp.scheme.lower(), sp.netloc.lower()) != (lp.scheme.lower(), lp.netloc.lower()):
        return False
    folder = sp.path[: sp.path.rfind("/") + 1] or "/"
    return not (lp.path or "/").startswith(folder)


def _redirect_evidence(ctx: Context, f: ListedFacts) -> str:
    if f.reason in ("redirect-loop", "redirect-chain") and f.detail:
        return f"{f.reason}: {f.detail}"
    hops = ctx.store.redirect_hops(f.url_id) if f.url_id is not None else []
    if not hops:
        how = f"HTTP {f.status}" if f.status and 300 <= f.status < 400 else "meta refresh"
        return f"{how} to {f.redirect_to}"
    chain = " -> ".join(f"{status} {target}" for target, status in hops)
    return f"{chain} (ends at {hops[-1][0]})"


def _unverified(ctx: Context, f: ListedFacts) -> str:
    """Why the crawl holds no verdict on a listed URL."""
    if f.state is None:
        if ctx.offline:
            return "the crawl never saw it (offline audit: not fetched)"
        return f"not fetched: the audit stopped at {ctx.stopped_by or 'its limits'}"
    if f.state in (UrlState.QUEUED, UrlState.CLAIMED):
        return f"still queued when the crawl stopped ({ctx.stopped_by or 'interrupted'})"
    if f.state == UrlState.HELD:
        return "only nofollow links lead to it; not fetched"
    return _skipped(f)


def _skipped(f: ListedFacts) -> str:
    """Why a URL the crawl decided on was not judged (its ``reason``)."""
    if f.reason == "out-of-scope":
        return "excluded from the crawl (--include/--exclude)"
    if f.reason == "too-large":
        return f"fetched but too large to judge ({f.detail})"
    return f"not fetched: {f.reason}"


def fate(ctx: Context, f: ListedFacts) -> Verdict | None:
    """The fate code and evidence of one listed ``loc`` (None: a healthy page).

    The first that applies, in the table's order of severity: not the site's,
    not fetched as a page, refused by the page, linked from nowhere.
    """
    for check in (_out_of_scope, _not_fetched, _refused):
        verdict = check(ctx, f)
        if verdict is not None:
            return verdict
    if f.inlinks == 0 and f.listed.key not in ctx.roots:
        return "listed-orphan", "no crawled page links to it"
    return None


def _out_of_scope(ctx: Context, f: ListedFacts) -> Verdict | None:
    """A listed URL that is not on the audited site or not under its sitemap's folder."""
    if not ctx.on_site(f.listed.key):
        return "listed-out-of-scope", f"not on the audited site ({urlsplit(f.listed.loc).netloc})"
    if outside_folder(f.listed.key, f.listed.sitemap):
        return "listed-out-of-scope", f"outside the folder of {f.listed.sitemap}"
    return None


def _not_fetched(ctx: Context, f: ListedFacts) -> Verdict | None:
    """A URL the crawl did not fetch as a page: blocked, never fetched, redirected, failed."""
    reason = f.reason
    if f.state == UrlState.DONE and reason == "blocked-by-robots":
        return "listed-blocked", "disallowed by robots.txt"
    unfetched = f.state != UrlState.DONE or (f.status is None and reason not in FETCH_ERRORS)
    if unfetched and reason not in REDIRECT_REASONS:
        return "listed-unverified", _unverified(ctx, f)
    if reason in REDIRECT_REASONS:
        return "listed-redirect", _redirect_evidence(ctx, f)
    if reason is not None and (reason.startswith("http-") or reason in FETCH_ERRORS):
        what = f"HTTP {f.status}" if f.status is not None else reason
        return "listed-error", what + (f" ({f.detail})" if f.detail else "")
    return None


def _refused(ctx: Context, f: ListedFacts) -> Verdict | None:
    """A fetched page that is not one for a sitemap: noindex, canonical elsewhere, not HTML."""
    reason = f.reason
    if reason == "noindex":
        return "listed-noindex", "the page says noindex (meta robots or X-Robots-Tag)"
    if reason == "canonicalised-to":
        return "listed-canonicalised", f"canonical is {f.detail or f.canonical}"
    if reason == "not-html":
        return "listed-not-html", f"Content-Type {f.content_type or 'missing'}"
    if reason is not None:
        return "listed-unverified", _unverified(ctx, f)
    return None


def lastmod_drift(f: ListedFacts) -> tuple[str, str] | None:
    """``lastmod-ahead``/``-behind`` when the sitemap and the page disagree by > 1 day."""
    if not f.listed.lastmod or not f.page_lastmod:
        return None
    listed = dates.parse(f.listed.lastmod.strip())
    page = dates.parse(f.page_lastmod)
    if listed is None or page is None:
        return None
    drift = listed - page
    if abs(drift) <= LASTMOD_SLACK:
        return None
    code = "lastmod-ahead" if drift > LASTMOD_SLACK else "lastmod-behind"
    where = f.page_lastmod_source or "the page"
    return code, f"sitemap {f.listed.lastmod.strip()}, page {f.page_lastmod} (from {where})"


def alternate_broken(f: ListedFacts) -> str | None:
    """Why an hreflang alternate of the sitemap is a bad target (None: fine or unknown)."""
    reason = f.reason
    if f.state != UrlState.DONE or reason is None:
        return None
    if reason in REDIRECT_REASONS:
        return f"redirects to {f.redirect_to or f.detail}"
    if reason.startswith("http-") or reason in FETCH_ERRORS:
        return f"HTTP {f.status}" if f.status is not None else reason
    if reason == "noindex":
        return "is noindex"
    return None


def judge(ctx: Context, f: ListedFacts) -> Iterator[AuditRow]:
    """Every finding one listed row earns."""
    if f.listed.kind == "alternate":
        why = alternate_broken(f)
        if why is not None:
            yield row("hreflang-target-broken", f, f"alternate of {f.listed.parent}: {why}")
        return
    verdict = fate(ctx, f)
    if verdict is not None:
        yield row(verdict[0], f, verdict[1])
    if verdict is None or verdict[0] == "listed-orphan":
        drift = lastmod_drift(f)
        if drift is not None:
            yield row(drift[0], f, drift[1])


def _noted_rows(ctx: Context) -> Iterator[AuditRow]:
    """The crawl's ``lastmod-ahead`` notes: a page that moved its date but not its content.

    The crawl kept the earlier lastmod (issue 12), so the sitemap it writes is right;
    the site's own claim is what is ahead, and a sitemap made from it would be wrong.
    """
    sev = AUDIT_CODES["lastmod-ahead"].severity.value
    for url, message in ctx.store.noted("lastmod-ahead"):
        yield AuditRow("lastmod-ahead", sev, url, None, None, f"re-crawl: {message}")


def _site_rows(ctx: Context) -> Iterator[AuditRow]:
    sev = AUDIT_CODES["listed-duplicate"].severity.value
    for key, places in ctx.store.listed_duplicates():
        where = ", ".join(f"{s}:{n}" if n is not None else s for s, n in places)
        first = places[0]
        yield AuditRow("listed-duplicate", sev, key, first[0], first[1], f"listed at {where}")
    sev = AUDIT_CODES["missing-indexable"].severity.value
    for url, inlinks in ctx.store.unlisted_indexable():
        yield AuditRow(
            "missing-indexable", sev, url, None, None, f"indexable, linked from {inlinks} page(s)"
        )
    yield from _noted_rows(ctx)


def compare(ctx: Context) -> None:
    """Judge every listed URL and the crawled pages no sitemap lists; store the findings."""
    store = ctx.store
    batch: list[AuditRow] = []
    for facts in store.listed_facts():
        batch.extend(judge(ctx, facts))
        if len(batch) >= _BATCH:
            store.add_findings(batch)
            batch.clear()
    for finding in _site_rows(ctx):
        batch.append(finding)
        if len(batch) >= _BATCH:
            store.add_findings(batch)
            batch.clear()
    store.add_findings(batch)
    store.commit()
