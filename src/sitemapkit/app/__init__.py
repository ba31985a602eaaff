"""``sitemapkit serve``: a local web app over the same workspace files the CLI uses.

See API.md beside this file for the routes the front end (``static/``) talks to.
"""
