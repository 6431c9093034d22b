"""``python -m meteor_lite.jarcli``: the ``meteor-jar`` command."""

import sys

from . import main

sys.exit(main())
