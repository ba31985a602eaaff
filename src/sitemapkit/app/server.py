"""``sitemapkit serve``'s HTTP server: routes of API.md, on ``aiohttp.web``.

Handlers stay thin: paths come from :mod:`~sitemapkit.app.workspace` (ids
checked there), reading the store happens in worker threads (the event loop
keeps streaming progress while a 100,000-page map is built), and every failure
becomes one JSON line with a status code (:func:`errors_middleware`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import errno
import importlib
import json
import re
from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import web

from sitemapkit.app import pages as pages_mod
from sitemapkit.app import sitemaps as sitemaps_mod
from sitemapkit.app.events import Watcher, stream
from sitemapkit.app.jobs import Jobs, sitemapkit_argv
from sitemapkit.app.mapcache import MapCache
from sitemapkit.app.options import RESUME_OPTIONS, crawl_options
from sitemapkit.app.security import Guard, add_headers, guard_middleware
from sitemapkit.app.sites import activity, site_summary, sitemap_files
from sitemapkit.app.workspace import SitePaths, UnknownSite, Workspace, site_id_for
from sitemapkit.errors import InputError, SitemapkitError, StoreBusyError, StoreWriteError

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
WS = web.AppKey("workspace", Workspace)
JOBS = web.AppKey("jobs", Jobs)
WATCHERS = web.AppKey("watchers", dict[str, Watcher])
PAGES = web.AppKey("pages", pages_mod.PageCache)
MAPS = web.AppKey("maps", MapCache)
#: The sections-first page of each big map ("" for a small one: it has none).
FIRSTS = web.AppKey("firsts", MapCache)
GUARD = web.AppKey("guard", Guard)
WARMING = web.AppKey("warming", dict[str, asyncio.Task[None]])
_META_CSP = re.compile(r'http-equiv="Content-Security-Policy" content="([^"]*)"')
#: Shown at ``/`` until the front end's ``static/index.html`` exists.
PLACEHOLDER = (
    "<!DOCTYPE html><title>sitemapkit</title><p>sitemapkit serve: the API is at /api/sites"
)


def _fail(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


#: Failures and the status API.md gives each (the first match wins).
_STATUS: tuple[tuple[type[Exception], int], ...] = (
    (UnknownSite, 404),
    (StoreBusyError, 409),
    (StoreWriteError, 507),
    (InputError, 400),
    (SitemapkitError, 500),
)


@web.middleware
async def errors_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every failure as ``{"error": one line}`` with the status API.md gives it."""
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        return _fail(exc.status, exc.reason or exc.text or "error")
    except (SitemapkitError, OSError) as exc:
        if isinstance(exc, OSError):
            full = exc.errno in (errno.ENOSPC, errno.EDQUOT)
            where = exc.filename or "workspace"
            return _fail(507 if full else 500, f"{where}: {exc.strerror or exc}")
        status = next(code for kind, code in _STATUS if isinstance(exc, kind))
        return _fail(status, str(exc))


def _paths(request: web.Request) -> SitePaths:
    return request.app[WS].site(request.match_info["site"])


async def _body(request: web.Request) -> dict[str, Any]:
    raw = await request.read()
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except ValueError as exc:
        raise InputError(f"the body is not JSON: {exc}") from exc
    if not isinstance(body, dict):
        raise InputError("the body must be a JSON object")
    return body


def _site(request: web.Request, paths: SitePaths) -> dict[str, Any]:
    return site_summary(paths, request.app[JOBS])


async def _summary(request: web.Request, paths: SitePaths) -> dict[str, Any]:
    return await asyncio.to_thread(_site, request, paths)


# -- front end ------------------------------------------------------------------------


def static_dir() -> Path:
    return Path(str(resources.files("sitemapkit.app").joinpath("static")))


async def index(_request: web.Request) -> web.StreamResponse:
    page = static_dir() / "index.html"
    if page.is_file():
        return web.FileResponse(page)
    return web.Response(text=PLACEHOLDER, content_type="text/html")


