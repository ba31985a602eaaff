"""The ground truth in ``demo.expected`` holds for a crawl built from our own parts.

A deliberately small, sequential reference crawler (breadth first, redirects followed
by hand) made of ``urlnorm``, ``robots``, ``traps`` and ``extract`` crawls the real demo
server.  If the expected module and the parts disagree, one of them is wrong; the real
engine (crawl-core) is asserted against the same module.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import aiohttp
import pytest
from aiohttp import web

from sitemapkit.crawl.extract import FOLLOW_KINDS, PageFacts, extract_page, is_html_content_type
from sitemapkit.crawl.robots import RobotsPolicy
from sitemapkit.crawl.traps import TrapGuard
from sitemapkit.crawl.urlnorm import normalize
from sitemapkit.demo import expected
from sitemapkit.demo.server import HITS

UA = "sitemapkit-test/1.0"


@dataclass
class Result:
    reasons: dict[str, str | None] = field(default_factory=dict)
    facts: dict[str, PageFacts] = field(default_factory=dict)
    robots: RobotsPolicy | None = None


async def reference_crawl(base: str) -> Result:
    result = Result()
    origin = base.rstrip("/")
    async with aiohttp.ClientSession() as http:
        async with http.get(origin + "/robots.txt") as resp:
            robots = RobotsPolicy.from_response(
                resp.status, await resp.read(), url=resp.url.human_repr()
            )
        result.robots = robots
        guard = TrapGuard()
        start = normalize(base)
        assert start is not None
        queue: deque[tuple[str, int]] = deque([(start, 0)])
        seen = {start}
        nofollow_seen: set[str] = set()

        def admit(url: str, depth: int) -> bool:
            if not url.startswith(origin + "/"):
                result.reasons[url] = "out-of-scope"
                return False
            trap = guard.check(url, depth)
            if trap is not None:
                result.reasons[url] = trap
                return False
            if not robots.allowed(url, UA):
                result.reasons[url] = "blocked-by-robots"
                return False
            return True

        def discover(url: str, depth: int) -> None:
            if url in seen:
                return
            seen.add(url)
            if admit(url, depth):
                queue.append((url, depth))

        while queue:
            url, depth = queue.popleft()
            chain = [url]
            current = url
            while True:
                async with http.get(current, allow_redirects=False) as resp:
                    status = resp.status
                    headers = resp.headers
                    body = await resp.read()
                if status not in (301, 302, 303, 307, 308):
                    break
                target = normalize(headers["Location"], current)
                assert target is not None
                chain.append(target)
                problem = guard.redirect(chain)
                if problem is not None:
                    result.reasons[url] = problem
                    break
                result.reasons[current] = "redirect"
                if target in seen or not target.startswith(origin + "/"):
                    discover(target, depth)
                    status = -1
                    break
                seen.add(target)
                if not admit(target, depth):
                    status = -1
                    break
                current = target
            if url in result.reasons and result.reasons[url] in ("redirect-loop", "redirect-chain"):
                continue
            if status == -1:
                continue
            if status != 200:
                result.reasons[current] = f"http-{status}"
                continue
            if not is_html_content_type(headers.get("Content-Type")):
                result.reasons[current] = "not-html"
                continue
            facts = extract_page(body, url=current, headers=headers)
            result.facts[current] = facts
            if facts.meta_refresh is not None:
                result.reasons[current] = "redirect"
            elif facts.noindex:
                result.reasons[current] = "noindex"
            elif not facts.self_canonical:
                result.reasons[current] = "canonicalised-to"
                if facts.canonical is not None:
                    discover(facts.canonical, depth + 1)
            else:
                result.reasons[current] = None
            followed = {link.url for link in facts.follow_links()}
            for link in facts.links:
                if link.url in followed:
                    discover(link.url, depth + 1)
                elif link.kind in FOLLOW_KINDS:
                    nofollow_seen.add(link.url)
        for url in nofollow_seen - seen:
            result.reasons[url] = "nofollow-only"
    return result


@pytest.fixture
async def crawled(demo: tuple[web.AppRunner, str]) -> tuple[web.AppRunner, str, Result]:
    runner, base = demo
    return runner, base, await reference_crawl(base)


@pytest.mark.slow
async def test_reference_crawl_matches_expected(crawled: tuple[web.AppRunner, str, Result]) -> None:
    runner, base, result = crawled
    in_sitemap = {u for u, reason in result.reasons.items() if reason is None}
    assert in_sitemap == expected.sitemap_urls(base)

    for url, reason in expected.excluded(base).items():
        assert result.reasons.get(url, "<missing>") == reason, url

    known = expected.sitemap_urls(base) | set(expected.excluded(base))
    for url, reason in result.reasons.items():
        if url in known:
            continue
        allowed = expected.may_appear_reasons(base, url)
        assert allowed is not None, f"unexpected inventory row {url} ({reason})"
        assert reason in allowed, url
    facets = [u for u in result.reasons if "/products/all/?" in u]
    assert any(result.reasons[u] == "trap-pattern" for u in facets)
    assert all(reason in expected.REASONS for reason in result.reasons.values() if reason)

    for path in expected.NORMALISED_AWAY:
        assert expected.absolute(base, path) not in result.reasons

    hits = runner.app[HITS]
    for path in expected.NEVER_FETCHED:
        assert hits[path.split("?")[0]] == 0 or "?" in path, path
    assert hits["/private/"] == 0
    assert hits["/login.html"] == 0


@pytest.mark.slow
async def test_reference_crawl_page_facts(crawled: tuple[web.AppRunner, str, Result]) -> None:
    _, base, result = crawled
    sitemap = expected.sitemap_urls(base)
    for url in sitemap:
        path = url[len(base.rstrip("/")) :]
        facts = result.facts[url]
        lastmod = expected.LASTMOD.get(path)
        assert (facts.lastmod, facts.lastmod_source) == (lastmod or (None, None)), path
        images = tuple(expected.absolute(base, p) for p in expected.IMAGES.get(path, ()))
        assert facts.images == images, path
        alternates = tuple(
            (lang, expected.absolute(base, p)) for lang, p in expected.ALTERNATES.get(path, ())
        )
        assert tuple((a.hreflang, a.href) for a in facts.alternates) == alternates, path
        if path in expected.TITLES:
            assert facts.title == expected.TITLES[path], path
    assert result.robots is not None
    # one Sitemap: parser (read/robots.py): the relative line is resolved, and still invalid
    assert result.robots.sitemaps == (
        base + "sitemap.xml",
        base + "sitemap-docs.xml",
        base + "relative-sitemap.xml",
    )
    assert result.robots.invalid_sitemaps == ("/relative-sitemap.xml",)


def test_expected_sets_are_consistent() -> None:
    base = "http://127.0.0.1:8765/"
    sitemap = expected.sitemap_urls(base)
    excluded = expected.excluded(base)
    assert not sitemap & set(excluded)
    for url in sitemap | set(excluded):
        assert normalize(url) == url, url  # written in normal form
    assert set(excluded.values()) <= expected.REASONS
    for path in expected.MAY_APPEAR:
        assert path not in expected.SITEMAP_PATHS
        assert path not in expected.EXCLUDED
    assert set(expected.LASTMOD) <= expected.SITEMAP_PATHS
    assert set(expected.IMAGES) <= expected.SITEMAP_PATHS
    assert set(expected.ALTERNATES) <= expected.SITEMAP_PATHS
    assert set(expected.TITLES) <= expected.SITEMAP_PATHS
    for path in expected.NORMALISED_AWAY:
        assert normalize(expected.absolute(base, path)) in sitemap, path
    assert expected.SITEMAP_ONLY.isdisjoint(expected.SITEMAP_PATHS)
    months, stopped = expected.calendar_paths()
    assert len(months) == 12
    assert stopped == "/events/2027/11"
