"""A minimal Scrapy CrawlSpider for crawl_bench (runs in its scratch venv).

    scrapy runspider scrapy_spider.py -a start_url=URL -a out=FILE -s CONCURRENT_REQUESTS=N

Follows every link on the start URL's origin (LinkExtractor restricted to it),
obeys robots.txt, keeps no items: it only records each HTML page that answered
200, and writes that URL list to ``out`` when the spider closes, so the
benchmark can count pages and compare sets.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule


class BenchSpider(CrawlSpider):
    name = "bench"
    custom_settings = {  # noqa: RUF012 - Scrapy's own convention
        "ROBOTSTXT_OBEY": True,
        "LOG_LEVEL": "INFO",
        "DOWNLOAD_DELAY": 0,
        "AUTOTHROTTLE_ENABLED": False,
        "TELNETCONSOLE_ENABLED": False,
        "COOKIES_ENABLED": False,
        "HTTPCACHE_ENABLED": False,
        "ITEM_PIPELINES": {},
        "RETRY_TIMES": 1,
    }

    def __init__(self, start_url: str, out: str, *args: object, **kwargs: object) -> None:
        parts = urlsplit(start_url)
        host = parts.hostname or ""
        origin = f"{parts.scheme}://{parts.netloc}"
        self.start_urls = [start_url]
        self.allowed_domains = [host]
        self.out = out
        self.pages: list[str] = []
        self.rules = (
            # allow_domains would compare against "host:port" and drop every link
            # of a site on a non-default port, so restrict by origin instead.
            Rule(
                LinkExtractor(allow=(rf"^{re.escape(origin)}/",)),
                callback="parse_page",
                follow=True,
            ),
        )
        super().__init__(*args, **kwargs)

    def parse_start_url(self, response, **kwargs):  # type: ignore[no-untyped-def]
        return self.parse_page(response)

    def parse_page(self, response):  # type: ignore[no-untyped-def]
        ctype = response.headers.get(b"Content-Type", b"").decode("latin-1").lower()
        if response.status == 200 and "html" in ctype:
            self.pages.append(response.url)
        return []

    def closed(self, reason: str) -> None:
        with open(self.out, "w", encoding="utf-8") as fh:
            fh.writelines(u + "\n" for u in self.pages)
        self.logger.info("bench pages: %d (%s)", len(self.pages), reason)