async def info(request: web.Request) -> web.Response:
    from sitemapkit import __version__

    ws = request.app[WS]
    return web.json_response({
        "version": __version__,
        "workspace": str(ws.root),
        "token_required": request.app[GUARD].token is not None,
        "publish_root": str(ws.publish_root),
    })  # fmt: skip


# -- sites and jobs -------------------------------------------------------------------


async def list_sites(request: web.Request) -> web.Response:
    ws = request.app[WS]

    def read() -> list[dict[str, Any]]:
        found = [_site(request, ws.site(i)) for i in ws.site_ids()]
        return sorted(found, key=activity, reverse=True)

    return web.json_response({"sites": await asyncio.to_thread(read)})


async def get_site(request: web.Request) -> web.Response:
    paths = _paths(request)

    def read() -> dict[str, Any]:
        from sitemapkit.store import is_crawl_db, open_store

        site = _site(request, paths)
        site.update(reasons={}, runs_list=[], config=None)
        if not is_crawl_db(paths.db) or "problem" in site:
            return site
        try:
            store = open_store(paths.db, mode="read")
            try:
                site["reasons"] = store.reasons()
                site["runs_list"] = [dataclasses.asdict(r) for r in store.runs()]
                stored = store.get_meta("config")
                site["config"] = json.loads(stored) if stored else None
            finally:
                store.close()
        except SitemapkitError as exc:  # being created by its crawl, or damaged: say so
            site["problem"] = str(exc)
        return site

    site = await asyncio.to_thread(read)
    if site["state"] == "idle":
        warm(request.app, paths)
    return web.json_response(site)


async def _start(
    request: web.Request, paths: SitePaths, kind: str, args: list[str]
) -> web.Response:
    jobs = request.app[JOBS]
    state = jobs.state(paths)
    if state != "idle":
        return _fail(409, f"{paths.id}: a crawl or audit is {state} on this site; wait or stop it")
    paths.out.mkdir(parents=True, exist_ok=True)
    await jobs.start(paths, kind, sitemapkit_argv(*args))
    return web.json_response({"site": await _summary(request, paths)}, status=202)


def _crawl_args(paths: SitePaths, url: str, options: list[str]) -> list[str]:
    return ["crawl", url, "--db", str(paths.db), "-o", str(paths.out), *options]


async def new_crawl(request: web.Request) -> web.Response:
    body = await _body(request)
    url = body.get("url")
    if not isinstance(url, str) or not url.strip():
        raise InputError("url: the address of the site to crawl")
    url = url.strip()
    options = crawl_options(body)
    paths = request.app[WS].site(site_id_for(url), create=True)
    return await _start(request, paths, "crawl", _crawl_args(paths, url, options))


async def crawl_again(request: web.Request) -> web.Response:
    paths = _paths(request)
    body = await _body(request)
    site = await _summary(request, paths)
    if not site["start_url"]:
        return _fail(409, f"{paths.id}: no crawl to repeat; start one with POST /api/sites")
    options = crawl_options(body)
    return await _start(request, paths, "crawl", _crawl_args(paths, site["start_url"], options))


async def resume(request: web.Request) -> web.Response:
    paths = _paths(request)
    body = await _body(request)
    options = crawl_options(body, RESUME_OPTIONS)
    site = await _summary(request, paths)
    if site["state"] == "idle" and not site["can_resume"]:
        return _fail(409, f"{paths.id}: nothing to resume (the last run finished)")
    args = ["crawl", "--resume", "--db", str(paths.db), "-o", str(paths.out), *options]
    return await _start(request, paths, "resume", args)


async def stop(request: web.Request) -> web.Response:
    paths = _paths(request)
    if not request.app[JOBS].stop(paths.id):
        return _fail(409, f"{paths.id}: nothing runs from this server")
    return web.json_response({"site": await _summary(request, paths)}, status=202)


