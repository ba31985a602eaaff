"""The peer corpus: 130 sitemap-reading cases from other projects' test suites
(ultimate-sitemap-parser, scrapy, sitemap.js, trafilatura), each with the result the
peer's own test expects (``shared/corpus/peers``, see its README).

Every case runs the real commands (``sitemapkit urls --format jsonl`` and ``sitemapkit
validate --format json``) in-process; ``http`` cases are served by a real aiohttp server
on 127.0.0.1 with the peer's mocked responses (its host rewritten to the local server).
A case either agrees with the peer or is listed in :data:`DIFFERS` with the reason we
decided to differ; a listed case that starts to agree fails too (strict xfail), so the
list stays true.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from aiohttp import web

from sitemapdata.reader_http import SiteServer
from sitemapkit.cli import main

REPO = Path(__file__).resolve().parents[2]


def _corpus_dir() -> Path | None:
    for candidate in (
        REPO.parent / "shared" / "corpus" / "peers",
        Path("/work/shared/corpus/peers"),
    ):
        if (candidate / "cases" / "manifest.json").is_file():
            return candidate
    return None


CORPUS = _corpus_dir()
CASES: list[dict[str, Any]] = (
    json.loads((CORPUS / "cases" / "manifest.json").read_text(encoding="utf-8"))
    if CORPUS is not None
    else []
)

#: Cases where we decided to differ from the peer, and why.
_AS_WRITTEN = (
    "values are reported as written: usp replaces an invalid changefreq ('when we feel like "
    "it') and priority (1.1) with its defaults; `validate` reports changefreq-invalid and "
    "priority-invalid, and `urls` does not invent values"
)
DIFFERS: dict[str, str] = {
    "usp/test_basic/test_sitemap_tree_for_homepage[http]": _AS_WRITTEN,
    "usp/test_basic/test_sitemap_tree_for_homepage/sitemap_pages.xml": _AS_WRITTEN,
    "usp/test_from_str/test_xml_pages": _AS_WRITTEN,
    "usp/test_xml/test_sitemap_tree_for_homepage_unpublished_sitemap[http]": (
        "sitemaps named in robots.txt are the site's own choice: the well-known paths "
        "(/sitemap_index.xml here) are guessed only when robots.txt names none, so a "
        "sitemap the site did not publish is not read"
    ),
    "scrapy/test_sitemap_wrong_ns": (
        '<url xmlns=""> under a urlset in another namespace is no entry: reader and '
        "validator share one definition of an entry, and `validate` calls the file "
        "urlset-empty (issue 10: the reader must not take what validate rejects)"
    ),
    "scrapy/test_xml_entity_expansion": (
        "a DOCTYPE stops the read before anything is parsed (xml-doctype): hardening over "
        "tolerance; scrapy parses on with entities unresolved"
    ),
    "scrapy/test_get_sitemap_urls_from_robotstxt_skips_invalid_utf8_urls": (
        "a Sitemap: line that is not UTF-8 is reported (encoding-not-utf8) and not fetched, "
        "where scrapy skips it without a word"
    ),
    "sjs/index-unescaped-lt.xml": (
        "streaming: the entries before the malformed spot are listed and the error names "
        "its line (exit 1); sitemap.js rejects the whole file"
    ),
    "sjs/security/should-correctly-handle-multiple-xhtml-link-elements": (
        "`validate` checks hreflang sets (no self link, no return links) that sitemap.js "
        "does not; the file's alternates are read exactly as the peer reads them"
    ),
}


@dataclass
class Run:
    """What the commands gave for one case."""

    code: int
    entries: list[dict[str, Any]]
    err: str
    validate_code: int
    findings: list[dict[str, Any]]
    output: str


def _params() -> Iterator[Any]:
    if CORPUS is None:
        yield pytest.param(
            None,
            marks=pytest.mark.skip(reason="shared/corpus/peers not found beside the repo"),
            id="corpus-absent",
        )
        return
    for case in CASES:
        marks = []
        if case["id"] in DIFFERS:
            marks.append(pytest.mark.xfail(strict=True, reason=DIFFERS[case["id"]]))
        yield pytest.param(case, marks=marks, id=case["id"])


def _serve(server: SiteServer, case: dict[str, Any]) -> tuple[str, str]:
    """Register the case's mocks on ``server``; (the peer's base, ours)."""
    http = case["http"]
    base, local = http["base"].rstrip("/"), server.url("").rstrip("/")
    peer = re.compile(re.escape(base.encode()), re.IGNORECASE)  # HTTP://HOST too
    for mock in http["mocks"]:
        body = base64.b64decode(mock["body_b64"])
        if body.startswith(b"\x1f\x8b"):
            body = gzip.compress(peer.sub(local.encode(), gzip.decompress(body)))
        else:
            body = peer.sub(local.encode(), body)
        headers = {k: v.replace(base, local) for k, v in mock["headers"].items()}
        status = mock["status"]
        parts = urlsplit(mock["url"])
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")

        def handler(
            _r: web.Request, b: bytes = body, s: int = status, h: dict[str, str] = headers
        ) -> web.Response:
            return web.Response(body=b, status=s, headers=h)

        server.routes[path] = handler
    return base, local


def _run(capsys: pytest.CaptureFixture[str], source: str, args: list[str]) -> Run:
    code = main(["urls", "--format", "jsonl", *args, source])
    out, err = capsys.readouterr()
    entries = [json.loads(line) for line in out.splitlines() if line.strip()]
    caps = [a for a in args if a != "--no-follow"]
    vcode = main(["validate", "--format", "json", *caps, source])
    vout, verr = capsys.readouterr()
    findings = json.loads(vout)["findings"] if vout.strip().startswith("{") else []
    return Run(int(code), entries, err, int(vcode), findings, out + err + vout + verr)


def _same_date(ours: str | None, theirs: str | None) -> bool:
    if ours == theirs:
        return True
    if ours is None or theirs is None:
        return False
    try:
        a = datetime.fromisoformat(ours.replace("Z", "+00:00"))
        b = datetime.fromisoformat(theirs.replace("Z", "+00:00"))
    except ValueError:
        return False
    return a == b


def _field_problems(
    entry: dict[str, Any], want: dict[str, Any], fix: Callable[[str], str]
) -> list[str]:
    """How one of our entries differs from the fields the peer checks (``fix``: the peer's
    URLs as served here)."""
    bad: list[str] = []
    for key, value in want.items():
        if key == "priority_is_default_if_absent":
            continue
        if key == "priority":
            got = entry.get("priority")
            # we report what the file says; the peer fills its default for a missing one
            if got is None and value == want.get("priority_is_default_if_absent"):
                continue
            if got is None or float(got) != float(value):
                bad.append(f"priority {got!r} != {value!r}")
        elif key == "lastmod":
            if not _same_date(entry.get("lastmod"), value or None):  # the peer's "" is none
                bad.append(f"lastmod {entry.get('lastmod')!r} != {value!r}")
        elif key == "changefreq":
            if entry.get("changefreq") != value:
                bad.append(f"changefreq {entry.get('changefreq')!r} != {value!r}")
        elif key == "images":
            if entry.get("images", []) != [fix(u) for u in value]:
                bad.append(f"images {entry.get('images')!r} != {value!r}")
        elif key == "video_count":
            if len(entry.get("videos", [])) != value:
                bad.append(f"videos {len(entry.get('videos', []))} != {value}")
        elif key == "alternates":
            if entry.get("alternates", {}) != {k: fix(v) for k, v in value.items()}:
                bad.append(f"alternates {entry.get('alternates')!r} != {value!r}")
        elif key == "news_title":
            if (entry.get("news") or {}).get("title") != value:
                bad.append(f"news title {entry.get('news')!r} != {value!r}")
        else:  # pragma: no cover - a new kind of expectation in the corpus
            bad.append(f"unknown field {key}")
    return bad


def _codes_ok(findings: list[dict[str, Any]], wanted: list[str]) -> list[str]:
    codes = {f["code"] for f in findings}
    bad = [w for w in wanted if not codes & set(w.split("|"))]
    if not wanted and any(f["severity"] == "error" for f in findings):
        bad.append(f"errors where the peer accepts: {sorted(codes)}")
    return bad


def _compare(case: dict[str, Any], run: Run, rewrite: tuple[str, str] | None) -> list[str]:
    """Every way our run differs from what the peer's test expects (empty: agreement)."""
    exp = case["expect"]

    def fix(url: str) -> str:
        if rewrite is None:
            return url
        return re.sub(re.escape(rewrite[0]), rewrite[1], url, flags=re.IGNORECASE)

    norm = unquote if exp.get("url_compare") == "percent-decoded" else (lambda u: u)
    locs = [e["loc"] for e in run.entries]
    ours = [norm(u) for u in locs]
    bad: list[str] = []
    if "urls" in exp and ours != [norm(fix(u)) for u in exp["urls"]]:
        bad.append(f"urls {ours[:5]}... != {exp['urls'][:5]}...")
    if "urls_set" in exp and set(ours) != {norm(fix(u)) for u in exp["urls_set"]}:
        bad.append(f"url set {sorted(ours)[:5]} != {sorted(exp['urls_set'])[:5]}")
    if "count" in exp and len(locs) != exp["count"]:
        bad.append(f"{len(locs)} URLs != {exp['count']}")
    for url in exp.get("urls_absent", []):
        if url in locs:
            bad.append(f"{url} listed")
    for url in exp.get("urls_contains", []):
        if fix(url) not in locs:
            bad.append(f"{url} missing")
    by_loc = {norm(e["loc"]): e for e in run.entries}
    for url, want in exp.get("fields", {}).items():
        entry = by_loc.get(norm(fix(url)))
        if entry is None:
            bad.append(f"no entry {url}")
        else:
            bad.extend(f"{url}: {p}" for p in _field_problems(entry, want, fix))
    for url, hrefs in exp.get("alternate_hrefs", {}).items():
        got = sorted(by_loc.get(url, {}).get("alternates", {}).values())
        if got != sorted(hrefs):
            bad.append(f"{url} alternates {got} != {sorted(hrefs)}")
    for url, pairs in exp.get("alternates_contain", {}).items():
        alts = by_loc.get(url, {}).get("alternates", {})
        bad.extend(f"{url} lacks {k}={v}" for k, v in pairs.items() if alts.get(k) != v)
    if exp.get("rejected") and (locs or run.code == 0):
        bad.append(f"not rejected (exit {run.code}, {len(locs)} URLs)")
    if exp.get("no_crash") and (
        "Traceback" in run.output or {run.code, run.validate_code} - {0, 1}
    ):
        bad.append(f"crashed (exit {run.code}/{run.validate_code})")
    if exp.get("no_leak") and exp["no_leak"] in run.output:
        bad.append(f"leaked {exp['no_leak']!r}")
    wanted = exp.get("validate_codes", exp.get("validate_codes_http"))
    if wanted is not None:
        bad.extend(_codes_ok(run.findings, wanted))
    codes = {f["code"] for f in run.findings}
    bad.extend(f"validate reports {c}" for c in exp.get("validate_absent", []) if c in codes)
    errors = sum(f["severity"] == "error" for f in run.findings)
    if errors < exp.get("validate_min_errors", 0):
        bad.append(f"{errors} errors < {exp['validate_min_errors']}")
    return bad


@pytest.fixture(scope="module")
def server() -> Iterator[SiteServer]:
    srv = SiteServer().start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.mark.parametrize("case", list(_params()))
def test_peer_case(
    case: dict[str, Any], server: SiteServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert CORPUS is not None
    args = list(case.get("args") or [])
    if case["mode"] == "file":
        run = _run(capsys, str(CORPUS / "cases" / case["file"]), args)
        rewrite = None
    else:
        server.routes.clear()
        rewrite = _serve(server, case)
        run = _run(capsys, case["http"]["start"].replace(*rewrite), args)
    problems = _compare(case, run, rewrite)
    assert not problems, "\n".join(problems)


def test_corpus_is_whole() -> None:
    if CORPUS is None:
        pytest.skip("shared/corpus/peers not found beside the repo")
    assert len(CASES) == 130
    assert set(DIFFERS) <= {c["id"] for c in CASES}
    assert not os.environ.get("SITEMAPKIT_COPY_CORPUS")  # read in place, never copied
