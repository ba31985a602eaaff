"""The machine forms and the HTML page, from a store filled by hand with hostile text.

The HTML page runs in Debian's Chromium (Playwright) from file://: nothing it
shows is parsed as HTML, the CSP lets only its own script run, and the table
sorts and filters.
"""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sitemapkit.audit.codes import AUDIT_CODES
from sitemapkit.audit.machine import write_csv, write_junit, write_sarif
from sitemapkit.audit.page import write_html
from sitemapkit.audit.run import AuditResult
from sitemapkit.store.base import NewUrl
from sitemapkit.store.rows import AuditRow
from sitemapkit.store.sqlite import SqliteStore

SITE = "https://shop.example/"
HOSTILE = 'https://shop.example/x"><img src=x onerror="document.title=\'owned\'">'
ROWS = [
    AuditRow("listed-redirect", "error", SITE + "old", SITE + "sitemap.xml", 4, "301 -> /new"),
    AuditRow("listed-orphan", "warning", HOSTILE, SITE + "sitemap.xml", 9, "</script><b>x</b>"),
    AuditRow("listed-error", "error", SITE + "gone", SITE + "sitemap.xml", 5, "=HYPERLINK(1)"),
    AuditRow("loc-not-escaped", "error", HOSTILE, SITE + "sitemap.xml", 9, "not escaped"),
]


@pytest.fixture
def filled(tmp_path: Path) -> Iterator[tuple[AuditResult, SqliteStore]]:
    db = tmp_path / "crawl.sqlite"
    store = SqliteStore(db)
    store.add_urls([NewUrl(SITE, 0, None), NewUrl(SITE + "shop/lamp", 1, None)])
    store.add_findings(ROWS)
    store.commit()
    result = AuditResult(SITE, db, [SITE + "sitemap.xml"], 12, 20, store.finding_counts())
    try:
        yield result, store
    finally:
        store.close()


def test_csv_one_row_per_finding_and_no_formulas(filled: tuple[AuditResult, SqliteStore]) -> None:
    result, store = filled
    out = io.StringIO()
    write_csv(result, store, out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [r["code"] for r in rows] == [r.code for r in ROWS]
    assert rows[1]["url"] == HOSTILE
    assert rows[2]["evidence"] == "'=HYPERLINK(1)"
    assert rows[0]["line"] == "4"


def test_sarif_210_with_audit_rule_texts(filled: tuple[AuditResult, SqliteStore]) -> None:
    result, store = filled
    out = io.StringIO()
    write_sarif(result, store, out)
    log = json.loads(out.getvalue())
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert rules["listed-orphan"]["defaultConfiguration"] == {"level": "warning"}
    assert (
        rules["listed-orphan"]["shortDescription"]["text"] == AUDIT_CODES["listed-orphan"].meaning
    )
    first = run["results"][0]
    assert first["ruleId"] == "listed-redirect"
    place = first["locations"][0]["physicalLocation"]
    assert place["artifactLocation"]["uri"] == SITE + "sitemap.xml"
    assert place["region"] == {"startLine": 4}


def test_junit_one_case_per_code(filled: tuple[AuditResult, SqliteStore]) -> None:
    result, store = filled
    out = io.StringIO()
    write_junit(result, store, out, frozenset({"error"}))
    root = ET.fromstring(out.getvalue())
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert set(AUDIT_CODES) | {"loc-not-escaped"} == set(cases)
    suite = root.find("testsuite")
    assert suite is not None
    assert suite.get("failures") == "3"
    assert cases["listed-orphan"].find("failure") is None  # a warning under --fail-on error
    failure = cases["listed-redirect"].find("failure")
    assert failure is not None
    assert "old" in (failure.text or "")


@pytest.mark.browser
def test_html_page_is_text_only_and_filters(
    filled: tuple[AuditResult, SqliteStore], tmp_path: Path, pw_page: Any
) -> None:
    result, store = filled
    target = tmp_path / "audit.html"
    with target.open("w", encoding="utf-8") as fh:
        write_html(result, store, fh)
    page, errors = pw_page
    page.goto(target.as_uri())
    page.wait_for_selector("html[data-ready='1']", timeout=15_000)
    assert errors == []
    assert page.title() == f"Audit of {SITE}"
    rows = page.locator("table.findings tbody tr")
    assert rows.count() == len(ROWS)
    assert page.locator("img").count() == 0
    assert page.get_by_text(HOSTILE).count() >= 1
    page.select_option("#filter-severity", "warning")
    assert rows.count() == 1
    assert rows.first.locator("td").nth(4).text_content() == "</script><b>x</b>"
    page.select_option("#filter-severity", "")
    page.fill("#filter-text", "gone")
    assert rows.count() == 1
    assert page.locator("#tree .dot.error").count() >= 1