async def events(request: web.Request) -> web.StreamResponse:
    paths = _paths(request)
    watchers = request.app[WATCHERS]
    watcher = watchers.get(paths.id)
    if watcher is None:
        watcher = watchers[paths.id] = Watcher(paths, request.app[JOBS].state)
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    response.headers["X-Accel-Buffering"] = "no"
    await response.prepare(request)
    site = await _summary(request, paths)
    async for chunk in stream(watcher, {"state": site["state"], "job": site["job"]}):
        await response.write(chunk)
    return response  # pragma: no cover - the stream ends when the client goes


def job_changed(app: web.Application, site_id: str) -> None:
    """A child started or ended: tell the site's open event streams at once, and read the
    finished crawl's pages ahead of the Pages view (100,000 rows take seconds to read)."""
    paths = app[WS].site(site_id)
    state = app[JOBS].state(paths)
    if state == "idle":
        warm(app, paths)
    watcher = app[WATCHERS].get(site_id)
    if watcher is None:
        return
    job = app[JOBS].last(site_id) or paths.read_job()
    watcher.state_changed({"state": state, "job": None if job is None else job.public()})


def warm(app: web.Application, paths: SitePaths) -> None:
    """Fill the Pages cache of ``paths`` in a worker thread (errors are the view's to say)."""
    from sitemapkit.store import is_crawl_db

    if not is_crawl_db(paths.db):
        return

    behind(app, paths.id, lambda: app[PAGES].get(paths.db))


def behind(app: web.Application, key: str, work: Callable[[], object]) -> None:
    """Run ``work`` in a worker thread unless work of that ``key`` runs already (errors are
    the view's to say when it asks); the server waits for it when it stops."""

    def run() -> None:
        with contextlib.suppress(SitemapkitError):
            work()

    busy = app[WARMING]
    if key in busy:
        return
    task = asyncio.get_running_loop().create_task(asyncio.to_thread(run))
    busy[key] = task
    task.add_done_callback(lambda _t: busy.pop(key, None))


# -- views ----------------------------------------------------------------------------


def _html_with_own_csp(page: str) -> web.Response:
    """A self-contained page served with the policy it declares (its inline code by hash)."""
    response = web.Response(text=page, content_type="text/html")
    found = _META_CSP.search(page[:4096])
    if found:
        response.headers["Content-Security-Policy"] = found.group(1)
    return response


def _need_store(paths: SitePaths) -> None:
    from sitemapkit.store import is_crawl_db

    if not is_crawl_db(paths.db):
        raise web.HTTPConflict(reason=f"{paths.id}: no crawl yet")


async def site_map(request: web.Request) -> web.Response:
    """The map page.  A big store's map comes as its sections first (a small page of their
    exact counts, :mod:`~sitemapkit.visual.preview`), the whole map built behind if it is
    not yet; ``?whole=1`` waits for the whole map (the Map view asks, then shows it).
    Both are kept until the store changes."""
    paths = _paths(request)
    _need_store(paths)
    maps = request.app[MAPS]

    def build() -> str:
        from sitemapkit.visual.page import render_html
        from sitemapkit.visual.sources import read_tree

        return render_html(read_tree(str(paths.db)), title=f"{paths.id} site map")

    if request.query.get("whole") != "1":
        firsts = request.app[FIRSTS]
        first = await asyncio.to_thread(firsts.get, paths.db, lambda: _first_screen(paths))
        if first:
            behind(request.app, "map:" + paths.id, lambda: maps.get(paths.db, build))
            return _html_with_own_csp(first)
    text = await asyncio.to_thread(maps.get, paths.db, build)
    return _html_with_own_csp(text)


def _first_screen(paths: SitePaths) -> str:
    """The sections-first page of a store of more than ``PREVIEW_OVER`` URLs, else ``""``."""
    from sitemapkit.visual import preview
    from sitemapkit.visual.page import render_html

    tree = preview.preview_tree(str(paths.db), over=preview.PREVIEW_OVER)
    return "" if tree is None else render_html(tree, title=f"{paths.id} site map")


