"""Publishing a finished sitemap set: all of it or none of it, and only what we wrote.

The writer leaves every file of the new set complete under a temporary name
in the output folder.  Publishing then

1. records in the manifest every name this tool may leave in the folder (the
   previous set's and the new set's) *before* anything is renamed, so a
   crash at any later point still leaves a manifest that covers every file
   we put there;
2. renames the parts into place, then the root (``sitemap.xml``) last, with
   Ctrl-C, SIGTERM and SIGHUP *deferred*: a signal that arrives once the
   first rename has happened is held until the last one is done and is then
   re-delivered, so an interrupted run exits as interrupted but never leaves
   ``sitemap-1.xml`` new and ``sitemap-2.xml`` old (a mixed set that search
   engines would read);
3. removes the files the previous manifest lists that the new set no longer
   has, and writes the manifest of the new set.

Only names the manifest lists are ever removed: a ``sitemap-2024.xml`` the
user keeps beside the output looks like a part but was never ours.  A folder
without a manifest (written by a version before manifests) has nothing
removed; names that look like stale parts are reported as warnings instead.

The manifest is ``.sitemapkit-manifest.json`` (``.sitemapkit-manifest-NAME.json``
for another ``basename``), written under a temporary name and renamed.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import Final

from sitemapkit.errors import PublishError

#: Signals held while the set is being switched; each is re-delivered afterwards.
DEFERRED_SIGNALS: Final = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_MANIFEST_VERSION: Final = 1
#: A name the manifest may hold: a plain file name, never a path.
_PLAIN_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")

#: Called with a step label ("manifest", "rename <name>", "remove <name>", "done")
#: before each step of a publish.  ``None`` in normal runs; tests set it to signal
#: or pause the publish at every step.
step_hook: Callable[[str], None] | None = None


def manifest_path(out_dir: Path, basename: str) -> Path:
    """Where the manifest of the set named ``basename`` lives in ``out_dir``."""
    suffix = "" if basename == "sitemap" else f"-{basename}"
    return out_dir / f".sitemapkit-manifest{suffix}.json"


def read_manifest(out_dir: Path, basename: str) -> set[str] | None:
    """The file names the previous run recorded, or ``None`` if it left no (readable) manifest.

    A damaged manifest counts as none: removing nothing is the safe side.
    """
    try:
        data = json.loads(manifest_path(out_dir, basename).read_bytes())
    except (OSError, ValueError):
        return None
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, list):
        return None
    return {f for f in files if isinstance(f, str) and _PLAIN_NAME.fullmatch(f)}


def _write_manifest(out_dir: Path, basename: str, names: Sequence[str], fsync: bool) -> None:
    target = manifest_path(out_dir, basename)
    temp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    body = {"written_by": "sitemapkit", "version": _MANIFEST_VERSION, "files": sorted(names)}
    try:
        with temp.open("w", encoding="utf-8") as fh:
            json.dump(body, fh, indent=1)
            fh.write("\n")
            fh.flush()
            if fsync:
                os.fsync(fh.fileno())
        temp.replace(target)
    finally:
        with contextlib.suppress(OSError):
            temp.unlink()


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGHUP for the block; re-deliver each one caught after it.

    Python runs signal handlers only on the main thread, so off the main
    thread (a crawl publishes from a worker thread) nothing can interrupt
    the block and nothing needs holding.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        del frame
        caught.append(signum)

    previous = {sig: signal.getsignal(sig) for sig in DEFERRED_SIGNALS}
    for sig in previous:
        signal.signal(sig, hold)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            # None: a handler not installed from Python; the default is the nearest we can put back.
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)
        for signum in dict.fromkeys(caught):
            signal.raise_signal(signum)


def _step(label: str) -> None:
    if step_hook is not None:
        step_hook(label)


def fsync_dir(path: Path) -> None:
    """Make the folder's renames durable (a rename is in the folder, not the file)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _strays(out_dir: Path, keep: set[str], stale_pattern: re.Pattern[str]) -> list[str]:
    """A warning naming files that look like old parts but that no manifest says are ours."""
    strays = sorted(
        p.name
        for p in out_dir.iterdir()
        if p.name not in keep and stale_pattern.fullmatch(p.name) and p.is_file()
    )
    if not strays:
        return []
    more = f" and {len(strays) - 5} more" if len(strays) > 5 else ""
    return [
        "left alone, as no manifest of an earlier run says they are ours: "
        + ", ".join(strays[:5])
        + more
    ]


def publish_set(
    out_dir: Path,
    moves: Sequence[tuple[Path, Path]],
    *,
    basename: str,
    stale_pattern: re.Pattern[str],
    fsync: bool,
) -> list[str]:
    """Rename every ``(temp, final)`` pair into place, root last; return warnings.

    ``moves`` must end with the root.  ``stale_pattern`` matches the names a set
    of this basename uses: a name is removed only when the previous manifest
    lists it *and* it has that shape; in a folder without a manifest the
    pattern only decides what to warn about.
    """
    new = [dst.name for _, dst in moves]
    old = read_manifest(out_dir, basename)
    try:
        _step("manifest")
        _write_manifest(out_dir, basename, sorted(set(new) | (old or set())), fsync)
        if fsync:
            fsync_dir(out_dir)
        with signals_deferred():
            for src, dst in moves:
                _step(f"rename {dst.name}")
                src.replace(dst)
            if fsync:
                fsync_dir(out_dir)
    except OSError as exc:
        raise PublishError(
            f"cannot publish the set in {out_dir}: {exc.strerror or exc}"
            + (f" ({exc.filename})" if exc.filename else "")
        ) from exc
    keep = set(new)
    warnings = _strays(out_dir, keep, stale_pattern) if old is None else []
    for name in sorted((old or set()) - keep):
        if not stale_pattern.fullmatch(name):
            continue  # a manifest names only our files; anything else is not removed
        _step(f"remove {name}")
        path = out_dir / name
        with contextlib.suppress(FileNotFoundError, IsADirectoryError):
            if path.is_file() and not path.is_symlink():
                path.unlink()
    try:
        _step("manifest")
        _write_manifest(out_dir, basename, new, fsync)
    except OSError as exc:
        warnings.append(f"the set is published but its manifest was not updated: {exc}")
    _step("done")
    return warnings
