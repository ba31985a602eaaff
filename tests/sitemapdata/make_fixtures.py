# ruff: noqa: E501, E731, UP031
"""Writes the fixture corpus (run once: python tests/sitemapdata/make_fixtures.py)."""

import gzip
import io
import pathlib
import zipfile

root = pathlib.Path(__file__).resolve().parent / "fixtures"
D = '<?xml version="1.0" encoding="UTF-8"?>\n'
NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
EXT = (
    ' xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'
    ' xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"'
    ' xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"'
    ' xmlns:xhtml="http://www.w3.org/1999/xhtml"'
)


def us(*lines, ext=False):
    return D + f"<urlset {NS}{EXT if ext else ''}>\n" + "\n".join(lines) + "\n</urlset>\n"


def si(*lines):
    return D + f"<sitemapindex {NS}>\n" + "\n".join(lines) + "\n</sitemapindex>\n"


U = lambda loc, extra="": f"<url><loc>{loc}</loc>{extra}</url>"
A = "https://example.com/"
VID_OK = (
    "<video:video><video:thumbnail_loc>https://example.com/t.jpg</video:thumbnail_loc>"
    "<video:title>T</video:title><video:description>D</video:description>"
    "<video:content_loc>https://example.com/v.mp4</video:content_loc>{}</video:video>"
)
NEWS = (
    "<news:news><news:publication><news:name>N</news:name><news:language>{lang}</news:language>"
    "</news:publication><news:publication_date>{date}</news:publication_date>"
    "<news:title>T</news:title>{extra}</news:news>"
)
bad = {
    "xml-malformed.xml": us(U(A + "a"), "<url><loc>https://example.com/b</loc>", "</urlset>"),
    "xml-leading-content.xml": "\n\n" + us(U(A + "a")),
    "xml-doctype.xml": D
    + '<!DOCTYPE urlset [<!ENTITY x "y">]>\n'
    + f"<urlset {NS}>\n{U(A + 'a')}\n</urlset>\n",
    "encoding-not-utf8.xml": us(U(A + "a")).replace("UTF-8", "ISO-8859-1"),
    "root-unknown.xml": D + "<html>\n<body/>\n</html>\n",
    "namespace-wrong.xml": D
    + '<urlset xmlns="https://www.sitemaps.org/schemas/sitemap/0.9">\n'
    + U(A + "a")
    + "\n</urlset>\n",
    "urlset-empty.xml": D + f"<urlset {NS}>\n</urlset>\n",
    "loc-missing.xml": us(U(A + "a"), "<url><lastmod>2024-01-01</lastmod></url>"),
    "element-repeated.xml": us(
        U(A + "a", "<lastmod>2024-01-01</lastmod><lastmod>2024-01-02</lastmod>")
    ),
    "element-order.xml": us(
        "<url><lastmod>2024-01-01</lastmod><loc>https://example.com/a</loc></url>"
    ),
    "element-unknown.xml": us(U(A + "a", "<title>x</title>")),
    "loc-not-absolute.xml": us(U(A + "a"), U("/relative/page.html")),
    "loc-too-long.xml": us(U(A + "a"), U(A + "x" * 2100)),
    "loc-not-escaped.xml": us(U(A + "a"), U(A + "caf\u00e9 menu")),
    "loc-whitespace.xml": us(U(A + "a"), "<url><loc>\n  https://example.com/b\n</loc></url>"),
    "loc-duplicate.xml": us(U(A + "a"), U(A + "b"), U(A + "a")),
    "loc-mixed-origins.xml": us(U(A + "a"), U("https://www.example.com/b")),
    "lastmod-invalid.xml": us(U(A + "a"), U(A + "b", "<lastmod>2024-13-01</lastmod>")),
    "lastmod-imprecise.xml": us(U(A + "a", "<lastmod>2024-05</lastmod>")),
    "lastmod-no-timezone.xml": us(U(A + "a", "<lastmod>2024-05-01T10:00:00</lastmod>")),
    "lastmod-future.xml": us(U(A + "a", "<lastmod>2099-01-01</lastmod>")),
    "lastmod-uniform.xml": us(
        *[U(A + f"p{i}", "<lastmod>2024-05-01</lastmod>") for i in range(12)]
    ),
    "changefreq-invalid.xml": us(U(A + "a", "<changefreq>Daily</changefreq>")),
    "priority-invalid.xml": us(U(A + "a", "<priority>1.5</priority>")),
    "hint-ignored.xml": us(U(A + "a", "<changefreq>daily</changefreq>")),
    "ext-unknown-namespace.xml": us(U(A + "a", '<foo:bar xmlns:foo="urn:example:foo">x</foo:bar>')),
    "ext-schema.xml": us(
        U(
            A + "a",
            "<image:image><image:loc>https://example.com/i.jpg</image:loc><image:color>red</image:color></image:image>",
        ),
        ext=True,
    ),
    "image-too-many.xml": us(
        U(
            A + "a",
            "<image:image><image:loc>https://example.com/i.jpg</image:loc></image:image>" * 1001,
        ),
        ext=True,
    ),
    "image-loc-invalid.xml": us(
        U(A + "a", "<image:image><image:loc>i.jpg</image:loc></image:image>"), ext=True
    ),
    "image-deprecated.xml": us(
        U(
            A + "a",
            "<image:image><image:loc>https://example.com/i.jpg</image:loc><image:caption>c</image:caption></image:image>",
        ),
        ext=True,
    ),
    "video-required.xml": us(
        U(
            A + "a",
            "<video:video><video:thumbnail_loc>https://example.com/t.jpg</video:thumbnail_loc><video:title>T</video:title><video:description>D</video:description></video:video>",
        ),
        ext=True,
    ),
    "video-limits.xml": us(
        U(A + "a", VID_OK.format("<video:duration>0</video:duration>")), ext=True
    ),
    "video-same-as-page.xml": us(U(A + "v.mp4", VID_OK.format("")), ext=True),
    "video-values.xml": us(
        U(A + "a", VID_OK.format("<video:family_friendly>maybe</video:family_friendly>")), ext=True
    ),
    "video-uploader-domain.xml": us(
        U(A + "a", VID_OK.format('<video:uploader info="https://other.org/u">U</video:uploader>')),
        ext=True,
    ),
    "video-deprecated.xml": us(
        U(A + "a", VID_OK.format("<video:category>c</video:category>")), ext=True
    ),
    "news-required.xml": us(
        U(
            A + "a",
            "<news:news><news:publication><news:name>N</news:name></news:publication><news:publication_date>2024-05-01</news:publication_date><news:title>T</news:title></news:news>",
        ),
        ext=True,
    ),
    "news-too-many.xml": us(
        *[U(A + f"n{i}", NEWS.format(lang="en", date="2024-05-31", extra="")) for i in range(1001)],
        ext=True,
    ),
    "news-language.xml": us(
        U(A + "a", NEWS.format(lang="EN", date="2024-05-31", extra="")), ext=True
    ),
    "news-stale.xml": us(U(A + "a", NEWS.format(lang="en", date="2024-01-01", extra="")), ext=True),
    "news-legacy.xml": us(
        U(
            A + "a",
            NEWS.format(lang="en", date="2024-05-31", extra="<news:keywords>k</news:keywords>"),
        ),
        ext=True,
    ),
    "hreflang-malformed.xml": us(
        U(A + "a", '<xhtml:link rel="alternate" href="https://example.com/a"/>'), ext=True
    ),
    "hreflang-code.xml": us(
        U(A + "a", '<xhtml:link rel="alternate" hreflang="en-UK" href="https://example.com/a"/>'),
        ext=True,
    ),
    "hreflang-no-self.xml": us(
        U(A + "a", '<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de"/>'),
        U(
            A + "de",
            '<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de"/><xhtml:link rel="alternate" hreflang="en" href="https://example.com/a"/>',
        ),
        ext=True,
    ),
    "hreflang-not-reciprocal.xml": us(
        U(
            A + "a",
            '<xhtml:link rel="alternate" hreflang="en" href="https://example.com/a"/><xhtml:link rel="alternate" hreflang="de" href="https://example.com/de"/><xhtml:link rel="alternate" hreflang="x-default" href="https://example.com/a"/>',
        ),
        U(
            A + "de",
            '<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de"/><xhtml:link rel="alternate" hreflang="x-default" href="https://example.com/de"/>',
        ),
        ext=True,
    ),
    "hreflang-conflict.xml": us(
        U(
            A + "a",
            '<xhtml:link rel="alternate" hreflang="en" href="https://example.com/a"/><xhtml:link rel="alternate" hreflang="en" href="https://example.com/b"/>',
        ),
        ext=True,
    ),
    "hreflang-no-default.xml": us(
        U(A + "a", '<xhtml:link rel="alternate" hreflang="en" href="https://example.com/a"/>'),
        ext=True,
    ),
    "text-line-invalid.txt": "https://example.com/a\nhttps://example.com/b https://example.com/c\n",
    "feed-item-no-link.rss": '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>t</title>\n<item><link>https://example.com/a</link></item>\n<item><title>no link</title></item>\n</channel></rss>\n',
    "index-nested.xml": si("<sitemap><loc>https://example.com/sub-index.xml</loc></sitemap>"),
    "sub-index.xml": si("<sitemap><loc>https://example.com/leaf.xml</loc></sitemap>"),
    "leaf.xml": us(U(A + "leaf")),
    "index-child-missing.xml": si(
        "<sitemap><loc>https://example.com/leaf.xml</loc></sitemap>",
        "<sitemap><loc>http://127.0.0.1:9/gone.xml</loc></sitemap>",
    ),
    "index-child-invalid.xml": si(
        "<sitemap><loc>https://example.com/child-bad.xml</loc></sitemap>"
    ),
    "child-bad.xml": us(U(A + "a", "<lastmod>2024-13-01</lastmod>")),
    "index-cycle.xml": si(
        "<sitemap><loc>https://example.com/leaf.xml</loc></sitemap>",
        "<sitemap><loc>https://example.com/index-cycle.xml</loc></sitemap>",
    ),
    "content-stray.xml": us(U(A + "a"), "<url><loc>https://example.com/b</loc>stray</url>"),
    "attribute-unknown.xml": us(U(A + "a"), '<url id="2"><loc>https://example.com/b</loc></url>'),
    "loc-other-host.xml": us(U(A + "a"), U("https://other.example.org/b")),
    "loc-outside-directory.xml": us(U(A + "blog/a"), U(A + "shop/b")),
}
for name, text in bad.items():
    (root / "bad" / name).write_text(text, encoding="utf-8")
