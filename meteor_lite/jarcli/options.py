"""Meteor 1.5's command line, parsed as the jar parses it (``<test> <reference> [options]``).

Options are single-dash long words (``-norm``, ``-vOut``, ``-writeAlignments``); those that take a
value take the next argument whole (``-m 'exact stem'``).  Parsing is by hand (argparse cannot
express single-dash long options that must not be abbreviated).  Behaviour as observed with the jar:
fewer than two arguments print :data:`USAGE` on stderr and exit 2; an unknown option prints
``Unknown option "<arg>"`` on stderr and exits 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

__all__ = ["USAGE", "JarOptions", "UsageError", "UnknownOptionError", "MissingValueError", "parse_args"]

#: The jar's usage text, verbatim (printed on stderr).
USAGE = """Meteor version 1.5

Usage: java -Xmx2G -jar meteor-*.jar <test> <reference> [options]

Options:
-l language                     Fully supported: en cz de es fr
                                Supported with language-independent parameters:
                                  da fi hu it nl no pt ro ru se tr
                                Experimental:
                                  ar-bw-red
-t task                         One of: rank util adq hter li tune
                                  util implies -ch
-p 'alpha beta gamma delta'     Custom parameters (overrides default)
-m 'module1 module2 ...'        Specify modules (overrides default)
                                  Any of: exact stem synonym paraphrase
-w 'weight1 weight2 ...'        Specify module weights (overrides default)
-r refCount                     Number of references (plaintext only)
-x beamSize                     (default 40)
-s wordListFile                 (if not default for language)
-d synonymDirectory             (if not default for language)
-a paraphraseFile               (if not default for language)
-f filePrefix                   Prefix for output files (default 'meteor')
-q                              Quiet: Segment scores to stderr, final to stdout,
                                  no additional output (plaintext only)
-new files-dir                  New language! (files-dir contains function.words and paraphrase.gz)
                                  implies -lower
-ch                             Character-based precision and recall
-norm                           Tokenize / normalize punctuation and lowercase
                                  (Recommended unless scoring raw output with
                                   pretokenized references)
-lower                          Lowercase only (not required if -norm specified)
-noPunct                        Do not consider punctuation when scoring
                                  (Not recommended unless special case)
-sgml                           Input is in SGML format
-stdio                           Input is from stdin, see README for format
                                  (Use '-' for test and reference files)
-vOut                           Output verbose scores (P / R / frag / score)
-ssOut                          Output sufficient statistics instead of scores
-writeAlignments                Output alignments annotated with Meteor scores
                                  (written to <prefix>-align.out)

Sample options for plaintext: -l <lang> -norm
Sample options for SGML: -l <lang> -norm -sgml
Sample options for raw output / pretokenized references: -l <lang> -lower
Sample options for new language (plaintext): -new meteor-files

See README file for additional information
"""

#: Options that take a value -> attribute of :class:`JarOptions`.
VALUE_OPTIONS: Dict[str, str] = {
    "-l": "lang",
    "-t": "task",
    "-p": "params",
    "-m": "modules",
    "-w": "weights",
    "-r": "ref_count",
    "-x": "beam",
    "-s": "function_words",
    "-d": "synonym_dir",
    "-a": "paraphrase_file",
    "-f": "prefix",
    "-new": "new_dir",
}

#: Flags -> attribute of :class:`JarOptions`.
FLAG_OPTIONS: Dict[str, str] = {
    "-q": "quiet",
    "-ch": "char_based",
    "-norm": "norm",
    "-lower": "lower",
    "-noPunct": "no_punct",
    "-sgml": "sgml",
    "-stdio": "stdio",
    "-vOut": "verbose_out",
    "-ssOut": "ss_out",
    "-writeAlignments": "write_alignments",
}


class UsageError(Exception):
    """Fewer than two arguments: the usage text, exit 2."""


class UnknownOptionError(Exception):
    """An argument that is not an option of the jar (exit 1, ``Unknown option "<arg>"``)."""

    def __init__(self, arg: str):
        self.arg = arg
        super().__init__(f'Unknown option "{arg}"')


class MissingValueError(Exception):
    """An option that takes a value came last."""

    def __init__(self, option: str):
        self.option = option
        super().__init__(f"option {option} needs a value")


@dataclass
class JarOptions:
    """Everything on a Meteor 1.5 command line (values as strings, as typed)."""

    test: str
    reference: str
    lang: str = "en"
    task: Optional[str] = None
    params: Optional[str] = None
    modules: Optional[str] = None
    weights: Optional[str] = None
    ref_count: Optional[str] = None
    beam: Optional[str] = None
    function_words: Optional[str] = None
    synonym_dir: Optional[str] = None
    paraphrase_file: Optional[str] = None
    prefix: str = "meteor"
    new_dir: Optional[str] = None
    quiet: bool = False
    char_based: bool = False
    norm: bool = False
    lower: bool = False
    no_punct: bool = False
    sgml: bool = False
    stdio: bool = False
    verbose_out: bool = False
    ss_out: bool = False
    write_alignments: bool = False
    given: List[str] = field(default_factory=list)


def parse_args(argv: Sequence[str]) -> JarOptions:
    """Parse ``argv`` (without the program name) as the jar does.

    Raises :class:`UsageError`, :class:`UnknownOptionError` or :class:`MissingValueError`.
    """
    if len(argv) < 2:
        raise UsageError()
    opts = JarOptions(test=argv[0], reference=argv[1])
    i = 2
    while i < len(argv):
        arg = argv[i]
        if arg in VALUE_OPTIONS:
            if i + 1 >= len(argv):
                raise MissingValueError(arg)
            setattr(opts, VALUE_OPTIONS[arg], argv[i + 1])
            opts.given.append(arg)
            i += 2
        elif arg in FLAG_OPTIONS:
            setattr(opts, FLAG_OPTIONS[arg], True)
            opts.given.append(arg)
            i += 1
        else:
            raise UnknownOptionError(arg)
    return opts
