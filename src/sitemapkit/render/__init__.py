"""JavaScript rendering for the crawl: real Chromium through Playwright (optional extra).

HTTP-only crawlers see an application shell where a browser sees a site.  This
package renders the pages that need it in Debian's Chromium and reads the
rendered DOM with the *same* extractor the crawler uses for raw HTML
(:func:`sitemapkit.crawl.extract.extract_page`), so a link, a canonical or a
robots meta means the same thing whichever way the page was read.

Modules: :mod:`.browser` (the browser, its page slots and restarts),
:mod:`.blocking` (which requests a rendering page may make), :mod:`.settle`
(when a page is done), :mod:`.page` (one page, start to snapshot),
:mod:`.facts` (rendered DOM -> facts, merged with the raw ones), :mod:`.auto`
(which pages need rendering) and :mod:`.renderer` (the crawl's one entry point).
Playwright is imported only when a browser is started, so ``import sitemapkit``
and crawls without ``--render`` never pay for it.
"""

from __future__ import annotations

from sitemapkit.render.auto import SectionSampler, looks_like_app_shell
from sitemapkit.render.browser import RenderUnavailableError
from sitemapkit.render.facts import merge_facts, rendered_facts
from sitemapkit.render.renderer import RENDER_MODES, Rendered, Renderer, RenderSettings

__all__ = [
    "RENDER_MODES",
    "RenderSettings",
    "RenderUnavailableError",
    "Rendered",
    "Renderer",
    "SectionSampler",
    "looks_like_app_shell",
    "merge_facts",
    "rendered_facts",
]
