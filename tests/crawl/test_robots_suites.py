"""Other projects' robots.txt test cases, in our words: Google's and CPython's.

Google's: google/robotstxt ``robots_test.cc`` (the reference parser RFC 9309 grew from).
CPython's: ``Lib/test/test_robotparser.py`` (urllib.robotparser), where it differs from
RFC 9309 the row says what we do and why.

Each row is a robots.txt, the agent, the URL and the verdict Google's reference parser
gives (which RFC 9309 follows).  The URLs are given as our crawler hands them to
:meth:`RobotsPolicy.allowed`: already normalised (percent-encoded, upper-case escapes), so
Google's cases of a raw ``ツ`` in the *URL* (which its matcher is told not to expect) are
asked with the URL our normaliser makes of it.  Where we deliberately differ from Google, the
row is marked ``xfail`` with the reason.
"""

from __future__ import annotations

import pytest

from sitemapkit.crawl.robots import RobotsPolicy
from sitemapkit.crawl.urlnorm import QueryPolicy, normalize

#: The engine asks robots.txt about the site's own spelling: its query order kept.
SPELLING = QueryPolicy(order="keep")


def allowed(robots: str | bytes, agent: str, url: str) -> bool:
    body = robots.encode() if isinstance(robots, str) else robots
    policy = RobotsPolicy.from_response(200, body, url="http://foo.bar/robots.txt")
    crawled = normalize(url, policy=SPELLING)
    assert crawled is not None, url
    return policy.allowed(crawled, agent)


GROUPS = (
    "allow: /foo/bar/\n\nuser-agent: FooBot\ndisallow: /\nallow: /x/\nuser-agent: BarBot\n"
    "disallow: /\nallow: /y/\n\n\nallow: /w/\nuser-agent: BazBot\n\nuser-agent: FooBot\n"
    "allow: /z/\ndisallow: /\n"
)
UPPER = "USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n"
CAMEL = "uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n"
GLOBAL = "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n"
ONLY_SPECIFIC = (
    "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\n"
    "user-agent: BazBot\ndisallow: /\n"
)
FISH = "user-agent: FooBot\ndisallow: /\nallow: /fish\n"
FISH_STAR = "user-agent: FooBot\ndisallow: /\nallow: /fish*\n"
FISH_SLASH = "user-agent: FooBot\ndisallow: /\nallow: /fish/\n"
PHP = "user-agent: FooBot\ndisallow: /\nallow: /*.php\n"
PHP_END = "user-agent: FooBot\ndisallow: /\nallow: /*.php$\n"
FISH_PHP = "user-agent: FooBot\ndisallow: /\nallow: /fish*.php\n"
SPECIAL_1 = "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n"
SPECIAL_2 = "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n"
SPECIAL_3 = "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n"
B = "http://foo.bar"

