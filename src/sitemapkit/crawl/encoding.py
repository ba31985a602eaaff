"""Which encoding an HTML page is in, decided the way a browser decides it.

Why a module of its own: the crawler reads links (and their queries, which a browser
sends in the page's encoding) from the decoded text, so a wrong guess changes the URLs
it requests.  The order is the HTML standard's encoding sniffing algorithm: a byte order
mark; the ``charset`` parameter of ``Content-Type``; the *prescan* of the first 1,024
bytes for a ``<meta>`` that declares one; else UTF-8 (undecodable bytes become U+FFFD,
never an exception).  Each step follows its standard, not a regex that merely looks
similar, because the look-alikes go wrong on real pages:

- A label is only what the WHATWG Encoding Standard lists (:data:`LABELS`).  Python knows
  ``utf-7``, a label browsers refuse because it smuggles markup past filters, and reads
  ``gb2312``/``gbk`` and ``big5`` with tables smaller than the ones every browser uses
  (a GBK page loses characters as U+FFFD).
- The ``Content-Type`` parameter is parsed as the MIME Sniffing standard parses it: the
  name must be exactly ``charset`` (not ``xcharset``, not ``charset `` with a space), and
  a quoted string is opaque (``foo="a; charset=utf-7"`` declares nothing).
- The prescan skips comments and the attributes of other tags, and a ``<meta>`` counts
  only through its ``charset`` attribute or an ``http-equiv="content-type"`` with a
  ``content``: a ``<meta name="description" content="... charset=koi8-r ...">`` or a
  ``<!-- <meta charset="..."> -->`` declares nothing.
"""

from __future__ import annotations

import codecs
import re
from functools import lru_cache
from typing import Final

__all__ = [
    "LABELS",
    "content_type_charset",
    "decode_body",
    "label_codec",
    "prescan_meta",
    "sniff_codec",
]

#: How many bytes the prescan reads (the HTML standard's figure).
PRESCAN_BYTES: Final = 1024

