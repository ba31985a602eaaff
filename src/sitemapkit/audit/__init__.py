"""``sitemapkit audit``: does the sitemap a site publishes tell the truth about the site?

discovery (which sitemaps, named where) -> listed (their URLs into the store)
-> run (crawl, fetch the rest) -> compare (each listed URL's fate, in the store)
-> report / machine / page (text, JSON, CSV, SARIF, JUnit, HTML).
"""
