"""``python -m sitemapkit`` runs the CLI."""

import sys

from sitemapkit.cli import main

sys.exit(main())
