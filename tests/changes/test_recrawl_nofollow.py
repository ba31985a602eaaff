"""A page that leaves the sitemap by becoming ``nofollow-only`` between two runs.

A URL reached in the first run through a followed link, and in the second only through
a ``rel=nofollow`` one, is no longer in the sitemap.  That is a change of its
indexability like any other (``noindex``, a canonical elsewhere): ``diff``, the URL's
history under ``--why`` and IndexNow's "removed" must all see it, and a third run where
the followed link is back must see it return.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from crawl.changing_site import ChangingSite, page, serve_changing
from indexnow.conftest import KEY
from indexnow.standin import serve_standin
from sitemapkit.cli import main


@pytest.fixture
def site() -> Iterator[ChangingSite]:
    served = ChangingSite(
        pages={
            "/": page("Home", "/a", "/b"),
            "/a": '<title>A</title><a rel="nofollow" href="/x">x</a>',
            "/b": page("B", "/x"),
            "/x": page("X", "/"),
            f"/{KEY}.txt": KEY,
        }
    )
    with serve_changing(served) as running:
        yield running


def _crawl(site: ChangingSite, db: str, out: Path) -> None:
    assert main(["crawl", site.base + "/", "--db", db, "-o", str(out), "--render", "never"]) == 0


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    capsys.readouterr()
    assert main(list(args)) == 0
    doc: dict[str, object] = json.loads(capsys.readouterr().out)
    return doc


def test_a_page_turned_nofollow_only_is_a_change_in_diff_history_and_indexnow(
    store_spec: str, site: ChangingSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = store_spec
    out = tmp_path / "out"
    x = site.base + "/x"
    _crawl(site, db, out)
    with serve_standin() as standin:  # IndexNow is told of the first run's sitemap
        indexnow = ["indexnow", "--db", db, "--key", KEY, "--endpoint", standin.endpoint]
        assert main(indexnow) == 0
        assert x in standin.accepted_urls()

    site.pages["/b"] = page("B")  # /x is now linked only with rel=nofollow
    _crawl(site, db, out)
    doc = _json(capsys, "diff", "--db", db, "--format", "json")
    changes = [(c["url"], c["change"], c["after"]) for c in doc["changes"]]  # type: ignore[union-attr, index]
    assert (x, "indexability", "not indexable: nofollow-only") in changes
    capsys.readouterr()
    assert main(["crawl", "--db", db, "--why", "/x"]) == 0
    assert "run 2: indexability" in capsys.readouterr().out
    assert main([*indexnow, "--dry-run"]) == 0
    assert f"removed {x}\n" in capsys.readouterr().out

    site.pages["/b"] = page("B", "/x")  # followed again: back in the sitemap
    _crawl(site, db, out)
    doc = _json(capsys, "diff", "--db", db, "--format", "json")
    changes = [(c["url"], c["change"], c["after"]) for c in doc["changes"]]  # type: ignore[union-attr, index]
    assert (x, "indexability", "indexable") in changes


def test_a_nofollow_only_page_no_page_links_any_more_is_unlinked(
    store_spec: str, site: ChangingSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = store_spec
    out = tmp_path / "out"
    site.pages["/b"] = page("B")  # /x: linked only with rel=nofollow
    _crawl(site, db, out)
    capsys.readouterr()
    assert main(["crawl", "--db", db, "--why", "/x"]) == 0
    assert "decision:   not in the sitemap: nofollow-only\n" in capsys.readouterr().out
    site.pages["/a"] = page("A")  # and now by no page at all
    _crawl(site, db, out)
    assert "nofollow-only" not in capsys.readouterr().out  # the crawl's summary
    assert main(["crawl", "--db", db, "--why", "/x"]) == 0
    why = capsys.readouterr().out
    assert "decision:   not in the sitemap: unlinked\n" in why
    assert "run 2: gone (no longer reached)" in why