# WHATWG Encoding Standard, "Encodings": each encoding with its labels, as the Python codec
# that decodes it as browsers do (GBK with the gb18030 tables, Big5 with HKSCS, EUC-KR as
# windows-949, Shift_JIS as windows-31j).  "replacement" and x-user-defined have no Python
# codec and are left out (they then declare nothing).  One extra, "latin-1", is not a
# WHATWG label but is common and was honoured before; it keeps meaning windows-1252.
_ENCODINGS: Final[dict[str, str]] = {
    "utf-8": "unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8",
    "cp866": "866 cp866 csibm866 ibm866",
    "iso8859-2": "csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 "
    "iso_8859-2:1987 l2 latin2",
    "iso8859-3": "csisolatin3 iso-8859-3 iso-ir-109 iso8859-3 iso88593 iso_8859-3 "
    "iso_8859-3:1988 l3 latin3",
    "iso8859-4": "csisolatin4 iso-8859-4 iso-ir-110 iso8859-4 iso88594 iso_8859-4 "
    "iso_8859-4:1988 l4 latin4",
    "iso8859-5": "csisolatincyrillic cyrillic iso-8859-5 iso-ir-144 iso8859-5 iso88595 "
    "iso_8859-5 iso_8859-5:1988",
    "iso8859-6": "arabic asmo-708 csiso88596e csiso88596i csisolatinarabic ecma-114 "
    "iso-8859-6 iso-8859-6-e iso-8859-6-i iso-ir-127 iso8859-6 iso88596 iso_8859-6 "
    "iso_8859-6:1987",
    "iso8859-7": "csisolatingreek ecma-118 elot_928 greek greek8 iso-8859-7 iso-ir-126 "
    "iso8859-7 iso88597 iso_8859-7 iso_8859-7:1987 sun_eu_greek",
    "iso8859-8": "csiso88598e csisolatinhebrew hebrew iso-8859-8 iso-8859-8-e iso-ir-138 "
    "iso8859-8 iso88598 iso_8859-8 iso_8859-8:1988 visual "
    "csiso88598i iso-8859-8-i logical",
    "iso8859-10": "csisolatin6 iso-8859-10 iso-ir-157 iso8859-10 iso885910 l6 latin6",
    "iso8859-13": "iso-8859-13 iso8859-13 iso885913",
    "iso8859-14": "iso-8859-14 iso8859-14 iso885914",
    "iso8859-15": "csisolatin9 iso-8859-15 iso8859-15 iso885915 iso_8859-15 l9",
    "iso8859-16": "iso-8859-16",
    "koi8-r": "cskoi8r koi koi8 koi8-r koi8_r",
    "koi8-u": "koi8-ru koi8-u",
    "mac-roman": "csmacintosh mac macintosh x-mac-roman",
    "cp874": "dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874",
    "cp1250": "cp1250 windows-1250 x-cp1250",
    "cp1251": "cp1251 windows-1251 x-cp1251",
    "cp1252": "ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 "
    "iso8859-1 iso88591 iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 "
    "x-cp1252 latin-1",
    "cp1253": "cp1253 windows-1253 x-cp1253",
    "cp1254": "cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 "
    "iso_8859-9:1989 l5 latin5 windows-1254 x-cp1254",
    "cp1255": "cp1255 windows-1255 x-cp1255",
    "cp1256": "cp1256 windows-1256 x-cp1256",
    "cp1257": "cp1257 windows-1257 x-cp1257",
    "cp1258": "cp1258 windows-1258 x-cp1258",
    "mac-cyrillic": "x-mac-cyrillic x-mac-ukrainian",
    "gb18030": "chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 "
    "x-gbk gb18030",
    "big5hkscs": "big5 big5-hkscs cn-big5 csbig5 x-x-big5",
    "euc_jp": "cseucpkdfmtjapanese euc-jp x-euc-jp",
    "iso2022_jp": "csiso2022jp iso-2022-jp",
    "cp932": "csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis",
    "cp949": "cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 "
    "ksc5601 ksc_5601 windows-949",
    "utf-16-be": "unicodefffe utf-16be",
    "utf-16-le": "csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le",
}
#: WHATWG label (lower case) -> Python codec name.  The names are written as
#: ``codecs.lookup(name).name`` spells them (a test holds every one), not looked up here:
#: that imported some forty codec modules, CJK tables included, into every crawl.
LABELS: Final[dict[str, str]] = {
    label: codec for codec, names in _ENCODINGS.items() for label in names.split()
}
_BOMS: Final = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
)
_ASCII_WS: Final = "\t\n\f\r "


def label_codec(label: str | None) -> str | None:
    """The Python codec of a WHATWG encoding label ("get an encoding"), or None."""
    if not label:
        return None
    return LABELS.get(label.strip(_ASCII_WS).lower())


# --- Content-Type (MIME Sniffing, "parse a MIME type", parameters only) ----------------


@lru_cache(maxsize=64)
def content_type_charset(value: str | None) -> str | None:
    """The codec named by the ``charset`` parameter of a ``Content-Type`` value, or None.

    Parameters are read as MIME Sniffing reads them: names are exact tokens (case
    insensitive), the value is a quoted string (opaque, backslash escapes) or runs to the
    next ``;``; the first usable ``charset`` wins.  A comma outside quotes ends the first
    media type (a comma-joined repeat of the header adds nothing).
    """
    if not value:
        return None
    pos = value.find(";")
    end = len(value)
    if 0 <= value.find(",", 0, pos) < pos:
        return None  # the first media type has no parameters
    while 0 <= pos < end:
        pos += 1
        while pos < end and value[pos] in " \t\r\n":
            pos += 1
        name_end = pos
        while name_end < end and value[name_end] not in ";=,":
            name_end += 1
        name = value[pos:name_end].lower()
        pos = name_end
        if pos >= end or value[pos] == ",":
            return None
        if value[pos] == ";":
            continue
        raw, pos = _param_value(value, pos + 1)
        if name == "charset" and raw:
            codec = label_codec(raw)
            if codec is not None:
                return codec
        if pos < end and value[pos] == ",":
            return None
    return None


