"""``python -m meteor_lite.cli``: the ``meteor-lite`` command."""

from . import main

main()
