"""The peer: crawlee-python's PlaywrightCrawler on Debian's Chromium, printing every page URL.

Run in its own scratch venv (``crawlee[playwright]``) by ``bench/render_bench.py``:
``python crawlee_render.py START_URL --concurrency N [--wait load|networkidle]``.
Pages are rendered in ``/usr/bin/chromium`` (no bundled browser), links enqueued
from the rendered DOM with the same-origin strategy.  ``--wait networkidle``
waits for the page's network to settle before reading its links, which a
single-page application needs (with ``load`` links built after a fetch are
missed); nothing is blocked, as crawlee's defaults do.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("start")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--wait", choices=("load", "networkidle"), default="networkidle")
    ap.add_argument("--max-pages", type=int, default=100_000)
    ap.add_argument("--executable", default="/usr/bin/chromium", help="the same browser as ours")
    args = ap.parse_args()
    os.environ.setdefault("CRAWLEE_STORAGE_DIR", tempfile.mkdtemp(prefix="crawlee-"))
    from crawlee import ConcurrencySettings
    from crawlee.crawlers import PlaywrightCrawler, PlaywrightCrawlingContext

    n = args.concurrency
    crawler = PlaywrightCrawler(
        concurrency_settings=ConcurrencySettings(
            min_concurrency=n, max_concurrency=n, desired_concurrency=n
        ),
        max_requests_per_crawl=args.max_pages,
        headless=True,
        browser_type="chromium",
        browser_launch_options={
            "executable_path": args.executable,
            "args": ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        },
    )
    seen: list[str] = []

    @crawler.router.default_handler
    async def handler(context: PlaywrightCrawlingContext) -> None:
        if args.wait == "networkidle":
            await context.page.wait_for_load_state("networkidle")
        seen.append(context.request.loaded_url or context.request.url)
        await context.enqueue_links(strategy="same-origin")

    await crawler.run([args.start])
    sys.stdout.write("".join(f"{u}\n" for u in seen))


if __name__ == "__main__":
    asyncio.run(main())
