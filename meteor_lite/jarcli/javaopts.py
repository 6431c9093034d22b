"""The Java launcher's part of a jar command line (``java -Xmx2G -jar meteor-1.5.jar <args>``).

Tools that run Meteor build ``["java", "-jar", "-Xmx2G", JAR, "-", "-", "-stdio", ...]`` or
``["java", "-Xmx2G", "-Duser.language=en", "-jar", JAR, ...]``: the launcher reads its own options
up to the first argument that is not one, which is the jar's path when ``-jar`` came before it
(otherwise a main class), and hands everything after it to the program.  :func:`split_launcher`
reads a command line the same way, so that ``meteor-jar`` can take the whole of it (``java`` replaced
by ``meteor-jar``) and the ``java`` shim (:mod:`meteor_lite.jarcli.javashim`) can tell a Meteor jar's call
from any other Java call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import List, Optional, Sequence

__all__ = ["JavaCommand", "is_meteor_jar", "split_launcher", "strip_launcher"]

#: Launcher options that take the next argument as their value.
_WITH_VALUE = frozenset({"-cp", "-classpath", "--class-path", "--module-path", "--add-modules",
                         "--add-opens", "--add-exports", "--add-reads", "--enable-native-access"})

#: Launcher flags and prefixes of ``-X...``/``-D...``-style options (their value is part of the argument).
_FLAGS = frozenset({"-server", "-client", "-ea", "-da", "-esa", "-dsa", "-enableassertions", "-disableassertions",
                    "-enablesystemassertions", "-disablesystemassertions", "-d32", "-d64", "-verbose",
                    "-showversion", "--show-version", "-Xshare:auto", "-jar"})
_PREFIXES = ("-X", "-D", "-ea:", "-da:", "-enableassertions:", "-disableassertions:", "-verbose:", "-javaagent:",
             "-agentlib:", "-agentpath:", "--add-opens=", "--add-exports=", "--add-modules=", "--class-path=",
             "--module-path=", "-splash:", "--enable-preview", "--enable-native-access=")

#: What ``java -version`` and its spellings are.
VERSION_FLAGS = frozenset({"-version", "--version", "-fullversion", "--full-version"})

#: A Meteor jar's file name: ``meteor-1.5.jar``, ``meteor-1.4.jar``, ``meteor.jar`` (any case).
_METEOR_JAR = re.compile(r"meteor[^/\\]*\.jar", re.IGNORECASE)


@dataclass
class JavaCommand:
    """A Java command line split as the launcher splits it (without the program name)."""

    options: List[str] = field(default_factory=list)  # the launcher's options, as given
    jar: Optional[str] = None  # the -jar file
    main_class: Optional[str] = None  # the class run when there is no -jar
    args: List[str] = field(default_factory=list)  # the program's arguments
    version: bool = False  # -version (or a spelling of it) among the options

    @property
    def meteor(self) -> bool:
        """True when this runs a Meteor jar (``-jar .../meteor*.jar``)."""
        return self.jar is not None and is_meteor_jar(self.jar)


def is_meteor_jar(path: str) -> bool:
    """True for a file name of a Meteor jar (``meteor-1.5.jar``, ``Meteor.jar``), in any directory."""
    return _METEOR_JAR.fullmatch(PurePath(path).name) is not None


def _is_option(arg: str) -> bool:
    return arg in _FLAGS or arg in _WITH_VALUE or arg in VERSION_FLAGS or arg.startswith(_PREFIXES)


def split_launcher(argv: Sequence[str]) -> JavaCommand:
    """``argv`` (after ``java``) split into launcher options, the jar or main class, and the program's arguments.

    The launcher's options run up to the first argument that is not one of them; with ``-jar`` among
    them, that argument is the jar file, else the main class; all that follows is the program's.
    """
    cmd = JavaCommand()
    i = 0
    use_jar = False
    while i < len(argv):
        arg = argv[i]
        if not _is_option(arg):
            break
        cmd.options.append(arg)
        if arg == "-jar":
            use_jar = True
        elif arg in VERSION_FLAGS:
            cmd.version = True
        elif arg in _WITH_VALUE and i + 1 < len(argv):
            cmd.options.append(argv[i + 1])
            i += 1
        i += 1
    if i < len(argv):
        if use_jar:
            cmd.jar = argv[i]
        else:
            cmd.main_class = argv[i]
        cmd.args = list(argv[i + 1:])
    return cmd


class NotMeteorJarError(Exception):
    """``-jar FILE`` names a jar that is not Meteor's."""


def strip_launcher(argv: Sequence[str]) -> List[str]:
    """The jar's own arguments of a command line that may begin with the Java launcher's.

    ``-Xmx2G -jar meteor-1.5.jar - - -stdio`` and ``-jar -Xmx2G /x/meteor-1.5.jar - - -stdio`` give
    ``- - -stdio``; a command line with no launcher option is returned as it is (``- - -stdio``).
    Without ``-jar`` the launcher's options are dropped as well (``-Xmx2G - - -stdio`` gives ``- - -stdio``:
    ``meteor-jar`` is the jar, so the jar's path may be left out).  Raises :class:`NotMeteorJarError` for
    ``-jar other.jar``.
    """
    if not argv or not _is_option(argv[0]) or argv[0] in VERSION_FLAGS:
        return list(argv)
    cmd = split_launcher(argv)
    if cmd.jar is None:
        return [cmd.main_class, *cmd.args] if cmd.main_class is not None else []
    if not cmd.meteor:
        raise NotMeteorJarError(f"-jar {cmd.jar}: not a Meteor jar (meteor-jar answers for meteor*.jar only)")
    return cmd.args
