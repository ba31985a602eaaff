from sitemapdata.xmlread import check_set

__all__ = ["check_set"]
