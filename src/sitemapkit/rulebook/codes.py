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
