"""Other projects' URL normalisation cases, in our words: w3lib's and Apache Nutch's.

w3lib ``tests/test_url.py`` (``safe_url_string``, ``canonicalize_url``: Scrapy's
fingerprints) and Nutch's ``TestBasicURLNormalizer.java``.  Each row is (input, what our
crawler makes of it).  ``normalize`` is asked with the site's query order kept (what the
engine fetches and lists); the sorted form is ``dedup_key``'s job and has its own rows.

Where we deliberately differ, the row says so:

* a space in a query stays ``%20`` (w3lib writes ``+``): ``+`` and ``%20`` are the same
  only to a form decoder, and a sitemap must list the URL the site serves;
* a bare query word stays bare (w3lib: ``?1750,4`` -> ``?1750%2C4=``), for the same reason;
* ``//`` in a path is kept (Nutch folds it): RFC 3986 makes ``/a//b`` another path than
  ``/a/b``, and servers answer them differently;
* a host with an empty label (``http://.example.com/``) or a label over 63 characters
  (``www.exampleexample...example.com``, 77) is no web address: refused (w3lib keeps both;
  no DNS name holds them, and the loc rule and the writer refuse them too: one host rule,
  ``sitemapkit.urls.valid_host``);
* ``|``, ``[``, ``]``, ``^`` are escaped in paths and queries, as RFC 3986 (which sitemaps
  require) wants; w3lib keeps ``|``, ``[`` and ``]`` as browsers send them;
* a ``\\`` before the query is a ``/`` (WHATWG, as browsers read it); w3lib escapes it;
* ``normalize`` knows no page, so a raw non-ASCII query character is UTF-8 here; a link
  on a page in another encoding has its query escaped in that encoding first, as browsers
  and w3lib do (``query_in_encoding``, tests/crawl/test_page_encoding.py); already escaped
  bytes such as ``%E9`` are kept as they are.
"""

from __future__ import annotations

import pytest

from sitemapkit.crawl.urlnorm import QueryPolicy, dedup_key, normalize

KEEP = QueryPolicy(order="keep")
X = "http://www.example.com"

