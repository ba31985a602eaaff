"""``sitemapkit validate`` and ``sitemapkit urls``: exit codes, formats, SARIF structure."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from sitemapkit.cli import main

FIX = Path(__file__).resolve().parent.parent / "sitemapdata" / "fixtures"
GOOD = str(FIX / "good" / "urlset.xml")
BAD = str(FIX / "bad" / "lastmod-invalid.xml")
WARN = str(FIX / "bad" / "loc-duplicate.xml")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_validate_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "validate", GOOD)[0] == 0
    assert run(capsys, "validate", BAD)[0] == 1
    assert run(capsys, "validate", WARN)[0] == 0
    assert run(capsys, "validate", "--strict", WARN)[0] == 1
    code, _, err = run(capsys, "validate", "no-such-file.xml")
    assert code == 2
    assert "no-such-file.xml" in err
    assert run(capsys, "validate", "--now", "yesterday", GOOD)[0] == 2
    assert run(capsys, "validate", "--format", "yaml", GOOD)[0] == 2


def test_validate_text_never_says_valid_when_checks_were_skipped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "validate", GOOD)
    assert code == 0
    assert "valid" not in out.replace("no errors in the checks that ran", "")
    assert "not checked: loc-other-host, loc-outside-directory" in out
    assert "not checked: xsd" in out


def test_validate_text_line_format(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "validate", "--now", "2024-06-01", BAD)
    assert f'{BAD}:4:38: error lastmod-invalid: "2024-13-01" is not a valid date' in out


def test_validate_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", "--format", "json", BAD, GOOD)
    data = json.loads(out)
    assert code == 1
    assert data["errors"] == 1
    assert data["sitemaps"] == [BAD, GOOD]
    (f,) = data["findings"]
    assert (f["code"], f["line"], f["column"], f["severity"]) == ("lastmod-invalid", 4, 38, "error")
    assert "xsd" in data["skipped"]


def test_validate_sarif_structure(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "validate", "--format", "sarif", str(FIX / "bad" / "hreflang-no-self.xml")
    )
    log = json.loads(out)
    assert code == 1
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-2.1.0.json")
    (run_,) = log["runs"]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "sitemapkit"
    ids = [r["id"] for r in driver["rules"]]
    assert ids == sorted(set(ids))
    levels = {r["ruleId"]: r["level"] for r in run_["results"]}
    assert levels["hreflang-no-self"] == "error"
    assert levels["hreflang-no-default"] == "note"
    for r in run_["results"]:
        assert driver["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
        loc = r["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"].endswith("hreflang-no-self.xml")
        assert loc["region"]["startLine"] >= 1
        assert r["message"]["text"]
    notes = run_["invocations"][0]["toolExecutionNotifications"]
    assert any("xsd" in n["message"]["text"] for n in notes)
    assert run_["invocations"][0]["executionSuccessful"] is True


def test_validate_sitemap_url_and_output_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out_file = tmp_path / "report.json"
    code, out, _ = run(
        capsys,
        "validate",
        "--sitemap-url",
        "https://example.com/blog/s.xml",
        "--format",
        "json",
        "-o",
        str(out_file),
        str(FIX / "bad" / "loc-outside-directory.xml"),
    )
    assert code == 1
    assert out == ""
    data = json.loads(out_file.read_text())
    assert [f["code"] for f in data["findings"]] == ["loc-outside-directory"]
    assert run(capsys, "validate", "--sitemap-url", "not a url", GOOD)[0] == 2


def test_validate_schema_option(capsys: pytest.CaptureFixture[str], xsd_dir: Path) -> None:
    code, out, _ = run(capsys, "validate", "--schema", str(xsd_dir), GOOD)
    assert code == 0
    assert "not checked: xsd" not in out
    code, out, _ = run(
        capsys, "validate", "--schema", str(xsd_dir), str(FIX / "bad" / "urlset-empty.xml")
    )
    assert code == 1
    assert "error xsd-invalid" in out
    assert run(capsys, "validate", "--schema", "/no/such/dir", GOOD)[0] == 2


def test_validate_stdin() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "sitemapkit", "validate", "--now", "2024-06-01", "-"],
        input=Path(BAD).read_bytes(),
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 1
    assert b'-:4:38: error lastmod-invalid: "2024-13-01"' in proc.stdout


def test_urls_formats(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "urls", GOOD)
    assert code == 0
    assert out.splitlines() == [
        "https://example.com/a",
        "https://example.com/b",
        "https://example.com/c",
    ]
    _, out, _ = run(capsys, "urls", "--format", "jsonl", str(FIX / "good" / "index.xml"))
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows[0] == {
        "loc": "https://example.com/a",
        "lastmod": "2024-05-01",
        "sitemap": str(FIX / "good" / "urlset.xml"),
    }
    assert rows[3]["images"] == ["https://example.com/i.jpg"]
    _, out, _ = run(capsys, "urls", "--format", "csv", str(FIX / "good" / "hreflang.xml"))
    table = list(csv.DictReader(io.StringIO(out)))
    assert table[0]["loc"] == "https://example.com/en"
    assert "de=https://example.com/de" in table[0]["alternates"]


def test_urls_no_follow_lists_the_index(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "urls", "--no-follow", str(FIX / "good" / "index.xml"))
    assert out.splitlines() == ["https://example.com/urlset.xml", "https://example.com/image.xml"]


def test_urls_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "urls", "missing.xml")[0] == 2
    code, out, err = run(capsys, "urls", str(FIX / "bad" / "index-child-missing.xml"))
    assert code == 1
    assert "index-child-missing" in err
    assert out.splitlines() == ["https://example.com/leaf"]
    code, _, err = run(capsys, "urls", str(FIX / "bad" / "xml-doctype.xml"))
    assert code == 1
    assert "xml-doctype" in err
    code, _, err = run(capsys, "urls", "http://127.0.0.1:9/sitemap.xml")
    assert code == 2
    assert "fetch-failed" in err


def test_validate_schema_streams_large_files(
    capsys: pytest.CaptureFixture[str], xsd_dir: Path, tmp_path: Path
) -> None:
    body = "".join(
        f"<url><loc>https://example.com/{i}/{'p' * 100}</loc></url>\n" for i in range(45_000)
    )
    path = tmp_path / "big.xml"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset '
        'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        + body
        + "<url><loc>https://example.com/x</loc><priority>high</priority></url>\n"
        "</urlset>\n"
    )
    assert path.stat().st_size > 5 * 1024 * 1024
    code, out, _ = run(capsys, "validate", "--schema", str(xsd_dir), str(path))
    assert code == 1
    assert "error xsd-invalid: schema: Element" in out
    assert "priority-invalid" in out


def test_schema_without_lxml_is_a_clear_usage_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, xsd_dir: Path
) -> None:
    monkeypatch.setitem(sys.modules, "lxml", None)
    code, _, err = run(capsys, "validate", "--schema", str(xsd_dir), GOOD)
    assert code == 2
    assert "pip install 'sitemapkit[xsd]'" in err


# --- over a real server on 127.0.0.1 ---------------------------------------------------------
@pytest.fixture
def site():
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sitemapdata"))
    from reader_http import SiteServer

    server = SiteServer().start()
    yield server
    server.stop()


def test_validate_over_http_exit_codes(capsys: pytest.CaptureFixture[str], site) -> None:
    head = '<?xml version="1.0" encoding="UTF-8"?>\n'
    ns = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
    site.body("/robots.txt", f"Sitemap: {site.url('/index.xml')}\n")
    site.body(
        "/index.xml",
        f"{head}<sitemapindex {ns}>\n<sitemap><loc>{site.url('/a.xml')}"
        f"</loc></sitemap>\n<sitemap><loc>{site.url('/gone.xml')}</loc></sitemap>\n"
        "</sitemapindex>\n",
    )
    site.body("/a.xml", f"{head}<urlset {ns}>\n<url><loc>{site.url('/p')}</loc></url>\n</urlset>")
    code, out, _ = run(capsys, "validate", site.url("/"))
    assert code == 1
    assert f"{site.url('/index.xml')}:4: error index-child-missing" in out
    assert "HTTP 404" in out
    code, out, _ = run(capsys, "validate", site.url("/a.xml"))
    assert code == 0
    assert "not checked: loc-other-host" not in out
    code, out, _ = run(capsys, "validate", site.url("/nothing.xml"))
    assert code == 2
    assert "http-404" in out
    code, out, _ = run(capsys, "urls", site.url("/"))
    assert code == 1
    assert out.splitlines() == [site.url("/p")]


def test_urls_from_stdin() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "sitemapkit", "urls", "-"],
        input=Path(GOOD).read_bytes(),
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0
    assert proc.stdout.decode().split() == [
        "https://example.com/a",
        "https://example.com/b",
        "https://example.com/c",
    ]
