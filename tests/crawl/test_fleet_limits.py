"""``--max-pages`` and ``history`` for a fleet: counted for the crawl, not per process.

Real processes (``crawl --fleet`` and ``sitemapkit worker``) on SQLite and on the
session's real PostgreSQL server, crawling the three-host site of ``fleet_site``
(70 pages) whose access log says what the fleet really fetched.  Before, each
process stopped after ``--max-pages`` URLs of its own (three processes, up to three
times the cap), and a run's figures were those of the processes still running when
it ended (a worker stopped or killed earlier was left out of ``history``).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from crawl.fleet_site import HOSTS, AccessLog, serve_hosts
from crawl.test_fleet import PATIENCE, finish, sitemapkit
from sitemapkit.cli import main
from sitemapkit.store.postgres_conn import parse_spec

Launch = Callable[..., subprocess.Popen[str]]
CAP = 20
#: For the fleet: two connections and five requests a second per host, two requests at
#: once per process: a process holds two host slots at most and claims a few URLs at a
#: time (four a slot), so the others, joining within a second, share the cap.
PACE = ("--per-host", "2", "--rate", "5", "--concurrency", "2")


@pytest.fixture
def launch() -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """:func:`sitemapkit` for a test: whatever still runs at its end (it failed) is killed."""
    started: list[subprocess.Popen[str]] = []

    def start(*args: str) -> subprocess.Popen[str]:
        started.append(sitemapkit(*args))
        return started[-1]

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


@pytest.fixture
def db(store_spec: str) -> str:
    return store_spec


def rows(db: str, sql: str) -> list[tuple[Any, ...]]:
    """``sql``'s rows, read from the fleet's store behind its back (as a user's psql would)."""
    if db.startswith("postgresql"):
        spec = parse_spec(db)
        with psycopg.connect(spec.conninfo) as conn:
            conn.execute(f'SET search_path TO "{spec.schema}"')
            return conn.execute(sql).fetchall()
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)  # never makes the file
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def pages_served(log: AccessLog) -> list[str]:
    """Every page request the servers saw (robots.txt aside), repeats included."""
    return [f"{host}{path}" for host, path, _, _ in log.entries if path != "/robots.txt"]


def crawl_command(bases: dict[str, str], out: Path, db: str, *options: str) -> tuple[str, ...]:
    allow = [arg for host in HOSTS[1:] for arg in ("--allow-host", host)]
    start = bases[HOSTS[0]] + "/"
    return (
        *("crawl", start, "-o", str(out), "--no-map", "--fleet", "--db", db),
        *(*allow, *PACE, *options),
    )


