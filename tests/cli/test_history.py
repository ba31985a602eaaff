"""``sitemapkit history --db``: the runs of a store, with what each downloaded."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from crawl.changing_site import ChangingSite, page, serve_changing
from sitemapkit.cli import main


@pytest.fixture
def changing() -> Iterator[ChangingSite]:
    site = ChangingSite(
        pages={"/": page("Home", "/a", "/b"), "/a": page("A", "/"), "/b": page("B")}
    )
    with serve_changing(site) as served:
        yield served


def test_history_lists_runs_with_pages_304s_changes_and_bytes(
    changing: ChangingSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "site.sqlite"
    args = ["crawl", changing.base + "/", "--db", str(db), "-o", str(tmp_path / "o")]
    assert main(args) == 0
    first_bytes = changing.body_bytes
    changing.pages["/b"] = page("B", text="new words")
    assert main(args) == 0
    capsys.readouterr()
    assert main(["history", "--db", str(db), "--format", "json"]) == 0
    runs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["run"] for r in runs] == [1, 2]
    assert [r["state"] for r in runs] == ["finished", "finished"]
    assert runs[0]["pages"] == 3
    assert runs[0]["not_modified"] == 0
    assert runs[0]["changed"] == 3
    assert runs[0]["bytes"] == first_bytes
    assert runs[1]["pages"] == 3
    assert runs[1]["not_modified"] == 2
    assert runs[1]["changed"] == 1
    assert runs[1]["bytes"] == len(changing.pages["/b"])
    assert main(["history", "--db", str(db)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:2] == ["run", "started"]
    assert lines[2].split()[0] == "2"
    assert "finished" in lines[2]


def test_history_of_a_file_that_is_no_crawl_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "x.sqlite"
    other.write_text("no")
    assert main(["history", "--db", str(other)]) == 2
    assert "not a sitemapkit crawl database" in capsys.readouterr().err


def test_history_says_when_a_process_of_a_run_never_closed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A process killed mid-run stored its figures up to its last commit: the table shows
    them and a note says the rest is not known, rather than figures that look whole."""
    from sitemapkit.store import open_store
    from sitemapkit.store.base import RunFigures

    db = tmp_path / "site.sqlite"
    killed = open_store(db, mode="new")
    killed.start_run(1_700_000_000.0)
    killed.add_figures(RunFigures(pages=4, bytes=400))
    killed.commit()
    killed.close()  # no end_session: as SIGKILL leaves it
    last = open_store(db)
    last.add_figures(RunFigures(pages=6, not_modified=2, bytes=600))
    last.end_session()
    last.end_run("finished", 1_700_000_010.0)
    last.close()
    assert main(["history", "--db", str(db), "--format", "json"]) == 0
    [run] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert (run["pages"], run["not_modified"], run["bytes"], run["unended"]) == (10, 2, 1000, 1)
    assert main(["history", "--db", str(db)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[-4:] == ["10", "2", "0", "1,000"]
    assert lines[2:] == [
        "run 1: 1 process stopped without closing (killed?): its figures count up to its "
        "last commit; what it fetched after that is not known"
    ]


def test_a_resume_of_a_finished_run_leaves_its_figures_as_they_were(
    changing: ChangingSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--resume`` on a finished run has nothing to do: it must not end the run again.

    It did, so the run's end moved to the resume's and ``history`` showed the minutes
    between the two as the run's duration (a fleet's lead resumed after a worker had
    finished the crawl met it too).
    """
    db = tmp_path / "site.sqlite"
    out = str(tmp_path / "o")
    assert main(["crawl", changing.base + "/", "--db", str(db), "-o", out]) == 0
    capsys.readouterr()
    assert main(["history", "--db", str(db), "--format", "json"]) == 0
    before = capsys.readouterr().out
    assert main(["crawl", "--resume", "--db", str(db), "-o", out]) == 0
    capsys.readouterr()
    assert main(["history", "--db", str(db), "--format", "json"]) == 0
    assert capsys.readouterr().out == before
