"""RFC 9309 and Google's robots.txt cases, each a row: rules, URL, expected verdict."""

from __future__ import annotations

import pytest

from sitemapkit.crawl.robots import MAX_ROBOTS_BYTES, RobotsPolicy

UA = "sitemapkit/0.1 (+https://github.com/sitemapkit)"
ORIGIN = "https://example.com"


def policy(text: str) -> RobotsPolicy:
    return RobotsPolicy.from_response(200, text.encode(), url=f"{ORIGIN}/robots.txt")


CASES = [
    # (name, robots.txt, path, allowed)
    ("empty file allows all", "", "/anything", True),
    ("plain disallow", "User-agent: *\nDisallow: /private/\n", "/private/x", False),
    ("prefix only", "User-agent: *\nDisallow: /private/\n", "/privateer", True),
    ("empty disallow allows", "User-agent: *\nDisallow:\n", "/x", True),
    (
        "longest match wins (allow longer)",
        "User-agent: *\nDisallow: /shop/\nAllow: /shop/public/\n",
        "/shop/public/item",
        True,
    ),
    (
        "longest match wins (disallow longer)",
        "User-agent: *\nAllow: /shop/\nDisallow: /shop/cart/\n",
        "/shop/cart/1",
        False,
    ),
    (
        "allow wins a tie",
        "User-agent: *\nDisallow: /page\nAllow: /page\n",
        "/page",
        True,
    ),
    ("wildcard in middle", "User-agent: *\nDisallow: /*/print/\n", "/docs/print/a", False),
    ("wildcard no match", "User-agent: *\nDisallow: /*/print/\n", "/docs/view/a", True),
    ("dollar anchors end", "User-agent: *\nDisallow: /*.pdf$\n", "/files/a.pdf", False),
    ("dollar with query not end", "User-agent: *\nDisallow: /*.pdf$\n", "/files/a.pdf?x=1", True),
    ("dollar exact", "User-agent: *\nDisallow: /$\n", "/", False),
    ("dollar exact other", "User-agent: *\nDisallow: /$\n", "/a", True),
    ("query pattern", "User-agent: *\nDisallow: /*?sessionid=\n", "/a?sessionid=1", False),
    ("paths are case sensitive", "User-agent: *\nDisallow: /Private/\n", "/private/x", True),
    ("paths are case sensitive 2", "User-agent: *\nDisallow: /Private/\n", "/Private/x", False),
    (
        "directive names ignore case",
        "user-AGENT: *\ndisALLOW: /x\n",
        "/x",
        False,
    ),
    ("percent-encoded rule matches raw", "User-agent: *\nDisallow: /%7Ejoe/\n", "/~joe/a", False),
    ("raw rule matches encoded", "User-agent: *\nDisallow: /~joe/\n", "/%7Ejoe/a", False),
    (
        "utf-8 rule matches encoded URL",
        "User-agent: *\nDisallow: /café/\n",
        "/caf%C3%A9/menu",
        False,
    ),
    (
        "specific group replaces *",
        "User-agent: *\nDisallow: /\n\nUser-agent: sitemapkit\nDisallow: /tmp/\n",
        "/page",
        True,
    ),
    (
        "specific group rules apply",
        "User-agent: *\nDisallow: /\n\nUser-agent: sitemapkit\nDisallow: /tmp/\n",
        "/tmp/x",
        False,
    ),
    (
        "product token match ignores case",
        "User-agent: SiteMapKit\nDisallow: /x/\n",
        "/x/1",
        False,
    ),
    (
        "groups for one agent are merged",
        "User-agent: sitemapkit\nDisallow: /a/\n\nUser-agent: other\nDisallow: /\n\n"
        "User-agent: sitemapkit\nDisallow: /b/\n",
        "/b/1",
        False,
    ),
    (
        "several agents share a group",
        "User-agent: other\nUser-agent: sitemapkit\nDisallow: /shared/\n",
        "/shared/1",
        False,
    ),
    (
        "other bot's group does not apply",
        "User-agent: badbot\nDisallow: /\n",
        "/page",
        True,
    ),
    ("comments ignored", "User-agent: * # all\nDisallow: /x # no\n", "/x", False),
    (
        "rules before any user-agent are ignored",
        "Disallow: /\nUser-agent: *\nAllow: /\n",
        "/page",
        True,
    ),
    ("robots.txt itself always allowed", "User-agent: *\nDisallow: /\n", "/robots.txt", True),
    ("CRLF line ends", "User-agent: *\r\nDisallow: /crlf/\r\n", "/crlf/a", False),
    ("allow root only: root", "User-agent: *\nAllow: /$\nDisallow: /\n", "/", True),
    ("allow root only: page", "User-agent: *\nAllow: /$\nDisallow: /\n", "/page", False),
    (
        "pattern length counts wildcards (disallow longer)",
        "User-agent: *\nAllow: /page*\nDisallow: /*.html\n",
        "/page.html",
        False,
    ),
    (
        "pattern length counts wildcards (allow longer)",
        "User-agent: *\nAllow: /page*.html\nDisallow: /*.html\n",
        "/page.html",
        True,
    ),
    (
        "blank line does not end a group",
        "User-agent: other\nUser-agent: *\n\nDisallow: /x\n",
        "/x",
        False,
    ),
    ("disallow star", "User-agent: *\nDisallow: *\n", "/x", False),
    ("query in rule", "User-agent: *\nDisallow: /search?\n", "/search?q=1", False),
    ("query in rule, no query", "User-agent: *\nDisallow: /search?\n", "/search", True),
    ("non-ASCII URL vs encoded rule", "User-agent: *\nDisallow: /%E4%B8%AD/\n", "/中/", False),
]


