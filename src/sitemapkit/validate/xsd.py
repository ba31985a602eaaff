"""Optional XSD validation with lxml, against schemas the user supplies (``--schema DIR``).

Why optional and user-supplied: the Google and W3C schema files may not ship
in the package, and our own rules are stricter anyway.  lxml is an extra
(``pip install 'sitemapkit[xsd]'``); the parser never loads a DTD, touches the
network or resolves entities, so a hostile file stays harmless here too.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

from sitemapkit.errors import InputError
from sitemapkit.model import Finding, Severity

#: files larger than this (or gzipped) are validated streaming, reporting the first error
STREAM_OVER_BYTES = 5 * 1024 * 1024
#: schema file per root element; ``all.xsd`` (every extension) is preferred for urlsets.
SCHEMA_FILES = {"urlset": ("all.xsd", "sitemap.xsd"), "sitemapindex": ("siteindex.xsd",)}


def _lxml() -> Any:
    try:
        from lxml import etree
    except ImportError:
        raise InputError(
            "--schema needs lxml: pip install 'sitemapkit[xsd]'", rule="xsd-unavailable"
        ) from None
    return etree


class SchemaSet:
    """The schemas of one folder, compiled once, applied per file by root element."""

    def __init__(self, folder: str) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise InputError(f"--schema {folder}: not a folder")
        self._etree = _lxml()
        self._compiled: dict[str, Any] = {}
        self._parser = self._etree.XMLParser(
            load_dtd=False, no_network=True, resolve_entities=False, huge_tree=False
        )

    def _schema(self, root: str) -> Any:
        if root in self._compiled:
            return self._compiled[root]
        for name in SCHEMA_FILES.get(root, ()):
            path = self.folder / name
            if path.is_file():
                doc = self._etree.parse(str(path), self._parser)
                schema = self._etree.XMLSchema(doc)
                self._compiled[root] = schema
                return schema
        self._compiled[root] = None
        return None

    def check(self, path: str, root: str, source: str) -> tuple[list[Finding], str | None]:
        """Findings (``xsd-invalid``) for one local file, or a reason it was not checked."""
        schema = self._schema(root)
        if schema is None:
            return [], f"no schema for <{root}> in {self.folder}"
        if Path(path).stat().st_size > STREAM_OVER_BYTES or path.endswith(".gz"):
            return self._stream(schema, path, source)
        data = Path(path).read_bytes()
        try:
            tree = self._etree.fromstring(data, self._parser).getroottree()
        except self._etree.XMLSyntaxError as exc:
            return [], f"lxml could not parse it: {exc}"
        if schema.validate(tree):
            return [], None
        return [
            Finding(
                "xsd-invalid",
                Severity.ERROR,
                f"schema: {e.message}",
                source,
                e.line,
                e.column + 1 if e.column is not None else None,
            )
            for e in schema.error_log
        ], None

    def _stream(self, schema: Any, path: str, source: str) -> tuple[list[Finding], str | None]:
        """Validate while parsing, dropping each element once seen: flat memory, first error."""
        etree = self._etree
        opener = gzip.open if Path(path).read_bytes()[:2] == b"\x1f\x8b" else open
        with opener(path, "rb") as fh:
            try:
                for _, el in etree.iterparse(
                    fh,
                    events=("end",),
                    schema=schema,
                    load_dtd=False,
                    no_network=True,
                    resolve_entities=False,
                    huge_tree=False,
                ):
                    if el.getparent() is not None and el.getparent().getparent() is None:
                        el.clear()
                        parent = el.getparent()
                        while el.getprevious() is not None:
                            del parent[0]
            except etree.XMLSyntaxError as exc:
                errors = list(getattr(exc, "error_log", None) or [])
                last = errors[-1] if errors else None
                line = last.line if last is not None and last.line else None
                col = last.column + 1 if last is not None and line else None
                msg = last.message if last is not None else exc.msg
                note = "" if line else " (streamed check of a large file: first error only)"
                return [
                    Finding(
                        "xsd-invalid", Severity.ERROR, f"schema: {msg}{note}", source, line, col
                    )
                ], None
        return [], None
