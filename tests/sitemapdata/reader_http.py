"""A real aiohttp server on 127.0.0.1, run on its own thread so sync and async callers share it."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

from aiohttp import web


class SiteServer:
    """Serve ``routes`` (path -> handler) until :meth:`stop`; ``hits`` counts requests per path."""

    def __init__(self) -> None:
        self.routes: dict[str, Callable[[web.Request], web.StreamResponse]] = {}
        self.hits: dict[str, int] = {}
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.port = 0

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        path = request.path_qs
        self.hits[path] = self.hits.get(path, 0) + 1
        handler = self.routes.get(path)
        if handler is None:
            return web.Response(status=404, text="not found")
        result = handler(request)
        if asyncio.iscoroutine(result):
            return await result
        return result

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app)
        self._loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        self._loop.run_until_complete(site.start())
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self._ready.set()
        self._loop.run_forever()
        self._loop.run_until_complete(self._runner.cleanup())
        self._loop.close()

    def start(self) -> SiteServer:
        self._thread.start()
        self._ready.wait(10)
        return self

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def body(
        self,
        path: str,
        data: bytes | str,
        *,
        status: int = 200,
        headers: dict[str, str] | None = None,
    ) -> None:
        raw = data.encode() if isinstance(data, str) else data
        self.routes[path] = lambda _r: web.Response(body=raw, status=status, headers=headers)

    def redirect(self, path: str, to: str, status: int = 301) -> None:
        self.routes[path] = lambda _r: web.Response(status=status, headers={"Location": to})
