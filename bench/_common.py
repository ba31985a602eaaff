"""Shared plumbing for the peer benchmarks: measuring, peers, tables, results.

Why a process-tree poller and not only ``os.wait4``: ``ru_maxrss`` from wait4
is the peak of the *largest single* process among the child and its reaped
descendants, never their sum. Peers that fork (Scrapy's reactor threads are
fine, but wget, shells and ``xargs`` pipelines fork) would look smaller than
they are. So every run is measured both ways:

* ``tree_peak_kib``: the child and all its live descendants, found through
  ``/proc/PID/task/TID/children``, their ``VmRSS`` summed, polled at ~20 Hz.
  A peak shorter than 50 ms can be missed; that is the price of polling.
* ``maxrss_kib``: ``os.wait4`` rusage ``ru_maxrss`` (KiB on Linux), exact for
  the largest single process.

The reported peak is the larger of the two, and tables say so.

Peers are never project dependencies: they go into ``bench/.scratch``
(gitignored) through the ordinary clients (pip in a scratch venv, apt-get).
Everything is idempotent: a stamp file per venv, ``dpkg-query`` before
``apt-get install``, downloads reused.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
SCRATCH = BENCH_DIR / ".scratch"
RESULTS = BENCH_DIR / "results"
PYTHON = os.environ.get("BENCH_PYTHON", "python3.11")
POLL_INTERVAL = 0.05  # 20 Hz


def log(msg: str) -> None:
    """Progress goes to stderr so stdout holds only the result tables."""
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- measuring


@dataclass
class Measurement:
    label: str
    cmd: list[str]
    wall_s: float
    tree_peak_kib: int
    maxrss_kib: int
    returncode: int
    timed_out: bool = False
    extra: dict[str, object] = field(default_factory=dict)
    #: User + system CPU seconds of the process and the children it waited for (wait4).
    cpu_s: float = 0.0
    #: CPU seconds of every process of the tree, polled with the memory (each process's
    #: last poll): counts helpers the process never waited for (Playwright's driver and
    #: its Chromium exit after the CLI does), misses each one's last poll interval.
    tree_cpu_s: float = 0.0

    @property
    def peak_kib(self) -> int:
        return max(self.tree_peak_kib, self.maxrss_kib)

    @property
    def peak_mb(self) -> float:
        return self.peak_kib / 1024

    def as_dict(self) -> dict[str, object]:
        d = asdict(self)
        d["peak_kib"] = self.peak_kib
        return d


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out.extend(int(x) for x in fh.read().split())
        except OSError:
            continue
    return out


_PAGE_KIB = os.sysconf("SC_PAGE_SIZE") // 1024


def _rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * _PAGE_KIB
    except (OSError, IndexError, ValueError):
        return 0


_TICK = os.sysconf("SC_CLK_TCK")


def _cpu_s(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICK
    except (OSError, IndexError, ValueError):
        return 0.0


def tree_cpu_sample(root: int, seen: dict[int, float]) -> None:
    """Record in ``seen`` the CPU seconds of ``root`` and each live descendant (by pid)."""
    stack, visited = [root], set()
    while stack:
        pid = stack.pop()
        if pid in visited:
            continue
        visited.add(pid)
        seen[pid] = max(seen.get(pid, 0.0), _cpu_s(pid))
        stack.extend(_children(pid))


def tree_rss_kib(root: int) -> int:
    """Summed resident set of ``root`` and every live descendant."""
    total = 0
    stack = [root]
    seen: set[int] = set()
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += _rss_kib(pid)
        stack.extend(_children(pid))
    return total


def run_measured(
    label: str,
    cmd: Sequence[str],
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    stdout: Path | None = None,
    stderr: Path | None = None,
    timeout: float | None = None,
    check: bool = False,
) -> Measurement:
    """Run ``cmd``; return wall time and peak memory of its whole process tree.

    stdout/stderr go to files (or /dev/null) so that a pipe reader in this
    process never throttles the measured program.
    """
    cmd = [str(c) for c in cmd]
    out_fh = open(stdout, "wb") if stdout else open(os.devnull, "wb")  # noqa: SIM115
    err_fh = open(stderr, "wb") if stderr else open(os.devnull, "wb")  # noqa: SIM115
    log(f"run {label}: {' '.join(cmd)}")
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=out_fh, stderr=err_fh, start_new_session=True
    )
    peak = [0]
    cpu_seen: dict[int, float] = {}
    done = threading.Event()
    timed_out = [False]

    def poll() -> None:
        # Polled on a thread so that the main thread's blocking wait4 times
        # the run exactly, not to the nearest poll.
        while not done.is_set():
            peak[0] = max(peak[0], tree_rss_kib(proc.pid))
            tree_cpu_sample(proc.pid, cpu_seen)
            if timeout is not None and time.perf_counter() - start > timeout:
                timed_out[0] = True
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
                return
            done.wait(POLL_INTERVAL)

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    try:
        _, status, rusage = os.wait4(proc.pid, 0)
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        raise
    finally:
        done.set()
        out_fh.close()
        err_fh.close()
    wall = time.perf_counter() - start
    poller.join()
    proc.returncode = os.waitstatus_to_exitcode(status)  # Popen must not reap again
    # Leftover grandchildren (daemonised helpers) must not outlive the run.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGTERM)
    m = Measurement(
        label=label,
        cmd=cmd,
        wall_s=wall,
        tree_peak_kib=peak[0],
        maxrss_kib=rusage.ru_maxrss if rusage else 0,
        returncode=proc.returncode,
        timed_out=timed_out[0],
        cpu_s=rusage.ru_utime + rusage.ru_stime if rusage else 0.0,
        tree_cpu_s=sum(cpu_seen.values()),
    )
    # CPU seconds of each process (the one started first, then the others, most first):
    # with parse processes, which one bounds the run.
    others = sorted((v for pid, v in cpu_seen.items() if pid != proc.pid and v > 0), reverse=True)
    m.extra["process_cpu_s"] = [
        round(cpu_seen.get(proc.pid, 0.0), 2),
        *(round(v, 2) for v in others),
    ]
    log(
        f"  -> {wall:.2f} s, {m.cpu_s:.2f} s CPU ({m.tree_cpu_s:.2f} s polled over the tree), "
        f"peak {m.peak_mb:.1f} MB, exit {m.returncode}"
    )
    if check and m.returncode != 0:
        tail = stderr.read_text(errors="replace")[-2000:] if stderr else ""
        raise RuntimeError(f"{label} failed with exit {m.returncode}: {tail}")
    return m


def run_best(label: str, cmd: Sequence[str], repeat: int = 1, **kw: object) -> Measurement:
    """Run ``repeat`` times; keep the fastest wall time and the highest peak memory.

    The machine is shared, so the minimum is the least disturbed estimate of
    what the program costs; every wall time is kept in ``extra["walls"]``.
    """
    runs = [run_measured(label, cmd, **kw) for _ in range(max(1, repeat))]  # type: ignore[arg-type]
    best = min(runs, key=lambda m: m.wall_s)
    best.tree_peak_kib = max(m.tree_peak_kib for m in runs)
    best.maxrss_kib = max(m.maxrss_kib for m in runs)
    best.returncode = max(runs, key=lambda m: abs(m.returncode)).returncode
    best.extra["walls"] = [round(m.wall_s, 3) for m in runs]
    return best


def machine_note() -> str:
    """CPU count and load: other work on a shared machine skews every figure."""
    one, five, _ = os.getloadavg()
    return f"machine: {os.cpu_count()} CPUs, load average {one:.2f} (1 min) {five:.2f} (5 min)"


# --------------------------------------------------------------------------- tables


def ratio(num: float, den: float) -> str:
    if den <= 0 or num <= 0:
        return "n/a"
    return f"{num / den:.2f}x"


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], title: str = "") -> str:
    """Right-align numbers, left-align text; return the table as one string."""
    cells = [[str(h) for h in headers], *[[_fmt(c) for c in r] for r in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]

    def line(r: list[str]) -> str:
        parts = []
        for i, c in enumerate(r):
            numeric = c[:1].isdigit() or (c[:1] == "-" and c[1:2].isdigit())
            parts.append(c.rjust(widths[i]) if numeric else c.ljust(widths[i]))
        return "  ".join(parts).rstrip()

    out = []
    if title:
        out.append(title)
        out.append("=" * len(title))
    out.append(line(cells[0]))
    out.append("  ".join("-" * w for w in widths))
    out.extend(line(r) for r in cells[1:])
    return "\n".join(out)


def _fmt(v: object) -> str:
    if isinstance(v, float):
        if v >= 100:
            return f"{v:,.0f}"
        return f"{v:.2f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def verdict(ok: bool | None) -> str:
    return {True: "MET", False: "MISSED", None: "not run"}[ok]


# --------------------------------------------------------------------------- peers


def scratch_venv(name: str, packages: Sequence[str]) -> Path:
    """A venv in bench/.scratch/venv-NAME holding exactly ``packages``; its bin dir.

    Re-created only when the requested package list changes (stamp file).
    """
    venv = SCRATCH / f"venv-{name}"
    stamp = venv / ".bench-packages"
    want = "\n".join(packages)
    if stamp.exists() and stamp.read_text() == want:
        return venv / "bin"
    log(f"creating scratch venv {venv} with {', '.join(packages)}")
    SCRATCH.mkdir(parents=True, exist_ok=True)
    if not (venv / "bin" / "python").exists():
        subprocess.run([PYTHON, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [str(venv / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check", *packages],
        check=True,
    )
    stamp.write_text(want)
    return venv / "bin"


def pip_version(bin_dir: Path, dist: str) -> str:
    out = subprocess.run(
        [
            str(bin_dir / "python"),
            "-c",
            f"import importlib.metadata as m; print(m.version({dist!r}))",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    return out.stdout.strip() or "?"


_apt_updated = False


def _dpkg_installed(pkg: str) -> bool:
    out = subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", pkg], capture_output=True, text=True, check=False
    )
    return out.returncode == 0 and "install ok installed" in out.stdout


def _apt_update() -> None:
    global _apt_updated  # noqa: PLW0603
    if not _apt_updated:
        log("apt-get update")
        subprocess.run(["apt-get", "update", "-qq"], check=True)
        _apt_updated = True


def ensure_apt(*packages: str) -> None:
    """Install Debian packages that are missing (we run as root on the bench box)."""
    missing = [p for p in packages if not _dpkg_installed(p)]
    if not missing:
        return
    log(f"apt-get install {' '.join(missing)}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    cmd = ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing]
    if subprocess.run(cmd, env=env, check=False).returncode != 0:
        _apt_update()
        subprocess.run(cmd, env=env, check=True)


def apt_download(pkg: str) -> Path:
    """The .deb of ``pkg`` in bench/.scratch/debs, downloaded once."""
    debs = SCRATCH / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    found = sorted(debs.glob(f"{pkg}_*.deb"))
    if found:
        return found[-1]
    log(f"apt-get download {pkg}")
    if subprocess.run(["apt-get", "download", pkg], cwd=debs, check=False).returncode != 0:
        _apt_update()
        subprocess.run(["apt-get", "download", pkg], cwd=debs, check=True)
    found = sorted(debs.glob(f"{pkg}_*.deb"))
    if not found:
        raise RuntimeError(f"apt-get download {pkg} left no .deb in {debs}")
    return found[-1]


def tool_version(cmd: Sequence[str]) -> str:
    try:
        out = subprocess.run(list(cmd), capture_output=True, text=True, check=False, timeout=30)
    except OSError:
        return "?"
    text = (out.stdout or out.stderr).strip().splitlines()
    return text[0] if text else "?"


# --------------------------------------------------------------------------- ours


def our_cli() -> Path:
    """The repo's own ``sitemapkit`` (``make setup`` creates it)."""
    exe = REPO / ".venv" / "bin" / "sitemapkit"
    if not exe.exists():
        raise RuntimeError(f"{exe} not found: run `make setup` first")
    return exe


