"""What one crawl is asked to do: :class:`CrawlConfig`, and the scope test it implies.

The config is stored in the crawl database as JSON, so ``--resume`` continues
with exactly the settings the crawl started with (a resumed crawl that changed
its scope half-way would produce a sitemap no single run could).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, fields
from urllib.parse import urlsplit

from sitemapkit.agent import USER_AGENT
from sitemapkit.errors import InputError
from sitemapkit.limits import MAX_DOWNLOAD_BYTES

#: Identifies us to site owners, with a page that says what we are.
DEFAULT_USER_AGENT = USER_AGENT  # one User-Agent for crawler and reader (read/source.py)
#: An HTML page larger than this is cut (and recorded as ``too-large``): 10 MiB.
DEFAULT_MAX_BODY = 10 * 1024 * 1024

QUERY_MODES = ("keep", "sort", "drop")
#: ``sitemapkit crawl``'s (and the demo's and the app's) ``--render`` when none is given:
#: pages that look built by scripts are rendered, when rendering is installed.
DEFAULT_RENDER = "auto"
#: Requests in flight, and connections per host, unless ``--concurrency``/``--per-host``.
DEFAULT_CONCURRENCY = 16
DEFAULT_PER_HOST = 8
#: Seconds before a page that never settles is cut (``--render-timeout``), and pages
#: rendered at once (``--render-concurrency``).
DEFAULT_RENDER_TIMEOUT = 15.0
DEFAULT_RENDER_CONCURRENCY = 2
#: Seconds a fleet worker's leases outlive its last heartbeat by default (a SIGKILLed
#: worker's hosts and claims return to the fleet this long after it died).  ``crawl
#: --lease`` sets it for the crawl; it is kept in the store so every worker uses the same.
LEASE_TTL = 15.0
#: The store's meta key holding a fleet crawl's lease time; empty for a crawl run alone.
#: ``crawl --resume`` reads it: a fleet's crawl resumes as a fleet (its trap counters and
#: claims are the store's), as a resumed crawl keeps its other settings.
LEASE_META = "fleet_lease"


@dataclass(slots=True)
class CrawlConfig:
    """Every knob of a crawl; defaults are the polite, sitemap-producing ones."""

    start_url: str
    #: Also crawl subdomains of the start host (``www.x`` -> ``*.x``).
    subdomains: bool = False
    #: More hosts to treat as in scope (exact host names).
    allow_hosts: tuple[str, ...] = ()
    #: Regexes a URL must match (any) / must not match (all), searched in the full URL.
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_depth: int | None = None
    max_pages: int | None = None
    max_duration: float | None = None
    concurrency: int = DEFAULT_CONCURRENCY
    per_host: int = DEFAULT_PER_HOST
    #: Requests per second per host (``None``: no limit beyond Crawl-delay).
    rate: float | None = None
    user_agent: str = DEFAULT_USER_AGENT
    respect_robots: bool = True
    follow_nofollow: bool = False
    #: ``sort`` (default) or ``keep`` the query's order, or ``drop`` it; trackers always go.
    query: str = "sort"
    images: bool = False
    seed_from_sitemaps: bool = False
    connect_timeout: float = 10.0
    read_timeout: float = 30.0
    max_body: int = DEFAULT_MAX_BODY
    retries: int = 3
    #: Longest ``Retry-After`` / back-off we are willing to sleep for one request.
    max_retry_wait: float = 60.0
    #: ``--render``: ``never``, ``auto`` or ``always`` (see :mod:`sitemapkit.render`).  The
    #: command's default is :data:`DEFAULT_RENDER`; a library crawl renders when asked.
    render: str = "never"
    #: The mode was the command's default, not asked for: without Playwright or Chromium
    #: the crawl goes on unrendered and says so.  Stored crawls from before this field
    #: had asked for their mode, so its absence means False (resumed as configured).
    render_optional: bool = False
    #: ``--render-timeout``: seconds before a page that will not settle is cut.
    render_timeout: float = DEFAULT_RENDER_TIMEOUT
    #: ``--render-concurrency``: pages rendered at once.
    render_concurrency: int = DEFAULT_RENDER_CONCURRENCY
    #: ``--thumbnails``: store a picture of each indexable page's first screen.
    thumbnails: bool = False
    #: ``--workers``: processes that parse pages (1: the crawl's own; see ``parsepool``).
    workers: int = 1

    def validate(self) -> CrawlConfig:
        """Raise :class:`InputError` for settings that cannot work; return self."""
        from sitemapkit.rulebook.loc import is_absolute  # the one host and port rule

        parts = urlsplit(self.start_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise InputError(f'start URL "{self.start_url}" is not an absolute http(s) URL')
        if not is_absolute(self.start_url):
            raise InputError(
                f'start URL "{self.start_url}" has no valid host or port (an empty or '
                "over-long label, a character no host name holds, a port over 65535)"
            )
        if self.query not in QUERY_MODES:
            raise InputError(f'--query must be one of {", ".join(QUERY_MODES)}, not "{self.query}"')
        if self.concurrency < 1 or self.per_host < 1:
            raise InputError("--concurrency and --per-host must be at least 1")
        if self.workers < 1:
            raise InputError("--workers must be at least 1")
        if self.rate is not None and self.rate <= 0:
            raise InputError("--rate must be a positive number of requests per second")
        for pattern in (*self.include, *self.exclude):
            try:
                re.compile(pattern)
            except re.error as exc:
                raise InputError(f'invalid regular expression "{pattern}": {exc}') from exc
        if self.max_body > MAX_DOWNLOAD_BYTES:
            raise InputError(f"body cap {self.max_body} is above {MAX_DOWNLOAD_BYTES} bytes")
        return self

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> CrawlConfig:
        data = json.loads(text)
        known = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in known}
        for key in ("allow_hosts", "include", "exclude"):
            kwargs[key] = tuple(kwargs.get(key, ()))
        return cls(**kwargs)


class ScopeRule:
    """Is a URL part of the site being crawled?  Origin, hosts and patterns.

    The start URL's scheme and host are the site.  When the start URL itself
    redirects to another origin of the same site (``http`` -> ``https``, bare
    -> ``www``), the engine calls :meth:`adopt` so the crawl follows the site
    where it really lives instead of marking every page out of scope.
    """

    __slots__ = ("_exclude", "_hosts", "_include", "_origins", "_subdomains")

    def __init__(self, config: CrawlConfig) -> None:
        parts = urlsplit(config.start_url)
        self._origins: set[tuple[str, str]] = set()
        self.adopt(config.start_url)
        host = (parts.hostname or "").lower()
        self._hosts = frozenset(h.lower() for h in config.allow_hosts)
        self._subdomains = (
            "." + (host[4:] if host.startswith("www.") else host) if config.subdomains else None
        )
        self._include = [re.compile(p) for p in config.include]
        self._exclude = [re.compile(p) for p in config.exclude]

    def adopt(self, url: str) -> None:
        """Treat ``url``'s origin as part of the site too."""
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        port = parts.port
        if port is not None and port != {"http": 80, "https": 443}.get(parts.scheme.lower()):
            host = f"{host}:{port}"
        self._origins.add((parts.scheme.lower(), host))

    @property
    def origins(self) -> list[str]:
        return sorted(f"{scheme}://{host}" for scheme, host in self._origins)

    def check(self, url: str) -> bool:
        """True when ``url`` (already normalised: lower-case host, no default port) is in scope."""
        scheme, _, rest = url.partition("://")
        end = len(rest)
        for sep in "/?#":
            i = rest.find(sep)
            if 0 <= i < end:
                end = i
        netloc = rest[:end]
        if "@" in netloc:
            netloc = netloc.rsplit("@", 1)[1]
        if (scheme, netloc) not in self._origins:
            bare = netloc.split(":", 1)[0]
            if bare not in self._hosts and not (
                self._subdomains is not None
                and (bare.endswith(self._subdomains) or "." + bare == self._subdomains)
            ):
                return False
        if self._include and not any(p.search(url) for p in self._include):
            return False
        # Tested first: most crawls exclude nothing, and an any() makes a generator.
        return not self._exclude or not any(p.search(url) for p in self._exclude)
