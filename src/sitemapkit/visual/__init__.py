"""The interactive visual sitemap: tree model and self-contained HTML page.

``write_visual_map(records, out)`` is the one call most code needs; the
``sitemapkit visualize`` command wraps it with source detection.
"""

from sitemapkit.visual.page import write_visual_map
from sitemapkit.visual.tree import SiteTree

__all__ = ["SiteTree", "write_visual_map"]
