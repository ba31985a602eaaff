"""The kinds of document a sitemap source can be, named once, and what an entry of each is.

Why one module: the parser (which element is an entry), the walker (what a
file turned out to be), the reader (which values an entry gives) and the
validator (which rules run) all decide by the document's kind.  Each used to
spell the kinds as strings of its own, so a root one of them knew (an Atom 0.3
``<feed>``) was silently nothing to another (0 URLs, exit 0).  Here a root is
mapped to a :data:`Kind` by :func:`kind_of_root`; a root no row of
:data:`ROOTS` names is ``root-unknown``, for everyone.
"""

from __future__ import annotations

from typing import Final, Literal

#: Atom 1.0 (RFC 4287).
ATOM_NS: Final = "http://www.w3.org/2005/Atom"
#: Atom 0.3, the draft sitemaps.org still lists as a sitemap format.
ATOM03_NS: Final = "http://purl.org/atom/ns#"
#: RSS 1.0 (RDF) puts its items in this namespace, RSS 2.0 in none.
RSS1_NS: Final = "http://purl.org/rss/1.0/"

#: What a document is: an XML sitemap, an index, a feed, a text list, or a robots.txt.
Kind = Literal["urlset", "sitemapindex", "rss", "atom", "text", "robots"]

#: Kinds whose entries are page URLs read from XML.
XML_KINDS: Final[frozenset[Kind]] = frozenset({"urlset", "sitemapindex", "rss", "atom"})


#: (root local name, root namespaces or None for any) -> kind.  The sitemap roots take any
#: namespace here: the tolerant reader reads old Google ones, the validator reports them.
ROOTS: Final[tuple[tuple[str, frozenset[str] | None, Kind], ...]] = (
    ("urlset", None, "urlset"),
    ("sitemapindex", None, "sitemapindex"),
    ("rss", None, "rss"),
    ("RDF", None, "rss"),
    ("feed", frozenset({ATOM_NS, ATOM03_NS}), "atom"),
)

#: kind -> local name of its entries (None: every child of the root).
ENTRY_NAMES: Final[dict[Kind, str | None]] = {
    "urlset": None,
    "sitemapindex": None,
    "rss": "item",
    "atom": "entry",
}

#: the element a sitemap entry must be, by kind (the validator's element-unknown otherwise)
SITEMAP_ENTRY: Final[dict[Kind, str]] = {"urlset": "url", "sitemapindex": "sitemap"}


def kind_of_root(name: str, ns: str) -> Kind | None:
    """The kind of a document whose root element is ``{ns}name``, or None (``root-unknown``)."""
    for root, namespaces, kind in ROOTS:
        if name == root and (namespaces is None or ns in namespaces):
            return kind
    return None


def root_unknown_message(name: str, ns: str) -> str:
    """The one message for ``root-unknown``: what the root is and what was expected."""
    where = f' in namespace "{ns}"' if ns else " with no namespace"
    return (
        f"root element <{name}>{where} is not a sitemap (urlset, sitemapindex), "
        "an RSS feed or an Atom 1.0/0.3 feed"
    )
