"""Validating sitemaps against the rule book: the validator, extension rules, the schema cross-
check.
"""
