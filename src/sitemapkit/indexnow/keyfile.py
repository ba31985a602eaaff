"""Check that a site serves its IndexNow key before submitting anything.

An endpoint checks the key file itself, but only after accepting the request
(``202``) or by refusing it with a bare ``403``; checking first turns that into a
message that says what is wrong: the file is missing, redirects, is too big, or
holds something else than the key.  The request goes through the crawler's fetch
layer (:class:`~sitemapkit.crawl.fetch.Fetcher`: retries, the byte cap, our
User-Agent, one-line network errors).  Redirects are not followed: the protocol
asks for the key at the given location.  The body must be the key; surrounding
white space (the newline an editor adds) is allowed, as endpoints allow it.
"""

from __future__ import annotations

from sitemapkit.crawl.fetch import Fetcher, Response

#: Bytes of a key file read: a key is at most 128 characters.
_KEY_FILE_CAP = 1024


def _shown(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")


async def key_file_problem(fetcher: Fetcher, location: str, key: str) -> str | None:
    """Why the key file at ``location`` does not prove ``key``, or None when it does."""
    got = await fetcher.get(location, keep_bytes=_KEY_FILE_CAP + 1)
    problem = _answer_problem(got) or _body_problem(got.body, key)
    return None if problem is None else f"key file {location} {problem}"


def _answer_problem(got: Response) -> str | None:
    if got.status is None:
        return f"could not be fetched: {got.error_detail or got.error}"
    if got.is_redirect:
        return f"redirects ({got.status}) to {got.location}; serve the key at the location"
    if got.status != 200:
        return f"answered {got.status}; serve a file there whose body is the key"
    return None


def _body_problem(data: bytes, key: str) -> str | None:
    if len(data) > _KEY_FILE_CAP:
        return f"holds over {_KEY_FILE_CAP} bytes; its body must be the key alone"
    try:
        text = data.decode("utf-8-sig").strip()
    except UnicodeDecodeError:
        return "is not UTF-8 text; its body must be the key"
    if not text:
        return "is empty; its body must be the key"
    if text != key:
        return f"holds {_shown(text)}, not the key {_shown(key)}"
    return None
