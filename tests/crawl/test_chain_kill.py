"""A crawl killed with SIGKILL in the middle of a redirect chain ends as an unkilled one does.

Issue 13: "a worker killed with SIGKILL ... the crawl finishes with the same sitemap
as an uninterrupted single-process crawl".  A chain is judged as a whole (more than
ten redirects: every hop ``redirect-chain``; back to a hop: every hop
``redirect-loop``), but its hops are recorded one by one, so a crawl that dies
between two hops must take the chain up again where it was, not start a new one
at the hop it was waiting for.  The kill point is exact: the site holds one hop's
answer (:class:`crawl.chain_site.ChainSite`) until the crawler waiting for it has
committed that wait and been killed.  Then the whole inventory (URL -> reason, with
its detail and the redirect hops recorded from it) of the resumed crawl, or of the
fleet that lost a worker, is compared with an uninterrupted single-process crawl of
the same site; on SQLite and on a real PostgreSQL server (tests/pgcluster.py).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from crawl.chain_site import ChainSite, serve_chains
from crawl.test_fleet import PATIENCE, finish, key, sitemapkit
from sitemapkit.store import iter_page_records, open_audit_store

#: Options of every crawl here: the parse processes of ``--workers`` are not the subject.
CRAWL = ("--no-map", "--workers", "1")

#: A URL's fate: its reason (None: in the sitemap), the reason's detail, and the redirect
#: hops recorded from it (a chain's hops are recorded under the URL it started from).
Fate = tuple[str | None, str | None, tuple[tuple[str, int], ...]]


@pytest.fixture(scope="module")
def site() -> Iterator[ChainSite]:
    with serve_chains() as served:
        yield served


@pytest.fixture(scope="module")
def alone(site: ChainSite, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Fate]:
    """The inventory of one uninterrupted single-process crawl: what every other must equal."""
    out = tmp_path_factory.mktemp("alone")
    code, _, err = finish(sitemapkit("crawl", site.base, "-o", str(out), *CRAWL))
    assert code == 0, err
    got = inventory(str(out / "crawl.sqlite"))
    base = site.base
    reason = {url: fate[0] for url, fate in got.items()}
    # What an uninterrupted crawl makes of the chains (demo.expected's reasons).
    assert {reason.get(f"{base}/chain/{i}") for i in range(1, 12)} == {"redirect-chain"}
    assert f"{base}/chain/12" not in got  # the twelfth redirect is never followed
    assert len(got[f"{base}/chain/1"][2]) == 11
    assert [reason[f"{base}/loop-{x}"] for x in "abc"] == ["redirect-loop"] * 3
    assert [reason[f"{base}/old"], reason[f"{base}/older"]] == ["redirect", "redirect"]
    return got


def inventory(spec: str) -> dict[str, Fate]:
    """Every URL the crawl in ``spec`` recorded, with its fate."""
    records = {key(r.url): r for r in iter_page_records(spec)}
    store = open_audit_store(spec, mode="read")
    try:
        ids = store.lookup(list(records))
        return {
            url: (r.reason, r.extra.get("detail"), tuple(store.redirect_hops(ids[url][0])))
            for url, r in records.items()
        }
    finally:
        store.close()


def claimed_by(spec: str, url: str) -> str | None:
    """The worker name (``host:pid``; ``-`` alone) that committed a claim on ``url``."""
    if spec.startswith("postgresql://"):
        import psycopg

        from sitemapkit.store.postgres_conn import parse_spec

        parsed = parse_spec(spec)
        schema = parsed.schema
        try:
            with psycopg.connect(parsed.conninfo) as conn:
                row = conn.execute(
                    f"SELECT COALESCE(w.name, '-') FROM {schema}.urls u LEFT JOIN "
                    f"{schema}.workers w ON w.id = u.worker WHERE u.url = %s AND u.state = 1",
                    (url,),
                ).fetchone()
        except psycopg.errors.UndefinedTable:  # not created yet
            return None
    else:
        if not Path(spec).exists():
            return None
        try:
            with sqlite3.connect(f"file:{spec}?mode=ro", uri=True) as conn:
                row = conn.execute(
                    "SELECT COALESCE(w.name, '-') FROM urls u LEFT JOIN workers w "
                    "ON w.id = u.worker WHERE u.url = ? AND u.state = 1",
                    (url,),
                ).fetchone()
        except sqlite3.OperationalError:  # not migrated yet, or busy
            return None
    return None if row is None else str(row[0])


def wait_for(what: str, ready: Callable[[], bool], procs: list[subprocess.Popen[str]]) -> None:
    """Poll ``ready`` until it holds; fail at once when a crawler ended instead."""
    deadline = time.monotonic() + PATIENCE
    while not ready():
        for proc in procs:
            if proc.poll() is not None:
                _, err = proc.communicate()
                pytest.fail(f"a crawler ended before {what}: {err}")
        assert time.monotonic() < deadline, f"never {what}"
        time.sleep(0.02)


def kill_at(site: ChainSite, spec: str, hop: str, procs: list[subprocess.Popen[str]]) -> int:
    """Kill the crawler that committed its claim of ``hop`` while the site holds its answer.

    Returns the pid killed.  The claim is committed with the hops before it (one
    batch), so what the store holds is exactly "waiting for ``hop``".
    """
    url = site.base + hop
    wait_for(f"requesting {hop}", site.reached.is_set, procs)
    holder: list[str] = []

    def committed() -> bool:
        name = claimed_by(spec, url)
        if name is not None:
            holder.append(name)
        return name is not None

    wait_for(f"committing the claim of {hop}", committed, procs)
    pid = procs[0].pid if holder[0] == "-" else int(holder[0].rsplit(":", 1)[1])
    victim = next(p for p in procs if p.pid == pid)
    os.kill(pid, signal.SIGKILL)
    victim.communicate(timeout=PATIENCE)
    site.release()
    return pid


def assert_same_inventory(got: dict[str, Fate], alone: dict[str, Fate]) -> None:
    """Equal URL -> fate maps; on a failure, only the URLs that differ are shown."""
    differ = {u: (got.get(u, "-"), alone.get(u, "-")) for u in got.keys() | alone.keys()}
    assert {u: d for u, d in differ.items() if d[0] != d[1]} == {}


def resumed(site: ChainSite, out: Path, hop: str, db: tuple[str, ...]) -> dict[str, Fate]:
    """A single-process crawl killed waiting for ``hop``, then ``--resume``d: its inventory."""
    spec = db[1] if db else str(out / "crawl.sqlite")
    site.hold(hop)
    crawl = sitemapkit("crawl", site.base, "-o", str(out), *CRAWL, *db)
    kill_at(site, spec, hop, [crawl])
    code, _, err = finish(sitemapkit("crawl", "-o", str(out), "--resume", "--no-map", *db))
    assert code == 0, err
    return inventory(spec)


def fleet_lost_one(
    site: ChainSite, out: Path, hop: str, db: tuple[str, ...], workers: int = 1
) -> dict[str, Fate]:
    """A fleet (``crawl --fleet`` and ``workers`` workers) that loses whichever process was
    waiting for ``hop``: the inventory the others finish with.

    On this small site that is the ``crawl --fleet`` process as a rule (it claims the
    home page's links first); a ``worker`` then reaps it after ``--lease`` seconds,
    takes the chain up and ends the run.  Either way one process of the fleet dies
    mid-chain and another goes on with the chain.
    """
    spec = db[1] if db else str(out / "crawl.sqlite")
    db = db or ("--db", spec)
    site.hold(hop)
    procs = [sitemapkit("worker", "--db", spec) for _ in range(workers)]
    lead = ("crawl", site.base, "-o", str(out), *CRAWL, "--fleet", "--lease", "3", *db)
    procs.insert(0, sitemapkit(*lead))
    victim = kill_at(site, spec, hop, procs)
    for proc in procs:
        if proc.pid != victim:
            code, _, err = finish(proc)
            assert code == 0, err
    return inventory(spec)


@pytest.mark.parametrize("hop", ["/chain/2", "/chain/11", "/loop-c", "/older"])
def test_a_crawl_killed_mid_chain_resumes_to_the_same_inventory(
    site: ChainSite, alone: dict[str, Fate], tmp_path: Path, hop: str
) -> None:
    assert_same_inventory(resumed(site, tmp_path, hop, ()), alone)


@pytest.mark.parametrize("hop", ["/chain/7", "/loop-b"])
def test_a_crawl_on_postgresql_killed_mid_chain_resumes_to_the_same_inventory(
    site: ChainSite, alone: dict[str, Fate], tmp_path: Path, pg_spec: str, hop: str
) -> None:
    assert_same_inventory(resumed(site, tmp_path, hop, ("--db", pg_spec)), alone)


def test_a_fleet_that_loses_a_worker_mid_chain_ends_with_the_same_inventory(
    site: ChainSite, alone: dict[str, Fate], tmp_path: Path
) -> None:
    assert_same_inventory(fleet_lost_one(site, tmp_path, "/chain/7", ()), alone)


def test_a_fleet_on_postgresql_that_loses_a_worker_mid_chain_ends_with_the_same_inventory(
    site: ChainSite, alone: dict[str, Fate], tmp_path: Path, pg_spec: str
) -> None:
    got = fleet_lost_one(site, tmp_path, "/chain/7", ("--db", pg_spec), workers=2)
    assert_same_inventory(got, alone)
