"""One definition of a valid host: the loc rule, the reader's strict lane, the crawler's
normaliser and the writer all call :func:`sitemapkit.urls.valid_host`.

Before, each had its own: the loc rule (and the lane, a subset of it) took an empty label
(``http://.example.com``), ``a..b``, a 64-character label, ``%`` or ``!`` in a name, any
bracketed hex (``[1:2]``) and any port (``:99999``); the crawler refused most of them; the
writer refused some (``%``) and published ``a..b`` as it was.  Decisions, each a row below:

* ``_`` in a name is a host (DNS records and browsers take ``my_shop.example.com``);
* a final dot is a fully qualified name (``example.com.``): a host; the writer and the
  crawler drop it, so both spellings are one URL;
* an empty label, a label over 63 or a name over 253 characters (RFC 1035), a character
  other than letters, digits, ``-`` and ``_`` (``%``, ``!``, a space), a broken A-label
  (``xn--zzzz``), an IPv6 literal that is no IPv6 address or carries a zone id, a port
  over 65535: no host.  No resolver reaches them, and a sitemap must not list them;
* an empty port (``example.com:/``) and userinfo are RFC 3986 URLs and stay URLs (the lane
  leaves userinfo and IPv6 to the slow path, which decides the same).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sitemapkit.crawl.urlnorm import normalize
from sitemapkit.errors import InputError
from sitemapkit.rulebook.loc import loc_problems
from sitemapkit.urls import iri_to_uri, valid_host
from sitemapkit.validate.validator import validate

LABEL_63 = "a" * 63
NAME_253 = ".".join([LABEL_63] * 3 + ["b" * 61])
HOSTS = [
    "example.com",
    "EXAMPLE.com",
    "example.com.",
    "my_shop.example.com",
    "localhost",
    "127.0.0.1",
    f"{LABEL_63}.com",
    NAME_253,
    "[::1]",
    "[2001:db8::1]",
    "xn--iaur-yva35b.lt",
    "xn--hgi.ws",  # an IDNA 2003 name (a symbol) that browsers reach
]
NOT_HOSTS = [
    ".example.com",
    ".xn--iaur-yva35b.lt",
    "a..example.com",
    "example.com..",
    ".",
    f"{LABEL_63}a.com",
    NAME_253 + "b",
    "ex%41mple.com",
    "a!b.com",
    "a$b.com",
    "xn--zzzz.lt",
    "[1:2]",
    "[zz::1]",
    "[fe80::1%25eth0]",
]
GOOD_URLS = [f"http://{h}/p" for h in HOSTS] + [
    "http://example.com:/p",
    "http://example.com:65535/p",
    "https://user:pw@example.com/p",
]
BAD_URLS = [f"http://{h}/p" for h in NOT_HOSTS] + [
    "http://example.com:65536/p",
    "http://example.com:99999/p",
    "http://example.com:080080/p",
]


def test_the_host_rule() -> None:
    assert [h for h in HOSTS if not valid_host(h.rstrip(".") if h != "." else h)] == []
    assert [h for h in NOT_HOSTS if valid_host(h)] == []


@pytest.mark.parametrize("url", GOOD_URLS)
def test_a_good_host_is_one_everywhere(url: str) -> None:
    assert loc_problems(url) == []
    assert normalize(url) is not None
    assert iri_to_uri(url)


@pytest.mark.parametrize("url", BAD_URLS)
def test_a_bad_host_is_refused_everywhere(url: str) -> None:
    assert [code for code, _ in loc_problems(url)] == ["loc-not-absolute"]
    assert normalize(url) is None
    with pytest.raises(InputError) as caught:
        iri_to_uri(url)
    assert caught.value.rule == "loc-not-absolute"


def test_a_unicode_host_is_judged_by_its_idna_form() -> None:
    """An IRI's host is a host when its IDNA form is one: the writer converts it, the
    validator calls the raw loc unescaped (not relative)."""
    assert [c for c, _ in loc_problems("http://šiaurė.lt/")] == ["loc-not-escaped"]
    assert iri_to_uri("http://šiaurė.lt/") == "http://xn--iaur-yva35b.lt/"
    long_idn = "ü" * 70 + ".com"  # over 63 once in punycode
    assert [c for c, _ in loc_problems(f"http://{long_idn}/")] == ["loc-not-absolute"]
    assert normalize(f"http://{long_idn}/") is None


@pytest.mark.parametrize("strict_lane", [True, False])
def test_the_validator_and_its_lane_agree(tmp_path: Path, strict_lane: bool) -> None:
    """The strict lane is a subset of the rule: a bad host never slips through it."""
    urls = "".join(f"<url><loc>{u}</loc></url>" for u in GOOD_URLS + BAD_URLS)
    path = tmp_path / "sitemap.xml"
    path.write_text(
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>',
        encoding="utf-8",
    )
    report = validate([str(path)], strict_lane=strict_lane)
    flagged = [f.message for f in report.findings if f.code == "loc-not-absolute"]
    assert len(flagged) == len(BAD_URLS)
    assert {f.code for f in report.findings} == {"loc-not-absolute"}


def test_a_text_sitemap_line_with_a_bad_host_is_no_entry(tmp_path: Path) -> None:
    path = tmp_path / "sitemap.txt"
    path.write_text("\n".join(GOOD_URLS + BAD_URLS) + "\n", encoding="utf-8")
    report = validate([str(path)])
    assert [f.code for f in report.findings] == ["text-line-invalid"] * len(BAD_URLS)
