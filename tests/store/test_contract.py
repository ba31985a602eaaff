"""The ``CrawlStore`` contract, run against every store implementation.

Each test opens stores only through :func:`sitemapkit.store.open_store` and
uses only the protocol, so a new store joins by adding one entry to
:data:`IMPLEMENTATIONS`: a function that returns the spec of a fresh, empty
store (a path for SQLite; for PostgreSQL, the URL of a throwaway database on a
test cluster).  What is pinned here is what the crawler, ``--resume``,
``--why``, ``inventory`` and the visual map rely on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sitemapkit.errors import StoreBusyError, StoreError
from sitemapkit.model import Alternate
from sitemapkit.store import is_crawl_db, iter_page_records, open_audit_store, open_store
from sitemapkit.store.base import (
    AuditStore,
    CrawlStore,
    Fate,
    LinkRow,
    NewUrl,
    Outcome,
    Thumbnail,
    UrlState,
)
from sitemapkit.store.rows import AuditRow, ListedRow

#: name -> makes the spec of a fresh, empty store (given the test's request and tmp_path)
IMPLEMENTATIONS: dict[str, Callable[[pytest.FixtureRequest, Path], str]] = {
    "sqlite": lambda _request, tmp: str(tmp / "crawl.sqlite"),
    # a schema of its own on the session's real PostgreSQL server (tests/pgcluster.py)
    "postgresql": lambda request, _tmp: str(request.getfixturevalue("pg_spec")),
}


@pytest.fixture(params=sorted(IMPLEMENTATIONS))
def spec(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return IMPLEMENTATIONS[request.param](request, tmp_path)


@pytest.fixture
def store(spec: str) -> Iterator[CrawlStore]:
    opened = open_store(spec)
    try:
        yield opened
    finally:
        opened.close()


# -- frontier ------------------------------------------------------------------------


def test_frontier_is_shallowest_first_deduplicated_and_claimed_once(store: CrawlStore) -> None:
    added = store.add_urls(
        [
            NewUrl("http://a/2", 2, None),
            NewUrl("http://a/1", 1, None),
            NewUrl("http://a/0", 0, None),
        ]
    )
    assert {u: s for u, (_, s) in added.items()} == dict.fromkeys(added, UrlState.QUEUED)
    assert store.add_urls([NewUrl("http://a/1", 5, None)])["http://a/1"] == added["http://a/1"]
    assert [c.url for c in store.claim(2)] == ["http://a/0", "http://a/1"]
    (last,) = store.claim(10)
    assert (last.url, last.depth) == ("http://a/2", 2)
    assert store.claim(10) == []
    assert list(store.lookup(["http://a/0", "http://a/x"])) == ["http://a/0"]
    assert store.fate(added["http://a/0"][0]) == Fate(UrlState.CLAIMED, None, None)
    assert store.release_claims() == 3
    assert len(store.claim(10)) == 3


def test_one_level_claims_take_one_depth_at_a_time(store: CrawlStore) -> None:
    """``--max-depth``: nothing deeper while a shallower URL is claimed, and a claim with
    nothing in flight takes only the shallowest depth queued (URLs given back by a
    resume or a reaped worker wait with deeper ones)."""
    added = store.add_urls([NewUrl(f"http://a/{d}-{i}", d, None) for d in (3, 4) for i in (1, 2)])
    first = store.claim(1, one_level=True)
    assert [c.depth for c in first] == [3]
    assert [c.url for c in store.claim(10, one_level=True)] == ["http://a/3-2"]
    assert store.claim(10, one_level=True) == []
    assert [c.depth for c in store.claim(10)] == [4, 4]  # without the rule: the next level
    assert store.release_claims() == 4
    assert {c.depth for c in store.claim(10, one_level=True)} == {3}
    store.finish(added["http://a/3-1"][0], Outcome(status=200))
    assert store.claim(10, one_level=True) == []  # 3-2 is still claimed
    store.finish(added["http://a/3-2"][0], Outcome(status=200))
    assert {c.depth for c in store.claim(10, one_level=True)} == {4}


def test_held_urls_wait_for_a_followed_link(store: CrawlStore) -> None:
    added = store.add_urls([NewUrl("http://a/nf", 1, None, UrlState.HELD, "nofollow-only")])
    url_id, state = added["http://a/nf"]
    assert state == UrlState.HELD
    assert store.claim(5) == []
    store.requeue([(url_id, 3)])
    (claimed,) = store.claim(5)
    assert (claimed.id, claimed.url, claimed.depth) == (url_id, "http://a/nf", 3)


def test_a_redirect_target_is_claimed_only_once(store: CrawlStore) -> None:
    first = store.claim_url("http://a/r", 1, None)
    assert first is not None
    assert store.claim_url("http://a/r", 1, None) is None
    assert store.fate(first.id) == Fate(UrlState.CLAIMED, None, None)


def test_a_redirect_chain_is_taken_up_again_from_the_store(spec: str) -> None:
    """What a crawl killed between two hops leaves is enough to go on with the chain."""
    store = open_store(spec)
    try:
        store.start_run(1.0)
        store.add_urls([NewUrl("http://a/r0", 1, None)])
        (start,) = store.claim(1)
        hops = [start]
        for n in range(1, 4):
            hop = store.claim_url(f"http://a/r{n}", 1, hops[-1].id, f"http://a/R{n}")
            assert hop is not None
            store.add_chain_hop(hop.id, start.id, n)
            hops.append(hop)
        assert store.chain_before(start.id) == []  # the chain's start came from the queue
        store.commit()
    finally:
        store.close()  # as a killed crawl leaves it: the last hop claimed, with its chain
    store = open_store(spec, mode="resume")
    try:
        store.release_claims()
        ahead = store.chain_before(hops[3].id)
        assert [(c.id, c.url, c.spelling) for c in ahead] == [
            (c.id, c.url, c.spelling) for c in hops[:3]
        ]
        assert [c.url for c in store.chain_before(hops[1].id)] == ["http://a/r0"]
        store.start_run(2.0)  # a new run follows its chains afresh
        assert store.chain_before(hops[3].id) == []
    finally:
        store.close()


def test_counts_track_the_states(store: CrawlStore) -> None:
    store.add_urls([NewUrl(f"http://a/{i}", 1, None) for i in range(5)])
    store.add_urls([NewUrl("http://a/held", 1, None, UrlState.HELD, "nofollow-only")])
    one, two = store.claim(2)
    store.finish(one.id, Outcome(status=200, indexable=True, fetched_at=1.0))
    store.finish(two.id, Outcome(status=503, reason="http-503", fetched_at=1.0))
    counts = store.counts()
    expected = {"queued": 3, "claimed": 0, "done": 2, "held": 1}
    assert {k: counts[k] for k in expected} == expected
    assert (counts["fetched"], counts["indexable"], counts["errors"]) == (2, 1, 1)
    assert counts["seen"] == 6 == len(list(store.page_records()))
    assert store.queued() == 3


def test_fetched_pages_by_time_for_the_live_map(store: CrawlStore) -> None:
    """The app's live map: ids by fetch time, counts since a run start, records by id."""
    store.add_urls([NewUrl(f"http://a/{i}", 1, None) for i in range(4)])
    a, b, c, _ = store.claim(4)
    store.finish(a.id, Outcome(status=200, indexable=True, title="A", fetched_at=3.0))
    store.finish(b.id, Outcome(status=404, reason="http-404", fetched_at=1.0))
    store.finish(c.id, Outcome(status=200, indexable=True, title="C", fetched_at=2.0))
    store.commit()
    assert store.fetched_ids(0.0) == [(b.id, 1.0), (c.id, 2.0), (a.id, 3.0)]
    assert store.fetched_ids(2.0) == [(a.id, 3.0)]
    assert (store.fetched_count(2.0), store.fetched_count(0.0), store.fetched_count(9.0)) == (
        2,
        3,
        0,
    )
    records = store.records_by_id([a.id, 10**9, b.id])
    assert [(r.url, r.title, r.reason) for r in records] == [
        ("http://a/0", "A", None),
        ("http://a/1", None, "http-404"),
    ]


