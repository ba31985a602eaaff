"""Reading sitemaps: bytes and gzip, discovery, the hardened XML stream, lanes, walking indexes,
entries.
"""
