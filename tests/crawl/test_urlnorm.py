"""URL normalisation: the RFC 3986 section 6 cases, the query policy, and properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit.crawl import urlnorm
from sitemapkit.crawl.urlnorm import LinkResolver, QueryPolicy, dedup_key, normalize, resolve

CASES = [
    # (input, base, expected)
    ("HTTP://Example.COM/a", None, "http://example.com/a"),
    ("http://example.com:80/a", None, "http://example.com/a"),
    ("https://example.com:443/a", None, "https://example.com/a"),
    ("https://example.com:8443/a", None, "https://example.com:8443/a"),
    ("http://example.com", None, "http://example.com/"),
    ("http://example.com/a/./b/../c", None, "http://example.com/a/c"),
    ("http://example.com/../../a", None, "http://example.com/a"),
    ("http://example.com/a/b/..", None, "http://example.com/a/"),
    ("http://example.com/%7euser/%41%2f", None, "http://example.com/~user/A%2F"),
    ("http://example.com/a%2e%2E/b/%2e%2e/c", None, "http://example.com/a../c"),
    ("http://example.com/a%2fb", None, "http://example.com/a%2Fb"),
    ("http://example.com/a b/ü", None, "http://example.com/a%20b/%C3%BC"),
    ("http://example.com/100%", None, "http://example.com/100%25"),
    ("http://example.com/a#frag", None, "http://example.com/a"),
    ("http://example.com/a?#frag", None, "http://example.com/a"),
    ("http://bücher.example/café/", None, "http://xn--bcher-kva.example/caf%C3%A9/"),
    ("http://EXAMPLE.com./a", None, "http://example.com/a"),
    ("http://[2001:DB8::1]:8080/a", None, "http://[2001:db8::1]:8080/a"),
    (" \t\nhttp://example.com/a\tb\n ", None, "http://example.com/ab"),
    ("http://example.com/a\\b", None, "http://example.com/a/b"),
    # relative, protocol-relative, query-only, empty, dot segments
    ("b.html", "http://example.com/a/index.html", "http://example.com/a/b.html"),
    ("../b/", "http://example.com/a/c/", "http://example.com/a/b/"),
    ("/root", "http://example.com/a/c/", "http://example.com/root"),
    ("//cdn.example.org/x.png", "https://example.com/a", "https://cdn.example.org/x.png"),
    ("?page=2", "http://example.com/list?page=1", "http://example.com/list?page=2"),
    ("", "http://example.com/a?x=1#top", "http://example.com/a?x=1"),
    ("#top", "http://example.com/a", "http://example.com/a"),
    ("http:other", "http://example.com/a/b", "http://example.com/a/other"),
    ("HTTPS://Other.example/", "http://example.com/", "https://other.example/"),
    # not web pages
    ("mailto:a@example.com", "http://example.com/", None),
    ("javascript:alert(1)", "http://example.com/", None),
    ("JavaScript:void(0)", None, None),
    ("data:text/html,<b>x</b>", "http://example.com/", None),
    ("tel:+441130000000", "http://example.com/", None),
    ("ftp://example.com/file", None, None),
    ("http://", None, None),
    ("http:///path", None, None),
    ("http://example.com:99999/", None, None),
    ("http://exa mple.com/", None, None),
    ("http://ex%41mple.com/", None, None),
    ("relative/only", None, None),
    ("", None, None),
]


@pytest.mark.parametrize(("url", "base", "expected"), CASES)
def test_normalize_cases(url: str, base: str | None, expected: str | None) -> None:
    assert normalize(url, base) == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://e.com/?utm_source=x&utm_medium=y&id=3", "http://e.com/?id=3"),
        ("http://e.com/?UTM_Campaign=x&gclid=1&fbclid=2&msclkid=3", "http://e.com/"),
        ("http://e.com/p?PHPSESSID=abc&b=2&a=1", "http://e.com/p?a=1&b=2"),
        ("http://e.com/p?sid=9&jsessionid=8&q=lamps", "http://e.com/p?q=lamps"),
        ("http://e.com/p;jsessionid=ABC123?x=1", "http://e.com/p?x=1"),
        ("http://e.com/p;JSESSIONID=ABC123/next", "http://e.com/p/next"),
        ("http://e.com/p;type=a", "http://e.com/p;type=a"),
        ("http://e.com/(S(lit3py55t21z5v55vlm25s55))/shop.aspx", "http://e.com/shop.aspx"),
        (  # %28 is not "(": a reserved character and its escape differ (RFC 3986 2.2)
            "http://e.com/%28S(lit3py55t21z5v55vlm25s55))/a",
            "http://e.com/%28S(lit3py55t21z5v55vlm25s55))/a",
        ),
        ("http://e.com/(X(1)S(lit3py55t21z5v55vlm25s55))/a?x=1", "http://e.com/a?x=1"),
        ("http://e.com/(A(abcdefgh1234)S(lit3py55t21z5v55vlm25s55))", "http://e.com/"),
        ("http://e.com/(S(short))/a", "http://e.com/(S(short))/a"),
        ("http://e.com/wiki/Python_(language)", "http://e.com/wiki/Python_(language)"),
        ("http://e.com/p?b=2&a=2&a=1", "http://e.com/p?a=1&a=2&b=2"),
        ("http://e.com/p?&&a=1&", "http://e.com/p?a=1"),
        ("http://e.com/p?q=a+b&r=%7e%26", "http://e.com/p?q=a+b&r=~%26"),
        ("http://e.com/p?", "http://e.com/p"),
    ],
)
def test_default_query_policy(url: str, expected: str) -> None:
    assert normalize(url) == expected


def test_keep_order_policy_and_dedup_key() -> None:
    keep = QueryPolicy(order="keep")
    a = normalize("http://e.com/p?b=2&a=1&utm_source=z", policy=keep)
    b = normalize("http://e.com/p?a=1&b=2", policy=keep)
    assert a == "http://e.com/p?b=2&a=1"
    assert b == "http://e.com/p?a=1&b=2"
    assert dedup_key(a or "", policy=keep) == dedup_key(b or "", policy=keep)
    assert dedup_key("http://e.com/p?a=1&b=2") == "http://e.com/p?a=1&b=2"


def test_drop_all_and_custom_params() -> None:
    assert normalize("http://e.com/p?a=1", policy=QueryPolicy(drop_all=True)) == "http://e.com/p"
    custom = QueryPolicy(drop_params=frozenset({"Ref"}), drop_prefixes=("pk_",))
    assert normalize("http://e.com/?ref=1&pk_x=2&utm_source=3", policy=custom) == (
        "http://e.com/?utm_source=3"
    )
    with pytest.raises(ValueError, match="order"):
        QueryPolicy(order="random")  # type: ignore[arg-type]


def test_invalid_base_still_allows_absolute() -> None:
    assert normalize("http://e.com/x", "mailto:a@b") == "http://e.com/x"
    assert normalize("x", "mailto:a@b") is None
    assert normalize("x", "not a url") is None


def test_unicode_host_that_idna_rejects_is_none() -> None:
    assert normalize("http://exa\u200dmple..com/") is None
    assert normalize("http://xn--zz-invalid-.com/") is None


# --- properties ---------------------------------------------------------------------

_url_chars = st.characters(codec="utf-8", exclude_categories=("Cs",))
_paths = st.lists(
    st.sampled_from(
        ["a", "B", ".", "..", "%2e", "%7E", "%2F", "é", " ", "x y", "%", "~", ";p=1", ""]
    ),
    max_size=6,
).map("/".join)
_queries = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", "utm_source", "PHPSESSID", "q", "Sort", ""]),
        st.sampled_from(["1", "2", "x y", "%26", "é", ""]),
    ),
    max_size=4,
).map(lambda pairs: "&".join(f"{k}={v}" for k, v in pairs))
_hosts = st.sampled_from(["example.com", "EXAMPLE.com", "bücher.de", "127.0.0.1:8080", "e.com:80"])
_urls = st.builds(
    lambda scheme, host, path, query, frag: (
        f"{scheme}://{host}/{path}" + (f"?{query}" if query else "") + (f"#{frag}" if frag else "")
    ),
    st.sampled_from(["http", "https", "HTTP"]),
    _hosts,
    _paths,
    _queries,
    st.text(_url_chars, max_size=5),
)


@settings(max_examples=300, deadline=None)
@given(st.text(_url_chars, max_size=60), st.one_of(st.none(), st.text(_url_chars, max_size=40)))
def test_never_raises_on_arbitrary_text(url: str, base: str | None) -> None:
    result = normalize(url, base)
    assert result is None or result.startswith(("http://", "https://"))


@settings(max_examples=300, deadline=None)
@given(_urls)
def test_idempotent_and_fragment_free(url: str) -> None:
    once = normalize(url)
    assert once is not None
    assert "#" not in once
    assert normalize(once) == once
    assert once.isascii()
    assert " " not in once


@settings(max_examples=200, deadline=None)
@given(_urls, st.sampled_from(["a/b", "../c?d=1", "//other.example/x", "?q=1", "#f", ""]))
def test_relative_resolution_is_idempotent(base: str, ref: str) -> None:
    once = normalize(ref, base)
    assert once is not None
    assert normalize(once) == once
    assert normalize(once, base) == once


@settings(max_examples=200, deadline=None)
@given(st.text(_url_chars, max_size=80))
def test_idempotent_on_whatever_is_accepted(text: str) -> None:
    once = normalize("http://example.com/" + text)
    if once is not None:
        assert normalize(once) == once


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://u:p@Example.com:8080/a", "http://u:p@example.com:8080/a"),
        ("http://@example.com/", "http://example.com/"),
        ("http://a@b@example.com/", "http://a%40b@example.com/"),
        ("http://example.com:/x", "http://example.com/x"),
        ("http://[::1/", None),
        ("http://[::1]x/", None),
        ("http://example.com:80a/", None),
        ("http://example.com:\uff10/", None),
        ("http://example.com:065535/", None),
    ],
)
def test_authority_edge_cases(url: str, expected: str | None) -> None:
    assert normalize(url) == expected


@settings(max_examples=300, deadline=None)
@given(_urls)
def test_output_is_already_what_the_writer_emits(url: str) -> None:
    """The writer's ``iri_to_uri`` must leave a crawled URL unchanged (no double escaping)."""
    from sitemapkit.urls import iri_to_uri, is_escaped_uri

    once = normalize(url)
    assert once is not None
    assert is_escaped_uri(once)
    assert iri_to_uri(once) == once


