"""Real sites: our crawl of Debian documentation packages next to wget's, page set by page set.

Not a speed benchmark: a correctness one.  Each site is a Debian documentation package
(``apt-get download`` + ``dpkg-deb -x`` into bench/.scratch/sites/, as crawl_bench.py
does) served by nginx on 127.0.0.1, each on its own port.  For every site:

* ``sitemapkit crawl URL -o OUT`` and ``wget --spider -r -l inf --no-parent -e robots=on``
  from the same start page; the two page sets (HTML pages that answered 200; ours: the
  ``loc`` values of the sitemap we wrote) and both differences, written to
  ``bench/.scratch/realsites/SITE/only-ours.txt`` and ``only-wget.txt`` with the reason
  our inventory gives for each page only wget listed;
* ``sitemapkit validate`` on what we wrote, and ``xmllint --schema`` against
  /work/shared/xsd (the sitemaps.org schema);
* ``sitemapkit audit`` of the site (``--db`` of the crawl) against the sitemap we wrote,
  and against the site's own sitemaps (only mkdocs-doc has one: MkDocs writes it);
* ``sitemapkit visualize`` of the crawl store into one HTML file.

The table it prints is the "real sites" table of bench/README.md.  The package list
is chosen for variety, not size: Sphinx (Python, Django), DocBook in 26 languages
(the Debian Administrator's Handbook), Doxygen + DocBook (libstdc++), Texinfo (bash),
mdBook + rustdoc with meta-refresh redirect pages (Rust), MkDocs (with its own sitemap).
"""

from __future__ import annotations

import argparse
import csv
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c
from crawl_bench import Site, nginx_conf, sitemap_pages, unpack, wget_pages

SITES = {
    "python3.11-doc": Site("python3.11-doc", "usr/share/doc/python3.11/html", "/index.html"),
    "python-django-doc": Site(
        "python-django-doc", "usr/share/doc/python-django-doc/html", "/index.html"
    ),
    "debian-handbook": Site(
        "debian-handbook", "usr/share/doc/debian-handbook/html", "/en-US/index.html"
    ),
    "libstdc++-12-doc": Site("libstdc++-12-doc", "usr/share/doc/gcc-12-base/libstdc++", "/"),
    "bash-doc": Site("bash-doc", "usr/share/doc/bash", "/bashref.html"),
    "debian-reference-en": Site(
        "debian-reference-en", "usr/share/doc/debian-reference-en/docs", "/index.en.html"
    ),
    "rust-doc": Site("rust-doc", "usr/share/doc/rust-doc/html", "/index.html"),
    # MkDocs writes its own sitemap.xml (and .gz) at the root: the audit reads it.
    "mkdocs-doc": Site("mkdocs-doc", "usr/share/doc/mkdocs/html", "/index.html"),
}
QUICK = ("bash-doc", "debian-reference-en", "python3.11-doc")
XSD = Path(__file__).resolve().parents[2] / "shared" / "xsd"
if not XSD.is_dir():
    XSD = Path("/work/shared/xsd")


def run(cmd: list[str], out: Path) -> int:
    """Run ``cmd`` with stdout and stderr in ``out``; its exit status."""
    with out.open("wb") as fh:
        return subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, check=False).returncode


def inventory_fates(out_dir: Path) -> dict[str, str]:
    """URL -> ``reason (detail)`` from the inventory.csv our crawl wrote."""
    path = out_dir / "inventory.csv"
    if not path.exists():
        return {}
    with path.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    fates: dict[str, str] = {}
    for row in rows:
        reason = row.get("reason") or row.get("fate") or ""
        detail = row.get("detail") or row.get("redirect_to") or ""
        fates[row.get("url", "")] = f"{reason} {detail}".strip() or "in sitemap"
    return fates


