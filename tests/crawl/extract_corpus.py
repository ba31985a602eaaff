"""A varied, deterministic corpus of fetched pages, for holding the extractor to its past.

Every page's facts and content fingerprint are stored in ``fixtures/extract_golden.json``
(made by :func:`write_golden` from the code of an earlier commit, named in the file); a
crawl stores fingerprints, and one that moves after an upgrade moves the ``lastmod`` of
every page on the first re-crawl.  The corpus: the demo site's pages, the HTML fixtures
of the tests, three pages of the PostgreSQL manual, and generated hostile pages (broken
and legacy encodings, every Unicode space, generation stamps in odd spellings and case
folds, code elements, repeated and odd links, huge pages parsed in segments).

    PYTHONPATH=tests .venv/bin/python -m crawl.extract_corpus  # rewrite it (deliberately!)
"""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

from sitemapkit.crawl.extract import PageFacts, extract_page
from sitemapkit.crawl.scripted import looks_scripted
from sitemapkit.demo import server as demo

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "fixtures" / "extract_golden.json"
#: The moment every page is read at (lastmod checks compare with it).
NOW = datetime(2026, 11, 25, 4, 0, tzinfo=UTC)
SERVED = "Wed, 25 Nov 2026 04:00:00 GMT"
ORIGIN = "http://demo.test"
#: Every character ``str.split()`` splits on (``str.isspace``), and a few that it does not.
SPACES = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000"
)
NOT_SPACES = "\u200b\u180e\ufeff\x00\x01\u2060"


class Case(NamedTuple):
    name: str
    body: bytes
    url: str
    headers: dict[str, str]


def html_headers(content_type: str = "text/html; charset=utf-8", **more: str) -> dict[str, str]:
    return {"Content-Type": content_type, "Date": SERVED, **more}


def demo_cases() -> Iterator[Case]:
    for path in sorted(demo.SITE_DIR.rglob("*.html")):
        rel = path.relative_to(demo.SITE_DIR).as_posix()
        body = (
            path.read_bytes()
            .replace(b"__ORIGIN__", ORIGIN.encode())
            .replace(b"__HOST__", b"demo.test")
        )
        ctype = demo.CONTENT_TYPES.get("/" + rel, "text/html; charset=utf-8")
        yield Case(f"demo/{rel}", body, f"{ORIGIN}/{rel}", html_headers(ctype))
    generated = {
        "events/2026/3": demo._calendar("/events/2026/3"),
        "events/2026/12": demo._calendar("/events/2026/12"),
        "products/lamps-and-more/": demo._repeating("/products/lamps-and-more/"),
        "docs/changelog.html": demo._changelog(),  # 2 MB: parsed in segments
    }
    for rel, text in generated.items():
        assert text is not None
        yield Case(f"demo/{rel}", text.encode(), f"{ORIGIN}/{rel}", html_headers())


def fixture_cases() -> Iterator[Case]:
    tests = HERE.parent
    files = [
        *sorted((HERE / "fixtures").glob("*.html")),
        *sorted((HERE / "fixtures" / "pgdocs").glob("*.html")),
        *sorted((tests / "cli" / "fixtures" / "debian_docs").glob("*.html")),
    ]
    for path in files:
        rel = path.relative_to(tests).as_posix()
        yield Case(rel, path.read_bytes(), f"https://docs.example.org/{path.name}", html_headers())


# --- hostile pages ----------------------------------------------------------------------

