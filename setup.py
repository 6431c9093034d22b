"""Build hook for the optional compiled alignment search (everything else is in pyproject.toml).

By default meteor-lite builds as pure Python (a ``py3-none-any`` wheel).  With
``METEOR_LITE_ACCEL=1`` in the environment the build also compiles
``meteor_lite/_accel.c`` (a C compiler and the Python headers are needed),
the compiled twins of the scorer's hottest loops (meteor_lite/accel.py), with the same results
(``make accel`` builds it in place in a checkout).
"""

import os

from setuptools import Extension, setup

ACCEL = os.environ.get("METEOR_LITE_ACCEL", "").strip().lower() in ("1", "true", "yes")

setup(
    ext_modules=[Extension("meteor_lite._accel", ["meteor_lite/_accel.c"], optional=False)] if ACCEL else [],
)