def our_command_available(name: str) -> bool:
    """True when ``sitemapkit NAME --help`` works (the command has landed)."""
    try:
        exe = our_cli()
    except RuntimeError:
        return False
    out = subprocess.run(
        [str(exe), name, "--help"], capture_output=True, text=True, check=False, timeout=60
    )
    return out.returncode == 0


def our_help(name: str) -> str:
    out = subprocess.run(
        [str(our_cli()), name, "--help"], capture_output=True, text=True, check=False
    )
    return out.stdout


def our_revision() -> str:
    out = subprocess.run(
        ["git", "-C", str(REPO), "log", "-1", "--format=%h %s"],
        capture_output=True,
        text=True,
        check=False,
    )
    return out.stdout.strip()


# --------------------------------------------------------------------------- misc


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


@contextlib.contextmanager
def background(
    cmd: Sequence[str], port: int, log_path: Path, cwd: Path | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """Run a server process for the duration of a ``with`` block, then stop it."""
    fh = open(log_path, "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        [str(c) for c in cmd], cwd=cwd, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        wait_port(port)
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        fh.close()


def save_results(name: str, payload: dict[str, object], text: str) -> Path:
    """Write results/NAME.json and results/NAME.txt; return the JSON path."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    payload = {"name": name, "when": stamp, "revision": our_revision(), **payload}
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(payload, indent=2, default=str))
    (RESULTS / f"{name}.txt").write_text(text + "\n")
    return path


def which(name: str) -> str | None:
    return shutil.which(name)


def ru_maxrss_note() -> str:
    return (
        "peak RSS = max(summed VmRSS of the process tree polled at 20 Hz via "
        "/proc/PID/task/*/children, os.wait4 ru_maxrss)"
    )
