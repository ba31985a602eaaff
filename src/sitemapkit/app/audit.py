"""The Audit view: findings by code with their evidence, from the site's store.

The audit itself runs as ``sitemapkit audit URL --db crawl.sqlite -o audit/``
(a child process, see :mod:`sitemapkit.app.jobs`); this reads what it stored,
with each code's severity and meaning from the rule book.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from sitemapkit.app.sites import AUDIT_REPORT
from sitemapkit.app.workspace import SitePaths
from sitemapkit.audit.codes import audit_severity as severity
from sitemapkit.audit.codes import meaning
from sitemapkit.store import is_crawl_db
from sitemapkit.store.registry import open_audit_store

#: Codes are listed worst first, then by how often they were found.
_RANK = {"error": 0, "warning": 1, "info": 2}


def _worst_first(item: tuple[str, int]) -> tuple[int, int]:
    return _RANK.get(str(severity(item[0])), 9), -item[1]


def audit_view(paths: SitePaths, code: str | None, limit: int) -> dict[str, Any]:
    """API.md's audit object: ``ran``, ``codes`` (count, severity, meaning), and the
    findings of ``code`` when one is asked for."""
    ran = (paths.audit_dir / AUDIT_REPORT).is_file()
    view: dict[str, Any] = {"ran": ran, "codes": []}
    if not ran or not is_crawl_db(paths.db):
        return view
    store = open_audit_store(paths.db, mode="read")
    try:
        counts = store.finding_counts()
        view["codes"] = [
            {"code": c, "severity": str(severity(c)), "meaning": meaning(c), "count": n}
            for c, n in sorted(counts.items(), key=_worst_first)
        ]
        if code is not None:
            view["findings"] = [dataclasses.asdict(row) for row in store.findings(code, limit)]
    finally:
        store.close()
    return view
