"""w3lib's encoding tests, in our words, asked of :func:`sitemapkit.crawl.extract.decode_body`.

From scrapy/w3lib ``tests/test_encoding.py`` (``html_to_unicode``,
``http_content_type_encoding``, ``html_body_declared_encoding``, ``resolve_encoding``).
Each row is the ``Content-Type`` header (or none), the body, the codec the page must be
read with and, where the peer checks it, the text.  Where the peer's answer is not a
browser's (the HTML standard's sniffing, the WHATWG Encoding Standard's labels, MIME
Sniffing's parameters), the row is a strict xfail naming the rule we follow.  The
declared-encoding fragments use windows-1251 where w3lib uses UTF-8: a page that
declares nothing is read as UTF-8 too, so only another encoding shows the declaration
was read.
"""

from __future__ import annotations

import codecs

import pytest

from sitemapkit.crawl.encoding import LABELS, content_type_charset, label_codec, prescan_meta
from sitemapkit.crawl.extract import decode_body

_UTF32 = (
    "the HTML standard knows no UTF-32 (WHATWG Encoding Standard): a body starting FF FE is "
    "UTF-16LE, and a 'utf-32' label declares nothing"
)
_UTF16_DEFAULT = (
    "WHATWG Encoding Standard: the label 'utf-16' means UTF-16LE (w3lib: RFC 2781's BE)"
)


def _norm(codec: str) -> str:
    return codecs.lookup(codec).name


def _ct(charset: str | None) -> str | None:
    return f"text/html; charset={charset}" if charset is not None else None


# (id, charset in Content-Type or None, body, codec, text or None, xfail reason)
DECODE: list[tuple[str, str | None, bytes, str, str | None, str]] = [
    ("utf8", "utf-8", b"\xc2\xa3", "utf-8", "\xa3", ""),
    ("latin1 is windows-1252", "iso-8859-1", b"\xa3\x80", "cp1252", "\xa3\u20ac", ""),
    ("empty label", "", b"\xc2\xa3", "utf-8", "\xa3", ""),
    ("unknown label", "none", b"\xc2\xa3", "utf-8", "\xa3", ""),
    ("gb2312 is gb18030", "gb2312", b"\xa8D", "gb18030", "\u2015", ""),
    ("gbk is gb18030", "gbk", b"\xa8D", "gb18030", "\u2015", ""),
    ("big5 is big5-hkscs", "big5", b"\xf9\xda", "big5hkscs", "\u6052", ""),
    (
        "cp1251",
        "cp1251",
        "кириллический текст".encode("cp1251"),
        "cp1251",
        "кириллический текст",
        "",
    ),
    (
        "utf8 bom, bad byte",
        "utf-8",
        b"\xef\xbb\xbfWORD\xe3\xabWORD2",
        "utf-8",
        "WORD\ufffdWORD2",
        "",
    ),
    (
        "utf8 bom, bad byte, no header",
        None,
        b"\xef\xbb\xbfWORD\xe3\xabWORD2",
        "utf-8",
        "WORD\ufffdWORD2",
        "",
    ),
    ("utf8 bom, cut sequence", "utf-8", b"\xef\xbb\xbfWORD\xe3\xab", "utf-8", "WORD\ufffd", ""),
    ("bad bytes keep the tags", "utf-8", b"\xf0<span>value</span>", "utf-8", None, ""),
    (
        "bom beats header",
        "utf-8",
        codecs.BOM_UTF16_BE + "hi".encode("utf-16-be"),
        "utf-16-be",
        "hi",
        "",
    ),
    ("utf8 bom stripped", "utf-8", codecs.BOM_UTF8 + b"hi", "utf-8", "hi", ""),
    ("utf8 bom alone", None, codecs.BOM_UTF8 + b"hi", "utf-8", "hi", ""),
    (
        "utf16 le bom",
        "utf-16",
        codecs.BOM_UTF16_LE + "hi".encode("utf-16-le"),
        "utf-16-le",
        "hi",
        "",
    ),
    ("utf16 be bom", None, codecs.BOM_UTF16_BE + "hi".encode("utf-16-be"), "utf-16-be", "hi", ""),
    (
        "utf32 le bom",
        None,
        codecs.BOM_UTF32_LE + "hi".encode("utf-32-le"),
        "utf-32-le",
        "hi",
        _UTF32,
    ),
    (
        "utf32 be bom",
        "utf-32",
        codecs.BOM_UTF32_BE + "hi".encode("utf-32-be"),
        "utf-32-be",
        "hi",
        _UTF32,
    ),
    ("utf16 label, no bom", "utf-16", "hi".encode("utf-16-be"), "utf-16-be", "hi", _UTF16_DEFAULT),
    ("utf32 label, no bom", "utf-32", "hi".encode("utf-32-be"), "utf-32-be", "hi", _UTF32),
    (
        "meta after '< meta'",
        None,
        b'blah blah < meta   http-equiv="Content-Type"\n content="text/html; charset=iso-8859-1">',
        "cp1252",
        None,
        "HTML standard prescan: '< meta' (a space after '<') is text, not a tag",
    ),
    (
        "header beats meta",
        "utf-8",
        b'<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">',
        "utf-8",
        None,
        "",
    ),
    (
        "bom beats meta",
        None,
        codecs.BOM_UTF8 + b'<meta http-equiv="Content-Type" content="text/html; charset=latin1">',
        "utf-8",
        None,
        "",
    ),
    ("meta beats default", None, b'<meta charset="utf-8">', "utf-8", None, ""),
    ("no information", None, b"no encoding info", "utf-8", "no encoding info", ""),
    ("empty body", None, b"", "utf-8", "", ""),
]


