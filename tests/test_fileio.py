"""Atomic single-file publishing (:func:`sitemapkit.fileio.atomic_open`): the file appears
whole or not at all, with the permissions any new file gets, and no temporary is left."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sitemapkit.errors import PublishError
from sitemapkit.fileio import atomic_open


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_published_with_the_umask_permissions(tmp_path: Path, mask: int) -> None:
    old = os.umask(mask)
    try:
        with atomic_open(tmp_path / "a.csv") as fh:
            fh.write("x,y\n")
        with atomic_open(tmp_path / "b.bin", "wb") as fh:
            fh.write(b"\x00\x01")
    finally:
        os.umask(old)
    assert (tmp_path / "a.csv").read_text(encoding="utf-8") == "x,y\n"
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"
    for name in ("a.csv", "b.bin"):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o666 & ~mask
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "b.bin"]
    assert _umask() == old


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "inventory.csv"
    target.write_text("old\n", encoding="utf-8")

    def half_written() -> None:
        with atomic_open(target) as fh:
            fh.write("half")
            raise RuntimeError("stopped")

    with pytest.raises(RuntimeError):
        half_written()
    assert target.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["inventory.csv"]


def test_the_temporary_is_beside_the_target_and_never_reused(tmp_path: Path) -> None:
    seen: list[list[str]] = []
    for _ in range(3):
        with atomic_open(tmp_path / "m.html") as fh:
            seen.append(sorted(p.name for p in tmp_path.iterdir() if p.name != "m.html"))
            fh.write("m")
    names = [n for names in seen for n in names]
    assert len(set(names)) == 3
    assert all(n.startswith(".m.html.") and n.endswith(".tmp") for n in names)


def test_a_missing_folder_is_one_publish_error(tmp_path: Path) -> None:
    opened = atomic_open(tmp_path / "nope" / "m.html", what="the map")
    with pytest.raises(PublishError, match="cannot write the map"):
        opened.__enter__()