def test_page_urls_are_page_records_urls_and_scope(store: CrawlStore) -> None:
    """The map's first screen: ids, URLs and the out-of-scope verdict, as page_records says."""
    added = store.add_urls([NewUrl(f"http://a/{i}", 1, None) for i in range(3)])
    store.add_urls([NewUrl("http://b/x", 1, None, UrlState.HELD, "out-of-scope")])
    store.decide(added["http://a/2"][0], "out-of-scope", None)  # decided: counts
    (one,) = store.claim(1)
    store.finish(one.id, Outcome(status=200, indexable=True, fetched_at=1.0))
    store.commit()
    got = list(store.page_urls())
    records = list(store.page_records())
    assert [u for _, u, _ in got] == [r.url for r in records]
    assert [o for _, _, o in got] == [r.reason == "out-of-scope" for r in records]
    assert [o for _, _, o in got] == [False, False, True, True]
    assert [r.url for r in store.records_by_id([i for i, _, _ in got])] == [r.url for r in records]


# -- results -------------------------------------------------------------------------


def test_outcomes_fates_and_decisions(store: CrawlStore) -> None:
    home, page, _waiting = _ids_after_add(store, "http://a/", "http://a/p", "http://a/w")
    assert store.fate(home) == Fate(UrlState.QUEUED, None, None)
    store.finish(home, Outcome(status=200, indexable=True))
    store.finish(page, Outcome(status=301, reason="redirect", redirect_to="http://a/x"))
    # a decision keeps what was fetched (the status) and takes the page out of the sitemap
    store.decide(page, "redirect-loop", "http://a/p -> http://a/x -> http://a/p")
    assert store.fate(home) == Fate(UrlState.DONE, 200, None)
    assert store.fate(page) == Fate(UrlState.DONE, 301, "redirect-loop")
    assert store.fate(10**9) is None
    assert store.reasons() == {"redirect-loop": 1, "not-crawled": 1}
    assert store.explain("http://a/p").detail == "http://a/p -> http://a/x -> http://a/p"  # type: ignore[union-attr]