W3LIB = [
    ("http://www.example.org/", "http://www.example.org/"),
    (
        f"{X}/test?p(29)url(http://www.another.net/page)",
        f"{X}/test?p(29)url(http://www.another.net/page)",
    ),
    (f"{X}/Brochures_&_Paint_Cards&PageSize=200", f"{X}/Brochures_&_Paint_Cards&PageSize=200"),
    (f"{X}/£", f"{X}/%C2%A3"),
    ("http://example.com/test\n.html", "http://example.com/test.html"),
    ("http://example.com/test\t.html", "http://example.com/test.html"),
    ("http://example.com/test\r.html", "http://example.com/test.html"),
    ("http://example.com/test\r\n.html\t", "http://example.com/test.html"),
    ("http://example.com/test\a\n.html", "http://example.com/test%07.html"),
    (
        r"http://localhost:8001/unwise{,},|,\,^,[,],`?|=[]&[]=|",
        "http://localhost:8001/unwise%7B,%7D,%7C,/,%5E,%5B,%5D,%60?%7C=%5B%5D&%5B%5D=%7C",
    ),
    ('http://google.com/"hello"', "http://google.com/%22hello%22"),
    (f"{X}/£?unit=µ", f"{X}/%C2%A3?unit=%C2%B5"),
    (f"{X}/£?unit=%C2%B5", f"{X}/%C2%A3?unit=%C2%B5"),
    (f"{X}/%C2%A3?unit=µ", f"{X}/%C2%A3?unit=%C2%B5"),
    ("http://www.färgbolaget.nu/färgbolaget", "http://www.xn--frgbolaget-q5a.nu/f%C3%A4rgbolaget"),
    (
        "http://www.räksmörgås.se/?räksmörgås=yes",
        "http://www.xn--rksmrgs-5wao1o.se/?r%C3%A4ksm%C3%B6rg%C3%A5s=yes",
    ),
    (
        "http://www.brændendekærlighed.com/brændende/kærlighed",
        "http://www.xn--brndendekrlighed-vobh.com/br%C3%A6ndende/k%C3%A6rlighed",
    ),
    ("http://www.예비교사.com", "http://www.xn--9d0bm53a3xbzui.com/"),
    ("http://理容ナカムラ.com", "http://xn--lck1c3crb1723bpq4a.com/"),
    ("http://あーるいん.com", "http://xn--l8je6s7a45b.com/"),
    ("http://www.bücher.de/?q=bücher", "http://www.xn--bcher-kva.de/?q=b%C3%BCcher"),
    (
        "http://はじめよう.みんな/?query=サ&maxResults=5",
        "http://xn--p8j9a0d9c9a.xn--q9jyb4c/?query=%E3%82%B5&maxResults=5",
    ),
    ("http://кто.рф/", "http://xn--j1ail.xn--p1ai/"),
    (
        "http://кто.рф/index.php?domain=Что",
        "http://xn--j1ail.xn--p1ai/index.php?domain=%D0%A7%D1%82%D0%BE",
    ),
    ("http://내도메인.한국/", "http://xn--220b31d95hq8o.xn--3e0b707e/"),
    ("http://맨체스터시티축구단.한국/", "http://xn--2e0b17htvgtvj9haj53ccob62ni8d.xn--3e0b707e/"),
    ("http://nic.شبكة", "http://nic.xn--ngbc5azd/"),
    ("https://www.贷款.在线", "https://www.xn--0kwr83e.xn--3ds443g/"),
    ("https://www2.xn--0kwr83e.在线", "https://www2.xn--0kwr83e.xn--3ds443g/"),
    ("https://www3.贷款.xn--3ds443g", "https://www3.xn--0kwr83e.xn--3ds443g/"),
    ("http://.example.com/résumé?q=résumé", None),
    (f"http://www.{'example' * 11}.com/résumé?q=résumé", None),  # a 77-character label
    (f"{X}:80/résumé?q=résumé", f"{X}/r%C3%A9sum%C3%A9?q=r%C3%A9sum%C3%A9"),
    (f"{X}:/résumé?q=résumé", f"{X}/r%C3%A9sum%C3%A9?q=r%C3%A9sum%C3%A9"),
    (f"{X}/path/to/%23/foo/bar", f"{X}/path/to/%23/foo/bar"),
    (f"{X}/path/to/%23/foo/bar#frag", f"{X}/path/to/%23/foo/bar"),
    (
        f"{X}/path/to/%23/foo/bar?url=http%3A%2F%2Fwww.example.com%2Fpath%2Fto%2F%23%2Fbar%2Ffoo",
        f"{X}/path/to/%23/foo/bar?url=http%3A%2F%2Fwww.example.com%2Fpath%2Fto%2F%23%2Fbar%2Ffoo",
    ),
    ("http://新华网.中国:80", "http://xn--xkrr14bows.xn--fiqs8s/"),
    # Symbols and emoji are not IDNA 2008, but browsers (UTS 46) and w3lib reach them.
    ("http://Åsa:abc123@➡.ws:81/admin", "http://%C3%85sa:abc123@xn--hgi.ws:81/admin"),
    ("http://japão:não@️i❤️.ws:8000/", "http://jap%C3%A3o:n%C3%A3o@xn--i-7iq.ws:8000/"),
    ("http://www.example.org", "http://www.example.org/"),
    ("http://www.example.org/../", "http://www.example.org/"),
    ("http://www.example.org/../../images/../image", "http://www.example.org/image"),
    ("http://www.example.org/dir/", "http://www.example.org/dir/"),
    (f"{X}/do?a=1&b=2&c=3", f"{X}/do?a=1&b=2&c=3"),
    (f"{X}/do?&a=1", f"{X}/do?a=1"),
    (f"{X}:8888/do?a=1&b=2&c=3", f"{X}:8888/do?a=1&b=2&c=3"),
    (f"{X}/do?b=&a=2", f"{X}/do?b=&a=2"),
    (f"{X}/do?b=&c&a=2", f"{X}/do?b=&c&a=2"),
    (f"{X}/do?1750,4", f"{X}/do?1750,4"),
    (f"{X}/do?q=a space&a=1", f"{X}/do?q=a%20space&a=1"),
    (f"{X}/do?q=a+space&a=1", f"{X}/do?q=a+space&a=1"),
    (f"{X}/résumé", f"{X}/r%C3%A9sum%C3%A9"),
    (f"{X}/r%c3%a9sum%c3%a9", f"{X}/r%C3%A9sum%C3%A9"),
    (f"{X}/a%a3do", f"{X}/a%A3do"),
    (f"{X}/a%a3do?q=r%c3%a9sum%c3%a9", f"{X}/a%A3do?q=r%C3%A9sum%C3%A9"),
    (f"{X}/a%a3do?q=r%e9sum%e9", f"{X}/a%A3do?q=r%E9sum%E9"),
    (f"{X}/do?k=b%a3", f"{X}/do?k=b%A3"),
    (f"{X}/a do?a=1", f"{X}/a%20do?a=1"),
    (f"{X}/a %20do?a=1", f"{X}/a%20%20do?a=1"),
    (f"{X}/a do£.html?a=1", f"{X}/a%20do%C2%A3.html?a=1"),
    (f"{X}/do?price=£500&a=5&z=3", f"{X}/do?price=%C2%A3500&a=5&z=3"),
    (f"{X}/do?price(£)=500&a=1", f"{X}/do?price(%C2%A3)=500&a=1"),
    (
        "http://user:pass@www.example.com:81/do?now=1",
        "http://user:pass@www.example.com:81/do?now=1",
    ),
    ("http://user:pass@www.example.com/do?a=1#frag", "http://user:pass@www.example.com/do?a=1"),
    (
        "http://www.simplybedrooms.com/White-Bedroom-Furniture/Bedroom-Mirror:-Josephine-Cheval-Mirror.html",
        "http://www.simplybedrooms.com/White-Bedroom-Furniture/Bedroom-Mirror:-Josephine-Cheval-Mirror.html",
    ),
    (f"{X}/caf%E9-con-leche.htm", f"{X}/caf%E9-con-leche.htm"),
    (f"{X}/caf%e9-con-leche.htm", f"{X}/caf%E9-con-leche.htm"),
    ("http://www.EXAMPLE.com/", "http://www.example.com/"),
    ("http://www.bücher.de?q=bücher", "http://www.xn--bcher-kva.de/?q=b%C3%BCcher"),
    ("http://foo.com/AC%2FDC+rocks%3f/?yeah=1", "http://foo.com/AC%2FDC+rocks%3F/?yeah=1"),
    ("http://foo.com/AC%2FDC/", "http://foo.com/AC%2FDC/"),
]

