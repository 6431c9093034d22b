"""Resource packs: a bundle as a pip-installable wheel the scorer finds through an entry point.

:func:`~meteor_lite_builders.packs.wheel.write_pack` writes
``meteor_lite_pack_<name>-<version>-py3-none-any.whl``; the scorer's side
(:mod:`meteor_lite.resources.packs`) finds the installed bundle without importing it.
:func:`~meteor_lite_builders.packs.index.add_to_index` puts packs into an index (a PEP 503
simple repository plus a JSON listing) that pip and ``meteor-lite bundle install --index`` read.
"""

from .index import IndexResult, add_to_index
from .wheel import PackError, PackResult, write_pack

__all__ = ["PackError", "PackResult", "write_pack", "IndexResult", "add_to_index"]
