"""Shared fixtures: the independent XSD cross-check with xmllint, and paths.

The schemas live in ``../shared/xsd`` beside the repository (they may not ship
in the package); tests that need them skip with a clear reason when absent.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
XSD_DIR = REPO.parent / "shared" / "xsd"


def _xmllint(path: Path, schema: str) -> None:
    if not XSD_DIR.is_dir():
        pytest.skip(f"schemas not found at {XSD_DIR} (the shared/ folder beside the repo)")
    exe = shutil.which("xmllint")
    if exe is None:
        pytest.fail("xmllint is missing: run `make system-deps` (Debian libxml2-utils)")
    data = path.read_bytes()
    if path.suffix == ".gz":
        import gzip

        data = gzip.decompress(data)
    proc = subprocess.run(
        [exe, "--noout", "--nonet", "--schema", str(XSD_DIR / schema), "-"],
        input=data,
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0, f"xmllint rejected {path}:\n{proc.stderr.decode()[:2000]}"


@pytest.fixture
def xmllint_urlset() -> Callable[[Path], None]:
    """Validate a urlset (with any extension) against ``all.xsd`` with xmllint."""
    return lambda path: _xmllint(path, "all.xsd")


@pytest.fixture
def xmllint_index() -> Callable[[Path], None]:
    """Validate a sitemap index against ``siteindex.xsd`` with xmllint."""
    return lambda path: _xmllint(path, "siteindex.xsd")


@pytest.fixture
def xsd_dir() -> Path:
    if not XSD_DIR.is_dir():
        pytest.skip(f"schemas not found at {XSD_DIR}")
    return XSD_DIR
