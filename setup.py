"""Build hook for the compiled kernels (everything else is in pyproject.toml).

Building a wheel or installing from source compiles ``meteor_lite/_accel.c``, the
compiled twins of the scorer's hottest loops (meteor_lite/accel.py), and
``meteor_lite/stemmers/_english.c`` with the Snowball C code of ``snowball_c/``, the
English stemmer compiled (meteor_lite/stemmers/compiled.py), with the same results,
when a C compiler and the Python headers are there.  When they are not, the build
prints one line for each saying so and goes on: the package is then pure Python (a
platform wheel without the module; ``meteor-lite --version`` says which runs).

``METEOR_LITE_ACCEL`` in the build's environment chooses:

* unset (the default): compile, falling back to pure Python as above;
* ``1``: compile, and fail the build when that is not possible;
* ``0``: do not compile (a pure-Python ``py3-none-any`` wheel).

``METEOR_LITE_PURE=1`` at run time turns both installed modules off; ``make accel``
builds them in place in a checkout.
"""

import hashlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

import setuptools
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

#: pyproject.toml's licence is an SPDX string (PEP 639), which setuptools reads from 77.0 on; an older one
#: (a --no-build-isolation build uses the environment's) fails with a 30-line traceback: say it in one line.
MIN_SETUPTOOLS = (77, 0)


def _release(version: str) -> tuple:
    parts = []
    for piece in version.split(".")[:2]:
        digits = "".join(c for c in piece if c.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


if _release(setuptools.__version__) < MIN_SETUPTOOLS:
    raise SystemExit(
        f"meteor-lite: building needs setuptools>=77 (pyproject.toml's SPDX licence string); this environment has "
        f"setuptools {setuptools.__version__}: pip install 'setuptools>=77', or build without --no-build-isolation"
    )

SOURCE = "meteor_lite/_accel.c"
STEMMERS = Path(__file__).parent / "meteor_lite" / "stemmers"


def _english_sources() -> Any:
    """meteor_lite/stemmers/english_sources.py (SOURCES, sources_digest), loaded by its path (nothing is installed yet)."""
    spec = importlib.util.spec_from_file_location("_english_sources", STEMMERS / "english_sources.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ENGLISH = _english_sources()
_CHOICE = os.environ.get("METEOR_LITE_ACCEL", "").strip().lower()
REQUIRED = _CHOICE in ("1", "true", "yes")
SKIPPED = _CHOICE in ("0", "false", "no")


def _accel_sources() -> list:
    """The kernels' sources, in the order their digest reads them (meteor_lite/accel.py's accel_sources: a module
    built from others is refused, tests/test_accel.py checks it is not): the C file, the module codes' header generated from the module registry (meteor_lite/align/modules.py),
    then the kernels by topic, which the C file includes (meteor_lite/accel_c/*.c, by name)."""
    package = Path(__file__).parent / "meteor_lite"
    return [package / "_accel.c", package / "_accel_modules.h", *sorted((package / "accel_c").glob("*.c"))]


def _warning_flags() -> list:
    """-Wall -Wextra -Werror where the compiler is gcc or clang (the kernels build without a warning)."""
    import sysconfig

    cc = (sysconfig.get_config_var("CC") or "").split()
    name = Path(os.environ.get("CC", cc[0] if cc else "")).name
    return ["-Wall", "-Wextra", "-Werror"] if "gcc" in name or "clang" in name or name == "cc" else []


def _kernels() -> Extension:
    # The sources' digest is compiled in: meteor_lite/accel.py refuses a module built from other sources.
    digest = hashlib.sha256()
    sources = _accel_sources()
    for path in sources:
        digest.update(path.read_bytes())
    return Extension(
        "meteor_lite._accel", [SOURCE], depends=[str(p.relative_to(Path(__file__).parent)) for p in sources],
        define_macros=[("ACCEL_SOURCE_SHA256", f'"{digest.hexdigest()}"')], extra_compile_args=_warning_flags(),
    )


def _english_stemmer() -> Extension:
    # The digest of its sources is compiled in: meteor_lite/stemmers/compiled.py refuses a module built from others.
    return Extension(
        "meteor_lite.stemmers._english",
        [f"meteor_lite/stemmers/{rel}" for rel in ENGLISH.SOURCES if rel.endswith(".c")],
        define_macros=[("ENGLISH_SOURCE_SHA256", f'"{ENGLISH.sources_digest(STEMMERS)}"')],
    )


#: What each extension's fallback line calls it.
_WHAT = {
    "": "compiled kernels and English stemmer",
    "meteor_lite._accel": "compiled kernels",
    "meteor_lite.stemmers._english": "compiled English stemmer",
}
_SLOWER = {"": "about 2x slower", "meteor_lite._accel": "about 2x slower", "meteor_lite.stemmers._english": "slower English stems"}


class OptionalBuildExt(build_ext):
    """``build_ext`` that, unless METEOR_LITE_ACCEL=1, falls back to pure Python when compiling fails."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # no compiler at all (setuptools raises a platform error before compiling)
            self._fallback(exc, "")

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:  # a compiler error, missing Python.h, a failed link
            self._fallback(exc, ext.name)

    def _fallback(self, exc: Exception, name: str) -> None:
        if REQUIRED:
            raise exc
        text = " ".join(str(exc).split())
        first = type(exc).__name__ + (f": {text[:100]}..." if len(text) > 100 else f": {text}" if text else "")
        what = _WHAT.get(name, name)
        print(
            f"meteor-lite: {what} not built ({first}); installing pure Python (same scores, {_SLOWER.get(name, 'slower')})",
            file=sys.stderr,
        )


setup(ext_modules=[] if SKIPPED else [_kernels(), _english_stemmer()], cmdclass={"build_ext": OptionalBuildExt})
