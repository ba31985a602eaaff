import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemapkit.errors import InputError
from sitemapkit.urls import Scope, has_bad_escape, host_to_ascii, iri_to_uri, is_escaped_uri


@pytest.mark.parametrize(
    ("iri", "uri"),
    [
        ("https://example.com/", "https://example.com/"),
        ("http://example.com", "http://example.com/"),
        ("HTTPS://Example.COM:443/a", "https://example.com/a"),
        ("http://example.com:8080/a", "http://example.com:8080/a"),
        ("https://example.com/a b", "https://example.com/a%20b"),
        ("https://bücher.de/straße?q=ä", "https://xn--bcher-kva.de/stra%C3%9Fe?q=%C3%A4"),
        ("https://example.com/x#frag", "https://example.com/x"),
        ("https://example.com/%7e/%e2%82%ac", "https://example.com/%7E/%E2%82%AC"),
        ("https://example.com/100%", "https://example.com/100%25"),
        ("https://example.com/%zz", "https://example.com/%25zz"),
        ('https://example.com/a<b>"{}|\\^`', "https://example.com/a%3Cb%3E%22%7B%7D%7C%5C%5E%60"),
        ("https://example.com/?", "https://example.com/?"),
        ("  https://example.com/t  ", "https://example.com/t"),
        ("http://[::1]:8000/x", "http://[::1]:8000/x"),
    ],
)
def test_iri_to_uri(iri: str, uri: str) -> None:
    assert iri_to_uri(iri) == uri
    assert is_escaped_uri(uri)


@pytest.mark.parametrize(
    "bad", ["/relative", "example.com/x", "ftp://example.com/", "https:///x", "mailto:a@b.c", ""]
)
def test_iri_to_uri_refuses_non_http(bad: str) -> None:
    with pytest.raises(InputError) as err:
        iri_to_uri(bad)
    assert err.value.rule == "loc-not-absolute"


@given(st.text(min_size=0, max_size=40))
def test_any_path_becomes_escaped_and_is_idempotent(path: str) -> None:
    uri = iri_to_uri("https://example.com/" + path.replace("#", ""))
    assert is_escaped_uri(uri)
    assert not has_bad_escape(uri)
    assert iri_to_uri(uri) == uri


def test_scope() -> None:
    scope = Scope.of("https://example.com/blog/sitemap.xml")
    assert scope.check("https://example.com/blog/post") is None
    assert scope.check("https://example.com/blog/") is None
    assert scope.check("https://example.com/other") == "loc-outside-directory"
    assert scope.check("http://example.com/blog/x") == "loc-other-host"
    assert scope.check("https://www.example.com/blog/x") == "loc-other-host"
    assert scope.check("https://example.com:8443/blog/x") == "loc-other-host"
    assert Scope.of("https://example.com:443/").origin == "https://example.com"


@pytest.mark.parametrize(
    ("iri", "uri"),
    [
        ("http://➡.ws/b", "http://xn--hgi.ws/b"),
        ("http://i❤️.ws/", "http://xn--i-7iq.ws/"),
        ("http://xn--hgi.ws/b", "http://xn--hgi.ws/b"),
    ],
)
def test_symbol_and_emoji_hosts_take_the_idna_2003_form(iri: str, uri: str) -> None:
    """IDNA 2008 refuses them, browsers and w3lib reach them: the writer writes them, as
    the crawler follows them (one fallback, urls.idna2003)."""
    assert iri_to_uri(iri) == uri


@pytest.mark.parametrize(
    ("host", "address"),
    [
        ("127.0.0.1", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("0300.0250.01.01.", "192.168.1.1"),
        ("1.2.3", "1.2.0.3"),
        ("4294967295", "255.255.255.255"),
        ("4294967296", None),
        ("192.168.0.257", None),
        ("1.2.3.4.5", None),
        ("foo.09", None),
        ("example.123", None),
    ],
)
def test_a_host_ending_in_a_number_is_an_ipv4_address_or_none(
    host: str, address: str | None
) -> None:
    """WHATWG's host parser, as browsers read a numeric host (web-platform-tests' rows)."""
    assert host_to_ascii(host) == address
