"""What only the PostgreSQL store has: schemas per crawl, a lost connection, migrations.

Everything runs against the session's real server (tests/pgcluster.py); a lost
connection is a real one, its backend ended by ``pg_terminate_backend`` from a
second session.
"""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from sitemapkit.errors import StoreBusyError, StoreError, StoreWriteError
from sitemapkit.model import Alternate
from sitemapkit.store import is_crawl_db, open_store
from sitemapkit.store.base import CrawlStore, LinkRow, NewUrl, Outcome, UrlState
from sitemapkit.store.postgres import PostgresStore
from sitemapkit.store.postgres_conn import parse_spec
from sitemapkit.store.postgres_schema import SCHEMA_VERSION


def _kill_backends(pg_url: str, schema: str) -> int:
    """End every other session that has ``schema`` on its search path; how many."""
    with psycopg.connect(pg_url, autocommit=True) as admin:
        rows = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE pid <> pg_backend_pid() AND datname = current_database() "
            "AND backend_type = 'client backend' AND query NOT LIKE '%%pg_stat_activity%%' "
            "AND pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' "
            "AND objid = hashtext(%s)::oid)",
            (schema,),
        ).fetchall()
    return len(rows)


def test_a_lost_connection_is_recovered_and_the_batch_replayed(pg_url: str, pg_spec: str) -> None:
    store = open_store(pg_spec)
    try:
        added = store.add_urls([NewUrl("http://a/", 0, None), NewUrl("http://a/x", 1, None)])
        store.commit()
        (home,) = store.claim(1)
        store.finish(home.id, Outcome(status=200, indexable=True, title="Home"))
        store.add_links(home.id, [LinkRow(added["http://a/x"][0], False, "a")])
        new = store.add_urls([NewUrl("http://a/new", 1, home.id)])  # not yet committed
        assert _kill_backends(pg_url, parse_spec(pg_spec).schema) == 1
        # the next call finds the connection gone: reconnect, relock, replay, carry on
        more = store.add_urls([NewUrl("http://a/more", 2, home.id)])
        store.commit()
        assert store.lookup(["http://a/new"]) == new  # the ids the engine holds stay true
        assert store.lookup(["http://a/more"]) == more
        records = {r.url: r for r in store.page_records()}
        assert records["http://a/"].title == "Home"
        assert records["http://a/x"].inlinks == 1
        assert [c.url for c in store.claim(10)] == ["http://a/x", "http://a/new", "http://a/more"]
        with pytest.raises(StoreBusyError):  # the reconnect took the lock again
            open_store(pg_spec)
    finally:
        store.close()


def test_a_server_that_is_gone_is_retried_then_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from sitemapkit.store import postgres_conn

    spec = parse_spec("postgresql://nobody:secret@127.0.0.1:1/none")
    with pytest.raises(StoreError) as info:
        postgres_conn.connect(spec, autocommit=True, tries=2)
    message = str(info.value)
    assert message.startswith("postgresql://nobody@127.0.0.1:1/none?schema=sitemapkit: ")
    assert "cannot connect after 2 tries" in message
    assert "secret" not in message
    err = capsys.readouterr().err
    assert "retrying in 0.5 s (1/1)" in err
    assert "secret" not in err


