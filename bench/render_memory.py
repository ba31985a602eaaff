"""Peak memory of a rendering crawl, browser flag by browser flag (issue 14: under 1 GB).

Each variant runs the same ``sitemapkit crawl --render always`` of the
benchmark's single-page application (``bench/spa_site.py --kind spa``) as a
whole CLI process, with :data:`sitemapkit.render.browser.CHROMIUM_ARGS` (and
the restart interval) changed for that run only, and reports the peak RSS of
the whole process tree (Python, Playwright's driver, every Chromium process;
``_common.run_measured`` polls ``/proc`` at ~20 Hz), the wall time and
whether the URL set is still the site's.  The flags tried are the ones
crawlee, Playwright and puppeteer users set for crawlers.  ``--single-process``
is measured only to show what it would give: it is unsafe (one crashing page
takes the browser down) and not a candidate.

Nothing here asserts a time; the figures go to the README's render section.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import _common as c
from crawl_bench import sitemap_pages
from render_bench import expected_urls

#: name -> (flags added, full Chromium instead of the headless shell, restart interval)
VARIANTS: dict[str, tuple[list[str], bool, int | None]] = {
    "chromium (before)": ([], True, None),
    "chromium, renderer-process-limit=1": (["--renderer-process-limit=1"], True, None),
    "chromium, no site isolation": (["--disable-site-isolation-trials"], True, None),
    "headless shell (shipped)": ([], False, None),
    "shell, js heap 128 MB": (["--js-flags=--max-old-space-size=128"], False, None),
    "shell, renderer-process-limit=1": (["--renderer-process-limit=1"], False, None),
    "shell, no spare renderer": (
        ["--disable-features=BackForwardCache,Translate,MediaRouter,OptimizationHints,"
         "SpareRendererForSitePerProcess"], False, None),
    "shell, restart every 50": ([], False, 50),
    "shell, tab every 1000 (before)": (["TAB=1000"], False, None),
    "shell, tab every 10": (["TAB=10"], False, None),
    "shell, tab every 50": (["TAB=50"], False, None),
    "shell, single-process (unsafe)": (["--single-process"], False, None),
}  # fmt: skip

_RUNNER = """
import sys, json
import sitemapkit.render.browser as b
add, full, restart = json.loads(sys.argv[1])
for flag in [a for a in add if a.startswith("TAB=")]:  # pages per tab, not a flag
    b.TAB_PAGES = int(flag[4:])
    add.remove(flag)
b.CHROMIUM_ARGS = tuple(b.CHROMIUM_ARGS) + tuple(add)
if full:
    b.HEADLESS_SHELL = "/nonexistent"
if restart:
    import dataclasses
    import sitemapkit.render.renderer as r
    r.RenderSettings = dataclasses.make_dataclass(  # the same class, another default
        "RenderSettings", [("restart_every", int, restart)], bases=(r.RenderSettings,),
        frozen=True)
    import sitemapkit.render as rp
    rp.RenderSettings = r.RenderSettings
from sitemapkit.cli import main
sys.argv = ["sitemapkit", *sys.argv[2:]]
sys.exit(main())
"""


def python() -> Path:
    return c.our_cli().parent / "python"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pages", type=int, default=200)
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--only", action="append", help="variant name (repeatable)")
    ap.add_argument("--combined", action="append", default=[], help="extra flag for 'combined'")
    args = ap.parse_args()
    variants = dict(VARIANTS)
    if args.combined:
        variants["combined"] = (args.combined, False, None)
    names = args.only or list(variants)
    work = c.SCRATCH / "render-memory"
    work.mkdir(parents=True, exist_ok=True)
    port = c.free_port()
    site = [sys.executable, c.BENCH_DIR / "spa_site.py", "--kind", "spa"]
    rows, results = [], {"machine": c.machine_note()}
    with c.background([*site, "--pages", str(args.pages), "--port", str(port)], port,
                      work / "spa.log"):  # fmt: skip
        url, want = f"http://127.0.0.1:{port}/", expected_urls(port)
        for name in names:
            add, full, restart = variants[name]
            out = work / ("out-" + "".join(ch if ch.isalnum() else "-" for ch in name))
            shutil.rmtree(out, ignore_errors=True)
            cmd = [
                python(), "-c", _RUNNER, json.dumps([add, full, restart]),
                "crawl", url, "-o", out, "--no-map", "--render", "always",
                "--render-concurrency", str(args.concurrency),
            ]  # fmt: skip
            m = c.run_measured(
                name, cmd, stderr=work / "err.txt", stdout=work / "out.txt", timeout=600
            )
            found = sitemap_pages(out)
            rows.append([name, f"{m.wall_s:.1f}", f"{m.peak_mb:.0f}", found == want, m.returncode])
            results[name] = {**m.as_dict(), "same_urls": found == want}
    print(c.machine_note())
    print(
        c.table(
            ["variant", "wall s", "peak MB", "same URLs", "exit"],
            rows,
            title=f"render --always, SPA of {args.pages} pages, concurrency {args.concurrency}",
        )
    )
    (work / "results.json").write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