def _ids_after_add(store: CrawlStore, *urls: str) -> list[int]:
    added = store.add_urls([NewUrl(u, 0 if i == 0 else 1, None) for i, u in enumerate(urls)])
    return [added[u][0] for u in urls]


def test_records_sitemap_rows_and_explanations(store: CrawlStore, spec: str) -> None:
    home, old, new = _ids_after_add(store, "http://a/", "http://a/old", "http://a/new")
    store.finish(
        home,
        Outcome(
            status=200,
            indexable=True,
            title="Home",
            outlinks=2,
            alternates=(Alternate("de", "http://a/de"),),
            images=("http://a/i.png",),
        ),
    )
    store.add_links(home, [LinkRow(old, False, "a"), LinkRow(new, True, "a")])
    store.finish(old, Outcome(status=301, reason="redirect", redirect_to="http://a/new"))
    store.add_redirect(old, 1, "http://a/new", 301)
    store.add_links(old, [LinkRow(new, False, "redirect")])
    store.finish(new, Outcome(status=200, indexable=True, lastmod="2024-01-01"))
    store.commit()
    rows = [(r.url, r.lastmod, r.alternates, r.images) for r in store.sitemap_rows()]
    assert rows == [
        ("http://a/", None, (Alternate("de", "http://a/de"),), ("http://a/i.png",)),
        ("http://a/new", "2024-01-01", (), ()),
    ]
    records = {r.url: r for r in store.page_records()}
    assert list(records) == ["http://a/", "http://a/old", "http://a/new"]
    assert records["http://a/new"].inlinks == 2
    assert (records["http://a/old"].reason, records["http://a/"].title) == ("redirect", "Home")
    info = store.explain("http://a/old")
    assert info is not None
    assert info.redirect_chain == (("http://a/old", 301), ("http://a/new", 200))
    assert store.explain("http://a/never") is None
    # the same answers through a read-only open, while the writer still holds the store
    assert [r.url for r in iter_page_records(spec)] == list(records)


