"""Protocol constants, each with its source, and the safety caps we add.

Keeping them in one module means a test can pin them and every part of the
package (writer, reader, validator, crawler) agrees on the same numbers.
"""

from __future__ import annotations

from typing import Final

#: sitemaps.org protocol 0.9 — the sitemap namespace; the https form is wrong.
SITEMAP_NS: Final = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE_NS: Final = "http://www.google.com/schemas/sitemap-image/1.1"
VIDEO_NS: Final = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS_NS: Final = "http://www.google.com/schemas/sitemap-news/0.9"
XHTML_NS: Final = "http://www.w3.org/1999/xhtml"
MOBILE_NS: Final = "http://www.google.com/schemas/sitemap-mobile/1.0"

#: [SM] at most 50,000 entries per urlset or sitemapindex.
MAX_ENTRIES_PER_FILE: Final = 50_000
#: [SM] at most 50 MiB uncompressed, counting the whole file (declaration and wrapper tags).
MAX_BYTES_PER_FILE: Final = 52_428_800
#: The old 10 MB limit some engines still apply.
LEGACY_MAX_BYTES_PER_FILE: Final = 10_485_760
#: [SM] a loc must be *fewer than* 2,048 characters.
MAX_LOC_LENGTH: Final = 2_048
#: [GNEWS] at most 1,000 news:news entries per file.
MAX_NEWS_PER_FILE: Final = 1_000
#: [GIMG] at most 1,000 images per url.
MAX_IMAGES_PER_URL: Final = 1_000
#: [GI] an index lists at most 50,000 sitemaps (and indexes never nest).
MAX_SITEMAPS_PER_INDEX: Final = 50_000

#: [GVID] video limits.
MAX_VIDEO_TITLE: Final = 100
MAX_VIDEO_DESCRIPTION: Final = 2_048
MIN_VIDEO_DURATION: Final = 1
MAX_VIDEO_DURATION: Final = 28_800
MAX_VIDEO_TAGS: Final = 32
MAX_VIDEO_UPLOADER: Final = 255

CHANGEFREQ_VALUES: Final = frozenset(
    {"always", "hourly", "daily", "weekly", "monthly", "yearly", "never"}
)

# --- Safety caps (ours): hostile input is expected. ---------------------------
#: Pages with hreflang alternates held for the set's reciprocity check (writer and
#: validator alike); past it, reciprocity is listed as not checked.
MAX_HREFLANG_PAGES: Final = 200_000
#: Bytes we accept downloading for one sitemap or page body.
MAX_DOWNLOAD_BYTES: Final = 100 * 1024 * 1024
#: Bytes we accept after decompressing one gzip member (a gzip bomb stops here).
MAX_DECOMPRESSED_BYTES: Final = 200 * 1024 * 1024
#: Bytes in one line of a ``build`` input (a URL, a CSV row, a JSON Lines entry with
#: up to 1,000 images): a longer line is refused as soon as this is passed, and reading
#: goes on at the next line break (memory stays flat on a 1 GB line).
MAX_INPUT_LINE_BYTES: Final = 4 * 1024 * 1024
#: Depth of index -> sitemap following before we stop.
MAX_INDEX_DEPTH: Final = 5
#: Number of sitemaps followed from one source.
MAX_SITEMAPS_FOLLOWED: Final = 60_000
#: Bytes of a robots.txt that are read (RFC 9309 2.5 allows a cap of at least 500 KiB;
#: Google reads exactly that); the rest is ignored.
MAX_ROBOTS_BYTES: Final = 500 * 1024
#: Redirects followed for one URL before it is a loop or chain.
MAX_REDIRECTS: Final = 10
#: One element's text is kept up to this many characters; the rest is dropped (and noted).
MAX_TEXT_CHARS: Final = 65_536
#: Findings of one code listed per file; the rest are counted in one "... and N more" line
#: (a million broken lines must not print a million lines or fill the memory).
MAX_LISTED_FINDINGS: Final = 1_000
#: Bytes of one text line, or between two ``<`` of an XML file (a tag with its attributes,
#: or a text), before reading stops: expat and line splitting would otherwise go quadratic
#: on a 100 MB line or attribute.  Real sitemaps stay far below (a loc is < 2,048 chars).
MAX_RUN_BYTES: Final = 1_048_576
#: Bytes of JSON-LD we are willing to parse per script element (lastmod, the fingerprint).
MAX_JSONLD_BYTES: Final = 1_000_000
#: URLs in one IndexNow request (the protocol's limit); more are sent in several requests.
INDEXNOW_MAX_URLS: Final = 10_000
#: Bytes of an HTTP response's status line and headers together (the lean client's cap:
#: a server sending endless headers, or one 1 GB header line, gets ``bad-response``).
MAX_RESPONSE_HEAD_BYTES: Final = 64 * 1024
#: Header lines of one HTTP response (trailers of a chunked body count the same).
MAX_RESPONSE_HEADERS: Final = 256
#: Bytes of one chunk-size line of a chunked body (with its extensions).
MAX_CHUNK_LINE_BYTES: Final = 4096
