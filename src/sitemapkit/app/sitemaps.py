"""The Sitemaps view: the set a crawl published, checked, zipped, or copied to a folder.

Publish rules (the app never writes outside the workspace or the publish root
the user named on the command line): the folder is a *relative* path under
the publish root (``serve --publish-root DIR``, default ``WORKSPACE/public``);
an absolute path, a ``..`` part or a symlink that leads out of the root is
refused.  Each file is written under a temporary name and renamed, so a web
server reading the folder never serves half a sitemap; other files in the
folder are left alone.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any

from sitemapkit.errors import InputError
from sitemapkit.fileio import atomic_open
from sitemapkit.validate.validator import validate

#: Findings listed in the view at most (the counts stay exact).
MAX_FINDINGS = 200


def robots_line(base_url: str | None, files: list[Path]) -> str | None:
    """The ``Sitemap:`` line for the site's robots.txt (the set's root, where it is served)."""
    if not base_url or not files:
        return None
    return f"Sitemap: {base_url.rstrip('/')}/{files[0].name}"


def check_set(files: list[Path], base_url: str | None) -> dict[str, Any]:
    """Validate the set with every rule (blocking: run it in a worker thread)."""
    sitemap_url = f"{base_url.rstrip('/')}/{files[0].name}" if base_url else None
    report = validate([str(f) for f in files], sitemap_url=sitemap_url)
    return {
        "ok": report.errors == 0 and not report.unreadable,
        "errors": report.errors,
        "warnings": report.warnings,
        "findings": [
            {
                "code": f.code,
                "severity": str(f.severity),
                "file": Path(f.source).name,
                "line": f.line,
                "message": f.message,
            }
            for f in report.findings[:MAX_FINDINGS]
        ],
    }


def describe(files: list[Path]) -> list[dict[str, Any]]:
    return [{"name": f.name, "bytes": f.stat().st_size} for f in files]


def zip_bytes(files: list[Path], line: str | None) -> bytes:
    """The set as one zip (and a README naming the robots.txt line)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in files:
            zf.write(f, f.name)
        note = "Upload these files to the site's root folder."
        if line:
            note += f"\nAdd this line to robots.txt:\n{line}\n"
        zf.writestr("README.txt", note)
    return buf.getvalue()


def publish_target(root: Path, folder: str) -> Path:
    """The folder ``folder`` names under ``root``; :class:`InputError` if it could escape."""
    if not isinstance(folder, str) or not folder.strip():
        raise InputError("publish: give a folder (relative to the publish root)")
    rel = PurePosixPath(folder.replace("\\", "/"))
    if rel.is_absolute() or ".." in rel.parts or "\x00" in folder:
        raise InputError(f"publish: {folder!r} must be a relative path inside {root}, no '..'")
    target = (root / rel).resolve()
    if not target.is_relative_to(root.resolve()):
        raise InputError(f"publish: {folder!r} leads outside {root} (a symlink?)")
    return target


def publish(files: list[Path], root: Path, folder: str) -> dict[str, Any]:
    """Copy the set into ``folder`` under ``root``, each file whole (temporary name + rename)."""
    target = publish_target(root, folder)
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"publish: cannot make {target}: {exc.strerror or exc}") from exc
    if not target.resolve().is_relative_to(root.resolve()):
        raise InputError(f"publish: {folder!r} leads outside {root} (a symlink?)")
    for f in files:
        with atomic_open(target / f.name, "wb", what="the sitemap") as out:
            out.write(f.read_bytes())
    return {"folder": str(target), "files": [f.name for f in files]}