def _param_value(value: str, pos: int) -> tuple[str, int]:
    """A parameter's value from ``pos`` and the index of the ``;`` (or ``,``) after it."""
    end = len(value)
    if pos < end and value[pos] == '"':
        out: list[str] = []
        pos += 1
        while pos < end and value[pos] != '"':
            if value[pos] == "\\" and pos + 1 < end:
                pos += 1
            out.append(value[pos])
            pos += 1
        while pos < end and value[pos] not in ";,":
            pos += 1  # MIME Sniffing: what follows the closing quote is dropped
        return "".join(out), pos
    stop = pos
    while stop < end and value[stop] not in ";,":
        stop += 1
    return value[pos:stop].rstrip(" \t\r\n"), stop


# --- the prescan (HTML standard, "prescan a byte stream to determine its encoding") ----

_TAG_START = re.compile(rb"<(?:!--|meta[\t\n\f\r /]|/?[A-Za-z]|[!/?])", re.IGNORECASE)
_TAG_NAME_END = re.compile(rb"[\t\n\f\r >]")
_ATTRIBUTE = re.compile(
    rb"""[\t\n\f\r /]*(?P<name>[^\t\n\f\r />][^\t\n\f\r /=>]*)[\t\n\f\r ]*"""
    rb"""(?:=[\t\n\f\r ]*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'"""
    rb"""|(?P<bare>[^\t\n\f\r >"'][^\t\n\f\r >]*)|(?P<open>["']))?)?"""
)
_META_CONTENT_CHARSET = re.compile(
    r"""charset[\t\n\f\r ]*=[\t\n\f\r ]*"""
    r"""(?:"([^"]*)"|'([^']*)'|(["'])|([^\t\n\f\r ;"'][^\t\n\f\r ;]*))?""",
    re.IGNORECASE,
)


def prescan_meta(body: bytes) -> str | None:
    """The codec a ``<meta>`` in the first 1,024 bytes declares, or None.

    The HTML standard's prescan: comments and the attributes of other tags are stepped
    over, so markup inside them is not read; a ``<meta>`` declares through ``charset``, or
    through ``content`` when ``http-equiv`` is ``content-type``; a label that is not an
    encoding is passed over and the scan goes on; UTF-16 named in a ``<meta>`` means
    UTF-8 (the bytes just read were ASCII-compatible).
    """
    data = body[:PRESCAN_BYTES]
    pos = 0
    while True:
        m = _TAG_START.search(data, pos)
        if m is None:
            return None
        token = m.group(0)
        if token == b"<!--":
            close = data.find(b"-->", m.start() + 2)
            if close < 0:
                return None
            pos = close + 3
        elif token[:5].lower() == b"<meta":
            found, pos = _meta_tag(data, m.end() - 1)
            if pos < 0:
                return None
            if found is not None:
                return "utf-8" if found.startswith("utf-16") else found
        elif token[-1:].isalpha():  # <name or </name
            pos = _skip_tag(data, m.end())
            if pos < 0:
                return None
        else:
            close = data.find(b">", m.end())
            if close < 0:
                return None
            pos = close + 1


def _skip_tag(data: bytes, pos: int) -> int:
    """Past the name and attributes of a tag that is not a ``<meta>`` (-1: data ended)."""
    name_end = _TAG_NAME_END.search(data, pos)
    if name_end is None:
        return -1
    pos = name_end.start()
    while True:
        attr = _ATTRIBUTE.match(data, pos)
        if attr is None or attr.group("name") is None:
            close = data.find(b">", pos)
            return -1 if close < 0 else close + 1
        if attr.group("open"):
            return -1  # an attribute value still open when the bytes end
        pos = attr.end()


