"""Atomic single-file publishing, shared by every command that writes one file.

A file is written under a temporary name in its target folder and renamed
into place only when complete, so a crash or Ctrl-C never leaves a
half-written file where a user (or a web server) would pick it up.  The
sitemap *set* writer has its own, set-level publish in
:mod:`sitemapkit.write.writer`.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from sitemapkit.errors import PublishError


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_open(target: Path, mode: str = "w", *, what: str = "the file") -> Iterator[IO[Any]]:
    """Open a temporary file beside ``target`` (``"w"``: UTF-8 text, or ``"wb"``).

    It is renamed over ``target`` when the block ends without an exception.  The
    folder must exist: a mistyped output folder is an error, not a surprise.
    """
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise PublishError(f"{target}: cannot write {what}: {exc.strerror or exc}") from exc
    tmp = Path(tmp_name)
    published = False
    try:
        # mkstemp makes 0600 files; a published file gets the usual permissions.
        tmp.chmod(0o666 & ~_umask())
        fh: IO[Any] = (
            os.fdopen(fd, "wb")
            if mode == "wb"
            else os.fdopen(fd, "w", encoding="utf-8", newline="")
        )
        with fh:
            yield fh
        tmp.replace(target)
        published = True
    except OSError as exc:
        raise PublishError(f"{target}: cannot write {what}: {exc.strerror or exc}") from exc
    finally:
        if not published:  # also on Ctrl-C: no temporary file is left behind
            with contextlib.suppress(OSError):
                tmp.unlink()


#: A cell starting with one of these is a formula to Excel, LibreOffice and Sheets.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_cell(value: object) -> str:
    """A CSV cell; text a spreadsheet would run as a formula gets a leading ``'``.

    Titles and evidence come from hostile pages: ``=HYPERLINK(...)`` must stay text
    when a CSV export (inventory, audit, diff) is opened in a spreadsheet (OWASP
    "CSV injection").  JSON output is left exact.
    """
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_START) else text
