"""Issue 16 item 15: `urls` and `validate` fetch only where they should.

Index children on another host are ``loc-other-host`` and not fetched unless
``--allow-other-hosts``; a public start never leads to loopback, link-local or
private addresses (redirects included) unless ``--allow-private-addresses``.
Only 127.0.0.x is reachable here: ``localhost`` and ``127.0.0.1`` of one real
server play two hosts, and a public start is acted out by telling the reader the
start's address class (``ReadLimits.start_class``), the one input the rule takes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from sitemapdata.reader_http import SiteServer
from sitemapkit.addresses import AddressGuard, address_class, may_reach
from sitemapkit.cli import main
from sitemapkit.model import Finding
from sitemapkit.read.reader import iter_sourced
from sitemapkit.read.source import ReadLimits
from sitemapkit.validate.validator import validate

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def urlset(*locs: str) -> str:
    body = "".join(f"<url><loc>{loc}</loc></url>" for loc in locs)
    return f"<urlset {NS}>{body}</urlset>"


def index(*locs: str) -> str:
    body = "".join(f"<sitemap><loc>{loc}</loc></sitemap>" for loc in locs)
    return f"<sitemapindex {NS}>{body}</sitemapindex>"


@pytest.fixture
def site() -> Iterator[SiteServer]:
    server = SiteServer().start()
    yield server
    server.stop()


def other(site: SiteServer, path: str) -> str:
    """The same server under another host name."""
    return f"http://localhost:{site.port}{path}"


@pytest.mark.parametrize(
    ("ip", "cls"),
    [
        ("127.0.0.1", "loopback"),
        ("127.3.4.5", "loopback"),
        ("::1", "loopback"),
        ("::ffff:127.0.0.1", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("100.64.0.1", "private"),
        ("fd00::1", "private"),
        ("169.254.169.254", "link-local"),
        ("fe80::1%eth0", "link-local"),
        ("0.0.0.0", "unspecified"),
        ("93.184.216.34", "public"),
        ("2606:4700::1111", "public"),
    ],
)
def test_address_classes(ip: str, cls: str) -> None:
    assert address_class(ip) == cls


def test_rule_public_start_stays_public() -> None:
    assert may_reach("public", "public")
    for target in ("private", "loopback", "link-local", "unspecified"):
        assert not may_reach("public", target)  # type: ignore[arg-type]
        assert may_reach("public", target, allow_private=True)  # type: ignore[arg-type]
        assert may_reach("loopback", target)  # type: ignore[arg-type]
        assert may_reach("private", target)  # type: ignore[arg-type]


def test_guard_refuses_a_name_that_resolves_privately() -> None:
    answers = {"www.example.com": ["93.184.216.34"], "evil.example": ["93.184.216.35", "10.0.0.5"]}

    async def resolve(host: str) -> list[str]:
        return answers[host]

    async def run() -> list[str | None]:
        guard = AddressGuard(resolve=resolve)
        return [
            await guard.check("https://www.example.com/sitemap.xml", start=True),
            await guard.check("https://www.example.com/b.xml"),
            await guard.check("http://evil.example/admin"),
            await guard.check("http://127.0.0.1:8080/"),
        ]

    ok, ok2, evil, local = asyncio.run(run())
    assert ok is None
    assert ok2 is None
    assert evil is not None
    assert "10.0.0.5" in evil
    assert "a private network address" in evil
    assert local is not None
    assert "loopback" in local


def test_public_start_is_not_redirected_to_loopback(site: SiteServer) -> None:
    site.redirect("/sitemap.xml", other(site, "/private.xml"))
    site.body("/private.xml", urlset("https://secret.example/admin"))
    public = ReadLimits(start_class="public")  # the start acts as a public address
    log: list[Finding] = []
    got = [e.entry.loc for e in iter_sourced(site.url("/sitemap.xml"), limits=public, log=log)]
    assert got == []
    assert "/private.xml" not in site.hits
    assert [f.code for f in log] == ["fetch-refused"]
    assert "localhost is a loopback address" in log[0].message
    # a loopback start (the user's own choice) may go there, and so may an explicit allow
    assert [e.entry.loc for e in iter_sourced(site.url("/sitemap.xml"))] == [
        "https://secret.example/admin"
    ]
    allowed = ReadLimits(start_class="public", allow_private=True)
    assert len(list(iter_sourced(site.url("/sitemap.xml"), limits=allowed))) == 1


def test_public_start_does_not_follow_index_children_to_private_hosts(site: SiteServer) -> None:
    site.body("/index.xml", index(site.url("/a.xml")))
    site.body("/a.xml", urlset("https://e.com/a"))
    public = ReadLimits(start_class="public", allow_other_hosts=True)
    log: list[Finding] = []
    assert list(iter_sourced(site.url("/index.xml"), limits=public, log=log)) == []
    assert "/a.xml" not in site.hits
    assert "fetch-refused" in {f.code for f in log}


def test_index_children_on_other_hosts_are_not_fetched(
    site: SiteServer, capsys: pytest.CaptureFixture[str]
) -> None:
    site.body("/index.xml", index(site.url("/same.xml"), other(site, "/far.xml")))
    site.body("/same.xml", urlset("https://e.com/same"))
    site.body("/far.xml", urlset("https://e.com/far"))
    code = main(["urls", site.url("/index.xml")])
    out, err = capsys.readouterr()
    assert (code, out) == (1, "https://e.com/same\n")
    assert "/far.xml" not in site.hits
    assert f"{site.url('/index.xml')}:1: error loc-other-host" in err
    assert "not fetched (--allow-other-hosts to follow)" in err
    code = main(["urls", "--allow-other-hosts", site.url("/index.xml")])
    out, err = capsys.readouterr()
    assert (code, out, err) == (0, "https://e.com/same\nhttps://e.com/far\n", "")


def test_validate_reports_other_host_child_once_and_skips_it(site: SiteServer) -> None:
    site.body("/index.xml", index(other(site, "/far.xml")))
    site.body("/far.xml", urlset("https://e.com/far"))
    rep = validate([site.url("/index.xml")])
    assert [f.code for f in rep.findings] == ["loc-other-host"]
    assert "/far.xml" not in site.hits
    assert any("not fetched" in why for why in rep.skipped.values())
    rep = validate([site.url("/index.xml")], limits=ReadLimits(allow_other_hosts=True))
    assert "/far.xml" in site.hits