@pytest.mark.parametrize(("name", "text", "path", "expected"), CASES, ids=[c[0] for c in CASES])
def test_rfc9309_and_google_cases(name: str, text: str, path: str, expected: bool) -> None:
    assert policy(text).allowed(ORIGIN + path, UA) is expected


def test_bom_is_stripped_before_parsing() -> None:
    body = b"\xef\xbb\xbfUser-agent: *\nDisallow: /bom/\n"
    pol = RobotsPolicy.from_response(200, body, url=f"{ORIGIN}/robots.txt")
    assert not pol.allowed(f"{ORIGIN}/bom/x", UA)


def test_invalid_utf8_does_not_crash() -> None:
    body = b"User-agent: *\nDisallow: /\xff\xfe/\nDisallow: /ok-rule/\n"
    pol = RobotsPolicy.from_response(200, body, url=f"{ORIGIN}/robots.txt")
    assert not pol.allowed(f"{ORIGIN}/ok-rule/", UA)


@pytest.mark.parametrize("status", [400, 401, 403, 404, 410])
def test_4xx_allows_all(status: int) -> None:
    pol = RobotsPolicy.from_response(status, b"User-agent: *\nDisallow: /\n", url=ORIGIN)
    assert pol.mode == "allow-all"
    assert pol.allowed(f"{ORIGIN}/anything", UA)
    assert not pol.retry


@pytest.mark.parametrize("status", [429, 500, 502, 503, None])
def test_5xx_429_and_unreachable_disallow_all_and_ask_for_retry(status: int | None) -> None:
    pol = RobotsPolicy.from_response(status, None, url=f"{ORIGIN}/robots.txt")
    assert pol.mode == "disallow-all"
    assert pol.retry
    assert not pol.allowed(f"{ORIGIN}/", UA)
    assert pol.allowed(f"{ORIGIN}/robots.txt", UA)


def test_redirects_exhausted_allow_all() -> None:
    pol = RobotsPolicy.from_response(301, None, url=f"{ORIGIN}/robots.txt")
    assert pol.allowed(f"{ORIGIN}/x", UA)


def test_product_token_inside_a_browser_like_user_agent() -> None:
    pol = policy("User-agent: sitemapkit\nDisallow: /y\n")
    assert not pol.allowed(f"{ORIGIN}/y", "Mozilla/5.0 (compatible; sitemapkit/0.1)")


