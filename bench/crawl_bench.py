"""Crawl benchmark: ``sitemapkit crawl`` vs Scrapy and ``wget --spider -r`` on real doc sites.

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

Crawlers, in the same run, per site:

* sitemapkit at concurrency N and at concurrency 1;
* Scrapy (scratch venv), a minimal CrawlSpider (``peers/scrapy_spider.py``),
  ``CONCURRENT_REQUESTS`` = ``CONCURRENT_REQUESTS_PER_DOMAIN`` = N, robots on;
* ``wget --spider -r -l inf --no-parent -nd -e robots=on`` (one connection).

"pages" = distinct HTML pages that answered 200 (ours: the URLs in the
sitemap it wrote; Scrapy: pages its callback saw; wget: parsed from its log).
Targets (issue 4): >= 3x Scrapy's pages/s; >= wget's pages/s at concurrency 1;
peak RSS < 150 MB on the large site; the same page set as wget.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import html
import re
import shutil
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


def our_crawl_cmd(url: str, out_dir: Path, db: Path, concurrency: int) -> list[str]:
    """The crawl command line, spelled with the options the installed CLI has."""
    helptext = c.our_help("crawl")
    cmd = [str(c.our_cli()), "crawl", url]
    cmd += (
        ["-o", str(out_dir)] if "-o," in helptext or "-o " in helptext else ["--out", str(out_dir)]
    )
    if "--db" in helptext:
        cmd += ["--db", str(db)]
    cmd += ["--concurrency", str(concurrency)]
    # Per-host limits must not silently cap a fair "same concurrency" comparison.
    if "--per-host" in helptext:
        m = re.search(r"(--per-host[-a-z]*)", helptext)
        if m:
            cmd += [m.group(1), str(concurrency)]
    return cmd


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


def best(repeat: int, attempt: Callable[[], Attempt]) -> Attempt:
    """Fastest of --repeat attempts; the highest peak memory of them all."""
    tries = [attempt() for _ in range(max(1, repeat))]
    m, pages = min(tries, key=lambda t: t[0].wall_s)
    m.tree_peak_kib = max(t[0].tree_peak_kib for t in tries)
    m.maxrss_kib = max(t[0].maxrss_kib for t in tries)
    m.extra["walls"] = [round(t[0].wall_s, 3) for t in tries]
    m.extra["pages_each"] = [len(t[1]) for t in tries]
    return m, pages


def wget_once(d: Path, url: str, name: str) -> Attempt:
    wdir = d / "wget-tmp"
    shutil.rmtree(wdir, ignore_errors=True)
    wdir.mkdir()
    wlog = d / "wget.log"
    cmd = ["wget", "--spider", "-r", "-l", "inf", "--no-parent", "-nd"]
    cmd += ["-e", "robots=on", "-o", str(wlog), url]
    m = c.run_measured(f"wget {name} (c=1)", cmd, cwd=wdir, timeout=3600)
    shutil.rmtree(wdir, ignore_errors=True)
    return m, wget_pages(wlog)


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


def ours_once(d: Path, url: str, name: str, conc: int) -> Attempt:
    od, db = d / f"ours-c{conc}", d / f"ours-c{conc}.db"
    shutil.rmtree(od, ignore_errors=True)
    for leftover in d.glob(f"ours-c{conc}.db*"):
        leftover.unlink()
    m = c.run_measured(
        f"sitemapkit {name} (c={conc})",
        our_crawl_cmd(url, od, db, conc),
        stdout=d / f"ours-c{conc}.out",
        stderr=d / f"ours-c{conc}.err",
        timeout=3600,
    )
    return m, sitemap_pages(od) if od.exists() else set()


# --------------------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="only the PostgreSQL manual")
    ap.add_argument("--concurrency", "-n", type=int, default=16)
    ap.add_argument("--sites", nargs="*", choices=sorted(SITES), help="default: all (quick: pg)")
    ap.add_argument(
        "--repeat", type=int, default=2, help="runs per crawler; the fastest counts (default 2)"
    )
    ap.add_argument("--skip-ours", action="store_true")
    ap.add_argument("--skip-peers", action="store_true")
    ap.add_argument(
        "--profile",
        action="store_true",
        help="also run ours (concurrency N) under py-spy and print the hotspots",
    )
    args = ap.parse_args()
    load_start = c.machine_note()
    names = args.sites or (["postgresql-doc-15"] if args.quick else list(SITES))
    n = args.concurrency

    c.ensure_apt("nginx", "wget")
    roots = {name: unpack(SITES[name]) for name in names}
    ports = {name: c.free_port() for name in names}
    conf = nginx_conf({ports[name]: roots[name] for name in names})
    scrapy_bin = None if args.skip_peers else c.scratch_venv("scrapy", ["scrapy==2.19.0"])
    ours = not args.skip_ours and c.our_command_available("crawl")
    if not ours and not args.skip_ours:
        c.log("sitemapkit crawl is not available on this branch: running peers only")

    tag = "quick" if args.quick else "full"
    work = c.SCRATCH / f"crawl-out-{tag}"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    nginx = ["nginx", "-p", str(conf.parent), "-c", str(conf), "-g", "daemon off;"]
    runs: list[c.Measurement] = []
    per_site: dict[str, dict[str, tuple[c.Measurement, set[str]]]] = {}
    profiles: dict[str, list[str]] = {}

    with c.background(nginx, next(iter(ports.values())), work / "nginx.out"):
        for name in names:
            for port in ports.values():
                c.wait_port(port)
            url = f"http://127.0.0.1:{ports[name]}{SITES[name].start}"
            got: dict[str, tuple[c.Measurement, set[str]]] = {}
            d = work / name
            d.mkdir()

            if not args.skip_peers:
                assert scrapy_bin is not None
                got["wget"] = best(args.repeat, partial(wget_once, d, url, name))
                got["scrapy"] = best(args.repeat, partial(scrapy_once, d, url, name, n, scrapy_bin))
            if ours:
                for conc in (n, 1):
                    got[f"ours c={conc}"] = best(
                        args.repeat, partial(ours_once, d, url, name, conc)
                    )
                if args.profile:
                    spy = c.scratch_venv("pyspy", ["py-spy"])
                    od = d / "ours-prof"
                    raw = d / "py-spy.txt"
                    cmd = [str(spy / "py-spy"), "record", "--format", "raw", "-r", "200"]
                    cmd += ["-o", str(raw), "--", *our_crawl_cmd(url, od, d / "prof.db", n)]
                    c.run_measured(
                        f"py-spy sitemapkit {name} (c={n})", cmd, stderr=d / "py-spy.err"
                    )
                    profiles[name] = py_spy_hotspots(raw) if raw.exists() else ["no profile"]

            for m, _ in got.values():
                runs.append(m)
            per_site[name] = got

    text = report(per_site, n, profiles, scrapy_bin, args.repeat, load_start)
    print(text)
    c.save_results(
        f"crawl_bench{'_quick' if args.quick else ''}",
        {
            "concurrency": n,
            "runs": [m.as_dict() for m in runs],
            "pages": {s: {k: len(v[1]) for k, v in g.items()} for s, g in per_site.items()},
            "profiles": profiles,
        },
        text,
    )
    return 0


def _rate(m: c.Measurement, pages: set[str]) -> float:
    return len(pages) / m.wall_s if m.wall_s > 0 else 0.0


def report(
    per_site: dict[str, dict[str, tuple[c.Measurement, set[str]]]],
    n: int,
    profiles: dict[str, list[str]],
    scrapy_bin: Path | None,
    repeat: int,
    load_start: str,
) -> str:
    lines = [
        f"Crawl benchmark: sitemapkit crawl vs Scrapy (c={n}) and wget --spider -r (c=1)",
        f"peers: {c.tool_version(['wget', '--version'])}; "
        + (f"Scrapy {c.pip_version(scrapy_bin, 'scrapy')}; " if scrapy_bin else "")
        + c.tool_version(["nginx", "-v"]),
        f"ours: {c.our_revision()}",
        c.ru_maxrss_note(),
        f"each crawler run {repeat}x, fastest wall time shown, highest peak memory",
        f"{load_start} at start; {c.machine_note()} at end",
        "",
    ]
    rows = []
    for site, got in per_site.items():
        for who, (m, pages) in got.items():
            rows.append(
                [
                    site,
                    who,
                    len(pages),
                    m.wall_s,
                    _rate(m, pages),
                    m.peak_mb,
                    m.returncode,
                ]
            )
    lines.append(
        c.table(["site", "crawler", "pages", "wall s", "pages/s", "peak MB", "exit"], rows)
    )
    lines.append("")
    verdicts: dict[str, list[bool]] = collections.defaultdict(list)
    for site, got in per_site.items():
        lines.append(f"{site}:")
        ours_n, ours_1 = got.get(f"ours c={n}"), got.get("ours c=1")
        scrapy, wget = got.get("scrapy"), got.get("wget")
        if ours_n and scrapy:
            r = _rate(*ours_n) / _rate(*scrapy) if _rate(*scrapy) else 0.0
            lines.append(f"  ours/Scrapy pages/s at c={n}: {r:.2f}x (target >= 3x)")
            verdicts["scrapy"].append(r >= 3)
        if ours_1 and wget:
            r = _rate(*ours_1) / _rate(*wget) if _rate(*wget) else 0.0
            lines.append(f"  ours/wget pages/s at c=1: {r:.2f}x (target >= 1x)")
            verdicts["wget"].append(r >= 1)
        if ours_n and wget:
            r = _rate(*ours_n) / _rate(*wget) if _rate(*wget) else 0.0
            lines.append(f"  ours c={n} / wget c=1 pages/s: {r:.2f}x (for information)")
        for who in (f"ours c={n}", "ours c=1", "scrapy"):
            if who in got and wget:
                a, b = got[who][1], wget[1]
                only_a, only_b = sorted(a - b), sorted(b - a)
                lines.append(
                    f"  {who} vs wget: {len(a & b):,} common, {len(only_a):,} only {who}, "
                    f"{len(only_b):,} only wget"
                )
                lines.extend(f"    only {who}: {u}" for u in only_a[:5])
                lines.extend(f"    only wget: {u}" for u in only_b[:5])
                if who.startswith("ours"):
                    verdicts["set"].append(not only_a and not only_b)
        if site == "openjdk-17-doc":
            for who in (f"ours c={n}", "ours c=1"):
                if who in got:
                    verdicts["rss"].append(got[who][0].peak_mb < 150)
        lines.append("")
    lines.append("Targets")

    def v(key: str) -> str:
        return c.verdict(all(verdicts[key]) if verdicts.get(key) else None)

    lines.append(f"  >= 3x Scrapy's pages/s: {v('scrapy')}")
    lines.append(f"  >= wget's pages/s at concurrency 1: {v('wget')}")
    lines.append(f"  peak RSS < 150 MB on the large site: {v('rss')}")
    lines.append(f"  same page set as wget: {v('set')}")
    for site, prof in profiles.items():
        lines.append("")
        lines.append(f"Profile of ours on {site} (c={n}):")
        lines.extend(prof)
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
