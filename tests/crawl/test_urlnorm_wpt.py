"""The WHATWG URL parser's own test data (web-platform-tests ``url/resources/urltestdata.json``),
the rows about http(s), in our words.

A link on a page is resolved the way a browser resolves it, so the browsers' shared
test data is the reference: each row is an ``href`` as written, the page URL it is
resolved against, and the URL a browser makes of it (or ``None``: the browser refuses
it).  What the crawler keeps is that URL in our normal form (fragment dropped, escapes
in upper case, unreserved escapes decoded), so a row passes when
``resolve(href, base) == normalize(expected)``.  Rows the resolver does not implement
yet are strict xfails that say so.
"""

from __future__ import annotations

import pytest

from sitemapkit.crawl.urlnorm import QueryPolicy, normalize, resolve

KEEP = QueryPolicy(order="keep")
B = "http://example.org/foo/bar"
_IPV4 = (
    "not implemented: WHATWG's IPv4 parser (hex and octal parts, a numeric last label that "
    "is no address is refused); such hosts are kept as written"
)
_IPV6 = "not implemented: IPv6 addresses are kept as written, not compressed (RFC 5952)"
_PORT = "not implemented: a port with leading zeros is refused, not read as a number"

# (href, base, what a browser makes of it or None, xfail reason)
ROWS: list[tuple[str, str, str | None, str]] = [
    ("http://example\t.\norg", B, "http://example.org/", ""),
    ("http://user:pass@foo:21/bar;par?b#c", B, "http://user:pass@foo:21/bar;par?b#c", ""),
    (
        "https://test:@test",
        "about:blank",
        "https://test@test/",
        "not implemented: the ':' of an empty password is kept",
    ),
    ("http:foo.com", B, "http://example.org/foo/foo.com", ""),
    ("\t   :foo.com   \n", B, "http://example.org/foo/:foo.com", ""),
    (" foo.com  ", B, "http://example.org/foo/foo.com", ""),
    ("http://f:21/ b ? d # e ", B, "http://f:21/%20b%20?%20d%20#%20e", ""),
    ("http://f:/c", B, "http://f/c", ""),
    ("http://f:0/c", B, "http://f:0/c", ""),
    ("http://f:00000000000000/c", B, "http://f:0/c", _PORT),
    ("http://f:00000000000000000000080/c", B, "http://f/c", _PORT),
    ("http://f:b/c", B, None, ""),
    ("http://f: /c", B, None, ""),
    ("http://f:\n/c", B, "http://f/c", ""),
    ("http://f:fifty-two/c", B, None, ""),
    ("http://f:999999/c", B, None, ""),
    ("http://f: 21 / b ? d # e ", B, None, ""),
    ("", B, B, ""),
    ("  \t", B, B, ""),
    (":foo.com/", B, "http://example.org/foo/:foo.com/", ""),
    (":foo.com\\", B, "http://example.org/foo/:foo.com/", ""),
    (":", B, "http://example.org/foo/:", ""),
    (":#", B, "http://example.org/foo/:#", ""),
    ("#", B, "http://example.org/foo/bar#", ""),
    ("#/", B, "http://example.org/foo/bar#/", ""),
    ("?", B, "http://example.org/foo/bar?", ""),
    ("/", B, "http://example.org/", ""),
    (":23", B, "http://example.org/foo/:23", ""),
    ("/:23", B, "http://example.org/:23", ""),
    ("\\x", B, "http://example.org/x", ""),
    ("\\\\x\\hello", B, "http://x/hello", ""),
    ("::", B, "http://example.org/foo/::", ""),
    ("::23", B, "http://example.org/foo/::23", ""),
    ("http://a:b@c:29/d", B, "http://a:b@c:29/d", ""),
    ("http::@c:29", B, "http://example.org/foo/:@c:29", ""),
    ("http://foo.com:b@d/", B, "http://foo.com:b@d/", ""),
    ("http://foo.com/\\@", B, "http://foo.com//@", ""),
    ("http:\\\\foo.com\\", B, "http://foo.com/", ""),
    ("http:\\\\a\\b:c\\d@foo.com\\", B, "http://a/b:c/d@foo.com/", ""),
    ("http://example.com/foo/../../..", "about:blank", "http://example.com/", ""),
    ("http://example.com/foo/%2e%2", "about:blank", "http://example.com/foo/%2e%2", ""),
    (
        "http://example.com/foo/%2e./%2e%2e/.%2e/%2e.bar",
        "about:blank",
        "http://example.com/%2e.bar",
        "",
    ),
    ("http://example.com////../..", "about:blank", "http://example.com//", ""),
    ("http://example.com/foo/bar//../..", "about:blank", "http://example.com/foo/", ""),
    ("http://example.com/foo/bar//..", "about:blank", "http://example.com/foo/bar/", ""),
    ("http://example.com/foo/./", "about:blank", "http://example.com/foo/", ""),
    ("http://example.com/foo/.", "about:blank", "http://example.com/foo/", ""),
    ("http://example.com/foo/bar/..", "about:blank", "http://example.com/foo/", ""),
    ("http://example.com/%20foo", "about:blank", "http://example.com/%20foo", ""),
    ("http://example.com/foo%", "about:blank", "http://example.com/foo%", ""),
    ("http://example.com/foo%2", "about:blank", "http://example.com/foo%2", ""),
    ("http://example.com/foo%2zbar", "about:blank", "http://example.com/foo%2zbar", ""),
    ("http://example.com/foo%41%7a", "about:blank", "http://example.com/foo%41%7a", ""),
    ("http://example.com/foo\t\u0091%91", "about:blank", "http://example.com/foo%C2%91%91", ""),
    ("http://example.com/foo%00%51", "about:blank", "http://example.com/foo%00%51", ""),
    ("http://example.com/(%28:%3A%29)", "about:blank", "http://example.com/(%28:%3A%29)", ""),
    ("http://example.com/%3A%3a%3C%3c", "about:blank", "http://example.com/%3A%3a%3C%3c", ""),
    ("http://example.com/foo\tbar", "about:blank", "http://example.com/foobar", ""),
    ("http://example.com\\\\foo\\\\bar", "about:blank", "http://example.com//foo//bar", ""),
    (
        "http://example.com/%7Ffp3>*<%32%33/",
        "about:blank",
        "http://example.com/%7Ffp3%3E*%3C%32%33/",
        "",
    ),
    ("http://example.com/<a>", "about:blank", "http://example.com/%3Ca%3E", ""),
    ("http://www/foo%2Ehtml", "about:blank", "http://www/foo%2Ehtml", ""),
    ("http://www/foo/%2E/html", "about:blank", "http://www/foo/html", ""),
    ("http://user:pass@/", "about:blank", None, ""),
    (
        "http://%25DOMAIN:foobar@foodomain.com/",
        "about:blank",
        "http://%25DOMAIN:foobar@foodomain.com/",
        "",
    ),
    ("http:\\\\www.google.com\\foo", "about:blank", "http://www.google.com/foo", ""),
    ("http://foo:80/", "about:blank", "http://foo/", ""),
    ("http://foo:81/", "about:blank", "http://foo:81/", ""),
    ("httpa://foo:80/", "about:blank", None, ""),
    ("http://foo:-80/", "about:blank", None, ""),
    ("https://foo:443/", "about:blank", "https://foo/", ""),
    ("https://foo:80/", "about:blank", "https://foo:80/", ""),
    ("http://[1:0::]", B, "http://[1::]/", _IPV6),
    ("http://[0:0:0:0:0:0:13.1.68.3]", B, "http://[::d01:4403]/", _IPV6),
    ("http://[::127.0.0.1]", B, "http://[::7f00:1]/", _IPV6),
    ("http://[www.google.com]/", "about:blank", None, ""),
    ("http://0x7f.1/", "about:blank", "http://127.0.0.1/", _IPV4),
    ("http://192.0x00A80001", "about:blank", "http://192.168.0.1/", _IPV4),
    ("http://0Xc0.0250.01", "about:blank", "http://192.168.0.1/", _IPV4),
    ("http://%30%78%63%30%2e%30%32%35%30.01", "about:blank", "http://192.168.0.1/", _IPV4),
    ("http://192.168.0.257", "about:blank", None, _IPV4),
    ("http://foo.09", "about:blank", None, _IPV4),
    ("http://1.2.3.4.5", "about:blank", None, _IPV4),
    ("http://0..0x300/", "about:blank", None, ""),
    ("http://%3g%78%63%30%2e%30%32%35%30%2E.06", "about:blank", None, ""),
    ("http://192.168.0.1 hello", "about:blank", None, ""),
    (
        "http://www.google.com/foo?bar=baz# \u00bb",
        "about:blank",
        "http://www.google.com/foo?bar=baz# %C2%BB",
        "",
    ),
    ("http://www.google.com", "about:blank", "http://www.google.com/", ""),
    ("http://Go.com", "about:blank", "http://go.com/", ""),
    ("http://\uff27\uff2f.com", "about:blank", "http://go.com/", ""),
    (
        "http://\uff05\uff14\uff11.com",
        "about:blank",
        "http://a.com/",
        "not implemented: a full-width '%' is not decoded after NFKC folding (UTS 46); refused",
    ),
    ("http://\u4f60\u597d\u4f60\u597d", "about:blank", "http://xn--6qqa088eba/", ""),
    ("https://fa\u00df.ExAmPlE/", "about:blank", "https://xn--fa-hia.example/", ""),
    ("http://a.b.c.xn--pokxncvks", "about:blank", None, ""),
    ("http://10.0.0.xn--pokxncvks", "about:blank", None, ""),
    ("http://a\u00adb/", "about:blank", "http://ab/", ""),
    ("http://\u00ad/", "about:blank", None, ""),
    ("http://ex%2Fample.com/", "about:blank", None, ""),
    ("//x/", B, "http://x/", ""),
    (
        "///x/",
        B,
        "http://x/",
        "not implemented: three slashes before a host in a relative link are refused "
        "(WHATWG skips any number of slashes for http)",
    ),
    ("http:/example.com/", B, "http://example.org/example.com/", ""),
    ("https://x/\u0000y", "about:blank", "https://x/%00y", ""),
    ("http://example.com:8080/\u00e9", "about:blank", "http://example.com:8080/%C3%A9", ""),
    ("http://example.com/?q=\u00e9", "about:blank", "http://example.com/?q=%C3%A9", ""),
    ("?x", "http://example.org/foo/bar?a#b", "http://example.org/foo/bar?x", ""),
    ("#x", "http://example.org/foo/bar?a#b", "http://example.org/foo/bar?a#x", ""),
    ("../x", "http://example.org/foo/bar", "http://example.org/x", ""),
    ("../../../x", "http://example.org/foo/bar", "http://example.org/x", ""),
    ("./", "http://example.org/foo/bar", "http://example.org/foo/", ""),
    (
        "https:foo",
        B,
        "https://foo/",
        "not implemented: 'https:foo' on an http page (another special scheme, no slashes) "
        "is refused, not read as https://foo/",
    ),
]


def _marks(reason: str) -> list[pytest.MarkDecorator]:
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


@pytest.mark.parametrize(
    ("href", "base", "expected"),
    [pytest.param(h, b, e, id=f"{h!r} on {b}", marks=_marks(r)) for h, b, e, r in ROWS],
)
def test_a_link_resolves_as_browsers_resolve_it(href: str, base: str, expected: str | None) -> None:
    # The engine resolves against the page's normal URL (no fragment).
    page = normalize(base, policy=KEEP) if base.startswith("http") else None
    got = resolve(href, page, policy=KEEP) if page else normalize(href, policy=KEEP)
    want = normalize(expected, policy=KEEP) if expected is not None else None
    assert got == want
