"""What each command loads: a crawl imports only what it uses (issue 13).

Imports were 18 % of a whole PostgreSQL-manual crawl and most of a small one, and
``crawl`` loaded IndexNow (and with it a second copy of the HTTP plumbing) on every
run.  These tests run the real command in a fresh interpreter and look at
``sys.modules`` afterwards: behaviour, not time.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from crawl.fixture_site import FixtureSite

#: Run the CLI in-process, then print which of the named modules it loaded.
_PROBE = """
import json, sys
from sitemapkit.cli import main
names = json.loads(sys.argv[1])
try:
    code = main(sys.argv[2:])
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "loaded": sorted(n for n in names if n in sys.modules)}))
"""

#: Never needed by a plain ``crawl URL -o OUT`` into a fresh folder on SQLite (``--render
#: auto``, the default, tests each page with crawl/scripted.py and imports the renderer only
#: when a page looks built by scripts: none does on the fixture site).
NOT_FOR_A_PLAIN_CRAWL = (
    "sitemapkit.indexnow",
    "sitemapkit.render",
    "sitemapkit.cli.indexnow",
    "sitemapkit.app",
    "sitemapkit.audit",
    "sitemapkit.validate",
    "sitemapkit.read.reader",
    "sitemapkit.read.source",
    "sitemapkit.addresses",
    "sitemapkit.store.postgres",
    "sitemapkit.store.postgres_conn",  # a SQLite --db is told apart by store/spec.py
    "sitemapkit.store.rows",  # runs, --why, audit, IndexNow and fleet rows: no crawl makes one
    "psycopg",
    "playwright",
    "lxml",
    "aiohttp",  # the crawl speaks HTTP through crawl/httpclient.py
    "yarl",
    "multidict",
    "idna",  # only for a host that is not plain ASCII (urls.py)
    "ctypes",  # only to trim the heap after a body of a megabyte or more (crawl/heap.py)
    "tempfile",  # a published file's temporary is made by fileio.py (tempfile imports bz2 ...)
)


def probe(argv: list[str], names: tuple[str, ...]) -> tuple[object, list[str]]:
    """Run ``sitemapkit ARGV`` in a new interpreter; its exit code and the loaded ``names``."""
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(names), *argv],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    answer = json.loads(out.stdout.strip().splitlines()[-1])
    return answer["code"], answer["loaded"]


def test_a_plain_crawl_loads_nothing_it_does_not_use(site: FixtureSite, tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = ["crawl", site.base + "/", "-o", str(out), "--workers", "1", "--max-pages", "5"]
    code, loaded = probe(argv, NOT_FOR_A_PLAIN_CRAWL)
    assert code == 0
    assert (out / "sitemap.xml").is_file()
    assert loaded == []
    never = [*argv[:3], str(tmp_path / "never"), *argv[4:], "--render", "never"]
    code, loaded = probe(never, (*NOT_FOR_A_PLAIN_CRAWL, "sitemapkit.render"))
    assert code == 0
    assert loaded == []


def test_indexnow_is_loaded_when_asked(tmp_path: Path) -> None:
    """The lazy import still runs: a bad ``--indexnow`` key is refused before any crawl."""
    argv = ["crawl", "http://127.0.0.1:9/", "-o", str(tmp_path / "o"), "--db"]
    argv += [str(tmp_path / "c.sqlite"), "--indexnow", "bad key!"]
    code, loaded = probe(argv, ("sitemapkit.indexnow.submit",))
    assert code == 2
    assert loaded == ["sitemapkit.indexnow.submit"]
    assert not (tmp_path / "o").exists()


def test_help_and_version_load_no_command() -> None:
    heavy = ("aiohttp", "asyncio", "sqlite3", "sitemapkit.cli.crawl", "sitemapkit.store")
    for argv in (["--help"], ["--version"]):
        code, loaded = probe(argv, heavy)
        assert code == 0, argv
        assert loaded == [], argv


#: Run the CLI in-process: the frozen-object count after the command, then after the
#: interpreter's exit hooks (what the process's end runs).
_EXIT_PROBE = """
import atexit, gc, json, sys
from sitemapkit.cli import main
main(sys.argv[1:])
after_command = gc.get_freeze_count()
atexit._run_exitfuncs()
print(json.dumps([after_command, gc.get_freeze_count()]))
"""


def test_the_exit_skips_the_last_collection(site: FixtureSite, tmp_path: Path) -> None:
    """The heap a command leaves is frozen at exit (the interpreter's last collection
    walked it all: ~60 ms CPU of a one-page crawl); the crawl freezes what was there
    before it only while it runs, so a caller of ``main`` in a longer-lived process keeps
    its collector."""
    argv = ["crawl", site.base + "/", "-o", str(tmp_path / "o"), "--workers", "1"]
    out = subprocess.run(
        [sys.executable, "-c", _EXIT_PROBE, *argv, "--max-pages", "5"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    after_command, at_exit = json.loads(out.stdout.strip().splitlines()[-1])
    assert after_command == 0
    assert at_exit > 1000


#: Run the CLI in-process (the collector on or off first): the heap's state right after
#: the command's module loaded, and after ``main`` returned.
_GC_PROBE = """
import gc, json, sys
from sitemapkit import cli
if sys.argv[1] == "off":
    gc.disable()
seen = []
original = cli.LazyGroup.get_command
def get_command(self, ctx, name):
    command = original(self, ctx, name)
    seen.append([gc.get_freeze_count() > 0, gc.isenabled()])
    return command
cli.LazyGroup.get_command = get_command
code = cli.main(sys.argv[2:])
print(json.dumps({"code": code, "seen": seen, "after": [gc.get_freeze_count(), gc.isenabled()]}))
"""


def test_a_command_loads_frozen_and_main_unfreezes() -> None:
    """What a command imports is frozen as it loads (no collector pass walks it: 4 ms of
    a crawl's start-up); ``main`` unfreezes on return and leaves the collector as it was."""
    for state in ("on", "off"):
        out = subprocess.run(
            [sys.executable, "-c", _GC_PROBE, state, "history", "--help"],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        answer = json.loads(out.stdout.strip().splitlines()[-1])
        assert answer["code"] == 0
        assert answer["seen"] == [[True, state == "on"]]
        assert answer["after"] == [0, state == "on"]
