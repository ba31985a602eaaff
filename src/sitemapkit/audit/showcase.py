"""The audit part of ``sitemapkit demo``: audit the crawl just made, write ``audit.html``.

The demo site publishes sitemaps with one planted fault per audit code; this
audits them against the demo's crawl (fetching only the listed URLs the crawl
did not reach, like ``sitemapkit audit`` does), writes the HTML report beside
the visual map, and compares every code's URL set with the demo's published
expected answer (:func:`sitemapkit.demo.expected.audit_findings`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from sitemapkit.audit.codes import AUDIT_CODES
from sitemapkit.audit.page import write_html
from sitemapkit.audit.report import summary_lines
from sitemapkit.audit.run import AuditPlan, AuditResult, run_audit
from sitemapkit.fileio import atomic_open
from sitemapkit.store import open_audit_store

REPORT_NAME = "audit.html"


@dataclass(slots=True)
class DemoAudit:
    result: AuditResult
    report: Path
    lines: list[str]
    problems: list[str]


def check_audit(base: str, result: AuditResult, rendered: bool = False) -> list[str]:
    """Differences between this audit and the demo's expected answer (empty: all right)."""
    from sitemapkit.demo import expected

    want = expected.audit_findings(base, rendered)
    store = open_audit_store(result.db, mode="read")
    try:
        got = {code: {f.url or f.sitemap or "" for f in store.findings(code)} for code in want}
    finally:
        store.close()
    problems: list[str] = []
    for code in sorted(want):
        for url in sorted(want[code] - got[code]):
            problems.append(f"audit: {code} missing for {url}")
        for url in sorted(got[code] - want[code]):
            problems.append(f"audit: {code} not expected for {url}")
    unchecked = set(AUDIT_CODES) - set(want)
    problems.extend(f"audit: {code} has no expected answer" for code in sorted(unchecked))
    return problems


def audit_demo(base: str, db: Path, out_dir: Path, rendered: bool = False) -> DemoAudit:
    """Audit the demo's published sitemaps against the crawl in ``db`` (``rendered``: the
    crawl rendered the lamp finder, so its pages are crawled and indexable too)."""
    plan = AuditPlan(db=db, site=base, fetch_listed=True)
    result = asyncio.run(run_audit(plan))
    target = out_dir / REPORT_NAME
    store = open_audit_store(db, mode="read")
    try:
        with atomic_open(target, "w", what="the audit report") as fh:
            write_html(result, store, fh)
        lines = list(summary_lines(result, store, examples=0))
    finally:
        store.close()
    return DemoAudit(result, target, lines, check_audit(base, result, rendered))
