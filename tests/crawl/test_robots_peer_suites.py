"""More projects' robots.txt test cases, in our words: Scrapy's Protego and samclarke's
robots-parser (Node).

Protego: ``tests/test_protego.py`` and ``tests/test_on_google_spec.py`` (scrapy/protego
0.6.1).  robots-parser: ``test/Robots.js`` (samclarke/robots-parser 3.x).  Each row is a
robots.txt, the agent, and the URLs the peer's test says are allowed and disallowed; the
URL is asked the way the crawler asks (:func:`sitemapkit.crawl.urlnorm.normalize` first,
the site's query order kept).  robots-parser's cases of a URL on *another* origin than
the robots.txt are left out: our engine keeps one policy per origin and never asks one
origin's policy about another.  Where we deliberately differ, the row is ``xfail`` with
the reason.  ``Crawl-delay`` / ``Request-rate`` and ``Sitemap:`` lines follow.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sitemapkit.crawl.robots import RobotsPolicy
from sitemapkit.crawl.urlnorm import QueryPolicy, normalize

SPELLING = QueryPolicy(order="keep")
E = "http://www.example.com"
S = "https://site.local"
F = "http://foo.bar"


def _policy(robots: str, origin: str = E) -> RobotsPolicy:
    body = robots.encode("utf-8", "surrogatepass")
    return RobotsPolicy.from_response(200, body, url=f"{origin}/robots.txt")


def allowed(robots: str, agent: str, url: str) -> bool:
    origin = "/".join(url.split("/", 3)[:3])
    crawled = normalize(url, policy=SPELLING)
    assert crawled is not None, url
    return _policy(robots, origin).allowed(crawled, agent)


def _lines(*lines: str, sep: str = "\n") -> str:
    return sep.join(lines)


#: RFC 9309 2.2.2's own table: "/foo/bar?baz=https://foo.bar" matches a rule written
#: "/foo/bar?baz=https%3A%2F%2Ffoo.bar"; robots-parser keeps reserved escapes apart.
_RFC_ESCAPES = (
    "RFC 9309 2.2.2: a percent-encoded reserved character matches the character (its "
    "example: 'https%3A%2F%2Ffoo.bar' and 'https://foo.bar'); robots-parser compares escapes "
    "as written"
)

# (id, robots.txt, agent, allowed URLs, disallowed URLs, xfail reason per URL)
Case = tuple[str, str, str, list[str], list[str]]

FISH = _lines("User-agent: *", "Disallow: /fish/", "Disallow: /test.html")
FISH_OK = [f"{E}/fish", f"{E}/Test.html"]
FISH_NO = [f"{E}/fish/index.php", f"{E}/fish/", f"{E}/test.html"]
UNICODE = _lines(
    "User-agent: *",
    "Disallow: /%CF%80",
    "Disallow: /%e2%9d%83",
    "Disallow: /%a%a",
    "Disallow: /💩",
    "Disallow: /✼*t$",
    "Disallow: /%E2%9C%A4*t$",
    "Disallow: /✿%a",
    "Disallow: /http%3A%2F%2Fexample.org",
)
PORTS = _lines("User-agent: *", "Disallow: /fish/", "Disallow: /test.html")

ROBOTS_PARSER: list[Case] = [
    ("disallow", FISH, "x", FISH_OK, FISH_NO),
    (
        "allow",
        _lines(
            "User-agent: *",
            "Disallow: /fish/",
            "Disallow: /test.html",
            "Allow: /fish/test.html",
            "Allow: /test.html",
        ),
        "x",
        [f"{E}/fish", f"{E}/fish/test.html", f"{E}/Test.html", f"{E}/test.html"],
        [f"{E}/fish/index.php", f"{E}/fish/"],
    ),
    (
        "patterns",
        _lines("User-agent: *", "Disallow: /fish*.php", "Disallow: /*.dext$"),
        "x",
        [f"{E}/Fish.PHP", f"{E}/Fish.dext1"],
        [
            f"{E}/fish.php",
            f"{E}/fishheads/catfish.php?parameters",
            f"{E}/AnYthInG.dext",
            f"{E}/Fish.dext.dext",
        ],
    ),
    (
        "precedence",
        _lines(
            "User-agent: *",
            "Disallow: /fish*.php",
            "Allow: /fish/index.php",
            "Disallow: /test",
            "Allow: /test/",
            "Disallow: /aa/",
            "Allow: /aa/",
            "Allow: /bb/",
            "Disallow: /bb/",
        ),
        "x",
        [
            f"{E}/test/index.html",
            f"{E}/fish/index.php",
            f"{E}/test/",
            f"{E}/aa/",
            f"{E}/bb/",
            f"{E}/x/",
        ],
        [f"{E}/fish.php", f"{E}/fishheads/catfish.php?parameters", f"{E}/test"],
    ),
    (
        "wildcard precedence",
        _lines("User-agent: *", "Disallow: /*/", "Allow: /x/"),
        "x",
        [f"{E}/x/", f"{E}/fish.php", f"{E}/test"],
        [f"{E}/a/", f"{E}/xx/", f"{E}/test/index.html"],
    ),
    ("lines ended by CR", FISH.replace("\n", "\r"), "x", FISH_OK, FISH_NO),
    ("lines ended by CRLF", FISH.replace("\n", "\r\n"), "x", FISH_OK, FISH_NO),
    (
        "mixed line endings",
        "User-agent: *\rDisallow: /fish/\r\nDisallow: /test.html\n\n",
        "x",
        FISH_OK,
        FISH_NO,
    ),
    (
        "rules outside a group",
        _lines("Disallow: /secret.html", "Disallow: /test"),
        "x",
        [f"{E}/secret.html", f"{E}/test/index.html", f"{E}/test/"],
        [],
    ),
    (
        "comments",
        _lines(
            "#",
            "# This is a comment",
            "#",
            "User-agent: *",
            "# This is a comment",
            "Disallow: /fish/",
            "# Disallow: fish",
            "Disallow: /test.html",
        ),
        "x",
        FISH_OK,
        FISH_NO,
    ),
    (
        "invalid lines",
        _lines(
            "invalid line",
            "User-agent: *",
            "Disallow: /fish/",
            ":::::another invalid line:::::",
            "Disallow: /test.html",
            "Unknown: tule",
        ),
        "x",
        FISH_OK,
        FISH_NO,
    ),
    (
        "empty user-agent",
        _lines("User-agent:", "Disallow: /fish/", "Disallow: /test.html"),
        "x",
        FISH_OK + FISH_NO,
        [],
    ),
    (
        "multiple agents, any case",
        _lines("User-agent: agenta", "User-agent: agentb", "Disallow: /fish"),
        "AgentB",
        [],
        [f"{E}/fish"],
    ),
    (
        "unicode, escaped and punycode hosts",
        _lines("User-agent: *", "Disallow: /secret.html", "Disallow: /test"),
        "x",
        ["http://www.münich.com/index.html", "http://www.xn--mnich-kva.com/index.html"],
        ["http://www.münich.com/secret.html", "http://www.xn--mnich-kva.com/secret.html"],
    ),
    (
        "unicode and escaped paths",
        UNICODE,
        "x",
        [
            f"{E}/✼testing",
            f"{E}/%E2%9C%BCtesting",
            f"{E}/✤testing",
            f"{E}/%E2%9C%A4testing",
            f"{E}/http://example.org",
        ],
        [
            f"{E}/%CF%80",
            f"{E}/%CF%80/index.html",
            f"{E}/π",
            f"{E}/π/index.html",
            f"{E}/%e2%9d%83",
            f"{E}/%E2%9D%83/index.html",
            f"{E}/❃",
            f"{E}/❃/index.html",
            f"{E}/%F0%9F%92%A9",
            f"{E}/%F0%9F%92%A9/index.html",
            f"{E}/💩",
            f"{E}/💩/index.html",
            f"{E}/%a%a",
            f"{E}/%a%a/index.html",
            f"{E}/✼test",
            f"{E}/%E2%9C%BCtest",
            f"{E}/✤test",
            f"{E}/%E2%9C%A4testt",
            f"{E}/✿%a",
            f"{E}/%E2%9C%BF%atest",
            f"{E}/http%3A%2F%2Fexample.org",
        ],
    ),
    (
        "lone surrogates cannot be disallowed",
        _lines("User-agent: *", "Disallow: /\ud800", "Disallow: /\udc00"),
        "x",
        [f"{E}/x", f"{E}/"],
        [],
    ),
    (
        "host case ignored",
        _lines("User-agent: *", "Disallow: /secret.html", "Disallow: /test"),
        "x",
        [
            f"{E}/index.html",
            "http://www.ExAmPlE.com/index.html",
            "http://www.EXAMPLE.com/index.html",
        ],
        [
            f"{E}/secret.html",
            "http://www.ExAmPlE.com/secret.html",
            "http://www.EXAMPLE.com/secret.html",
        ],
    ),
    ("empty robots.txt", "", "x", [f"{E}/secret.html", f"{E}/test/"], []),
    (
        "agent named like an object property",
        _lines("User-agent: *", "Disallow: /fish"),
        "constructor",
        [],
        [f"{E}/fish"],
    ),
    (
        "a 2,048-star wildcard",
        _lines("User-agent: *", "Disallow: /" + "*" * 2048 + ".html"),
        "x",
        [f"{E}/" + "sub" * 2048 + "folder/index.php"],
        [f"{E}/secret.html"],
    ),
    (
        "explicit port",
        PORTS,
        "x",
        ["http://www.example.com:8080/fish", "http://www.example.com:8080/Test.html"],
        ["http://www.example.com:8080/fish/", "http://www.example.com:8080/test.html"],
    ),
    (
        "default ports",
        PORTS,
        "x",
        ["http://www.example.com:80/fish", "https://www.example.com:443/Test.html"],
        ["http://www.example.com:80/fish/", "https://www.example.com:443/test.html"],
    ),
]

#: robots-parser rows where we keep RFC 9309's reading.
ROBOTS_PARSER_DIFFERS = {
    ("unicode and escaped paths", f"{E}/http:%2F%2Fexample.org", True): _RFC_ESCAPES,
}

PROTEGO: list[Case] = [
    (
        "allowed",
        "User-agent: * \nDisallow: /disallowed \nAllow: /allowed \nCrawl-delay: 10",
        "*",
        [f"{S}/allowed"],
        [f"{S}/disallowed"],
    ),
    (
        "prefix",
        "User-agent: * \nDisallow: /d \nCrawl-delay: 10",
        "*",
        [f"{S}/abc/d"],
        [f"{S}/disallowed"],
    ),
    (
        "length-based precedence",
        "User-agent: * \nDisallow: / \nAllow: /page",
        "*",
        [f"{S}/page"],
        [f"{S}/elsewhere"],
    ),
    (
        "longer disallow wins",
        "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n",
        "FooBot",
        [],
        [f"{F}/x/page.html"],
    ),
    (
        "longer allow wins",
        "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n",
        "FooBot",
        [f"{F}/x/page.html"],
        [f"{F}/x/"],
    ),
    (
        "empty rules",
        "user-agent: FooBot\ndisallow: \nallow: \n",
        "FooBot",
        [f"{F}/x/page.html"],
        [],
    ),
    (
        "tie: allow wins",
        "user-agent: FooBot\ndisallow: /\nallow: /\n",
        "FooBot",
        [f"{F}/x/page.html"],
        [],
    ),
    (
        "/x vs /x/",
        "user-agent: FooBot\ndisallow: /x\nallow: /x/\n",
        "FooBot",
        [f"{F}/x/"],
        [f"{F}/x"],
    ),
    (
        "wildcard vs plain",
        "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n",
        "FooBot",
        [f"{F}/page"],
        [f"{F}/page.html"],
    ),
    (
        "longest match wins",
        "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n",
        "FooBot",
        [f"{F}/x/page.html"],
        [f"{F}/x/y.html"],
    ),
    (
        "most specific group only",
        "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n",
        "FooBot",
        [f"{F}/x/page"],
        [f"{F}/y/page"],
    ),
    (
        "allow /$",
        "user-agent: FooBot\nallow: /$\ndisallow: /\n",
        "FooBot",
        [f"{F}/"],
        [f"{F}/page.html"],
    ),
    (
        "escaped rule, raw URL",
        "User-agent: * \nDisallow: / \nAllow: /a%3cd.html",
        "*",
        [f"{S}/a<d.html", f"{S}/a%3cd.html"],
        [],
    ),
    (
        "raw rule, escaped URL",
        "User-agent: * \nDisallow: / \nAllow: /a<*",
        "*",
        [f"{S}/a<d.html", f"{S}/a%3cd.html"],
        [],
    ),
    (
        "params and query",
        "User-agent: * \nDisallow: /path;params?query \n",
        "*",
        [],
        ["http://userinfo@exmaple.com:10/path;params?query#fragment"],
    ),
    ("bare ?", "User-agent: * \nDisallow: /? \n", "*", [f"{S}/"], [f"{S}/?query"]),
    (
        "wildcards in the middle and $",
        "User-agent: first\nDisallow: /disallowed/*/end$\nDisallow: /protego*work\n",
        "first",
        [
            f"{S}/disallowed",
            f"{S}/disallowed/xyz/endinglater",
            f"{S}/rotego_does_work",
            f"{S}/protego_does_wor",
        ],
        [
            f"{S}/disallowed/xyz/end",
            f"{S}/protegoworks",
            f"{S}/protego/works",
            f"{S}/protego_does_work",
        ],
    ),
    (
        "leading wildcard allow",
        "User-agent: second\nAllow: /*allowed\nDisallow: /\n",
        "second",
        [f"{S}/allowed", f"{S}/is_still_allowed", f"{S}/is_allowed_too"],
        [f"{S}/other"],
    ),
    (
        "Disallow: *m",
        "User-agent: R3\nDisallow:  *m\n",
        "R3",
        [f"{S}/foo", f"{S}/foo/bar.txt"],
        [f"{S}/foo.htm", f"{S}/moo", f"{S}/foom"],
    ),
    (
        "Allow /foo$ before /foo",
        "User-agent: R6\nAllow:  /foo$\nDisallow:  /foo\n",
        "R6",
        [f"{S}/foo"],
        [f"{S}/foo/", f"{S}/foo/bar.html", f"{S}/fooey"],
    ),
    (
        "excessive wildcards",
        "User-agent: R7\nAllow: *****************/****.js\nDisallow: /\n",
        "R7",
        [f"{S}/xyz/foo.js"],
        [f"{S}/inlife/daily/fashion-20160727/"],
    ),
    (
        "unicode rules",
        "User-Agent: *\nDisallow: /wiki/K%C3%A4ytt%C3%A4j%C3%A4:\n"
        "Disallow: /wiki/Keskustelu_käyttäjästä:\n",
        "*",
        [f"{S}/"],
        [
            f"{S}/wiki/Käyttäjä:",
            f"{S}/wiki/K%C3%A4ytt%C3%A4j%C3%A4:",
            f"{S}/wiki/Keskustelu_k%C3%A4ytt%C3%A4j%C3%A4st%C3%A4:",
        ],
    ),
    (
        "unicode agent inside a browser agent",
        "User-Agent: Jävla-Foobot\nDisallow: /\n\n"
        "User-Agent: Львів-bot\nDisallow: /totalitarianism/\n",
        "Mozilla/5.0 (compatible; Львів-bot/1.1)",
        [f"{S}/"],
        [f"{S}/totalitarianism/foo.htm"],
    ),
    (
        "jävla-foobot",
        "User-Agent: Jävla-Foobot\nDisallow: /\n",
        "jävla-foobot",
        [],
        [f"{S}/foo/bar.html"],
    ),
    (
        "jävla-fanbot",
        "User-Agent: Jävla-Foobot\nDisallow: /\n",
        "jävla-fanbot",
        [f"{S}/foo/bar.html"],
        [],
    ),
    (
        "no leading user-agent",
        "Disallow: /withoutUA\nAllow: /withoutUA/exception\n"
        "User-Agent: testbot\nDisallow: /withUA\n",
        "testbot",
        [f"{S}/withoutUA"],
        [f"{S}/withUA"],
    ),
    (
        "default group",
        "User-Agent: robot\nDisallow: /ro-bot\n\nUser-Agent: *\nDisallow: /default-UA\n",
        "mybot",
        [f"{S}/ro-bot"],
        [f"{S}/default-UA"],
    ),
    ("agent case", "User-Agent: testbot\nDisallow: /testbot\n", "tEStbOt", [], [f"{S}/testbot"]),
    (
        "comments",
        "# c1\nUser-Agent: one # c2\n# c3\nUser-Agent: two\nDisallow: /one-two-bot\n"
        "# Disallow: /commented\nUser-Agent: *\nDisallow: /default-ua\n",
        "two",
        [f"{S}/commented", f"{S}/default-ua"],
        [f"{S}/one-two-bot"],
    ),
    (
        "unknown directive and malformed line",
        "User-Agent: one\nDisallow: /bot-one\nHarry: Potter\nHarry Potter\nUser-Agent: two\n"
        "Disallow: /bot-two\n",
        "one",
        [f"{S}/bot-two"],
        [f"{S}/bot-one"],
    ),
    (
        "empty group",
        "User-Agent: harrybot\nDisallow: /\nUser-Agent: testbot\n",
        "testbot",
        [f"{S}/path1"],
        [],
    ),
    (
        "1994 RFC",
        "User-agent: *\nDisallow: /cyberworld/map/ # infinite\n"
        "Disallow: /tmp/\nDisallow: /foo.html\n",
        "CrunchyFrogBot",
        [f"{S}/", f"{S}/foo.htm", f"{S}/foo.shtml", f"{S}/cyberworld/index.html"],
        [f"{S}/foo.html", f"{S}/foo.htmlx", f"{S}/tmp/foo.html"],
    ),
    (
        "1996 RFC: 1bot",
        "User-agent: 1bot\nAllow: /tmp\nDisallow: /\n",
        "1bot",
        [f"{S}/tmp.html", f"{S}/tmp"],
        [f"{S}/x"],
    ),
    (
        "1996 RFC: 2bot",
        "User-agent: 2bot\nAllow: /tmp/\nDisallow: /\n",
        "2bot",
        [f"{S}/tmp/", f"{S}/tmp/a.html"],
        [f"{S}/tmp"],
    ),
    (
        "1996 RFC: 3bot",
        "User-agent: 3bot\nAllow: /a%3cd.html\nDisallow: /\n",
        "3bot",
        [f"{S}/a%3cd.html", f"{S}/a%3Cd.html"],
        [],
    ),
    (
        "1996 RFC: 7bot",
        "User-agent: 7bot\nAllow: /%7ejoe/index.html\nDisallow: /\n",
        "7bot",
        [f"{S}/~joe/index.html"],
        [],
    ),
    (
        "1996 RFC: 8bot",
        "User-agent: 8bot\nAllow: /~joe/index.html\nDisallow: /\n",
        "8bot",
        [f"{S}/%7Ejoe/index.html"],
        [],
    ),
    (
        "1996 RFC: OtherBot",
        "User-agent: unhipbot\nDisallow: /\n\n"
        "User-agent: webcrawler\nUser-agent: excite\nDisallow:\n\n"
        "User-agent: *\nDisallow: /org/plans.html\nAllow: /org/\n"
        "Allow: /serv\nAllow: /~mak\nDisallow: /\n",
        "OtherBot",
        [
            f"{S}/server.html",
            f"{S}/services/fast.html",
            f"{S}/org/about.html",
            f"{S}/%7Emak/mak.html",
        ],
        [
            f"{S}/",
            f"{S}/index.html",
            f"{S}/orgo.gif",
            f"{S}/org/plans.html",
            f"{S}/%7Ejim/jim.html",
        ],
    ),
    (
        "implicit allow",
        "User-agent: *\nDisallow:    /\nUser-agent: foobot\nDisallow:\n",
        "foobot",
        [f"{S}/bar.html"],
        [],
    ),
    (
        "unknown keys break a group",
        "User-agent: abc\nDisallow: /content/2/\nUser-agent: *\nInvalid_directive: /gb.html\n"
        "User-agent: ia_archiver\nDisallow: /\n",
        "agent",
        [f"{S}/foo", f"{S}/content/2"],
        [],
    ),
    ("generous syntax", "user-agent foobot\ndisallow /\n", "FooBot", [], [f"{F}/x/y"]),
    (
        "wildcard in an agent name",
        "user-agent: foo*bot\ndisallow: /myprofile\n",
        "foobot",
        [],
        [f"{F}/myprofile"],
    ),
    (
        "index.html is not the folder",
        "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n",
        "footbot",
        [f"{F}/allowed-slash/index.html"],
        [f"{F}/allowed-slash/index.htm", f"{F}/anyother-url"],
    ),
    (
        "query with a URL in it",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n",
        "FooBot",
        [f"{F}/foo/bar?qux=taz&baz=http://foo.bar?tar&par"],
        [],
    ),
    (
        "raw ツ rule",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n",
        "FooBot",
        [f"{F}/foo/bar/%E3%83%84", f"{F}/foo/bar/ツ"],
        [],
    ),
    (
        "escaped ツ rule",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n",
        "FooBot",
        [f"{F}/foo/bar/ツ"],
        [],
    ),
    (
        "unreserved escapes",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n",
        "FooBot",
        [f"{F}/foo/bar/baz"],
        [],
    ),
    ("path case", "user-agent: FooBot\ndisallow: /X/\n", "FooBot", [f"{F}/x/y"], [f"{F}/X/y"]),
    (
        "a $ inside a rule",
        "User-Agent: *\nDisallow: /ab$cd\n",
        "x",
        [f"{S}/ab"],
        [f"{S}/ab$cd", f"{S}/ab$cde"],
    ),
    (
        "a rule written as a full URL",
        "User-agent: *\nDisallow: http://foo.bar/bar\n",
        "x",
        [f"{F}/bar"],
        [],
    ),
    (
        "query wildcard",
        "User-agent: *\nDisallow: /*?\n",
        "x",
        [f"{S}/page"],
        [f"{S}/page?x=1", f"{S}/?a"],
    ),
]

#: Protego's Google-spec precedence: which of /group1, /group2, /group3 each agent gets.
HEDWIG = (
    "user-agent: hedwig-news\ndisallow: /\nallow: /group1\n"
    "user-agent: *\ndisallow: /\nallow: /group2\n"
    "user-agent: hedwig\ndisallow: /\nallow: /group3\n"
)


def _expand(cases: list[Case], differs: dict[tuple[str, str, bool], str]) -> Iterator[object]:
    for name, robots, agent, ok, refused in cases:
        for url, verdict in [(u, True) for u in ok] + [(u, False) for u in refused]:
            reason = differs.get((name, url, verdict))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            word = "allows" if verdict else "refuses"
            yield pytest.param(robots, agent, url, verdict, marks=marks, id=f"{name}: {word} {url}")


@pytest.mark.parametrize(
    ("robots", "agent", "url", "expected"), list(_expand(ROBOTS_PARSER, ROBOTS_PARSER_DIFFERS))
)
def test_robots_parser_cases(robots: str, agent: str, url: str, expected: bool) -> None:
    assert allowed(robots, agent, url) is expected


@pytest.mark.parametrize(("robots", "agent", "url", "expected"), list(_expand(PROTEGO, {})))
def test_protego_cases(robots: str, agent: str, url: str, expected: bool) -> None:
    assert allowed(robots, agent, url) is expected


@pytest.mark.parametrize(
    ("agent", "group"),
    [
        ("hedwig-news", "/group1"),
        ("hedwig-news2", "/group1"),
        ("hedwi", "/group2"),
        ("a", "/group2"),
        ("hedwig-new", "/group3"),
        ("hedwig-images", "/group3"),
        ("hedwigs", "/group2"),
    ],
)
def test_protego_google_agent_precedence(agent: str, group: str) -> None:
    """The group for an agent: its own name, else a name it extends with ``-``, else ``*``
    (a name inside another word never counts: ``hedwig`` is not ``hedwigs``)."""
    got = [g for g in ("/group1", "/group2", "/group3") if allowed(HEDWIG, agent, f"{S}{g}")]
    assert got == [group]


def test_a_name_inside_a_longer_name_is_not_the_agent() -> None:
    """protego matched ``User-agent: sitemap`` to the agent ``sitemapkit`` (any group
    name that starts a word of the agent) and shut the crawler out of a site that had
    only meant another robot."""
    robots = "User-agent: sitemap\nDisallow: /\n"
    assert allowed(robots, "sitemapkit", f"{S}/page")
    assert not allowed(robots, "sitemap", f"{S}/page")


DELAYS = _lines(
    "user-agent: a",
    "crawl-delay: 1",
    "user-agent: b",
    "disallow: /d",
    "user-agent: c",
    "user-agent: d",
    "crawl-delay: 10",
)
BAD_DELAYS = _lines(
    "user-agent: a",
    "crawl-delay: 1.2.1",
    "user-agent: b",
    "crawl-delay: 1.a0",
    "user-agent: c",
    "user-agent: d",
    "crawl-delay: 10a",
)
FALLBACK = _lines(
    "user-agent: *",
    "crawl-delay: 1",
    "user-agent: b",
    "crawl-delay: 12",
    "user-agent: c",
    "user-agent: d",
    "crawl-delay: 10",
)


@pytest.mark.parametrize(
    ("robots", "agent", "delay"),
    [
        pytest.param(DELAYS, "a", 1.0, id="robots-parser: a"),
        pytest.param(DELAYS, "b", None, id="robots-parser: b has none"),
        pytest.param(DELAYS, "c", 10.0, id="robots-parser: c"),
        pytest.param(DELAYS, "d", 10.0, id="robots-parser: d"),
        *[pytest.param(BAD_DELAYS, a, None, id=f"robots-parser: invalid {a}") for a in "abcd"],
        pytest.param(FALLBACK, "should-fall-back", 1.0, id="robots-parser: falls back to *"),
        pytest.param(FALLBACK, "d", 10.0, id="robots-parser: d, not * written first"),
        pytest.param(FALLBACK, "dd", 1.0, id="robots-parser: dd is not d"),
        pytest.param(FALLBACK, "should-fall-back/1.0.0", 1.0, id="robots-parser: version, *"),
        pytest.param(FALLBACK, "d/12", 10.0, id="robots-parser: version ignored"),
        pytest.param(FALLBACK, "dd / 0-32-3", 1.0, id="robots-parser: dd with a version"),
        pytest.param(FALLBACK, "b / 1.0", 12.0, id="robots-parser: b with a version"),
        pytest.param(
            "user-agent: *\ncrawl-delay: 1\nuser-agent: b\ndisallow:\n",
            "b",
            None,
            id="robots-parser: no fall back when the agent has a group",
        ),
        pytest.param(
            "User-agent: * \nDisallow: /d \nCrawl-delay: 10 \n"
            "User-agent: testbot\nCrawl-delay: 15 \n",
            "testbot",
            15.0,
            id="protego: per group",
        ),
        pytest.param("User-agent: *\nCrawl-delay: random_word", "*", None, id="protego: malformed"),
        pytest.param("User-agent: *\nDisallow: /d\n", "*", None, id="protego: none"),
        pytest.param(
            "Crawl-delay: 5.2\nUser-Agent: testbot\nDisallow: /x\n",
            "testbot",
            None,
            id="protego: no group",
        ),
    ],
)
def test_crawl_delays(robots: str, agent: str, delay: float | None) -> None:
    assert _policy(robots).crawl_delay(agent) == delay


RATES = (
    "User-agent: one\nRequest-rate: 1/10s\nUser-agent: two\nRequest-rate: 100/15m\n"
    "User-agent: three\nRequest-rate: 400/1h\nUser-agent: four\nRequest-rate: 9000/1d\n"
    "User-agent: five\nRequest-rate: 1/10s 1820-1940\nUser-agent: six\nRequest-rate: 90/180\n"
    "User-agent: seven\nRequest-rate: 1/10 0600-0845\nUser-agent: eight\nDisallow: /\n"
    "User-agent: nine\nCrawl-delay: 20\nRequest-rate: 1/5\n"
    "User-agent: ten\nCrawl-delay: 2\nRequest-rate: 1/5\n"
)


@pytest.mark.parametrize(
    ("agent", "pace"),
    [
        ("one", 10.0),
        ("two", 9.0),
        ("three", 9.0),
        ("four", 9.6),
        ("five", 10.0),
        ("six", 2.0),
        ("seven", 10.0),
        ("eight", None),
        ("nine", 20.0),
        ("ten", 5.0),
    ],
)
def test_protego_request_rates_pace_the_crawl(agent: str, pace: float | None) -> None:
    """Protego reads ``Request-rate`` (``1/10s``, ``100/15m``, ``9000/1d``, bare seconds,
    a time window); the crawl keeps the longer of it and ``Crawl-delay`` as its pace.
    Before, ``Request-rate`` was parsed and never used: a site asking for one request
    every 10 s was crawled as fast as ``--rate`` allowed."""
    policy = _policy(RATES)
    assert policy.pace(agent) == pytest.approx(pace) if pace else policy.pace(agent) is None


def test_sitemap_lines_anywhere() -> None:
    """Protego and robots-parser: ``Sitemap:`` lines belong to no group; relative ones are
    resolved against robots.txt, spaces around a value dropped, order kept."""
    robots = _lines(
        "user-agent: a",
        "crawl-delay: 1",
        "sitemap: http://example.com/test.xml",
        "user-agent: b",
        "disallow: /d",
        "sitemap: /sitemap.xml",
        "sitemap:     http://example.com/test/sitemap.xml     ",
        "User-agent: testbot",
        "Sitemap: https://site.local/sitemap2.xml",
    )
    assert _policy(robots).sitemaps == (
        "http://example.com/test.xml",
        f"{E}/sitemap.xml",
        "http://example.com/test/sitemap.xml",
        "https://site.local/sitemap2.xml",
    )
    assert _policy("User-agent: *\nDisallow: /d\n").sitemaps == ()


def test_empty_and_invalid_directives_do_not_break_parsing() -> None:
    """robots-parser: ``user-agent:::: a::`` and friends neither crash nor refuse."""
    robots = _lines(
        "user-agent:",
        "user-agent:::: a::",
        "crawl-delay:",
        "crawl-delay:::: 0:",
        "host:",
        "host:: example.com",
        "sitemap:",
        "sitemap:: site:map.xml",
        "disallow:",
        "disallow::: /:",
        "allow:",
        "allow::: /:",
    )
    policy = _policy(robots)
    assert policy.allowed(f"{E}/page", "x")
    assert policy.crawl_delay("x") is None


CRAWLEE = _lines(
    "User-agent: *",
    "Disallow: *deny_all/",
    "crawl-delay: 10",
    "User-agent: Googlebot",
    "Disallow: *deny_googlebot/",
    "crawl-delay: 1",
    "user-agent: Mozilla",
    "crawl-delay: 2",
    "sitemap: http://not-exists.com/sitemap_1.xml",
    "sitemap: http://not-exists.com/sitemap_2.xml",
)


@pytest.mark.parametrize(
    ("agent", "path", "expected"),
    [
        ("sitemapkit/0.1.0", "/something/page.html", True),
        ("sitemapkit/0.1.0", "/deny_googlebot/page.html", True),
        ("sitemapkit/0.1.0", "/deny_all/page.html", False),
        ("Googlebot", "/deny_googlebot/page.html", False),
        ("Googlebot", "/deny_all/page.html", True),
    ],
)
def test_crawlee_robots_cases(agent: str, path: str, expected: bool) -> None:
    """crawlee ``test/robots.test.ts``: rules starting with ``*``, one group per agent."""
    assert allowed(CRAWLEE, agent, f"http://not-exists.com{path}") is expected


def test_crawlee_robots_delays_and_sitemaps() -> None:
    policy = _policy(CRAWLEE, "http://not-exists.com")
    assert policy.crawl_delay("sitemapkit") == 10.0
    assert policy.crawl_delay("Googlebot") == 1.0
    assert policy.crawl_delay("Mozilla/5.0") == 2.0
    assert policy.sitemaps == (
        "http://not-exists.com/sitemap_1.xml",
        "http://not-exists.com/sitemap_2.xml",
    )
    mixed = _lines(
        "User-agent: *",
        "Sitemap: http://not-exists.com/legit.xml",
        "Sitemap: http://other.test/cross.xml",
        "Sitemap: mailto:foo@bar.com",
        "Sitemap: ftp://not-exists.com/cross.xml",
    )
    listed = _policy(mixed, "http://not-exists.com")
    assert listed.sitemaps == ("http://not-exists.com/legit.xml", "http://other.test/cross.xml")
    assert listed.invalid_sitemaps == ("mailto:foo@bar.com", "ftp://not-exists.com/cross.xml")
