"""Maintainer checks (``meteor-build check ...``): in a checkout only, never in the wheel.

Three jobs, one sub-package each; :mod:`.cli` holds every command, :mod:`.paths` and :mod:`.shared_data`
the places and readers they share:

* :mod:`.parity`: meteor-lite against the official Meteor 1.5 jar -- the jar as a cached black box
  (:mod:`.parity.oracle`), the full-data agreement (:mod:`.parity.agreement`), the test fixtures' expected outputs
  (:mod:`.parity.fixtures`, :mod:`.parity.stems`), the normaliser (:mod:`.parity.normalizer`), an exported or an
  imported bundle inside the jar, the pivot beside Parex;
* :mod:`.bench`: wall time, memory and request rates beside the jar's (``make bench``), the pivot and Spark
  benchmarks;
* :mod:`.research`: what the scorer's settings are worth on human judgments -- validity against chrF and BLEU,
  transfer between MQM sets, the universal set and each language's ``mqm`` set (the tuning drivers; they write
  ``meteor_lite/tuned_tasks.json`` through :func:`meteor_lite_builders.tune.tasks.add_shipped`), perturbations,
  thesaurus, Hunspell and paraphrase effects.

:mod:`.languages_from_wheel` installs every language from the built wheel.  The shipped recipes are rewritten by
:mod:`meteor_lite_builders.recipes.regenerate`.  Nothing the wheel installs imports this package
(tests/test_wheel_imports.py).
"""
