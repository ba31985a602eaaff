"""What changed on a site between two crawls (issue 12): ``diff`` and ``visualize --diff``.

:mod:`~sitemapkit.changes.compare` turns two :class:`~sitemapkit.store.base.UrlFacts`
of one URL into :class:`~sitemapkit.changes.compare.Change` values (the one place that
says what counts as a change); :mod:`~sitemapkit.changes.runs` picks the two sides
(two runs of one store, or the last runs of two stores); :mod:`~sitemapkit.changes.report`
writes them as text, JSON or CSV.
"""