NUTCH = [
    ("http://foo.com/%66oo.html", "http://foo.com/foo.html"),
    ("http://foo.com/%66oo.htm%6c", "http://foo.com/foo.html"),
    ("http://foo.com/%66oo.ht%6dl", "http://foo.com/foo.html"),
    ("http://foo.com/%66oo.ht%6d%6c", "http://foo.com/foo.html"),
    ("http://foo.com/%66oo.htm%C0", "http://foo.com/foo.htm%C0"),
    ("http://foo.com/%66oo.htm%1A", "http://foo.com/foo.htm%1A"),
    ("http://foo.com/%66oo.htm%c0", "http://foo.com/foo.htm%C0"),
    ("http://foo.com/you%20too.html", "http://foo.com/you%20too.html"),
    ("http://foo.com/you too.html", "http://foo.com/you%20too.html"),
    ("http://foo.com/file.html%23cz", "http://foo.com/file.html%23cz"),
    ("http://foo.com/fast/dir%2fcz", "http://foo.com/fast/dir%2Fcz"),
    ("http://foo.com/\u001a!", "http://foo.com/%1A!"),
    ("http://foo.com/\u0001!", "http://foo.com/%01!"),
    ("http://mydomain.com/en Espa\u00f1ol.aspx", "http://mydomain.com/en%20Espa%C3%B1ol.aspx"),
    ("http://x.com/s?q=a%26b&m=10", "http://x.com/s?q=a%26b&m=10"),
    ("http://x.com/show?http%3A%2F%2Fx.com%2Fb", "http://x.com/show?http%3A%2F%2Fx.com%2Fb"),
    ("http://google.com/search?q=c%2B%2B", "http://google.com/search?q=c%2B%2B"),
    ("http://x.com/s?q=a+b", "http://x.com/s?q=a+b"),
    # Nutch keeps a Unicode host as is; a sitemap needs the ASCII (punycode) form.
    ("http://b\u00fccher.de/", "http://xn--bcher-kva.de/"),
    ("http://x.com/./a/../%66.html", "http://x.com/f.html"),
    ("http://x.com/?x[y]=1", "http://x.com/?x%5By%5D=1"),
    ("http://x.com/foo\u0080", "http://x.com/foo%C2%80"),
    ("http://x.com/foo%c2%80", "http://x.com/foo%C2%80"),
    (" http://foo.com/ ", "http://foo.com/"),
    ("HTTP://foo.com/", "http://foo.com/"),
    ("http://Foo.Com/index.html", "http://foo.com/index.html"),
    ("http://foo.com:80/index.html", "http://foo.com/index.html"),
    ("http://foo.com:81/", "http://foo.com:81/"),
    ("http://example.com:/", "http://example.com/"),
    ("https://example.com:/foobar.html", "https://example.com/foobar.html"),
    ("http://foo.com", "http://foo.com/"),
    ("http://foo.com/foo.html#ref", "http://foo.com/foo.html"),
    ("http://foo.com/aa/./foo.html", "http://foo.com/aa/foo.html"),
    ("http://foo.com/aa/../", "http://foo.com/"),
    ("http://foo.com/aa/bb/../", "http://foo.com/aa/"),
    ("http://foo.com/aa/..", "http://foo.com/"),
    ("http://foo.com/aa/bb/cc/../../foo.html", "http://foo.com/aa/foo.html"),
    ("http://foo.com/aa/bb/../cc/dd/../ee/foo.html", "http://foo.com/aa/cc/ee/foo.html"),
    ("http://foo.com/../foo.html", "http://foo.com/foo.html"),
    ("http://foo.com/../../foo.html", "http://foo.com/foo.html"),
    ("http://foo.com/../aa/../foo.html", "http://foo.com/foo.html"),
    ("http://foo.com/aa/../../foo.html", "http://foo.com/foo.html"),
    ("http://foo.com/aa/../bb/../foo.html/../../", "http://foo.com/"),
    ("http://foo.com/../aa/foo.html", "http://foo.com/aa/foo.html"),
    ("http://foo.com/a..a/foo.html", "http://foo.com/a..a/foo.html"),
    ("http://foo.com/a..a/../foo.html", "http://foo.com/foo.html"),
    ("http://foo.com/foo.foo/../foo.html", "http://foo.com/foo.html"),
    # Nutch folds "//"; we keep it (see the module docstring).
    ("http://foo.com//aa/bb/foo.html", "http://foo.com//aa/bb/foo.html"),
    ("http://foo.com/aa//bb/foo.html", "http://foo.com/aa//bb/foo.html"),
    ("http://foo.com/aa?referer=http://bar.com", "http://foo.com/aa?referer=http://bar.com"),
    # Not web page addresses: no URL at all (Nutch returns them half-normalised).
    ("file:///foo/bar.txt", None),
    ("ftp:/", None),
    ("http:", None),
    ("http:////", None),
]

