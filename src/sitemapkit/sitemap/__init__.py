"""Writing, reading and validating sitemap files."""