def test_a_server_gone_for_good_is_one_write_error_then_no_more_retries(
    pg_url: str, pg_spec: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the reconnect's backoff ran out, the store is lost: the crawl's cleanup (claims
    given back, state saved, close) ran the whole backoff again at each call (31.5 s each,
    two rounds of six lines), and the lost connection was a plain StoreError, which the
    crawl command printed as a usage error (exit 2, no --resume hint)."""
    from sitemapkit.store import postgres_conn

    monkeypatch.setattr(postgres_conn, "BACKOFF", (0.01,))
    store = open_store(pg_spec)
    try:
        store.add_urls([NewUrl("http://a/", 0, None)])
        store.commit()
        assert isinstance(store, PostgresStore)
        store.spec = parse_spec(
            pg_spec.replace(pg_url.split("@", 1)[1].split("/", 1)[0], "127.0.0.1:1")
        )
        assert _kill_backends(pg_url, parse_spec(pg_spec).schema) == 1
        with pytest.raises(StoreWriteError, match="cannot connect after 2 tries"):
            store.release_claims()
        assert capsys.readouterr().err.count("retrying in") == 1
        with pytest.raises(StoreWriteError, match="cannot connect after 2 tries"):
            store.set_meta("k", "v")
        assert capsys.readouterr().err == ""  # failed at once: no second round of retries
        store.rollback()
    finally:
        store.close()
    with contextlib.closing(open_store(pg_spec, mode="open")) as again:
        assert set(again.lookup(["http://a/"])) == {"http://a/"}  # the last commit stays


def test_crawls_in_one_database_are_schemas_that_do_not_meet(pg_url: str) -> None:
    one, two = f"{pg_url}?schema=crawl_one", f"{pg_url}?schema=crawl_two"
    a = open_store(one, mode="replace")
    b = open_store(two, mode="replace")  # a different crawl: its own lock
    try:
        a.add_urls([NewUrl("http://one/", 0, None)])
        b.add_urls([NewUrl("http://two/", 0, None)])
        a.commit()
        b.commit()
        assert [r.url for r in a.page_records()] == ["http://one/"]
        assert [r.url for r in b.page_records()] == ["http://two/"]
        with pytest.raises(StoreBusyError):
            open_store(one)
    finally:
        a.close()
        b.close()
    assert is_crawl_db(one)
    assert not is_crawl_db(f"{pg_url}?schema=crawl_three")


def test_a_schema_that_is_not_a_crawl_is_never_touched(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("DROP SCHEMA IF EXISTS theirs CASCADE")
        admin.execute("CREATE SCHEMA theirs")
        admin.execute("CREATE TABLE theirs.precious (x int)")
    for mode in ("open", "replace", "read"):
        with pytest.raises(StoreError, match="not a sitemapkit crawl"):
            open_store(f"{pg_url}?schema=theirs", mode=mode)  # type: ignore[arg-type]
    with psycopg.connect(pg_url, autocommit=True) as admin:
        assert admin.execute("SELECT to_regclass('theirs.precious')").fetchone() == (
            "theirs.precious",
        )


def test_a_newer_schema_is_refused_in_one_line(pg_spec: str) -> None:
    open_store(pg_spec).close()
    parsed = parse_spec(pg_spec)
    with psycopg.connect(parsed.conninfo, autocommit=True) as admin:
        admin.execute(
            f"INSERT INTO {parsed.schema}.migrations VALUES (%s, 0)", (SCHEMA_VERSION + 1,)
        )
    for mode in ("open", "read"):
        with pytest.raises(StoreError) as info:
            open_store(pg_spec, mode=mode)  # type: ignore[arg-type]
        assert str(info.value) == (
            f"{parsed.name}: crawl database schema {SCHEMA_VERSION + 1} is newer than this "
            f"sitemapkit ({SCHEMA_VERSION}); upgrade sitemapkit"
        )


def test_claims_skip_rows_another_session_holds(pg_spec: str) -> None:
    """``FOR UPDATE SKIP LOCKED``: a batch claimed and not yet committed is nobody else's."""
    store = open_store(pg_spec)
    try:
        store.add_urls([NewUrl(f"http://a/{i}", 1, None) for i in range(4)])
        store.commit()
        mine = store.claim(2)
        parsed = parse_spec(pg_spec)
        with psycopg.connect(parsed.conninfo) as other:
            other.execute(f"SET search_path TO {parsed.schema}")
            theirs = other.execute(
                "SELECT url FROM urls WHERE state = 0 ORDER BY depth, id FOR UPDATE SKIP LOCKED"
            ).fetchall()
            other.rollback()
        assert [c.url for c in mine] == ["http://a/0", "http://a/1"]
        assert [r[0] for r in theirs] == ["http://a/2", "http://a/3"]
        assert store.fate(mine[0].id).state == UrlState.CLAIMED  # type: ignore[union-attr]
    finally:
        store.close()


def test_without_psycopg_the_error_names_the_extra(pg_url: str) -> None:
    code = (
        "import sys; sys.modules['psycopg'] = None\n"
        "from sitemapkit.store import open_store\n"
        "from sitemapkit.errors import StoreError\n"
        "try:\n"
        f"    open_store({pg_url!r})\n"
        "except StoreError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out == "PostgreSQL stores need psycopg 3: pip install 'sitemapkit[postgres]'\n"


def test_the_name_shown_never_carries_the_password() -> None:
    spec = parse_spec("postgresql://me:s3cret@db.example:6432/crawls?sslmode=require&schema=shop")
    assert spec.name == "postgresql://me@db.example:6432/crawls?schema=shop"
    assert spec.conninfo == "postgresql://me:s3cret@db.example:6432/crawls?sslmode=require"
    assert spec.schema == "shop"
    with pytest.raises(StoreError, match="schema='Shop; drop'"):
        parse_spec("postgresql://db.example/crawls?schema=Shop; drop")


def test_fleet_workers_share_a_crawl_and_never_claim_one_url_twice(pg_spec: str) -> None:
    from sitemapkit.store.postgres import PostgresStore

    one = PostgresStore(pg_spec, mode="open", shared=True)
    two = PostgresStore(pg_spec, mode="open", shared=True)
    try:
        one.add_urls([NewUrl(f"http://a/{i}", 1, None) for i in range(6)])
        one.commit()
        mine, theirs = one.claim(4), two.claim(4)  # neither committed yet: rows stay locked
        assert [c.url for c in mine] == [f"http://a/{i}" for i in range(4)]
        assert [c.url for c in theirs] == ["http://a/4", "http://a/5"]
        with pytest.raises(StoreBusyError):  # a lone crawl cannot take a shared one over
            open_store(pg_spec)
    finally:
        one.close()
        two.close()


def test_a_write_the_server_refuses_is_one_store_error_line(pg_spec: str) -> None:
    store = open_store(pg_spec)
    try:
        with pytest.raises(StoreError) as info:  # sent at once: refused at once
            store.set_meta("k", "a\x00b")
        assert str(info.value).startswith(f"{parse_spec(pg_spec).name}: cannot write")
        store.rollback()
        store.set_meta("k", "v")
        assert store.get_meta("k") == "v"
    finally:
        store.close()


def test_a_connection_lost_mid_stream_is_one_store_error_line(pg_url: str, pg_spec: str) -> None:
    """A streamed read is not retried (its first rows were given): one line, no traceback."""
    store = open_store(pg_spec)
    try:
        store.add_urls([NewUrl(f"http://a/{n}", 1, None) for n in range(2500)])
        store.commit()
        rows = store.page_records()
        assert next(rows).url == "http://a/0"  # the first batch of the server-side cursor
        assert _kill_backends(pg_url, parse_spec(pg_spec).schema) == 1
        with pytest.raises(StoreError) as info:
            list(rows)
        message = str(info.value)
        assert message.startswith(f"{parse_spec(pg_spec).name}: cannot read the crawl state: ")
        assert "\n" not in message
    finally:
        store.rollback()
        with contextlib.suppress(StoreError):  # its last commit finds the connection gone
            store.close()


def _turns_held(pg_url: str, schema: str) -> int:
    """Fleet write turns (transaction advisory locks) held on ``schema`` right now."""
    from sitemapkit.store.sqlite import APPLICATION_ID

    with psycopg.connect(pg_url, autocommit=True) as admin:
        row = admin.execute(
            "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
            "AND classid = %s::oid AND objid = hashtext(%s)::oid",
            (APPLICATION_ID + 2, schema),
        ).fetchone()
    assert row is not None
    return int(row[0])


def test_a_fleet_step_that_meets_only_known_urls_takes_no_write_turn(
    pg_url: str, pg_spec: str
) -> None:
    """The turn serialises the fleet's page steps; most pages meet no new URL and
    must not wait for (nor hold up) the others."""
    from sitemapkit.store.postgres import PostgresStore

    schema = parse_spec(pg_spec).schema
    one = PostgresStore(pg_spec, mode="open", shared=True)
    try:
        one.add_urls([NewUrl(f"http://a/{i}", 1, None) for i in range(3)])
        one.commit()
        known = one.lookup(["http://a/0", "http://a/1"])
        assert set(known) == {"http://a/0", "http://a/1"}
        assert _turns_held(pg_url, schema) == 0
        one.add_links(known["http://a/0"][0], [LinkRow(known["http://a/1"][0], False, "a")])
        assert not one.holds_turn()  # its writes may wait for the commit tick
        one.commit()
        found = one.lookup(["http://a/2", "http://a/new"])
        assert set(found) == {"http://a/2"}
        assert _turns_held(pg_url, schema) == 1  # something new: judged under the turn
        assert one.holds_turn()  # committed at the end of the step
        one.add_urls([NewUrl("http://a/new", 2, None)])
        one.commit()
        assert _turns_held(pg_url, schema) == 0
        assert not one.holds_turn()
        one.requeue([(known["http://a/1"][0], 2)])  # a HELD row others may requeue too
        assert one.holds_turn()
        one.commit()
    finally:
        one.close()


#: Tables where PostgreSQL keeps insertion order in an ``id`` column (SQLite: ``rowid``).
_ROWID_TABLES = frozenset({"alternates", "images", "links", "notes"})


def test_both_stores_hold_the_same_tables_and_columns(
    tmp_path: Path, pg_url: str, pg_spec: str
) -> None:
    """The two schemas are written in two dialects: this keeps their columns from drifting."""
    open_store(tmp_path / "crawl.sqlite").close()
    open_store(pg_spec).close()
    lite = sqlite3.connect(tmp_path / "crawl.sqlite")
    try:
        tables = [
            str(t) for (t,) in lite.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        ]
        sqlite_columns = {
            t: {str(row[1]) for row in lite.execute(f"PRAGMA table_info({t})")} for t in tables
        }
    finally:
        lite.close()
    pg_columns: dict[str, set[str]] = {}
    with psycopg.connect(pg_url) as admin:
        for table, column in admin.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = %s",
            (parse_spec(pg_spec).schema,),
        ):
            pg_columns.setdefault(str(table), set()).add(str(column))
    for table in _ROWID_TABLES:
        pg_columns[table].discard("id")
    assert pg_columns == sqlite_columns


def test_a_writer_closes_quietly_after_a_lost_connection_and_a_rollback(
    pg_url: str, pg_spec: str
) -> None:
    """The engine's failure path (rollback, then close) raised 'cannot commit' from close."""
    store = open_store(pg_spec)
    store.add_urls([NewUrl("http://a/", 0, None)])
    store.commit()
    store.add_urls([NewUrl("http://a/x", 1, None)])
    assert store.lookup(["http://a/x"])  # sent, not committed
    assert _kill_backends(pg_url, parse_spec(pg_spec).schema) == 1
    store.rollback()
    store.close()  # nothing to commit: no error over the one that caused the rollback
    with contextlib.closing(open_store(pg_spec, mode="open")) as again:
        assert again.lookup(["http://a/x"]) == {}
        assert set(again.lookup(["http://a/"])) == {"http://a/"}


def test_a_writer_commits_its_kept_writes_on_close_after_a_lost_connection(
    pg_url: str, pg_spec: str
) -> None:
    store = open_store(pg_spec)
    store.add_urls([NewUrl("http://a/", 0, None)])
    store.commit()
    store.add_urls([NewUrl("http://a/kept", 1, None)])  # kept, not yet sent
    assert _kill_backends(pg_url, parse_spec(pg_spec).schema) == 1
    store.close()  # reconnects, replays, commits
    with contextlib.closing(open_store(pg_spec, mode="open")) as again:
        assert set(again.lookup(["http://a/kept"])) == {"http://a/kept"}


def test_a_split_turn_locks_the_keys_of_a_steps_new_urls_only(pg_url: str, pg_spec: str) -> None:
    """Fleet steps meeting new URLs of other trap patterns no longer wait for each other."""
    from sitemapkit.crawl.fleet import turn_keys
    from sitemapkit.store.registry import open_fleet_store
    from sitemapkit.store.sqlite import APPLICATION_ID

    schema = parse_spec(pg_spec).schema
    one, two, three = "http://a/x/one.html", "http://a/y/two.html", "http://a/z/three.html"

    def free(url: str) -> bool:
        """Whether another session could take ``url``'s key now (and lets it go at once)."""
        (key,) = turn_keys(url)
        with psycopg.connect(pg_url, autocommit=True) as admin:
            row = admin.execute(
                "SELECT pg_try_advisory_xact_lock(%s, hashtext(%s))",
                (APPLICATION_ID + 2, f"{schema}\n{key}"),
            ).fetchone()
        return bool(row and row[0])

    first = open_fleet_store(pg_spec, mode="new")
    second = open_fleet_store(pg_spec, mode="open")
    try:
        for store in (first, second):
            store.split_turn(turn_keys)
        assert first.lookup([one]) == {}
        assert first.holds_turn()
        assert not free(one)  # held until first commits
        assert free(two)
        assert free(three)
        assert second.lookup([two]) == {}  # another pattern: no wait for first
        assert second.holds_turn()
        assert not free(two)
        assert free(three)
        first.add_urls([NewUrl(one, 1, None)])
        first.commit()
        second.commit()
        assert free(one)
        assert free(two)
        assert set(second.lookup([one])) == {one}  # known now: no turn taken
        assert not second.holds_turn()
    finally:
        second.close()
        first.close()


def _urls_scanned(store: object) -> tuple[int, int]:
    """Sequential and index scans of ``urls`` in the store's open transaction (its session)."""
    row = store._conn.execute(  # type: ignore[attr-defined]
        "SELECT seq_scan, COALESCE(idx_scan, 0) FROM pg_stat_xact_user_tables "
        "WHERE relid = 'urls'::regclass"
    ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def test_frontier_reads_use_the_index_however_small_the_table_was_when_first_asked(
    pg_spec: str,
) -> None:
    """A crawl asks its first lookups of a nearly empty table (no statistics yet): a plan
    cached then (a sequential scan) must not be kept once the table has grown, or every
    lookup reads the whole table (1 ms a lookup on the JDK docs' 10,000 URLs)."""
    store = PostgresStore(pg_spec, shared=True)  # one writer would not ask (see below)
    try:
        store.add_urls([NewUrl("http://a/", 0, None)])
        store.commit()
        for i in range(12):  # while tiny: psycopg prepares, the server may cache a plan
            store.lookup([f"http://a/absent/{i}", f"http://a/absent/{i}/b"])
            store.add_urls([NewUrl(f"http://a/added/{i}", 1, None)])
            store.commit()
        store.add_urls([NewUrl(f"http://a/p/{i}", 1 + i % 3, None) for i in range(20_000)])
        store.commit()
        before = _urls_scanned(store)
        for i in range(5):
            store.lookup([f"http://a/later/{i}", f"http://a/p/{i * 7}"])
            store.add_urls([NewUrl(f"http://a/p/{i * 11}", 1, None)])
        seq, idx = (a - b for a, b in zip(_urls_scanned(store), before, strict=True))
        assert seq == 0
        assert idx >= 5  # one a lookup of a URL not in the cache
    finally:
        store.close()


def test_one_writer_knows_a_url_is_new_without_asking_and_a_resume_still_finds_the_old(
    pg_spec: str,
) -> None:
    """The crawl's lock says nobody else adds URLs, so a URL the store never inserted is
    new without a round trip (half the JDK docs' pages waited for one); a store opened
    again on the crawl knows its URLs from the table."""
    store = open_store(pg_spec)
    try:
        added = store.add_urls([NewUrl(f"http://a/{i}", 1, None) for i in range(50)])
        store.commit()
        assert store.lookup(["http://a/first"]) == {}  # the first reads the crawl's URLs
        before = _urls_scanned(store)
        assert store.lookup([f"http://a/new/{i}" for i in range(30)]) == {}
        assert _urls_scanned(store) == before  # not asked
        more = store.add_urls([NewUrl("http://a/new/1", 2, None)])
        store.commit()
    finally:
        store.close()
    again = open_store(pg_spec, mode="resume")
    try:
        assert again.lookup(["http://a/7", "http://a/new/1", "http://a/none"]) == {
            "http://a/7": added["http://a/7"],
            "http://a/new/1": more["http://a/new/1"],
        }
        assert again.add_urls([NewUrl("http://a/7", 3, None)]) == {
            "http://a/7": added["http://a/7"]
        }
    finally:
        again.close()


def _crawl_pages(store: CrawlStore, run: int) -> None:
    """Two runs' worth of a small site's pages through the calls a crawl makes."""
    store.start_run(float(run))
    store.add_urls([NewUrl(f"http://a/{i}", 1, None) for i in range(45)])  # run 2: judged anew
    store.commit()
    pages = store.claim(100)
    for n, page in enumerate(pages):
        alternates = (Alternate("de", f"http://a/de/{n}"),) if n % 7 == 0 else ()
        out = Outcome(
            status=200 if n % 9 else 404,
            title=f'run {run} "page" \\ {n}' if n % 5 else None,
            indexable=n % 3 != 0,
            fetched_at=1733543890.123456 + n + run,
            bytes=1000 + n,
            outlinks=2,
            alternates=alternates,
            images=(f"http://a/img/{n}.png",) if n % 4 == 0 else (),
            notes=(("links-capped", f"{n} dropped"),) if n % 11 == 0 else (),
            fingerprint=f"fp{n % 10}" if run == 2 else f"fp{n}",
        )
        if n == 0:  # a link stored before its page's fate: a re-crawl's finish drops it
            store.add_links(page.id, [LinkRow(pages[2].id, False, "redirect")])
        store.finish(page.id, out)
        new = NewUrl(f"http://a/found/{run}/{n}", 2, page.id)
        ids = store.add_urls([new])
        targets = [ids[new.url][0], pages[(n + 1) % len(pages)].id]
        store.add_links(page.id, [LinkRow(t, n % 2 == 0, "a") for t in targets])
    store.end_run("finished", run + 0.5)
    store.commit()


def test_pages_writes_kept_together_read_back_as_sqlite_writes_them_one_by_one(
    pg_spec: str, tmp_path: Path
) -> None:
    """Kept and sent as a few statements (postgres_pages), a crawl's pages read back as
    the SQLite store, which writes each call as it comes, has them: a re-crawl too."""
    stores: list[CrawlStore] = [open_store(pg_spec), open_store(tmp_path / "c.sqlite")]
    try:
        for run in (1, 2):
            answers = []
            for store in stores:
                _crawl_pages(store, run)
                answers.append(
                    (
                        list(store.page_records()),
                        list(store.sitemap_rows()),
                        store.counts(),
                        store.note_counts(),
                        store.changes_between(1, 2) if run == 2 else None,
                    )
                )
            pg, lite = answers
            assert pg[:4] == lite[:4]
            if run == 2:
                assert list(pg[4] or ()) == list(lite[4] or ())
    finally:
        for store in stores:
            store.close()


def test_a_lost_connection_as_kept_page_writes_go_out_loses_none_of_them(
    pg_url: str, pg_spec: str
) -> None:
    """A call that sends the pages' kept writes and finds the connection gone replays
    them (they were written by earlier calls, not by the call that is run again)."""
    store = open_store(pg_spec)
    try:
        store.add_urls([NewUrl(f"http://a/{i}", 1, None) for i in range(60)])
        store.commit()
        pages = store.claim(60)
        for page in pages[:50]:  # more than a batch: some sent, some kept
            store.finish(page.id, Outcome(status=200, title=page.url, indexable=True))
            store.add_links(page.id, [LinkRow(pages[-1].id, False, "a")])
        assert _kill_backends(pg_url, parse_spec(pg_spec).schema) == 1
        more = store.claim(5)  # sends the kept writes first: the connection is gone
        assert [c.url for c in more] == []  # every URL is claimed already
        store.commit()
        records = {r.url: r for r in store.page_records()}
        assert all(records[p.url].title == p.url for p in pages[:50])
        assert records[pages[-1].url].inlinks == 50
        assert store.counts()["claimed"] == 10
    finally:
        store.close()


def _counter_reads(store: object) -> int:
    """Scans of ``trap_counts`` in the store's open transaction (its session)."""
    row = store._conn.execute(  # type: ignore[attr-defined]
        "SELECT seq_scan + COALESCE(idx_scan, 0) FROM pg_stat_xact_user_tables "
        "WHERE relid = 'trap_counts'::regclass"
    ).fetchone()
    assert row is not None
    return int(row[0])


def test_a_fleet_step_reads_the_counters_its_keys_guard_in_its_lookup(pg_spec: str) -> None:
    """The lookup that takes a new URL's turn keys reads the trap counters they guard in
    the same round trip (no other worker moves them until the step commits): judging
    the URL asks the server nothing more, and counts made since are included."""
    from sitemapkit.crawl.fleet import turn_keys
    from sitemapkit.crawl.traps import counter_keys
    from sitemapkit.store.registry import open_fleet_store

    url = "http://a/2024/05/page.html?b=1&a=2"
    found = counter_keys(url)
    assert found is not None
    assert found[1] is not None
    pattern, facet = ("pattern", found[0]), ("facet", found[1])
    store = open_fleet_store(pg_spec, mode="new")
    other = open_fleet_store(pg_spec, mode="open")
    try:
        for each in (store, other):
            each.split_turn(turn_keys)
        other.count_traps([pattern, pattern, facet])
        other.commit()
        assert store.lookup([url]) == {}  # new: its keys taken, their counters read
        before = _counter_reads(store)
        assert store.trap_counts([facet, pattern]) == [1, 2]
        assert _counter_reads(store) == before  # not asked
        store.count_traps([pattern])
        assert store.trap_counts([pattern, facet]) == [3, 1]
        assert store.trap_counts([("pattern", "a/other")]) == [0]  # not guarded: asked
        store.commit()
        assert other.trap_counts([pattern]) == [3]
        assert store.trap_counts([pattern]) == [3]  # a new step: asked again
    finally:
        other.close()
        store.close()
