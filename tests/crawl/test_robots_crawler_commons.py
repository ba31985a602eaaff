"""crawler-commons' robots.txt suite, in our words: ``SimpleRobotRulesParserTest``.

From crawler-commons/crawler-commons ``src/test/java/crawlercommons/robots/
SimpleRobotRulesParserTest.java`` and the robots.txt files it reads (rewritten here, the
long ones shortened to the lines the cases need).  Each row is a robots.txt, the agent
and a URL with the verdict the peer's test gives; the URL is asked the way the crawler
asks (see :func:`crawl.test_robots_peer_suites.allowed`).  crawler-commons can match an
agent as a prefix or merge several names' groups (``exactUserAgentMatching=false``, a
list of names); we ask with one name, matched as a whole word, so those rows are asked
with the name the crawler would send.  Its rule-extension API (LLM-Policy, Visit-time
values ...) has no counterpart here.  Where we deliberately differ, the row is a strict
xfail naming the rule we follow.
"""

from __future__ import annotations

import codecs

import pytest

from crawl.test_robots_peer_suites import allowed
from sitemapkit.crawl.robots import RobotsPolicy

CRLF = "\r\n"
CR = "\r"
LF = "\n"
FICT = "http://www.fict.com"
DOMAIN = "http://www.domain.com"


def policy(robots: str | bytes, url: str = "http://domain.com/robots.txt") -> RobotsPolicy:
    body = robots.encode("utf-8") if isinstance(robots, str) else robots
    return RobotsPolicy.from_response(200, body, url=url)


def _marks(reason: str) -> list[pytest.MarkDecorator]:
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


Row = tuple[str, str, str, str, bool, str]  # id, robots, agent, url, allowed, xfail reason
ROWS: list[Row] = []


def rows(name: str, robots: str, agent: str, cases: dict[str, bool], reason: str = "") -> None:
    for url, verdict in cases.items():
        ROWS.append((f"{name}: {agent} {url}", robots, agent, url, verdict, reason))


def _google(pattern: str) -> str:
    return f"User-agent: *{CRLF}Disallow: {pattern}{CRLF}"


rows("empty file", "", "anybot", {f"{DOMAIN}/anypage.html": True})
rows(
    "query in disallow",
    f"User-agent: *{CRLF}Disallow: /index.cfm?fuseaction=sitesearch.results*",
    "anybot",
    {
        "http://searchservice.domain.com/index.cfm?fuseaction=sitesearch.results&type=People"
        "&qry=california&pg=2": False
    },
)
_FISH = {
    "/fish": False,
    "/fish.html": False,
    "/fish/salmon.html": False,
    "/fishheads": False,
    "/fishheads/yummy.html": False,
    "/fish.php?id=anything": False,
    "/Fish.asp": True,
    "/catfish": True,
    "/?id=fish": True,
    "/fis": True,
}
for _pattern in ("/fish", "/fish*"):
    rows(f"google {_pattern}", _google(_pattern), "anybot", {FICT + p: v for p, v in _FISH.items()})
rows(
    "google /fish/",
    _google("/fish/"),
    "anybot",
    {
        f"{FICT}/fish/": False,
        f"{FICT}/fish/?id=anything": False,
        f"{FICT}/fish/salmon.htm": False,
        f"{FICT}/fish": True,
        f"{FICT}/fish.html": True,
        f"{FICT}/Fish/Salmon.asp": True,
    },
)
rows(
    "google /*.php",
    _google("/*.php"),
    "anybot",
    {
        f"{FICT}/filename.php": False,
        f"{FICT}/folder/filename.php": False,
        f"{FICT}/folder/filename.php?parameters": False,
        f"{FICT}/folder/any.php.file.html": False,
        f"{FICT}/filename.php/": False,
        f"{FICT}/": True,
        f"{FICT}/windows.PHP": True,
    },
)
rows(
    "google /*.php$",
    _google("/*.php$"),
    "anybot",
    {
        f"{FICT}/filename.php": False,
        f"{FICT}/folder/filename.php": False,
        f"{FICT}/filename.php?parameters": True,
        f"{FICT}/filename.php/": True,
        f"{FICT}/filename.php5": True,
        f"{FICT}/windows.PHP": True,
    },
)
rows(
    "google /fish*.php",
    _google("/fish*.php"),
    "anybot",
    {
        f"{FICT}/fish.php": False,
        f"{FICT}/fishheads/catfish.php?parameters": False,
        f"{FICT}/Fish.PHP": True,
    },
)
rows(
    "google /*fish*.php",
    _google("/*fish*.php"),
    "anybot",
    {
        f"{FICT}/fish.php": False,
        f"{FICT}/superfishheads/catfish.php?parameters": False,
        f"{FICT}/fishheads/catfish.htm": True,
    },
)
rows(
    "commented out",
    LF.join(
        [
            "#user-agent: testAgent",
            "",
            "#allow: /index.html",
            "#allow: /test",
            "",
            "#user-agent: test",
            "#disallow: /test",
            "#user-agent: someAgent",
            "#disallow: /index.html",
        ]
    ),
    "anybot",
    {f"{DOMAIN}/anypage.html": True},
)
rows("robots.txt always", _google("/"), "any-darn-crawler", {f"{DOMAIN}/robots.txt": True})
rows(
    "agent not listed",
    CRLF.join(
        ["User-agent: crawler1", "Disallow: /index.html", "Allow: /", "", "User-agent: crawler2"]
    )
    + CRLF
    + "Disallow: /",
    "crawler3",
    {f"{DOMAIN}/anypage.html": True, f"{DOMAIN}/index.html": True},
)
rows(
    "non-ascii comment",
    f"User-agent: * # \u00a2 \u20b5{CRLF}Disallow:",
    "anybot",
    {f"{DOMAIN}/anypage.html": True},
)
_UNICODE = CRLF.join(
    ["User-agent: *", "Disallow: /bücher/", "Disallow: /k%C3%B6nyvek/", "", "User-agent: GoodBot"]
) + (CRLF + "Allow: /")
rows(
    "unescaped unicode paths",
    _UNICODE,
    "mybot",
    {
        "https://www.example.com/": True,
        "https://www.example.com/b%C3%BCcher/book1.html": False,
        "https://www.example.com/bücher/book2.html": False,
        "https://www.example.com/k%C3%B6nyvek/book1.html": False,
        "https://www.example.com/könyvek/book2.html": False,
    },
)


