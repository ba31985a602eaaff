"""ultimate-sitemap-parser as a command, for reader_bench (runs in its scratch venv).

usage: usp_parse.py file PATH...   parse local files with ``sitemap_from_str``
       usp_parse.py url URL        fetch and follow (index -> parts) over HTTP

Prints every page URL on stdout (as ``sitemapkit urls`` does) so both outputs
can be counted and compared; the page count goes to stderr.
"""

from __future__ import annotations

import gzip
import logging
import sys

from usp.fetch_parse import SitemapFetcher
from usp.tree import sitemap_from_str
from usp.web_client.requests_client import RequestsWebClient


def main() -> int:
    logging.basicConfig(level=logging.WARNING)
    mode, *args = sys.argv[1:]
    out = sys.stdout
    count = 0
    if mode == "file":
        for path in args:
            with open(path, "rb") as fh:
                raw = fh.read()
            if raw[:2] == b"\x1f\x8b":
                raw = gzip.decompress(raw)
            tree = sitemap_from_str(raw.decode("utf-8"))
            for page in tree.all_pages():
                out.write(page.url + "\n")
                count += 1
    elif mode == "url":
        (url,) = args
        fetcher = SitemapFetcher(url=url, recursion_level=0, web_client=RequestsWebClient())
        tree = fetcher.sitemap()
        for page in tree.all_pages():
            out.write(page.url + "\n")
            count += 1
    else:
        print(__doc__, file=sys.stderr)
        return 2
    out.flush()
    print(f"usp pages: {count}", file=sys.stderr)
    return 0 if count else 1


if __name__ == "__main__":
    sys.exit(main())
