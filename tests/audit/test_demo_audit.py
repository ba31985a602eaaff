"""``sitemapkit audit`` of the bundled demo site finds exactly the planted faults."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from sitemapkit.audit.codes import AUDIT_CODES
from sitemapkit.cli import main
from sitemapkit.demo import expected
from sitemapkit.demo.server import serve_demo


def test_online_audit_of_the_demo_matches_the_expected_answer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with serve_demo() as base:
        status = main(["audit", base, "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    got: dict[str, set[str]] = defaultdict(set)
    for f in report["findings"]:
        got[f["code"]].add(f["url"] or f["sitemap"])
    want = expected.audit_findings(base)
    assert set(AUDIT_CODES) <= set(want)
    for code, urls in want.items():
        assert got.get(code, set()) == urls, code
    assert report["partial"] == []
    assert status == 1