def test_records_name_the_page_each_url_was_found_on(store: CrawlStore) -> None:
    home = store.add_urls([NewUrl("http://a/", 0, None)])["http://a/"][0]
    store.add_urls([NewUrl("http://a/x", 1, home)])
    records = {r.url: r for r in store.page_records()}
    assert records["http://a/x"].extra["found_from"] == "http://a/"
    assert "found_from" not in records["http://a/"].extra
    assert (records["http://a/x"].reason, records["http://a/x"].indexable) == (
        "not-crawled",
        False,
    )


def test_thumbnails_are_kept_with_their_page_and_replaced_by_a_new_fetch(spec: str) -> None:
    store = open_store(spec)
    try:
        home, other, plain = _ids_after_add(store, "http://a/", "http://a/b", "http://a/c")
        store.set_meta("start_url", "http://a/")
        store.start_run(1.0)
        jpeg = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 4  # any bytes, NULs included
        store.finish(
            home, Outcome(status=200, indexable=True, thumbnail=Thumbnail("image/jpeg", jpeg))
        )
        store.finish(
            other, Outcome(status=200, indexable=True, thumbnail=Thumbnail("image/webp", b"RIFF"))
        )
        store.finish(plain, Outcome(status=200, indexable=True))
        store.end_run("finished", 2.0)
        store.commit()
        assert dict(store.thumbnails()) == {
            "http://a/": Thumbnail("image/jpeg", jpeg),
            "http://a/b": Thumbnail("image/webp", b"RIFF"),
        }
    finally:
        store.close()
    reader = open_store(spec, mode="read")
    try:
        assert [u for u, _ in reader.thumbnails()] == ["http://a/", "http://a/b"]
    finally:
        reader.close()
    # a new run that fetches a page again replaces what its last fetch stored
    store = open_store(spec)
    try:
        store.start_run(3.0)
        store.finish(other, Outcome(status=200, indexable=True))
        store.commit()
        assert [u for u, _ in store.thumbnails()] == ["http://a/"]
    finally:
        store.close()


# -- durability ----------------------------------------------------------------------


def test_meta_and_batches_survive_a_reopen(spec: str) -> None:
    store = open_store(spec)
    store.set_meta("start_url", "http://a/")
    store.set_meta("start_url", "http://b/")
    store.add_urls([NewUrl("http://b/", 0, None)])
    store.close()
    again = open_store(spec, mode="resume")
    try:
        assert again.get_meta("start_url") == "http://b/"
        assert again.meta() == {"start_url": "http://b/"}
        assert again.get_meta("missing") is None
        assert list(again.lookup(["http://b/"])) == ["http://b/"]
    finally:
        again.close()


def test_rollback_drops_the_whole_batch_and_nothing_before_it(spec: str) -> None:
    store = open_store(spec)
    store.add_urls([NewUrl("http://a/kept", 0, None)])
    store.commit()
    store.set_meta("scope_origins", "http://b")
    store.add_urls([NewUrl("http://b/lost", 1, None)])
    store.rollback()
    assert store.lookup(["http://b/lost"]) == {}
    assert store.get_meta("scope_origins") is None
    store.close()
    reader = open_store(spec, mode="read")
    try:
        assert [r.url for r in reader.page_records()] == ["http://a/kept"]
    finally:
        reader.close()


# -- opening and locking -------------------------------------------------------------


