"""One audit, start to end: crawl, find and read the sitemaps, fetch the rest, compare.

Order, and why:

1. **Crawl first** (online mode).  If the site cannot be reached at all there is
   nothing to audit: the CLI says so in one line and exits 2 before reading
   anything else.
2. **Find the sitemaps** (robots.txt, then the well-known paths), unless
   ``--sitemap`` names them; validate them with the validator (every finding is
   part of the audit) and read their URLs into the store.
3. **Fetch what the crawl did not reach**: the listed URLs (and hreflang
   alternates) still unknown to the store are queued and fetched by the same
   crawler, links not followed, inside what is left of ``--max-pages``.  Every
   listed URL then has a known fate, or is ``listed-unverified`` with the
   limit that stopped it.
4. **Compare** in the store (:mod:`sitemapkit.audit.compare`).

With ``--db`` of a finished crawl there is no step 1 or 3, and with
``--sitemap FILE`` no network at all.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from sitemapkit.audit.codes import AUDIT_CODES, audit_severity
from sitemapkit.audit.compare import FETCH_ERRORS, Context, compare
from sitemapkit.audit.discovery import Discovery, find_sitemaps
from sitemapkit.audit.listed import listed_key, read_listed
from sitemapkit.crawl.config import CrawlConfig, ScopeRule
from sitemapkit.crawl.engine import Crawler, CrawlResult, CrawlStats, query_policy
from sitemapkit.errors import InputError
from sitemapkit.model import Finding
from sitemapkit.read.discover import WELL_KNOWN_PATHS
from sitemapkit.read.source import ReadLimits
from sitemapkit.read.walk import is_unreadable, is_url
from sitemapkit.store import open_audit_store
from sitemapkit.store.base import AuditStore, NewUrl, UrlState
from sitemapkit.store.rows import AuditRow
from sitemapkit.urls import origin_of

if TYPE_CHECKING:
    from collections.abc import Callable

    import aiohttp

#: Codes of a sitemap that "cannot be fetched or parsed" (robots-sitemap-broken).
BROKEN_CODES = frozenset({"xml-malformed", "root-unknown", "gzip-invalid", "xml-doctype"})
_QUEUE_BATCH = 500


@dataclass(slots=True)
class AuditPlan:
    """What to audit.  ``crawl`` is None for an offline audit of the crawl in ``db``."""

    db: Path | str
    site: str | None = None
    sitemaps: tuple[str, ...] = ()
    crawl: CrawlConfig | None = None
    limits: ReadLimits = field(default_factory=ReadLimits)
    now: datetime | None = None
    progress: Callable[[CrawlStats], None] | None = None
    #: Fetch the listed URLs the crawl did not reach (default: when this audit crawls).
    #: ``sitemapkit demo`` sets it for the crawl it just finished.
    fetch_listed: bool | None = None


@dataclass(slots=True)
class AuditResult:
    """How the audit went; the findings themselves are in the store (``db``)."""

    site: str
    db: Path | str
    sitemaps: list[str]
    listed: int
    fetched: int
    counts: dict[str, int]
    #: Why the report is partial (limits hit), one line each.
    partial: list[str] = field(default_factory=list)
    #: Set when the site could not be reached at all (the CLI exits 2).
    unreachable: str | None = None
    #: Pages the audit's crawl rendered, by status, and why rendering that was needed
    #: could not run (as :class:`CrawlResult`'s; the CLI says it as the crawl does).
    rendered: dict[str, int] = field(default_factory=dict)
    render_missing: str | None = None

    def worst(self) -> set[str]:
        """The severities present (``error``, ``warning``, ``info``)."""
        return {audit_severity(code).value for code, n in self.counts.items() if n}


class AuditError(InputError):
    """The audit cannot start (no crawl in ``--db``, nothing to audit)."""


def _finding_row(f: Finding) -> AuditRow:
    return AuditRow(f.code, f.severity.value, f.url, f.source, f.line, f.message, f.omitted or 1)


def _site_row(code: str, url: str | None, evidence: str) -> AuditRow:
    return AuditRow(code, AUDIT_CODES[code].severity.value, url, url, None, evidence)


def site_rows(
    found: Discovery | None, given: tuple[str, ...], sources: list[str]
) -> list[AuditRow]:
    """``sitemap-missing`` and ``sitemap-not-in-robots`` from discovery."""
    if found is None:
        return []
    rows = [_finding_row(f) for f in found.findings]
    if not sources:
        rows.append(
            _site_row(
                "sitemap-missing",
                found.robots_url,
                f"robots.txt names no sitemap; none at {', '.join(WELL_KNOWN_PATHS)}",
            )
        )
    site_origin = origin_of(found.robots_url)
    unnamed = [*found.well_known, *(s for s in given if is_url(s) and s not in found.in_robots)]
    for url in dict.fromkeys(unnamed):
        if origin_of(url) == site_origin:
            rows.append(
                _site_row(
                    "sitemap-not-in-robots", url, f"no Sitemap: line of {found.robots_url} names it"
                )
            )
    return rows


def broken_rows(found: Discovery | None, findings: list[Finding]) -> list[AuditRow]:
    """``robots-sitemap-broken`` for each robots.txt sitemap the validator could not read."""
    if found is None:
        return []
    rows: list[AuditRow] = []
    for url in found.in_robots:
        bad = next(
            (
                f
                for f in findings
                if f.source == url and (is_unreadable(f) or f.code in BROKEN_CODES)
            ),
            None,
        )
        if bad is not None:
            rows.append(
                _site_row("robots-sitemap-broken", url, f"named in robots.txt; {bad.message}")
            )
    return rows


def on_site_rule(config: CrawlConfig, meta: dict[str, str]) -> Callable[[str], bool]:
    """The crawl's site (origins it adopted, --subdomains, --allow-host), without patterns."""
    rule = ScopeRule(dataclasses.replace(config, include=(), exclude=()))
    for origin in (*meta.get("scope_origins", "").split(), meta.get("site_origin", "")):
        if origin:
            rule.adopt(origin)
    return rule.check


