"""``sitemapkit audit`` of the bundled demo site finds exactly the planted faults.

Its own crawl takes ``crawl``'s ``--render`` and ``--workers``: rendered (the default
``auto`` too, as for ``crawl``), the lamp finder's pages (``/app/``, linked only by
script) are crawled and found missing from the sitemap; unrendered they are not.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from headless import run_cli_without_playwright
from sitemapkit.audit.codes import AUDIT_CODES
from sitemapkit.cli import main
from sitemapkit.crawl.config import CrawlConfig
from sitemapkit.demo import expected
from sitemapkit.demo.server import serve_demo
from sitemapkit.store.sqlite import SqliteStore

#: The demo's page that never settles is cut sooner than the crawl's default 15 s.
FAST = ("--render-timeout", "5")


def _by_code(report: dict[str, object]) -> dict[str, set[str]]:
    got: dict[str, set[str]] = defaultdict(set)
    findings = report["findings"]
    assert isinstance(findings, list)
    for f in findings:
        got[f["code"]].add(f["url"] or f["sitemap"])
    return got


def _assert_expected(base: str, report: dict[str, object], rendered: bool) -> None:
    got = _by_code(report)
    want = expected.audit_findings(base, rendered)
    assert set(AUDIT_CODES) <= set(want)
    for code, urls in want.items():
        assert got.get(code, set()) == urls, code
    lamp_finder = {expected.absolute(base, p) for p in expected.RENDERED_SITEMAP_PATHS}
    assert (lamp_finder <= got["missing-indexable"]) is rendered
    assert report["partial"] == []


@pytest.mark.parametrize(
    ("mode", "rendered"),
    [
        (["--render", "never"], False),
        pytest.param(["--render", "always"], True, marks=pytest.mark.browser),
        pytest.param([], True, marks=pytest.mark.browser),  # auto, crawl's default
    ],
    ids=["never", "always", "default"],
)
def test_online_audit_of_the_demo_matches_the_expected_answer(
    mode: list[str], rendered: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    with serve_demo() as base:
        status = main(["audit", base, "--format", "json", *mode, *FAST])
    out, err = capsys.readouterr()
    _assert_expected(base, json.loads(out), rendered)
    assert status == 1
    # the crawl's render line, on stderr (stdout is the JSON)
    notes = [line for line in err.splitlines() if "render" in line]
    if mode == ["--render", "never"]:
        assert notes == []
    elif not mode:  # auto renders only the lamp finder's section
        assert notes == ["note: rendered 6 pages: render-timeout 1, rendered 5"]


def test_workers_give_the_same_findings(tmp_path: Path) -> None:
    reports: dict[str, dict[str, Any]] = {}
    with serve_demo() as base:
        for workers in ("1", "2"):
            out = tmp_path / workers
            argv = ["audit", base, "-o", str(out), "--format", "json", "--render", "never"]
            assert main([*argv, "--workers", workers]) == 1
            reports[workers] = json.loads((out / "audit.json").read_text("utf-8"))
            store = SqliteStore(out / "crawl.sqlite")
            try:  # the crawl ran with that many parse processes
                stored = CrawlConfig.from_json(store.get_meta("config") or "{}")
            finally:
                store.close()
            assert stored.workers == int(workers)
    one, two = reports["1"], reports["2"]
    _assert_expected(base, two, rendered=False)
    assert one["counts"] == two["counts"]
    assert sorted(map(json.dumps, one["findings"])) == sorted(map(json.dumps, two["findings"]))


def test_without_the_render_extra_the_default_is_a_note_and_asked_for_an_error(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    with serve_demo() as base:
        done = run_cli_without_playwright("audit", base, "-o", str(out), "--format", "json")
        asked = run_cli_without_playwright(
            "audit", base, "-o", str(tmp_path / "asked"), "--render", "always"
        )
        # an offline audit of that crawl renders nothing: asking for it is no error
        offline = run_cli_without_playwright(
            "audit", "--db", str(out / "crawl.sqlite"), "--render", "always", "--format", "json"
        )
    assert done.returncode == 1, done.stderr  # the planted faults
    _assert_expected(base, json.loads((out / "audit.json").read_text("utf-8")), rendered=False)
    assert [line for line in done.stderr.splitlines() if "render" in line] == [
        "note: not rendered: 1 page looks built by scripts, but rendering needs the "
        "Playwright package, which is not installed: pip install 'sitemapkit[render]'"
    ]
    assert asked.returncode == 1
    assert asked.stderr.strip() == (
        "sitemapkit: error: rendering needs the Playwright package, which is not installed: "
        "pip install 'sitemapkit[render]'"
    )
    assert not (tmp_path / "asked").exists()
    assert offline.returncode == 1, offline.stderr
    _assert_expected(base, json.loads(offline.stdout), rendered=False)