def test_a_second_writer_is_refused_and_touches_nothing(store: CrawlStore, spec: str) -> None:
    store.add_urls([NewUrl("http://a/", 0, None)])
    store.commit()
    for mode in ("open", "resume", "new", "replace"):
        with pytest.raises(StoreBusyError, match="in use by another sitemapkit process"):
            open_store(spec, mode=mode)  # type: ignore[arg-type]
    assert store.lookup(["http://a/"])
    reader = open_store(spec, mode="read")  # readers need no lock
    reader.close()


def test_the_lock_is_released_on_close(spec: str) -> None:
    open_store(spec).close()
    open_store(spec).close()
    assert is_crawl_db(spec)


def test_modes_check_what_is_there(spec: str) -> None:
    with pytest.raises(StoreError):
        open_store(spec, mode="read")
    with pytest.raises(StoreError, match="not a crawl database to resume"):
        open_store(spec, mode="resume")
    assert not is_crawl_db(spec)
    first = open_store(spec, mode="new")
    first.set_meta("start_url", "http://a/")
    first.close()
    with pytest.raises(StoreError, match="already exists"):
        open_store(spec, mode="new")
    fresh = open_store(spec, mode="replace")
    try:
        assert fresh.meta() == {}
    finally:
        fresh.close()


def test_unknown_specs_are_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="not a kind of crawl store"):
        open_store("mongodb://db.example/crawl")
    assert not is_crawl_db("postgresql://db.example/crawl")
    path = tmp_path / "x.sqlite"
    open_store(f"sqlite://{path}").close()
    assert is_crawl_db(path)


# -- change records (issue 12) -----------------------------------------------------------


def _crawl_run(store: CrawlStore, pages: dict[str, str], *, end: str = "finished") -> int:
    """One run that reaches ``pages`` (URL -> title), all 200 and indexable."""
    run = store.start_run(1_700_000_000.0)
    store.add_urls([NewUrl(url, 0, None) for url in pages])
    while batch := store.claim(500):
        for claimed in batch:
            title = pages[claimed.url]
            outcome = Outcome(status=200, title=title, indexable=True, fingerprint="f-" + title)
            store.finish(claimed.id, outcome)
    store.end_run(end, 1_700_000_100.0)
    store.commit()
    return run


def test_change_records_compare_any_two_runs(store: CrawlStore) -> None:
    first = _crawl_run(store, {"http://a/": "Home", "http://a/x": "X", "http://a/y": "Y"})
    second = _crawl_run(store, {"http://a/": "Home", "http://a/x": "X", "http://a/y": "Y"})
    third = _crawl_run(store, {"http://a/": "Home", "http://a/x": "X2", "http://a/z": "Z"})
    assert list(store.changes_between(first, second)) == []  # nothing changed: no record
    changes = {url: (a, b) for url, a, b in store.changes_between(second, third)}
    assert set(changes) == {"http://a/x", "http://a/y", "http://a/z"}
    x_before, x_after = changes["http://a/x"]
    assert x_before is not None
    assert x_after is not None
    assert (x_before.title, x_before.run, x_after.title, x_after.run) == ("X", first, "X2", third)
    y_before, y_after = changes["http://a/y"]
    assert y_before is not None
    assert y_after is not None
    assert (y_before.gone, y_after.gone, y_after.reason) == (False, True, "unlinked")
    assert changes["http://a/z"][0] is None
    # run 1 to run 3 is the same comparison; facts_at gives each run's state, URL-sorted
    assert {u for u, _a, _b in store.changes_between(first, third)} == set(changes)
    assert [f.url for f in store.facts_at(third)] == ["http://a/", "http://a/x", "http://a/z"]
    assert [f.title for f in store.facts_at(second)] == ["Home", "X", "Y"]
    assert [(f.run, f.title, f.gone) for f in store.url_history("http://a/y")] == [
        (first, "Y", False),
        (third, "Y", True),
    ]
    assert store.url_history("http://a/never") == []


