"""The commands on a PostgreSQL store: the same crawl, the same bytes, as on SQLite.

The demo site is crawled twice by ``sitemapkit crawl``, once into SQLite and once
into a real PostgreSQL server (tests/pgcluster.py); the sitemap sets must be equal
byte for byte, and every command that reads a store (``--why``, ``inventory``,
``history``, ``visualize``, ``audit``, ``write``, ``indexnow``) must take the PostgreSQL spec.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import psycopg
import pytest

from sitemapkit.cli import main
from sitemapkit.demo.server import serve_demo


def _crawl(base: str, out: Path, *extra: str) -> None:
    """One fetch at a time: discovery order (the sitemap's order) does not depend on timing.

    ``--render never``: not about rendering (the lamp finder would start Chromium)."""
    args = ["crawl", base, "-o", str(out), "--no-map", "--concurrency", "1", "--render", "never"]
    args += extra
    assert main(args) == 0


def test_a_demo_crawl_on_postgresql_equals_the_sqlite_crawl(
    tmp_path: Path, pg_spec: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with serve_demo() as base:
        _crawl(base, tmp_path / "lite")
        _crawl(base, tmp_path / "pg", "--db", pg_spec)
        _crawl(base, tmp_path / "pg2", "--db", pg_spec)  # a second run (for diff below)
    lite = (tmp_path / "lite" / "sitemap.xml").read_bytes()
    assert lite.count(b"<loc>") > 10
    assert (tmp_path / "pg" / "sitemap.xml").read_bytes() == lite
    assert (tmp_path / "pg" / "inventory.csv").read_bytes() == (
        tmp_path / "lite" / "inventory.csv"
    ).read_bytes()
    out = capsys.readouterr().out
    assert f"crawl db:   {pg_spec}" in out  # no password in the spec: shown as given

    # write --db: the crawl's own output step, from either store, the same bytes
    for name, db in (("lite", str(tmp_path / "lite" / "crawl.sqlite")), ("pg", pg_spec)):
        assert main(["write", "--db", db, "-o", str(tmp_path / f"w-{name}")]) == 0
        assert (tmp_path / f"w-{name}" / "sitemap.xml").read_bytes() == lite

    # the readers take the spec wherever they take a store
    capsys.readouterr()
    assert main(["crawl", "--db", pg_spec, "--why", "/"]) == 0
    assert "decision:   in the sitemap" in capsys.readouterr().out
    assert main(["inventory", pg_spec, "--format", "jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) > lite.count(b"<loc>")
    assert main(["history", "--db", pg_spec, "--format", "json"]) == 0
    runs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [run["state"] for run in runs] == ["finished", "finished"]
    assert main(["diff", "--db", pg_spec, "--format", "json"]) == 0  # run 2 vs run 1
    assert capsys.readouterr().out
    page = tmp_path / "map.html"
    assert main(["visualize", pg_spec, "-o", str(page)]) == 0
    assert "<noscript>" in page.read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["audit", "--db", pg_spec, "--sitemap", str(tmp_path / "pg" / "sitemap.xml")]) in (
        0,
        1,
    )
    assert "listed" in capsys.readouterr().out

    # indexnow --db: the spec, not a path (click.Path made it "postgresql:/..." once)
    key = "5f2a9c0e7b1d4e8f"
    assert main(["indexnow", "--db", pg_spec, "--key", key, "--dry-run"]) == 0
    dry = capsys.readouterr().out
    assert dry.count(base) >= lite.count(b"<loc>")  # every listed URL would go, none sent


def test_write_refuses_what_is_not_a_crawl(
    tmp_path: Path, pg_spec: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["write", "--db", pg_spec, "-o", str(tmp_path / "out")]) == 2
    assert "not a sitemapkit crawl database" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_password_in_the_spec_is_never_shown(
    tmp_path: Path, pg_spec: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The crawl's summary and the commands it suggests printed the spec as given,
    password and all (the test server trusts every login: the password is not asked)."""
    secret = pg_spec.replace("://postgres@", "://postgres:s3cret@")
    with serve_demo() as base:
        _crawl(base, tmp_path / "pg", "--db", secret)
    assert main(["worker", "--db", secret]) == 0  # the crawl there is finished
    out, err = capsys.readouterr()
    assert "s3cret" not in out + err
    assert f"crawl db:   {pg_spec} (try: sitemapkit crawl --db '{pg_spec}' --why URL)" in out
    assert f"{pg_spec}: the crawl there is finished; nothing to do" in out


def test_a_server_lost_mid_crawl_is_one_error_line_with_the_resume_command(
    tmp_path: Path,
    pg_url: str,  # the session's server is there: a cluster can be made
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PostgreSQL stopped mid-crawl and not back within the backoff: the crawl said it as
    a usage error (``Usage: ... Try --help``, exit 2) after running the whole backoff a
    second time, and did not say how to continue."""
    import threading

    import pgcluster
    from sitemapkit.store import postgres_conn

    monkeypatch.setattr(postgres_conn, "BACKOFF", (0.05, 0.1))
    cluster = pgcluster.Cluster()
    spec = f"{cluster.url}?schema=lost"
    stopped = threading.Event()

    def stop_when_crawling() -> None:
        with psycopg.connect(cluster.url, autocommit=True) as admin:
            while (
                not admin.execute(  # the crawl stored pages: it is under way
                    "SELECT 1 FROM pg_tables WHERE schemaname = 'lost' AND tablename = 'urls'"
                ).fetchone()
                or not admin.execute("SELECT 1 FROM lost.urls WHERE state = 2").fetchone()
            ):
                time.sleep(0.05)
        cluster._as_postgres(
            [str(cluster.bindir / "pg_ctl"), "-D", str(cluster.data), "-m", "fast", "-w", "stop"]
        )
        stopped.set()

    try:
        with serve_demo() as base:
            threading.Thread(target=stop_when_crawling, daemon=True).start()
            args = ["crawl", base, "-o", str(tmp_path), "--db", spec, "--rate", "20"]
            code = main([*args, "--render", "never", "--no-map"])
        assert stopped.is_set()
    finally:
        cluster.stop()
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    retries = [line for line in err if "retrying in" in line]
    assert len(retries) == 2  # one round of the backoff, not two
    (last,) = [line for line in err if line not in retries]
    assert last.startswith(f"sitemapkit: error: {spec}: cannot connect after 3 tries: ")
    assert last.endswith(f"continue with `sitemapkit crawl --resume --db '{spec}' -o {tmp_path}`")


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_schema_from_a_newer_sitemapkit_is_refused_in_one_line(
    kind: str, tmp_path: Path, pg_spec: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``crawl``, ``crawl --resume``, ``write`` and ``history`` printed it as a usage error
    (``Usage: ... Try --help``, exit 2); ``worker`` and ``--why`` in one line, exit 1."""
    import sqlite3

    from sitemapkit.store import open_store
    from sitemapkit.store.postgres_conn import parse_spec

    db = pg_spec if kind == "postgresql" else str(tmp_path / "crawl.sqlite")
    open_store(db).close()
    if kind == "postgresql":
        parsed = parse_spec(pg_spec)
        with psycopg.connect(parsed.conninfo, autocommit=True) as admin:
            admin.execute(f"INSERT INTO {parsed.schema}.migrations VALUES (999, 0)")
        name, version = parsed.name, 999
    else:
        with sqlite3.connect(db) as conn:
            conn.execute("PRAGMA user_version = 999")
        name, version = db, 999
    out = str(tmp_path / "out")
    capsys.readouterr()
    for args in (
        ["crawl", "http://127.0.0.1:9/", "-o", out, "--db", db],
        ["crawl", "http://127.0.0.1:9/", "-o", out, "--db", db, "--fleet"],
        ["crawl", "--resume", "--db", db, "-o", out],
        ["write", "--db", db, "-o", out],
        ["worker", "--db", db, "--wait", "0"],
        *([["history", "--db", db]] if kind == "postgresql" else []),  # SQLite's reads it
    ):
        assert main(args) == 1, args
        err = capsys.readouterr().err
        assert err.splitlines() == [
            f"sitemapkit: error: {name}: crawl database schema {version} is newer than this "
            f"sitemapkit ({err.split('sitemapkit (', 1)[1].split(')', 1)[0]}); upgrade sitemapkit"
        ], args
