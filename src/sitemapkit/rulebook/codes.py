"""Every finding code the validator and reader emit, with its severity.

Why a table: RULES.md fixes code and severity together; keeping them in one
place means a rule cannot drift to another severity, and the test corpus can
check that every code here has a broken fixture that triggers it.
"""

from __future__ import annotations

from typing import Final

from sitemapkit.model import Severity

E, W, N = Severity.ERROR, Severity.WARNING, Severity.INFO

#: RULES.md codes -> severity.
RULE_CODES: Final[dict[str, Severity]] = {
    # file
    "xml-malformed": E,
    "xml-leading-content": E,
    "xml-doctype": E,
    "encoding-not-utf8": E,
    "root-unknown": E,
    "namespace-wrong": E,
    "too-many-entries": E,
    "file-too-large": E,
    "file-over-10mb": N,
    "gzip-invalid": E,
    "urlset-empty": W,
    # url and loc
    "loc-missing": E,
    "element-repeated": E,
    "element-order": E,
    "element-unknown": E,
    "loc-not-absolute": E,
    "loc-too-long": E,
    "loc-not-escaped": E,
    "loc-whitespace": W,
    "loc-other-host": E,
    "loc-outside-directory": E,
    "loc-duplicate": W,
    "loc-mixed-origins": W,
    # lastmod, changefreq, priority
    "lastmod-invalid": E,
    "lastmod-imprecise": E,
    "lastmod-no-timezone": E,
    "lastmod-future": W,
    "lastmod-uniform": W,
    "changefreq-invalid": E,
    "priority-invalid": E,
    "hint-ignored": N,
    # index
    "index-nested": E,
    "index-child-missing": E,
    "index-child-invalid": E,
    "index-cycle": E,
    # extensions
    "ext-unknown-namespace": W,
    "ext-schema": E,
    "image-too-many": E,
    "image-loc-invalid": E,
    "image-deprecated": W,
    "video-required": E,
    "video-limits": E,
    "video-same-as-page": E,
    "video-values": E,
    "video-uploader-domain": W,
    "video-deprecated": W,
    "news-required": E,
    "news-too-many": E,
    "news-language": E,
    "news-stale": W,
    "news-legacy": W,
    "hreflang-malformed": E,
    "hreflang-code": E,
    "hreflang-no-self": E,
    "hreflang-not-reciprocal": E,
    "hreflang-conflict": E,
    "hreflang-no-default": N,
    # other formats
    "text-line-invalid": E,
    "robots-sitemap-relative": E,
    "feed-item-no-link": W,
}

#: Codes we add: safety caps hit and sources that could not be read (all errors).
LIMIT_CODES: Final[dict[str, Severity]] = {
    "limit-download-bytes": E,
    "limit-decompressed-bytes": E,
    "limit-index-depth": E,
    "limit-sitemaps-followed": E,
    "limit-timeout": E,
    "limit-xml-depth": E,
    "limit-run-bytes": E,
    "fetch-failed": E,
    "fetch-refused": E,
    "file-unreadable": E,
    "sitemap-not-found": E,
    "xsd-invalid": E,
}

#: Rules we add beyond RULES.md (found by cross-checking with the schemas).
EXTRA_RULE_CODES: Final[dict[str, Severity]] = {
    # text where the schema allows only elements (inside urlset, sitemapindex, url, sitemap)
    "content-stray": E,
    # an attribute on a sitemap element (the schema allows none; xsi:* aside)
    "attribute-unknown": E,
}

ALL_CODES: Final[dict[str, Severity]] = {**RULE_CODES, **EXTRA_RULE_CODES, **LIMIT_CODES}


def severity(code: str) -> Severity:
    """The severity of ``code``; HTTP status codes (``http-404``) are errors."""
    return ALL_CODES.get(code, E)