# binary / special
(root / "bad" / "gzip-invalid.xml.gz").write_bytes(
    gzip.compress(us(U(A + "a")).encode(), mtime=0)[:-20]
)
zbuf = io.BytesIO()
with zipfile.ZipFile(zbuf, "w") as z:
    z.writestr(zipfile.ZipInfo("sitemap.xml", (2024, 1, 1, 0, 0, 0)), us(U(A + "a")))
(root / "bad" / "zip-as-gzip.xml.gz").write_bytes(zbuf.getvalue())
(root / "bad" / "encoding-bad-bytes.xml").write_bytes(
    us(U(A + "a"), "<url><loc>https://example.com/caf\xe9</loc></url>")
    .encode("utf-8")
    .replace(b"caf\xc3\xa9", b"caf\xe9")
)
(root / "bad" / "robots.txt").write_text("User-agent: *\nDisallow:\nSitemap: /sitemap.xml\n")
# good files
good = {
    "urlset.xml": us(
        U(A + "a", "<lastmod>2024-05-01</lastmod>"),
        U(A + "b", "<lastmod>2024-05-02T10:00:00+02:00</lastmod>"),
        U(A + "c", "<lastmod>2024-05-03T10:00:00.123Z</lastmod>"),
    ),
    "image.xml": us(
        U(
            A + "img-a",
            "<lastmod>2024-05-01</lastmod><image:image><image:loc>https://example.com/i.jpg</image:loc></image:image>",
        ),
        U(A + "img-b", "<lastmod>2024-05-02</lastmod>"),
        ext=True,
    ),
    "video.xml": us(
        U(
            A + "a",
            "<lastmod>2024-05-01</lastmod>"
            + VID_OK.format(
                '<video:duration>60</video:duration><video:rating>4.5</video:rating><video:view_count>10</video:view_count><video:publication_date>2024-05-01</video:publication_date><video:tag>x</video:tag><video:family_friendly>yes</video:family_friendly><video:restriction relationship="allow">GB US</video:restriction><video:requires_subscription>no</video:requires_subscription><video:uploader info="https://example.com/u">U</video:uploader><video:platform relationship="deny">tv</video:platform><video:live>no</video:live>'
            ),
        ),
        U(A + "b", "<lastmod>2024-05-02</lastmod>"),
        ext=True,
    ),
    "news.xml": us(
        U(
            A + "a",
            "<lastmod>2024-05-01</lastmod>"
            + NEWS.format(lang="zh-cn", date="2024-05-31T08:00:00Z", extra=""),
        ),
        U(
            A + "b",
            "<lastmod>2024-05-02</lastmod>" + NEWS.format(lang="en", date="2024-05-31", extra=""),
        ),
        ext=True,
    ),
    "hreflang.xml": us(
        *[
            U(
                A + p,
                "<lastmod>2024-05-0%d</lastmod>" % (i + 1)
                + "".join(
                    f'<xhtml:link rel="alternate" hreflang="{c}" href="https://example.com/{q}"/>'
                    for c, q in (
                        ("en-GB", "en"),
                        ("de", "de"),
                        ("zh-Hant-TW", "tw"),
                        ("x-default", "en"),
                    )
                ),
            )
            for i, p in enumerate(("en", "de", "tw"))
        ],
        ext=True,
    ),
    "index.xml": si(
        "<sitemap><loc>https://example.com/urlset.xml</loc><lastmod>2024-05-01</lastmod></sitemap>",
        "<sitemap><loc>https://example.com/image.xml</loc></sitemap>",
    ),
    "text.txt": "https://example.com/a\nhttps://example.com/b\n",
    "atom.xml": '<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>\n<entry><link href="https://example.com/a"/><updated>2024-05-01T00:00:00Z</updated></entry>\n</feed>\n',
    "rss.xml": '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>t</title>\n<item><link>https://example.com/a</link><pubDate>Wed, 01 May 2024 10:00:00 GMT</pubDate></item>\n</channel></rss>\n',
}
for name, text in good.items():
    (root / "good" / name).write_text(text, encoding="utf-8")
(root / "good" / "urlset.xml.gz").write_bytes(gzip.compress(good["urlset.xml"].encode(), mtime=0))
