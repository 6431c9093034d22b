"""Resource bundles and the lookups the matchers make in them.

``schema`` (the format), ``bundle`` (the read-only reader), ``locate`` (the
search path), ``stemming`` (snowball stemmers) and ``lookups`` (cached
per-word lookups for the scorer).
"""