def _escaped(rule: str) -> str:
    return f"User-agent: *{CRLF}Disallow: {rule}{CRLF}Allow: /"


_E = "https://www.example.com"
# (rule, url, allowed): percent-escapes with meaning in a rule (RFC 9309 2.2.2, 2.2.3).
ESCAPES: list[tuple[str, str, bool, str]] = [
    ("/*%20", f"{_E}/", True, ""),
    ("/*%20", f"{_E}/foobar%20/", False, ""),
    ("/*%20", f"{_E}/foobar/", True, ""),
    ("/*%2F*", f"{_E}/path/index.html", True, ""),
    ("/*%2F*", f"{_E}/topic/9%2F11/index.html", False, ""),
    ("/topic/9%2F11/", f"{_E}/topic/9%2F11/index.html", False, ""),
    ("/topic/9%2F11/", f"{_E}/topic/9%2f11/index.html", False, ""),
    ("/q?*mime=application%2Fpdf", f"{_E}/q?mime=application%2Fpdf", False, ""),
    ("/$", f"{_E}/", False, ""),
    ("/$", f"{_E}/foobar", True, ""),
    ("/%24", f"{_E}/", True, ""),
    ("/%24", f"{_E}/%24100", False, ""),
    ("/%24", f"{_E}/$100", False, ""),
    ("/search/%2A/", f"{_E}/search/foobar/", True, ""),
    ("/search/%2A/", f"{_E}/search/%2A/", False, ""),
    ("/search/%2A/", f"{_E}/search/%2a/", False, ""),
    ("/search/%2a/", f"{_E}/search/%2a/", False, ""),
    ("/search/%2a/", f"{_E}/search/*/", False, ""),
    ("/search/*/", f"{_E}/search/foobar/", False, ""),
    ("/foo/bar?baz=quz", f"{_E}/foo/bar?baz=quz", False, ""),
    ("/foo/bar?baz=https://foo.bar", f"{_E}/foo/bar?baz=https://foo.bar", False, ""),
    (
        "/foo/bar?baz=https%3A%2F%2Ffoo.bar",
        f"{_E}/foo/bar?baz=https%3A%2F%2Ffoo.bar",
        False,
        "",
    ),
    ("/foo/bar/\u30c4", f"{_E}/foo/bar/%E3%83%84", False, ""),
    ("/foo/bar/%E3%83%84", f"{_E}/foo/bar/%E3%83%84", False, ""),
    ("/foo/bar/%62%61%7A", f"{_E}/foo/bar/baz", False, ""),
    ("/path/file-with-a-%2A.html", f"{_E}/path/file-with-a-*.html", False, ""),
    ("/path/file-with-a-%2A.html", f"{_E}/path/file-with-a-foo.html", True, ""),
    ("/path/file-with-a-%2A.html", f"{_E}/path/file-with-a-%2A.html", False, ""),
    ("/path/foo-%24", f"{_E}/path/foo-$", False, ""),
    ("/path/foo-%24", f"{_E}/path/foo-", True, ""),
    ("/path/foo-%24", f"{_E}/path/foo-%24", False, ""),
]
for _rule, _url, _verdict, _why in ESCAPES:
    ROWS.append((f"escaped {_rule}: {_url}", _escaped(_rule), "mybot", _url, _verdict, _why))

