"""robots.txt as a policy value: what one origin lets us fetch, per RFC 9309.

:meth:`RobotsPolicy.from_response` turns the outcome of fetching ``/robots.txt``
into a decision the engine can ask, without knowing the rules of the RFC:

===========================  ===========================================================
fetch outcome                policy
===========================  ===========================================================
2xx                          the rules of the file (protego: Google's ``*`` and ``$``,
                             longest match wins, ``Allow`` wins a tie)
3xx (redirects exhausted)    allow all (RFC 9309 2.3.1.2: no file after 5 redirects)
4xx except 429               allow all ("unavailable", RFC 9309 2.3.1.3)
429, 5xx, unreachable        disallow all, ``retry=True`` ("unreachable", 2.3.1.4): the
                             engine fetches robots.txt again later
===========================  ===========================================================

Only the first 500 KiB are parsed (RFC 9309 2.5 allows a limit of at least 500 KiB;
Google uses exactly that), a UTF-8 BOM is removed first, a partial one too (protego
would read it as part of the first line and lose a ``User-agent`` record), a
``User-agent`` value is read up to its first space (Google's parser), and invalid UTF-8
is replaced rather than refused.  tests/crawl/test_robots_suites.py holds Google's and
CPython's robots.txt test cases.  ``/robots.txt`` itself is always allowed (2.2.2).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urlsplit

from protego import Protego
from protego._protego import (
    _ALLOW_DIRECTIVE,
    _DISALLOW_DIRECTIVE,
    _SITE_WIDE_DIRECTIVES,
    _USER_AGENT_DIRECTIVE,
    _extract_directive,
)

from sitemapkit.crawl.urlnorm import normalize
from sitemapkit.limits import MAX_ROBOTS_BYTES
from sitemapkit.read.robots import capped, parse_robots_sitemaps

__all__ = ["MAX_ROBOTS_BYTES", "RobotsPolicy"]

# A User-agent value is its product token, the letters, digits, "-" and "_" it starts with
# (Google's parser; RFC 9309 2.2.1): "User-agent: Googlebot Images" is a group for
# "googlebot", "User-agent: foo/1.2" one for "foo", "User-agent: One, Two" one for "one".
# protego would keep "googlebot images", "foo/1.2", "one," and match no crawler at all.
# A "*" stays in the token: protego reads "foo*bot" as "foobot".
_AGENT_LINE = re.compile(
    r"(?im)(?:^|(?<=\r))([ \t]*user-?agent(?:[ \t]*:[ \t]*|[ \t]+)[\w*-]+)[^#\r\n\w*-][^#\r\n]*"
)
_RULE_FIELDS: Final = _ALLOW_DIRECTIVE | _DISALLOW_DIRECTIVE
# A "%" that starts no escape ("Disallow: /%a%a"): our normaliser writes it "%25" in the
# URLs it asks about, so the rule must say "%25" too or it never matches (robots-parser).
_STRAY_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")


def _readable(body: bytes) -> str:
    """The robots.txt text as protego should read it.

    A byte order mark is removed, also a partial one (``EF`` or ``EF BB``, as Google's
    parser does: a file cut or mangled by an editor still starts with its first group),
    and each ``User-agent`` value is cut to its first word.
    """
    for bom in (b"\xef\xbb\xbf", b"\xef\xbb", b"\xef"):
        if body.startswith(bom):
            body = body[len(bom) :]
            break
    text = _google_groups(_AGENT_LINE.sub(r"\1", body.decode("utf-8", "replace")))
    return _STRAY_PERCENT.sub("%25", text) if "%" in text else text


def _google_groups(text: str) -> str:
    """The groups as RFC 9309 2.2.1 and Google's parser read them, written so protego agrees.

    A group is its user-agent lines up to its first rule (allow/disallow): a
    ``Crawl-delay`` between two user-agent lines does not end it.  protego starts a new
    group at the second line, so ``User-agent: googlebot / Crawl-delay: 1 / User-agent:
    qihoobot / Disallow: /`` left googlebot every page (crawler-commons' krugle case).  Such
    a group's user-agent lines are written again right before its first rule: protego
    merges the rules of a name seen twice, and each ``Crawl-delay`` stays with the names
    above it (as crawler-commons keeps it).
    """
    if "rawl" not in text and "equest" not in text and "isit" not in text:
        return text  # no Crawl-delay, Request-rate or Visit-time: nothing can interrupt
    out: list[str] = []
    agents: list[str] = []
    collecting = interrupted = False
    for line in text.splitlines():
        content = line.split("#", 1)[0].strip()
        parsed = _extract_directive(content) if content else None
        field = parsed[0] if parsed is not None else None
        if field in _USER_AGENT_DIRECTIVE:
            if not collecting:
                agents, collecting, interrupted = [], True, False
            agents.append(line)
        elif field in _RULE_FIELDS:
            if collecting and interrupted:
                out.extend(agents)  # the whole group's names again, then its rules
            collecting = False
        elif collecting and field is not None and field not in _SITE_WIDE_DIRECTIVES:
            interrupted = True
        out.append(line)
    return "\n".join(out)


def _names(name: str, agent: str) -> bool:
    """Does ``agent`` hold ``name`` as a word: ``sitemapkit`` in ``Mozilla/5.0 (compatible;
    sitemapkit/1.0)``, never ``sitemap`` in ``sitemapkit`` nor ``d`` in ``dd``?

    A name may be followed by ``-`` or a digit, as Google reads its own crawlers:
    ``googlebot`` rules ``googlebot-image`` that has no group of its own, and a product
    token is letters, ``-`` and ``_`` (``hedwig-news2`` is ``hedwig-news``).
    """
    start = agent.find(name)
    while start != -1:
        end = start + len(name)
        before = agent[start - 1] if start else " "
        after = agent[end] if end < len(agent) else " "
        if not (before.isalnum() or before in "-_") and not (after.isalpha() or after == "_"):
            return True
        start = agent.find(name, start + 1)
    return False


class _Parser(Protego):
    """protego, choosing the group as RFC 9309 2.2.1 says: a group naming the agent wins.

    protego takes a group whose name starts a word of the agent (``User-agent: sitemap``
    for ``sitemapkit``; ``d`` for ``dd``) and scores ``*`` 1, the same as a one-letter
    name, so ``*`` written first beats ``User-agent: b`` for ``b`` (robots-parser's cases).
    Here a name must be a whole word of the agent; the longest such name wins, else ``*``.
    """

    def _get_matching_rule_set(self, user_agent: str) -> Any:
        chosen: dict[str, Any] = self._matched_rule_set  # protego's per-agent cache
        if user_agent not in chosen:
            agent = user_agent.strip().lower()
            named = [ua for ua in self._user_agents if ua != "*" and _names(ua, agent)]
            chosen[user_agent] = self._user_agents.get(max(named, key=len, default="*"))
        return chosen[user_agent]


@dataclass(frozen=True, slots=True, eq=False)
class RobotsPolicy:
    """The robots.txt verdicts for one origin.

    ``mode`` is ``"rules"`` (a parsed file), ``"allow-all"`` or ``"disallow-all"``;
    ``retry`` is true when the file was unreachable and should be fetched again;
    ``reason`` says in words why this policy holds (for the inventory and ``--why``).
    ``sitemaps`` are the ``Sitemap:`` URLs as :func:`sitemapkit.read.robots.parse_robots_sitemaps`
    reads them (relative ones resolved), normalised; values that are not full http(s)
    URLs are also kept in ``invalid_sitemaps`` so they can be reported.
    """

    url: str
    mode: str
    reason: str
    status: int | None = None
    retry: bool = False
    sitemaps: tuple[str, ...] = ()
    invalid_sitemaps: tuple[str, ...] = ()
    truncated: bool = False
    _parser: Any = field(default=None, repr=False)

    @classmethod
    def from_response(
        cls, status: int | None, body: bytes | None, *, url: str, error: str | None = None
    ) -> RobotsPolicy:
        """The policy for the robots.txt at ``url`` that answered ``status`` with ``body``.

        ``status=None`` means no HTTP answer at all (DNS, connection, timeout);
        ``error`` then says which, and lands in ``reason``: a crawl that is refused
        everything must tell the user that the site was down, not only "robots".
        """
        if status is None:
            why = f"robots.txt unreachable: {error}" if error else "robots.txt unreachable"
            return cls(url, "disallow-all", why, None, retry=True)
        if 200 <= status < 300:
            return cls.parse(body or b"", url=url, status=status)
        if 300 <= status < 400:
            return cls(url, "allow-all", f"robots.txt redirected too often (HTTP {status})", status)
        if status == 429 or status >= 500:
            return cls(
                url, "disallow-all", f"robots.txt answered HTTP {status}", status, retry=True
            )
        if 400 <= status < 500:
            return cls(url, "allow-all", f"robots.txt answered HTTP {status}", status)
        return cls(url, "disallow-all", f"robots.txt answered HTTP {status}", status, retry=True)

    @classmethod
    def parse(cls, body: bytes, *, url: str, status: int = 200) -> RobotsPolicy:
        """The policy of a robots.txt body (bytes as served)."""
        listed = parse_robots_sitemaps(body, url)  # the one Sitemap: parser (read/robots.py)
        parser = _Parser.parse(_readable(capped(body)[0]))
        good: list[str] = []
        for value in listed.urls:
            absolute = normalize(value)
            if absolute is not None and absolute not in good:
                good.append(absolute)
        return cls(
            url,
            "rules",
            "robots.txt rules",
            status,
            sitemaps=tuple(good),
            invalid_sitemaps=listed.invalid,
            truncated=listed.truncated,
            _parser=parser,
        )

    @classmethod
    def allow_all(cls, url: str = "", reason: str = "robots.txt not used") -> RobotsPolicy:
        """A policy that allows everything (``--ignore-robots``, tests)."""
        return cls(url, "allow-all", reason)

    def allowed(self, url: str, user_agent: str) -> bool:
        """May ``user_agent`` fetch ``url``?  ``/robots.txt`` is always allowed."""
        if self.mode == "allow-all":
            return True
        if not url.isascii() or "/robots.txt" in url or "[" in url or "]" in url:
            # Only these can be /robots.txt itself or fail to split (an IPv6 bracket
            # unclosed, a host NFKC changes): the split was 2 us of every page's check.
            try:
                path = urlsplit(url).path
            except ValueError:
                return False
            if path == "/robots.txt":
                return True
        if self.mode == "disallow-all":
            return False
        try:
            return bool(self._parser.can_fetch(url, user_agent))
        except (ValueError, TypeError):
            return False

    def crawl_delay(self, user_agent: str) -> float | None:
        """The ``Crawl-delay`` of the group that applies to ``user_agent``, in seconds."""
        if self._parser is None:
            return None
        try:
            delay = self._parser.crawl_delay(user_agent)
        except (ValueError, TypeError):
            return None
        if delay is None:
            return None
        value = float(delay)
        return value if value >= 0 else None

    def request_interval(self, user_agent: str) -> float | None:
        """The group's ``Request-rate`` as seconds per request (``1/10s``: 10.0, ``100/15m``:
        9.0), or None.  Its time window (``1/10s 1820-1940``) is not kept: see :meth:`pace`."""
        if self._parser is None:
            return None
        try:
            rate = self._parser.request_rate(user_agent)
        except (ValueError, TypeError):
            return None
        if rate is None or rate.requests <= 0:
            return None
        return float(rate.seconds) / float(rate.requests)

    def pace(self, user_agent: str) -> float | None:
        """The pause between two requests this robots.txt asks of ``user_agent``, in seconds.

        ``Crawl-delay`` or ``Request-rate``, the longer of the two: a site that states its
        pace in either form (protego and CPython read both) is crawled at that pace.  A
        ``Request-rate`` window is applied all day, the polite reading.
        """
        paces = [p for p in (self.crawl_delay(user_agent), self.request_interval(user_agent)) if p]
        return max(paces) if paces else None
