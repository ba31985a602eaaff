"""Real small filesystems for fault tests: a tmpfs mounted by the test (read-only or tiny).

Mounting needs root (or CAP_SYS_ADMIN); where that is not allowed the test is
skipped with the reason, never faked with chmod (root ignores permissions).
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def tmpfs(where: Path, *, size: str = "1m", readonly: bool = False) -> Iterator[Path]:
    """Mount a fresh tmpfs at ``where`` (created) for the block; unmounted after."""
    where.mkdir(parents=True, exist_ok=True)
    options = f"size={size}" + (",ro" if readonly else "")
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.strip() or proc.returncode}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)