async def site_map_json(request: web.Request) -> web.Response:
    paths = _paths(request)
    _need_store(paths)

    def build() -> dict[str, Any]:
        from sitemapkit.visual.payload import build_payload
        from sitemapkit.visual.sources import read_tree
        from sitemapkit.visual.tree import DEFAULT_MAX_CHILDREN

        return build_payload(
            read_tree(str(paths.db)),
            title=f"{paths.id} site map",
            source_kind="crawl",
            max_children=DEFAULT_MAX_CHILDREN,
        )

    return web.json_response(await asyncio.to_thread(build))


async def pages(request: web.Request) -> web.Response:
    paths = _paths(request)
    _need_store(paths)
    query = pages_mod.Query.from_params(request.query)
    compact = request.query.get("format") == "compact"
    wait = request.query.get("wait") == "1"

    def read() -> dict[str, Any]:
        cache = request.app[PAGES]
        if not compact and not wait and cache.peek(paths.db) is None:
            first = pages_mod.first_slice(paths.db, query)
            if first is not None:  # a first screen without waiting for the whole table
                return first
        records, found = cache.get(paths.db)
        if compact:
            return pages_mod.compact(records, query)
        return pages_mod.page_slice(records, found, query)

    answer = await asyncio.to_thread(read)
    if answer.get("facets") is None and not compact and request.app[JOBS].state(paths) == "idle":
        warm(request.app, paths)  # the rest of the table, while the first screen is drawn
    return web.json_response(answer)


async def pages_csv(request: web.Request) -> web.Response:
    paths = _paths(request)
    _need_store(paths)
    params = {k: v for k, v in request.query.items() if k not in ("offset", "limit")}
    query = pages_mod.Query.from_params(params)

    def read() -> str:
        records, _ = request.app[PAGES].get(paths.db)
        return pages_mod.csv_text(records, query)

    text = await asyncio.to_thread(read)
    return web.Response(
        text=text,
        content_type="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{paths.id}-pages.csv"'},
    )


async def why(request: web.Request) -> web.Response:
    from sitemapkit.app.why import explain_json

    paths = _paths(request)
    _need_store(paths)
    url = request.query.get("url", "")
    if not url:
        raise InputError("why: give ?url=URL or ?url=/path")
    found = await asyncio.to_thread(explain_json, paths.db, url)
    if found is None:
        return _fail(404, f"{url}: never seen by this crawl")
    return web.json_response(found)


async def audit_get(request: web.Request) -> web.Response:
    from sitemapkit.app.audit import audit_view

    paths = _paths(request)
    code = request.query.get("code")
    try:
        limit = int(request.query.get("limit", "200"))
    except ValueError as exc:
        raise InputError("limit: a whole number") from exc
    view = await asyncio.to_thread(audit_view, paths, code, max(1, min(limit, 5000)))
    job = request.app[JOBS].last(paths.id) or paths.read_job()
    view["job"] = job.public() if job is not None and job.kind == "audit" else None
    return web.json_response(view)


async def audit_post(request: web.Request) -> web.Response:
    paths = _paths(request)
    await _body(request)
    _need_store(paths)
    site = await _summary(request, paths)
    args = ["audit", site["start_url"] or "", "--db", str(paths.db), "-o", str(paths.audit_dir),
            "--fail-on", "never"]  # fmt: skip
    if not site["start_url"]:
        args.remove("")
    return await _start(request, paths, "audit", args)


async def audit_html(request: web.Request) -> web.Response:
    paths = _paths(request)
    page = paths.audit_dir / "audit.html"
    if not page.is_file():
        raise web.HTTPConflict(reason=f"{paths.id}: no audit yet")
    return _html_with_own_csp(await asyncio.to_thread(page.read_text, "utf-8"))


