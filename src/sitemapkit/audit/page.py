"""The audit as one self-contained HTML page, built like the visual map.

Same safety rules as :mod:`sitemapkit.visual.page`, and the same helpers:
a CSP of ``default-src 'none'`` that lets only this page's own script and
style run (by hash), the data as JSON in ``<script type="application/json">``
with ``<``, ``>`` and ``&`` escaped, and a script that only ever sets
``textContent``.  A URL like ``/"><script>`` is text in the tree and the table.

The page holds at most :data:`MAX_FINDINGS` findings and :data:`MAX_PAGES`
crawled URLs (the tree); past that it says how many it left out, and the
JSON/CSV forms hold everything.
"""

from __future__ import annotations

import html
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from itertools import islice
from typing import IO, Any

from sitemapkit.audit.codes import audit_severity, meaning
from sitemapkit.audit.report import ordered_codes, severity_totals
from sitemapkit.audit.run import AuditResult
from sitemapkit.store.base import AuditStore
from sitemapkit.visual.page import page_head
from sitemapkit.visual.payload import script_safe_json

MAX_FINDINGS = 50_000
MAX_PAGES = 50_000


@cache
def _asset(name: str) -> str:
    text = resources.files("sitemapkit.audit").joinpath("assets", name).read_text("utf-8")
    if "</script" in text.lower() or "</style" in text.lower():
        raise RuntimeError(f"asset {name} contains a closing tag and cannot be inlined")
    return text


def payload(result: AuditResult, store: AuditStore) -> dict[str, object]:
    findings = [
        [f.code, f.severity, f.url, f.sitemap, f.line, f.evidence]
        for f in islice(store.findings(), MAX_FINDINGS)
    ]
    pages = [r.url for r in islice(store.page_records(), MAX_PAGES)]
    return {
        "site": result.site,
        "counts": {c: result.counts[c] for c in ordered_codes(result.counts)},
        "findings": findings,
        "pages": pages,
    }


def _counts_table(result: AuditResult) -> str:
    rows = []
    for code in ordered_codes(result.counts):
        sev = audit_severity(code).value
        rows.append(
            f'<tr><td class="sev-{sev}">{sev}</td><td>{html.escape(code)}</td>'
            f"<td>{result.counts[code]:,}</td><td>{html.escape(meaning(code))}</td></tr>"
        )
    if not rows:
        return "<p>No findings.</p>"
    return (
        '<table class="counts"><thead><tr><th>severity</th><th>code</th><th>findings</th>'
        f"<th>meaning</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def render(result: AuditResult, store: AuditStore, generated: datetime | None = None) -> str:
    """The whole page as text."""
    data = payload(result, store)
    total = sum(result.counts.values())
    script, style = _asset("audit.js"), _asset("audit.css")
    when = (generated or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    totals = severity_totals(result.counts)
    notes = [html.escape(n) for n in result.partial]
    if total > MAX_FINDINGS:
        notes.append(f"this page shows the first {MAX_FINDINGS:,} of {total:,} findings")
    partial = "".join(f'<p class="partial">partial: {n}</p>' for n in notes)
    title = f"Audit of {result.site}"
    return (
        page_head(html.escape(title), script, style)
        + f"""<body>
<header><h1>{html.escape(title)}</h1>
<span class="muted">{len(result.sitemaps)} sitemap(s) &middot; {result.listed:,} listed URLs
&middot; {result.fetched:,} fetched &middot; {totals["error"]:,} error(s),
{totals["warning"]:,} warning(s) &middot; {html.escape(when)}</span>{partial}</header>
<h2>Findings by code</h2>
{_counts_table(result)}
<h2>Site tree, coloured by the worst finding under each branch</h2>
<div id="tree" role="tree" aria-label="Site tree"></div>
<h2>Findings</h2>
<div class="filters" role="search">
<label>Search <input id="filter-text" type="search" autocomplete="off"></label>
<label>Severity <select id="filter-severity"><option value="">all</option>
<option>error</option><option>warning</option><option>info</option></select></label>
<label>Code <select id="filter-code"><option value="">all</option></select></label>
<span id="shown" class="muted"></span>
</div>
<table class="findings"><thead><tr><th scope="col">code</th><th scope="col">severity</th>
<th scope="col">URL</th><th scope="col">sitemap:line</th><th scope="col">evidence</th></tr>
</thead><tbody></tbody></table>
<p><button id="more" type="button" hidden>Show more</button></p>
<noscript><p>The tree and the table need JavaScript; the counts above and the JSON/CSV
reports hold everything.</p></noscript>
<script id="audit-data" type="application/json">{script_safe_json(data)}</script>
<script>{script}</script>
</body>
</html>
"""
    )


def write_html(result: AuditResult, store: AuditStore, out: IO[Any]) -> None:
    out.write(render(result, store))
