"""Tuning Meteor's parameters on human judgments (``meteor-build tune``) and baseline metric scores.

:mod:`.baselines` writes sacreBLEU's chrF and sentence BLEU for a judgments file as TSVs that
``meteor-lite correlate`` reads (sacreBLEU is a test / build-time dependency, never the scorer's).
"""