rows("simplest allow all", f"User-agent: *{CRLF}Disallow:", "anybot", {f"{DOMAIN}/a.html": True})
rows(
    "disallow with a query only",
    _google("/"),
    "anybot",
    {"http://www.example.com": False, "http://www.example.com?q=a": False},
)
_MIXED = (
    f"# /robots.txt for http://www.fict.org/{CRLF}# comments to webmaster@fict.org{CRLF}"
    f"User-agent: unhipbot{LF}Disallow: /{CR}{CRLF}"
    f"User-agent: webcrawler{LF}User-agent: excite{CR}Disallow: \u0085{CR}"
    f"User-agent: *{CRLF}Disallow: /org/plans.html{LF}Allow: /org/{CR}Allow: /serv{CRLF}"
    f"Allow: /~mak{LF}Disallow: /{CRLF}"
)
_ORG = "http://www.fict.org"
_RFP = {
    "/": False,
    "/index.html": False,
    "/robots.txt": True,
    "/server.html": True,
    "/services/fast.html": True,
    "/services/slow.html": True,
    "/orgo.gif": False,
    "/org/about.html": True,
    "/org/plans.html": False,
    "/%7Ejim/jim.html": False,
    "/%7Emak/mak.html": True,
}
rows("mixed endings", _MIXED, "WebCrawler/3.0", {f"{_ORG}/": True, f"{_ORG}/index.html": True})
rows("mixed endings", _MIXED, "Unknown/1.0", {_ORG + p: v for p, v in _RFP.items()})
_RFP_TXT = CRLF.join(
    [
        "# /robots.txt for http://www.fict.org/",
        "# comments to webmaster@fict.org",
        "",
        "User-agent: unhipbot",
        "Disallow: /",
        "",
        "User-agent: webcrawler",
        "User-agent: excite",
        "Disallow: ",
        "",
        "User-agent: *",
        "Disallow: /org/plans.html",
        "Allow: /org/",
        "Allow: /serv",
        "Allow: /~mak",
        "Disallow: /",
        "",
    ]
)
rows("RFP", _RFP_TXT, "UnhipBot/0.1", {_ORG + p: p == "/robots.txt" for p in _RFP})
for _agent in ("WebCrawler/3.0", "Excite/1.0"):
    rows("RFP", _RFP_TXT, _agent, {_ORG + p: True for p in _RFP})
rows("RFP", _RFP_TXT, "Unknown/1.0", {_ORG + p: v for p, v in _RFP.items()})

