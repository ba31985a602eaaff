"""Crawl benchmark: ``sitemapkit crawl URL -o OUT`` as users run it, vs wget and pysitemap.

Sites (Debian packages, fetched with ``apt-get download`` and unpacked with
``dpkg-deb -x`` into bench/.scratch/sites/, once):

* ``postgresql-doc-15``: the PostgreSQL 15 manual, ~1,170 HTML pages, 16 MB.
  Start: its ``html/index.html``.
* ``openjdk-17-doc``: the JDK 17 API documentation (javadoc), ~10,100 HTML
  pages, 290 MB, deep directory trees and pages up to several MB. The largest
  HTML documentation set in Debian bookworm that is a single linked site;
  the package's top ``index.html`` is only a meta refresh to ``api/index.html``,
  so the ``api/`` folder is the served root and its ``index.html`` the start.

Both are served by Debian's nginx (installed if missing) from our own config
on 127.0.0.1 (``autoindex off``, a ``robots.txt`` that disallows a path the
sites do not use, so every crawler fetches and obeys one).

What is timed is the whole process a user runs, output written: ``sitemapkit crawl
URL -o OUT --workers W`` (default concurrency and per-host limits; the sitemap, the
inventory and the visual map published), W = 1 and 2.  Peers, in the same run:

* ``wget --spider -r -l inf --no-parent -nd -e robots=on`` (one connection);
* pysitemap (``sitemap-generator`` 0.9.13 from PyPI, scratch venv,
  ``peers/pysitemap_crawl.py``, ``maxtasks`` 16; it does not read robots.txt);
* with ``--scrapy``: Scrapy 2.19 (``peers/scrapy_spider.py``), concurrency 16.

Each crawler runs ``--repeat`` times (3): the median wall time and CPU time (user +
system of the process and its children, from ``wait4``) are reported, with the highest
peak RSS of the whole process tree.  "pages" = distinct HTML pages that answered 200
(ours: the URLs of the sitemap it wrote; wget: parsed from its log; pysitemap: the
URLs of its sitemap, whatever their status; Scrapy: pages its callback saw).
Targets (issue 13): ``--workers 1`` >= 1x wget and >= 2x pysitemap pages/s on the
PostgreSQL manual, >= 3x wget on the JDK docs, peak RSS < 120 MB on the JDK docs;
``--workers 2`` >= 1.7x ``--workers 1`` on the JDK docs and >= 2x wget on the
PostgreSQL manual; the same page set for every run of ours and wget.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import html
import os
import re
import shutil
import statistics
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from urllib.parse import urldefrag

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c


@dataclass(frozen=True)
class Site:
    package: str
    root: str  # served folder, inside the unpacked package
    start: str  # path of the start page


SITES = {
    "postgresql-doc-15": Site(
        "postgresql-doc-15", "usr/share/doc/postgresql-doc-15/html", "/index.html"
    ),
    "openjdk-17-doc": Site(
        "openjdk-17-doc", "usr/share/doc/openjdk-17-jre-headless/api", "/index.html"
    ),
}
ROBOTS = "User-agent: *\\nDisallow: /bench-private/\\n"


# --------------------------------------------------------------------------- sites


def unpack(site: Site) -> Path:
    dest = c.SCRATCH / "sites" / site.package
    stamp = dest / ".unpacked"
    deb = c.apt_download(site.package)
    if not stamp.exists() or stamp.read_text() != deb.name:
        c.log(f"dpkg-deb -x {deb.name}")
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        subprocess.run(["dpkg-deb", "-x", str(deb), str(dest)], check=True)
        stamp.write_text(deb.name)
    root = dest / site.root
    if not (root / site.start.lstrip("/")).exists():
        raise RuntimeError(f"{root}{site.start} missing after unpacking {deb.name}")
    return root


def nginx_conf(
    servers: dict[int, Path],
    *,
    name: str = "nginx",
    robots: dict[int, str] | None = None,
    extra: dict[int, str] | None = None,
) -> Path:
    """nginx config serving each ``port -> root``; ``robots``/``extra`` vary it per port."""
    base = c.SCRATCH / name
    (base / "logs").mkdir(parents=True, exist_ok=True)
    says = robots or {}
    blocks = "\n".join(
        f"""  server {{
    listen 127.0.0.1:{port};
    root {root};
    autoindex off;
    location = /robots.txt {{ default_type text/plain; return 200 "{says.get(port, ROBOTS)}"; }}
{(extra or {}).get(port, "")}  }}"""
        for port, root in servers.items()
    )
    conf = base / "nginx.conf"
    conf.write_text(
        f"""# written by bench/crawl_bench.py
