"""Time the crawler's per-page parts on this machine: extract, urlnorm, traps, robots.

Not a benchmark against peers (those live in bench/); this prints the absolute cost of
each part so regressions show.  Best of several runs, since the machine is shared.

    .venv/bin/python scripts/measure_crawl_parts.py
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser
from yarl import URL

from sitemapkit.crawl import urlnorm
from sitemapkit.crawl.extract import extract_page
from sitemapkit.crawl.robots import RobotsPolicy
from sitemapkit.crawl.traps import TrapGuard
from sitemapkit.crawl.urlnorm import normalize

ROOT = Path(__file__).resolve().parent.parent
WP = (ROOT / "tests/crawl/fixtures/wordpress_post.html").read_text()
URL_ = "https://lumen.example.co.uk/blog/choose-a-reading-lamp/"
HEADERS = {"Content-Type": "text/html; charset=UTF-8"}


def best_ms(fn: Callable[[], object], runs: int, *, cold: bool = False) -> float:
    times = []
    for _ in range(runs):
        if cold:
            urlnorm._normalize_absolute.cache_clear()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def pages() -> None:
    sentence = "A good reading lamp puts four to five hundred lumens on the page. "
    typical = WP.replace(
        '<nav class="post-navigation">',
        f"<p>{sentence * 11}</p>\n" * 110
        + "<ul>"
        + "".join(f'<li><a href="/blog/related-{i}/">Related {i}</a></li>' for i in range(120))
        + "</ul>"
        + '<nav class="post-navigation">',
    ).encode()
    heavy = WP.replace(
        '<nav class="post-navigation">',
        "".join(
            f'<p>Paragraph {i}. See <a href="/blog/post-{i}/">post {i}</a>, '
            f'<a href="https://lumen.example.co.uk/shop/item-{i}/?utm_source=blog">item</a> '
            f'and <a href="../tag/t{i % 40}/">tag</a>.<img src="/up/{i}.jpg" alt=""></p>\n'
            for i in range(420)
        )
        + '<nav class="post-navigation">',
    ).encode()
    for name, body in (("typical article", typical), ("link-heavy page", heavy)):
        facts = extract_page(body, url=URL_, headers=HEADERS)
        text = body.decode()
        print(
            f"{name}: {len(body) / 1024:.0f} KiB, {len(facts.links)} links, "
            f"{len(facts.images)} images"
        )
        parse = best_ms(lambda t=text: LexborHTMLParser(t), 100)
        new = best_ms(lambda b=body: extract_page(b, url=URL_, headers=HEADERS), 50, cold=True)
        seen = best_ms(lambda b=body: extract_page(b, url=URL_, headers=HEADERS), 100)
        print(f"  lexbor parse only        {parse:.2f} ms")
        print(f"  extract_page, new URLs   {new:.2f} ms")
        print(f"  extract_page, seen URLs  {seen:.2f} ms")


def urls() -> None:
    rnd = random.Random(1)  # noqa: S311 - test data, not secrets
    segs = ["blog", "shop", "desk-lamps", "a", "..", ".", "caf%C3%A9", "Über", "item-123", "2026"]
    absolute, relative = [], []
    for i in range(50_000):
        path = "/".join(rnd.choice(segs) for _ in range(rnd.randint(1, 5)))
        query = rnd.choice(
            ["", f"?page={i}", f"?utm_source=x&id={i}", f"?b={i}&a=1", "?PHPSESSID=1"]
        )
        frag = rnd.choice(["", "#top"])
        host = rnd.choice(["example.com", "Example.COM:443", "shop.example.org"])
        absolute.append(f"https://{host}/{path}-{i}{query}{frag}")
        relative.append(rnd.choice(["", "../", "./", "/"]) + f"{path}-{i}{query}{frag}")
    n = len(absolute)
    base = "https://example.com/blog/2026/post.html"
    t_abs = best_ms(lambda: [normalize(u) for u in absolute], 5, cold=True) / n * 1000
    t_rel = best_ms(lambda: [normalize(u, base) for u in relative], 5, cold=True) / n * 1000
    t_yarl = best_ms(lambda: [str(URL(u)) for u in absolute], 5) / n * 1000
    print(f"normalize, new absolute URLs    {t_abs:.1f} us/URL")
    print(f"normalize, new relative + base  {t_rel:.1f} us/URL")
    print(f"(yarl str(URL(u)) alone)        {t_yarl:.1f} us/URL")


def guards() -> None:
    urls_ = [
        f"https://example.com/blog/{2000 + i % 26}/{i % 12 + 1}/post-{i}/?p={i % 7}&s=n"
        for i in range(50_000)
    ]
    guard = TrapGuard()
    t = best_ms(lambda: [guard.check(u, 3) for u in urls_], 1) / len(urls_) * 1000
    print(f"TrapGuard.check                 {t:.1f} us/URL")
    small = RobotsPolicy.from_response(
        200, b"User-agent: *\nDisallow: /private/\nDisallow: /*?print=1$\n", url="https://e.com/"
    )
    checks = [f"https://e.com/other/{i}" for i in range(20_000)]
    t = best_ms(lambda: [small.allowed(u, "sitemapkit/0.1") for u in checks], 3)
    t = t / len(checks) * 1000
    print(f"RobotsPolicy.allowed (3 rules)  {t:.1f} us/URL")
    hostile = "User-agent: *\n" + "".join(f"Disallow: /s-{i}/*/p$\n" for i in range(20_000))
    big = RobotsPolicy.from_response(200, hostile.encode(), url="https://e.com/")
    t = best_ms(lambda: [big.allowed(u, "sitemapkit/0.1") for u in checks[:100]], 3) / 100
    print(f"RobotsPolicy.allowed (500 KiB of wildcard rules) {t:.2f} ms/URL")


if __name__ == "__main__":
    pages()
    urls()
    guards()
