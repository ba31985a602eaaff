"""The pysitemap peer: ``sitemap-generator`` 0.9.13 (import name ``pysitemap``).

Run by bench/crawl_bench.py in its scratch venv: ``python pysitemap_crawl.py ROOT OUT N``.
Its ``crawler()`` helper builds the ``aiohttp.ClientSession`` outside a running loop,
which current aiohttp refuses (``RuntimeError: no running event loop``), so this does
what ``crawler()`` does with the same ``Crawler`` class, inside ``asyncio.run``.
Its crawler only follows URLs that start with ROOT, so ROOT is the site's ``/``.
"""

import asyncio
import sys

from pysitemap.base_crawler import Crawler


async def main(root: str, out: str, tasks: int) -> None:
    crawler = Crawler(root, out_file=out, out_format="xml", maxtasks=tasks)
    await crawler.run()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
