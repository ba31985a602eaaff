"""What an entry is: the one definition the reader and the validator both call.

Why: the reader used to take ``<url xmlns="">`` in a sitemap-namespace urlset as
an entry while the validator called the same file ``urlset-empty``, and the
validator counted text lines that are no URL as "entries" while the reader
dropped them.  Both now ask these functions, so a file has the same entries
whichever command reads it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from sitemapkit.limits import MAX_TEXT_CHARS
from sitemapkit.read.kinds import SITEMAP_ENTRY, Kind
from sitemapkit.rulebook.loc import is_absolute
from sitemapkit.urls import PORT, host_name_pattern

if TYPE_CHECKING:
    from sitemapkit.read.xmlnodes import Node

#: The start of a loc any reader lane may list without asking :func:`is_absolute`: http(s),
#: a host name without A-labels (the one host rule's pattern), an optional port, then the
#: end of the authority.  Anything else (userinfo, IPv6, IDNA, ``a..b``, ``:99999``) is
#: asked one loc at a time.
PLAIN_WEB_START: Final = (
    r"https?://" + host_name_pattern(final_dot=True, a_labels=False) + rf"(?::{PORT})?+"
)
#: a loc (after the line feed that joins it to the others) that does not start plainly
_NOT_WEB_LINE: Final = re.compile(r"\n(?!" + PLAIN_WEB_START + r"(?=[/?#\n]|\Z))")


def is_sitemap_entry(node: Node, kind: Kind, core_ns: str) -> bool:
    """True when ``node`` (a child of the root) is an entry of a urlset or sitemapindex:
    the entry element, in the root's own namespace (``<url xmlns="">`` under a namespaced
    urlset is not one)."""
    return node.name == SITEMAP_ENTRY[kind] and node.ns == core_ns


def text_line_url(text: str) -> str | None:
    """The URL a text-sitemap line holds, or None when the line is not one absolute URL.

    Judged by the validator's own rule (:func:`is_absolute`), as an XML loc is: the reader
    used to list a line like ``http://a..b/`` that ``validate`` called no URL.
    """
    loc = text.strip()
    if not loc or any(ch.isspace() for ch in loc) or not is_absolute(loc):
        return None
    return loc


def loc_problem(loc: str) -> tuple[str, str] | None:
    """Why the reader leaves ``loc`` out of a page list, as (code, message), or None.

    A loc longer than :data:`~sitemapkit.limits.MAX_TEXT_CHARS` cannot be held
    whole (the parser keeps that much of a text), so it is never printed cut.
    """
    if len(loc) >= MAX_TEXT_CHARS:
        return (
            "loc-too-long",
            f'loc of {MAX_TEXT_CHARS:,} characters or more left out ("{loc[:60]}...")',
        )
    if not is_absolute(loc):  # the validator's rule: what it calls no URL is not listed
        return "loc-not-absolute", f'"{loc[:200]}" is not an absolute http(s) URL; left out'
    return None


def all_plain(locs: list[str]) -> bool:
    """True when no loc of ``locs`` needs :func:`loc_problem` (the common case, C speed:
    one join and one search for a batch).  False may still mean every loc is fine (an
    ``HTTP://`` one): the caller then asks :func:`loc_problem` per loc."""
    if not locs:
        return True
    if max(map(len, locs)) >= MAX_TEXT_CHARS:
        return False
    joined = "\n" + "\n".join(locs)  # every loc after a line feed, none holding one
    return joined.count("\n") == len(locs) and _NOT_WEB_LINE.search(joined) is None
