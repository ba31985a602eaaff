"""One writer per crawl store: an OS lock held for the whole run.

Why a lock file beside the database, and why ``flock``:

* Two crawls writing one database interleave their frontiers and one of them
  dies on ``database is locked``; two crawls into one ``-o`` folder used to
  delete each other's database.  The lock is taken *before* the database is
  opened, created or replaced, so the second process touches nothing.
* ``flock`` belongs to the open file and dies with the process (``kill -9``
  included): there is no stale lock to clean up after a crash, so ``--resume``
  never has to guess whether the holder is alive.  It is independent of the
  ``fcntl`` byte-range locks SQLite takes on the database itself.
* The lock file is removed when the lock is released, so a finished crawl
  leaves only its database behind.  Removing a lock file is safe only with a
  check: a process that opened the file just before the holder removed it
  would lock an orphaned inode, so after locking we make sure the path still
  names the inode we hold, and start over if it does not.  A ``kill -9`` leaves
  the file, unlocked and harmless.  It holds the holder's pid, only to name it
  in the message.
* A fleet (``sitemapkit worker``) shares the store: its processes hold the lock
  *shared* (``LOCK_SH``), which still keeps a single-process crawl (``LOCK_EX``)
  out and is kept out by one.  The last sharer to leave removes the file: it is
  the one that can turn its lock exclusive without waiting.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from sitemapkit.errors import StoreBusyError, StoreError, StoreWriteError

LOCK_SUFFIX = ".lock"


def lock_path(db: Path) -> Path:
    """The lock file that guards ``db``."""
    return db.with_name(db.name + LOCK_SUFFIX)


class StoreLock:
    """A non-blocking lock on ``db`` for as long as this object is open (exclusive or shared)."""

    def __init__(self, db: Path, *, shared: bool = False) -> None:
        self.db = db
        self.path = lock_path(db)
        self.shared = shared
        self._fd: int | None = None
        for _ in range(100):  # each retry means another process released it meanwhile
            fd = self._try_lock()
            if _still_names(self.path, fd):
                self._fd = fd
                break
            os.close(fd)
        else:  # pragma: no cover - a hundred releases racing this one acquisition
            raise StoreError(f"{db}: cannot lock {self.path}: it keeps being replaced")
        with contextlib.suppress(OSError):  # the pid is only for the message
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, f"{os.getpid()}\n".encode(), 0)

    def _try_lock(self) -> int:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise StoreWriteError(
                f"{self.db}: cannot create the lock file {self.path}: {exc.strerror or exc}"
            ) from exc
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if self.shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_pid(fd)
            os.close(fd)
            who = f" (pid {holder})" if holder else ""
            raise StoreBusyError(
                f"{self.db}: in use by another sitemapkit process{who}; "
                + (
                    "it is not a fleet crawl (start it with `crawl --fleet` to add workers)"
                    if self.shared
                    else "wait for it to finish or use another --db / -o"
                )
            ) from None
        except OSError as exc:
            os.close(fd)
            raise StoreError(f"{self.db}: cannot lock {self.path}: {exc.strerror or exc}") from exc
        return fd

    def share(self) -> None:
        """Let the other processes of a fleet in (exclusive -> shared); no-op when shared."""
        if self._fd is not None and not self.shared:
            fcntl.flock(self._fd, fcntl.LOCK_SH)
            self.shared = True

    def release(self) -> None:
        """Remove the lock file (unless others share it), then unlock; safe to call twice."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        last = True
        if self.shared:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                last = False  # another worker still holds it: the file stays
        if last:
            with contextlib.suppress(OSError):
                self.path.unlink()
        os.close(fd)


def _still_names(path: Path, fd: int) -> bool:
    """True when ``path`` is the file open as ``fd`` (not removed or replaced since)."""
    try:
        here = path.stat()
    except OSError:
        return False
    held = os.fstat(fd)
    return (here.st_dev, here.st_ino) == (held.st_dev, held.st_ino)


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