_STAMPS = [
    "Generated at 2024-05-01T10:00:00Z",
    "GENERATED: 2024-05-01 10:00",
    "rendered on 2025-01-01 08:00",
    "Served at 12:34:56",
    "built in 2024-02-02",
    "cached:2024-02-02T01:02:03.456+02:00",
    "compiled on 1:05",
    "ſerved at 10:00",  # long s: case-folds to "s"
    "generat\u0130d at 2024-01-01",
    "B\u0131ilt 2024-01-01",
    "generated\xa0at 2024-05-01",
    "generated 2024-01-01\n10:00",
    "generated 2024-01-01 10:00",
    "generated\u2003on 2024-01-01T10:00:00Z",
    "compiled on \u0662\u0660\u0662\u0664-\u0660\u0661-\u0660\u0661",  # Arabic-Indic digits
    "reserved 2024-01-01",
    "preserved at 2024-01-01",
    "built-in 2024-01-01",
    "élgenerated 2024-01-01",
    "_served 2024-01-01",
    "generated columns",
    "served",
    "Generated <b>at</b> 2024-05-01",
    "<span>gener</span>ated 2024-05-01",
    "cached\t:\t2024-01-01",
    "RENDERED   IN   2024-12-31T23:59",
    "served in 10:61",
]
_WORDS = [
    "lamp",
    "Ünïcødé",
    "“quoted”",
    "—",
    "日本語",
    "😀",
    "&nbsp;",
    "&#x2003;",
    "&amp;",
    "a&#12;b",
    "x\u200by",
    "tab\there",
    "\r\n",
    "&lt;script&gt;",
    "ﬁ",
    "K",
]
_HREFS = [
    "/a",
    "a.html",
    "../up.html",
    "./here/",
    "?q=1",
    "#frag",
    "/a#x",
    "//other.test/p",
    "HTTP://Demo.TEST:80/b",
    "https://demo.test/x?utm_source=n&b=2&a=1",
    "/s;jsessionid=ABC?sid=1",
    " /spaced ",
    "/tab\tbed",
    "/caf\u00e9?q=\u00e9t\u00e9",
    "javascript:void(0)",
    "mailto:x@y.z",
    "data:text/html,hi",
    "/%7Euser/%41",
    "/a/./b/../c",
    "",
    "http://[::1]:8080/v6",
    "http://bad host/",
    "/a?b=1&b=2&a",
    "/(S(lit3py55t21z5v55vlm25s55))/page",
]
_HEAD = [
    '<meta name="robots" content="noindex, nofollow">',
    '<meta name="googlebot" content="none">',
    '<meta name="otherbot" content="noindex">',
    '<meta http-equiv="refresh" content="0; url=/moved">',
    '<meta http-equiv="refresh" content="5">',
    '<link rel="canonical" href="/canon">',
    '<link rel="canonical" href="/other-canon">',
    '<link rel="alternate" hreflang="de" href="/de/">',
    '<link rel="alternate" hreflang="EN-gb" href="/en/">',
    '<meta property="article:modified_time" content="2024-03-02T08:00:00+00:00">',
    '<meta property="og:updated_time" content="2030-01-01T00:00:00Z">',
    '<meta itemprop="dateModified" content="2023-07-01">',
    '<base href="/based/">',
    '<base href="javascript:alert(1)">',
    "<title>  A \n title\u00a0with   spaces </title>",
    '<script type="application/ld+json">{"@type":"Article","dateModified":"2024-01-02",'
    '"headline":"  H  ","author":{"name":"A","dateModified":"x"}}</script>',
    '<script type="application/ld+json">{broken json</script>',
    "<style>body{color:red} /* generated at 2024-01-01 */</style>",
    '<script src="/app.js"></script>',
]
_BODY = [
    "<script>document.body.innerHTML = '<a href=/x>x</a>';</script>",
    '<script type="module">import "/m.js";</script>',
    "<SCRIPT>var a = 1;</SCRIPT>",
    "<!-- <script>document.write('x')</script> -->",
    '<div id="root"></div>',
    '<div id="app">  </div>',
    "<app-root></app-root>",
    "<noscript>Enable JavaScript generated at 2024-01-01</noscript>",
    "<template><p>template text <a href='/in-template'>t</a></p></template>",
    "<svg><text>svg text</text><a href='/svg-link'>s</a></svg>",
    "<textarea>in a textarea <a href=/no></textarea>",
    "<h1>  First\n heading </h1><h1>Second</h1>",
    '<img src="/i.png"><img src="data:image/png;base64,AA" data-src="/lazy.png">',
    '<iframe src="/frame"></iframe><frame src="/frameset-frame">',
    '<map><area href="/area" rel="nofollow"></map>',
    "<table><tr><td>cell</td></tr></table>",
    "<pre>  pre\n\n  formatted  </pre>",
    '<a href="/dup" rel="nofollow">1</a><a href="/dup">2</a><a href="/dup" rel="NoFollow">3</a>',
    '<a href="/nf" rel="nofollow noopener">nf</a><a href="/nf" rel="nofollow">nf again</a>',
    "<p>unclosed <b>bold <i>italic</p> text",
    "\x00nul\x00",
]
_HEADERS = [
    {},
    {"Link": '</hdr-canon>; rel="canonical", </de>; rel="alternate"; hreflang="de"'},
    {"X-Robots-Tag": "googlebot: noindex"},
    {"X-Robots-Tag": "otherbot: noindex, nofollow"},
    {"Refresh": "0; url=/header-refresh"},
    {"Last-Modified": "Tue, 02 Jan 2024 03:04:05 GMT"},
    {"Last-Modified": SERVED},
]
_ENCODINGS = ["utf-8", "utf-8", "utf-8", "windows-1252", "iso-8859-15", "shift_jis", "utf-16"]


def _text(rng: random.Random) -> str:
    parts: list[str] = []
    for _ in range(rng.randint(1, 40)):
        pick = rng.random()
        if pick < 0.15:
            parts.append(rng.choice(_STAMPS))
        elif pick < 0.35:
            parts.append(rng.choice(SPACES) * rng.randint(1, 3))
        elif pick < 0.45:
            parts.append(rng.choice(NOT_SPACES))
        else:
            parts.append(rng.choice(_WORDS))
        parts.append(rng.choice(["", " ", "\n", "<br>", "</p><p>", "<span>", "</span>"]))
    return "".join(parts)