CASES = [
    # (id, robots.txt, agent, url, allowed)
    ("line syntax: correct", "user-agent: FooBot\ndisallow: /\n", "FooBot", f"{B}/x/y", False),
    ("line syntax: unknown names", "foo: FooBot\nbar: /\n", "FooBot", f"{B}/x/y", True),
    ("groups: foo x", GROUPS, "FooBot", f"{B}/x/b", True),
    ("groups: foo z (merged group)", GROUPS, "FooBot", f"{B}/z/d", True),
    ("groups: foo y", GROUPS, "FooBot", f"{B}/y/c", False),
    ("groups: bar y", GROUPS, "BarBot", f"{B}/y/c", True),
    ("groups: bar w (blank lines keep the group)", GROUPS, "BarBot", f"{B}/w/a", True),
    ("groups: bar z", GROUPS, "BarBot", f"{B}/z/d", False),
    ("groups: baz shares foo's second group", GROUPS, "BazBot", f"{B}/z/d", True),
    ("groups: rule before any group ignored (foo)", GROUPS, "FooBot", f"{B}/foo/bar/", False),
    ("groups: rule before any group ignored (bar)", GROUPS, "BarBot", f"{B}/foo/bar/", False),
    ("groups: rule before any group ignored (baz)", GROUPS, "BazBot", f"{B}/foo/bar/", False),
    ("names ignore case: upper allowed", UPPER, "FooBot", f"{B}/x/y", True),
    ("names ignore case: camel allowed", CAMEL, "FooBot", f"{B}/x/y", True),
    ("names ignore case: upper disallowed", UPPER, "FooBot", f"{B}/a/b", False),
    ("names ignore case: camel disallowed", CAMEL, "FooBot", f"{B}/a/b", False),
    (
        "agent value ignores case (FOO BAR read up to the space)",
        "User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n",
        "foo",
        f"{B}/a/b",
        False,
    ),
    (
        "agent value ignores case, allowed",
        "User-Agent: FoO bAr\nAllow: /x/\nDisallow: /\n",
        "Foo",
        f"{B}/x/y",
        True,
    ),
    (
        "agent value up to the first space",
        "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n",
        "Foo",
        f"{B}/x/y",
        True,
    ),
    ("no groups: allowed", "", "FooBot", f"{B}/x/y", True),
    ("specific group beats *", GLOBAL, "FooBot", f"{B}/x/y", False),
    ("* for others", GLOBAL, "BarBot", f"{B}/x/y", True),
    ("no matching group, no *", ONLY_SPECIFIC, "QuxBot", f"{B}/x/y", True),
    (
        "value case sensitive: match",
        "user-agent: FooBot\ndisallow: /x/\n",
        "FooBot",
        f"{B}/x/y",
        False,
    ),
    (
        "value case sensitive: no match",
        "user-agent: FooBot\ndisallow: /X/\n",
        "FooBot",
        f"{B}/x/y",
        True,
    ),
    (
        "longest: disallow longer",
        "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n",
        "FooBot",
        f"{B}/x/page.html",
        False,
    ),
    (
        "longest: allow longer",
        "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n",
        "FooBot",
        f"{B}/x/page.html",
        True,
    ),
    (
        "longest: folder itself",
        "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n",
        "FooBot",
        f"{B}/x/",
        False,
    ),
    (
        "empty allow and disallow",
        "user-agent: FooBot\ndisallow: \nallow: \n",
        "FooBot",
        f"{B}/x/page.html",
        True,
    ),
    (
        "equal / rules: allow wins",
        "user-agent: FooBot\ndisallow: /\nallow: /\n",
        "FooBot",
        f"{B}/x/page.html",
        True,
    ),
    ("/x vs /x/: /x", "user-agent: FooBot\ndisallow: /x\nallow: /x/\n", "FooBot", f"{B}/x", False),
    ("/x vs /x/: /x/", "user-agent: FooBot\ndisallow: /x\nallow: /x/\n", "FooBot", f"{B}/x/", True),
    (
        "equal page rules: allow wins",
        "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n",
        "FooBot",
        f"{B}/x/page.html",
        True,
    ),
    (
        "/page vs /*.html: page.html",
        "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n",
        "FooBot",
        f"{B}/page.html",
        False,
    ),
    (
        "/page vs /*.html: page",
        "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n",
        "FooBot",
        f"{B}/page",
        True,
    ),
    (
        "/x/page. vs /*.html",
        "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n",
        "FooBot",
        f"{B}/x/page.html",
        True,
    ),
    (
        "/x/page. vs /*.html: y.html",
        "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n",
        "FooBot",
        f"{B}/x/y.html",
        False,
    ),
    (
        "specific group allows what * forbids",
        "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n",
        "FooBot",
        f"{B}/x/page",
        True,
    ),
    (
        "specific group's own rule",
        "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n",
        "FooBot",
        f"{B}/y/page",
        False,
    ),
    (
        "query with a URL in it stays as is",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n",
        "FooBot",
        f"{B}/foo/bar?qux=taz&baz=http://foo.bar?tar&par",
        True,
    ),
    (
        "utf-8 rule matches the encoded URL",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n",
        "FooBot",
        f"{B}/foo/bar/%E3%83%84",
        True,
    ),
    (
        "utf-8 rule matches a raw URL once we encode it",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n",
        "FooBot",
        f"{B}/foo/bar/ツ",
        True,  # Google: false for the raw URL its caller should have encoded; we encode it
    ),
    (
        "encoded rule matches the encoded URL",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n",
        "FooBot",
        f"{B}/foo/bar/%E3%83%84",
        True,
    ),
    (
        "encoded unreserved rule: plain URL",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n",
        "FooBot",
        f"{B}/foo/bar/baz",
        True,  # Google: false ("should not be relied on"); RFC 9309 2.2.2 compares decoded
    ),
    ("special: disallowed page", SPECIAL_1, "FooBot", f"{B}/foo/bar/quz", False),
    ("special: /foo/quz", SPECIAL_1, "FooBot", f"{B}/foo/quz", True),
    ("special: /foo//quz", SPECIAL_1, "FooBot", f"{B}/foo//quz", True),
    ("special: /foo/bax/quz", SPECIAL_1, "FooBot", f"{B}/foo/bax/quz", True),
    ("special $: /foo/bar", SPECIAL_2, "FooBot", f"{B}/foo/bar", False),
    ("special $: /foo/bar/qux", SPECIAL_2, "FooBot", f"{B}/foo/bar/qux", True),
    ("special $: /foo/bar/", SPECIAL_2, "FooBot", f"{B}/foo/bar/", True),
    ("special $: /foo/bar/baz", SPECIAL_2, "FooBot", f"{B}/foo/bar/baz", True),
    ("comment: /foo/bar", SPECIAL_3, "FooBot", f"{B}/foo/bar", True),
    ("comment cuts the rule: /foo/quz", SPECIAL_3, "FooBot", f"{B}/foo/quz", False),
    ("docs /fish: /bar", FISH, "FooBot", f"{B}/bar", False),
    ("docs /fish: /fish", FISH, "FooBot", f"{B}/fish", True),
    ("docs /fish: /fish.html", FISH, "FooBot", f"{B}/fish.html", True),
    ("docs /fish: /fish/salmon.html", FISH, "FooBot", f"{B}/fish/salmon.html", True),
    ("docs /fish: /fishheads", FISH, "FooBot", f"{B}/fishheads", True),
    ("docs /fish: /fishheads/yummy.html", FISH, "FooBot", f"{B}/fishheads/yummy.html", True),
    ("docs /fish: /fish.html?id=anything", FISH, "FooBot", f"{B}/fish.html?id=anything", True),
    ("docs /fish: /Fish.asp", FISH, "FooBot", f"{B}/Fish.asp", False),
    ("docs /fish: /catfish", FISH, "FooBot", f"{B}/catfish", False),
    ("docs /fish: /?id=fish", FISH, "FooBot", f"{B}/?id=fish", False),
    ("docs /fish*: /fish", FISH_STAR, "FooBot", f"{B}/fish", True),
    ("docs /fish*: /fishheads/yummy.html", FISH_STAR, "FooBot", f"{B}/fishheads/yummy.html", True),
    ("docs /fish*: /Fish.bar", FISH_STAR, "FooBot", f"{B}/Fish.bar", False),
    ("docs /fish*: /catfish", FISH_STAR, "FooBot", f"{B}/catfish", False),
    ("docs /fish/: /fish/", FISH_SLASH, "FooBot", f"{B}/fish/", True),
    ("docs /fish/: /fish/salmon", FISH_SLASH, "FooBot", f"{B}/fish/salmon", True),
    ("docs /fish/: /fish/?salmon", FISH_SLASH, "FooBot", f"{B}/fish/?salmon", True),
    ("docs /fish/: /fish", FISH_SLASH, "FooBot", f"{B}/fish", False),
    ("docs /fish/: /fish.html", FISH_SLASH, "FooBot", f"{B}/fish.html", False),
    ("docs /fish/: /Fish/Salmon.html", FISH_SLASH, "FooBot", f"{B}/Fish/Salmon.html", False),
    ("docs /*.php: /filename.php", PHP, "FooBot", f"{B}/filename.php", True),
    ("docs /*.php: /folder/filename.php", PHP, "FooBot", f"{B}/folder/filename.php", True),
    ("docs /*.php: with parameters", PHP, "FooBot", f"{B}/folder/filename.php?parameters", True),
    (
        "docs /*.php: //folder/any.php.file.html",
        PHP,
        "FooBot",
        f"{B}//folder/any.php.file.html",
        True,
    ),
    ("docs /*.php: /filename.php/", PHP, "FooBot", f"{B}/filename.php/", True),
    ("docs /*.php: /index?f=filename.php/", PHP, "FooBot", f"{B}/index?f=filename.php/", True),
    ("docs /*.php: /php/", PHP, "FooBot", f"{B}/php/", False),
    ("docs /*.php: /index?php", PHP, "FooBot", f"{B}/index?php", False),
    ("docs /*.php: /windows.PHP", PHP, "FooBot", f"{B}/windows.PHP", False),
    ("docs /*.php$: /filename.php", PHP_END, "FooBot", f"{B}/filename.php", True),
    ("docs /*.php$: /folder/filename.php", PHP_END, "FooBot", f"{B}/folder/filename.php", True),
    ("docs /*.php$: with parameters", PHP_END, "FooBot", f"{B}/filename.php?parameters", False),
    ("docs /*.php$: /filename.php/", PHP_END, "FooBot", f"{B}/filename.php/", False),
    ("docs /*.php$: /filename.php5", PHP_END, "FooBot", f"{B}/filename.php5", False),
    ("docs /*.php$: /filename?php", PHP_END, "FooBot", f"{B}/filename?php", False),
    ("docs /*.php$: /aaaphpaaa", PHP_END, "FooBot", f"{B}/aaaphpaaa", False),
    ("docs /*.php$: //windows.PHP", PHP_END, "FooBot", f"{B}//windows.PHP", False),
    ("docs /fish*.php: /fish.php", FISH_PHP, "FooBot", f"{B}/fish.php", True),
    (
        "docs /fish*.php: catfish.php?parameters",
        FISH_PHP,
        "FooBot",
        f"{B}/fishheads/catfish.php?parameters",
        True,
    ),
    ("docs /fish*.php: /Fish.PHP", FISH_PHP, "FooBot", f"{B}/Fish.PHP", False),
    (
        "precedence: /p beats /",
        "user-agent: FooBot\nallow: /p\ndisallow: /\n",
        "FooBot",
        f"{B}/page",
        True,
    ),
    (
        "precedence: equal /folder",
        "user-agent: FooBot\nallow: /folder\ndisallow: /folder\n",
        "FooBot",
        f"{B}/folder/page",
        True,
    ),
    (
        "precedence: /*.htm longer",
        "user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n",
        "FooBot",
        f"{B}/page.htm",
        False,
    ),
    (
        "precedence: /$ root",
        "user-agent: FooBot\nallow: /$\ndisallow: /\n",
        "FooBot",
        f"{B}/",
        True,
    ),
    (
        "precedence: /$ page",
        "user-agent: FooBot\nallow: /$\ndisallow: /\n",
        "FooBot",
        f"{B}/page.html",
        False,
    ),
    (
        "CR-only line ends",
        "User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r",
        "bar",
        f"{B}/x",
        False,
    ),
    (
        "mixed line ends",
        "User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /",
        "bar",
        f"{B}/x",
        False,
    ),
    (
        "full BOM skipped",
        b"\xef\xbb\xbfUser-Agent: foo\nDisallow: /AnyValue\n",
        "foo",
        f"{B}/AnyValue",
        False,
    ),
    (
        "partial BOM (2 bytes) skipped",
        b"\xef\xbbUser-Agent: foo\nDisallow: /AnyValue\n",
        "foo",
        f"{B}/AnyValue",
        False,
    ),
    (
        "partial BOM (1 byte) skipped",
        b"\xefUser-Agent: foo\nDisallow: /AnyValue\n",
        "foo",
        f"{B}/AnyValue",
        False,
    ),
    (
        "broken BOM spoils the first line",
        b"\xef\x11\xbfUser-Agent: foo\nDisallow: /AnyValue\n",
        "foo",
        f"{B}/AnyValue",
        True,
    ),
    (
        "BOM mid-file spoils its line",
        b"User-Agent: foo\n\xef\xbb\xbfDisallow: /AnyValue\n",
        "foo",
        f"{B}/AnyValue",
        True,
    ),
    ("missing colon accepted", "user-agent FooBot\ndisallow /\n", "FooBot", f"{B}/x/y", False),
    (
        "index.html rule covers its folder",
        "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n",
        "foobot",
        "http://foo.com/allowed-slash/",
        True,
    ),
    (
        "index.html rule: index.htm differs",
        "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n",
        "foobot",
        "http://foo.com/allowed-slash/index.htm",
        False,
    ),
    (
        "index.html rule: exact",
        "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n",
        "foobot",
        "http://foo.com/allowed-slash/index.html",
        True,
    ),
    (
        "index.html rule: other page",
        "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n",
        "foobot",
        "http://foo.com/anyother-url",
        False,
    ),
    (
        "no final newline",
        "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /",
        "bar",
        f"{B}/x",
        False,
    ),
]
XFAIL: dict[str, str] = {}