def _decode_marks(reason: str) -> list[pytest.MarkDecorator]:
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


@pytest.mark.parametrize(
    ("charset", "body", "codec", "text"),
    [pytest.param(c, b, e, t, id=i, marks=_decode_marks(r)) for i, c, b, e, t, r in DECODE],
)
def test_html_to_unicode(charset: str | None, body: bytes, codec: str, text: str | None) -> None:
    got_text, got_codec = decode_body(body, _ct(charset))
    assert _norm(got_codec) == _norm(codec)
    if text is not None:
        assert got_text == text
    assert "\ufeff" not in got_text


def test_random_bytes_in_utf16_and_utf32_never_raise() -> None:
    """w3lib's "python crash" case: 150,000 arbitrary bytes under every UTF label."""
    body = bytes((i * 7919 + 13) % 256 for i in range(150_000))
    for label in ("utf-16", "utf-16be", "utf-16le", "utf-32", "utf-8"):
        text, _codec = decode_body(body, _ct(label))
        assert text


# w3lib's declared-encoding fragments (UTF-8 there, windows-1251 here: see the module doc).
DECLARED: list[tuple[bytes, str]] = [
    (b'<meta http-equiv="content-type" content="text/html;charset=windows-1251" />', ""),
    (b'\n<meta http-equiv="Content-Type"\ncontent="text/html; charset=windows-1251">', ""),
    (b'<meta http-equiv="Content-Type" content="text/html" charset="windows-1251">', ""),
    (b"<meta http-equiv=Content-Type content=\"text/html\" charset='windows-1251'>", ""),
    (
        b'<meta http-equiv="Content-Type" content\t=\n"text/html" charset\t="windows-1251">',
        "",
    ),
    (b"<meta content=\"text/html; charset=windows-1251\"\n http-equiv='Content-Type'>", ""),
    (
        b" bad html still supported < meta http-equiv='Content-Type'\n"
        b' content="text/html; charset=windows-1251">',
        "HTML standard prescan: '< meta' is text, not a tag",
    ),
    (b'<meta charset="windows-1251">', ""),
    (b'<meta charset =\n"windows-1251">', ""),
    (
        b'<?xml version="1.0" encoding="windows-1251"?>',
        "text/html: the HTML standard's prescan steps over '<?...>'; an XML declaration "
        "counts only for a page served as XML (application/xhtml+xml), see the test below",
    ),
    (b'<!-- <body> --><meta charset="windows-1251">', ""),
]


