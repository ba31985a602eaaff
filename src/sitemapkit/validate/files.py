"""File-level rules, judged when a file ends: declaration, encoding, root, namespace, bytes,
counts."""

from __future__ import annotations

from sitemapkit import limits
from sitemapkit.limits import SITEMAP_NS
from sitemapkit.read.walk import Doc
from sitemapkit.validate.state import (
    DocState,
    ValidatorBase,
    foreign_attrs,
)


class FileRules(ValidatorBase):
    """Rules of one file as a whole."""

    def _end_doc(self, doc: Doc, st: DocState) -> None:
        """A file has ended: its own rules, its summaries, and what its index learns."""
        self._prolog(doc)
        self._root(doc)
        self._summaries(doc, st)
        self._to_parent(doc)

    def _prolog(self, doc: Doc) -> None:
        """Before the root: leading bytes, the declared encoding; and the file's size."""
        f = doc.facts
        if f.leading_bytes:
            self._emit_at(
                doc,
                "xml-leading-content",
                f"{f.leading_bytes} bytes before the XML declaration ({f.leading_text[:30]!r})",
                1,
                1,
            )
        enc = (f.declared_encoding or "").lower().replace("_", "-")
        if enc and enc not in ("utf-8", "utf8"):
            self._emit_at(
                doc,
                "encoding-not-utf8",
                f'declared encoding "{f.declared_encoding}" is not UTF-8',
                1,
                1,
            )
        size = f.byte_size
        if size > limits.MAX_BYTES_PER_FILE:
            self._emit_at(
                doc,
                "file-too-large",
                f"{size:,} bytes uncompressed, over {limits.MAX_BYTES_PER_FILE:,}",
            )
        elif size > limits.LEGACY_MAX_BYTES_PER_FILE:
            self._emit_at(
                doc,
                "file-over-10mb",
                f"{size:,} bytes uncompressed, over the old "
                f"{limits.LEGACY_MAX_BYTES_PER_FILE:,} limit some engines keep",
            )

    def _root(self, doc: Doc) -> None:
        """The root of a urlset or an index: namespace, attributes, stray text."""
        f = doc.facts
        kind = doc.kind
        if kind not in ("urlset", "sitemapindex"):
            return
        if f.root_ns != SITEMAP_NS:
            got = f'"{f.root_ns}"' if f.root_ns else "none"
            self._emit_at(
                doc,
                "namespace-wrong",
                f'root namespace is {got}, not "{SITEMAP_NS}"',
                f.root_line,
                f.root_col,
            )
        if f.root_attrs:
            bad = foreign_attrs(f.root_attrs)
            if bad:
                self._emit_at(
                    doc,
                    "attribute-unknown",
                    f'<{kind}> has attribute "{bad[0]}", which the sitemap schema does not allow',
                    f.root_line,
                    f.root_col,
                )
        if f.stray is not None and not doc.stopped:
            self._emit_at(
                doc,
                "content-stray",
                f"text inside <{kind}> between entries, where only elements are allowed",
                *f.stray,
            )

    def _summaries(self, doc: Doc, st: DocState) -> None:
        """What was counted over the file: emptiness, hints, x-default, deprecated children."""
        f = doc.facts
        kind = doc.kind
        if doc.stopped:
            self.report.skipped[f"rules after the stop in {doc.source}"] = (
                "reading stopped early (see the finding above)"
            )
        if kind == "urlset" and st.entries == 0 and f.root_name is not None and not doc.stopped:
            self._emit_at(doc, "urlset-empty", "urlset has no <url>", f.root_line, f.root_col)
        if st.hints and st.hint_node is not None:
            n = st.hint_node
            self._emit_at(
                doc,
                "hint-ignored",
                f"{st.hints:,} changefreq/priority values; Google ignores both",
                n.line,
                n.col,
            )
        if st.no_default and st.no_default_node is not None:
            n = st.no_default_node
            self._emit_at(
                doc,
                "hreflang-no-default",
                f"{st.no_default:,} page(s) with hreflang alternates have no x-default",
                n.line,
                n.col,
            )
        for what, (count, node) in st.aggregated.items():
            code = (
                "image-deprecated" if what.startswith("image:")
                else "video-deprecated" if what.startswith("video:")
                else "news-legacy"
            )  # fmt: skip
            self._emit_at(
                doc, code, f"{what} ({count:,}×) has no effect any more", node.line, node.col
            )
        self.report.entries += st.entries if kind != "sitemapindex" else 0
        if kind in ("urlset", "sitemapindex"):
            self.report.roots[doc.source] = kind

    def _to_parent(self, doc: Doc) -> None:
        """An index's child: nesting and its errors are the index's findings."""
        parent = doc.parent
        if parent is not None:
            if doc.kind == "sitemapindex":
                self._emit_at(
                    parent,
                    "index-nested",
                    f'"{doc.source}" is itself a sitemap index (indexes may not nest)',
                    doc.parent_line,
                    None,
                    doc.url,
                )
            if doc.errors:
                self._emit_at(
                    parent,
                    "index-child-invalid",
                    f'listed sitemap "{doc.source}" has {doc.errors:,} error(s)',
                    doc.parent_line,
                    None,
                    doc.url,
                )
