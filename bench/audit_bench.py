"""Audit benchmark: ``sitemapkit audit`` vs ``sitemapkit crawl`` alone, and vs advertools.

Sites: the PostgreSQL 15 manual and the JDK 17 API docs (the crawl bench's
Debian packages, unpacked once into bench/.scratch/sites/), served by Debian's
nginx on 127.0.0.1 with a robots.txt that names a published sitemap.  The
sitemap lists every HTML file of the site plus planted faults, one per code
nginx can serve without touching the pages:

* ``/planted/moved.html`` answers 301 to the start page    -> listed-redirect
* ``/planted/gone.html`` does not exist (404)                -> listed-error
* one real page answers with ``X-Robots-Tag: noindex``       -> listed-noindex
* ``/bench-private/secret.html`` is disallowed by robots.txt -> listed-blocked
* one stylesheet (or other non-HTML file) is listed          -> listed-not-html
* ``https://other.example/page.html``                        -> listed-out-of-scope
* the start page again with ``?utm_source=bench``            -> listed-duplicate
* HTML files no page links to are listed too                 -> listed-orphan

Runs, in one run, per site, at concurrency N (default 16), each ``--repeat`` times
(fastest wall kept): ``sitemapkit crawl URL -o OUT``, ``sitemapkit audit URL -o
OUT --format json``, and (unless --skip-peers) advertools 0.18.0 in a scratch
venv (``bench/peers/advertools_audit.py``: ``adv.crawl`` + ``adv.sitemap_to_df``
+ the pandas comparison, listed URLs the crawl missed crawled in list mode).
Targets (issue 11): audit <= 1.3x the crawl's wall time; advertools >= 10x ours,
with the same findings for the codes both can express (the script prints the
set differences per code).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections import defaultdict
from pathlib import Path
from xml.sax.saxutils import escape

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c
from crawl_bench import SITES, unpack
from crawl_bench import nginx_conf as crawl_nginx_conf

ADVERTOOLS = "advertools==0.18.0"
#: Codes advertools' DataFrames can express (it drops robots-blocked URLs silently and
#: has no notion of scope, orphans or duplicates after normalisation).
SHARED_CODES = (
    "listed-redirect",
    "listed-error",
    "listed-noindex",
    "listed-canonicalised",
    "listed-not-html",
    "missing-indexable",
)


def html_files(root: Path) -> list[str]:
    return sorted("/" + p.relative_to(root).as_posix() for p in root.rglob("*.html"))


def plant(root: Path, start: str, port: int, out: Path) -> dict[str, str]:
    """Write the faulty sitemap into ``out``; return the planted paths by role."""
    pages = html_files(root)
    other = sorted(
        "/" + p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and p.suffix in (".css", ".js", ".png", ".svg", ".gif")
    )
    roles = {
        "noindex": next(p for p in pages if p != start),
        "not-html": other[0],
        "redirect": "/planted/moved.html",
        "error": "/planted/gone.html",
        "blocked": "/bench-private/secret.html",
    }
    origin = f"http://127.0.0.1:{port}"
    locs = [origin + p for p in pages]
    locs += [origin + roles[k] for k in ("not-html", "redirect", "error", "blocked")]
    locs += ["https://other.example/page.html", f"{origin}{start}?utm_source=bench"]
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as fh:
        fh.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        fh.write('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
        for loc in locs:
            fh.write(f"<url><loc>{escape(loc)}</loc></url>\n")
        fh.write("</urlset>\n")
    return roles


def nginx_conf(sites: dict[int, tuple[Path, Path, dict[str, str], str]]) -> Path:
    """The crawl bench's nginx config, with the sitemap, robots.txt and planted locations."""
    robots = {
        port: f"User-agent: *\\nDisallow: /bench-private/\\n"
        f"Sitemap: http://127.0.0.1:{port}/sitemap.xml\\n"
        for port in sites
    }
    extra = {
        port: f"""    location = /sitemap.xml {{ default_type application/xml; alias {sitemap}; }}
    location = {roles["redirect"]} {{ return 301 {start}; }}
    location = {roles["noindex"]} {{ add_header X-Robots-Tag "noindex"; }}
"""
        for port, (_, sitemap, roles, start) in sites.items()
    }
    roots = {port: site[0] for port, site in sites.items()}
    return crawl_nginx_conf(roots, name="nginx-audit", robots=robots, extra=extra)


def knobs(n: int) -> list[str]:
    return ["--concurrency", str(n), "--per-host", str(n)]


def best(
    repeat: int,
    label: str,
    cmd: list[str],
    d: Path,
    clean: list[Path],
    env: dict[str, str] | None = None,
) -> c.Measurement:
    tries = []
    for i in range(max(1, repeat)):
        for p in clean:
            if p.is_dir():
                shutil.rmtree(p)
            elif p.exists():
                p.unlink()
        tries.append(
            c.run_measured(
                label,
                cmd,
                env=env,
                stdout=d / f"{label.split(maxsplit=1)[0]}-{i}.out",
                stderr=d / f"{label.split(maxsplit=1)[0]}-{i}.err",
                timeout=3600,
            )
        )
    m = min(tries, key=lambda t: t.wall_s)
    m.tree_peak_kib = max(t.tree_peak_kib for t in tries)
    m.extra["walls"] = [round(t.wall_s, 3) for t in tries]
    return m


def our_findings(report: Path) -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    if report.exists():
        for f in json.loads(report.read_text(encoding="utf-8"))["findings"]:
            found[f["code"]].add(f["url"] or f["sitemap"])
    return found


