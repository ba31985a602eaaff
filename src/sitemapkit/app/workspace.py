"""The app's workspace: one folder per site, holding the same files the CLI makes.

Why the layout is plain files: a crawl started from the app is a ``sitemapkit
crawl --db sites/<id>/crawl.sqlite -o sites/<id>/out`` run, so ``--why``,
``history`` and ``inventory`` work on it from a terminal, and a crawl made from
the terminal into that folder shows up in the app.  Site ids are checked here,
in one place, before any path is made from them: nothing outside the workspace
is ever named.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from yarl import URL

from sitemapkit.errors import InputError

#: What a site id may look like (lower-case host name characters, a dash for the port).
SITE_ID = re.compile(r"^[a-z0-9][a-z0-9.-]{0,99}$")
DB_NAME = "crawl.sqlite"
OUT_NAME = "out"
LOG_NAME = "crawl.log"
JOB_NAME = "job.json"
AUDIT_NAME = "audit"


class UnknownSite(InputError):  # noqa: N818 - a 404, named for what it means
    """No site with that id in this workspace (or an id that could name something outside)."""


def site_id_for(url: str) -> str:
    """The folder name of the site at ``url``: its host, and ``-port`` when one is given."""
    try:
        parsed = URL(url)
    except ValueError as exc:
        raise InputError(f"{url!r}: not a URL ({exc})") from exc
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise InputError(f"{url!r}: give an http:// or https:// address")
    host = parsed.raw_host or parsed.host
    name = re.sub(r"[^a-z0-9.-]+", "-", host.lower()).strip("-.")
    if not parsed.is_default_port() and parsed.explicit_port is not None:
        name = f"{name}-{parsed.explicit_port}"
    name = name.replace("..", ".")
    if not SITE_ID.match(name):
        raise InputError(f"{url!r}: cannot make a site name of its host")
    return name


@dataclass(slots=True)
class Job:
    """The last child process run for a site, as ``job.json`` keeps it across restarts."""

    kind: str
    argv: list[str]
    pid: int | None = None
    started_at: float = 0.0
    ended_at: float | None = None
    exit_code: int | None = None
    message: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def public(self) -> dict[str, Any]:
        """What the API shows (no argv or pid: they name local paths and processes)."""
        return {
            "kind": self.kind,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "exit_code": self.exit_code,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class SitePaths:
    """Every file of one site, made from a checked id."""

    id: str
    dir: Path

    @property
    def db(self) -> Path:
        return self.dir / DB_NAME

    @property
    def out(self) -> Path:
        return self.dir / OUT_NAME

    @property
    def log(self) -> Path:
        return self.dir / LOG_NAME

    @property
    def job_file(self) -> Path:
        return self.dir / JOB_NAME

    @property
    def audit_dir(self) -> Path:
        return self.dir / AUDIT_NAME

    def read_job(self) -> Job | None:
        """The last job, or ``None`` when there is none or its file is unreadable."""
        try:
            data = json.loads(self.job_file.read_text("utf-8"))
            return Job(**data)
        except (OSError, ValueError, TypeError):
            return None

    def write_job(self, job: Job) -> None:
        """Replace ``job.json`` whole (temporary name + rename); a full disk loses nothing."""
        tmp = self.job_file.with_name(f".{JOB_NAME}.{os.getpid()}.tmp")
        try:
            tmp.write_text(json.dumps(asdict(job)), "utf-8")
            tmp.replace(self.job_file)
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise


class Workspace:
    """The folder ``serve --workspace`` names: ``sites/<id>/`` per site, ``public/`` to publish."""

    def __init__(self, root: Path, publish_root: Path | None = None) -> None:
        self.root = root.resolve()
        self.sites_dir = self.root / "sites"
        self.publish_root = (publish_root or self.root / "public").resolve()

    def site(self, site_id: str, *, create: bool = False) -> SitePaths:
        """The paths of ``site_id``; :class:`UnknownSite` unless it is a valid, existing id."""
        if not SITE_ID.match(site_id) or ".." in site_id:
            raise UnknownSite(f"{site_id!r}: not a site id")
        folder = self.sites_dir / site_id
        if create:
            folder.mkdir(parents=True, exist_ok=True)
        elif not folder.is_dir():
            raise UnknownSite(f"{site_id}: no such site in {self.root}")
        if folder.resolve().parent != self.sites_dir.resolve():
            raise UnknownSite(f"{site_id}: leads outside the workspace")
        return SitePaths(site_id, folder)

    def site_ids(self) -> list[str]:
        """The ids of the sites in the workspace (folders with a store or a job)."""
        if not self.sites_dir.is_dir():
            return []
        found = []
        for entry in self.sites_dir.iterdir():
            if SITE_ID.match(entry.name) and entry.is_dir() and not entry.is_symlink():
                paths = SitePaths(entry.name, entry)
                if paths.db.exists() or paths.job_file.exists():
                    found.append(entry.name)
        return sorted(found)