def _set(paths: SitePaths) -> list[Path]:
    files = sitemap_files(paths.out)
    if not files:
        raise web.HTTPConflict(reason=f"{paths.id}: no sitemap set written yet")
    return files


def _base_url(paths: SitePaths) -> str | None:
    from sitemapkit.cli.crawl import default_base_url
    from sitemapkit.store import open_store

    store = open_store(paths.db, mode="read")
    try:
        return default_base_url(store)
    finally:
        store.close()


async def sitemaps(request: web.Request) -> web.Response:
    paths = _paths(request)
    files = _set(paths)

    def read() -> dict[str, Any]:
        base = _base_url(paths)
        return {
            "files": sitemaps_mod.describe(files),
            "robots_line": sitemaps_mod.robots_line(base, files),
            "validation": sitemaps_mod.check_set(files, base),
        }

    return web.json_response(await asyncio.to_thread(read))


async def sitemaps_zip(request: web.Request) -> web.Response:
    paths = _paths(request)
    files = _set(paths)

    def build() -> bytes:
        return sitemaps_mod.zip_bytes(files, sitemaps_mod.robots_line(_base_url(paths), files))

    return web.Response(
        body=await asyncio.to_thread(build),
        content_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="{paths.id}-sitemaps.zip"'},
    )


async def publish(request: web.Request) -> web.Response:
    paths = _paths(request)
    body = await _body(request)
    files = _set(paths)
    root = request.app[WS].publish_root
    done = await asyncio.to_thread(sitemaps_mod.publish, files, root, body.get("folder", ""))
    return web.json_response(done)


# -- the application ------------------------------------------------------------------


def make_app(workspace: Workspace, guard: Guard) -> web.Application:
    """The whole server: guard first, then errors as JSON, then the routes of API.md."""
    # what the first Map visit needs is imported as the server starts, not on that visit
    importlib.import_module("sitemapkit.visual.page")
    importlib.import_module("sitemapkit.visual.preview")
    app = web.Application(middlewares=[guard_middleware(guard), errors_middleware])
    app[WS] = workspace
    app[GUARD] = guard
    app[WATCHERS] = {}
    app[PAGES] = pages_mod.PageCache()
    app[MAPS] = MapCache()
    app[FIRSTS] = MapCache()
    app[WARMING] = {}
    app[JOBS] = Jobs(on_change=lambda site_id: job_changed(app, site_id))
    app.on_response_prepare.append(add_headers)
    app.on_shutdown.append(_shutdown)
    site = "/api/sites/{site}"
    app.router.add_get("/", index)
    app.router.add_static("/static", static_dir(), follow_symlinks=False)
    app.router.add_get("/api/info", info)
    app.router.add_get("/api/sites", list_sites)
    app.router.add_post("/api/sites", new_crawl)
    app.router.add_get(site, get_site)
    app.router.add_post(site + "/crawl", crawl_again)
    app.router.add_post(site + "/stop", stop)
    app.router.add_post(site + "/resume", resume)
    app.router.add_get(site + "/events", events)
    app.router.add_get(site + "/map", site_map)
    app.router.add_get(site + "/map.json", site_map_json)
    app.router.add_get(site + "/pages", pages)
    app.router.add_get(site + "/pages.csv", pages_csv)
    app.router.add_get(site + "/why", why)
    app.router.add_get(site + "/audit", audit_get)
    app.router.add_post(site + "/audit", audit_post)
    app.router.add_get(site + "/audit.html", audit_html)
    app.router.add_get(site + "/sitemaps", sitemaps)
    app.router.add_get(site + "/sitemaps.zip", sitemaps_zip)
    app.router.add_post(site + "/publish", publish)
    return app


async def _shutdown(app: web.Application) -> None:
    """Server stopping (Ctrl-C, SIGTERM): every crawl saves itself before we exit."""
    await app[JOBS].shutdown()
    warming = list(app[WARMING].values())
    if warming:
        await asyncio.wait(warming)
