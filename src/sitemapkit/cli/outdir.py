"""The ``-o/--out FOLDER`` option of the commands that publish a sitemap set.

Why one type: ``-`` means standard output everywhere else (``visualize -o -``,
``inventory -o -``), but a sitemap set is several files (``sitemap.xml``, its parts, the
inventory, the map); ``build -o -`` used to create a folder named ``-`` without a word.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click


class OutFolder(click.Path):
    """A folder path (created if missing) that is not ``-``."""

    def __init__(self) -> None:
        super().__init__(file_okay=False, path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if str(value) == "-":
            self.fail(
                "'-' is standard output, which cannot hold a sitemap set (sitemap.xml, its "
                "parts ...): give a folder",
                param,
                ctx,
            )
        return super().convert(value, param, ctx)


#: The one instance the commands share.
OUT_FOLDER = OutFolder()
