"""The issue's finding: what ``sitemapkit build --skip-invalid`` writes, ``validate`` accepts.

JSON Lines of borderline hreflang values (``en-UK``, ``zz``, alternates that do not
list each other back, an alternate on another host) used to be published and then
reported as ``hreflang-code`` / ``hreflang-not-reciprocal`` errors by our own validator.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sitemapkit.cli import cli

BASE = "https://example.com/"


def _line(loc: str, *alts: tuple[str, str]) -> str:
    return json.dumps({"loc": loc, "alternates": [{"hreflang": c, "href": h} for c, h in alts]})


def _feed(pages: int) -> str:
    lines = []
    for i in range(pages):
        en, de, fr = f"{BASE}en/{i}", f"{BASE}de/{i}", f"{BASE}fr/{i}"
        jp = f"https://example.jp/{i}"
        lines += [
            _line(en, ("en", en), ("de", de), ("en-UK", en), ("ja", jp)),
            _line(de, ("en", en), ("de", de), ("en-UK", en), ("ja", jp)),
            _line(fr, ("fr", fr), ("zz", en), ("en", en)),  # en does not list fr back
            _line(f"{BASE}self/{i}", ("de", de)),  # no self link
        ]
    return "\n".join(lines) + "\n"


def test_build_skip_invalid_output_validates_clean(tmp_path: Path) -> None:
    src = tmp_path / "feed.jsonl"
    src.write_text(_feed(50))
    out = tmp_path / "out"
    runner = CliRunner()
    built = runner.invoke(
        cli, ["build", str(src), "-o", str(out), "--base-url", BASE, "--skip-invalid"]
    )
    assert built.exit_code == 0, built.stderr
    assert "200 URLs" in built.stdout  # every page is listed
    assert "annotations left out (the pages were written without them): 250" in built.stdout
    assert "hreflang-code: 150" in built.stdout
    assert "hreflang-not-reciprocal: 50" in built.stdout
    assert "hreflang-no-self: 50" in built.stdout
    assert f"{src}:1: {BASE}en/0:" in built.stdout  # examples name the line and the page
    checked = runner.invoke(
        cli,
        ["validate", str(out / "sitemap.xml"), "--sitemap-url", f"{BASE}sitemap.xml"],
    )
    assert checked.exit_code == 0, checked.stdout + checked.stderr
    # the alternates on example.jp cannot be checked from this set: listed as not checked
    assert "not checked: hreflang-not-reciprocal (alternates on other hosts)" in checked.stdout


def test_build_without_skip_invalid_fails_naming_the_pages(tmp_path: Path) -> None:
    en, de = f"{BASE}en", f"{BASE}de"
    src = tmp_path / "feed.jsonl"
    src.write_text(_line(en, ("en", en), ("de", de)) + "\n" + _line(de, ("de", de)) + "\n")
    out = tmp_path / "out"
    built = CliRunner().invoke(cli, ["build", str(src), "-o", str(out), "--base-url", BASE])
    assert built.exit_code == 1
    assert "hreflang alternates that do not list them back" in built.stderr
    assert f'"{en}" lists "{de}"' in built.stderr
    assert not out.exists() or not list(out.iterdir())
