"""Maintainer checks against the official Meteor 1.5 jar (``meteor-build check ...``).

Each module holds one tool: :mod:`.oracle` runs the jar as a black box (cached),
:mod:`.parity` compares meteor-lite with it on the shared data, :mod:`.fixtures`
regenerates ``tests/fixtures/parity_*.jsonl``, :mod:`.normalizer_parity` the
normaliser differential test, :mod:`.bench` wall time and memory side by side,
:mod:`.export_check` an exported bundle inside the jar, :mod:`.paraphrase_eval`
and :mod:`.parex_compare` the paraphrase builders, :mod:`.write_recipes` the
shipped recipes.  Nothing here is needed to build bundles or to score.
"""
