"""The interactive visual sitemap: tree model and self-contained HTML page."""
