"""The content fingerprint: significant changes move it, boilerplate never does."""

from __future__ import annotations

import re
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit.crawl import significance
from sitemapkit.crawl.extract import extract_page

BASE = "http://example.test/page"


def doc(
    text: str = "Our opening hours are nine to five.",
    *,
    footer: str = "Generated at 2024-05-01T10:00:00Z",
    csrf: str = "a1b2c3",
    asset: str = "app.3f9a1c.js",
    nonce: str = "n1",
    link: str = "/next",
    jsonld: str = '{"@type": "Article", "headline": "H", "dateModified": "2024-05-01"}',
    title: str = "Page",
    robots: str = "index",
) -> bytes:
    return (
        f"<!doctype html><html><head><title>{title}</title>"
        f'<meta name="csrf-token" content="{csrf}"><meta name="robots" content="{robots}">'
        f'<script src="/static/{asset}" nonce="{nonce}"></script>'
        f'<style nonce="{nonce}">p{{color:red}}</style>'
        f'<script type="application/ld+json">{jsonld}</script></head><body>'
        f'<p>{text}</p><a href="{link}">next</a>'
        f'<form><input type="hidden" name="csrf" value="{csrf}"></form>'
        f'<script nonce="{nonce}">window.state = {{"token": "{csrf}"}}</script>'
        f"<footer>{footer}</footer></body></html>"
    ).encode()


def fingerprint(body: bytes) -> str | None:
    return extract_page(body, url=BASE, headers={"Content-Type": "text/html"}).fingerprint


def test_boilerplate_does_not_move_the_fingerprint() -> None:
    first = fingerprint(doc())
    assert first is not None
    assert fingerprint(doc(footer="Generated at 2024-06-02T11:12:13Z")) == first
    assert fingerprint(doc(footer="Rendered on 2025-01-01 08:00")) == first
    assert fingerprint(doc(footer="served at 12:34:56")) == first
    assert fingerprint(doc(csrf="zz99yy")) == first
    assert fingerprint(doc(asset="app.77e0d2.js", nonce="n2")) == first
    assert fingerprint(doc(link="/next;jsessionid=ABC123")) == first
    assert fingerprint(doc(link="/next?PHPSESSID=42")) == first
    moved = '{"dateModified": "2025-02-02", "headline": "H", "@type": "Article"}'
    assert fingerprint(doc(jsonld=moved)) == first  # key order and the stated date


def test_significant_changes_move_the_fingerprint() -> None:
    first = fingerprint(doc())
    changes = [
        doc(text="Our opening hours are ten to six."),
        doc(title="Another page"),
        doc(link="/elsewhere"),
        doc(link="/next?page=2"),
        doc(robots="noindex"),
        doc(jsonld='{"@type": "Article", "headline": "New", "dateModified": "2024-05-01"}'),
        doc(footer="Event on 2024-06-02"),  # a date that is not a generation stamp
    ]
    prints = [fingerprint(body) for body in changes]
    assert first not in prints
    assert len(set(prints)) == len(prints)


# --- the stamp fast path equals the plain substitution ----------------------------------

_STAMP_PIECES = [
    "generated ",
    "Rendered at ",
    "BUILT: ",
    "cached on ",
    "served in",
    "compiled",
    "2024-05-01",
    "T10:00:00Z",
    "12:30",
    " built-in ",
]
_STAMP_ALPHABET = (
    "GgeEnNrRaAtTdDbBuUiIlLcChHsSvVoOmMpP0123456789-:T Z+.\t\n\u00a0x\u0130\u0131\u017f\u212a"
)


def _plain(text: str) -> str:
    return significance._SPACE.sub(" ", significance._STAMP.sub(" ", text)).strip()


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_STAMP_PIECES) | st.text(_STAMP_ALPHABET, max_size=6), max_size=12))
def test_drop_stamps_equals_the_plain_substitution(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert significance.drop_stamps(text) == significance._STAMP.sub(" ", text)
    assert " ".join(significance.drop_stamps(text).split()) == _plain(text)


def test_drop_stamps_on_written_cases() -> None:
    cases = [
        "Page generated at 2024-05-01T10:00:00Z by Hugo",
        "xgenerated 2024-05-01 stays (no word boundary)",
        "Built: 12:30 and served on 2024-01-02 12:00, cached 3:04:05",
        "built-in functions, rendered in 2024",  # words without a stamp
        "ſerved 2024-05-01 and COMPİLED 2024-05-01",  # odd case folds: the plain path
        "generatedgenerated 2024-05-01",
        "",
    ]
    for text in cases:
        assert significance.drop_stamps(text) == significance._STAMP.sub(" ", text)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_STAMP_PIECES) | st.text(_STAMP_ALPHABET, max_size=6), max_size=12))
def test_a_text_said_to_hold_no_stamp_holds_none(pieces: list[str]) -> None:
    text = "".join(pieces)
    has_stamp = significance._STAMP.search(text) is not None
    for form in (text, " ".join(text.split())):  # as it is, and collapsed
        if not significance.may_hold_stamp(form.encode("utf-8", "surrogatepass")):
            assert not has_stamp