#: One line per code saying what it means (RULES.md's words for its codes): the text
#: people see in audit reports and SARIF rule descriptions.
MEANINGS: Final[dict[str, str]] = {
    "xml-malformed": "not well-formed XML; report line and column",
    "xml-leading-content": "anything (even whitespace) before the XML declaration",
    "xml-doctype": "a DOCTYPE or entity declaration (also refused for safety)",
    "encoding-not-utf8": "declared or actual encoding is not UTF-8",
    "root-unknown": "root is neither urlset nor sitemapindex",
    "namespace-wrong": "root namespace is not exactly the one above",
    "too-many-entries": "more than 50,000 url / sitemap entries",
    "file-too-large": "over 52,428,800 bytes uncompressed",
    "file-over-10mb": "over 10,485,760 bytes (old limit, some engines)",
    "gzip-invalid": ".gz that does not decompress, or zip instead of gzip",
    "urlset-empty": "a urlset with no url",
    "loc-missing": "url / sitemap without exactly one loc",
    "element-repeated": "lastmod, changefreq or priority given twice",
    "element-order": "core children out of order, or an extension before loc",
    "element-unknown": "a sitemap-namespace element the protocol does not define",
    "loc-not-absolute": "not an absolute http or https URL with a host",
    "loc-too-long": "2,048 characters or more",
    "loc-not-escaped": 'space, raw non-ASCII, or one of <>"{}\\|\\\\^ and backtick; or a bad %XX',
    "loc-whitespace": "leading or trailing whitespace inside loc",
    "loc-other-host": "scheme, host or port differs from the sitemap's own URL (when known)",
    "loc-outside-directory": "not at or below the sitemap's directory (when known)",
    "loc-duplicate": "the same URL twice in a file or across a set",
    "loc-mixed-origins": "a set mixes http/https or www/bare host",
    "lastmod-invalid": "not a W3C datetime at all, or an impossible date (month 13, Feb 30)",
    "lastmod-imprecise": (
        "W3C-legal but rejected by the schema: YYYY, YYYY-MM, time without seconds"
    ),
    "lastmod-no-timezone": "a time without a timezone; or a date carrying an offset",
    "lastmod-future": "later than now (plus one day of slack)",
    "lastmod-uniform": "(set-level) all, or nearly all, values identical: stamped at build time",
    "changefreq-invalid": "not one of always hourly daily weekly monthly yearly never (lowercase)",
    "priority-invalid": "not a number in 0.0–1.0",
    "hint-ignored": "changefreq / priority present; Google ignores them",
    "index-nested": "an index lists another index",
    "index-child-missing": "a listed sitemap cannot be fetched / opened (when following)",
    "index-child-invalid": "a listed sitemap has errors (reported under its own URL)",
    "index-cycle": "an index (directly or not) lists itself",
    "ext-unknown-namespace": "an element from a namespace no schema covers",
    "ext-schema": "an element of a known extension breaks its schema (children, values, order)",
    "image-too-many": "more than 1,000 image:image in one url",
    "image-loc-invalid": "image:loc missing or not absolute",
    "image-deprecated": "caption, geo_location, title, license (no effect since 2022)",
    "video-required": (
        "missing thumbnail_loc, title or description, or neither content_loc nor player_loc"
    ),
    "video-limits": (
        "title > 100 chars, description > 2,048, duration outside 1–28,800, rating "
        "outside 0–5, view_count < 0, > 32 tags, uploader > 255 chars, repeated "
        "restriction/platform/uploader"
    ),
    "video-same-as-page": "content_loc or player_loc equals the page loc",
    "video-values": (
        "restriction/platform without relationship allow or deny, bad country or platform"
        " list, yes/no fields outside their values"
    ),
    "video-uploader-domain": "uploader/@info on another host than loc",
    "video-deprecated": "category, gallery_loc, price, tvshow, player_loc/@allow_embed, @autoplay",
    "news-required": (
        "missing publication, name, language, publication_date or title; two news:news in one url"
    ),
    "news-too-many": "more than 1,000 news:news in one file",
    "news-language": "language is not zh-cn, zh-tw or 2–3 lowercase letters",
    "news-stale": 'publication_date older than two days (against a given "now")',
    "news-legacy": "access, genres, keywords, stock_tickers",
    "hreflang-malformed": 'xhtml:link without rel="alternate", hreflang or an absolute href',
    "hreflang-code": (
        "not x-default nor ISO 639-1 language [-ISO 15924 script] [-ISO 3166-1 region]; a"
        " region alone; _ as separator"
    ),
    "hreflang-no-self": "the page's own URL is not among its alternates",
    "hreflang-not-reciprocal": (
        "(set-level) A lists B but B's entry does not list A, or the sets differ"
    ),
    "hreflang-conflict": "one code points at two URLs",
    "hreflang-no-default": "no x-default",
    "text-line-invalid": (
        "a text-sitemap line that is not one absolute URL (headers, footers, two URLs)"
    ),
    "robots-sitemap-relative": "a robots.txt Sitemap: value that is not a full URL",
    "feed-item-no-link": "an RSS/Atom item without a usable link",
    "limit-download-bytes": "the download passed the byte cap (--max-download-bytes)",
    "limit-decompressed-bytes": "the decompressed size passed the cap (a gzip bomb guard)",
    "limit-index-depth": "sitemap indexes nested deeper than the cap",
    "limit-sitemaps-followed": "more sitemaps than the cap allows to follow",
    "limit-timeout": "the fetch ran past its time limit",
    "limit-xml-depth": "XML nested deeper than the cap",
    "limit-run-bytes": "a line, tag, comment or value longer than the cap",
    "fetch-failed": "the sitemap could not be fetched (connection, DNS, TLS or HTTP error)",
    "fetch-refused": (
        "not fetched: a public start leads to a loopback, link-local or private address"
    ),
    "file-unreadable": "the local file could not be read",
    "sitemap-not-found": "no sitemap found at the given place or the usual paths",
    "xsd-invalid": "the file breaks the published XML schema (--schema)",
    "content-stray": "text where the schema allows only elements",
    "attribute-unknown": "an attribute on a sitemap element (the schema allows none)",
}


def meaning(code: str) -> str:
    """What ``code`` means in one line (HTTP status codes such as ``http-404`` included)."""
    if code.startswith("http-") and code[5:].isdigit():
        return f"the sitemap answered HTTP {code[5:]}"
    return MEANINGS.get(code, code)