def run_site(name: str, port: int, args: argparse.Namespace, adv_bin: Path | None) -> list[str]:
    site = SITES[name]
    url = f"http://127.0.0.1:{port}{site.start}"
    d = c.SCRATCH / "audit-out" / name
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    n = args.concurrency
    crawl_out, audit_out = d / "crawl", d / "audit"
    crawl_cmd = [str(c.our_cli()), "crawl", url, "-o", str(crawl_out), *knobs(n)]
    audit_cmd = [str(c.our_cli()), "audit", url, "-o", str(audit_out), "--format", "json"]
    audit_cmd += [*knobs(n), "--fail-on", "never"]
    crawl_m = best(args.repeat, f"crawl {name}", crawl_cmd, d, [crawl_out])
    audit_m = best(args.repeat, f"audit {name}", audit_cmd, d, [audit_out])
    ours = our_findings(audit_out / "audit.json")
    lines = [
        c.table(
            ["run", "wall s", "peak MB", "exit", "walls"],
            [
                [
                    "sitemapkit crawl",
                    crawl_m.wall_s,
                    crawl_m.peak_mb,
                    crawl_m.returncode,
                    crawl_m.extra["walls"],
                ],
                [
                    "sitemapkit audit",
                    audit_m.wall_s,
                    audit_m.peak_mb,
                    audit_m.returncode,
                    audit_m.extra["walls"],
                ],
            ],
            title=f"{name} ({url})",
        )
    ]
    r = audit_m.wall_s / crawl_m.wall_s if crawl_m.wall_s else 0.0
    lines.append(f"  audit / crawl wall: {r:.2f}x (target <= 1.3x): {c.verdict(r <= 1.3)}")
    lines.append("  ours: " + ", ".join(f"{k} {len(v):,}" for k, v in sorted(ours.items())))
    if adv_bin is not None:
        ad = d / "advertools"
        robots = f"http://127.0.0.1:{port}/robots.txt"
        cmd = [str(adv_bin / "python"), str(c.BENCH_DIR / "peers" / "advertools_audit.py")]
        cmd += [url, robots, str(ad), str(n)]
        # advertools runs the `scrapy` command it installed: its venv goes first on PATH
        env = {**os.environ, "PATH": f"{adv_bin}{os.pathsep}{os.environ.get('PATH', '')}"}
        adv_m = best(1, f"advertools {name}", cmd, d, [ad], env)
        r = adv_m.wall_s / audit_m.wall_s if audit_m.wall_s else 0.0
        lines.append(
            f"  advertools: {adv_m.wall_s:.1f} s, {adv_m.peak_mb:.0f} MB, exit {adv_m.returncode}"
        )
        lines.append(f"  advertools / audit wall: {r:.2f}x (target >= 10x): {c.verdict(r >= 10)}")
        theirs_path = ad / "findings.json"
        theirs = json.loads(theirs_path.read_text()) if theirs_path.exists() else {}
        same = True
        blocked = ours.get("listed-blocked", set())
        fetched_blocked = blocked & set(theirs.get("fetched", []))
        if fetched_blocked:
            lines.append(
                f"    advertools requested {len(fetched_blocked)} listed URL(s) robots.txt "
                "disallows (left out of the comparison): " + ", ".join(sorted(fetched_blocked))
            )
        for code in SHARED_CODES:
            a, b = ours.get(code, set()), set(theirs.get(code, [])) - blocked
            same &= a == b
            lines.append(
                f"    {code}: ours {len(a):,}, advertools {len(b):,}, common {len(a & b):,}"
            )
            lines.extend(f"      only ours: {u}" for u in sorted(a - b)[:3])
            lines.extend(f"      only advertools: {u}" for u in sorted(b - a)[:3])
        lines.append(f"  same findings for the shared codes: {c.verdict(same)}")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="only the PostgreSQL manual")
    ap.add_argument("--concurrency", "-n", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--skip-peers", action="store_true")
    ap.add_argument("--sites", nargs="*", choices=sorted(SITES), help="default: all (quick: pg)")
    args = ap.parse_args()
    load_start = c.machine_note()
    names = args.sites or (["postgresql-doc-15"] if args.quick else list(SITES))
    if not c.our_command_available("audit"):
        c.log("sitemapkit audit is not available on this branch")
        return 0
    c.ensure_apt("nginx")
    ports = {name: c.free_port() for name in names}
    served = {}
    for name in names:
        root = unpack(SITES[name])
        sitemap = c.SCRATCH / "audit-sitemaps" / name / "sitemap.xml"
        roles = plant(root, SITES[name].start, ports[name], sitemap)
        served[ports[name]] = (root, sitemap, roles, SITES[name].start)
    conf = nginx_conf(served)
    adv_bin = None if args.skip_peers else c.scratch_venv("advertools", [ADVERTOOLS])
    nginx = ["nginx", "-p", str(conf.parent), "-c", str(conf), "-g", "daemon off;"]
    out = [
        "Audit benchmark: sitemapkit audit vs sitemapkit crawl alone, and vs advertools",
        f"ours: {c.our_revision()}; {c.tool_version(['nginx', '-v'])}"
        + (f"; advertools {c.pip_version(adv_bin, 'advertools')}" if adv_bin else ""),
        f"concurrency {args.concurrency}; ours run {args.repeat}x, fastest wall shown",
        f"{load_start} at start",
        "",
    ]
    c.SCRATCH.joinpath("audit-out").mkdir(parents=True, exist_ok=True)
    with c.background(nginx, next(iter(ports.values())), c.SCRATCH / "audit-out" / "nginx.out"):
        for name in names:
            c.wait_port(ports[name])
            out.extend(run_site(name, ports[name], args, adv_bin))
            out.append("")
    out.append(f"{c.machine_note()} at end")
    text = "\n".join(out)
    print(text)
    c.save_results(f"audit_bench{'_quick' if args.quick else ''}", {"text": text}, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
