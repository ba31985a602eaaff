"""CrawlConfig checks and the scope rule."""

from __future__ import annotations

import pytest

from sitemapkit.crawl.config import CrawlConfig, ScopeRule
from sitemapkit.errors import InputError


def test_default_scope_is_the_start_origin() -> None:
    scope = ScopeRule(CrawlConfig("https://www.example.org/docs/"))
    assert scope.check("https://www.example.org/")
    assert scope.check("https://www.example.org/a?b=1")
    assert not scope.check("http://www.example.org/")  # another scheme is another origin
    assert not scope.check("https://blog.example.org/")
    assert not scope.check("https://www.example.org.evil.test/")
    assert not scope.check("https://user@evil.test/")


def test_subdomains_extra_hosts_and_patterns() -> None:
    scope = ScopeRule(
        CrawlConfig(
            "https://www.example.org/",
            subdomains=True,
            allow_hosts=("cdn.other.test",),
            include=(r"^https://[^/]+/(docs|blog)/",),
            exclude=(r"/private/",),
        )
    )
    assert scope.check("https://blog.example.org/docs/a")
    assert scope.check("https://example.org/blog/x")
    assert scope.check("https://cdn.other.test/docs/x")
    assert not scope.check("https://badexample.org/docs/a")
    assert not scope.check("https://www.example.org/shop/")
    assert not scope.check("https://www.example.org/docs/private/x")


def test_adopt_and_ports() -> None:
    scope = ScopeRule(CrawlConfig("http://127.0.0.1:8080/"))
    assert scope.check("http://127.0.0.1:8080/x")
    assert not scope.check("http://127.0.0.1/x")
    scope.adopt("https://127.0.0.1:8443/")
    assert scope.check("https://127.0.0.1:8443/y")
    assert scope.origins == ["http://127.0.0.1:8080", "https://127.0.0.1:8443"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"start_url": "ftp://x/"}, "not an absolute"),
        ({"start_url": "http://x/", "query": "shuffle"}, "--query"),
        ({"start_url": "http://x/", "concurrency": 0}, "at least 1"),
        ({"start_url": "http://x/", "rate": 0.0}, "--rate"),
        ({"start_url": "http://x/", "exclude": ("[",)}, "regular expression"),
    ],
)
def test_bad_settings_are_input_errors(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InputError, match=message):
        CrawlConfig(**kwargs).validate()  # type: ignore[arg-type]


def test_json_round_trip() -> None:
    config = CrawlConfig("http://x/", include=("a",), max_pages=5, rate=2.5)
    assert CrawlConfig.from_json(config.to_json()) == config
