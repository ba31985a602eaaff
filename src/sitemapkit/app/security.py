"""Who may talk to ``sitemapkit serve``, and what every response carries.

The server starts crawls and writes files, so a web page the user happens to
visit must not be able to drive it:

* **Host** is checked on a loopback server, so a DNS-rebinding page (its own
  name resolving to 127.0.0.1) is refused with 421.
* **Token**: a server on another address always has one (given or generated);
  every request shows it in ``X-Sitemapkit-Token`` or in the cookie a first
  ``/?token=`` visit sets (HttpOnly, SameSite=Strict, so other sites never send it).
* **State-changing requests** take JSON bodies only (a cross-site form cannot
  send ``application/json`` without a CORS preflight, which we never answer),
  and an ``Origin`` or ``Sec-Fetch-Site`` that names another site is refused.
* **Every response** carries a CSP that allows only this server's own files,
  no framing by others, no sniffing, no referrer.  A page that brings its own
  policy (the map, with its inline script allowed by hash) keeps it.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from aiohttp import web
from aiohttp.typedefs import Middleware

TOKEN_HEADER = "X-Sitemapkit-Token"  # noqa: S105 - a header name
TOKEN_COOKIE = "sitemapkit_token"  # noqa: S105 - a cookie name
#: The policy of every response that does not bring its own.
APP_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; frame-src 'self'; frame-ancestors 'self'; base-uri 'none'; "
    "form-action 'none'"
)
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and any loopback address (the default, safe binding)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def new_token() -> str:
    """A token for a server on a non-loopback address when the user gave none."""
    return secrets.token_urlsafe(24)


@dataclass(slots=True)
class Guard:
    """The safety settings of one server; ``port`` is filled in once it is bound."""

    host: str
    token: str | None
    port: int = 0
    extra_hosts: frozenset[str] = field(default_factory=frozenset)

    def allowed_hosts(self) -> set[str]:
        names = {self.host, *LOOPBACK_NAMES} if is_loopback(self.host) else {self.host}
        if ":" in self.host and not self.host.startswith("["):
            names.add(f"[{self.host}]")
        return {f"{name}:{self.port}" for name in names} | set(self.extra_hosts)

    def host_ok(self, request: web.Request) -> bool:
        """Loopback servers answer only to their own names (no DNS rebinding)."""
        if not is_loopback(self.host):
            return True  # the token is what protects a server on the network
        return (request.host or "").lower() in self.allowed_hosts()

    def token_ok(self, request: web.Request) -> bool:
        if self.token is None:
            return True
        given = request.headers.get(TOKEN_HEADER) or request.cookies.get(TOKEN_COOKIE) or ""
        return hmac.compare_digest(given.encode(), self.token.encode())

    def origin_problem(self, request: web.Request) -> str | None:
        """Why a state-changing request is refused (``None`` when it may go on)."""
        own = f"{request.scheme}://{request.host}"
        origin = request.headers.get("Origin")
        if origin is not None and origin.lower() != own.lower():
            return f"Origin {origin} is not this server ({own})"
        site = request.headers.get("Sec-Fetch-Site")
        if site is not None and site not in ("same-origin", "none"):
            return f"a {site} request cannot change anything here"
        return None


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


def guard_middleware(guard: Guard) -> Middleware:
    """The middleware that applies :class:`Guard` to every request, before any handler."""

    @web.middleware
    async def check(request: web.Request, handler: Handler) -> web.StreamResponse:
        if not guard.host_ok(request):
            return _error(421, f"Host {request.host!r} is not this server")
        if guard.token is not None and request.method == "GET" and "token" in request.query:
            return _token_visit(guard, request)
        if not guard.token_ok(request):
            return _error(401, "this server needs its token: open the address serve printed")
        if request.method not in SAFE_METHODS:
            problem = guard.origin_problem(request)
            if problem is not None:
                return _error(403, problem)
            if request.content_type != "application/json":
                return _error(415, "send a JSON body (Content-Type: application/json)")
        return await handler(request)

    return check


def _token_visit(guard: Guard, request: web.Request) -> web.Response:
    """``/?token=T``: right token sets the cookie and drops the token from the address."""
    given = request.query.get("token", "")
    assert guard.token is not None
    if not hmac.compare_digest(given.encode(), guard.token.encode()):
        return _error(401, "wrong token")
    query = {k: v for k, v in request.query.items() if k != "token"}
    response = web.Response(
        status=303, headers={"Location": str(request.rel_url.with_query(query))}
    )
    response.set_cookie(TOKEN_COOKIE, guard.token, httponly=True, samesite="Strict", path="/")
    return response


async def add_headers(_request: web.Request, response: web.StreamResponse) -> None:
    """``on_response_prepare``: the CSP and friends on every response, errors included."""
    response.headers.setdefault("Content-Security-Policy", APP_CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    response.headers.setdefault("X-Frame-Options", "SAMEORIGIN")
    response.headers.setdefault("Cache-Control", "no-store")