def history(db: str, capsys: pytest.CaptureFixture[str]) -> tuple[list[dict[str, Any]], str]:
    """``sitemapkit history --db DB``: its JSON records and its text."""
    capsys.readouterr()
    assert main(["history", "--db", db, "--format", "json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert main(["history", "--db", db]) == 0
    return records, capsys.readouterr().out


def fetched_pages(db: str) -> int:
    """URLs the store holds as fetched (each once, whichever process stored it)."""
    return int(rows(db, "SELECT COUNT(*) FROM urls WHERE fetched_at IS NOT NULL")[0][0])


def wait_for(what: str, proc: subprocess.Popen[str], ready: Callable[[], bool]) -> None:
    """Until ``ready()``, while ``proc`` runs."""
    deadline = time.monotonic() + PATIENCE
    while not ready():
        assert time.monotonic() < deadline, what
        assert proc.poll() is None, f"{what}: {proc.communicate()}"
        time.sleep(0.02)


def of_worker(db: str, pid: int, state: int) -> int:
    """How many URLs in ``state`` the worker process ``pid`` claimed (0 until it joined)."""
    try:
        found = rows(
            db,
            "SELECT COUNT(*) FROM urls u JOIN workers w ON w.id = u.worker "
            f"WHERE u.state = {state} AND w.name LIKE '%:{pid}'",
        )
    except (sqlite3.Error, psycopg.Error):  # not made or migrated yet, or busy
        return 0
    return int(found[0][0])


def test_max_pages_caps_the_whole_fleet_not_each_process(
    db: str, tmp_path: Path, launch: Launch, capsys: pytest.CaptureFixture[str]
) -> None:
    with serve_hosts() as (bases, log):
        procs = [launch("worker", "--db", db) for _ in range(2)]
        time.sleep(1.0)  # their imports are done; they are looking for the store
        procs.insert(
            0, launch(*crawl_command(bases, tmp_path / "out", db, "--max-pages", str(CAP)))
        )
        runs = [finish(p) for p in procs]
    for code, _, err in runs:
        assert code == 0, err
    # The servers saw CAP pages in all, each once (before: up to CAP per process).
    served = pages_served(log)
    assert len(served) == CAP, sorted(served)
    assert len(set(served)) == CAP
    assert fetched_pages(db) == CAP
    # history counts every process's pages, though all but one stopped before the run ended.
    [run], text = history(db, capsys)
    assert (run["state"], run["pages"]) == ("stopped:max-pages", CAP)
    assert run["unended"] == 0
    assert "stopped without closing" not in text
    assert rows(db, "SELECT taken FROM frontier_taken") == [(CAP,)]
    shares = rows(db, "SELECT pages FROM run_sessions WHERE pages > 0")
    assert len(shares) >= 2, shares  # the cap was shared, not reached by one process


def test_a_killed_worker_neither_lifts_the_cap_nor_hides_its_pages(
    db: str, tmp_path: Path, launch: Launch, capsys: pytest.CaptureFixture[str]
) -> None:
    cap = 40
    with serve_hosts() as (bases, log):
        victim = launch("worker", "--db", db)
        time.sleep(1.0)  # its imports are done; it is looking for the store
        lead = launch(
            *crawl_command(bases, tmp_path / "out", db, "--max-pages", str(cap)), "--lease", "5"
        )
        # Killed once it has stored pages and holds claims (some started, maybe fetched).
        wait_for(
            "the worker never stored a page while holding claims",
            victim,
            lambda: of_worker(db, victim.pid, 2) > 0 and of_worker(db, victim.pid, 1) > 0,
        )
        os.kill(victim.pid, signal.SIGKILL)
        victim.communicate(timeout=PATIENCE)
        # Its claims as the kill left them (read before its lease runs out): the most it
        # can have fetched without storing.
        in_flight = of_worker(db, victim.pid, 1)
        code, _, err = finish(lead)
    assert code == 0, err
    # Its claims went back to the queue and off the fleet's count: the lead took them,
    # and the fleet took the cap in all, each URL stored once.
    assert fetched_pages(db) == cap
    served = pages_served(log)
    assert cap <= len(served) <= cap + in_flight
    # history: the dead worker's stored pages count, and the run says it died.
    [run], text = history(db, capsys)
    assert (run["state"], run["pages"]) == ("stopped:max-pages", cap)
    assert run["unended"] == 1
    assert "run 1: 1 process stopped without closing (killed?)" in text
    assert rows(db, "SELECT taken FROM frontier_taken") == [(cap,)]


def test_history_counts_a_worker_stopped_before_the_crawl_ended(
    db: str, tmp_path: Path, launch: Launch, capsys: pytest.CaptureFixture[str]
) -> None:
    with serve_hosts() as (bases, log):
        worker = launch("worker", "--db", db)
        time.sleep(1.0)
        lead = launch(*crawl_command(bases, tmp_path / "out", db))
        wait_for("the worker never stored a page", worker, lambda: of_worker(db, worker.pid, 2) > 1)
        worker.send_signal(signal.SIGTERM)
        code, _, err = finish(worker)
        assert code == 143, err
        code, _, err = finish(lead)
    assert code == 0, err
    every = fetched_pages(db)
    assert every == len(set(pages_served(log))) == 70
    [run], text = history(db, capsys)
    assert (run["state"], run["pages"]) == ("finished", every)  # before: the lead's only
    assert run["unended"] == 0
    assert "stopped without closing" not in text