_NUTCH = CR.join(
    [
        "User-Agent: Agent1 #foo",
        "Disallow: /a",
        "Disallow: /b/a",
        "#Disallow: /c",
        "",
        "",
        "User-Agent: Agent2 Agent3#foo",
        "User-Agent: Agent4",
        "Disallow: /d",
        "Disallow: /e/d/",
        "",
        "User-Agent: *",
        "Disallow: /foo/bar/",
        "",
    ]
)
_NUTCH_PATHS = [
    "/a",
    "/a/",
    "/a/bloh/foo.html",
    "/b",
    "/b/a",
    "/b/a/index.html",
    "/b/b/foo.html",
    "/c",
    "/c/a",
    "/c/a/index.html",
    "/c/b/foo.html",
    "/d",
    "/d/a",
    "/e/a/index.html",
    "/e/d",
    "/e/d/foo.html",
    "/e/doh.html",
    "/f/index.html",
    "/foo/bar/baz.html",
    "/f/",
]
_AGENT1_NO = {"/a", "/a/", "/a/bloh/foo.html", "/b/a", "/b/a/index.html"}
_AGENT4_NO = {"/d", "/d/a", "/e/d/foo.html"}
_FIRST_WORD = (
    "a User-agent value is its product token (Google's parser, RFC 9309 2.2.1): only the "
    "first name of 'Agent2 Agent3' or 'One, Two, Three' counts; crawler-commons reads every one"
)
rows("nutch", _NUTCH, "Agent1", {DOMAIN + p: p not in _AGENT1_NO for p in _NUTCH_PATHS})
rows("nutch", _NUTCH, "Agent4", {DOMAIN + p: p not in _AGENT4_NO for p in _NUTCH_PATHS})
rows(
    "nutch",
    _NUTCH,
    "Agent2",
    {DOMAIN + p: p not in _AGENT4_NO for p in _NUTCH_PATHS},
)
# Agent3 falls to the * group here: the rows where that differs from Agent4's group.
_AGENT3_DIFFERS = _AGENT4_NO | {"/foo/bar/baz.html"}
rows(
    "nutch",
    _NUTCH,
    "Agent3",
    {DOMAIN + p: p not in _AGENT4_NO for p in _NUTCH_PATHS if p not in _AGENT3_DIFFERS},
)
rows(
    "nutch",
    _NUTCH,
    "Agent3",
    {DOMAIN + p: p not in _AGENT4_NO for p in _NUTCH_PATHS if p in _AGENT3_DIFFERS},
    _FIRST_WORD,
)
rows(
    "nutch",
    _NUTCH,
    "Agent5",
    {DOMAIN + p: p != "/foo/bar/baz.html" for p in _NUTCH_PATHS},
)
_HTML = (
    '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN"><HTML>\n<HEAD>\n'
    "<TITLE>/robots.txt</TITLE>\n</HEAD>\n<BODY>\nUser-agent: mybot<BR>\nDisallow: <BR>\n"
    "Crawl-Delay: 10<BR>\n\nUser-agent: *<BR>\nDisallow: /<BR>\nCrawl-Delay: 30<BR>\n\n"
    "</BODY>\n</HTML>\n"
)
_HTML_WHY = (
    "a value is read as written (RFC 9309): 'Disallow: /<BR>' disallows paths starting '/<BR>' "
    "and 'Crawl-Delay: 10<BR>' is no number; crawler-commons strips HTML tags first"
)
rows("html markup", _HTML, "mybot", {f"{DOMAIN}/index.html": True})
rows("html markup", _HTML, "bogusbot", {f"{DOMAIN}/index.html": False}, _HTML_WHY)
rows(
    "html page",
    "<HTML><HEAD><TITLE>Site under Maintenance</TITLE></HTML>",
    "anybot",
    {f"{DOMAIN}/": True},
)
_HERITRIX = LF.join(
    [
        "User-agent: *",
        "Disallow: /cgi-bin/",
        "Disallow: /details/software",
        "",
        "User-agent: denybot",
        "Disallow: /",
        "",
        "User-agent: allowbot1",
        "Disallow: ",
        "",
        "User-agent: allowbot2",
        "Disallow: /foo",
        "Allow: /",
        "",
        "User-agent: delaybot",
        "Disallow: /",
        "Crawl-Delay: 20",
        "Allow: /images/",
    ]
)
rows(
    "heritrix",
    _HERITRIX,
    "Mozilla allowbot1 99.9",
    {f"{DOMAIN}/path": True, f"{DOMAIN}/": True},
)
rows(
    "heritrix",
    _HERITRIX,
    "Mozilla allowbot2 99.9",
    {f"{DOMAIN}/path": True, f"{DOMAIN}/": True, f"{DOMAIN}/foo": False},
)
rows("heritrix", _HERITRIX, "Mozilla denybot 99.9", {f"{DOMAIN}/path": False, f"{DOMAIN}/": False})
rows(
    "heritrix",
    _HERITRIX,
    "Mozilla anonbot 99.9",
    {f"{DOMAIN}/path": True, f"{DOMAIN}/cgi-bin/foo.pl": False},
)
rows(
    "case-sensitive paths",
    CRLF.join(["User-agent: *", "Allow: /AnyPage.html", "Allow: /somepage.html", "Disallow: /"]),
    "anybot",
    {
        f"{DOMAIN}/AnyPage.html": True,
        f"{DOMAIN}/anypage.html": False,
        f"{DOMAIN}/somepage.html": True,
        f"{DOMAIN}/SomePage.html": False,
    },
)
rows("empty allow", f"User-agent: *{CRLF}Allow:", "anybot", {f"{DOMAIN}/anypage.html": True})
_LOWEST = {
    "http://www.example.com/": True,
    "http://www.example.com/anypage.html": True,
    "http://www.example.com/disallowed/index.html": False,
    "http://www.example.com/allowed/index.html": True,
}
rows(
    "empty disallow is lowest",
    CRLF.join(["User-agent: *", "Disallow: /disallowed/", "Allow: /allowed/", "Disallow: "]),
    "anybot",
    _LOWEST,
)
rows(
    "empty disallow in a merged group",
    CRLF.join(
        [
            "User-agent: *",
            "Disallow: /disallowed/",
            "Allow: /allowed/",
            "User-agent: *",
            "Disallow: ",
        ]
    ),
    "anybot",
    _LOWEST,
)
rows(
    "two * groups merge",
    CRLF.join(["User-agent: *", "Disallow: /index.html", "Allow: /", "", "User-agent: *"])
    + CRLF
    + "Disallow: /",
    "anybot",
    {f"{DOMAIN}/index.html": False, f"{DOMAIN}/anypage.html": True},
)
rows(
    "the most specific name",
    CRLF.join(
        ["User-agent: crawlerbot", "Disallow: /index.html", "Allow: /", "", "User-agent: crawler"]
    )
    + CRLF
    + "Disallow: /",
    "crawlerbot",
    {f"{DOMAIN}/index.html": False, f"{DOMAIN}/anypage.html": True},
)
_TWO_NAMES = CRLF.join(["User-agent: crawler1 crawler2", "Disallow: /index.html", "Allow: /"])
rows("two names on a line", _TWO_NAMES, "crawler1", {f"{DOMAIN}/index.html": False})
rows("two names on a line", _TWO_NAMES, "crawler2", {f"{DOMAIN}/anypage.html": True})
rows("two names on a line", _TWO_NAMES, "crawler2", {f"{DOMAIN}/index.html": False}, _FIRST_WORD)
rows(
    "a name with a space",
    CRLF.join(["User-agent: Download Ninja", "Disallow: /index.html", "Allow: /"]),
    "Download Ninja",
    {f"{DOMAIN}/index.html": False, f"{DOMAIN}/anypage.html": True},
)
for _line in ("User-agent: foo/1.2", "User-agent: foo bar"):
    rows(
        f"token of '{_line}'",
        CRLF.join([_line, "Disallow: /index.html", "Allow: /"]),
        "foo",
        {f"{DOMAIN}/index.html": False, f"{DOMAIN}/anypage.html": True},
    )