def hostile_page(rng: random.Random) -> tuple[str, dict[str, str]]:
    head = "".join(rng.sample(_HEAD, rng.randint(0, 6)))
    body: list[str] = []
    for _ in range(rng.randint(1, 12)):
        pick = rng.random()
        if pick < 0.4:
            body.append(f"<p>{_text(rng)}</p>")
        elif pick < 0.7:
            rel = rng.choice(["", ' rel="nofollow"', ' rel="NOFOLLOW ugc"', ' rel=""'])
            body.append(f'<a href="{rng.choice(_HREFS)}"{rel}>{_text(rng)}</a>')
        else:
            body.append(rng.choice(_BODY))
    headers = dict(rng.choice(_HEADERS))
    return f"<!DOCTYPE html><html><head>{head}</head><body>{''.join(body)}</body></html>", headers


def _encode(text: str, encoding: str, rng: random.Random) -> tuple[bytes, str]:
    """``text`` in ``encoding``, declared one of several ways, sometimes broken."""
    data = text.encode(encoding, "xmlcharrefreplace")
    how = rng.choice(["header", "meta", "none", "bom"])
    ctype = "text/html"
    if how == "header":
        ctype = f"text/html; charset={encoding}"
    elif how == "meta" and not encoding.startswith("utf-16"):
        data = f'<meta charset="{encoding}">'.encode("ascii") + data
    elif how == "bom" and encoding == "utf-8":
        data = b"\xef\xbb\xbf" + data
    if rng.random() < 0.15:  # broken bytes somewhere
        at = rng.randrange(len(data) + 1)
        data = data[:at] + rng.choice([b"\xff", b"\xc3", b"\xe2\x80", b"\xed\xa0\x80"]) + data[at:]
    return data, ctype


def hostile_cases(count: int = 400, seed: int = 13) -> Iterator[Case]:
    rng = random.Random(seed)
    for index in range(count):
        markup, headers = hostile_page(rng)
        encoding = rng.choice(_ENCODINGS)
        body, ctype = _encode(markup, encoding, rng)
        path = rng.choice(["p", "dir/p.html", "a/b/", "q?x=1", "caf%C3%A9/"])
        yield Case(
            f"hostile/{index}", body, f"{ORIGIN}/h{index}/{path}", html_headers(ctype, **headers)
        )


def huge_cases() -> Iterator[Case]:
    """Pages over a segment (about 1 MiB of text): cut after block ends, every link kept."""
    rng = random.Random(7)
    rows = []
    for index in range(9_000):
        cell = _text(rng) if index % 50 == 0 else f"row {index} \u00a0 value"
        rows.append(f'<tr><td><a href="/r/{index % 700}">r</a></td><td>{cell}</td></tr>\n')
    table = "<table>" + "".join(rows) + "</table>"
    pad = "<div>" + "lorem ipsum " * 20 + "</div>\n"
    script = "<script>var s = '</div></tr>';</script>"
    for name, markup in {
        "table": table * 2,
        "divs-with-script": (pad * 3000) + script + (pad * 3000) + "<p>generated at 2024-01-01</p>",
        "no-cut": "<p>" + "word " * 300_000 + "</p>",
    }.items():
        html = f"<html><head><title>Huge {name}</title></head><body>{markup}</body></html>"
        yield Case(f"huge/{name}", html.encode(), f"{ORIGIN}/huge/{name}", html_headers())


def corpus() -> Iterator[Case]:
    yield from demo_cases()
    yield from fixture_cases()
    yield from hostile_cases()
    yield from huge_cases()


# --- what is compared -------------------------------------------------------------------


def facts_digest(facts: PageFacts) -> str:
    """Every field of ``facts`` (their reprs: ``Link``, ``Alternate`` ...) as one digest."""
    values = [getattr(facts, name) for name in facts.__dataclass_fields__]
    return hashlib.blake2b(repr(values).encode(), digest_size=12).hexdigest()


def read(case: Case) -> dict[str, object]:
    """What the crawl keeps of one page: its fingerprint, its facts, the scripts' verdict."""
    facts = extract_page(case.body, url=case.url, headers=case.headers, now=NOW)
    ctype = case.headers.get("Content-Type")
    return {
        "fingerprint": facts.fingerprint,
        "facts": facts_digest(facts),
        "scripted": looks_scripted(case.body, facts, ctype),
    }


def write_golden() -> None:
    commit = subprocess.run(
        ["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    pages = {case.name: read(case) for case in corpus()}
    payload = {"made_at_commit": commit, "pages": pages}
    GOLDEN.write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n")
    print(f"{GOLDEN}: {len(pages)} pages at {commit}", file=sys.stderr)


if __name__ == "__main__":
    write_golden()