SORTED = [
    (f"{X}/do?c=1&b=2&a=3", f"{X}/do?a=3&b=2&c=1"),
    (f"{X}/do?c=3&b=5&b=2&a=50", f"{X}/do?a=50&b=2&b=5&c=3"),
    (f"{X}/do?b=&a=2", f"{X}/do?a=2&b="),
    (f"{X}/do?price=£500&a=5&z=3", f"{X}/do?a=5&price=%C2%A3500&z=3"),
    (
        "http://はじめよう.みんな/?query=サ&maxResults=5",
        "http://xn--p8j9a0d9c9a.xn--q9jyb4c/?maxResults=5&query=%E3%82%B5",
    ),
]


@pytest.mark.parametrize(("url", "expected"), W3LIB)
def test_w3lib_cases(url: str, expected: str | None) -> None:
    assert normalize(url, policy=KEEP) == expected


@pytest.mark.parametrize(("url", "expected"), NUTCH)
def test_nutch_cases(url: str, expected: str | None) -> None:
    assert normalize(url, policy=KEEP) == expected


@pytest.mark.parametrize(("url", "expected"), SORTED)
def test_w3lib_sorted_query_is_the_dedup_key(url: str, expected: str) -> None:
    assert dedup_key(url, policy=KEEP) == expected


@pytest.mark.parametrize(("url", "expected"), W3LIB + NUTCH)
def test_normal_form_is_a_fixed_point(url: str, expected: str | None) -> None:
    """w3lib's idempotence test: normalising our output again changes nothing."""
    if expected is not None:
        assert normalize(expected, policy=KEEP) == expected
