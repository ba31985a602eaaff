"""The store is the only way in: no SQL, no schema and no SQLite module outside ``store/``.

A second store (PostgreSQL) can be plugged in only if the crawler, ``--why``,
``inventory``, the visual map and the demo talk to the ``CrawlStore`` protocol
and open stores through ``open_store``.  This test reads the source, so a
shortcut (``store._conn.execute(...)``, a ``sqlite3.connect`` in a view) fails
here instead of in the next store's first run.
"""

from __future__ import annotations

import re
from pathlib import Path

import sitemapkit

SRC = Path(sitemapkit.__file__).parent
STORE = SRC / "store"

#: What running SQL, holding a connection or knowing the schema looks like in Python.
SQL_MARKERS = re.compile(
    r"\bimport sqlite3\b|\bsqlite3\.|\.execute(?:many|script)?\(|\b_conn\b|"
    r"\b(?:SELECT\s+\S.*\bFROM|INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|"
    r"DELETE\s+FROM|CREATE\s+(?:TABLE|INDEX)|PRAGMA\s+\w+)\b"
)
#: Only the registry picks an implementation; the public API re-exports SqliteStore.
IMPLEMENTATION_IMPORT = re.compile(
    r"sitemapkit\.store\.sqlite\b|from sitemapkit\.store import sqlite"
)
MAY_NAME_AN_IMPLEMENTATION = {SRC / "__init__.py"}


def _modules_outside_the_store() -> list[Path]:
    return [p for p in sorted(SRC.rglob("*.py")) if STORE not in p.parents]


def offences(path: Path) -> list[str]:
    """``file:line: text`` of every line of ``path`` that bypasses the store seam."""
    found: list[str] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        bad = SQL_MARKERS.search(line)
        if bad is None and path not in MAY_NAME_AN_IMPLEMENTATION:
            bad = IMPLEMENTATION_IMPORT.search(line)
        if bad is not None:
            found.append(f"{path.name}:{number}: {line.strip()}")
    return found


def test_no_sql_or_store_implementation_outside_the_store_package() -> None:
    modules = _modules_outside_the_store()
    assert len(modules) > 40  # the scan sees the package, not an empty folder
    bad = [hit for path in modules for hit in offences(path)]
    assert bad == [], "SQL or a store implementation used outside store/:\n" + "\n".join(bad)


def test_the_scan_catches_each_way_round_the_seam(tmp_path: Path) -> None:
    samples = {
        "engine": 'self.store._conn.execute("UPDATE urls SET state = 2 WHERE id = ?", (1,))',
        "view": 'conn = sqlite3.connect(path); rows = conn.execute("SELECT url FROM urls")',
        "import": "import sqlite3",
        "impl": "from sitemapkit.store.sqlite import SqliteStore",
        "schema": 'sql = "SELECT u.url, f.url FROM urls u JOIN urls f ON f.id = u.found_from"',
    }
    for name, line in samples.items():
        module = tmp_path / f"{name}.py"
        module.write_text(f"x = 1\n{line}\n")
        assert offences(module) == [f"{name}.py:2: {line}"], name
    clean = tmp_path / "clean.py"
    clean.write_text('"""Select the pages to update."""\nstore.finish(url_id, outcome)\n')
    assert offences(clean) == []
