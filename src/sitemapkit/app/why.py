"""The Why panel: ``sitemapkit crawl --why URL`` as JSON (the same lookup, one truth)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sitemapkit.cli.crawl import find_explanation
from sitemapkit.store import open_store


def explain_json(db: Path, url: str) -> dict[str, Any] | None:
    """What the crawl in ``db`` knows about ``url``; ``None`` when it never saw it."""
    store = open_store(db, mode="read")
    try:
        _, info = find_explanation(store, url)
    finally:
        store.close()
    if info is None:
        return None
    rec = info.record
    return {
        "url": rec.url,
        "decision": "in the sitemap" if rec.indexable else f"not in the sitemap: {rec.reason}",
        "indexable": bool(rec.indexable),
        "reason": rec.reason,
        "detail": info.detail,
        "status": rec.status,
        "content_type": rec.content_type,
        "depth": rec.depth,
        "found_from": info.found_from,
        "found_how": info.found_how,
        "inlinks": rec.inlinks,
        "title": rec.title,
        "canonical": rec.canonical,
        "lastmod": rec.lastmod,
        "lastmod_source": rec.lastmod_source,
        "notes": rec.extra.get("notes", "").splitlines(),
        "render": rec.extra.get("render"),
        "redirects": [list(hop) for hop in info.redirect_chain],
    }