def one_site(name: str, url: str, work: Path) -> dict[str, object]:
    """Crawl ``url`` with us and wget, compare, validate, audit, visualize."""
    d = work / name
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    exe = str(c.our_cli())
    out = d / "ours"
    c.log(f"{name}: sitemapkit crawl {url}")
    crawl_rc = run([exe, "crawl", url, "-o", str(out)], d / "crawl.txt")
    c.log(f"{name}: wget --spider -r")
    (d / "wget-tmp").mkdir()
    wcmd = ["wget", "--spider", "-r", "-l", "inf", "--no-parent", "-nd", "-e", "robots=on"]
    subprocess.run([*wcmd, "-o", str(d / "wget.log"), url], cwd=d / "wget-tmp", check=False)
    shutil.rmtree(d / "wget-tmp", ignore_errors=True)
    ours, theirs = sitemap_pages(out), wget_pages(d / "wget.log")
    fates = inventory_fates(out)
    (d / "only-ours.txt").write_text("".join(f"{u}\n" for u in sorted(ours - theirs)))
    (d / "only-wget.txt").write_text(
        "".join(f"{u}\t{fates.get(u, 'not seen')}\n" for u in sorted(theirs - ours))
    )
    sitemaps = sorted(str(p) for p in out.glob("sitemap*.xml"))
    validate_rc = run([exe, "validate", *sitemaps], d / "validate.txt")
    xsd = XSD / "sitemap.xsd"
    lint_rc = run(["xmllint", "--noout", "--schema", str(xsd), *sitemaps], d / "xmllint.txt")
    audit = [exe, "audit", url, "--db", str(out / "crawl.sqlite")]
    own_rc = run(audit, d / "audit-own.txt")  # the site's own sitemaps, if it has any
    audit += [a for path in sitemaps for a in ("--sitemap", path)]
    audit_rc = run(audit, d / "audit.txt")
    vis_rc = run(
        [exe, "visualize", str(out / "crawl.sqlite"), "-o", str(d / "map.html")], d / "vis.txt"
    )
    return {
        "url": url,
        "ours": len(ours),
        "wget": len(theirs),
        "both": len(ours & theirs),
        "only_ours": len(ours - theirs),
        "only_wget": len(theirs - ours),
        "lastmods": sum(Path(p).read_text(encoding="utf-8").count("<lastmod>") for p in sitemaps),
        "rc": {
            "crawl": crawl_rc,
            "validate": validate_rc,
            "xmllint": lint_rc,
            "audit": audit_rc,
            "visualize": vis_rc,
            "audit-own": own_rc,
        },
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sites", nargs="*", choices=sorted(SITES), help="default: all")
    ap.add_argument("--quick", action="store_true", help="only the three small packages")
    args = ap.parse_args()
    names = args.sites or (list(QUICK) if args.quick else list(SITES))
    c.ensure_apt("nginx", "wget", "libxml2-utils")
    roots = {name: unpack(SITES[name]) for name in names}
    ports = {name: c.free_port() for name in names}
    conf = nginx_conf({ports[n]: roots[n] for n in names}, name="nginx-realsites")
    work = c.SCRATCH / "realsites"
    work.mkdir(parents=True, exist_ok=True)
    nginx = ["nginx", "-p", str(conf.parent), "-c", str(conf), "-g", "daemon off;"]
    results: dict[str, dict[str, object]] = {}
    load = c.machine_note()
    with c.background(nginx, next(iter(ports.values())), work / "nginx.out"):
        for name in names:
            url = f"http://127.0.0.1:{ports[name]}{SITES[name].start}"
            results[name] = one_site(name, url, work)
    keys = ("ours", "wget", "both", "only_ours", "only_wget", "lastmods")
    rows = [[n, *(r[k] for k in keys), _codes(r["rc"])] for n, r in results.items()]
    headers = ["site", "ours", "wget", "both", "only ours", "only wget", "lastmods", "exit codes"]
    text = c.table(headers, rows, title=f"real sites ({load})")
    text += (
        "\nexit codes: crawl/validate/xmllint/audit/visualize/audit of the site's own sitemap;"
        f" details in {work}/SITE/"
    )
    print(text)
    c.save_results("realsites_bench", {"sites": results, "load": load}, text)
    return 0


def _codes(rc: object) -> str:
    assert isinstance(rc, dict)
    return "/".join(str(v) for v in rc.values())


if __name__ == "__main__":
    raise SystemExit(main())
