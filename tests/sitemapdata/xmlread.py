"""Helpers for the writer tests: read a written file back with lxml."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path

import pytest
from lxml import etree

SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def read_xml(path: Path) -> etree._Element:
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    return etree.fromstring(data, parser)


def locs(path: Path) -> list[str]:
    root = read_xml(path)
    return [el.text or "" for el in root.iter(f"{SM}loc")]


def no_temporaries(folder: Path) -> bool:
    """No hidden file but the set's manifest (temporaries are hidden files)."""
    return not [
        p
        for p in folder.iterdir()
        if p.name.startswith(".") and not p.name.startswith(".sitemapkit-manifest")
    ]


@pytest.fixture
def check_set(
    xmllint_urlset: Callable[[Path], None], xmllint_index: Callable[[Path], None]
) -> Callable[[list[Path]], None]:
    """xmllint every file of a written set with the schema its root element asks for."""

    def check(files: list[Path]) -> None:
        for path in files:
            if path.suffix == ".txt":
                continue
            root = read_xml(path)
            if root.tag == f"{SM}sitemapindex":
                xmllint_index(path)
            else:
                xmllint_urlset(path)

    return check
