"""IndexNow: tell search engines which URLs a crawl found added, changed or removed.

:mod:`~sitemapkit.indexnow.protocol` holds the protocol's rules (key format, one host
and at most :data:`~sitemapkit.limits.INDEXNOW_MAX_URLS` URLs per request, what each
answer means); :mod:`~sitemapkit.indexnow.keyfile` checks that the site serves the key;
:mod:`~sitemapkit.indexnow.submit` sends the batches and keeps the submission log in
the crawl store, so a rerun sends nothing twice and a failed batch goes next time.
"""