@pytest.mark.parametrize(
    "fragment",
    [pytest.param(f, id=f.decode()[:40], marks=_decode_marks(r)) for f, r in DECLARED],
)
def test_html_body_declared_encoding(fragment: bytes) -> None:
    assert prescan_meta(fragment) == "cp1251"
    assert prescan_meta(fragment.decode("ascii").encode("ascii")) == "cp1251"
    assert decode_body(fragment)[1] == "cp1251"


@pytest.mark.parametrize(
    "fragment",
    [
        pytest.param(b"something else", id="no tag"),
        pytest.param(b'<!-- <meta charset="windows-1251"> -->', id="in a comment"),
        pytest.param(b'<!-- <meta charset="utf-7"> -->', id="utf-7 in a comment"),
        pytest.param(b'<meta charset="utf-7">', id="utf-7 is no WHATWG label"),
        pytest.param(
            b'<meta http-equiv="Fake-Content-Type-Header" content="text/html; charset=koi8-r">',
            id="content without the content-type pragma",
        ),
        pytest.param(
            b'<meta name="description" content="Since 1999; charset=koi8-r pages">',
            id="charset= in a description",
        ),
        pytest.param(b'<div title="<meta charset=koi8-r>">', id="inside another tag's attribute"),
        pytest.param(b'<meta charset="koi8-r', id="cut inside the attribute"),
    ],
)
def test_what_declares_nothing(fragment: bytes) -> None:
    assert prescan_meta(fragment) is None
    assert decode_body(fragment)[1] == "utf-8"


def test_the_prescan_reads_the_first_1024_bytes_only() -> None:
    late = b"<html><head>" + b" " * 1024 + b'<meta charset="windows-1251">'
    assert prescan_meta(late) is None
    # w3lib stops at <body>; the HTML standard reads on to 1,024 bytes.
    assert prescan_meta(b'<head></head><body>text <meta charset="windows-1251">') == "cp1251"


@pytest.mark.xfail(
    strict=True,
    reason="HTML standard prescan: a <meta> counts through charset= or http-equiv=content-type; "
    "w3lib also reads 'httpequiv=\"ContentType\"' (a misspelling)",
)
def test_misspelt_pragma_declares_nothing_in_a_browser() -> None:
    fragment = b'<meta httpequiv="ContentType" content="text/html; charset=gbk" />'
    assert prescan_meta(fragment) == "gb18030"


def test_utf16_named_in_a_meta_means_utf8() -> None:
    assert prescan_meta(b'<meta charset="utf-16le">') == "utf-8"
    assert decode_body('<meta charset="utf-16">é'.encode())[0].endswith("é")


def test_an_xhtml_page_served_as_xml_is_read_by_its_xml_declaration() -> None:
    body = b'<?xml version="1.0" encoding="ISO-8859-1"?><html><p>caf\xe9</p></html>'
    text, codec = decode_body(body, "application/xhtml+xml")
    assert (codec, text.endswith("caf\xe9</p></html>")) == ("cp1252", True)
    assert decode_body(body, "text/html")[1] == "utf-8"