def _unreachable(result: CrawlResult) -> str | None:
    if result.start_ok or result.start_problem not in FETCH_ERRORS:
        return None
    return f"cannot reach {result.start_url}: {result.start_problem}"


async def _queue_listed(store: AuditStore, on_site: Callable[[str], bool]) -> int:
    """Queue the listed URLs the crawl never decided; off-site ones are marked, not fetched."""
    queued = 0
    while True:
        keys = store.listed_unknown(_QUEUE_BATCH)
        if not keys:
            return queued
        known = store.lookup(keys)
        held = [(known[k][0], 1) for k in keys if k in known]
        store.requeue(held)
        fresh = [
            NewUrl(k, 1, None)
            if on_site(k)
            else NewUrl(k, 1, None, UrlState.DONE, "out-of-scope", "listed, not on the site")
            for k in keys
            if k not in known
        ]
        store.add_urls(fresh)
        queued += len(held) + sum(1 for n in fresh if n.state == UrlState.QUEUED)
        store.commit()


def _stored_config(store: AuditStore) -> CrawlConfig:
    text = store.get_meta("config")
    if text is None:
        raise AuditError(f"{store.name}: holds no crawl to audit against (run a crawl first)")
    return CrawlConfig.from_json(text)


async def _crawl(
    plan: AuditPlan, store: AuditStore, config: CrawlConfig, *, follow: bool, resume: bool
) -> CrawlResult:
    crawler = Crawler(config, store, progress=plan.progress, follow_links=follow)
    return await crawler.run(resume=resume)


async def _fetch_listed(
    plan: AuditPlan, store: AuditStore, config: CrawlConfig, stopped: str | None, taken: int
) -> CrawlResult | None:
    """Step 3: fetch the listed URLs the crawl did not reach, within --max-pages."""
    if stopped is not None:
        return None
    left = None if config.max_pages is None else config.max_pages - taken
    if left is not None and left <= 0:
        return None
    on_site = on_site_rule(config, _meta(store))
    if await _queue_listed(store, on_site) == 0:
        return None
    rest = dataclasses.replace(config, max_pages=left)
    return await _crawl(plan, store, rest, follow=False, resume=True)


def _stored_stop(store: AuditStore) -> str | None:
    """The limit an earlier crawl stopped at (its ``state`` meta: ``stopped:max-pages``)."""
    state = store.get_meta("state") or ""
    if state.startswith("stopped:"):
        return state.removeprefix("stopped:")
    return "interrupted" if state in ("interrupted", "running") else None


def _meta(store: AuditStore) -> dict[str, str]:
    keys = ("start_url", "site_origin", "scope_origins", "state")
    return {k: v for k in keys if (v := store.get_meta(k)) is not None}