def _param(case: tuple[str, str | bytes, str, str, bool]) -> object:
    name = case[0]
    marks = [pytest.mark.xfail(reason=XFAIL[name], strict=True)] if name in XFAIL else []
    return pytest.param(*case[1:], id=name, marks=marks)


@pytest.mark.parametrize(("robots", "agent", "url", "expected"), [_param(c) for c in CASES])
def test_google_robots_cases(robots: str | bytes, agent: str, url: str, expected: bool) -> None:
    assert allowed(robots, agent, url) is expected


# --------------------------------------------------------------------------- CPython

CYBER = (
    "User-agent: *\nDisallow: /cyberworld/map/ # This is an infinite virtual URL space\n"
    "Disallow: /tmp/ # these will soon disappear\nDisallow: /foo.html\n"
)
CYBERMAPPER = (
    "# robots.txt for http://www.example.com/\n\nUser-agent: *\nCrawl-delay: 1\n"
    "Request-rate: 3/15\nDisallow: /cyberworld/map/ # This is an infinite virtual URL space\n\n"
    "# Cybermapper knows where to go.\nUser-agent: cybermapper\nDisallow:\n"
)
FIGTREE = (
    "User-agent: figtree\nCrawl-delay: 3\nRequest-rate: 9/30\nDisallow: /tmp\n"
    "Disallow: /a%3cd.html\nDisallow: /a%2fb.html\nDisallow: /%7ejoe/index.html\n"
)
INVALID_RATE = (
    "User-agent: *\nDisallow: /tmp/\nDisallow: /a%3Cd.html\nDisallow: /a/b.html\n"
    "Disallow: /%7ejoe/index.html\nCrawl-delay: 3\nRequest-rate: 9/banana\n"
)
GOOGLEBOT_FOLDER = (
    "User-agent: Googlebot\nAllow: /folder1/myfile.html\nDisallow: /folder1/\n"
    "Request-rate: whale/banana\n"
)
MOBILE = "User-agent: Googlebot\nDisallow: /\n\nUser-agent: Googlebot-Mobile\nAllow: /\n"
TWO_STARS = "User-agent: *\nDisallow: /some/path\n\nUser-agent: *\nDisallow: /another/path\n"
EMPTY_QUERY = "User-agent: *\nAllow: /some/path?\nDisallow: /another/path?\n"
W = "http://www.example.com"
FIG = "FigTree Robot libwww-perl/5.04"

