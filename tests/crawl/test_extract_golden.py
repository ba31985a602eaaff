"""Every page of a varied corpus keeps the facts and fingerprint an earlier commit gave it.

A crawl stores each page's content fingerprint; if an upgrade reads the same page to
another fingerprint, the first re-crawl moves every page's ``lastmod``.  So the
extractor's fast paths are held to the facts the slow code gave (``extract_golden.json``,
made by :mod:`tests.crawl.extract_corpus` at the commit it names), page by page.
"""

from __future__ import annotations

import json

from crawl import extract_corpus
from sitemapkit.crawl.extract import PARSE_SEGMENT_CHARS


def test_the_corpus_reads_as_it_did() -> None:
    golden = json.loads(extract_corpus.GOLDEN.read_text())["pages"]
    seen: set[str] = set()
    moved: list[str] = []
    for case in extract_corpus.corpus():
        seen.add(case.name)
        got = extract_corpus.read(case)
        if got != golden[case.name]:
            moved.append(f"{case.name}: {got} != {golden[case.name]}")
    assert not moved, "\n".join(moved[:20])
    assert seen == set(golden)


def test_the_corpus_covers_what_the_fast_paths_skip() -> None:
    """The hostile pages hold what the fast paths must notice: stamps, odd case folds,
    every Unicode space, huge pages in segments, pages that look scripted."""
    cases = {case.name: case for case in extract_corpus.corpus()}
    bodies = b"".join(case.body for case in cases.values())
    for needle in ("ſerved", "\u0130", "\u0131", "\u3000", "\x1c", "\u2003"):
        assert needle.encode() in bodies
    assert len(cases["huge/table"].body) > PARSE_SEGMENT_CHARS
    golden = json.loads(extract_corpus.GOLDEN.read_text())["pages"]
    assert sum(page["scripted"] for page in golden.values()) > 20
