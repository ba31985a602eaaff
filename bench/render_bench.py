"""Rendering benchmark (issue 14): sitemapkit ``--render`` against crawlee-python, in one run.

1. **SPA, always.**  ``bench/spa_site.py --kind spa``: a 500-page single-page
   application (links exist only after scripts run; pages load a hero picture,
   a style sheet, a font and a slow third-party analytics script, as real ones
   do).  ``sitemapkit crawl --render always --render-concurrency 2`` against
   crawlee-python 1.11's ``PlaywrightCrawler`` (``bench/peers/crawlee_render.py``,
   scratch venv) at concurrency 2, both on the same Debian Chromium 156 build
   (``chromium-headless-shell`` when installed, as ours picks, else ``/usr/bin/chromium``).
   crawlee waits for ``networkidle`` before reading links (with ``load`` it
   misses links built after a fetch: shown too, ``--peer-load``).  Target:
   ours >= 1.5x crawlee's pages/s, with the same URL set (the site's own list).
2. **Mixed, auto vs always.**  ``--kind mixed``: 5,000 pages in sections of
   100; one section in ten builds its onward links with a script.  Target:
   ``--render auto`` finds the same URL set as ``--render always`` >= 5x faster.

Peak RSS and "tree CPU s" are the whole process tree's (browser included), polled at
20 Hz: Playwright's driver and its Chromium are not waited for by our CLI (they wind down
after it exits), so wait4's CPU misses them.  ``--quick``: 120 and
1,000 pages.  Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import urllib.request
from pathlib import Path

import _common as c
from crawl_bench import list_pages, sitemap_pages
from sitemapkit.render.browser import CHROMIUM, HEADLESS_SHELL

CRAWLEE = "crawlee[playwright]==1.11.0"
#: The browser both sides drive: ours picks Debian's headless shell when it is installed.
BROWSER = HEADLESS_SHELL if Path(HEADLESS_SHELL).is_file() else CHROMIUM


def expected_urls(port: int) -> set[str]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/urls.txt", timeout=30) as resp:
        return {line.strip() for line in resp.read().decode().splitlines() if line.strip()}


def ours(
    label: str, url: str, work: Path, mode: str, concurrency: int
) -> tuple[c.Measurement, set[str]]:
    name = label.replace(" ", "-")
    out = work / f"out-{name}"
    shutil.rmtree(out, ignore_errors=True)  # the crawl state is in OUTDIR: start afresh
    cmd = [
        str(c.our_cli()), "crawl", url, "-o", str(out), "--no-map",
        "--render", mode, "--render-concurrency", str(concurrency),
    ]  # fmt: skip
    m = c.run_measured(label, cmd, stderr=work / f"{name}.err", stdout=work / f"{name}.out")
    return m, sitemap_pages(out)


def peer(
    label: str, bin_dir: Path, url: str, work: Path, concurrency: int, wait: str
) -> tuple[c.Measurement, set[str]]:
    name = label.replace(" ", "-")
    out = work / f"{name}.txt"
    cmd = [
        str(bin_dir / "python"), str(c.BENCH_DIR / "peers" / "crawlee_render.py"), url,
        "--concurrency", str(concurrency), "--wait", wait, "--executable", BROWSER,
    ]  # fmt: skip
    m = c.run_measured(label, cmd, stdout=out, stderr=work / f"{name}.err")
    return m, list_pages(out)


def row(m: c.Measurement, found: set[str], want: set[str]) -> list[object]:
    pps = len(found) / m.wall_s if m.wall_s else 0.0
    return [
        m.label,
        f"{m.wall_s:.1f}",
        f"{m.tree_cpu_s:.1f}",
        f"{pps:.1f}",
        len(found),
        len(found ^ want),
        f"{m.peak_mb:.0f}",
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--skip-peers", action="store_true")
    ap.add_argument("--peer-load", action="store_true", help="also run crawlee with wait=load")
    ap.add_argument("--spa-pages", type=int, help="pages of the SPA (default 500; quick 120)")
    ap.add_argument("--mixed-pages", type=int, help="pages of the mixed site (5001; quick 1001)")
    ap.add_argument("--only", choices=("spa", "mixed"), help="run one of the two cases")
    args = ap.parse_args()
    spa_pages, mixed_pages = (120, 1001) if args.quick else (500, 5001)
    spa_pages = args.spa_pages or spa_pages
    mixed_pages = args.mixed_pages or mixed_pages
    work = c.SCRATCH / "render"
    work.mkdir(parents=True, exist_ok=True)
    crawlee_bin = None if args.skip_peers else c.scratch_venv("crawlee", [CRAWLEE])
    header = ["run", "wall s", "tree CPU s", "pages/s", "URLs", "diff vs site", "peak MB"]
    results: dict[str, object] = {"machine": c.machine_note()}
    text: list[str] = [c.machine_note()]

    if args.only in (None, "spa"):
        port = c.free_port()
        site = [sys.executable, c.BENCH_DIR / "spa_site.py", "--kind", "spa"]
        with c.background(
            [*site, "--pages", str(spa_pages), "--port", str(port)], port, work / "spa.log"
        ):
            url, want = f"http://127.0.0.1:{port}/", expected_urls(port)
            rows, runs = [], {}
            m, found = ours("sitemapkit always", url, work, "always", args.concurrency)
            rows.append(row(m, found, want))
            runs["ours"] = (m, found)
            if crawlee_bin is not None:
                waits = ["networkidle", "load"] if args.peer_load else ["networkidle"]
                for wait in waits:
                    pm, pfound = peer(
                        f"crawlee {wait}", crawlee_bin, url, work, args.concurrency, wait
                    )
                    rows.append(row(pm, pfound, want))
                    runs[wait] = (pm, pfound)
            text.append(
                c.table(
                    header,
                    rows,
                    title=f"1. SPA, {spa_pages} pages, render concurrency {args.concurrency}",
                )
            )
            if "networkidle" in runs:
                (om, of), (pm, pf) = runs["ours"], runs["networkidle"]
                speed = (len(of) / om.wall_s) / (len(pf) / pm.wall_s) if pf and of else 0.0
                cpu = (
                    (len(of) / om.tree_cpu_s) / (len(pf) / pm.tree_cpu_s)
                    if om.tree_cpu_s and pm.tree_cpu_s
                    else 0.0
                )
                same = of == want and pf == want
                text.append(
                    f"pages/s ours / crawlee: {speed:.2f}x (pages per CPU second {cpu:.2f}x; "
                    f"target >= 1.5x, same URL set: {same}): {c.verdict(speed >= 1.5 and same)}"
                )
                results["spa"] = {"ratio": speed, "same_urls": same}
            results["spa_runs"] = {k: v[0].as_dict() for k, v in runs.items()}

    if args.only in (None, "mixed"):
        port = c.free_port()
        site = [sys.executable, c.BENCH_DIR / "spa_site.py", "--kind", "mixed"]
        with c.background(
            [*site, "--pages", str(mixed_pages), "--port", str(port)], port, work / "mixed.log"
        ):
            url, want = f"http://127.0.0.1:{port}/", expected_urls(port)
            am, afound = ours("sitemapkit auto", url, work, "auto", args.concurrency)
            wm, wfound = ours("sitemapkit always", url, work, "always", args.concurrency)
            text.append(
                c.table(
                    header,
                    [row(am, afound, want), row(wm, wfound, want)],
                    title=f"2. mixed site, {mixed_pages} pages, 10% of sections built by script",
                )
            )
            speed = wm.wall_s / am.wall_s if am.wall_s else 0.0
            cpu = wm.tree_cpu_s / am.tree_cpu_s if am.tree_cpu_s else 0.0
            same = afound == wfound == want
            text.append(
                f"auto vs always: {speed:.2f}x faster ({cpu:.2f}x less CPU; target >= 5x, "
                f"same URL set: {same}): {c.verdict(speed >= 5 and same)}"
            )
            results["mixed"] = {
                "ratio": speed,
                "same_urls": same,
                "auto": am.as_dict(),
                "always": wm.as_dict(),
            }

    report = "\n\n".join(text)
    print(report)
    c.save_results("render_bench", results, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