CPYTHON_CASES = [
    ("wildcard agent: /", CYBER, "test_robotparser", f"{W}/", True),
    ("wildcard agent: /test.html", CYBER, "test_robotparser", f"{W}/test.html", True),
    ("wildcard agent: map", CYBER, "test_robotparser", f"{W}/cyberworld/map/index.html", False),
    ("wildcard agent: /tmp/xxx", CYBER, "test_robotparser", f"{W}/tmp/xxx", False),
    ("wildcard agent: /foo.html", CYBER, "test_robotparser", f"{W}/foo.html", False),
    (
        "custom agent: others barred",
        CYBERMAPPER,
        "test_robotparser",
        f"{W}/cyberworld/map/index.html",
        False,
    ),
    (
        "custom agent: cybermapper let in",
        CYBERMAPPER,
        "cybermapper",
        f"{W}/cyberworld/map/index.html",
        True,
    ),
    (
        "reject all: /",
        "# go away\nUser-agent: *\nDisallow: /\n",
        "test_robotparser",
        f"{W}/",
        False,
    ),
    (
        "reject all: /tmp/",
        "# go away\nUser-agent: *\nDisallow: /\n",
        "test_robotparser",
        f"{W}/tmp/",
        False,
    ),
    ("figtree: /foo.html", FIGTREE, "figtree", f"{W}/foo.html", True),
    ("figtree: /tmp", FIGTREE, "figtree", f"{W}/tmp", False),
    ("figtree: /tmp.html", FIGTREE, "figtree", f"{W}/tmp.html", False),
    ("figtree: /tmp/a.html", FIGTREE, "figtree", f"{W}/tmp/a.html", False),
    ("figtree: lower-case escape", FIGTREE, "figtree", f"{W}/a%3cd.html", False),
    ("figtree: upper-case escape", FIGTREE, "figtree", f"{W}/a%3Cd.html", False),
    ("figtree: escaped slash", FIGTREE, "figtree", f"{W}/a%2fb.html", False),
    ("figtree: ~ against %7e", FIGTREE, "figtree", f"{W}/~joe/index.html", False),
    ("figtree in a long agent: /tmp", FIGTREE, FIG, f"{W}/tmp", False),
    ("figtree in a long agent: /foo.html", FIGTREE, FIG, f"{W}/foo.html", True),
    ("bad request-rate: /tmp", INVALID_RATE, "test_robotparser", f"{W}/tmp", True),
    ("bad request-rate: /tmp/", INVALID_RATE, "test_robotparser", f"{W}/tmp/", False),
    ("bad request-rate: /a%3cd.html", INVALID_RATE, "test_robotparser", f"{W}/a%3cd.html", False),
    ("bad request-rate: /a/b.html", INVALID_RATE, "test_robotparser", f"{W}/a/b.html", False),
    ("bad request-rate: %7E", INVALID_RATE, "test_robotparser", f"{W}/%7Ejoe/index.html", False),
    (
        "bad crawl-delay: /.",
        "User-Agent: *\nDisallow: /.\nCrawl-delay: pears\n",
        "x",
        f"{W}/foo.html",
        True,
    ),
    (
        "allow before disallow: file",
        GOOGLEBOT_FOLDER,
        "Googlebot",
        f"{W}/folder1/myfile.html",
        True,
    ),
    (
        "allow before disallow: other",
        GOOGLEBOT_FOLDER,
        "Googlebot",
        f"{W}/folder1/anotherfile.html",
        False,
    ),
    ("lower-case agent", GOOGLEBOT_FOLDER, "googlebot", f"{W}/folder1/myfile.html", True),
    ("Googlebot keeps its group", MOBILE, "Googlebot", f"{W}/something.jpg", False),
    # CPython: disallowed (first group whose name is in the agent wins).  RFC 9309 2.2.1 and
    # Google: the group naming the agent exactly wins, so Googlebot-Mobile is allowed.
    ("Googlebot-Mobile has its own group", MOBILE, "Googlebot-Mobile", f"{W}/something.jpg", True),
    (
        "query in rule: path",
        "User-agent: *\nDisallow: /some/path?name=value\n",
        "x",
        f"{W}/some/path",
        True,
    ),
    (
        "query in rule: query",
        "User-agent: *\nDisallow: /some/path?name=value\n",
        "x",
        f"{W}/some/path?name=value",
        False,
    ),
    # CPython obeys the first * group only; RFC 9309 2.2.1 merges groups of one agent.
    ("two * groups: first", TWO_STARS, "x", f"{W}/some/path", False),
    ("two * groups: second", TWO_STARS, "x", f"{W}/another/path", False),
    ("empty query: allowed", EMPTY_QUERY, "x", f"{W}/some/path?", True),
    # CPython: disallowed.  We fetch "/another/path?" as "/another/path" (an empty query is
    # dropped by the normaliser), which the rule "/another/path?" does not cover.
    ("empty query: the URL we fetch has none", EMPTY_QUERY, "x", f"{W}/another/path?", True),
]


