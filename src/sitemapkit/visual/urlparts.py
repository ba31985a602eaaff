"""A URL cut into what the map's tree is made of, and put back together exactly.

Why purely textual: the page rebuilds every URL from its path segments, so
:func:`join_url` must give back the exact string :func:`split_url` was given;
anything it cannot give back (fragments, odd forms) is stored as an override
instead of being "fixed" here.  ``nodeUrl`` in ``assets/app.js`` mirrors it.
"""

from __future__ import annotations


def split_url(url: str) -> tuple[str, list[str], bool, str | None]:
    """``(origin, path segments, trailing slash, query)`` for a URL, or a non-HTTP fallback."""
    scheme_end = url.find("://")
    if scheme_end <= 0:
        return "(other)", [url], False, None
    rest_start = scheme_end + 3
    cut = len(url)
    for ch in "/?#":
        pos = url.find(ch, rest_start)
        if pos != -1 and pos < cut:
            cut = pos
    origin = url[:cut].lower()
    rest = url[cut:]
    rest = rest.split("#", 1)[0]
    path, qmark, query = rest.partition("?")
    trailing = path.endswith("/")
    if trailing:  # strip exactly one slash: "/a//" keeps its empty last segment
        segments = path[1:-1].split("/") if len(path) > 1 else []
    else:
        segments = path[1:].split("/") if path else []
    return origin, segments, trailing, (query if qmark else None)


def join_url(origin: str, segments: list[str], trailing: bool, query: str | None) -> str:
    """The inverse of :func:`split_url` for the forms it understands (and the JS mirrors)."""
    url = origin
    for seg in segments:
        url += "/" + seg
    if trailing:
        url += "/"
    if query is not None:
        url += "?" + query
    return url


def fast_head(head: str) -> bool:
    """Whether ``head`` (a URL up to its last ``/``) names a folder of an http-like origin.

    Only such heads take the builder's fast lane; ``"https:/"`` (from
    ``"https://x"``) or ``"https://"`` (from ``"https:///a"``) do not.
    """
    scheme_end = head.find("://")
    return scheme_end > 0 and len(head) > scheme_end + 3