rows(
    "unknown field",
    CRLF.join(
        [
            "User-agent: crawler1",
            "Disallow: /index.html",
            "Allow: /",
            "newfield: 234",
            "User-agent: crawler2",
            "Disallow: /",
        ]
    ),
    "crawler2",
    {f"{DOMAIN}/anypage.html": False},
)
_KRUGLE = CR.join(
    [
        "User-agent: *",
        "Disallow: /maintenance.html",
        "Disallow: /perl/",
        "Disallow: /cgi-bin/",
        "Disallow: /examples/",
        "Crawl-delay: 3",
        "",
        "User-agent: googlebot",
        "Crawl-delay: 1",
        "",
        "User-agent: qihoobot",
        "Disallow: /",
    ]
)
_K = "http://www.krugle.com"
for _agent in ("googlebot/2.1", "googlebot", "qihoobot"):
    rows("krugle", _KRUGLE, _agent, {f"{_K}/examples/index.html": False, f"{_K}/": False})
rows("krugle", _KRUGLE, "anybot", {f"{_K}/examples/index.html": False, f"{_K}/": True})
_SELECT = CRLF.join(
    [
        "User-Agent: bingbot",
        "Crawl-delay: 1",
        "",
        "User-Agent: msnbot",
        "Crawl-delay: 2",
        "",
        "User-Agent: pinterestbot",
        "Crawl-delay: 0.2",
        "",
        "User-agent: *",
        "Disallow: /login",
        "Sitemap: http://www.example.com/sitemap.xml",
        "Disallow: /assets/",
    ]
)
_EX = "http://www.example.com"
rows("crawl-delay groups", _SELECT, "anybot", {f"{_EX}/login": False, f"{_EX}/assets/": False})
for _agent in ("bingbot", "msnbot"):
    # A Crawl-delay does not end a group (RFC 9309 2.2.1): the names share the * rules.
    rows(
        "crawl-delay groups",
        _SELECT,
        _agent,
        {f"{_EX}/login": False, f"{_EX}/assets/": False, f"{_EX}/": True},
    )
rows(
    "allow and disallow the same",
    CRLF.join(["User-agent: *", "Disallow: /fish", "Allow: /fish"]),
    "anybot",
    {f"{FICT}/fish": True},
)
_NAMES_WITH_COMMAS = CRLF.join(
    ["User-agent: One, Two, Three", "Disallow: /", "", "User-agent: *", "Allow: /"]
)
rows("names with commas", _NAMES_WITH_COMMAS, "anybot", {f"{FICT}/fish": True})
rows("names with commas", _NAMES_WITH_COMMAS, "One", {f"{FICT}/fish": False})
for _agent in ("Two", "Three"):
    rows("names with commas", _NAMES_WITH_COMMAS, _agent, {f"{FICT}/fish": False}, _FIRST_WORD)
for _first, _second in ((0, 1), (1, 0)):
    _blocks = [
        "User-agent: crawlerbot\nDisallow: /foo/bar\n",
        "User-agent: crawler\nAllow: /foo/bar\n",
    ]
    _txt = _blocks[_first] + "\n" + _blocks[_second]
    rows(f"order {_first}", _txt, "crawlerbot", {"https://example.com/foo/bar": False})
    rows(f"order {_first}", _txt, "crawler", {"https://example.com/foo/bar": True})
_BUTTERFLY = (
    "User-agent: Mozilla/5.0 (compatible; Butterfly/1.0; +http://labs.topsy.com/butterfly/) "
    "Gecko/2009032608 Firefox/3.0.8\nDisallow: /"
)
rows(
    "a whole User-Agent header as the name", _BUTTERFLY, "butterfly", {"http://example.org/": True}
)
rows("a whole User-Agent header as the name", _BUTTERFLY, "mybot", {"http://example.org/": True})

