"""How far the one-process speed targets of issue 13 are from what Python can do at all.

Issue 13 asks ``sitemapkit crawl URL -o OUT --workers 1`` for >= 1x wget on the
PostgreSQL 15 manual and >= 3x wget on the JDK 17 API docs.  This benchmark runs, side
by side on the same nginx (crawl_bench.py's sites and config), alternating run by run:

* ``ours w=1``: ``sitemapkit crawl URL -o OUT --workers 1`` (whole process, published);
* ``floor``: ``peers/floor_crawl.py``, the least a Python crawler on our parser does per
  page (one keep-alive connection, robots.txt, selectolax, ``urljoin``; no normalisation,
  no judgement, no store, no sitemap): the cost of Python and the parser alone;
* ``floor+text``: the same, plus each page's visible text collapsed (what a content
  fingerprint needs);
* ``lean`` and ``lean+text``: ``peers/lean_crawl.py``, the floor without the two costs a
  Python crawler can avoid (a raw keep-alive socket instead of ``http.client``, each
  ``(folder, href)`` joined once): the least any crawler on this parser pays per page;
* ``wget --spider -r`` as crawl_bench.py runs it.

It prints each one's pages, median wall and CPU seconds, and the ratios: the floor
and the lean crawler against wget say whether a target is reachable by a Python crawler
on this parser that does nothing else; ours against them says what a sitemap crawler's
duties (normalisation, judgement, store, fingerprint, link graph, outputs) cost.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c
from crawl_bench import (
    SITES,
    Attempt,
    byte_compile_ours,
    list_pages,
    median_of,
    nginx_conf,
    ours_once,
    unpack,
    wget_once,
)

#: (numerator, denominator, the issue's target for the ratio of pages/s or None)
RATIOS = {
    "postgresql-doc-15": [
        ("ours w=1", "wget", 1.0),
        ("floor", "wget", None),
        ("floor+text", "wget", None),
        ("lean", "wget", None),
        ("lean+text", "wget", None),
        ("ours w=1", "lean+text", None),
    ],
    "openjdk-17-doc": [
        ("ours w=1", "wget", 3.0),
        ("floor", "wget", None),
        ("floor+text", "wget", None),
        ("lean", "wget", None),
        ("lean+text", "wget", None),
        ("ours w=1", "lean+text", None),
    ],
}


def floor_once(d: Path, url: str, name: str, text: bool, script: str = "floor") -> Attempt:
    """One run of ``peers/{script}_crawl.py`` (``floor`` or ``lean``) on our interpreter."""
    out = d / f"{script}{'-text' if text else ''}.txt"
    out.unlink(missing_ok=True)
    python = c.our_cli().parent / "python"  # our venv: selectolax is our own parser
    cmd = [str(python), str(c.BENCH_DIR / "peers" / f"{script}_crawl.py"), url, str(out)]
    label = f"{script}{'+text' if text else ''} {name}"
    m = c.run_measured(label, cmd + (["--text"] if text else []), cwd=d, timeout=3600)
    return m, list_pages(out)


def _rate(got: dict[str, Attempt], who: str) -> float:
    m, pages = got[who]
    return len(pages) / m.wall_s if m.wall_s > 0 else 0.0


def report(per_site: dict[str, dict[str, Attempt]], repeat: int, loads: list[str]) -> str:
    lines = [
        "Floor benchmark: ours (--workers 1) vs the least a Python crawler does vs wget",
        f"each run {repeat}x alternating: median wall and CPU; {loads[0]} at start",
        "",
    ]
    rows = []
    for site, got in per_site.items():
        for who, (m, pages) in got.items():
            rows.append([site, who, len(pages), f"{m.wall_s:.2f}", f"{m.cpu_s:.2f}"])
    lines.append(c.table(["site", "crawler", "pages", "wall s", "CPU s"], rows))
    lines.append("")
    for site, got in per_site.items():
        for num, den, target in RATIOS[site]:
            value = _rate(got, num) / _rate(got, den)
            goal = f" (issue 13 target >= {target:g}x)" if target else ""
            lines.append(f"{site}: {num} / {den} pages/s = {value:.2f}x{goal}")
    lines.append(f"{loads[-1]} at end")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sites", nargs="*", choices=sorted(SITES), default=sorted(SITES))
    ap.add_argument("--repeat", type=int, default=3, help="runs per crawler (default 3)")
    args = ap.parse_args()
    c.ensure_apt("nginx", "wget")
    loads = [c.machine_note()]
    roots = {name: unpack(SITES[name]) for name in args.sites}
    ports = {name: c.free_port() for name in args.sites}
    conf = nginx_conf({ports[n]: roots[n] for n in args.sites}, name="nginx-floor")
    byte_compile_ours()
    work = c.SCRATCH / "floor-out"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    nginx = ["nginx", "-p", str(conf.parent), "-c", str(conf), "-g", "daemon off;"]
    per_site: dict[str, dict[str, Attempt]] = {}
    with c.background(nginx, next(iter(ports.values())), work / "nginx.out"):
        for name in args.sites:
            url = f"http://127.0.0.1:{ports[name]}{SITES[name].start}"
            d = work / name
            d.mkdir()
            runs: dict[str, list[Attempt]] = {}
            for _ in range(max(1, args.repeat)):  # alternating, so load hits all alike
                runs.setdefault("ours w=1", []).append(ours_once(d, url, name, 1))
                runs.setdefault("floor", []).append(floor_once(d, url, name, False))
                runs.setdefault("floor+text", []).append(floor_once(d, url, name, True))
                runs.setdefault("lean", []).append(floor_once(d, url, name, False, "lean"))
                runs.setdefault("lean+text", []).append(floor_once(d, url, name, True, "lean"))
                runs.setdefault("wget", []).append(wget_once(d, url, name))
            per_site[name] = {
                who: median_of(len(tries), iter(tries).__next__) for who, tries in runs.items()
            }
    loads.append(c.machine_note())
    text = report(per_site, args.repeat, loads)
    print(text)
    c.save_results("floor_bench", {"text": text}, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