def _meta_tag(data: bytes, pos: int) -> tuple[str | None, int]:
    """``(codec or None, position after the tag)``; the position is -1 if the data ended."""
    seen: set[bytes] = set()
    got_pragma = False
    need_pragma: bool | None = None
    charset: str | None = None
    while True:
        attr = _ATTRIBUTE.match(data, pos)
        if attr is None or attr.group("name") is None:
            close = data.find(b">", pos)
            if close < 0:
                return None, -1
            pos = close + 1
            break
        if attr.group("open"):
            return None, -1
        pos = attr.end()
        name = attr.group("name").lower()
        if name in seen:
            continue
        seen.add(name)
        raw = attr.group("dq") or attr.group("sq") or attr.group("bare") or b""
        value = raw.decode("ascii", "replace")
        if name == b"http-equiv":
            got_pragma = value.strip(_ASCII_WS).lower() == "content-type"
        elif name == b"content" and charset is None:
            codec = label_codec(_charset_in_content(value))
            if codec is not None:
                charset = codec
                need_pragma = True
        elif name == b"charset":
            charset = label_codec(value) or ""
            need_pragma = False
    if need_pragma is None or (need_pragma and not got_pragma) or not charset:
        return None, pos
    return charset, pos


def _charset_in_content(content: str) -> str | None:
    """The HTML standard's "extracting a character encoding from a meta element"."""
    m = _META_CONTENT_CHARSET.search(content)
    if m is None or m.group(3):
        return None  # no charset=, or a quote that is never closed
    return m.group(1) if m.group(1) is not None else m.group(2) or m.group(4)


# --- XHTML served as XML ----------------------------------------------------------------

_XML_DECLARATION = re.compile(
    rb"""<\?xml[\t\n\r ][^>]*?encoding[\t\n\r ]*=[\t\n\r ]*["']([A-Za-z][A-Za-z0-9._-]*)["']"""
)


def _is_xml(content_type: str | None) -> bool:
    return content_type is not None and "xml" in content_type.split(";", 1)[0].lower()


def _xml_declared(body: bytes) -> str | None:
    """An XHTML page served as XML is read by XML's rules: the XML declaration's encoding."""
    m = _XML_DECLARATION.match(body, 0, PRESCAN_BYTES)
    codec = label_codec(m.group(1).decode("ascii")) if m else None
    return "utf-8" if codec is not None and codec.startswith("utf-16") else codec


# --- the whole sniff ------------------------------------------------------------------


def sniff_codec(body: bytes, content_type: str | None = None) -> tuple[str, int]:
    """``(codec, length of its BOM)``: what :func:`decode_body` decodes ``body`` with.

    Apart so that a caller that needs no text (the extractor parses an ASCII page's own
    bytes) pays no decoding.
    """
    for bom, codec in _BOMS:
        if body.startswith(bom):
            return codec, len(bom)
    codec = (
        content_type_charset(content_type)
        or (_xml_declared(body) if _is_xml(content_type) else prescan_meta(body))
        or "utf-8"
    )
    return codec, 0


def decode_body(body: bytes, content_type: str | None = None) -> tuple[str, str]:
    """``(text, codec)``: BOM, then HTTP charset, then ``<meta>`` prescan, else UTF-8.

    Never raises: undecodable bytes become U+FFFD.  The BOM is removed from the text.
    """
    codec, bom = sniff_codec(body, content_type)
    if bom:
        return body[bom:].decode(codec, "replace"), codec
    text = body.decode(codec, _GB18030_ERRORS if codec == "gb18030" else "replace")
    if codec == "cp932" and _CP932_PRIVATE.search(text):
        text = text.translate(_CP932_UNMAPPED)
    return text, codec


def _gb18030_euro(exc: UnicodeError) -> tuple[str, int]:
    """WHATWG's gb18030 decoder reads a lone 0x80 as the euro sign (windows-936 did);
    Python's refuses it.  Everything else undecodable becomes U+FFFD, as with "replace"."""
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    if exc.object[exc.start] == 0x80:
        return "\u20ac", exc.start + 1
    return "\ufffd", exc.end


#: Python's cp932 gives the single bytes A0, FD, FE and FF private-use characters; WHATWG's
#: Shift_JIS decoder (otherwise cp932's tables) finds them undecodable: U+FFFD.
_CP932_UNMAPPED: Final = dict.fromkeys(range(0xF8F0, 0xF8F4), 0xFFFD)
_CP932_PRIVATE: Final = re.compile("[\uf8f0-\uf8f3]")
_GB18030_ERRORS: Final = "sitemapkit-gb18030"
codecs.register_error(_GB18030_ERRORS, _gb18030_euro)
