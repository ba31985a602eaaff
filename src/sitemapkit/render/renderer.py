"""The crawl's one entry point to rendering: decide, render, read, learn.

The crawl engine hands every HTML page it fetched to :meth:`Renderer.decide`
and, when that names a reason, to :meth:`Renderer.render`; what comes back is
the page's facts after rendering plus a record of what happened (rendered or
cut or failed, and which links only rendering found).  The engine stays
ignorant of browsers; the browser starts on the first page that needs it, so
an ``auto`` crawl of a server-rendered site starts none.

``auto`` is the default of ``sitemapkit crawl``, and the ``[render]`` extra is
optional: when the mode was not asked for (:attr:`RenderSettings.optional`) and
Playwright or Chromium is missing, the crawl goes on without rendering, records
each page that needed it as ``render-unavailable`` (with the reason it needed
it) and :attr:`Renderer.missing` says what to install, once.  Asked for
explicitly, a missing piece stays an error before anything is crawled.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Final

from sitemapkit.crawl.extract import PageFacts
from sitemapkit.crawl.urlnorm import QueryPolicy, normalize
from sitemapkit.errors import InputError
from sitemapkit.render.auto import SectionSampler, looks_like_app_shell, raw_signals
from sitemapkit.render.blocking import RequestRules, same_origin
from sitemapkit.render.browser import (
    RESTART_EVERY,
    BrowserPool,
    check_available,
    default_executable,
    unavailable,
)
from sitemapkit.render.facts import merge_facts, rendered_facts, rendered_only
from sitemapkit.render.page import THUMB_TYPE, context_options, render_page
from sitemapkit.store.base import Thumbnail

__all__ = [
    "DEFAULT_TIMEOUT",
    "RENDER_MODES",
    "UNAVAILABLE",
    "RenderSettings",
    "Rendered",
    "Renderer",
]

#: ``--render`` values: never render, render what needs it, render every HTML page.
RENDER_MODES: Final = ("never", "auto", "always")
#: ``--render-timeout`` default, seconds per page.
DEFAULT_TIMEOUT: Final = 15.0
#: ``--render-concurrency`` default: pages rendered at once (peak RSS stays well under 1 GB).
DEFAULT_CONCURRENCY: Final = 2
#: Why a page whose inline scripts write markup needed rendering, when it could not be
#: sampled (rendering unavailable).
WRITES_MARKUP: Final = "scripts-write-markup"
#: The render status of a page that needed rendering when rendering was not installed.
UNAVAILABLE: Final = "render-unavailable"


@dataclass(frozen=True, slots=True)
class RenderSettings:
    """How a crawl renders; :meth:`validate` turns a bad value into one clear line."""

    mode: str = "never"
    timeout: float = DEFAULT_TIMEOUT
    concurrency: int = DEFAULT_CONCURRENCY
    restart_every: int = RESTART_EVERY
    executable: str = field(default_factory=default_executable)
    #: ``--thumbnails``: every render keeps styles and takes a first-screen picture, and an
    #: indexable page that was not rendered is rendered for its picture only.
    thumbnails: bool = False
    #: The mode is a default, not asked for: a missing Playwright or Chromium is a note
    #: and pages go unrendered (``render-unavailable``), not an error.
    optional: bool = False

    def validate(self) -> RenderSettings:
        if self.mode not in RENDER_MODES:
            raise InputError(f'--render "{self.mode}" is not one of {", ".join(RENDER_MODES)}')
        if not self.timeout > 0:
            raise InputError(f"--render-timeout {self.timeout:g} must be more than 0 seconds")
        if self.concurrency < 1:
            raise InputError(f"--render-concurrency {self.concurrency} must be at least 1")
        if self.restart_every < 1:
            raise InputError(f"browser restart interval {self.restart_every} must be at least 1")
        return self


@dataclass(slots=True)
class Rendered:
    """One page after rendering.

    ``status`` is ``rendered``, ``render-timeout``, ``render-failed`` or
    ``render-unavailable`` (it needed rendering, which is not installed); ``why``
    is the reason it was rendered (``always``, ``app-shell``, ``section-sample``,
    ``section-needs-js``; ``scripts-write-markup`` when rendering was unavailable).
    ``facts`` are the merged facts (the raw ones when nothing could be read);
    ``only_rendered`` the links that only rendering found.
    """

    facts: PageFacts
    status: str
    why: str
    only_rendered: tuple[str, ...] = ()
    detail: str | None = None
    blocked: Counter[str] = field(default_factory=Counter)
    thumbnail: bytes | None = None


class Renderer:
    """Renders the pages of one crawl (use as ``async with``; or call :meth:`close`)."""

    def __init__(
        self,
        settings: RenderSettings,
        *,
        policy: QueryPolicy | None = None,
        is_site: Callable[[str], bool] | None = None,
        allowed: Callable[[str], Awaitable[bool]] | None = None,
        pool: BrowserPool | None = None,
    ) -> None:
        self.settings = settings.validate()
        #: Why rendering cannot run here, when it was not asked for (``None``: it can, or
        #: it has not been needed yet); the crawl summary prints it.
        self.missing: str | None = None
        self._checked = False
        if not settings.optional and (settings.mode != "never" or settings.thumbnails):
            check_available(settings.executable)
            self._checked = True
        self.policy = policy if policy is not None else QueryPolicy()
        self._is_site = is_site
        self._allowed = allowed
        self.sampler = SectionSampler()
        #: The browser; a caller may share one pool between renderers (the tests do).
        self.pool = pool or BrowserPool(
            executable=settings.executable,
            concurrency=settings.concurrency,
            restart_every=settings.restart_every,
            context_options=context_options(thumbnails=settings.thumbnails),
        )
        self._own_pool = pool is None
        #: Pages by render status, for the crawl summary.
        self.counts: Counter[str] = Counter()

    async def __aenter__(self) -> Renderer:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the browser (unless the pool was handed in: its owner closes it)."""
        if self._own_pool:
            await self.pool.close()

    async def decide(
        self, url: str, body: bytes, raw: PageFacts, content_type: str | None = None
    ) -> str | None:
        """Why this fetched HTML page should be rendered, or ``None``.

        A raw ``noindex`` page is never rendered (Google does not render such
        pages either), whatever the mode.
        """
        mode = self.settings.mode
        if mode == "never" or raw.noindex:
            return None
        if mode == "always":
            return "always"
        signals = raw_signals(body)
        if looks_like_app_shell(body, raw, content_type, signals):
            return "app-shell"
        if not signals.writes_markup:
            return None
        if not self.available():
            return WRITES_MARKUP  # no sample can be rendered: nothing to learn
        return await self.sampler.wants(url)

    def available(self) -> bool:
        """Whether pages can be rendered: checked once, when a page first needs it.

        Checked late so that an ``auto`` crawl of a site that needs no rendering
        neither imports Playwright nor says anything about it.
        """
        if not self._checked:
            self._checked = True
            self.missing = unavailable(self.settings.executable)
        return self.missing is None

    def bind(
        self,
        *,
        policy: QueryPolicy,
        is_site: Callable[[str], bool],
        allowed: Callable[[str], Awaitable[bool]] | None,
    ) -> None:
        """Take the crawl's query policy, scope and robots check (the engine calls this)."""
        self.policy = policy
        self._is_site = is_site
        self._allowed = allowed

    async def crawl_page(
        self, url: str, body: bytes, headers: Mapping[str, str], raw: PageFacts
    ) -> tuple[PageFacts, Rendered | None]:
        """The crawl's hook: the page's facts after rendering it if it needs it, and the record.

        Returns the raw facts and ``None`` when the page is not rendered.
        """
        content_type = next((v for k, v in headers.items() if k.lower() == "content-type"), None)
        why = await self.decide(url, body, raw, content_type)
        if why is None:
            return raw, None
        if not self.available():
            self.counts[UNAVAILABLE] += 1
            return raw, Rendered(raw, UNAVAILABLE, why, detail=self.missing)
        try:
            done = await self.render(
                url, body, headers, raw, why=why, thumbnail=self.settings.thumbnails
            )
        except BaseException:
            if why == "section-sample":
                self.sampler.forget(url)  # cancelled mid-render: the section's waiters go on
            raise
        if why in {"section-sample", "section-needs-js"}:
            self.sampler.learn(url, bool(done.only_rendered))
        return done.facts, done

    async def thumbnail(
        self, url: str, body: bytes, headers: Mapping[str, str], done: Rendered | None
    ) -> Thumbnail | None:
        """The first screen of an indexable page: the one its render took, or a render for it.

        A render for the picture only changes none of the page's facts and is not
        counted as a render; a page that cannot be drawn has no thumbnail.
        """
        image = done.thumbnail if done is not None else None
        if image is None and (done is None or done.status == "rendered") and self.available():
            rules = RequestRules(
                is_site=self._is_site or same_origin(url), allowed=self._allowed, keep_styles=True
            )
            shot = await render_page(
                self.pool, url, body, headers, rules, timeout=self.settings.timeout, thumbnail=True
            )
            image = shot.thumbnail
        return None if image is None else Thumbnail(THUMB_TYPE, image)

    async def render(
        self,
        url: str,
        body: bytes,
        headers: Mapping[str, str],
        raw: PageFacts,
        *,
        why: str,
        thumbnail: bool = False,
    ) -> Rendered:
        """Render ``url`` and return its merged facts; never raises for what the page does."""
        rules = RequestRules(
            is_site=self._is_site or same_origin(url),
            allowed=self._allowed,
            keep_styles=thumbnail,
        )
        shot = await render_page(
            self.pool, url, body, headers, rules, timeout=self.settings.timeout, thumbnail=thumbnail
        )
        self.counts[shot.status] += 1
        result = Rendered(raw, shot.status, why, detail=shot.detail, blocked=shot.blocked)
        result.thumbnail = shot.thumbnail
        if shot.html is not None:
            dom = rendered_facts(shot.html, url=url, headers=headers, policy=self.policy)
            moved = tuple(
                target
                for target in (normalize(n, policy=self.policy) for n in shot.navigations)
                if target is not None and target != raw.url
            )
            result.facts = merge_facts(raw, dom, moved)
            result.only_rendered = rendered_only(raw, result.facts)
        return result