# The robots.txt files of its resources, shortened.
_TYPOS = "\n".join(
    [
        "User-agent: bot1",
        "Desallow: /desallow/",
        "dissalow: /dissalow/",
        "",
        "useragent: bot2",
        "Disallow: /useragent/",
        "",
        "useg-agent: bot3",
        "Disallow: /useg-agent/",
        "",
        "useragent bot4",
        "Disallow: /useragent-no-colon/",
    ]
)
_TYPO_WHY = "RFC 9309 and Google read only the spellings Google lists (disallow, dissallow, ...)"
rows("typos", _TYPOS, "bot1", {"http://domain.com/dissalow/": False})
rows("typos", _TYPOS, "bot1", {"http://domain.com/desallow/": False}, _TYPO_WHY)
rows("typos", _TYPOS, "bot2", {"http://domain.com/useragent/": False})
rows("typos", _TYPOS, "bot3", {"http://domain.com/useg-agent/": False}, _TYPO_WHY)
rows("typos", _TYPOS, "bot4", {"http://domain.com/useragent-no-colon/": False})
_FORMAT = "\n".join(
    [
        "User-agent: bot1",
        "disallow : /whitespace-before-colon/",
        "disallow /no-colon/",
        "",
        "user-agent bot2",
        "disallow: /no-colon-useragent/",
        "",
        "user-agent: bot3",
        "allow : /whitespace-before-colon",
        "disallow: /",
        "sitemap : /sitemap.xml",
    ]
)
rows(
    "format errors",
    _FORMAT,
    "bot1",
    {"http://domain.com/whitespace-before-colon/": False, "http://domain.com/no-colon/": False},
)
rows("format errors", _FORMAT, "bot2", {"http://domain.com/no-colon-useragent/": False})
rows("format errors", _FORMAT, "bot3", {"http://domain.com/whitespace-before-colon/": True})
_MANY = (
    "# From tech-faq.com\n"
    + "".join(
        f"User-agent: {name}\n"
        for name in (
            "OutfoxBot/0.5",
            "complex_network_group",
            "Bookmark search tool",
            "Bot mailto:craftbot@yahoo.com",
            "Crescent Internet ToolPak HTTP OLE Control v.1.0",
            "Download Demon/3.5.0.11",
            "Wget",
            "Wget/1.10.2",
            "Wget/1.9-beta",
        )
    )
    + "Disallow: /\n\nUser-agent: *\nDisallow: /translate/\nDisallow: /forum/\n"
    + "Disallow: /lang/zh-CN/forum/\nDisallow: /home.php\nDisallow: /g/\nDisallow: /bot-trap/\n"
)
rows("many agents", _MANY, "wget", {"http://domain.com/": False})
rows(
    "many agents",
    _MANY,
    "mysuperlongbotnamethatmatchesnothing",
    {"http://domain.com/": True, "http://domain.com/bot-trap/": False},
)
_MERGE = "\n".join(
    [
        "User-Agent: testy",
        "Disallow: /",
        "",
        "User-Agent: curl",
        "Disallow: /",
        "",
        "User-Agent: wget",
        "Allow: /foo/bar",
        "",
        "User-Agent: *",
        "User-Agent: wget",
        "Disallow: /foo/bar",
        "Disallow: /tmp/bar",
        "Allow: /ckh/bar",
    ]
)
rows(
    "merged groups",
    _MERGE,
    "wget",
    {
        "http://domain.com/foo/bar/bar.txt": True,
        "http://domain.com/tmp/bar/bar.txt": False,
        "http://domain.com/chk/bar/bar.txt": True,
    },
)
_PRECEDENCE = "\n".join(
    [
        "User-Agent: testy",
        "Disallow: /foo",
        "",
        "User-Agent: wget",
        "Allow: /",
        "Allow: /foo",
        "Allow: /index.html",
        "Disallow: /*",
        "",
        "User-Agent: testy",
        "Allow: /foo/bar",
        "Disallow: /foo/b*",
    ]
)
rows(
    "precedence",
    _PRECEDENCE,
    "wget",
    {
        "http://domain.com/": True,
        "http://domain.com/foo/bar": True,
        "http://domain.com/bar/foo": False,
    },
)
rows(
    "precedence",
    _PRECEDENCE,
    "testy",
    {
        "http://domain.com/": True,
        "http://domain.com/foo/bar": True,
        "http://domain.com/foo/blue": False,
        "http://domain.com/foo/": False,
        "http://domain.com/foo/tar": False,
    },
)
rows(
    "malformed path",
    "# Snippet from Wikipedia robots.txt\nUser-agent: *\n"
    "Disallow: /wiki/Wikipedia_talk:Mediation_Committee/\n"
    "Disallow: /wiki/Wikipedia_talk%3Mediation_Committee/\n",
    "bot1",
    {
        "http://en.wikipedia.org/wiki/Wikipedia_talk:Mediation_Committee/": False,
        "http://en.wikipedia.org/wiki/": True,
    },
)
rows(
    "dos line endings",
    "\r\n\r\n\r\nUser-agent: *\r\nCrawl-delay: 1\r\n\r\n",
    "bot1",
    {"http://ford.com/": True},
)
rows(
    "amazon wildcards",
    "# leading, trailing and full path wildcards\n\nUser-agent: *\n"
    "Disallow: /exec/obidos/account-access-login\nDisallow: /gp/registry/wishlist/*/reserve\n"
    "Disallow: /wishlist/\nAllow: /wishlist/universal*\nAllow: /wishlist/vendor-button*\n"
    "Disallow: */gcrnsts\nDisallow: /rss/people/*/reviews\n",
    "anybot",
    {
        f"{FICT}/wishlist/bogus": False,
        f"{FICT}/wishlist/universal/page": True,
        f"{FICT}/anydirectoryhere/gcrnsts": False,
    },
)
_RFC_SIMPLE = "\n".join(
    [
        "User-Agent: *",
        "Disallow: *.gif$",
        "Disallow: /example/",
        "Allow: /publications/",
        "",
        "User-Agent: foobot",
        "Disallow:/",
        "Allow:/example/page.html",
        "Allow:/example/allowed.gif",
        "",
        "User-Agent: barbot",
        "User-Agent: bazbot",
        "Disallow: /example/page.html",
        "",
        "User-Agent: quxbot",
    ]
)
rows(
    "RFC 9309 example",
    _RFC_SIMPLE,
    "foobot",
    {
        "https://example.org/example/page.html": True,
        "https://example.org/example/allowed.gif": True,
        "https://example.org/": False,
        "https://example.org/path/index.html": False,
    },
)
for _agent in ("barbot", "bazbot"):
    rows(
        "RFC 9309 example",
        _RFC_SIMPLE,
        _agent,
        {"https://example.org/": True, "https://example.org/example/page.html": False},
    )