worker_processes 1;
pid {base}/nginx.pid;
error_log {base}/logs/error.log warn;
events {{ worker_connections 4096; }}
http {{
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  keepalive_timeout 120s;
  client_body_temp_path {base}/tmp-body;
  proxy_temp_path {base}/tmp-proxy;
  fastcgi_temp_path {base}/tmp-fastcgi;
  uwsgi_temp_path {base}/tmp-uwsgi;
  scgi_temp_path {base}/tmp-scgi;
{blocks}
}}
"""
    )
    return conf


# --------------------------------------------------------------------------- page sets

_WGET_URL = re.compile(r"^--\d{4}-\d\d-\d\d \d\d:\d\d:\d\d--  (\S+)")
_WGET_STATUS = re.compile(r"awaiting response\.\.\. (\d{3})")
_WGET_TYPE = re.compile(r"^Length: .*\[([^\]]+)\]")


def wget_pages(log_path: Path) -> set[str]:
    """HTML pages that answered 200, from ``wget --spider -r`` default-verbosity log."""
    pages: set[str] = set()
    url = status = None
    for line in log_path.read_text(errors="replace").splitlines():
        m = _WGET_URL.match(line)
        if m:
            url, status = m.group(1), None
            continue
        m = _WGET_STATUS.search(line)
        if m and url:
            status = m.group(1)
            continue
        m = _WGET_TYPE.match(line)
        if m and url and status == "200" and m.group(1).startswith("text/html"):
            pages.add(urldefrag(url)[0])
    return pages


_LOC = re.compile(r"<loc>\s*([^<]+?)\s*</loc>")


def sitemap_pages(out_dir: Path) -> set[str]:
    """Every ``loc`` of the urlset files a crawl wrote (index files skipped)."""
    pages: set[str] = set()
    for path in sorted(out_dir.rglob("*.xml*")):
        raw = path.read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        text = raw.decode("utf-8", errors="replace")
        if "<sitemapindex" in text[:2000]:
            continue
        pages.update(html.unescape(u) for u in _LOC.findall(text))
    return pages


def list_pages(path: Path) -> set[str]:
    if not path.exists():
        return set()
    return {urldefrag(u.strip())[0] for u in path.read_text().splitlines() if u.strip()}


# --------------------------------------------------------------------------- ours


def byte_compile_ours() -> None:
    """Write the package's bytecode, as ``pip install`` does for an installed package.

    This environment sets ``PYTHONDONTWRITEBYTECODE=1`` and the package is an editable
    install, so without this every run compiles all of sitemapkit's sources again (7.9% of
    the instructions of a whole PostgreSQL-manual crawl under callgrind): a cost no user
    of an installed sitemapkit pays, and the peers' venvs hold their bytecode.
    """
    python = c.our_cli().parent / "python"
    subprocess.run([str(python), "-m", "compileall", "-q", str(c.REPO / "src")], check=True)


def our_crawl_cmd(url: str, out_dir: Path, workers: int) -> list[str]:
    """What a user types: ``sitemapkit crawl URL -o OUT``, and the ``--workers`` compared."""
    return [str(c.our_cli()), "crawl", url, "-o", str(out_dir), "--workers", str(workers)]


def py_spy_hotspots(raw: Path, top: int = 15) -> list[str]:
    """Top self and inclusive frames from py-spy's ``--format raw`` (collapsed stacks)."""
    self_t: collections.Counter[str] = collections.Counter()
    incl: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text(errors="replace").splitlines():
        stack, _, n = line.rpartition(" ")
        if not stack or not n.isdigit():
            continue
        count = int(n)
        total += count
        frames = stack.split(";")
        self_t[frames[-1]] += count
        for f in set(frames):
            incl[f] += count
    if not total:
        return ["(no samples)"]
    out = [f"py-spy: {total:,} samples", "top self time:"]
    out += [f"  {100 * n / total:5.1f}%  {f}" for f, n in self_t.most_common(top)]
    out.append("top inclusive time (sitemapkit frames):")
    ours = [(f, n) for f, n in incl.most_common() if "sitemapkit" in f]
    out += [f"  {100 * n / total:5.1f}%  {f}" for f, n in ours[:top]]
    return out


# --------------------------------------------------------------------------- runs

Attempt = tuple[c.Measurement, set[str]]