def test_crawl_delay_per_group() -> None:
    pol = policy(
        "User-agent: *\nCrawl-delay: 2.5\n\nUser-agent: sitemapkit\nCrawl-delay: 1\nDisallow:\n"
    )
    assert pol.crawl_delay(UA) == 1.0
    assert pol.crawl_delay("otherbot/1.0") == 2.5
    assert policy("User-agent: *\nDisallow:\n").crawl_delay(UA) is None
    assert RobotsPolicy.from_response(404, None, url=ORIGIN).crawl_delay(UA) is None


def test_sitemaps_absolute_kept_relative_resolved_and_recorded_invalid() -> None:
    """The one Sitemap: parser (read/robots.py): a relative value is resolved against
    robots.txt, as the reader reads it, and still recorded as invalid."""
    pol = policy(
        "Sitemap: https://example.com/sitemap.xml\n"
        "User-agent: *\nDisallow:\n"
        "sitemap: /relative-sitemap.xml\n"
        "Sitemap: HTTPS://EXAMPLE.com/news.xml\n"
        "Sitemap: ftp://example.com/x.xml\n"
        "Sitemap: https://example.com/sitemap.xml\n"
    )
    assert pol.sitemaps == (
        "https://example.com/sitemap.xml",
        "https://example.com/relative-sitemap.xml",
        "https://example.com/news.xml",
    )
    assert pol.invalid_sitemaps == ("/relative-sitemap.xml", "ftp://example.com/x.xml")


def test_body_is_capped_at_500_kib() -> None:
    filler = b"# " + b"x" * 100 + b"\n"
    body = b"User-agent: *\nDisallow: /early/\n" + filler * (MAX_ROBOTS_BYTES // len(filler) + 10)
    body += b"Disallow: /late/\n"
    pol = RobotsPolicy.from_response(200, body, url=f"{ORIGIN}/robots.txt")
    assert pol.truncated
    assert not pol.allowed(f"{ORIGIN}/early/x", UA)
    assert pol.allowed(f"{ORIGIN}/late/x", UA)


def test_garbage_body_is_parsed_without_error() -> None:
    pol = RobotsPolicy.from_response(200, bytes(range(256)) * 50, url=f"{ORIGIN}/robots.txt")
    assert pol.allowed(f"{ORIGIN}/x", UA)


def test_html_error_page_served_as_robots_allows() -> None:
    body = b"<!doctype html><html><body><h1>Welcome</h1><a href='/'>home</a></body></html>"
    pol = RobotsPolicy.from_response(200, body, url=f"{ORIGIN}/robots.txt")
    assert pol.allowed(f"{ORIGIN}/x", UA)


#: URLs around the one a policy always allows (its own ``/robots.txt``) and the ones the
#: URL split refuses: a query or fragment after it, another case, an escape, a port,
#: IPv6 literals (one unclosed), a host NFKC changes, a non-ASCII path.
_ROBOTS_EDGE_URLS = (
    "http://h/robots.txt",
    "http://h/robots.txt?x=1",
    "http://h/robots.txt#top",
    "http://h:8080/robots.txt",
    "http://h/ROBOTS.TXT",
    "http://h/%72obots.txt",
    "http://h/a/robots.txt",
    "http://h/robots.txtx",
    "http://h/page?next=/robots.txt",
    "http://[::1]/robots.txt",
    "http://[::1]/page",
    "http://[::1/page",
    "http://h]/page",
    "http://h\uff0fx/page",
    "http://h/caf\u00e9",
    "http://h/page",
    "http://h/",
)


@pytest.mark.parametrize("url", _ROBOTS_EDGE_URLS)
@pytest.mark.parametrize("status", [200, 503])
def test_own_robots_txt_and_unsplittable_urls_answer_as_the_url_split_says(
    url: str, status: int
) -> None:
    """The check splits only URLs that can be the policy's own file or fail to split;
    the answer is the one a split of every URL gives."""
    from urllib.parse import urlsplit

    policy = RobotsPolicy.from_response(
        status, b"User-agent: *\nDisallow: /\n", url="http://h/robots.txt"
    )
    try:
        own = urlsplit(url).path == "/robots.txt"
    except ValueError:
        expected = False
    else:
        expected = own or (policy.mode != "disallow-all" and policy._parser.can_fetch(url, "x"))
    assert policy.allowed(url, "x") is expected
