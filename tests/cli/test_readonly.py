"""Writing onto a read-only filesystem: one line naming the folder and the cause, exit 1."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitemapdata.mounts import tmpfs

BASE = "https://example.com/"


@pytest.fixture
def readonly(tmp_path: Path) -> Iterator[Path]:
    with tmpfs(tmp_path / "ro", readonly=True) as where:
        yield where


def sitemapkit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sitemapkit", *args], capture_output=True, text=True, check=False
    )


@pytest.fixture
def urls(tmp_path: Path) -> Path:
    src = tmp_path / "urls.txt"
    src.write_text(f"{BASE}a\n{BASE}b\n")
    return src


def test_build_into_a_read_only_folder(readonly: Path, urls: Path) -> None:
    proc = sitemapkit("build", str(urls), "-o", str(readonly), "--base-url", BASE)
    assert proc.returncode == 1
    assert proc.stderr == f"sitemapkit build: cannot write in {readonly}: Read-only file system\n"


def test_build_into_a_new_folder_on_a_read_only_filesystem(readonly: Path, urls: Path) -> None:
    proc = sitemapkit("build", str(urls), "-o", str(readonly / "sub"), "--base-url", BASE)
    assert proc.returncode == 1
    assert proc.stderr == (
        f"sitemapkit build: cannot create output folder {readonly / 'sub'}: Read-only file system\n"
    )


def test_validate_report_onto_a_read_only_filesystem(
    readonly: Path, urls: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    assert sitemapkit("build", str(urls), "-o", str(out)).returncode == 0
    report = readonly / "report.txt"
    proc = sitemapkit("validate", str(out / "sitemap.xml"), "-o", str(report))
    assert proc.returncode == 1
    assert proc.stderr == (
        f"sitemapkit validate: {report}: cannot write the report: Read-only file system\n"
    )