def median_of(repeat: int, attempt: Callable[[], Attempt]) -> Attempt:
    """Run ``repeat`` times: the median wall and CPU time, the highest peak memory.

    The page set is the one of the median run; every run's count is kept, so a
    crawler that found different pages in different runs shows it.
    """
    tries = sorted((attempt() for _ in range(max(1, repeat))), key=lambda t: t[0].wall_s)
    m, pages = tries[len(tries) // 2]
    m.cpu_s = statistics.median(t[0].cpu_s for t in tries)
    m.tree_peak_kib = max(t[0].tree_peak_kib for t in tries)
    m.maxrss_kib = max(t[0].maxrss_kib for t in tries)
    m.extra["walls"] = [round(t[0].wall_s, 3) for t in tries]
    m.extra["cpus"] = [round(t[0].cpu_s, 3) for t in tries]
    m.extra["pages_each"] = [len(t[1]) for t in tries]
    m.extra["same_pages_each_run"] = all(t[1] == pages for t in tries)
    return m, pages


def wget_once(d: Path, url: str, name: str) -> Attempt:
    wdir = d / "wget-tmp"
    shutil.rmtree(wdir, ignore_errors=True)
    wdir.mkdir()
    wlog = d / "wget.log"
    cmd = ["wget", "--spider", "-r", "-l", "inf", "--no-parent", "-nd"]
    cmd += ["-e", "robots=on", "-o", str(wlog), url]
    m = c.run_measured(f"wget {name}", cmd, cwd=wdir, timeout=3600)
    shutil.rmtree(wdir, ignore_errors=True)
    return m, wget_pages(wlog)


def pysitemap_once(d: Path, root: str, name: str, bin_dir: Path) -> Attempt:
    out = d / "pysitemap.xml"
    out.unlink(missing_ok=True)
    cmd = [str(bin_dir / "python"), str(c.BENCH_DIR / "peers" / "pysitemap_crawl.py")]
    cmd += [root, str(out), "16"]
    m = c.run_measured(f"pysitemap {name}", cmd, cwd=d, stderr=d / "pysitemap.log", timeout=3600)
    if not out.exists():
        return m, set()
    return m, {urldefrag(html.unescape(u))[0] for u in _LOC.findall(out.read_text())}


def scrapy_once(d: Path, url: str, name: str, n: int, scrapy_bin: Path) -> Attempt:
    pages = d / "scrapy-pages.txt"
    pages.unlink(missing_ok=True)
    cmd = [str(scrapy_bin / "scrapy"), "runspider"]
    cmd += [str(c.BENCH_DIR / "peers" / "scrapy_spider.py")]
    cmd += ["-a", f"start_url={url}", "-a", f"out={pages}"]
    cmd += ["-s", f"CONCURRENT_REQUESTS={n}"]
    cmd += ["-s", f"CONCURRENT_REQUESTS_PER_DOMAIN={n}"]
    m = c.run_measured(f"scrapy {name} (c={n})", cmd, cwd=d, stderr=d / "scrapy.log", timeout=3600)
    return m, list_pages(pages)


def ours_once(d: Path, url: str, name: str, workers: int, src: Path | None = None) -> Attempt:
    """One crawl by this checkout, or (``src``) by another tree run through PYTHONPATH."""
    tag = "ours" if src is None else "before"
    od = d / f"{tag}-w{workers}"
    shutil.rmtree(od, ignore_errors=True)
    env = None if src is None else {**os.environ, "PYTHONPATH": str(src)}
    m = c.run_measured(
        f"sitemapkit {name} (--workers {workers}{'' if src is None else ', before'})",
        our_crawl_cmd(url, od, workers),
        stdout=d / f"{tag}-w{workers}.out",
        stderr=d / f"{tag}-w{workers}.err",
        timeout=3600,
        env=env,
    )
    return m, sitemap_pages(od) if od.exists() else set()


# --------------------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="only the PostgreSQL manual")
    ap.add_argument("--sites", nargs="*", choices=sorted(SITES), help="default: all (quick: pg)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per crawler (default 3)")
    ap.add_argument("--workers", type=int, nargs="*", default=[1, 2], help="ours: --workers")
    ap.add_argument("--skip-ours", action="store_true")
    ap.add_argument(
        "--before",
        metavar="REF",
        help="also crawl with the tree of this git ref (startup_bench.export_tree), "
        "alternating with ours run by run",
    )
    ap.add_argument("--skip-peers", action="store_true")
    ap.add_argument("--scrapy", action="store_true", help="also Scrapy (slow: minutes)")
    ap.add_argument(
        "--profile",
        action="store_true",
        help="also run ours (--workers 1) under py-spy and print the hotspots",
    )
    args = ap.parse_args()
    load_start = c.machine_note()
    names = args.sites or (["postgresql-doc-15"] if args.quick else list(SITES))

    c.ensure_apt("nginx", "wget")
    roots = {name: unpack(SITES[name]) for name in names}
    ports = {name: c.free_port() for name in names}
    conf = nginx_conf({ports[name]: roots[name] for name in names})
    pysitemap_bin = None
    scrapy_bin = None
    if not args.skip_peers:
        pysitemap_bin = c.scratch_venv("pysitemap", ["sitemap-generator==0.9.13"])
        if args.scrapy:
            scrapy_bin = c.scratch_venv("scrapy", ["scrapy==2.19.0"])
    ours = not args.skip_ours and c.our_command_available("crawl")
    if ours:
        byte_compile_ours()
    before_src = None
    if args.before and ours:
        import startup_bench

        before_src = startup_bench.export_tree(args.before)

    tag = "quick" if args.quick else "full"
    work = c.SCRATCH / f"crawl-out-{tag}"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    nginx = ["nginx", "-p", str(conf.parent), "-c", str(conf), "-g", "daemon off;"]
    per_site: dict[str, dict[str, Attempt]] = {}
    loads: dict[str, str] = {}
    profiles: dict[str, list[str]] = {}

    with c.background(nginx, next(iter(ports.values())), work / "nginx.out"):
        for name in names:
            for port in ports.values():
                c.wait_port(port)
            root = f"http://127.0.0.1:{ports[name]}/"
            url = root + SITES[name].start.lstrip("/")
            got: dict[str, Attempt] = {}
            d = work / name
            d.mkdir()
            if not args.skip_peers:
                got["wget"] = median_of(args.repeat, partial(wget_once, d, url, name))
                assert pysitemap_bin is not None
                got["pysitemap"] = median_of(
                    args.repeat, partial(pysitemap_once, d, root, name, pysitemap_bin)
                )
                if scrapy_bin is not None:
                    got["scrapy"] = median_of(
                        args.repeat, partial(scrapy_once, d, url, name, 16, scrapy_bin)
                    )
            if ours:
                for w in args.workers:
                    if before_src is None:
                        got[f"ours w={w}"] = median_of(
                            args.repeat, partial(ours_once, d, url, name, w)
                        )
                        continue
                    pairs = [
                        (ours_once(d, url, name, w), ours_once(d, url, name, w, before_src))
                        for _ in range(max(1, args.repeat))
                    ]
                    got[f"ours w={w}"] = median_of(len(pairs), iter(p[0] for p in pairs).__next__)
                    got[f"before w={w}"] = median_of(len(pairs), iter(p[1] for p in pairs).__next__)
                if args.profile:
                    profiles[name] = _profile(d, url, name)
            per_site[name] = got
            loads[name] = c.machine_note()

    text = report(per_site, loads, pysitemap_bin, scrapy_bin, args.repeat, load_start)
    print(text)
    c.save_results(
        f"crawl_bench{'_quick' if args.quick else ''}",
        {
            "runs": {s: {k: v[0].as_dict() for k, v in g.items()} for s, g in per_site.items()},
            "pages": {s: {k: len(v[1]) for k, v in g.items()} for s, g in per_site.items()},
            "loads": loads,
            "profiles": profiles,
        },
        text,
    )
    return 0


def _profile(d: Path, url: str, name: str) -> list[str]:
    spy = c.scratch_venv("pyspy", ["py-spy"])
    raw = d / "py-spy.txt"
    cmd = [str(spy / "py-spy"), "record", "--format", "raw", "-r", "200", "-o", str(raw), "--"]
    cmd += our_crawl_cmd(url, d / "ours-prof", 1)
    c.run_measured(f"py-spy sitemapkit {name}", cmd, stderr=d / "py-spy.err")
    return py_spy_hotspots(raw) if raw.exists() else ["no profile"]


def _rate(got: dict[str, Attempt], who: str) -> float:
    if who not in got:
        return 0.0
    m, pages = got[who]
    return len(pages) / m.wall_s if m.wall_s > 0 else 0.0


#: (site, numerator, denominator, target) of every ratio the report prints.
RATIOS = [
    ("postgresql-doc-15", "ours w=1", "wget", 1.0),
    ("postgresql-doc-15", "ours w=1", "pysitemap", 2.0),
    ("postgresql-doc-15", "ours w=2", "wget", 2.0),
    ("postgresql-doc-15", "ours w=2", "ours w=1", None),
    ("openjdk-17-doc", "ours w=1", "wget", 3.0),
    ("openjdk-17-doc", "ours w=1", "pysitemap", None),
    ("openjdk-17-doc", "ours w=2", "ours w=1", 1.7),
    ("openjdk-17-doc", "ours w=2", "wget", None),
    # --before REF: this checkout against the tree of REF, crawl by crawl
    *((site, f"ours w={w}", f"before w={w}", None) for site in SITES for w in (1, 2)),
]


def report(
    per_site: dict[str, dict[str, Attempt]],
    loads: dict[str, str],
    pysitemap_bin: Path | None,
    scrapy_bin: Path | None,
    repeat: int,
    load_start: str,
) -> str:
    lines = [
        "Crawl benchmark: sitemapkit crawl URL -o OUT (whole process) vs wget and pysitemap",
        f"peers: {c.tool_version(['wget', '--version'])}; "
        + (
            f"sitemap-generator {c.pip_version(pysitemap_bin, 'sitemap-generator')}; "
            if pysitemap_bin
            else ""
        )
        + (f"Scrapy {c.pip_version(scrapy_bin, 'scrapy')}; " if scrapy_bin else "")
        + c.tool_version(["nginx", "-v"]),
        f"ours: {c.our_revision()}",
        c.ru_maxrss_note(),
        f"each crawler run {repeat}x: median wall and CPU, highest peak RSS of the process tree",
        f"{load_start} at start",
        "",
    ]
    rows = []
    for site, got in per_site.items():
        for who, (m, pages) in got.items():
            rows.append(
                [site, who, len(pages), m.wall_s, m.cpu_s, _rate(got, who), m.peak_mb, m.returncode]
            )
    heads = ["site", "crawler", "pages", "wall s", "CPU s", "pages/s", "peak MB", "exit"]
    lines += [c.table(heads, rows), ""]
    verdicts: list[bool] = []
    for site, num, den, target in RATIOS:
        got = per_site.get(site, {})
        if num not in got or den not in got or not _rate(got, den):
            continue
        r = _rate(got, num) / _rate(got, den)
        cpu = got[den][0].cpu_s / got[num][0].cpu_s if got[num][0].cpu_s else 0.0
        aim = f"target >= {target}x: {c.verdict(r >= target)}" if target else "for information"
        lines.append(f"  {site}: {num} / {den} pages/s {r:.2f}x (CPU {cpu:.2f}x), {aim}")
        if target:
            verdicts.append(r >= target)
    for site, got in per_site.items():
        for who, (m, _pages) in got.items():
            procs = m.extra.get("process_cpu_s")
            if who.startswith(("ours", "before")) and isinstance(procs, list) and m.wall_s:
                rest = " + ".join(f"{v:.2f}" for v in procs[1:]) or "none"
                lines.append(
                    f"  {site} {who}: {m.cpu_s / m.wall_s:.2f} cores used (CPU s / wall s); "
                    f"CPU s of the crawl process {procs[0]:.2f}, of its parse processes {rest}"
                )
    for site, got in per_site.items():
        lines.append(f"{site}: {loads.get(site, '')} after its runs")
        for who in got:
            if who.startswith("ours") and "wget" in got:
                a, b = got[who][1], got["wget"][1]
                only_a, only_b = sorted(a - b), sorted(b - a)
                lines.append(
                    f"  {who} vs wget: {len(a & b):,} common, {len(only_a):,} only {who}, "
                    f"{len(only_b):,} only wget; same pages every run: "
                    f"{got[who][0].extra.get('same_pages_each_run')}"
                )
                lines.extend(f"    only {who}: {u}" for u in only_a[:5])
                lines.extend(f"    only wget: {u}" for u in only_b[:5])
                verdicts.append(not only_a and not only_b)
        if site == "openjdk-17-doc" and "ours w=1" in got:
            peak = got["ours w=1"][0].peak_mb
            lines.append(
                f"  ours w=1 peak RSS {peak:.1f} MB, target < 120 MB: {c.verdict(peak < 120)}"
            )
            verdicts.append(peak < 120)
    lines.append(f"all targets met: {c.verdict(all(verdicts)) if verdicts else 'n/a'}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