def test_may_hold_stamp_on_written_cases() -> None:
    holds = [
        "generated at 2024-05-01",
        "Generated\u00a0at 2024-05-01",
        "\u00e9generated 2024-05-01",  # a letter before: no \b, but the check is blind to it
        "served\u0662",
        "compiled\x1c1:05",
        "ſerved 10:00",
        "compiled on \u00e9",  # a non-ASCII character might be a digit
        "built in:\t\t9",
    ]
    free = ["All rights reserved 2024", "built-in 2024", "generated columns 2", "served", ""]
    assert all(significance.may_hold_stamp(text.encode()) for text in holds)
    assert not any(significance.may_hold_stamp(text.encode()) for text in free)


_TEXT_SOUP = [
    "<p>",
    "</p>",
    "<span>",
    "</span>",
    "\n  ",
    " ",
    "\u00a0",
    "\u3000",
    "\x1c",
    "generated",
    "gener",
    "ated",
    " at ",
    "2024-05-01",
    "10:00",
    "T10:00:00Z",
    "reserved",
    "word",
    "\u0130",
    "<script>x</script>",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_TEXT_SOUP), max_size=30))
def test_visible_text_equals_the_plain_reading(pieces: list[str]) -> None:
    """Read without the white-space-only text nodes (and stamps checked first), the text
    is what the plain reading gives: the whole text, stamps substituted, split, joined."""
    from selectolax.lexbor import LexborHTMLParser

    html = "<body>" + "".join(pieces)
    plain = LexborHTMLParser(html)
    plain.strip_tags(list(significance.NON_CONTENT_TAGS))
    expected = " ".join(significance._STAMP.sub(" ", plain.body.text(separator=" ")).split())
    assert significance.visible_text(LexborHTMLParser(html)) == expected


def test_the_odd_case_folds_are_all_known() -> None:
    """Every character the case-blind stamp pattern takes for one of its ASCII letters and
    ``str.lower`` does not map to it is in ``_FOLD_ODD`` (else the fast path could miss)."""
    letters = sorted(set(b"".join(significance._STAMP_WORDS).decode() + "atonin"))
    pattern = re.compile("[" + "".join(letters) + "]", re.IGNORECASE)
    odd = {
        chr(c)
        for c in range(sys.maxunicode + 1)
        if pattern.fullmatch(chr(c)) and chr(c).lower() not in letters
    }
    assert odd == set(significance._FOLD_ODD)


# --- code elements found by the extractor's walk = strip_tags's own walks ---------------

_TAG_SOUP = [
    "<p>",
    "</p>",
    "text ",
    " more\n",
    "<script>",
    "</script>",
    '<script type="application/ld+json">{"a": 1}</script>',
    "<style>",
    "</style>",
    "<noscript>",
    "</noscript>",
    "<template>",
    "</template>",
    "<svg>",
    "</svg>",
    "<math>",
    "</math>",
    "<a href='/x'>",
    "</a>",
    "<title>",
    "</title>",
    "<table><tr><td>",
    "</td></tr></table>",
    "<SCRIPT>",
    "<!--",
    "-->",
    "<body>",
    "<head>",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_TAG_SOUP), max_size=25))
def test_stripping_the_found_code_elements_equals_strip_tags(pieces: list[str]) -> None:
    """The extractor hands visible_text the code elements its one selector walk found;
    taking those out leaves the text strip_tags (one walk per tag) leaves."""
    from selectolax.lexbor import LexborHTMLParser

    from sitemapkit.crawl.extract import _collect, _Found

    html = "".join(pieces)
    found = _Found()
    parser = LexborHTMLParser(html)
    _collect(parser, found)
    assert significance.visible_text(parser, found.code) == significance.visible_text(
        LexborHTMLParser(html)
    )


def _fingerprint_part_by_part(
    text: str,
    title: str | None,
    links: list[tuple[str, bool, str]],
    jsonld: list[str],
) -> str:
    """The fingerprint as first written: one digest update per length and per part."""
    import hashlib

    digest = hashlib.blake2b(digest_size=16)

    def part(value: str) -> None:
        data = value.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)

    part(title or "")
    part("")
    part("noindex=0 nofollow=1")
    part(text)
    for url, nofollow, kind in links:
        part(f"{kind} {nofollow:d} {significance.without_session(url)}")
    for block in significance.structured_data(jsonld):
        part(block)
    return digest.hexdigest()


_URL_PIECES = ["http://a.test/p", "?", "&", "sid=1", "x=2", ";jsessionid=9", "#f", "/ü", "\ud800"]


@settings(max_examples=200, deadline=None)
@given(
    st.text(max_size=30),
    st.none() | st.text(max_size=10),
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(_URL_PIECES), max_size=5).map("".join),
            st.booleans(),
            st.sampled_from(["a", "area", "frame", "meta-refresh"]),
        ),
        max_size=8,
    ),
    st.lists(st.sampled_from(['{"b": 1, "a": [2]}', "not json", "[]"]), max_size=3),
)
def test_fingerprint_equals_the_part_by_part_digest(
    text: str, title: str | None, links: list[tuple[str, bool, str]], jsonld: list[str]
) -> None:
    """Stored fingerprints stay valid: the one-string digest is the digest of the parts."""
    got = significance.content_fingerprint(
        text=text,
        title=title,
        canonical=None,
        noindex=False,
        nofollow=True,
        links=links,
        jsonld=jsonld,
    )
    assert got == _fingerprint_part_by_part(text, title, links, jsonld)
