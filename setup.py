"""Build hook for the optional compiled alignment search (everything else is in pyproject.toml).

By default meteor-lite builds as pure Python (a ``py3-none-any`` wheel).  With
``METEOR_LITE_ACCEL=1`` in the environment the build also compiles
``meteor_lite/_accel.c`` (a C compiler and the Python headers are needed),
the compiled twins of the scorer's hottest loops (meteor_lite/accel.py), with the same results
(``make accel`` builds it in place in a checkout).
"""

import hashlib
import os
from pathlib import Path

from setuptools import Extension, setup

ACCEL = os.environ.get("METEOR_LITE_ACCEL", "").strip().lower() in ("1", "true", "yes")
SOURCE = "meteor_lite/_accel.c"


def _kernels() -> Extension:
    # The source's digest is compiled in: meteor_lite/accel.py refuses a module built from another source.
    digest = hashlib.sha256((Path(__file__).parent / SOURCE).read_bytes()).hexdigest()
    return Extension("meteor_lite._accel", [SOURCE], define_macros=[("ACCEL_SOURCE_SHA256", f'"{digest}"')])


setup(ext_modules=[_kernels()] if ACCEL else [])
