"""What a crawl asked of PostgreSQL, per page: ``pg_stat_statements`` on the bench's cluster.

Why: a fleet worker's time on PostgreSQL is mostly round trips (psycopg's calls block
the event loop), so "where does the second worker's time go" is first "which statements,
how many times a page, how long the server took and how many commits".  The cluster is
started with the extension preloaded (:data:`OPTIONS`); the counters are reset before a
run and read after it, so each run's figures are its own.
"""

from __future__ import annotations

import psycopg

#: ``postgresql.conf`` lines for :class:`pgcluster.Cluster` (``options=``).
OPTIONS = (
    "shared_preload_libraries = 'pg_stat_statements'",
    "pg_stat_statements.track = all",
    "track_io_timing = on",
)
#: Statements listed per run (by calls).
TOP = 14


def reset(server: str) -> None:
    """Zero the statement and database counters (before a run)."""
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        conn.execute("SELECT pg_stat_statements_reset()")
        conn.execute("SELECT pg_stat_reset()")


def report(server: str, pages: int, label: str) -> list[str]:
    """The run's statements: calls a page, server ms in all, and commits a page."""
    with psycopg.connect(server, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT calls, total_exec_time, rows, regexp_replace(query, '\\s+', ' ', 'g') "
            "FROM pg_stat_statements WHERE query NOT LIKE '%%pg_stat%%' "
            "ORDER BY calls DESC"
        ).fetchall()
        commits = conn.execute(
            "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
        ).fetchone()
    calls = sum(int(r[0]) for r in rows)
    server_ms = sum(float(r[1]) for r in rows)
    xacts = 0 if commits is None else int(commits[0])
    out = [
        f"{label}: {pages:,} pages; {calls:,} statements ({calls / pages:.2f} a page), "
        f"{xacts:,} transactions ({xacts / pages:.2f} a page), "
        f"{server_ms / 1000:.2f} s of statement time ({server_ms / pages:.3f} ms a page)",
        "  calls/page   ms total   rows/call  statement",
    ]
    for n, ms, got, text in rows[:TOP]:
        per = int(got) / int(n) if n else 0.0
        out.append(f"  {int(n) / pages:10.3f} {float(ms):10.1f} {per:11.1f}  {str(text)[:110]}")
    return out