@pytest.mark.parametrize(
    ("robots", "agent", "url", "expected"), [pytest.param(*c[1:], id=c[0]) for c in CPYTHON_CASES]
)
def test_cpython_robotparser_cases(robots: str, agent: str, url: str, expected: bool) -> None:
    assert allowed(robots, agent, url) is expected


@pytest.mark.parametrize(
    ("robots", "agent", "delay"),
    [
        (CYBERMAPPER, "test_robotparser", 1.0),
        (CYBERMAPPER, "cybermapper", None),
        (FIGTREE, FIG, 3.0),
        (INVALID_RATE, "x", 3.0),
        ("User-Agent: *\nDisallow: /.\nCrawl-delay: pears\n", "x", None),
        ("User-agent: *\nDisallow: /bar\n", "x", None),
    ],
)
def test_cpython_crawl_delays(robots: str, agent: str, delay: float | None) -> None:
    policy = RobotsPolicy.from_response(200, robots.encode(), url=f"{W}/robots.txt")
    assert policy.crawl_delay(agent) == delay


def test_cpython_sitemap_lines_inside_a_group() -> None:
    robots = (
        "# robots.txt for http://www.example.com/\n\nUser-agent: *\n"
        "Sitemap: http://www.gstatic.com/s2/sitemaps/profiles-sitemap.xml\n"
        "Sitemap: http://www.google.com/hostednews/sitemap_index.xml\n"
        "Request-rate: 3/15\nDisallow: /cyberworld/map/ # This is an infinite virtual URL space\n"
    )
    policy = RobotsPolicy.from_response(200, robots.encode(), url=f"{W}/robots.txt")
    assert policy.sitemaps == (
        "http://www.gstatic.com/s2/sitemaps/profiles-sitemap.xml",
        "http://www.google.com/hostednews/sitemap_index.xml",
    )
    assert not allowed(robots, "x", f"{W}/cyberworld/map/index.html")


def test_cpython_forbidden_robots_txt_allows_all() -> None:
    """CPython reads a 401/403 robots.txt as "disallow all"; RFC 9309 2.3.1.3 says a 4xx
    means no file, so everything is allowed (Google does the same)."""
    policy = RobotsPolicy.from_response(403, b"Forbidden", url=f"{W}/robots.txt")
    assert policy.allowed(f"{W}/page", "x")
