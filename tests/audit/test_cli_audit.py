"""``sitemapkit audit`` end to end on a real site on 127.0.0.1: every code, exact URL sets."""

from __future__ import annotations

import json
import shutil
import urllib.request
from collections import defaultdict
from pathlib import Path

import pytest

from audit.audit_site import AuditSite, expected_urls, serve_audit_site
from sitemapkit.audit.codes import AUDIT_CODES
from sitemapkit.cli import main


def _run_json(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, dict[str, object]]:
    code = main(["audit", *args, "--format", "json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def _by_code(report: dict[str, object]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    findings = report["findings"]
    assert isinstance(findings, list)
    for f in findings:
        found[f["code"]].add(f["url"])
    return found


def test_every_listed_code_names_exactly_its_urls(
    audit_site: AuditSite, capsys: pytest.CaptureFixture[str]
) -> None:
    status, report = _run_json(capsys, [audit_site.base + "/"])
    found = _by_code(report)
    for code, urls in expected_urls(audit_site.base).items():
        assert found.get(code, set()) == urls, code
    # a healthy listed page earns nothing; every listed URL has a known fate
    assert "listed-unverified" not in found
    # listed URLs the crawl missed are fetched, but their links are not followed
    assert audit_site.hits["/orphan"] == 1
    assert audit_site.hits["/orphan-child"] == 0
    assert status == 1  # errors found, --fail-on error


def test_evidence_names_the_chain_the_canonical_and_the_dates(
    audit_site: AuditSite, capsys: pytest.CaptureFixture[str]
) -> None:
    _, report = _run_json(capsys, [audit_site.base + "/"])
    evidence = {(f["code"], f["url"]): f["evidence"] for f in report["findings"]}  # type: ignore[attr-defined]
    base = audit_site.base
    assert evidence[("listed-redirect", base + "/old")] == f"301 {base}/a (ends at {base}/a)"
    assert evidence[("listed-canonicalised", base + "/canon")] == f"canonical is {base}/a"
    assert evidence[("listed-error", base + "/gone")] == "HTTP 404"
    assert "page 2026-01-01" in evidence[("lastmod-ahead", base + "/lm-ahead")]
    assert (
        f"alternate of {base}/en: redirects to {base}/de"
        == evidence[("hreflang-target-broken", base + "/de-old")]
    )


def test_site_level_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with serve_audit_site(AuditSite(has_sitemap=False, robots_names_sitemap=False)) as site:
        status, report = _run_json(capsys, [site.base + "/"])
    assert _by_code(report)["sitemap-missing"] == {site.base + "/robots.txt"}
    assert status == 1
    with serve_audit_site(AuditSite(robots_names_sitemap=False)) as site:
        _, report = _run_json(capsys, [site.base + "/"])
    assert _by_code(report)["sitemap-not-in-robots"] == {site.base + "/sitemap.xml"}
    with serve_audit_site(AuditSite(robots_names_html=True)) as site:
        _, report = _run_json(capsys, [site.base + "/"])
    assert _by_code(report)["robots-sitemap-broken"] == {site.base + "/html-sitemap.xml"}


def test_offline_against_an_earlier_crawl_uses_no_network(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sitemap = tmp_path / "sitemap.xml"
    with serve_audit_site() as site:
        assert main(["crawl", site.base + "/", "-o", str(tmp_path / "out")]) == 0
        with urllib.request.urlopen(site.base + "/sitemap.xml") as resp:
            sitemap.write_bytes(resp.read())
        base = site.base
    capsys.readouterr()
    # the server is gone: any request would fail (and show up as a finding)
    db = tmp_path / "out" / "crawl.sqlite"
    status, report = _run_json(capsys, ["--db", str(db), "--sitemap", str(sitemap)])
    found = _by_code(report)
    assert "fetch-failed" not in found
    assert found["listed-unverified"] == {base + "/orphan"}
    assert found["listed-out-of-scope"] == {OTHER}
    assert found["listed-redirect"] == {base + "/old"}
    assert found["listed-blocked"] == {base + "/blocked/x"}
    assert status == 1
    # -o DIR beside an existing --db: the folder is made, the report written in it
    report_dir = tmp_path / "new" / "reports"
    args = ["audit", "--db", str(db), "--sitemap", str(sitemap), "-o", str(report_dir)]
    assert main([*args, "--format", "csv"]) == 1
    assert (report_dir / "audit.csv").read_text("utf-8").startswith("code,severity,url")


OTHER = "http://other.example/page"


def test_unreachable_site_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with serve_audit_site() as site:
        dead = site.base + "/"
    status = main(["audit", dead, "--max-duration", "20"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2
    assert len(err) == 1
    assert err[0].startswith(f"sitemapkit: error: cannot reach {dead}: robots.txt could not be")


def test_fail_on_levels(audit_site: AuditSite, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", audit_site.base + "/", "--fail-on", "never"]) == 0
    out = capsys.readouterr().out
    assert "listed-redirect" in out
    assert "error(s)" in out


def test_max_pages_gives_a_partial_report(
    audit_site: AuditSite, capsys: pytest.CaptureFixture[str]
) -> None:
    _, report = _run_json(capsys, [audit_site.base + "/", "--max-pages", "3"])
    assert report["partial"] == ["the crawl stopped at max-pages: some URLs were not checked"]
    assert len(_by_code(report)["listed-unverified"]) >= 5


def test_every_audit_code_is_in_the_readme() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text("utf-8")
    for code in AUDIT_CODES:
        assert f"`{code}`" in readme, code


def test_reports_under_out_folder(
    audit_site: AuditSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    assert main(["audit", audit_site.base + "/", "-o", str(out), "--format", "json"]) == 1
    text = capsys.readouterr().out
    assert text.startswith(f"audit of {audit_site.base}/: 2 sitemaps")
    assert json.loads((out / "audit.json").read_text("utf-8"))["findings"]
    assert (out / "crawl.sqlite").is_file()
    shutil.rmtree(out)


def test_a_50_mb_robots_txt_is_read_to_its_cap(capsys: pytest.CaptureFixture[str]) -> None:
    with serve_audit_site(AuditSite(huge_robots=True)) as site:
        status, report = _run_json(capsys, [site.base + "/"])
    found = _by_code(report)
    assert status == 1
    assert "sitemap-missing" not in found  # its Sitemap: lines are read from the first 500 KiB
    assert found["listed-redirect"] == {site.base + "/old"}
    assert found["listed-orphan"] == {site.base + "/orphan"}


def test_a_50_mb_robots_txt_still_blocks(capsys: pytest.CaptureFixture[str]) -> None:
    with serve_audit_site(AuditSite(huge_robots=True)) as site:
        _, report = _run_json(capsys, [site.base + "/"])
    assert _by_code(report)["listed-blocked"] == {site.base + "/blocked/x"}


def test_counts_include_what_a_capped_listing_leaves_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """1,200 broken dates: 1,000 are listed, the rest are one "and 200 more" row, counted as 200."""
    with serve_audit_site() as site:
        assert main(["crawl", site.base + "/", "-o", str(tmp_path / "out")]) == 0
        base = site.base
    capsys.readouterr()
    n = 1_200
    entries = "".join(
        f"<url><loc>{base}/p{i}</loc><lastmod>2024-13-01</lastmod></url>\n" for i in range(n)
    )
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{entries}</urlset>\n',
        "utf-8",
    )
    db = tmp_path / "out" / "crawl.sqlite"
    _, report = _run_json(capsys, ["--db", str(db), "--sitemap", str(sitemap)])
    counts = report["counts"]
    assert isinstance(counts, dict)
    assert counts["lastmod-invalid"] == n
    listed = [f for f in report["findings"] if f["code"] == "lastmod-invalid"]  # type: ignore[union-attr]
    assert len(listed) == 1_001  # the first 1,000 and the one "and 200 more" row
    assert any("and 200 more" in f["evidence"] for f in listed)