# --- the link resolver's memory answers what resolve() answers ---------------------------

_BASES = [
    "http://example.com/",
    "http://example.com/a/index.html",
    "http://example.com/a/other.html?x=1",
    "http://example.com/a/b/deep.html",
    "https://example.com/a/index.html",
    "http://example.com:8080/a/index.html",
    "http://other.test/a/index.html",
]
_HREF_PIECES = [
    "a.html",
    "../",
    "./",
    "b/",
    "/",
    "//cdn.test/",
    "http://c.test/",
    "https://c.test/",
    "HTTP://C.test/",
    "#",
    "top",
    "?",
    "q=1",
    "&",
    " ",
    "\t",
    "\\",
    ":",
    "%7e",
    "%",
    "mailto:x",
    "javascript:",
    "..",
    ".",
    "~u",
    "ü",
]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(_BASES),
            st.lists(st.sampled_from(_HREF_PIECES), max_size=5).map("".join),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_link_resolver_equals_resolve(pairs: list[tuple[str, str]]) -> None:
    """Whatever it remembered from other pages (same folder, same origin, other
    fragments), the resolver gives what :func:`resolve` gives for this base and href."""
    for policy in (QueryPolicy(), QueryPolicy(order="keep")):
        resolver = LinkResolver(policy)
        for base, href in pairs + pairs[::-1]:
            assert resolver.for_base(base)(href) == resolve(href, base, policy=policy)


