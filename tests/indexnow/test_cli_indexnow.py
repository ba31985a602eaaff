"""``sitemapkit indexnow`` and ``crawl --indexnow`` against the stand-in endpoint.

A real site on 127.0.0.1 (crawled for real, serving the key file), the stand-in
endpoint that fetches that key file and enforces the protocol, and the CLI run as
users run it; what the endpoint received is what is asserted.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crawl.changing_site import ChangingSite, page
from indexnow.conftest import KEY
from indexnow.standin import StandIn
from sitemapkit.cli import main
from sitemapkit.store import open_store


def _crawl(site: ChangingSite, db: Path, *extra: str) -> int:
    return main(["crawl", site.base + "/", "--db", str(db), "-o", str(db.parent / "out"), *extra])


def _indexnow(db: Path, standin: StandIn, *extra: str) -> int:
    return main(["indexnow", "--db", str(db), "--key", KEY, "--endpoint", standin.endpoint, *extra])


def test_first_submission_sends_the_sitemap_and_a_rerun_sends_nothing(
    site: ChangingSite, standin: StandIn, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "site.sqlite"
    assert _crawl(site, db) == 0
    capsys.readouterr()
    assert _indexnow(db, standin) == 0
    (got,) = standin.accepted
    assert got.host == "127.0.0.1"
    assert got.key == KEY
    assert got.key_location == f"{site.base}/{KEY}.txt"
    assert got.content_type == "application/json; charset=utf-8"
    assert sorted(got.urls) == [site.base + p for p in ("/", "/a", "/b")]
    assert "sent 3 URLs of 127.0.0.1 (3 added): 200 accepted" in capsys.readouterr().out
    assert site.hits[f"/{KEY}.txt"] == 2  # our check, then the endpoint's
    assert _indexnow(db, standin) == 0
    assert len(standin.accepted) == 1  # nothing sent twice
    assert "nothing to send" in capsys.readouterr().out
    store = open_store(db, mode="read")
    try:
        (logged,) = store.submissions()
    finally:
        store.close()
    assert (logged.host, logged.urls, logged.status, logged.accepted) == ("127.0.0.1", 3, 200, True)


def test_after_a_recrawl_exactly_the_added_changed_and_removed_urls_go(
    site: ChangingSite, standin: StandIn, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "site.sqlite"
    assert _crawl(site, db) == 0
    assert _indexnow(db, standin) == 0
    site.pages["/"] = page("Home", "/b", "/c")
    del site.pages["/a"]
    site.pages["/b"] = page("B", "/", text="new words on b")
    site.pages["/c"] = page("C", "/")
    assert _crawl(site, db) == 0
    capsys.readouterr()
    assert _indexnow(db, standin) == 0
    assert sorted(standin.accepted[-1].urls) == [site.base + p for p in ("/", "/a", "/b", "/c")]
    out = capsys.readouterr().out
    # "/" changed (its links), /b changed (its text), /c is new, /a is gone.
    assert "4 URLs of 127.0.0.1 (1 added, 2 changed, 1 removed)" in out
    site.pages["/"] = page("Home", "/b", "/c", "/a")
    site.pages["/a"] = page("A", "/")
    assert _crawl(site, db) == 0
    assert _indexnow(db, standin) == 0
    # /a is back (added again), "/" links to it (changed); /b and /c are as submitted.
    assert sorted(standin.accepted[-1].urls) == [site.base + "/", site.base + "/a"]


@pytest.mark.parametrize(
    ("status", "cause"),
    [
        (400, "400 bad request"),
        (403, "403 forbidden: the key is not valid for this host"),
        (422, "422 unprocessable: a URL is not on the submitted host"),
    ],
)
def test_a_refusal_names_its_cause_and_the_batch_goes_next_time(
    site: ChangingSite,
    standin: StandIn,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    status: int,
    cause: str,
) -> None:
    db = tmp_path / "site.sqlite"
    assert _crawl(site, db) == 0
    capsys.readouterr()
    standin.answers = [status]
    assert _indexnow(db, standin) == 1
    err = capsys.readouterr().err
    assert cause in err
    assert "3 URLs of 127.0.0.1 (3 added) not accepted" in err
    assert "left for the next run" in err
    assert len(err.strip().splitlines()) == 1
    assert standin.refused == [(status, "configured")]
    assert standin.accepted == []
    assert _indexnow(db, standin) == 0  # the failed batch is sent the next time
    assert len(standin.accepted[0].urls) == 3


@pytest.mark.parametrize("answers", [[429], [503], [429, 500]])
def test_429_and_5xx_are_retried_honouring_retry_after(
    site: ChangingSite,
    standin: StandIn,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    answers: list[int],
) -> None:
    db = tmp_path / "site.sqlite"
    assert _crawl(site, db) == 0
    standin.answers = list(answers)
    standin.retry_after = "0"
    capsys.readouterr()
    assert _indexnow(db, standin) == 0
    assert [s for s, _ in standin.refused] == answers
    assert len(standin.accepted) == 1
    assert "sent 3 URLs" in capsys.readouterr().out


def test_a_retry_after_over_the_cap_leaves_the_batch_for_next_time(
    site: ChangingSite, standin: StandIn, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "site.sqlite"
    assert _crawl(site, db) == 0
    standin.answers = [429]
    standin.retry_after = "3600"
    capsys.readouterr()
    assert _indexnow(db, standin) == 1
    err = capsys.readouterr().err
    assert "429 too many requests" in err
    assert "asked to wait 3600 s, over the 60 s cap" in err
    assert len(standin.refused) == 1  # asked once, not hammered
    assert _indexnow(db, standin) == 0
    assert len(standin.accepted) == 1


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (None, "answered 404; serve a file there whose body is the key"),
        ("another-key-123", "holds 'another-key-123', not the key"),
        ("", "is empty"),
    ],
)
def test_a_key_file_that_does_not_prove_the_key_is_named_and_nothing_is_sent(
    site: ChangingSite,
    standin: StandIn,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    body: str | None,
    problem: str,
) -> None:
    db = tmp_path / "site.sqlite"
    assert _crawl(site, db) == 0
    if body is None:
        del site.pages[f"/{KEY}.txt"]
    else:
        site.pages[f"/{KEY}.txt"] = body
    capsys.readouterr()
    assert _indexnow(db, standin) == 1
    err = capsys.readouterr().err
    assert (
        f"3 URLs of 127.0.0.1 (3 added) not sent: key file {site.base}/{KEY}.txt {problem}" in err
    )
    assert standin.accepted == []
    assert standin.refused == []


def test_key_location_option_is_used_for_its_host(
    site: ChangingSite, standin: StandIn, tmp_path: Path
) -> None:
    db = tmp_path / "site.sqlite"
    assert _crawl(site, db) == 0
    site.pages["/keys/mine.txt"] = KEY
    del site.pages[f"/{KEY}.txt"]
    location = f"{site.base}/keys/mine.txt"
    assert _indexnow(db, standin, "--key-location", location) == 0
    assert standin.accepted[0].key_location == location


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--key", "short"], "is 5 characters long; an IndexNow key has 8 to 128"),
        (["--key", "has_underscore"], "holds '_'"),
        (["--key", KEY, "--endpoint", "http://api.indexnow.org/indexnow"], "is plain http"),
        (["--key", KEY, "--key-location", "ftp://example.com/k.txt"], "not an absolute https"),
    ],
)
def test_bad_keys_and_plain_http_to_real_hosts_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert main(["indexnow", "--db", str(tmp_path / "x.sqlite"), *args]) == 2
    assert message in capsys.readouterr().err


def test_dry_run_prints_what_would_go_and_sends_and_records_nothing(
    site: ChangingSite, standin: StandIn, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "site.sqlite"
    assert _crawl(site, db) == 0
    site.reset_counts()
    capsys.readouterr()
    assert _indexnow(db, standin, "--dry-run") == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        f"would send 3 URLs of 127.0.0.1 (3 added) to {standin.endpoint}, "
        f"key location {site.base}/{KEY}.txt:"
    )
    assert out[1:] == [f"  added   {site.base}{p}" for p in ("/", "/a", "/b")]
    assert standin.accepted == []
    assert standin.refused == []
    assert site.hits == {}  # no request at all
    assert _indexnow(db, standin) == 0
    assert len(standin.accepted[0].urls) == 3


def test_crawl_indexnow_submits_after_a_finished_run(
    site: ChangingSite, standin: StandIn, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "site.sqlite"
    flags = ["--indexnow", KEY, "--indexnow-endpoint", standin.endpoint]
    assert _crawl(site, db, *flags) == 0
    assert sorted(standin.accepted[0].urls) == [site.base + p for p in ("/", "/a", "/b")]
    site.pages["/b"] = page("B", "/", text="changed")
    assert _crawl(site, db, *flags) == 0
    assert standin.accepted[1].urls == [site.base + "/b"]
    assert _crawl(site, db, *flags) == 0
    assert len(standin.accepted) == 2
    assert "nothing to send" in capsys.readouterr().out


def test_crawl_indexnow_sends_nothing_for_an_unfinished_run(
    site: ChangingSite, standin: StandIn, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "site.sqlite"
    flags = ["--indexnow", KEY, "--indexnow-endpoint", standin.endpoint, "--max-pages", "1"]
    assert _crawl(site, db, *flags) == 1
    assert "not finished" in capsys.readouterr().err
    assert standin.accepted == []
    assert standin.refused == []


def test_crawl_indexnow_checks_the_key_before_crawling(
    site: ChangingSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _crawl(site, tmp_path / "s.sqlite", "--indexnow", "bad key!") == 2
    assert "--indexnow 'bad key!'" in capsys.readouterr().err
    assert site.hits == {}


def test_crawl_indexnow_needs_a_kept_store(
    site: ChangingSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["crawl", site.base + "/", "-o", str(tmp_path / "o"), "--indexnow", KEY]
    assert main(args) == 2
    assert "--indexnow needs --db FILE" in capsys.readouterr().err
    assert site.hits == {}