def test_runs_their_figures_and_the_notes_pages_carry(store: CrawlStore) -> None:
    from sitemapkit.store.base import RunFigures

    assert (store.runs(), store.run_started(), store.note_counts()) == ([], None, {})
    first = _crawl_run(store, {"http://a/": "Home"})
    second = store.start_run(1_700_000_500.0)
    ids = store.add_urls([NewUrl(f"http://a/{n}", 1, None) for n in (1, 2)])
    notes = (("links-capped", "500 links kept of 900"),)
    for url in ("http://a/2", "http://a/1"):
        store.finish(ids[url][0], Outcome(status=200, indexable=True, notes=notes))
    store.add_figures(RunFigures(pages=2, bytes=300))
    store.end_run("stopped:max-pages", 1_700_000_600.0)
    store.commit()
    assert store.run_started() == 1_700_000_500.0
    (one, two) = store.runs()
    assert (one.id, one.state, one.started_at, one.ended_at) == (
        first,
        "finished",
        1_700_000_000.0,
        1_700_000_100.0,
    )
    assert (two.id, two.state, two.pages, two.bytes, two.not_modified, two.tracked) == (
        second,
        "stopped:max-pages",
        2,
        300,
        0,
        True,
    )
    assert store.note_counts() == {"links-capped": (2, "http://a/1")}
    assert list(store.noted("links-capped")) == [
        ("http://a/2", "500 links kept of 900"),
        ("http://a/1", "500 links kept of 900"),
    ]


def test_a_runs_figures_are_its_sessions_each_written_with_its_commit(spec: str) -> None:
    """Each process adds its own figures with the commit that stores its pages: a process
    that ends before the run (or dies) keeps its part; one that never closed is counted."""
    from sitemapkit.store.base import RunFigures

    first = open_store(spec, mode="new")
    try:
        first.start_run(1_700_000_000.0)
        first.add_figures(RunFigures(pages=2, not_modified=1, bytes=100))
        first.commit()
        first.add_figures(RunFigures(pages=5))
        first.rollback()  # figures go with the batch they came in
        first.add_figures(RunFigures(pages=1, bytes=10))
        first.end_session()
        first.commit()
    finally:
        first.close()
    second = open_store(spec)
    try:
        second.add_figures(RunFigures(pages=3, bytes=30))
        second.commit()
    finally:
        second.close()  # as a killed process leaves it: never said it ended
    third = open_store(spec)
    try:
        (run,) = third.runs()
        assert (run.state, run.pages, run.not_modified, run.bytes) == ("running", 6, 1, 140)
        assert run.unended == 1
        third.end_run("finished", 1_700_000_100.0)
        third.commit()
        (run,) = third.runs()
        assert (run.state, run.pages, run.unended) == ("finished", 6, 1)
    finally:
        third.close()


def test_two_history_streams_read_side_by_side(store: CrawlStore) -> None:
    """``diff`` walks two runs' facts at once (merge by URL): two open streams, one store."""
    pages = {f"http://a/{n:04d}": f"T{n}" for n in range(2500)}  # more than a batch
    first = _crawl_run(store, pages)
    second = _crawl_run(store, {**pages, "http://a/0001": "changed"})
    pairs = list(zip(store.facts_at(first), store.facts_at(second), strict=True))
    assert len(pairs) == len(pages)
    assert [(a.url, b.title) for a, b in pairs if a.title != b.title] == [
        ("http://a/0001", "changed")
    ]
    assert [(u, b.title) for u, _a, b in store.changes_between(first, second) if b] == [
        ("http://a/0001", "changed")
    ]


def test_a_resumed_run_updates_its_own_change_records(store: CrawlStore) -> None:
    _crawl_run(store, {"http://a/": "Home"})
    run = _crawl_run(store, {"http://a/": "Home 2"}, end="interrupted")
    assert store.claim_url("http://a/", 0, None) is None  # decided in this run already
    url_id = store.lookup(["http://a/"])["http://a/"][0]
    store.finish(url_id, Outcome(status=200, title="Home 3", indexable=True, fingerprint="f3"))
    store.end_run("finished", 1_700_000_200.0)
    store.commit()
    [(_url, before, after)] = list(store.changes_between(run - 1, run))
    assert before is not None
    assert after is not None
    assert (before.title, after.title, after.run) == ("Home", "Home 3", run)