def test_link_resolver_forgets_when_full(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(urlnorm, "RESOLVED_CACHE_MAX", 4)
    resolver = LinkResolver(QueryPolicy())
    page = resolver.for_base("http://example.com/a/index.html")
    for i in range(10):
        assert page(f"p{i}.html") == f"http://example.com/a/p{i}.html"
        assert len(resolver._seen) <= 4
    assert resolver.for_base(None)("HTTP://Example.com/x") == "http://example.com/x"


_plain_hosts = st.sampled_from(
    [
        *("example.com", "127.0.0.1", "127.0.0.01", "0.0.0.0", "256.1.1.1", "1.2.3", "ex.123"),
        *("xn--bcher-kva.example", "x.example", "a-b.c9", "x" * 63 + ".com", "xn--zz.example"),
    ]
)
_plain_ports = st.one_of(
    st.just(""),
    st.sampled_from([":80", ":443", ":8080", ":65535", ":65536", ":99999", ":1"]),
    st.integers(1, 99999).map(lambda n: f":{n}"),
)
_plain_paths = st.lists(st.sampled_from(["a", ".", "..", "(S(x))", "b.html", "", "~u"]), max_size=5)


@settings(max_examples=500, deadline=None)
@given(
    st.sampled_from(["http", "https"]),
    _plain_hosts,
    _plain_ports,
    _plain_paths,
    st.sampled_from(["", "?b=2&a=1", "?utm_source=x", "?a=1;b"]),
)
def test_plain_lane_equals_the_general_path(
    scheme: str, host: str, port: str, segments: list[str], query: str
) -> None:
    """The plain lane (ports included) answers what the general path answers, or defers."""
    url = f"{scheme}://{host}{port}" + "".join("/" + s for s in segments) + query
    for policy in (QueryPolicy(), QueryPolicy(order="keep")):
        plain = urlnorm._normalize_plain(url, policy)
        if plain is not None:
            assert plain == urlnorm._normalize_any(url, policy), url


def test_local_server_links_take_the_plain_lane() -> None:
    assert urlnorm._normalize_plain("http://127.0.0.1:8765/a/../b", QueryPolicy()) == (
        "http://127.0.0.1:8765/b"
    )
    assert urlnorm._normalize_plain("http://localhost:80/", QueryPolicy()) == "http://localhost/"
    assert urlnorm._normalize_plain("https://example.com:443", QueryPolicy()) == (
        "https://example.com/"
    )
    assert urlnorm._normalize_plain("http://example.com:99999/", QueryPolicy()) is None
    assert normalize("http://example.com:99999/") is None
