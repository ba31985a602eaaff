"""Crawl state stores (SQLite by default)."""
