"""Shared fixtures: the independent XSD cross-check with xmllint, and paths.

The schemas live in ``../shared/xsd`` beside the repository (they may not ship
in the package); ``SITEMAPKIT_XSD_DIR`` points elsewhere, and a clone made away
from that layout still finds the workplace's ``/work/shared/xsd``.  Tests that
need them skip with a clear reason when none is there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _find_xsd() -> Path:
    override = os.environ.get("SITEMAPKIT_XSD_DIR")
    if override:
        return Path(override)
    beside = REPO.parent / "shared" / "xsd"
    workplace = Path("/work/shared/xsd")
    return workplace if not beside.is_dir() and workplace.is_dir() else beside


XSD_DIR = _find_xsd()


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


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """A real PostgreSQL server for this test session (see tests/pgcluster.py): its URL."""
    import pgcluster

    reason = pgcluster.why_not()
    if reason is not None:
        if os.environ.get("CI"):  # CI installs them (make system-deps): never skip there
            pytest.fail(reason)
        pytest.skip(reason)
    cluster = pgcluster.Cluster()
    try:
        yield cluster.url
    finally:
        cluster.stop()


@pytest.fixture
def pg_spec(pg_url: str, request: pytest.FixtureRequest) -> str:
    """The spec of a fresh crawl store on the test server (a schema of its own per test)."""
    global _PG_SCHEMAS  # noqa: PLW0603 - a counter across the session
    _PG_SCHEMAS += 1
    return f"{pg_url}?schema=t{_PG_SCHEMAS}_{os.getpid()}"


_PG_SCHEMAS = 0


@pytest.fixture(params=["sqlite", "postgresql"])
def store_spec(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh crawl store's ``--db``, once on each engine: a SQLite file, then a schema
    of its own on the session's PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "crawl.sqlite")
    return str(request.getfixturevalue("pg_spec"))