rows(
    "RFC 9309 example",
    _RFC_SIMPLE,
    "quxbot",
    {"https://example.org/": True, "https://example.org/example/page.html": True},
)
rows(
    "RFC 9309 example",
    _RFC_SIMPLE,
    "anybot",
    {
        "https://example.org/": True,
        "https://example.org/example/page.html": False,
        "https://example.org/a.gif": False,
        "https://example.org/publications/": True,
    },
)


@pytest.mark.parametrize(
    ("robots", "agent", "url", "expected"),
    [pytest.param(r, a, u, v, id=i, marks=_marks(why)) for i, r, a, u, v, why in ROWS],
)
def test_simple_robot_rules_parser(robots: str, agent: str, url: str, expected: bool) -> None:
    assert allowed(robots, agent, url) is expected


@pytest.mark.parametrize(
    ("robots", "agent", "delay"),
    [
        pytest.param(_HTML, "mybot", 10.0, id="html markup: mybot", marks=_marks(_HTML_WHY)),
        pytest.param(_HTML, "bogusbot", 30.0, id="html markup: *", marks=_marks(_HTML_WHY)),
        pytest.param(_HERITRIX, "Mozilla denybot 99.9", None, id="heritrix: none"),
        pytest.param(_HERITRIX, "Mozilla delaybot 99.9", 20.0, id="heritrix: after a rule"),
        pytest.param(
            f"User-agent: bixo{CR}Crawl-delay: 10{CR}User-agent: foobot{CR}Crawl-delay: 20{CR}"
            f"User-agent: *{CR}Disallow:/baz{CR}",
            "bixo",
            10.0,
            id="first of two",
        ),
        pytest.param(
            f"User-agent: foobot{CR}Crawl-delay: 20{CR}User-agent: *{CR}Disallow:/baz{CR}",
            "bixo",
            None,
            id="another agent's",
        ),
        pytest.param(_KRUGLE, "googlebot/2.1", 1.0, id="krugle: googlebot/2.1"),
        pytest.param(_KRUGLE, "googlebot", 1.0, id="krugle: googlebot"),
        pytest.param(_KRUGLE, "qihoobot", None, id="krugle: qihoobot, named after the delay"),
        pytest.param(_KRUGLE, "anybot", 3.0, id="krugle: *"),
        pytest.param(_SELECT, "bingbot", 1.0, id="select: bingbot"),
        pytest.param(_SELECT, "msnbot", 2.0, id="select: msnbot"),
        pytest.param(_SELECT, "anybot", None, id="select: *"),
        pytest.param(f"User-agent: *{CR}Crawl-delay: 0.5{CR}Disallow:{CR}", "bixo", 0.5, id="0.5"),
        pytest.param("\r\n\r\n\r\nUser-agent: *\r\nCrawl-delay: 1\r\n\r\n", "bot1", 1.0, id="dos"),
    ],
)
def test_crawl_delay(robots: str, agent: str, delay: float | None) -> None:
    assert policy(robots).crawl_delay(agent) == delay


