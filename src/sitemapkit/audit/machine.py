"""The machine forms CI reads: CSV, SARIF 2.1.0 and JUnit XML.

* CSV streams from the store, one row per finding (the JSON form's fields);
  cells that a spreadsheet would run as a formula get a leading ``'``
  (:func:`~sitemapkit.fileio.spreadsheet_cell`): the evidence is text from the web.
* SARIF reuses the validator's writer (:func:`sitemapkit.cli.validate.sarif`)
  so both commands show up the same in code-scanning UIs; the audit codes'
  rules get their own description and level from the codes table.
* JUnit has one test case per code (every audit code, plus each validator code
  found), so a CI's test view lists what was checked and what failed; a case
  fails when its code's severity is at or above ``--fail-on``.
"""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from itertools import islice
from typing import TextIO

from sitemapkit.audit.codes import AUDIT_CODES, audit_severity, meaning
from sitemapkit.audit.run import AuditResult
from sitemapkit.fileio import spreadsheet_cell
from sitemapkit.model import Finding, Severity
from sitemapkit.store.base import AuditStore
from sitemapkit.store.rows import AuditRow

FIELDS = ("code", "severity", "url", "sitemap", "line", "evidence")
#: Findings written into one JUnit failure's text (the rest are counted).
JUNIT_DETAIL = 50


def write_csv(_result: AuditResult, store: AuditStore, out: TextIO) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(FIELDS)
    for f in store.findings():
        writer.writerow(
            [
                spreadsheet_cell(v)
                for v in (f.code, f.severity, f.url, f.sitemap, f.line, f.evidence)
            ]
        )


def as_finding(f: AuditRow) -> Finding:
    """An audit row as the validator's :class:`Finding` (source: the sitemap, else the URL)."""
    where = f.sitemap or f.url or ""
    message = f"{f.url}: {f.evidence}" if f.url and f.sitemap else f.evidence
    return Finding(f.code, Severity(f.severity), message, where, f.line, None, f.url)


def sarif_log(store: AuditStore) -> dict[str, object]:
    from sitemapkit.cli.validate import sarif
    from sitemapkit.validate.validator import ValidationReport

    report = ValidationReport(findings=[as_finding(f) for f in store.findings()])
    log = sarif(report)
    for rule in log["runs"][0]["tool"]["driver"]["rules"]:
        code = rule["id"]
        if code in AUDIT_CODES:
            rule["shortDescription"] = {"text": meaning(code)}
            level = {"error": "error", "warning": "warning"}.get(audit_severity(code).value, "note")
            rule["defaultConfiguration"] = {"level": level}
    return log


def write_sarif(_result: AuditResult, store: AuditStore, out: TextIO) -> None:
    out.write(json.dumps(sarif_log(store), indent=2, ensure_ascii=False) + "\n")


def _line(f: AuditRow) -> str:
    where = f.url or ""
    if f.sitemap and f.sitemap != f.url:
        where += f" ({f.sitemap}{':' + str(f.line) if f.line is not None else ''})"
    return f"{where}: {f.evidence}"


def junit_tree(result: AuditResult, store: AuditStore, fail_levels: frozenset[str]) -> ET.Element:
    codes = list(AUDIT_CODES) + sorted(c for c in result.counts if c not in AUDIT_CODES)
    failures = sum(
        1 for c in codes if result.counts.get(c) and audit_severity(c).value in fail_levels
    )
    suites = ET.Element("testsuites", name="sitemapkit audit")
    suite = ET.SubElement(
        suites,
        "testsuite",
        name=f"sitemapkit audit {result.site}",
        tests=str(len(codes)),
        failures=str(failures),
        errors="0",
        skipped="0",
    )
    for code in codes:
        case = ET.SubElement(suite, "testcase", classname="sitemapkit.audit", name=code)
        n = result.counts.get(code, 0)
        if not n:
            continue
        sev = audit_severity(code).value
        shown = [_line(f) for f in islice(store.findings(code), JUNIT_DETAIL)]
        if n > len(shown):
            shown.append(f"... and {n - len(shown):,} more")
        tag = "failure" if sev in fail_levels else "system-out"
        node = ET.SubElement(case, tag)
        if tag == "failure":
            node.set("type", sev)
            node.set("message", f"{n:,} {sev}(s): {meaning(code)}")
        node.text = "\n".join(shown)
    return suites


def write_junit(
    result: AuditResult,
    store: AuditStore,
    out: TextIO,
    fail_levels: frozenset[str] = frozenset({"error"}),
) -> None:
    tree = junit_tree(result, store, fail_levels)
    ET.indent(tree)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(tree, encoding="unicode") + "\n")
