"""Builders: turn public corpora and official releases into meteor-lite resource bundles.

Installed as ``meteor_lite_builders``; needs the ``build`` extra (``pip install meteor-lite[build]``).
"""
