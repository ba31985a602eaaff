"""What the app says about a site: read from its store and its folder, never cached.

Read with the store opened read-only (no lock), so a site can be shown while
its crawl writes it, from this server or from a terminal.  A store that cannot
be read (being created, full disk, damaged) gives a site with the problem in
``job.message`` instead of an error page: the list of sites always opens.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

from sitemapkit.app.jobs import Jobs, holder_pid, orphan_message
from sitemapkit.app.workspace import SitePaths
from sitemapkit.audit.codes import audit_severity as severity
from sitemapkit.errors import SitemapkitError
from sitemapkit.store import is_crawl_db
from sitemapkit.store.registry import open_audit_store

#: The root files of a published set, in the order the writer would make them.
ROOT_NAMES = ("sitemap.xml", "sitemap.xml.gz")
#: Where ``sitemapkit audit -o`` writes its JSON report (the app asks for it).
AUDIT_REPORT = "audit.json"


def sitemap_files(out: Path) -> list[Path]:
    """The sitemap set in ``out`` (root first, then the parts), as the crawl wrote it."""
    if not out.is_dir():
        return []
    found = [
        p
        for p in out.iterdir()
        if p.is_file() and p.name.startswith("sitemap") and p.name.endswith((".xml", ".xml.gz"))
    ]
    return sorted(found, key=lambda p: (p.name not in ROOT_NAMES, p.name))


def _job(paths: SitePaths, jobs: Jobs) -> dict[str, Any] | None:
    job = jobs.last(paths.id) or paths.read_job()
    if job is None:
        return None
    # Not ours and the store let go: the server that ran it died (its crawl saved itself).
    if job.ended_at is None and not jobs.running(paths.id) and holder_pid(paths.db) is None:
        job.message = orphan_message(job)
        job.exit_code = -int(signal.SIGKILL)
    return job.public()


def _store_facts(paths: SitePaths) -> dict[str, Any]:
    """Counts, runs and audit figures from the store (read-only)."""
    store = open_audit_store(paths.db, mode="read")
    try:
        counts = store.counts()
        runs = store.runs()
        config = store.get_meta("config")
        start_url = store.get_meta("start_url")
        findings = store.finding_counts()
    finally:
        store.close()
    last = runs[-1] if runs else None
    by_level = {"error": 0, "warning": 0}
    for code, n in findings.items():
        level = str(severity(code))
        by_level[level] = by_level.get(level, 0) + n
    return {
        "start_url": start_url,
        "config": config,
        "pages": counts.get("fetched", 0),
        "in_sitemap": counts.get("indexable", 0),
        "queued": counts.get("queued", 0) + counts.get("claimed", 0),
        "errors": counts.get("errors", 0),
        "runs": len(runs),
        "last_run": None
        if last is None
        else {
            "id": last.id,
            "started_at": last.started_at,
            "ended_at": last.ended_at,
            "state": last.state,
            "pages": last.pages,
        },
        "findings": findings,
        "by_level": by_level,
    }


def site_summary(paths: SitePaths, jobs: Jobs) -> dict[str, Any]:
    """The ``Site`` object of API.md."""
    state = jobs.state(paths)
    site: dict[str, Any] = {
        "id": paths.id,
        "start_url": None,
        "state": state,
        "job": _job(paths, jobs),
        "last_run": None,
        "runs": 0,
        "pages": 0,
        "in_sitemap": 0,
        "queued": 0,
        "errors": 0,
        "can_resume": False,
        "sitemap": None,
        "audit": None,
    }
    if is_crawl_db(paths.db):
        try:
            facts = _store_facts(paths)
        except SitemapkitError as exc:
            site["problem"] = str(exc)
        else:
            for key in ("start_url", "pages", "in_sitemap", "queued", "errors", "runs"):
                site[key] = facts[key]
            site["last_run"] = facts["last_run"]
            last = facts["last_run"]
            site["can_resume"] = (
                state == "idle"
                and facts["config"] is not None
                and (last is None or last["state"] != "finished")
            )
            if (paths.audit_dir / AUDIT_REPORT).is_file():
                site["audit"] = {
                    "findings": sum(facts["findings"].values()),
                    "codes": len(facts["findings"]),
                    "errors": facts["by_level"].get("error", 0),
                    "warnings": facts["by_level"].get("warning", 0),
                }
    files = sitemap_files(paths.out)
    if files:
        site["sitemap"] = {
            "files": [f.name for f in files],
            "bytes": sum(f.stat().st_size for f in files),
            "urls": site["in_sitemap"],
        }
    return site


def activity(site: dict[str, Any]) -> float:
    """When the site last did something (for newest-first lists)."""
    job = site.get("job") or {}
    run = site.get("last_run") or {}
    return max(job.get("started_at") or 0.0, run.get("started_at") or 0.0)