def test_a_huge_crawl_delay_is_a_delay_not_a_ban() -> None:
    """crawler-commons refuses a whole site whose Crawl-delay exceeds its maximum (an hour
    here); we keep the rules and the delay, and the engine caps its wait (politeness)."""
    robots = f"User-agent: *{CR}Crawl-delay: 3600{CR}Disallow:{CR}"
    assert policy(robots).crawl_delay("bixo") == 3600.0
    assert allowed(robots, "bixo", f"{DOMAIN}/")


@pytest.mark.parametrize(
    ("bom", "codec"),
    [
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
    ],
)
def test_a_byte_order_mark_before_the_first_group(bom: bytes, codec: str) -> None:
    text = (
        "User-agent: *\nDisallow: /login.aspx\nDisallow: /profile\n\nUser-agent: Googlebot\n"
        "Disallow: /profile\n\nSitemap: http://www.newsweek.com/sitemap_index.xml\n"
    )
    rules = policy(bom + text.encode(codec), "http://www.domain.com/robots.txt")
    assert not rules.allowed(f"{DOMAIN}/profile", "foobot")
    assert rules.allowed(f"{DOMAIN}/news", "foobot")
    assert rules.sitemaps == ("http://www.newsweek.com/sitemap_index.xml",)


def test_host_lines_are_ignored() -> None:
    robots = (
        "User-agent: *\nDisallow: /bitrix/\nDisallow: /img/\nHost: flot.com\n"
        "Sitemap: http://flot.com/sitemap_index.xml\n"
    )
    assert not allowed(robots, "foobot", "http://www.flot.com/img/")
    assert policy(robots).sitemaps == ("http://flot.com/sitemap_index.xml",)


def test_sitemaps_anywhere_with_their_case_kept() -> None:
    robots = (
        "# Sitemap can occur anywhere\nsitemap: http://domain.com/sitemap.xml\n\n"
        "User-agent: *\nDisallow: \n\n# a sitemap directive that forgot 'sitemap:'\n"
        "http://domain.com/dir/my-sitemap.xml\n\n"
        "sitemap: http://domain.com/dir/MixedCased-sitemap.xml\n"
    )
    # crawler-commons also takes the bare URL line (3 sitemaps); a line without a field
    # name is no directive (RFC 9309 2.2; Google ignores it).
    assert policy(robots).sitemaps == (
        "http://domain.com/sitemap.xml",
        "http://domain.com/dir/MixedCased-sitemap.xml",
    )


def test_a_relative_sitemap_is_resolved_and_reported() -> None:
    robots = "Sitemap: /sitemap.xml\n\nUser-agent: *\nDisallow: /cache/\n"
    rules = policy(robots, "http://www.example.com/robots.txt")
    assert rules.sitemaps == ("http://www.example.com/sitemap.xml",)
    assert rules.invalid_sitemaps == ("/sitemap.xml",)


def test_sitemaps_are_listed_once() -> None:
    robots = (
        "User-agent: *\nDisallow: \n\nsitemap: http://example.org/sitemap.xml\n"
        "Sitemap: http://example.org/sitemap.xml\n"
    )
    assert policy(robots).sitemaps == ("http://example.org/sitemap.xml",)


def test_a_sitemap_line_after_the_last_group() -> None:
    robots = CRLF.join(
        [
            "User-agent: a",
            "Disallow: /content/dam/",
            "",
            "User-agent: b",
            "Disallow: /content/dam/",
            "",
            "",
            "Sitemap: https://www.foo.com/sitemap.xml",
        ]
    )
    assert policy(robots).sitemaps == ("https://www.foo.com/sitemap.xml",)


def test_sitemap_with_whitespace_before_the_colon() -> None:
    assert policy(_FORMAT, "http://domain.com/robots.txt").sitemaps == (
        "http://domain.com/sitemap.xml",
    )


@pytest.mark.parametrize(
    ("status", "allowed_", "retry"),
    [
        (503, False, True),
        (429, False, True),
        *[(status, True, False) for status in range(400, 420)],
    ],
)
def test_fetch_failures(status: int, allowed_: bool, retry: bool) -> None:
    rules = RobotsPolicy.from_response(status, b"", url="http://www.domain.com/robots.txt")
    assert rules.allowed(f"{DOMAIN}/index.html", "anybot") is allowed_
    assert rules.retry is retry


@pytest.mark.xfail(
    strict=True,
    reason="RFC 9309 2.3.1.2: a robots.txt that still redirects after five hops is "
    "unavailable (allow all); crawler-commons defers the whole site on a 301",
)
def test_a_redirect_that_never_ends_defers_the_site() -> None:
    rules = RobotsPolicy.from_response(301, b"", url="http://www.domain.com/robots.txt")
    assert not rules.allowed(f"{DOMAIN}/index.html", "anybot")
