"""Writing sitemaps: inputs, rendering (the only code that makes XML text), the set writer and
publishing.
"""
