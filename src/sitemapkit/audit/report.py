"""The audit's human and JSON forms: a short summary, and one object per finding.

The summary is what a person reads after a run: counts per code, worst first,
with a few shortened examples each, then whether the report is partial and
why.  The JSON form streams from the store (one object per finding: code,
severity, url, sitemap, line, evidence) so a million findings never sit in
memory as Python objects.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TextIO

from sitemapkit.audit.codes import audit_severity, meaning
from sitemapkit.audit.run import AuditResult
from sitemapkit.store.base import AuditStore
from sitemapkit.store.rows import AuditRow

#: Examples shown per code in the summary.
EXAMPLES = 3
#: Characters of a URL or evidence shown in the summary before it is cut.
SHORT = 90
_ORDER = {"error": 0, "warning": 1, "info": 2}


def shorten(text: str, most: int = SHORT) -> str:
    """``text`` cut in the middle to ``most`` characters (both ends stay readable)."""
    if len(text) <= most:
        return text
    keep = most - 1
    return text[: keep - keep // 3] + "…" + text[len(text) - keep // 3 :]


def ordered_codes(counts: dict[str, int]) -> list[str]:
    """Codes worst first, then by how many, then by name."""
    return sorted(counts, key=lambda c: (_ORDER[audit_severity(c).value], -counts[c], c))


def severity_totals(counts: dict[str, int]) -> dict[str, int]:
    totals = {"error": 0, "warning": 0, "info": 0}
    for code, n in counts.items():
        totals[audit_severity(code).value] += n
    return totals


def summary_lines(
    result: AuditResult, store: AuditStore, examples: int = EXAMPLES
) -> Iterator[str]:
    n = len(result.sitemaps)
    yield (
        f"audit of {result.site}: {n} sitemap{'s' if n != 1 else ''}, "
        f"{result.listed:,} listed URLs, {result.fetched:,} fetched"
    )
    for code in ordered_codes(result.counts):
        sev = audit_severity(code).value
        yield f"  {sev:<7} {code:<24} {result.counts[code]:>7,}  {meaning(code)}"
        for f in store.findings(code, limit=examples):
            where = f.url or f.sitemap or ""
            yield f"          {shorten(where)} — {shorten(f.evidence)}"
    totals = severity_totals(result.counts)
    yield (
        f"{totals['error']:,} error(s), {totals['warning']:,} warning(s), "
        f"{totals['info']:,} note(s)"
    )
    for note in result.partial:
        yield f"partial: {note}"


def write_text(result: AuditResult, store: AuditStore, out: TextIO) -> None:
    for line in summary_lines(result, store):
        out.write(line + "\n")


def finding_dict(f: AuditRow) -> dict[str, object]:
    return {
        "code": f.code,
        "severity": f.severity,
        "url": f.url,
        "sitemap": f.sitemap,
        "line": f.line,
        "evidence": f.evidence,
    }


def write_json(result: AuditResult, store: AuditStore, out: TextIO) -> None:
    """``{"site", "sitemaps", ..., "counts", "partial", "findings": [...]}``, streamed."""
    head = {
        "site": result.site,
        "sitemaps": result.sitemaps,
        "listed": result.listed,
        "fetched": result.fetched,
        "counts": {code: result.counts[code] for code in ordered_codes(result.counts)},
        "totals": severity_totals(result.counts),
        "partial": result.partial,
    }
    text = json.dumps(head, indent=2, ensure_ascii=False)
    out.write(text[:-2] + ',\n  "findings": [')
    first = True
    for f in store.findings():
        out.write(
            ("\n    " if first else ",\n    ") + json.dumps(finding_dict(f), ensure_ascii=False)
        )
        first = False
    out.write("\n  ]\n}\n" if not first else "]\n}\n")