# -- IndexNow submission log -----------------------------------------------------------


def test_indexnow_log_sends_each_version_once_and_keeps_failed_batches(spec: str) -> None:
    from sitemapkit.store.rows import SubmissionRow

    store = open_store(spec)
    try:
        store.start_run(1.0)
        ids = store.add_urls([NewUrl(f"http://a/{n}", 1, None) for n in range(3)])
        store.claim(3)
        for n in range(3):
            out = Outcome(status=200, indexable=n < 2, fingerprint=f"f{n}")
            store.finish(ids[f"http://a/{n}"][0], out)
        store.end_run("finished", 2.0)
        pending = store.indexnow_pending(0, 10)
        assert [(c.url, c.change, c.version) for c in pending] == [
            ("http://a/0", "added", "f0"),
            ("http://a/1", "added", "f1"),
        ]
        assert store.indexnow_pending(pending[0].url_id, 10) == pending[1:]
        assert store.indexnow_pending(0, 1) == pending[:1]
        failed = SubmissionRow(3.0, "http://e/", "a", 2, 500, False, "500 server error")
        store.record_submission(failed, pending)
        assert store.indexnow_pending(0, 10) == pending  # a refused batch stays pending
        store.record_submission(SubmissionRow(4.0, "http://e/", "a", 2, 200, True, "ok"), pending)
        assert store.indexnow_pending(0, 10) == []
        assert [(s.status, s.accepted) for s in store.submissions()] == [(500, False), (200, True)]
        # A new run: /0 changes, /1 leaves the sitemap, /2 joins it.
        store.start_run(5.0)
        store.add_urls([NewUrl(f"http://a/{n}", 1, None) for n in range(3)])
        store.claim(3)
        for n, (indexable, fp) in enumerate([(True, "g0"), (False, "f1"), (True, "f2")]):
            out = Outcome(status=200, indexable=indexable, fingerprint=fp)
            store.finish(ids[f"http://a/{n}"][0], out)
        store.end_run("finished", 6.0)
        assert [(c.url, c.change) for c in store.indexnow_pending(0, 10)] == [
            ("http://a/0", "changed"),
            ("http://a/1", "removed"),
            ("http://a/2", "added"),
        ]
    finally:
        store.close()


# -- audit tables --------------------------------------------------------------------


def _audited_crawl(store: AuditStore) -> dict[str, int]:
    """A small crawl the audit reads: a home page, a linked page, a redirect, a held URL."""
    ids = _ids_after_add(store, "http://a/", "http://a/p", "http://a/r", "http://a/q")
    home, page, moved, orphan = ids
    store.add_urls([NewUrl("http://a/held", 1, None, UrlState.HELD, "nofollow-only")])
    store.finish(home, Outcome(status=200, indexable=True, content_type="text/html"))
    store.finish(
        page,
        Outcome(
            status=200,
            indexable=True,
            canonical="http://a/p",
            lastmod="2024-01-02",
            lastmod_source="header",
        ),
    )
    store.finish(moved, Outcome(status=301, reason="redirect", redirect_to="http://a/p"))
    store.add_redirect(moved, 1, "http://a/p", 301)
    store.finish(orphan, Outcome(status=200, indexable=True))
    # /p: linked by home and by /r (a followable a), by itself and nofollow (not counted)
    store.add_links(home, [LinkRow(page, False, "a"), LinkRow(orphan, False, "area")])
    store.add_links(moved, [LinkRow(page, False, "a"), LinkRow(page, False, "canonical")])
    store.add_links(page, [LinkRow(page, False, "a"), LinkRow(orphan, True, "a")])
    store.commit()
    return {"home": home, "page": page, "moved": moved, "orphan": orphan}


