"""The builders' exceptions: :class:`BuildError` and its subclasses.

Every error the builders' library raises on purpose is a :class:`BuildError`, itself a
:class:`meteor_lite.errors.MeteorLiteError`, so a caller (the ``meteor-build`` command
line) catches them all with one ``except``.  Messages name the file (and line) at fault.
"""

from __future__ import annotations

from meteor_lite.errors import MeteorLiteError
from meteor_lite.resources.jarformat import JarFormatError

__all__ = [
    "BuildError",
    "InvalidParameterError",
    "SourceError",
    "MalformedSourceError",
    "OfficialReleaseError",
    "ImportOfficialError",
    "MalformedInputError",
    "RecipeError",
    "MissingSourceError",
    "ExportError",
    "PhraseTableError",
    "PivotError",
    "BitextError",
]


class BuildError(MeteorLiteError):
    """Root of the builders' errors: a bundle (or another build product) could not be built."""


class InvalidParameterError(BuildError, ValueError):
    """A build parameter is out of range (e.g. a threshold that is not positive)."""


class SourceError(BuildError):
    """An input of a build is missing, unreadable or unusable (the message names the file)."""


class MalformedSourceError(SourceError):
    """An input file is malformed.

    :attr:`source` names the file, :attr:`line` is the 1-based line where the
    problem was found (0 when it concerns the whole file), :attr:`problem` says what.
    """

    def __init__(self, source: str, line: int, problem: str):
        self.source = source
        self.line = line
        self.problem = problem
        where = f"{source}, line {line}" if line else source
        super().__init__(f"{where}: {problem}")


class OfficialReleaseError(BuildError):
    """The official Meteor release (pycocoevalcap) is not installed or is incomplete."""


class ImportOfficialError(BuildError):
    """The official release could not be imported into a bundle."""


#: A resource file in Meteor 1.5's formats is malformed (names the file and line).  The formats have one
#: parser, the scorer's :mod:`meteor_lite.resources.jarformat`, whose error this is.
MalformedInputError = JarFormatError


class RecipeError(SourceError):
    """A recipe is malformed, or one of its sources is missing or does not match its checksum."""


class MissingSourceError(RecipeError):
    """A source of a recipe cannot be found (file, directory, package, wordfreq list or jar member)."""


class ExportError(SourceError):
    """A bundle cannot be exported (unreadable, or holding entries the file formats cannot represent)."""


class PhraseTableError(BuildError, ValueError):
    """A phrase table line is malformed (the message names the file and line)."""


class PivotError(BuildError, ValueError):
    """Bad input to the pivot (the message names the file and the problem)."""


class BitextError(BuildError, ValueError):
    """Bad bitext input (the message names the files and the problem)."""
