"""A throwaway PostgreSQL cluster for tests and benchmarks: real server, no mocks.

Why this shape:

* ``initdb`` into a temporary folder, run as the ``postgres`` user (the tests run as
  root, and PostgreSQL refuses to run as root), trust authentication, listening on
  127.0.0.1 only, on a free port, with its socket in the same folder: nothing of the
  machine's own PostgreSQL (if any) is touched.
* Stopped by its own PID (the first line of ``postmaster.pid``), never by name.
* The binaries come from ``PATH`` or Debian's ``/usr/lib/postgresql/N/bin``;
  ``scripts/system-deps.sh`` installs Debian's ``postgresql`` when neither has them.
* ``durable=False`` (the tests) turns fsync off: a test cluster is thrown away; the
  benchmark keeps PostgreSQL's defaults so its figures are what users get.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

PG_USER = "postgres"


def find_bin() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl`` (newest Debian version first)."""
    on_path = shutil.which("initdb")
    if on_path:
        return Path(on_path).parent
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    return versions[-1].parent if versions else None


def _run_as() -> str | None:
    """Root runs the server as ``postgres`` (PostgreSQL refuses root); anyone else as self."""
    return PG_USER if os.geteuid() == 0 else None


def why_not() -> str | None:
    """Why a cluster cannot be started here (``None``: it can)."""
    if find_bin() is None:
        return "PostgreSQL binaries not found (run `make system-deps`: Debian postgresql)"
    if _run_as() is None:
        return None
    try:
        pwd.getpwnam(PG_USER)
    except KeyError:
        return f"no {PG_USER} user (Debian's postgresql package creates it)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """One running server; :attr:`url` reaches its ``postgres`` database."""

    def __init__(self, *, durable: bool = False, options: Sequence[str] = ()) -> None:
        """``options``: more ``postgresql.conf`` lines (a benchmark's ``pg_stat_statements``)."""
        bindir = find_bin()
        if bindir is None:
            raise RuntimeError(why_not() or "no PostgreSQL")
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="sitemapkit-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        if _run_as() is not None:
            user = pwd.getpwnam(PG_USER)
            os.chown(self.root, user.pw_uid, user.pw_gid)
        self.root.chmod(0o700)
        self._as_postgres(
            [
                str(bindir / "initdb"),
                "-D",
                str(self.data),
                "-A",
                "trust",
                "-U",
                PG_USER,
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
                "--no-sync",
            ]
        )
        options = [
            "listen_addresses = '127.0.0.1'",
            f"port = {self.port}",
            f"unix_socket_directories = '{self.root}'",
            "max_connections = 100",
            "shared_buffers = 128MB",
            *options,
        ]
        if not durable:
            options += ["fsync = off", "synchronous_commit = off", "full_page_writes = off"]
        with (self.data / "postgresql.conf").open("a") as fh:
            fh.write("\n".join(options) + "\n")
        self._as_postgres(
            [
                str(bindir / "pg_ctl"),
                "-D",
                str(self.data),
                "-l",
                str(self.root / "log"),
                "-w",
                "-t",
                "60",
                "start",
            ]
        )
        self.pid = int((self.data / "postmaster.pid").read_text().split()[0])
        self.url = f"postgresql://{PG_USER}@127.0.0.1:{self.port}/postgres"

    def _as_postgres(self, argv: list[str]) -> None:
        proc = subprocess.run(
            argv, user=_run_as(), capture_output=True, text=True, check=False, cwd=self.root
        )
        if proc.returncode != 0:
            log = self.root / "log"
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise RuntimeError(f"{argv[0]} failed: {proc.stderr.strip()}\n{tail}")

    def stop(self) -> None:
        """Fast shutdown of our postmaster (by its PID), then remove the folder."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGINT)
            for _ in range(600):
                os.kill(self.pid, 0)
                time.sleep(0.05)
            os.kill(self.pid, signal.SIGKILL)  # pragma: no cover - stuck for 30 s
        shutil.rmtree(self.root, ignore_errors=True)