async def _read_sitemaps(
    plan: AuditPlan,
    store: AuditStore,
    site: str,
    policy_mode: str,
    session: aiohttp.ClientSession | None,
    found: Discovery | None,
) -> tuple[list[str], int, list[str]]:
    """Step 2: validate and read the sitemaps; return them, the loc count, notes."""
    from sitemapkit.validate.validator import avalidate

    sources = list(plan.sitemaps) or (found.sitemaps if found is not None else [])
    store.clear_audit()
    store.add_findings(site_rows(found, plan.sitemaps, sources))
    if not sources:
        return [], 0, []
    root = origin_of(site) + "/"
    report = await avalidate(
        sources, session=session, sitemap_url=root, now=plan.now, limits=plan.limits
    )
    store.add_findings([_finding_row(f) for f in report.findings])
    store.add_findings(broken_rows(found, report.findings))
    limits_hit = sorted({f.code for f in report.findings if f.code.startswith("limit-")})
    notes = [f"sitemap reading stopped by {code}" for code in limits_hit]
    count = await read_listed(
        store,
        sources,
        session=session,
        site_root=root,
        policy=query_policy(policy_mode),
        limits=plan.limits,
    )
    return report.sitemaps or sources, count, notes


#: robots.txt problems that mean the host does not answer at all.
_NO_ANSWER = ("fetch-failed", "limit-timeout")


async def _audit(
    plan: AuditPlan, store: AuditStore, session: aiohttp.ClientSession | None
) -> AuditResult:
    found: Discovery | None = None
    first: CrawlResult | None = None
    if plan.crawl is not None:
        config = plan.crawl
        assert session is not None
        found = await find_sitemaps(config.start_url, session, plan.limits)
        if found.robots_problem is not None and found.robots_problem.startswith(_NO_ANSWER):
            why = found.robots_problem.split(": ", 1)[-1]
            return AuditResult(
                config.start_url,
                plan.db,
                [],
                0,
                0,
                {},
                unreachable=f"cannot reach {config.start_url}: robots.txt {why}",
            )
        first = await _crawl(plan, store, config, follow=True, resume=False)
        problem = _unreachable(first)
        if problem is not None:
            return AuditResult(config.start_url, plan.db, [], 0, 0, {}, unreachable=problem)
    else:
        config = _stored_config(store)
    site = plan.site or store.get_meta("start_url") or config.start_url
    if found is None and session is not None and not plan.sitemaps:
        found = await find_sitemaps(site, session, plan.limits)
    sitemaps, listed, notes = await _read_sitemaps(plan, store, site, config.query, session, found)
    crawls = [first] if first is not None else []
    stopped = first.stopped_by if first is not None else _stored_stop(store)
    fetch = plan.fetch_listed if plan.fetch_listed is not None else first is not None
    if fetch:
        taken = first.stats.taken if first is not None else store.counts().get("done", 0)
        second = await _fetch_listed(plan, store, config, stopped, taken)
        if second is not None:
            crawls.append(second)
            stopped = second.stopped_by
    if stopped is not None:
        notes.append(f"the crawl stopped at {stopped}: some URLs were not checked")
    compare(_context(store, config, stopped, offline=not fetch))
    rendered: Counter[str] = Counter()
    for done in crawls:
        rendered.update(done.rendered)
    return AuditResult(
        site,
        plan.db,
        sitemaps,
        listed,
        sum(done.stats.fetched for done in crawls),
        store.finding_counts(),
        notes,
        rendered=dict(rendered),
        render_missing=next((d.render_missing for d in crawls if d.render_missing), None),
    )


def _context(
    store: AuditStore, config: CrawlConfig, stopped: str | None, *, offline: bool
) -> Context:
    meta = _meta(store)
    start = meta.get("start_url", config.start_url)
    roots = {start, listed_key(start, query_policy(config.query))}
    if meta.get("site_origin"):
        roots.add(meta["site_origin"] + "/")
    return Context(
        store=store,
        on_site=on_site_rule(config, meta),
        roots=frozenset(roots),
        stopped_by=stopped,
        offline=offline,
    )


async def run_audit(plan: AuditPlan, *, network: bool = True) -> AuditResult:
    """Run the audit ``plan`` into its store; ``network=False`` never opens a connection."""
    import aiohttp

    store = open_audit_store(plan.db)
    try:
        if not network:
            return await _audit(plan, store, None)
        async with aiohttp.ClientSession() as session:
            return await _audit(plan, store, session)
    finally:
        store.close()