# http_content_type_encoding: (header value, codec or None, xfail reason)
_MIME_QUOTED = (
    "MIME Sniffing: a quoted value ends at its closing quote, what follows is dropped, and an "
    "unclosed quote runs to the end (browsers read windows-1251 here; w3lib nothing)"
)
HEADERS: list[tuple[str, str | None, str]] = [
    ("text/html; charset=ISO-8859-4", "iso8859-4", ""),
    ("something else", None, ""),
    ('text/html; charset="windows-1251"', "cp1251", ""),
    ('text/html;charset="WINDOWS-1251"', "cp1251", ""),
    ('text/html; Charset="ISO-8859-4"', "iso8859-4", ""),
    ("text/html;charset=windows-1251", "cp1251", ""),
    ("text/html; charset = windows-1251", None, ""),
    ('text/html; charset= "windows-1251"', None, ""),
    ("text/html; charset='windows-1251'", None, ""),
    ('text/html; charset="windows-1251', None, _MIME_QUOTED),
    ('text/html; charset=windows-1251"', None, ""),
    ('text/html; charset="windows-1251"; foo=bar', "cp1251", ""),
    ('text/html; charset="windows-1251" ; foo=bar', "cp1251", ""),
    ("text/html; charset=windows-1251; foo=bar", "cp1251", ""),
    ('foo=bar; charset="windows-1251"', "cp1251", ""),
    ('text/html; charset="windows-1251"x', None, _MIME_QUOTED),
    ('text/html; xcharset="windows-1251"', None, ""),
    ("text/html; mycharset=windows-1251", None, ""),
    ('text/html; charset=windows-1251x"', None, ""),
    ('text/html; foo="bar; charset=utf-7;"; charset=windows-1251', "cp1251", ""),
    ('text/html; foo="bar; charset=windows-1251"', None, ""),
    ('text/html; foo="bar; charset=windows-1251;"', None, ""),
    ('text/html; foo="bar; charset=utf-7;"; charset="windows-1251"', "cp1251", ""),
    ('text/html; foo="bar; charset=utf-7;"; charset=""; charset=windows-1251', "cp1251", ""),
    ("text/html;charset=windows-1251, text/html", "cp1251", ""),
    ('text/html; charset="windows-1251", text/html', "cp1251", ""),
    ("text/html; charset=windows-1251\r\n", "cp1251", ""),
    ("text/html; charset=windows-1251, text/plain; charset=utf-16", "cp1251", ""),
    ("text/html; charset=utf-7", None, ""),
]


@pytest.mark.parametrize(
    ("value", "codec"),
    [pytest.param(v, c, id=v, marks=_decode_marks(r)) for v, c, r in HEADERS],
)
def test_http_content_type_encoding(value: str, codec: str | None) -> None:
    assert content_type_charset(value) == codec


@pytest.mark.parametrize(
    ("label", "codec"),
    [
        ("latin1", "cp1252"),
        (" Latin-1", "cp1252"),
        ("gb_2312-80", "gb18030"),
        ("unknown encoding", None),
        ("x-sjis", "cp932"),
        ("unicode-1-1-utf-8", "utf-8"),
        ("utf-7", None),
        ("x-user-defined", None),
    ],
)
def test_resolve_encoding(label: str, codec: str | None) -> None:
    assert label_codec(label) == codec


def test_every_label_names_a_python_codec() -> None:
    assert len(LABELS) > 200
    for label, codec in LABELS.items():
        assert label == label.lower().strip()
        assert codecs.lookup(codec).name == codec


@pytest.mark.parametrize(
    ("data", "text"),
    [
        (b"\x80", "\u20ac"),
        (b"100\x80", "100\u20ac"),
        (b"\xff\x80", "\ufffd\u20ac"),
        (b"\x81\x80", "\u4e90"),
        (b"\xa2\xe3", "\u20ac"),
        (b"\xff", "\ufffd"),
    ],
)
@pytest.mark.parametrize("label", ["gb18030", "GB18030", "gbk"])
def test_gb18030(data: bytes, text: str, label: str) -> None:
    assert decode_body(data, _ct(label)) == (text, "gb18030")


def test_shift_jis_reads_as_browsers_read_it() -> None:
    """WHATWG's Shift_JIS is Windows-31J (NEC and IBM rows, the full-width tilde), with the
    single bytes A0 and FD-FF undecodable; Python's shift_jis lacks the rows."""
    body = b"\x87\x40\xed\x40\x81\x60\xa0\xff"
    assert decode_body(body, _ct("shift_jis")) == ("\u2460\u7e8a\uff5e\ufffd\ufffd", "cp932")
    assert decode_body(body, _ct("x-sjis"))[1] == "cp932"
