"""The ``FleetStore`` contract: what ``crawl --fleet`` and ``sitemapkit worker`` rely on.

Written against the protocol only (stores opened by
:func:`sitemapkit.store.registry.open_fleet_store`), so a store that gains host
leases joins by adding its spec maker to :data:`FLEET_IMPLEMENTATIONS` (SQLite and
PostgreSQL today).  Times are passed in, never read from a clock: a
lease's expiry is tested by asking at a later ``now``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from sitemapkit.store.base import FleetStore, NewUrl, Outcome, UrlState
from sitemapkit.store.registry import open_fleet_store
from sitemapkit.store.rows import HostRobots

FLEET_IMPLEMENTATIONS: dict[str, Callable[[pytest.FixtureRequest, Path], str]] = {
    "sqlite": lambda _request, tmp: str(tmp / "crawl.sqlite"),
    # a schema of its own on the session's real PostgreSQL server (tests/pgcluster.py)
    "postgresql": lambda request, _tmp: str(request.getfixturevalue("pg_spec")),
}
A, B = "http://a.example", "http://b.example"


@pytest.fixture(params=sorted(FLEET_IMPLEMENTATIONS))
def spec(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return FLEET_IMPLEMENTATIONS[request.param](request, tmp_path)


@pytest.fixture
def store(spec: str) -> Iterator[FleetStore]:
    opened = open_fleet_store(spec, mode="new")
    try:
        opened.add_urls(
            [
                NewUrl(A + "/2", 2, None),
                NewUrl(B + "/1", 1, None),
                NewUrl(A + "/1", 1, None),
                NewUrl(A + "/x", 1, None, UrlState.DONE, "out-of-scope"),
            ]
        )
        opened.commit()
        yield opened
    finally:
        opened.close()


def test_hosts_with_work_are_the_origins_of_queued_urls(store: FleetStore) -> None:
    assert store.hosts_with_work(10) == [A, B]
    assert store.hosts_with_work(1) == [A]
    w = store.join_fleet("here:1", 0.0, 10.0)
    store.lease_slots(w, B, 2, 1, 0.0)
    store.claim_host(w, B, 10)
    assert store.hosts_with_work(10) == [A]


def test_claims_come_from_one_host_shallowest_first(store: FleetStore) -> None:
    w = store.join_fleet("here:1", 0.0, 10.0)
    assert [c.url for c in store.claim_host(w, A, 10)] == [A + "/1", A + "/2"]
    assert store.claim_host(w, A, 10) == []
    assert [c.url for c in store.claim_host(w, B, 10)] == [B + "/1"]


def test_slots_are_shared_never_held_twice(store: FleetStore) -> None:
    w1 = store.join_fleet("here:1", 0.0, 10.0)
    w2 = store.join_fleet("there:2", 0.0, 10.0)
    assert store.lease_slots(w1, A, 3, 2, 0.0) == 2
    assert store.lease_slots(w2, A, 3, 2, 0.0) == 1  # only one left
    assert store.lease_slots(w1, A, 3, 1, 0.0) == 1  # gives one back
    assert store.lease_slots(w2, A, 3, 2, 0.0) == 2
    assert store.lease_slots(w1, A, 3, 0, 0.0) == 0
    assert store.lease_slots(w2, A, 3, 3, 0.0) == 3


def test_a_dead_workers_slots_and_claims_return_when_its_lease_expires(
    store: FleetStore,
) -> None:
    dead = store.join_fleet("gone:1", 0.0, 10.0)
    live = store.join_fleet("here:2", 0.0, 10.0)
    store.lease_slots(dead, A, 1, 1, 0.0)
    assert len(store.claim_host(dead, A, 10)) == 2
    assert store.lease_slots(live, A, 1, 1, 0.0) == 0
    assert store.heartbeat(live, 9.0, 10.0)  # live beats; dead does not
    assert store.reap_workers(5.0) == 0  # not expired yet
    assert store.live_workers(15.0) == 1
    assert store.reap_workers(15.0) == 2  # dead's two claims are queued again
    assert not store.heartbeat(dead, 15.0, 10.0)  # it learns it was reaped
    assert store.lease_slots(live, A, 1, 1, 15.0) == 1
    assert [c.url for c in store.claim_host(live, A, 10)] == [A + "/1", A + "/2"]


def test_leaving_returns_claims_and_slots_at_once(store: FleetStore) -> None:
    w = store.join_fleet("here:1", 0.0, 60.0)
    store.lease_slots(w, A, 2, 2, 0.0)
    store.claim_host(w, A, 1)
    assert store.leave_fleet(w) == 1
    assert store.live_workers(0.0) == 0
    other = store.join_fleet("there:2", 0.0, 60.0)
    assert store.lease_slots(other, A, 2, 2, 0.0) == 2
    assert store.queued() == 3


def test_robots_txt_is_fetched_by_one_worker_and_kept_for_all(store: FleetStore) -> None:
    w1 = store.join_fleet("here:1", 0.0, 10.0)
    w2 = store.join_fleet("there:2", 0.0, 10.0)
    assert store.host_robots(A) is None
    assert store.take_robots_fetch(w1, A, 1.0, 0.0)
    assert not store.take_robots_fetch(w2, A, 1.0, 0.0)  # w1 is on it
    robots = HostRobots(200, b"User-agent: *\nDisallow: /x\n", None, 2.0)
    store.set_host_robots(A, robots)
    assert store.host_robots(A) == robots
    assert not store.take_robots_fetch(w2, A, 3.0, 0.0)  # fetched: nothing to do
    assert store.take_robots_fetch(w2, A, 70.0, 10.0)  # older than asked: fetch again
    # A fetcher that dies leaves the fetch to the next worker.
    assert store.take_robots_fetch(w1, B, 1.0, 0.0)
    assert store.take_robots_fetch(w2, B, 20.0, 0.0)


def test_pace_starts_one_request_per_interval_for_the_fleet(store: FleetStore) -> None:
    assert store.pace(A, 100.0, 0.5) == 0.0
    assert store.pace(A, 100.2, 0.5) == pytest.approx(0.3)
    assert store.pace(B, 100.2, 0.5) == 0.0  # per host
    assert store.pace(A, 100.5, 0.5) == 0.0
    assert store.pace(A, 100.6, 0.5) == pytest.approx(0.4)


def test_trap_counters_are_shared(store: FleetStore) -> None:
    keys = [("pattern", "a.example/calendar/{year}/{n}"), ("facet", "a.example/shop")]
    assert store.trap_counts(keys) == [0, 0]
    store.count_traps(keys)
    store.count_traps(keys[:1])
    store.commit()
    assert store.trap_counts(keys) == [2, 1]


def test_a_pages_new_urls_are_judged_with_one_read_of_the_shared_counters(
    store: FleetStore,
) -> None:
    """The fleet's trap guard reads every counter a page's new URLs need in one query
    (on PostgreSQL each read was a round trip made with the write turn held), and it
    judges them exactly as a guard with its own counters does."""
    from sitemapkit.crawl.fleet import SharedTrapGuard
    from sitemapkit.crawl.traps import TrapGuard

    urls = [f"{A}/calendar/{2000 + i}/1" for i in range(20)]
    urls += [f"{A}/p?a={i}&b=1" for i in range(3)] + [f"{A}/plain/{i}" for i in range(3)]
    reads: list[int] = []
    real = store.trap_counts

    def counted(keys: Sequence[tuple[str, str]]) -> list[int]:
        reads.append(len(keys))
        return real(keys)

    store.trap_counts = counted  # type: ignore[method-assign]
    shared = SharedTrapGuard(store)
    store.lookup([urls[0]])  # the engine's lookup starts the page's write turn
    with shared.judging(urls):
        judged = [shared.check(url, 1) for url in urls]
    store.commit()
    alone = TrapGuard()
    assert judged == [alone.check(url, 1) for url in urls]
    assert judged.count("trap-pattern") == 20 - 12  # the calendar stopped after 12
    assert len(reads) == 1
    assert reads[0] >= 3  # the calendar's, the facet path's and the plain pattern's
    store.lookup([urls[0]])
    with shared.judging(urls[:1]):  # the counts were stored: a later page sees them
        assert shared.check(f"{A}/calendar/1999/1", 1) == "trap-pattern"
    store.commit()


def test_a_step_that_meets_a_new_url_holds_the_turn_until_its_commit(store: FleetStore) -> None:
    """What the others wait for is committed at once (crawl/fleet.py ``_checkpoint``)."""
    assert not store.holds_turn()
    assert store.lookup([A + "/new"]) == {}
    assert store.holds_turn()
    store.commit()
    assert not store.holds_turn()


def test_the_cap_holds_for_the_fleets_claims_and_given_back_claims_are_taken_once(
    spec: str, store: FleetStore
) -> None:
    """``--max-pages`` is counted in the claim: two workers (two connections) never take
    more than the cap between them, and claims given back are counted off again."""
    store.add_urls([NewUrl(f"{A}/{n}", 3, None) for n in range(3, 9)])  # A: 8 queued, B: 1
    store.restart_taken()
    store.commit()
    other = open_fleet_store(spec)
    try:
        w1 = store.join_fleet("here:1", 0.0, 10.0)
        w2 = other.join_fleet("there:2", 0.0, 10.0)
        assert len(store.claim_host(w1, A, 3, cap=5)) == 3
        assert len(other.claim_host(w2, A, 3, cap=5)) == 2  # the cap, not the 3 asked for
        assert other.claim_host(w2, B, 3, cap=5) == []
        assert (store.taken(), other.taken()) == (5, 5)
        assert other.leave_fleet(w2) == 2  # never started: back in the queue, off the count
        assert store.taken() == 3
        assert [c.url for c in store.claim_host(w1, A, 5, cap=5)] == [A + "/4", A + "/5"]
        assert store.taken() == 5
        store.restart_taken()  # a resumed crawl counts from zero
        store.commit()
        assert other.taken() == 0
        assert len(store.claim_host(w1, A, 10)) == 3  # no cap: not counted
        assert store.taken() == 0
    finally:
        other.close()


def test_a_reaped_workers_claims_come_off_the_count(store: FleetStore) -> None:
    dead = store.join_fleet("gone:1", 0.0, 10.0)
    assert len(store.claim_host(dead, A, 10, cap=10)) == 2
    assert store.taken() == 2
    assert store.reap_workers(15.0) == 2
    assert store.taken() == 0


def test_one_level_claims_wait_for_the_whole_fleets_level(store: FleetStore) -> None:
    """``--max-depth``: ``A/2`` waits while any worker holds a depth-1 URL of any host."""
    w1 = store.join_fleet("here:1", 0.0, 10.0)
    w2 = store.join_fleet("there:2", 0.0, 10.0)
    assert [c.url for c in store.claim_host(w1, A, 10, one_level=True)] == [A + "/1"]
    assert [c.url for c in store.claim_host(w2, B, 10, one_level=True)] == [B + "/1"]
    store.commit()
    assert store.claim_host(w1, A, 10, one_level=True) == []
    ids = {url: hit[0] for url, hit in store.lookup([A + "/1", B + "/1"]).items()}
    store.finish(ids[A + "/1"], Outcome(status=200))
    store.commit()
    assert store.claim_host(w1, A, 10, one_level=True) == []  # B/1 is still claimed
    store.finish(ids[B + "/1"], Outcome(status=200))
    store.commit()
    assert [c.url for c in store.claim_host(w1, A, 10, one_level=True)] == [A + "/2"]
