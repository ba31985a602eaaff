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
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from sitemapkit.errors import PublishError

#: How the temporary file is made: created here and only here (``O_EXCL``), never through
#: a link someone put in the folder (``O_NOFOLLOW``), not inherited by child processes.
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL
_CREATE |= getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
#: Names tried before giving up (a name taken is another writer's temporary file).
_TRIES = 100


def _temporary_beside(target: Path) -> tuple[int, Path]:
    """A new file ``.NAME.RANDOM.tmp`` beside ``target``, opened for writing.

    Why not ``tempfile.mkstemp``: it makes 0600 files, which a published file must then
    ``chmod`` back after reading the umask (set twice, process-wide), and ``tempfile``
    imports ``shutil``, ``random``, ``bz2`` and ``lzma``: 2 ms of every crawl's start-up
    (issue 13).  Created 0666, the umask applies as to any new file.
    """
    for _ in range(_TRIES):
        tmp = target.parent / f".{target.name}.{os.urandom(6).hex()}.tmp"
        try:
            return os.open(tmp, _CREATE, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {target}")


@contextlib.contextmanager
def atomic_open(target: Path, mode: str = "w", *, what: str = "the file") -> Iterator[IO[Any]]:
    """Open a temporary file beside ``target`` (``"w"``: UTF-8 text, or ``"wb"``).

    It is renamed over ``target`` when the block ends without an exception.  The
    folder must exist: a mistyped output folder is an error, not a surprise.
    """
    try:
        fd, tmp = _temporary_beside(target)
    except OSError as exc:
        raise PublishError(f"{target}: cannot write {what}: {exc.strerror or exc}") from exc
    published = False
    try:
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
