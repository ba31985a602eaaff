"""crawler-commons' ``SiteMapURLTest`` priority values, in our words, held to the XSD.

crawler-commons replaces a priority that is not a number from 0.0 to 1.0 with its default;
we report it (``priority-invalid``) and keep the value as written.  Which values pass is
the sitemap XSD's ``xsd:decimal`` from 0.0 to 1.0: xmllint is asked too, so the rule and
the schema cannot drift apart.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sitemapkit.rulebook.hints import priority_problem


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("0.6", True),
        ("1.1", False),
        ("BAD VALUE", False),
        ("NaN", False),
        ("Infinity", False),
        ("-Infinity", False),
        ("1e-1", False),
        (".5", True),
        ("+0.5", True),
        ("-0.0", True),  # xsd:decimal: zero with a sign is zero
        ("-0.5", False),
        ("1.00", True),
        ("\u0661", False),  # ARABIC-INDIC DIGIT ONE: a digit to \d, not to the schema
        ("0.\u0665", False),
    ],
)
def test_priority(value: str, valid: bool, tmp_path: Path, xsd_dir: Path) -> None:
    assert (priority_problem(value) is None) is valid
    if shutil.which("xmllint") is None:
        pytest.fail("xmllint is missing: run `make system-deps` (Debian libxml2-utils)")
    doc = tmp_path / "sitemap.xml"
    doc.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url>'
        f"<loc>http://a.example/</loc><priority>{value}</priority></url></urlset>",
        encoding="utf-8",
    )
    run = subprocess.run(
        ["xmllint", "--noout", "--nonet", "--schema", str(xsd_dir / "sitemap.xsd"), str(doc)],
        capture_output=True,
        check=False,
    )
    assert (run.returncode == 0) is valid