def test_audit_reads_join_the_listed_urls_with_the_crawl(spec: str) -> None:
    store = open_audit_store(spec)
    try:
        ids = _audited_crawl(store)
        store.add_listed(
            [
                ListedRow("http://a/", "http://a/", "s.xml", 3),
                ListedRow("http://a/p", "http://a/p", "s.xml", 4, "2024-01-01"),
                ListedRow("http://a/de", "http://a/de", "s.xml", 5, None, "alternate", "http://a/"),
                ListedRow("http://a/r", "http://a/r", "s.xml", 6),
                ListedRow("http://a/held", "http://a/held", "s.xml", None),
                ListedRow("http://a/p", "http://a/p?", "t.xml", 9),
            ]
        )
        store.commit()
        assert sorted(store.listed_unknown(10)) == ["http://a/de", "http://a/held"]
        assert len(store.listed_unknown(1)) == 1
        facts = list(store.listed_facts())
        assert [(f.listed.key, f.listed.sitemap, f.listed.line) for f in facts] == [
            ("http://a/", "s.xml", 3),
            ("http://a/p", "s.xml", 4),
            ("http://a/de", "s.xml", 5),
            ("http://a/r", "s.xml", 6),
            ("http://a/held", "s.xml", None),
            ("http://a/p", "t.xml", 9),
        ]
        home, page, alternate, moved, held, _again = facts
        assert (home.url_id, home.state, home.status, home.content_type) == (
            ids["home"],
            UrlState.DONE,
            200,
            "text/html",
        )
        assert (home.indexable, home.inlinks) == (True, 0)
        assert (page.listed.lastmod, page.page_lastmod, page.page_lastmod_source) == (
            "2024-01-01",
            "2024-01-02",
            "header",
        )
        assert (page.canonical, page.inlinks) == ("http://a/p", 2)
        assert (alternate.listed.kind, alternate.listed.parent, alternate.url_id) == (
            "alternate",
            "http://a/",
            None,
        )
        assert (alternate.state, alternate.indexable, alternate.inlinks) == (None, False, 0)
        assert (moved.reason, moved.redirect_to, moved.indexable) == (
            "redirect",
            "http://a/p",
            False,
        )
        assert (held.state, held.status) == (UrlState.HELD, None)
        assert store.redirect_hops(ids["moved"]) == [("http://a/p", 301)]
        assert store.redirect_hops(ids["home"]) == []
        assert list(store.listed_duplicates()) == [("http://a/p", [("s.xml", 4), ("t.xml", 9)])]
        # /q is indexable and linked (an area from home) but listed nowhere
        assert list(store.unlisted_indexable()) == [("http://a/q", 1)]
    finally:
        store.close()


def test_audit_findings_are_counted_by_weight_and_read_back_in_order(spec: str) -> None:
    store = open_audit_store(spec)
    try:
        store.add_findings(
            [
                AuditRow("listed-error", "error", "http://a/x", "s.xml", 4, "404"),
                AuditRow("unlisted", "warning", "http://a/y", None, None, "3 links"),
                AuditRow("listed-error", "error", None, "s.xml", None, "and 5 more", 5),
            ]
        )
        store.commit()
        assert store.finding_counts() == {"listed-error": 6, "unlisted": 1}
        rows = list(store.findings())
        assert [(r.code, r.url, r.line, r.evidence) for r in rows] == [
            ("listed-error", "http://a/x", 4, "404"),
            ("unlisted", "http://a/y", None, "3 links"),
            ("listed-error", None, None, "and 5 more"),
        ]
        assert [r.evidence for r in store.findings("listed-error")] == ["404", "and 5 more"]
        assert [r.evidence for r in store.findings("listed-error", limit=1)] == ["404"]
        assert [r.code for r in store.findings(limit=2)] == ["listed-error", "unlisted"]
        store.add_listed([ListedRow("http://a/", "http://a/", "s.xml", 1)])
        store.clear_audit()
        store.commit()
        assert (store.finding_counts(), list(store.listed_facts())) == ({}, [])
    finally:
        store.close()
