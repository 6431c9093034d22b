"""The bad-input catalogue: one row per case, each asserting the exit code and the message.

Surfaces: ``score`` / ``bundle`` (``meteor-lite`` in this process, through the same guard as the
console script), ``process`` (``meteor-lite`` as a real process: output redirections), ``jar``
(``meteor-jar`` as a process, standard input from the row), ``build``
(``meteor-build`` in this process) and ``api`` (a Python expression; the code is the exception's class).
Every row runs in a scratch directory holding the files of :data:`FILES` and a few bundles
(``tiny.sqlite``: a tiny English bundle; ``tiny-de.sqlite``: the same for German; ``empty.sqlite``;
``trunc.sqlite``, ``junk.sqlite``, ``tampered.sqlite``, ``corrupt.sqlite``, ``mid.sqlite``: damaged ones).

``docs/bad-inputs.md`` is generated from :data:`CASES` and checked here:
``.venv/bin/python tests/test_bad_inputs.py --write-doc`` rewrites it.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterator, Optional, Tuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "bad-inputs.md"

#: Text files of the scratch directory (name -> bytes).
FILES: Dict[str, bytes] = {
    "h.txt": b"the cat sat on the mat\na big car\n",
    "r.txt": b"the cat sat on the mat\na large automobile\n",
    "r3.txt": b"one\ntwo\nthree\n",
    "r4.txt": b"the cat sat on the mat\nthe cat\na big car\na car\n",
    "bad.txt": b"the cat sat on the mat\na big \xff car\n",
    "bom.txt": b"\xef\xbb\xbfthe cat sat on the mat\na big car\n",
    "cr.txt": b"the cat\rsat on the mat\na big car\n",
    "mac.txt": b"the cat sat on the mat\ra big car\r",
    "crlf.txt": b"the cat sat on the mat\r\na big car\r\n",
    "nul.txt": b"the cat sat on the\x00mat\na big car\n",
    "ls.txt": "the cat sat on the mat\na big\u2028car\n".encode(),
    "blank.txt": b"\n\n",
    "empty.txt": b"",
    "pipes.txt": b"the cat ||| sat on the mat\na big car\n",
    "long.txt": (" ".join(f"w{i % 700}" for i in range(3000)) + "\n").encode(),
    "rep.txt": (" ".join(["w"] * 5000) + "\n").encode(),
    "rep-ref.txt": (" ".join(["w"] * 4999) + "\n").encode(),
    "big.txt": b"the cat sat on the mat\n" * 3000,
    "stem": b"the cat sat on the mat\na big car\n",
    "rep1224.txt": (" ".join(["w"] * 1224) + "\n").encode(),  # just under the bounded-mode limit
    # judgments with a segment in two documents (a file without a doc column folds by segment)
    "judg-2docs.tsv": b"system\tdoc\tseg_id\tmqm\nA\td1\t1\t-1\nA\td1\t2\t-3\nB\td2\t1\t0\nB\td1\t2\t-2\n",
    # WMT systems files
    "sys-nohyp.tsv": b"seg_id\tsystem\toutput\tref\n1\tA\tthe cat\tthe cat\n",
    "sys-ragged.tsv": b"seg_id\tsystem\thyp\tref\n1\tA\tthe cat\tthe cat\n2\tA\tthe dog\n",
    "sys-dup.tsv": b"seg_id\tsystem\thyp\tref\n1\tA\tthe cat\tthe cat\n1\tA\tthe dog\tthe dog\n",
    "gz.txt": __import__("gzip").compress(b"the cat sat on the mat\na big car\n", mtime=0),
    "u16-bom.txt": "\ufeffthe cat sat on the mat\na big car\n".encode("utf-16-le"),
    "u16.txt": "the caf\u00e9 sat on the mat\na big car\n".encode("utf-16-le"),
    "dupref.tsv": b"seg_id\tsystem\thyp\tref_A\tref_A\n1\tA\tthe cat\tthe dog\tthe cat\n",
    "nulcell.tsv": b"seg_id\tsystem\thyp\tref\n1\tA\tthe\x00cat\tthe cat\n",
    "sys-ok.tsv": b"seg_id\tsystem\thyp\tref\n1\tA\tthe cat\tthe cat\n1\tB\tthe dog\tthe cat\n",
    # system names and a column name that would drive a terminal or forge report lines
    "sys-esc.tsv": ("seg_id\tsystem\thyp\tref\n1\t\x1b[2J\x00\x0b\x0c\u0085\u2028\u202eA\tthe cat\tthe cat\n"
                    "1\tFinal score: 0.999999\tthe dog\tthe cat\n").encode(),
    "sys-longname.tsv": ("seg_id\tsystem\thyp\tref\n" + "".join(
        f"1\t{'n' * 999_000 if i == 0 else f'sys{i}'}\tthe dog\tthe cat\n" for i in range(2000))).encode(),
}

#: Options that make a score row independent of the big bundles: the tiny bundle, exact matching.
T = ("--bundle", "tiny.sqlite", "-m", "exact")


@dataclass(frozen=True)
class Case:
    """One bad input: where it enters, what is given, the exit code (or exception) and the message."""

    id: str
    surface: str  # score | bundle | process | jar | build | api
    args: Tuple[str, ...]  # argv after the command name; for api: (python expression,)
    code: Any  # exit code, or the exception class name (api)
    message: str  # regular expression the error line (stderr, or the exception's text) must match
    problem: str  # what is wrong, for docs/bad-inputs.md
    stdout: str = ""  # regular expression stdout must match (when not empty)
    stdin: Optional[bytes] = None
    redirect: str = ""  # process rows: full | closed | pipe | errclosed (stderr closed) | inclosed (stdin closed)
    # | yes (stdin: an endless `yes` stream) | sigterm (SIGTERM once a download's .part file exists)
    inject: str = ""  # the score command raises: "boom" an unexpected RuntimeError, "sqlite" an SQLite error,
    # "disk-full" SQLite's full disk; "forge-tables": a mapped table file forged beside the row's bundle first;
    # "forge": a forged line for the row's bundle is written into the verification cache first
    env: Tuple[Tuple[str, str], ...] = ()  # environment variables set for the row


S, B, P, JAR, BUILD, API = "score", "bundle", "process", "jar", "build", "api"
COR = "correlate"  # meteor-lite correlate, in this process

CASES: Tuple[Case, ...] = (
    # --- files: lengths, encodings, line ends ------------------------------------------------------------
    Case("length-mismatch", S, ("h.txt", "r3.txt", *T), 1, r"error: r3\.txt: 3 lines, but the hypothesis file has 2$",
         "reference file with a different number of lines"),
    Case("invalid-utf8", S, ("bad.txt", "r.txt", *T), 1, r"error: bad\.txt:2: invalid UTF-8 \(byte 0xff at column 7\)$",
         "a byte sequence that is not UTF-8"),
    Case("missing-file", S, ("nope.txt", "r.txt", *T), 1, r"error: nope\.txt: no such file$", "hypothesis file missing"),
    Case("directory-as-file", S, ("h.txt", "adir", *T), 1, r"error: adir: cannot read \(Is a directory\)$",
         "a directory given as a reference file"),
    Case("bom", S, ("bom.txt", "h.txt", *T, "-q"), 0, r"^1\.0$",
         "UTF-8 BOM at the start of a file: dropped (the jar keeps it in the first word)", stdout=r"^1\.0\n$"),
    Case("cr-inside-line", S, ("cr.txt", "r.txt", *T), 1,
         r"error: cr\.txt:1: carriage return \(CR\) inside a line, at column 8: Meteor 1\.5 would end the line there",
         "a lone CR inside a line (the jar splits the line and misaligns the rest)"),
    Case("cr-line-ends", S, ("mac.txt", "h.txt", *T, "-q"), 0, r"^1\.0$", "lines ended by lone CRs (old Mac files)",
         stdout=r"^1\.0\n$"),
    Case("crlf-line-ends", S, ("crlf.txt", "h.txt", *T, "-q"), 0, r"^1\.0$", "CRLF line ends", stdout=r"^1\.0\n$"),
    Case("nul-byte", S, ("nul.txt", "r.txt", *T, "-q"), 0,
         r"warning: nul\.txt:1: NUL \(U\+0000\) inside a line \(1 line\(s\)\); it is scored as part of the text",
         "NUL character inside a line: scored as is, with a warning"),
    Case("line-separator", S, ("ls.txt", "r.txt", *T, "-q"), 0,
         r"warning: ls\.txt:2: line separator \(U\+2028\) inside a line",
         "U+2028 inside a line: scored as is (not a line end, as in the jar), with a warning"),
    Case("empty-lines", S, ("blank.txt", "r.txt", *T, "-q"), 0, r"^0\.0\n0\.0\n$",
         "empty hypothesis lines score 0.0, as in the jar", stdout=r"^0\.0\n$"),
    Case("empty-files", S, ("empty.txt", "empty.txt", *T, "-q"), 0, r"^$", "empty files: no segments, score 0.0",
         stdout=r"^0\.0\n$"),
    Case("triple-bar-in-text", S, ("pipes.txt", "h.txt", *T, "-q"), 0, r"^0\.\d+\n1\.0\n$",
         "'|||' in a plain-text file is just a word (only -stdio gives it a meaning)"),
    Case("very-long-line", S, ("long.txt", "long.txt", *T, "-q"), 0, r"^1\.0$",
         "a 3,000-token line (700 distinct words)", stdout=r"^1\.0\n$"),
    Case("repeated-token", S, ("rep.txt", "rep-ref.txt", *T, "-q"), 0,
         r"warning: 1 segment\(s\) \(first: segment 1\) had too many candidate matches for the beam search and "
         r"were aligned in bounded mode",
         "one word 5,000 times against 4,999 times (25 million candidate matches): aligned in bounded mode in "
         "well under a second, flagged (the jar runs out of memory)", stdout=r"^0\.\d+\n$"),
    Case("many-references", S, ("h.txt", *(f"r{i:02d}.txt" for i in range(12)), *T, "-q"), 0, r"1\.0\n1\.0\n$",
         "twelve reference files"),
    # --- stdin and the command line ----------------------------------------------------------------------
    Case("stdin-hypothesis", S, ("-", "r.txt", *T, "-q"), 0, r"^1\.0\n", "'-' reads the hypothesis from stdin",
         stdin=b"the cat sat on the mat\na large automobile\n", stdout=r"^1\.0\n$"),
    Case("stdin-twice", S, ("-", "-", *T), 2, r"error: standard input \(-\) can be read only once",
         "'-' given twice"),
    Case("modules-swallow-files", S, ("-m", "exact", "stem", "h.txt", "r.txt", "--bundle", "tiny.sqlite"), 2,
         r"error: --modules/-m takes one argument, so 'stem' was taken for a file: quote the list",
         "unquoted module list (-m exact stem HYP REF): 'stem' would be read as a file"),
    Case("unknown-option", S, ("h.txt", "r.txt", "--frobnicate"), 2, r"error: unrecognized arguments: --frobnicate",
         "an option that does not exist"),
    Case("missing-reference-arg", S, ("h.txt",), 2, r"error: the following arguments are required: REFERENCE",
         "no reference file"),
    Case("unknown-command", S, (), 2, r"error: unknown command 'frob'", "an unknown command (meteor-lite frob)"),
    Case("refs-per-hyp-count", S, ("h.txt", "r3.txt", *T, "-r", "2"), 1,
         r"error: r3\.txt: 3 lines, but 2 hypotheses x 2 references need 4$", "-r 2 with a reference file of the wrong length"),
    Case("refs-per-hyp-zero", S, ("h.txt", "r4.txt", *T, "-r", "0"), 1, r"error: --refs-per-hyp must be at least 1, got 0$",
         "-r 0"),
    Case("refs-per-hyp-two-files", S, ("h.txt", "r4.txt", "r4.txt", *T, "-r", "2"), 1,
         r"error: --refs-per-hyp takes a single reference file", "-r 2 with two reference files"),
    # --- configuration -----------------------------------------------------------------------------------
    Case("unknown-language", S, ("h.txt", "r.txt", "--lang", "xx", "-m", "exact"), 1, r"error: unknown language 'xx'",
         "a language neither Meteor 1.5 nor a bundle knows"),
    Case("unknown-task", S, ("h.txt", "r.txt", *T, "-t", "frob"), 1, r"error: .*'frob'", "an unknown task"),
    Case("unknown-module", S, ("h.txt", "r.txt", "--bundle", "tiny.sqlite", "-m", "exact frob"), 1,
         r"error: unknown module 'frob' \(choose from exact, stem, synonym, paraphrase, near\)$", "an unknown module"),
    Case("duplicate-module", S, ("h.txt", "r.txt", "--bundle", "tiny.sqlite", "-m", "exact exact"), 1,
         r"error: module 'exact' given twice \(each module can be used once\)$", "a module given twice (jar: accepted)"),
    Case("params-count", S, ("h.txt", "r.txt", *T, "-p", "0.5 0.5"), 1,
         r"error: parameters need 4 values \(alpha beta gamma delta\), got 2$", "two parameters instead of four"),
    Case("params-not-numbers", S, ("h.txt", "r.txt", *T, "-p", "0.5 x 0 0"), 2,
         r"error: --params takes numbers separated by spaces, got '0\.5 x 0 0'$", "a parameter that is not a number"),
    Case("delta-negative", S, ("h.txt", "r.txt", *T, "-p", "0.85 0.2 0.6 -0.5"), 1,
         r"error: parameter delta must be in \[0, 1\], got -0\.5$", "δ < 0 (the jar prints a score of 2.69)"),
    Case("alpha-above-one", S, ("h.txt", "r.txt", *T, "-p", "1.5 0.2 0.6 0.75"), 1,
         r"error: parameter alpha must be in \[0, 1\], got 1\.5$", "α > 1"),
    Case("beta-negative", S, ("h.txt", "r.txt", *T, "-p", "0.85 -1 0.6 0.75"), 1,
         r"error: parameter beta must be a finite number >= 0, got -1\.0$", "β < 0"),
    Case("gamma-above-one", S, ("h.txt", "r.txt", *T, "-p", "0.85 0.2 2 0.75"), 1,
         r"error: parameter gamma must be in \[0, 1\], got 2\.0$", "γ > 1"),
    Case("param-nan", S, ("h.txt", "r.txt", *T, "-p", "nan 0.2 0.6 0.75"), 1,
         r"error: parameter alpha must be in \[0, 1\], got nan$", "NaN as a parameter"),
    Case("param-infinite", S, ("h.txt", "r.txt", *T, "-p", "0.85 inf 0.6 0.75"), 1,
         r"error: parameter beta must be a finite number >= 0, got inf$", "an infinite β (the jar's JSON had bare Infinity)"),
    Case("param-huge-in-domain", S, ("h.txt", "r.txt", *T, "-p", "0.85 1e308 0.6 0.75", "--format", "json"), 0, r"^$",
         "β = 1e308 is in the domain: scored, and the JSON output is valid JSON"),
    Case("weight-negative", S, ("h.txt", "r.txt", "--bundle", "tiny.sqlite", "-m", "exact synonym", "-w", "1 -1"), 1,
         r"error: weight of module 'synonym' must be a finite number >= 0, got -1\.0$", "a negative module weight"),
    Case("weights-count", S, ("h.txt", "r.txt", "--bundle", "tiny.sqlite", "-w", "1 1 1 1 1"), 1,
         r"error: 5 weights given for 4 modules", "more weights than modules"),
    Case("beam-zero", S, ("h.txt", "r.txt", *T, "-x", "0"), 1, r"error: beam size must be at least 1, got 0$", "-x 0"),
    Case("beam-not-int", S, ("h.txt", "r.txt", *T, "-x", "five"), 2, r"error: argument --beam/-x: invalid int value: 'five'",
         "-x five"),
    Case("json-valid", S, ("h.txt", "r.txt", *T, "--format", "json"), 0, r"^$", "--format json is strict JSON (no NaN)"),
    # --- bundles -----------------------------------------------------------------------------------------
    Case("bundle-missing-file", S, ("h.txt", "r.txt", "--bundle", "nope.sqlite", "-m", "exact"), 1,
         r"error: .*nope\.sqlite", "--bundle names no file and no bundle on the search path"),
    Case("bundle-not-sqlite", S, ("h.txt", "r.txt", "--bundle", "junk.sqlite", "-m", "exact"), 1,
         r"error: .*junk\.sqlite", "a text file given as a bundle"),
    Case("bundle-truncated", S, ("h.txt", "r.txt", "--bundle", "trunc.sqlite", "-m", "exact"), 1,
         r"error: .*trunc\.sqlite", "a bundle cut short"),
    Case("bundle-missing-resources", S, ("h.txt", "r.txt", "--bundle", "empty.sqlite", "--strict-modules"), 1,
         r"error: .*(function words|synonym|paraphrase)", "the default modules need resources the bundle lacks (--strict-modules)"),
    Case("bundle-missing-resources-default", S, ("h.txt", "r.txt", "--bundle", "empty.sqlite", "-q"), 0,
         r"^meteor-lite: warning: English's default modules \(exact stem synonym paraphrase\) include synonym paraphrase, "
         r"but bundle empty\.sqlite lacks synonym sets or a paraphrase table: scoring with exact stem",
         "the default modules without their resources: scored with those the bundle has, one warning line"),
    Case("bundle-other-language", S, ("h.txt", "r.txt", "--lang", "de", "--bundle", "tiny.sqlite", "-m", "exact"), 1,
         r"^meteor-lite: error: bundle tiny\.sqlite is for language 'en', not 'de': score with --lang en, use the 'de' "
         r"bundle, or allow it with --allow-other-language", "a bundle for another language (the jar has no such check)"),
    Case("bundle-other-language-allowed", S,
         ("h.txt", "r.txt", "--lang", "de", "--bundle", "tiny.sqlite", "-m", "exact", "--allow-other-language", "-q"), 0,
         r"warning: bundle tiny\.sqlite is for language 'en', not 'de'", "the same, allowed: a warning"),
    Case("api-other-language", API, ("Meteor('de', bundle=TINY, modules=['exact'])",), "ConfigError",
         r"is for language 'en', not 'de'", "a bundle for another language through the API (allow_other_language=True)"),
    Case("bundle-corrupt-pages", S, ("h.txt", "r.txt", "--bundle", "mid.sqlite"), 1,
         r"^meteor-lite: error: mid\.sqlite: not a readable bundle \(database disk image is malformed\)$",
         "a bundle whose synonym and paraphrase pages are overwritten"),
    Case("bundle-sqlite-error-while-scoring", S, ("h.txt", "r.txt", *T), 1,
         r"^meteor-lite: error: SQLite: database disk image is malformed \(the bundle may be damaged: check it with "
         r"'meteor-lite bundle verify'\)$", "an SQLite error while scoring (a page damaged after opening)",
         inject="sqlite"),
    Case("bundle-tampered-scored", S, ("h.txt", "r.txt", "--bundle", "tampered.sqlite", "-q"), 1,
         r"^meteor-lite: error: tampered\.sqlite: the bundle is damaged or was changed after it was built \(content "
         r"checksum mismatch: recorded \w+, actual \w+\); reinstall or rebuild it$",
         "one row changed after the build: refused before any score (verified once per file, remembered by identity)"),
    Case("bundle-info-missing", B, ("info", "nope.sqlite"), 1, r"error: .*nope\.sqlite", "bundle info on a missing file"),
    Case("bundle-info-junk", B, ("info", "junk.sqlite"), 1, r"error: .*junk\.sqlite", "bundle info on a non-bundle"),
    Case("bundle-verify-tampered", B, ("verify", "tampered.sqlite"), 1, r"checksum",
         "bundle verify on a bundle with one row changed"),
    Case("bundle-verify-corrupt", B, ("verify", "corrupt.sqlite"), 1, r"error: .*",
         "bundle verify on a bundle whose middle pages are overwritten"),
    # --- untrusted bundles: metadata is data, never markup -----------------------------------------------
    Case("bundle-name-forges-report", S, ("h.txt", "r.txt", "--bundle", "forged.sqlite", "-m", "exact"), 0, r"^$",
         "a bundle whose name holds a newline and a forged 'Final score:' line, its version an ESC sequence: "
         "escaped on the Signature line, 'Final score:' written 'Final score\\x3a' (the Signature line comes first: "
         "the report's own final score was not the first a parser found)",
         stdout=r"\nSignature: +meteor-lite\|[^\n]*\|res:tiny\\nFinal score\\x3a +0\.999999-0\.0\.1\\x1b\[2J@\w{8}\|"
                r"(?![\s\S]*Final score:[\s\S]*Final score:)"),
    Case("bundle-info-escapes", B, ("info", "forged.sqlite"), 0, r"^$",
         "bundle info on the same bundle: every value on its own line, control characters escaped",
         stdout=r"\n  name: +tiny\\nFinal score: +0\.999999\n  version: +0\.0\.1\\x1b\[2J\n"),
    Case("pack-licence-newline", BUILD, ("pack", "licence.sqlite", "--out", "wheels"), 1,
         r"^meteor-build: error: licence\.sqlite: the wheel's License would hold a control character or line break "
         r"\(License: CC0\\nRequires-Dist: evil-dependency-xyz\)",
         "a source licence with a newline ('CC0\\nRequires-Dist: ...'): no wheel, so no header is injected into "
         "its METADATA"),
    # --- untrusted bundles: what is scored is what was verified -------------------------------------------
    Case("bundle-no-checksum", S, ("h.txt", "r.txt", "--bundle", "nochecksum.sqlite", "-m", "exact"), 1,
         r"^meteor-lite: error: nochecksum\.sqlite: the bundle records no content checksum \(meta 'content_checksum' "
         r"is missing or empty\), so its content cannot be verified; .*METEOR_LITE_VERIFY_BUNDLES=0$",
         "a bundle whose content_checksum was deleted (and a function word with it): refused, never scored unverified "
         "under '@nochecksum'"),
    Case("bundle-empty-checksum", S, ("h.txt", "r.txt", "--bundle", "emptychecksum.sqlite", "-m", "exact"), 1,
         r"^meteor-lite: error: emptychecksum\.sqlite: the bundle records no content checksum",
         "a bundle whose content_checksum is the empty string"),
    Case("bundle-no-language", S, ("h.txt", "r.txt", "--lang", "de", "--bundle", "nolang.sqlite", "-m", "exact"), 1,
         r"^meteor-lite: error: (bundle nolang\.sqlite records no language \(meta 'language' is missing or empty\), "
         r"so it cannot be checked against 'de'|nolang\.sqlite: the bundle is damaged .*meta key 'language' is missing)",
         "a bundle without a language, used for --lang de: refused by its first-use verification, and by the language "
         "check when it was verified before or verification is off"),
    Case("bundle-wal-mode", S, ("h.txt", "r.txt", "--bundle", "wal.sqlite", "-m", "exact"), 1,
         r"^meteor-lite: error: wal\.sqlite: the bundle is in SQLite's WAL journal mode, so its content could change "
         r"through a '-wal' file beside it", "a bundle in WAL journal mode (a planted -wal file would change the "
         "scores without changing the bundle file): refused"),
    Case("bundle-install-wal-mode", B, ("install", "wal.sqlite", "--name", "walcopy"), 1,
         r"^meteor-lite: error: wal\.sqlite: not a usable bundle \(the bundle is in SQLite's WAL journal mode",
         "bundle install of a WAL-mode bundle: refused, nothing installed"),
    # --- output and the process --------------------------------------------------------------------------
    Case("output-full-disk", P, ("score", "h.txt", "r.txt", *T), 1,
         r"^meteor-lite: error: cannot write the output: No space left on device$", "stdout is /dev/full",
         redirect="full"),
    Case("output-closed", P, ("score", "h.txt", "r.txt", *T), 1,
         r"^meteor-lite: error: standard output is closed: nowhere to write the result$", "stdout closed (>&-)",
         redirect="closed"),
    Case("stderr-closed-error", P, ("score", "nope.txt", "r.txt", *T), 1, r"^$",
         "stderr closed (2>&-) and an error: exit 1, nothing on stdout (the error line is not mixed into the output)",
         stdout=r"^$", redirect="errclosed"),
    Case("stderr-closed-warning", P, ("score", "nul.txt", "nul.txt", *T, "-q"), 0, r"^$",
         "stderr closed (2>&-) with a warning and -q: stdout holds only the final score (no warning, no segment scores)",
         stdout=r"^1\.0\n$", redirect="errclosed"),
    Case("output-broken-pipe", P, ("score", "big.txt", "big.txt", *T, "--format", "json"), 141, r"^$",
         "the reader of stdout has gone (like | head): quiet exit 141", redirect="pipe"),
    Case("unexpected-error", S, ("h.txt", "r.txt", *T), 1,
         r"^meteor-lite: error: unexpected RuntimeError: boom \(a bug in meteor-lite; 'meteor-lite --debug \.\.\.' or "
         r"METEOR_LITE_DEBUG=1 shows the traceback\)$", "an unexpected exception: one line, no traceback", inject="boom"),
    Case("unexpected-error-debug", S, ("--debug", "h.txt", "r.txt", *T), "RuntimeError", r"^boom$",
         "the same with --debug: the traceback (the exception propagates)", inject="boom"),
    # --- meteor-jar (the jar's own command line) ---------------------------------------------------------
    Case("jar-stdio-triple-bar", JAR, ("-", "-", "-stdio", "-l", "en", "-m", "exact"), 0, r"^$",
         "'|||' in -stdio text separates fields, as in the jar: 'SCORE ||| a b ||| c ||| d' is hypothesis 'd' "
         "against references 'a b' and 'c'", stdin=b"SCORE ||| a b ||| c ||| d\nSCORE ||| d ||| d\n",
         stdout=r"^1\.0 2\.0 (\S+ ){20}\S+\n1\.0 1\.0 "),
    Case("jar-stdio-unknown-line", JAR, ("-", "-", "-stdio", "-l", "en", "-m", "exact"), 0, r"^$",
         "a -stdio line that is not SCORE/EVAL: the jar's own answer", stdin=b"HELLO\n",
         stdout=r"specify SCORE or EVAL"),
    # --- meteor-build ------------------------------------------------------------------------------------
    Case("build-out-is-directory", BUILD, ("function-words", "--lang", "en", "--corpus", "h.txt", "--out", "adir"), 1,
         r"^meteor-build: error: --out adir is a directory: give the bundle file to write \(e\.g\. adir/xx\.sqlite\)$",
         "--out names a directory"),
    Case("build-corpus-missing", BUILD, ("function-words", "--lang", "en", "--corpus", "nope.txt", "--out", "fw.sqlite"),
         1, r"^meteor-build: error: .*nope\.txt", "a corpus file that does not exist"),
    Case("build-corpus-invalid-utf8", BUILD, ("function-words", "--lang", "en", "--corpus", "bad.txt", "--out",
                                              "fw.sqlite"), 1, r"^meteor-build: error: .*(UTF-8|utf-8)",
         "a corpus that is not UTF-8"),
    Case("build-unknown-command", BUILD, ("frob",), 2, r"No such command 'frob'",
         "an unknown meteor-build command (typer's usage box: several lines)"),
    # --- the Python API ----------------------------------------------------------------------------------
    Case("api-params-string", API, ("Meteor('en', bundle=TINY, params='0.85 0.2 0.6 0.75')",), "TypeError",
         r"params", "params given as a string"),
    Case("api-modules-string", API, ("Meteor('en', bundle=TINY, modules='exact')",), "TypeError", r"modules",
         "modules given as a string"),
    Case("api-beam-string", API, ("Meteor('en', bundle=TINY, modules=['exact'], beam='5')",), "TypeError", r"^beam takes an int",
         "beam given as a string"),
    Case("api-none-hypothesis", API, ("Meteor('en', bundle=TINY, modules=['exact']).score_segment(None, ['a'])",),
         "TypeError", r"hyp", "None as the hypothesis"),
    Case("api-delta-negative", API, ("Meteor('en', bundle=TINY, params=[0.85, 0.2, 0.6, -0.5])",), "ConfigError",
         r"^parameter delta must be in \[0, 1\], got -0\.5$", "δ < 0 through the API"),
    Case("api-duplicate-module", API, ("Meteor('en', bundle=TINY, modules=['exact', 'EXACT'])",), "ConfigError",
         r"^module 'exact' given twice", "a module given twice through the API"),
    Case("api-ragged-references", API,
         ("Meteor('en', bundle=TINY, modules=['exact']).score_corpus(['a b', 'c'], [['a b'], ['c', 'd']])",),
         "InputError", r"layout='segments'", "ragged references, one list per hypothesis: never transposed silently"),
    Case("api-square-references", API,
         ("Meteor('en', bundle=TINY, modules=['exact']).score_corpus(['a', 'b'], [['a', 'x'], ['b', 'y']])",),
         "InputError", r"ambiguous", "N x N references: streams or segments? the caller must say (layout=...)"),
    Case("api-missing-resources", API, ("Meteor('en', bundle=EMPTY, strict_modules=True)",), "MissingResourcesError",
         r"", "default modules without their resources, with strict_modules: an error, never a silent fallback"),
    Case("api-stream-lengths", API,
         ("Meteor('en', bundle=TINY, modules=['exact']).score_corpus(['a', 'b'], [['a', 'b'], ['a']], layout='streams')",),
         "InputError", r"", "reference streams of different lengths"),
    # --- metadata, messages, leftovers ---
    Case("bundle-meta-null", S, ("h.txt", "r.txt", "--bundle", "meta-null.sqlite", "-m", "exact"), 1,
         r"^meteor-lite: error: meta-null\.sqlite: bad bundle metadata: meta 'schema_version' is NULL, not text$",
         "a bundle whose meta schema_version is NULL (its meta table rebuilt without NOT NULL)"),
    Case("bundle-meta-stemmer-not-json", S, ("h.txt", "r.txt", "--bundle", "meta-stemmer-text.sqlite", "-m", "exact"), 1,
         r"^meteor-lite: error: meta-stemmer-text\.sqlite: bad bundle metadata: meta 'stemmer' is not readable JSON",
         "meta stemmer that is not JSON (content checksum recomputed: the bundle verifies)"),
    Case("bundle-meta-stemmer-list", B, ("info", "meta-stemmer-list.sqlite"), 1,
         r"^meteor-lite: error: meta-stemmer-list\.sqlite: bad bundle metadata: meta 'stemmer' is not a JSON object "
         r"\(got a JSON list\)$", "bundle info on a bundle whose meta stemmer is a JSON list"),
    Case("bundle-meta-stemmer-field", S, ("h.txt", "r.txt", "--bundle", "meta-stemmer-field.sqlite", "-m", "exact stem"),
         1, r"^meteor-lite: error: meta-stemmer-field\.sqlite: bad bundle metadata: meta 'stemmer' has a 'language' "
         r"that is not a string", "meta stemmer whose language is a list"),
    Case("bundle-meta-params-not-json", S, ("h.txt", "r.txt", "--bundle", "meta-params-text.sqlite", "-m", "exact"), 1,
         r"^meteor-lite: error: meta-params-text\.sqlite: bad bundle metadata: meta 'build_params' is not readable JSON",
         "meta build_params that is not JSON (was scored, and a traceback in bundle info)"),
    Case("bundle-meta-params-list", B, ("verify", "meta-params-list.sqlite"), 1,
         r"^meteor-lite: error: meta-params-list\.sqlite: bad bundle metadata: meta 'build_params' is not a JSON object",
         "bundle verify on a bundle whose meta build_params is a JSON list"),
    Case("bundle-meta-paraphrase-max-length", S, ("h.txt", "r.txt", "--bundle", "meta-maxlen.sqlite"), 1,
         r"^meteor-lite: error: meta-maxlen\.sqlite: bad bundle metadata: meta 'paraphrase_max_length' is not a "
         r"non-negative integer \(got 'three'\)$", "meta paraphrase_max_length that is not a number"),
    Case("bundle-meta-tasks-deep", S, ("h.txt", "r.txt", "--bundle", "meta-tasks-deep.sqlite", "-m", "exact"), 1,
         r"^meteor-lite: error: meta-tasks-deep\.sqlite: bad bundle metadata: meta 'tasks' is not readable JSON "
         r"\(nested too deeply\)$", "meta tasks nested 100,000 deep (a RecursionError in the JSON parser)"),
    Case("bundle-blob-word-verify", B, ("verify", "blob-word.sqlite"), 1,
         r"blob-word\.sqlite: content unreadable: table 'function_words' holds a value that is not text or a number",
         "bundle verify on a bundle with a BLOB among its function words"),
    Case("bundle-blob-word-score", S, ("h.txt", "r.txt", "--bundle", "blob-word.sqlite", "-m", "exact"), 1,
         r"^meteor-lite: error: blob-word\.sqlite: the bundle is damaged or was changed after it was built \(content "
         r"unreadable: table 'function_words' holds a value that is not text or a number",
         "scoring with it: refused by its first-use verification"),
    Case("bundle-blob-word-install", B, ("install", "blob-word.sqlite", "--name", "blobcopy"), 1,
         r"^meteor-lite: error: blob-word\.sqlite: bundle fails verification: content unreadable: table "
         r"'function_words' holds a value that is not text or a number", "installing it: refused, nothing installed"),
    Case("jobs-negative", S, ("h.txt", "r.txt", *T, "--jobs", "-3"), 2,
         r"^meteor-lite: error: argument --jobs/-j: must be an integer >= 0, got -3", "--jobs -3 (a usage error)"),
    Case("correlate-inf-judgment", COR, ("judg-inf.tsv", "metric-inf.tsv"), 1,
         r"^meteor-lite: error: judg-inf\.tsv:3: not a finite number: 'inf'", "inf as a human judgment"),
    Case("correlate-inf-metric", COR, ("judg.tsv", "metric-inf.tsv"), 1,
         r"^meteor-lite: error: metric-inf\.tsv:5: not a finite number: '-Infinity'", "-Infinity as a metric score"),
    Case("api-lone-surrogate-hypothesis", API,
         ("Meteor('en', bundle=TINY, modules=['exact']).score_corpus(['a b', 'x \\udc80'], [['a b', 'x']])",),
         "InputError", r"^hyps\[1\] holds a lone surrogate \(U\+DC80\) at position 2: not valid Unicode text",
         "a lone surrogate in a hypothesis (text decoded with errors='surrogateescape')"),
    Case("api-lone-surrogate-reference", API,
         ("Meteor('en', bundle=TINY, modules=['exact']).score_segment('a b', ['a \\ud800 b'])",),
         "InputError", r"^refs\[0\] holds a lone surrogate \(U\+D800\) at position 2", "a lone surrogate in a reference"),
    # --- jar drop-in ---
    # Each row's outcome was checked against the jar (java -jar meteor-1.5.jar, same files and options): the same
    # scores where the jar scores; one line and exit 1 where it dies; where it scores something other than the
    # file says, or never ends, an error naming the line (README, "Deliberate differences").
    Case("jar-lang-any-case", JAR, ("h.txt", "r.txt", "-l", "En", "-m", "exact", "-q"), 0, r"^1\.0\n0\.05714285714285714\n$",
         "-l En (or EN): the jar ignores the case of the language", stdout=r"^0\.40603341449874986\n$"),
    Case("jar-lang-other", JAR, ("h.txt", "r.txt", "-l", "xx", "-q"), 0, r"^1\.0\n0\.1\n$",
         "-l xx (or other): the jar's 'other' language (exact matching, language-independent parameters, English "
         "function words)", stdout=r"^0\.7420656016698219\n$"),
    Case("jar-lang-other-modules", JAR, ("h.txt", "r.txt", "-l", "xx", "-m", "exact paraphrase"), 1,
         r"^meteor-jar: error: file not found \(paraphrase-other\.gz\): -l other has no paraphrase table \(give -a\)$",
         "-l xx -m 'exact paraphrase' without -a: the jar prints the header (further modules weigh 0 for 'other') "
         "and dies: no paraphrase table", stdout=r"Weights:        1\.0 0\.0\n"),
    Case("jar-lang-unknown", JAR, ("h.txt", "r.txt", "-l", "nb", "-q"), 1, r"^meteor-jar: error: Unknown language \(nb\)",
         "-l nb: a code the jar does not know (it dies before the header)"),
    Case("jar-params-five", JAR, ("h.txt", "r.txt", "-l", "en", "-m", "exact", "-p", "0.5 0.5 0.5 0.5 0.5"), 0, r"^$",
         "-p with 5 values: the jar shows all five and scores with the first four",
         stdout=r"Parameters:     0\.5 0\.5 0\.5 0\.5 0\.5\n(.*\n)*Final score:            0\.630791593829745\n"),
    Case("jar-refs-zero", JAR, ("h.txt", "r4.txt", "-l", "en", "-m", "exact", "-r", "0", "-q"), 0,
         r"warning: -r 0: r4\.txt has 4 lines for 2 segments; the last 2 are ignored, as the jar does",
         "-r 0 (or less): the jar pairs line i with line i, without its length check (extra lines: a warning)",
         stdout=r"^0\.729483282674772\n$"),
    Case("jar-refs-zero-short", JAR, ("h.txt", "empty.txt", "-l", "en", "-m", "exact", "-r", "0", "-q"), 1,
         r"^meteor-jar: error: -r 0: empty\.txt has 0 lines for 2 segments",
         "-r 0 with fewer reference lines than segments (the jar dies: IndexOutOfBoundsException)"),
    Case("jar-beam-zero", JAR, ("h.txt", "r.txt", "-l", "en", "-m", "exact", "-x", "0"), 1,
         r"^meteor-jar: error: -x: the beam size must be at least 1, got 0",
         "-x 0 (deliberate: the jar warns 'unexpected conditions' and prints meaningless scores)"),
    Case("jar-beam-overflow", JAR, ("h.txt", "r.txt", "-l", "en", "-m", "exact", "-x", "2147483648"), 1,
         r"^meteor-jar: error: -x: out of the range of a 32-bit integer: '2147483648'$",
         "-x 2147483648 (the jar dies: NumberFormatException)"),
    Case("jar-beam-largest", JAR, ("h.txt", "r.txt", "-l", "en", "-m", "exact", "-x", "2147483647", "-q"), 0,
         r"^1\.0\n0\.05714285714285714\n$", "-x 2147483647: scored as the jar scores it (no buffer of that size)",
         stdout=r"^0\.40603341449874986\n$"),
    Case("jar-eval-hex-no-dot", JAR, ("-", "-", "-stdio", "-l", "en", "-m", "exact"), 1,
         r"^meteor-jar: fatal: not a number in Meteor stats: '0x1p3'$",
         "EVAL with 0x1p3 (the jar dies: its Scanner takes hexadecimal only with a '.'; the full matrix of forms: "
         "tests/test_jar_numbers.py)", stdin=b"EVAL ||| 0x1p3 " + b"1.0 " * 22 + b"\n"),
    Case("jar-eval-hex-no-exponent", JAR, ("-", "-", "-stdio", "-l", "en", "-m", "exact"), 1,
         r"^meteor-jar: fatal: not a number in Meteor stats: '0x1\.8'$",
         "EVAL with 0x1.8 (the jar dies: Double.parseDouble needs the binary exponent)",
         stdin=b"EVAL ||| 0x1.8 " + b"1.0 " * 22 + b"\n"),
    Case("jar-eval-arabic-indic-digit", JAR, ("-", "-", "-stdio", "-l", "en", "-norm"), 0, r"^$",
         "EVAL with an Arabic-Indic digit: read as 6, as the jar reads it",
         stdin=("EVAL ||| \u0666 6.0 3.0 3.0 3.0 3.0 1.0 1.0 " + "0.0 " * 12 + "2.0 4.0 4.0\n").encode(),
         stdout=r"^0\.3980580516852713\n0\.3980580516852713\n$"),
    Case("jar-sgml-entities", JAR, ("sg-amp.sgm", "sg-ref.sgm", "-l", "en", "-m", "exact", "-sgml"), 0, r"^$",
         "-sgml with &amp; &lt; &gt; &quot; &apos; (any case): decoded once, as by the jar; numeric and unknown "
         "entities are left as written, as by the jar", stdout=r"Final score:            0\.2859729978979966\n"),
    Case("jar-sgml-multiline", JAR, ("sg-multiline.sgm", "sg-ref.sgm", "-l", "en", "-m", "exact", "-sgml"), 0,
         r"warning: sg-multiline\.sgm:3: segment 1 spans 2 lines: joined without a space, as Meteor 1\.5 joins them",
         "-sgml, a segment over two lines: joined without a space as by the jar (same score), with a warning",
         stdout=r"Final score:            0\.32424281488718903\n"),
    Case("jar-sgml-missing-segment", JAR, ("sg-missing.sgm", "sg-ref.sgm", "-l", "en", "-m", "exact", "-sgml"), 0,
         r"warning: no data for system \[sys1\] on segment \[s1\]\[d1\]\[3\] - scoring empty segment",
         "-sgml, a reference segment the system lacks: scored as empty, as by the jar, with its warning",
         stdout=r"Final score:            0\.3597832586725326\n"),
    Case("jar-sgml-unclosed-seg", JAR, ("sg-unclosed.sgm", "sg-ref.sgm", "-l", "en", "-m", "exact", "-sgml"), 1,
         r"^meteor-jar: error: sg-unclosed\.sgm:3: <seg> not closed before the <seg> of line 4",
         "-sgml, a <seg> left open (deliberate: the jar reads the next segment into it and scores that one as empty, "
         "exit 0)"),
    Case("jar-sgml-unclosed-at-end", JAR, ("sg-unclosed-end.sgm", "sg-ref.sgm", "-l", "en", "-m", "exact", "-sgml"), 1,
         r"^meteor-jar: error: sg-unclosed-end\.sgm:5: <seg> not closed: the file ends inside it",
         "-sgml, a <seg> open at the end of the file (the jar never finishes, its memory growing)"),
    Case("jar-sgml-two-segs-one-line", JAR, ("sg-two.sgm", "sg-ref.sgm", "-l", "en", "-m", "exact", "-sgml"), 1,
         r"^meteor-jar: error: sg-two\.sgm:3: two <seg> on one line",
         "-sgml, two <seg> on one line (deliberate: the jar reads one and scores the other as empty, exit 0)"),
    Case("jar-sgml-duplicate-id", JAR, ("sg-dup.sgm", "sg-ref.sgm", "-l", "en", "-m", "exact", "-sgml"), 1,
         r"^meteor-jar: error: sg-dup\.sgm:4: segment id 1 twice in document d1 of system sys1",
         "-sgml, a segment id twice in a document (deliberate: the jar keeps one and scores another as empty, exit 0)"),
    Case("jar-sgml-no-reference", JAR, ("sg-ok.sgm", "sg-ref2.sgm", "-l", "en", "-m", "exact", "-sgml"), 1,
         r"^meteor-jar: error: sg-ok\.sgm:5: segment 3 of document d1 has no reference",
         "-sgml, a test segment without reference (deliberate: the jar leaves it out of every score, exit 0)"),
    Case("jar-sgml-no-docid", JAR, ("sg-nodocid.sgm", "sg-ref.sgm", "-l", "en", "-m", "exact", "-sgml"), 1,
         r'^meteor-jar: error: sg-nodocid\.sgm:2: <doc> without docid="\.\.\."',
         "-sgml, a <doc> without docid (the jar: 'Could not score SGML files', exit 1)"),
    Case("jar-sgml-empty", JAR, ("empty.txt", "sg-ref.sgm", "-l", "en", "-m", "exact", "-sgml"), 1,
         r"^meteor-jar: error: empty\.txt: no <seg> in the file",
         "-sgml, an empty (or plain-text) test file (the jar dies: NullPointerException)"),
    # --- streaming and bundle changes ---
    Case("stdin-closed", P, ("score", "-", "r.txt", *T), 1,
         r"^meteor-lite: error: standard input is closed: nothing to read for '-' \(give a file, or redirect stdin\)$",
         "'-' with standard input closed (<&-): one line, no traceback", stdout=r"^$", redirect="inclosed"),
    Case("stdin-length-mismatch", S, ("-", "r3.txt", *T), 1, r"error: r3\.txt: 3 lines, but the hypothesis file has 2$",
         "a reference file longer than the hypotheses read from stdin (streamed: found when stdin ends; nothing was "
         "written yet here, else the error adds that the output written is incomplete and no final score is given)",
         stdin=b"the cat sat on the mat\na big car\n", stdout=r"^$"),
    Case("stdin-invalid-utf8", S, ("-", "r.txt", *T), 1, r"error: <stdin>:2: invalid UTF-8 \(byte 0xff at column 7\)$",
         "invalid UTF-8 on stdin (streamed: found on its line)", stdin=b"the cat sat on the mat\na big \xff car\n",
         stdout=r"^$"),
    Case("repeated-token-near-limit", S, ("rep1224.txt", "rep1224.txt", *T, "-q"), 0, r"^1\.0\n$",
         "one word 1,224 times against itself: 1.5 million candidates, just under the bounded-mode limit: the beam "
         "search, 1.0 as the jar (which takes 12 minutes and 2.2 GB), in 0.6 s user and 337 MB with the compiled "
         "kernels (before: 1.0 s, 817 MB), 4.4 s and 463 MB in pure Python (before: 706 MB)",
         stdout=r"^1\.0\n$"),
    # documents of MQM judgments
    Case("judgments-segment-in-two-documents", COR, ("judg-2docs.tsv", "metric-inf.tsv"), 1,
         r"^meteor-lite: error: judg-2docs\.tsv:4: segment '1' is in document 'd2' here and in 'd1' on an earlier line",
         "a judgments file that puts one segment in two documents (the doc column)"),
    # WMT systems files (score --tsv)
    Case("tsv-missing-column", S, ("--tsv", "sys-nohyp.tsv", *T), 1,
         r"error: sys-nohyp\.tsv:1: no hypothesis column 'hyp' in the header \('seg_id', 'system', 'output', 'ref'\)$",
         "--tsv: a systems file without the hypothesis column (--hyp-column names another)"),
    Case("tsv-ragged-line", S, ("--tsv", "sys-ragged.tsv", *T), 1,
         r"error: sys-ragged\.tsv:3: 3 tab-separated field\(s\), but the header has 4$",
         "--tsv: a line with fewer fields than the header"),
    Case("tsv-duplicate-segment", S, ("--tsv", "sys-dup.tsv", *T), 1,
         r"error: sys-dup\.tsv:3: system 'A' has segment '1' twice \(first on line 2\)$",
         "--tsv: one system with the same segment twice"),
    Case("tsv-and-files", S, ("--tsv", "sys-dup.tsv", "h.txt", "r.txt", *T), 2,
         r"error: --tsv FILE takes the hypotheses and references from FILE: give no HYPOTHESIS or REFERENCE",
         "--tsv with hypothesis and reference files"),
    # --- pack listings and downloads (a hostile server on 127.0.0.1: tests/hostile_server.py) ---------------------
    # Figures: peak RSS and wall time of the command as a process (`python tests/test_bad_inputs.py --measure ID`,
    # /usr/bin/time's maximum resident set size, on a loaded 2-core machine; interpreter start-up included).
    Case("index-redirect-to-ftp", B, ("install", "en", "--index", "{url}/redirect-ftp"), 1,
         r"^meteor-lite: error: http://127\.0\.0\.1:\d+/redirect-ftp/packs\.json: the server redirects to "
         r"'ftp://127\.0\.0\.1:1/packs\.json': only http and https redirects are followed$",
         "a pack listing whose server answers 302 to ftp:// (was followed; ended by a 60 s timeout) [25 MB peak, 0.8 s]"),
    Case("index-huge-announced", B, ("install", "en", "--index", "{url}/huge"), 1,
         r"packs\.json: announces 400000000 bytes, more than the size cap of 8000000 bytes; no pack listing is this "
         r"large$", "a listing announcing 400 MB (was read whole: 825 MB peak): refused before its body [25 MB peak, 0.8 s]"),
    Case("index-endless", B, ("install", "en", "--index", "{url}/endless"), 1,
         r"packs\.json: larger than the size cap of 8000000 bytes \(received\); no pack listing is this large$",
         "an endless listing without a length (grew past 1.5 GB in 2.7 s): stopped at the listing's 8 MB cap "
         "[34 MB peak, 0.9 s]"),
    Case("index-trickle", B, ("install", "en", "--index", "{url}/trickle", "--timeout", "3"), 1,
         r"packs\.json: the pack index took longer than its deadline of 3 s \(\d+ bytes received\); give more time "
         r"with --timeout$", "a listing sent 1 byte every 0.5 s with --timeout 3 (1 byte every 2 s ran past "
         "--timeout 30): stopped at the deadline (a listing alone: at most 120 s) [25 MB peak, 3.9 s]"),
    Case("index-forged-file-name", B, ("install", "en", "--index", "{url}/forged"), 1,
         r"packs\.json: entry 1: field 'file' is not a relative path inside the index \(got 'x\.whl\\nFinal score: "
         r"+0\.999\\x1b\[31m'\)$", "an entry whose file name holds '\\nFinal score: 0.999' and ESC[31m (was printed "
         "raw in the 'downloading' line: a forged report line, a colour change): refused before anything is "
         "printed, shown escaped [25 MB peak, 1.0 s]"),
    Case("index-size-not-a-number", B, ("install", "en", "--index", "{url}/size-abc"), 1,
         r"packs\.json: entry 1: field 'size' is not a whole number of bytes \(got 'abc'\)$",
         "an entry with size \"abc\" (was: unexpected ValueError) [25 MB peak, 1.0 s]"),
    Case("index-json-nested-deep", B, ("install", "en", "--index", "{url}/deep"), 1,
         r"packs\.json: not a valid pack listing \(JSON nested too deeply\)$",
         "a listing nested 200,000 deep (was: unexpected RecursionError) [26 MB peak, 0.9 s]"),
    Case("index-version-5000-digits", B, ("install", "en", "--index", "{url}/version-5000"), 1,
         r"packs\.json: entry 1: field 'version' is not a short name \(letters, digits, \. _ \+ -; at most 100\) "
         r"\(got '1{79}\.\.\.\)$", "a 5,000-digit version (was: unexpected ValueError) [25 MB peak, 0.7 s]"),
    Case("index-language-mismatch", B, ("install", "de", "--index", "{url}/files/langidx"), 1,
         r"\.whl: the index lists this pack as language 'de', but its bundle is for 'en': not installed$",
         "a pack listed as 'de' whose bundle is English (was installed as de.sqlite, then refused when scoring): "
         "nothing installed [26 MB peak, 0.9 s]"),
    Case("download-header-trickle", B, ("install", "{url}/header-trickle/x.sqlite", "--timeout", "3"), 1,
         r"x\.sqlite: the download took longer than its deadline of 3 s \(0 bytes received\); give more time with "
         r"--timeout$", "a server trickling its status line and headers 1 byte every 0.5 s (ran past an explicit "
         "--timeout 60): the deadline covers connection, headers and body [25 MB peak, 3.5 s]"),
    Case("download-stall", API, ("install_bundle(URL + '/stall/x.sqlite', dest_dir='dl', stall=2)",), "InstallError",
         r"x\.sqlite: no data for 2 s \(the stall limit\) after 1 bytes$",
         "a server silent after its headers and one byte (the default deadline was 3,600 s with no stall limit): "
         "stopped by the stall limit, default 15 s as pip's (stall=2 here) [25 MB peak, 2.7 s]"),
    Case("download-body-trickle", API,
         ("install_bundle(URL + '/trickle/x.sqlite', dest_dir='dl', min_rate=10, rate_window=2)",), "InstallError",
         r"x\.sqlite: slower than the minimum rate of 10 bytes/s over 2 s \(\d+ bytes in 2 s; \d+ bytes received\)$",
         "a body trickled a byte at a time, never silent long enough for the stall limit (with the default --timeout "
         "3600, a byte every 2 s was still read after 240 s): stopped by the minimum rate, default 1,000 bytes/s over "
         "each 30 s, as curl's --speed-limit (10 bytes/s over 2 s here)"),
    Case("download-header-deadline", API,
         ("install_bundle(URL + '/header-trickle/x.sqlite', dest_dir='dl', header_deadline=2)",), "InstallError",
         r"x\.sqlite: no complete response headers within 2 s \(the header deadline\)$",
         "a status line and headers trickled a byte every 0.5 s under the default --timeout 3600 (read for as long): "
         "stopped by the header deadline, default 30 s (2 s here)"),
    Case("download-stall-cli", B, ("install", "{url}/stall/x.sqlite", "--stall", "1"), 1,
         r"x\.sqlite: no data for 1 s \(the stall limit\) after 1 bytes$",
         "the same silent server from the command line (the stall limit could not be set there): --stall 1"),
    Case("download-stall-not-positive", B, ("install", "{url}/stall/x.sqlite", "--stall", "nan"), 2,
         r"^meteor-lite: error: argument --stall: must be a finite number > 0, got 'nan'",
         "a stall limit of nan (or 0, or below, or inf): a usage error, before connecting (as --timeout and "
         "--max-size)"),
    Case("download-sigterm", P, ("bundle", "install", "{url}/paced-endless/x.sqlite"), 130,
         r"^meteor-lite: error: interrupted: nothing installed$",
         "SIGTERM during the download of an endless body (paced at 6.5 MB/s so that the signal lands mid-body; left a 1.27 GB .part after 3 s until the next install): "
         "the .part removed at once, exit 130, the user bundle directory empty [27 MB peak, 1.1 s]", redirect="sigterm"),
    # --- bundles ---
    Case("bundle-synset-ids-text-verify", B, ("verify", "syn-text.sqlite"), 1,
         r"syn-text\.sqlite: table 'synsets' holds a synset that is not an integer \(a text value: 'x1'\)",
         "bundle verify on a bundle whose synset ids are text, its checksum recomputed (passed; scoring with "
         "synonyms then ended in 'unexpected TypeError' from the compiled kernel) [22 MB peak, 0.5 s]"),
    Case("bundle-synset-ids-text-score", S, ("h.txt", "r.txt", "--bundle", "syn-text.sqlite", "-m", "exact synonym"), 1,
         r"^meteor-lite: error: syn-text\.sqlite: the bundle is damaged or was changed after it was built \(table "
         r"'synsets' holds a synset that is not an integer", "scoring with its synonyms: refused by the first-use "
         "verification [23 MB peak, 0.5 s]"),
    Case("bundle-synset-ids-text-unverified", S,
         ("h.txt", "r.txt", "--bundle", "syn-text.sqlite", "-m", "exact synonym"), 1,
         r"^meteor-lite: error: syn-text\.sqlite: the synset id of '\w+' is not an integer \('x\d'\): the bundle is "
         r"damaged; check it with 'meteor-lite bundle verify'$",
         "the same with METEOR_LITE_VERIFY_BUNDLES=0: refused by the synonym reader", env=(("METEOR_LITE_VERIFY_BUNDLES", "0"),)),
    Case("bundle-forged-cache-entry", S, ("h.txt", "r.txt", "--bundle", "fw-deleted.sqlite", "-m", "exact"), 1,
         r"^meteor-lite: error: fw-deleted\.sqlite: the bundle is damaged or was changed after it was built \(content "
         r"checksum mismatch", "a bundle's copy with its function words deleted and a forged line for it in the "
         "verification cache (same size, mtime, inode, ctime, the recorded checksum; was scored under the original's "
         "signature): the line's MAC is not under this user's key (kept outside the cache directory), so the file is "
         "verified, and refused [23 MB peak, 0.8 s]", inject="forge"),
    # --- builders ---
    Case("mythes-12mb-meaning-line", BUILD, ("synonyms", "--lang", "en", "--thesaurus", "big-meaning.dat", "--out",
                                             "syn.sqlite", "--no-progress"), 0, r"^$",
         "a MyThes meaning line of 12 MB, 150,000 synonyms (over 120 s; time grew with its square): skipped by the "
         "member budget (10,000) before any member is tokenised; the other entries built [80 MB peak, 1.8 s]"),
    Case("mythes-random-bytes", BUILD, ("synonyms", "--lang", "en", "--thesaurus", "rnd-thes.dat", "--out",
                                        "syn.sqlite", "--no-progress"), 1,
         r"^meteor-build: error: rnd-thes\.dat, line 1: unknown encoding .* on the first line \(a MyThes file starts "
         r"with its encoding\)$", "a thesaurus of random bytes (was: unexpected ValueError: embedded null character) "
         "[39 MB peak, 1.8 s]"),
    Case("hunspell-400x400-affixes", BUILD, ("recipe", "x400.toml", "--out", "x400.sqlite", "--no-progress"), 1,
         r"^meteor-build: error: x400\.dic, line 2: root 'root0' gives more than 100,000 forms: the affix rules "
         r"explode; too many to expand$", "a 12 KB .aff of 400 prefixes x 400 suffixes, cross products, on 40 roots "
         "(refused at 5 million forms, after 1.6 GB): stopped by the per-root budget as the forms are made "
         "[72 MB peak, 2.2 s]"),
    Case("hunspell-random-bytes", BUILD, ("recipe", "rnd-hun.toml", "--out", "rnd-hun.sqlite", "--no-progress"), 1,
         r"^meteor-build: error: rnd-hun\.aff, line \d+: a NUL byte: not a text file \(not a Hunspell file\)$",
         "a random-bytes .dic/.aff (gave an empty bundle, exit 0, no warning) [40 MB peak, 1.5 s]"),
    Case("hunspell-printable-junk", BUILD, ("recipe", "junk-hun.toml", "--out", "junk-hun.sqlite", "--no-progress"), 1,
         r"^meteor-build: error: junk-hun\.aff: no Hunspell directive \(SET, FLAG, TRY, PFX, SFX, \.\.\.\) in its "
         r"[\d,]+ lines: not a Hunspell \.aff file$", "printable junk as .dic/.aff (no NUL byte) [40 MB peak, 1.9 s]"),
    # --- judgments ---
    Case("correlate-50mb-cell", COR, ("big-cell.tsv", "metric.tsv"), 1,
         r"^meteor-lite: error: big-cell\.tsv:2: a line longer than 1,000,000 characters: not a judgments or scores "
         r"TSV$", "a judgments file with a 50 MB cell (was: unexpected csv.Error) [23 MB peak, 0.6 s]"),
    Case("correlate-truncated-gz", COR, ("trunc.tsv.gz", "metric.tsv"), 1,
         r"^meteor-lite: error: trunc\.tsv\.gz: the gzip stream ends early after line \d+ \(a truncated file\)$",
         "a truncated .gz (was: unexpected EOFError) [22 MB peak, 0.6 s]"),
    Case("correlate-gzip-bomb", COR, ("bomb.tsv.gz", "metric.tsv"), 1,
         r"^meteor-lite: error: bomb\.tsv\.gz:2: a line longer than 1,000,000 characters",
         "a gzip bomb: 1 MB of .gz, 1 GB of NULs (was 2.1 GB peak, then unexpected): read a line at a time, "
         "stopped at its first long line [23 MB peak, 0.6 s]"),
    Case("correlate-gzip-rows-bomb", COR, ("rows-judg.tsv.gz", "metric.tsv"), 1,
         r"^meteor-lite: error: rows-judg\.tsv\.gz:\d+: the gzip file decompresses to more than 33,554,432 bytes, the most "
         r"read from a file of \d{3},\d{3} bytes \(32 times its size, at least 33,554,432\): not a judgments or scores file "
         r"of this size \(decompress it first if it is one\)$",
         "a small .gz judgments file of valid rows standing for 40 MB of text: refused at 32 times the file's size or "
         "32 MB, before the rows are held (WMT's judged files inflate 3 to 14 times)"),
    Case("correlate-bootstrap-negative", COR, ("judg.tsv", "metric.tsv", "--bootstrap", "-5"), 2,
         r"^meteor-lite: error: argument --bootstrap: must be an integer >= 0, got -5",
         "--bootstrap -5 (was accepted; every interval [nan, nan])"),
    Case("correlate-bootstrap-zero", COR, ("judg.tsv", "metric.tsv", "--bootstrap", "0"), 0, r"^$",
         "--bootstrap 0: no interval column (was [nan, nan] on every line)",
         stdout=r"^judgments: .*; no intervals \(--bootstrap 0\)\n(?![\s\S]*(interval|\[))"),
    # --- streams ---
    Case("stdin-endless", P, ("score", "-", "r3.txt", *T), 1,
         r"^meteor-lite: error: r3\.txt: 3 lines, but the hypotheses \(<stdin>\) have more \(reading stopped at their "
         r"line 4\)$", "an endless standard input (yes) against a 3-line reference file (was read to its end): "
         "stopped at its line 4 [25 MB peak, 0.7 s]", redirect="yes"),
    # --- the surfaces added since: mapped tables, --segments, WMT reports, bundle values ---
    Case("mapped-table-forged", S, ("h.txt", "r.txt", "--bundle", "tiny.sqlite", "-m", "exact synonym", "-q"), 0,
         r"^$",
         "a mapped table file written by someone else with the scorer's own writer, from other tables, consistent "
         "with the bundle's size, mtime, inode and checksum and with its own checksum (was read: other scores, same "
         "signature, nothing said): its header lacks this user's MAC, so it is written again and the score is the "
         "bundle's (checked against the bundle queried without any mapped file)", inject="forge-tables",
         stdout=r"^0\.\d+\n$"),
    Case("gzip-as-text", S, ("gz.txt", "r.txt", *T), 1,
         r"^meteor-lite: error: gz\.txt:1: invalid UTF-8 \(byte 0x8b at column 2\): the file is gzip-compressed \(it "
         r"starts with gzip's magic bytes 1f 8b\); decompress it first \(gunzip\)$",
         "a gzipped hypothesis file (was: invalid UTF-8, without the word gzip)"),
    Case("utf16-bom", S, ("u16-bom.txt", "r.txt", *T), 1,
         r"^meteor-lite: error: u16-bom\.txt:1: invalid UTF-8 \(byte 0xff at column 1\): the file is UTF-16 \(it starts "
         r"with a UTF-16 byte order mark\); convert it to UTF-8 first \(iconv -f UTF-16 -t UTF-8\)$",
         "a UTF-16 file with its byte order mark (was: invalid UTF-8, without the word UTF-16)"),
    Case("utf16-no-bom", S, ("u16.txt", "r.txt", *T), 1,
         r"^meteor-lite: error: u16\.txt:1: invalid UTF-8 \(byte 0xe9 at column 15\): the line looks like UTF-16 \(a NUL "
         r"byte every other byte\)", "a UTF-16 file without a byte order mark, with a non-ASCII letter"),
    Case("tsv-gzip-long-line", S, ("--tsv", "tsv-bomb.tsv.gz", *T), 1,
         r"^meteor-lite: error: tsv-bomb\.tsv\.gz:2: a line longer than 1,000,000 bytes: not a systems TSV",
         "a 200 KB .gz systems file holding one 200 MB line (--tsv had no line cap: a 1 GB line took 2.2 GB, the "
         "pending line joined again per block): stopped at the cap"),
    Case("tsv-gzip-rows-bomb", S, ("--tsv", "rows-bomb.tsv.gz", *T), 1,
         r"^meteor-lite: error: rows-bomb\.tsv\.gz:\d+: the gzip file decompresses to more than 33,554,432 bytes, the "
         r"most read from a file of \d{3},\d{3} bytes \(32 times its size, at least 33,554,432\): not a systems file of this "
         r"size \(decompress it first if it is one\)$",
         "a 0.6 MB .gz systems file of valid rows standing for 67 MB of text (120,000 segments): refused at 32 times the "
         "file's size or 32 MB, before the rows are held (WMT's judged files inflate 3 to 14 times)"),
    Case("paraphrase-table-long-line", JAR, ("h.txt", "r.txt", "-l", "en", "-m", "exact paraphrase", "-a",
                                             "para-bomb.gz"), 1,
         r"^meteor-jar: error: para-bomb\.gz, line 2: a line longer than 1,000,000 characters: not a paraphrase table$",
         "meteor-jar -a with a 190 KB gzip holding a 200 MB phrase line (a 1 GB line: 220 s and 2.1 GB before the "
         "error): read a line at a time with a cap, as 'bundle install LANG --paraphrase' reads it"),
    Case("paraphrase-phrase-200k-words", JAR, ("h.txt", "r.txt", "-l", "en", "-m", "exact paraphrase", "-a",
                                               "phrase-bomb.gz"), 1,
         r"^meteor-jar: error: phrase-bomb\.gz, line 5: a phrase of 200,000 words, more than 4,000: Meteor 1\.5 dies "
         r"loading it \(StackOverflowError from about 5,000 words\)$",
         "meteor-jar -a with an 855-byte gzip holding one 200,000-word phrase (each of its prefixes hashed whole: "
         "quadratic, out of memory at 6 GB): refused at 4,000 words, as the jar dies of a StackOverflowError on a "
         "phrase of 5,000 (4,000 load); the prefix hashes are made word by word, linear in the phrase"),
    Case("paraphrase-phrase-200k-install", B, ("install", "de", "--paraphrase", "phrase-bomb.gz"), 1,
         r"^meteor-lite: error: phrase-bomb\.gz, line 5: a phrase of 200,000 words and 799,999 characters, more than a "
         r"bundle takes \(20 words, 400 characters: each of its prefixes is a row\)$",
         "the same table for 'bundle install LANG --paraphrase' (each of its 199,999 prefixes a row: out of memory at "
         "6 GB): a bundle's phrase has at most 20 words and 400 characters (Meteor's tables: at most 7 words)"),
    Case("paraphrase-table-not-gzipped", JAR, ("h.txt", "r.txt", "-l", "en", "-m", "exact paraphrase", "-a",
                                               "plain.para"), 0,
         r"^meteor-jar: warning: plain\.para: not in gzip format: scored without this paraphrase table, as Meteor 1\.5 "
         r"does \(it reads a table gzipped only: java\.util\.zip\.ZipException\); gzip it to use it$",
         "meteor-jar -a with a table not gzipped (was read as text: the jar prints java.util.zip.ZipException and "
         "scores without the table, 0.0169 instead of 0.346 on two example lines): one warning, scored as the jar, "
         "the paraphrase module matching nothing"),
    # --- paraphrase tables at 2 MB: decompression bombs, and tables just under the caps (files: _paraphrase_tables)
    Case("paraphrase-gzip-bomb-jar", JAR, ("h.txt", "r.txt", "-l", "en", "-m", "exact paraphrase", "-a",
                                           "para-gz-bomb.gz"), 1,
         r"^meteor-jar: error: para-gz-bomb\.gz, line \d+: the gzip file decompresses to more than 32,\d{3},\d{3} bytes, "
         r"the most read from a file of 2,\d{3},\d{3} bytes \(16 times its size, at least 32,000,000\): a decompression "
         r"bomb, not a paraphrase table$",
         "meteor-jar -a with a 2 MB gzip of one short entry repeated, 1.4 GB of text (its pairs were all held in a "
         "list before the first was written: gigabytes): refused once the text read passes 16 times the file's size"),
    Case("paraphrase-gzip-bomb-install", B, ("install", "de", "--paraphrase", "para-gz-bomb.gz"), 1,
         r"^meteor-lite: error: para-gz-bomb\.gz, line \d+: the gzip file decompresses to more than 32,\d{3},\d{3} "
         r"bytes", "the same table for 'bundle install LANG --paraphrase': refused the same way, nothing installed",
         env=(("XDG_DATA_HOME", "{work}/xdg"),)),
    Case("paraphrase-caps-install", B, ("install", "de", "--paraphrase", "caps-20.gz"), 0, r"imported in \d+ s$",
         "a 2 MB table that decompresses to 31 MB, just under the cap: 66,000 phrases of 20 words and 400 "
         "characters (the caps), their spaces as late as they go, then unsorted entries (the writer stages the pairs "
         "and groups them): 1.3 million prefix rows, a 550 MB bundle (458 MB for a 115 KB gzip before: the prefixes "
         "were a Python set, then a list in the checksum); installed", stdout=r"installed .*de\.sqlite",
         env=(("XDG_DATA_HOME", "{work}/xdg"),)),
    Case("paraphrase-one-phrase-install", B, ("install", "de", "--paraphrase", "one-phrase.gz"), 0,
         r"imported in \d+ s$", "a 2 MB table of one phrase with 3.5 million paraphrases, then unsorted entries "
         "(was 552 MB: its list split whole when staged and when checksummed): a chunk of it at a time; installed",
         stdout=r"installed .*de\.sqlite", env=(("XDG_DATA_HOME", "{work}/xdg"),)),
    Case("paraphrase-caps-jar", JAR, ("h.txt", "r.txt", "-l", "en", "-m", "exact paraphrase", "-a", "caps-4000.gz",
                                      "-q"), 0, r"^1\.0\n0\.05714285714285714\n$",
         "meteor-jar -a with a 2 MB table that decompresses to 31 MB: 1,800 phrases of 4,000 words (the cap), then "
         "unsorted entries: 7 million proper prefixes, none stored (was 334 MB for a 778 KB gzip: a hash of each held "
         "in a set); a phrase begins a longer one when the phrase key has a row in its range", stdout=r"^0\.4060334"),
    Case("paraphrase-alternating-jar", JAR, ("h.txt", "r.txt", "-l", "en", "-m", "exact paraphrase", "-a",
                                             "alt-phrases.gz", "-q"), 0, r"^1\.0\n0\.05714285714285714\n$",
         "meteor-jar -a with a 2 MB table of 3.5 million entries whose phrases alternate (each pair its own run): "
         "staged on disk and grouped by phrase, never held in memory", stdout=r"^0\.4060334"),
    Case("tsv-stdin-endless", P, ("score", "--tsv", "-", *T), 1,
         r"^meteor-lite: error: <stdin>:1: no system column 'system' in the header \('a b c'\)$",
         "--tsv - fed an endless stream (yes: was read whole before its header was looked at, 3 GB in 3 s): the "
         "header is read, and refused", redirect="yes"),
    Case("tsv-20000-self-systems", S, ("--tsv", "self-20k.tsv", *T, "-q"), 0,
         r"self-20k\.tsv: 19,990 more systems like these",
         "20,000 systems each equal to the reference (70 s: the self-reference check was quadratic, one warning "
         "per system): one pass, ten warnings and a count"),
    Case("tsv-duplicate-column", S, ("--tsv", "dupref.tsv", *T), 1,
         r"^meteor-lite: error: dupref\.tsv:1: the header names column 'ref_A' twice \(columns are found by name\)$",
         "a header naming ref_A twice (was scored against both: 1.0 where the first column gives 0.1)"),
    Case("tsv-nul-cell", S, ("--tsv", "nulcell.tsv", *T, "-q"), 0,
         r"^meteor-lite: warning: nulcell\.tsv:2: NUL \(U\+0000\) inside a cell \(1 line\(s\)\); it is scored as part of "
         r"the text", "a NUL inside a TSV cell (passed without the warning plain files get)"),
    Case("install-max-size-nan", B, ("install", "http://127.0.0.1:1/x.sqlite", "--max-size", "nan"), 2,
         r"^meteor-lite: error: argument --max-size: must be a finite number > 0, got 'nan'",
         "--max-size nan (was: unexpected ValueError)"),
    Case("install-max-size-inf", B, ("install", "http://127.0.0.1:1/x.sqlite", "--max-size", "inf"), 2,
         r"^meteor-lite: error: argument --max-size: must be a finite number > 0, got 'inf'",
         "--max-size inf (was: unexpected ValueError)"),
    Case("install-timeout-nan", B, ("install", "http://127.0.0.1:1/x.sqlite", "--timeout", "nan"), 2,
         r"^meteor-lite: error: argument --timeout: must be a finite number > 0, got 'nan'",
         "--timeout nan (a deadline no comparison reaches)"),
    Case("sqlite-disk-full", S, ("h.txt", "r.txt", *T), 1,
         r"^meteor-lite: error: SQLite: database or disk is full \(no space left on the device of a file being "
         r"written, not a damaged bundle", "a full disk while SQLite writes (an install's bundle, a scratch bundle): "
         "was 'the bundle may be damaged' about a bundle never written", inject="disk-full"),
    Case("segments-fifo", S, ("--tsv", "sys-ok.tsv", *T, "--segments", "fifo"), 1,
         r"^meteor-lite: error: fifo: is a FIFO, not a regular file: only regular files are written \(give a new file "
         r"name, or '-' for standard output\)$", "--segments onto a FIFO (was renamed over: its reader got nothing)"),
    Case("segments-symlink", S, ("--tsv", "sys-ok.tsv", *T, "--segments", "link.tsv"), 1,
         r"^meteor-lite: error: link\.tsv: is a symbolic link, not a regular file", "--segments onto a symbolic link "
         "(was replaced by a regular file)"),
    Case("segments-device", S, ("--tsv", "sys-ok.tsv", *T, "--segments", "/dev/null"), 1,
         r"^meteor-lite: error: /dev/null: is a character device, not a regular file",
         "--segments onto a device (as root, --segments /dev/full replaced the system's /dev/full)"),
    Case("segments-input", S, ("--tsv", "sys-ok.tsv", *T, "--segments", "sys-ok.tsv"), 1,
         r"^meteor-lite: error: sys-ok\.tsv: is an input of this run \(sys-ok\.tsv\): not overwritten$",
         "--segments naming the systems file itself (was overwritten)"),
    Case("segments-dash", S, ("--tsv", "sys-ok.tsv", *T, "-q", "--segments", "-"), 0, r"^$",
         "--segments - (was a file named '-'): standard output", stdout=r"^system\tseg_id\tscore\nA\t1\t1\.0\n"),
    Case("wmt-names-escaped", S, ("--tsv", "sys-esc.tsv", *T), 0, r"^$",
         "system names holding ESC[2J, NUL, VT, FF, NEL, U+2028, U+202E and 'Final score: 0.999999' (reached the "
         "text report raw, as did header cells): escaped, the forged score line defused",
         stdout=r"\\x1b\[2J\\x00\\x0b\\x0c\\x85\\u2028\\u202eA[\s\S]*Final score\\x3a 0\.999999"),
    Case("wmt-long-name", S, ("--tsv", "sys-longname.tsv", *T), 0, r"^$",
         "a 1 MB systems file: a 999,000-character system name and 2,000 systems (every row was padded to 1 MB: 4.9 GB, then "
         "out of memory with 5,000): the column is padded to 40 characters", stdout=r"\nsys1999 +1 "),
    *(Case(f"bundle-{name}-verify", B, ("verify", f"{name}.sqlite"), 1,
           rf"{name}\.sqlite: table '{table}' holds a {column} that is not text \(an? {kind} value", f"{what}: refused")
      for name, table, column, kind, what in (
          ("stem-null", "stems", "stem", "null", "bundle verify on a NULL stem, checksum recomputed (was 'ok'; "
           "scoring then crashed with unexpected AttributeError in the mapped-table writer)"),
          ("stem-int", "stems", "stem", "integer", "bundle verify on an INTEGER stem (the same)"),
          ("stem-word-int", "stems", "word", "integer", "bundle verify on an INTEGER stem-map word (the same)"),
          ("exc-base-null", "synonym_exceptions", "base", "null",
           "bundle verify on a NULL synonym-exception base form (the same)"),
          ("exc-base-int", "synonym_exceptions", "base", "integer",
           "bundle verify on an INTEGER synonym-exception base form (the same)"))),
    *(Case(f"bundle-{name}-score", S, ("h.txt", "r.txt", "--bundle", f"{name}.sqlite", "-m", "exact"), 1,
           rf"^meteor-lite: error: {name}\.sqlite: the bundle is damaged or was changed after it was built \(table "
           rf"'{table}' holds a", "scoring with it, even with -m exact: refused by the first-use verification")
      for name, table in (("stem-null", "stems"), ("exc-base-int", "synonym_exceptions"))),
    Case("bundle-stem-null-unverified", S, ("h.txt", "r.txt", "--bundle", "stem-null.sqlite", "-m", "exact", "-q"), 0,
         r"stem-null\.sqlite\.tables: the mapped tables were not written \(table 'stems' holds a value of the wrong "
         r"type", "the same with METEOR_LITE_VERIFY_BUNDLES=0: no mapped file, the bundle is queried",
         env=(("METEOR_LITE_VERIFY_BUNDLES", "0"),)),
)

_HYP = ("the cat sat on the mat", "a dog ran in the park", "it is raining today")


def _sgml(kind: str, lines: Tuple[str, ...], docid: str = ' docid="d1"') -> bytes:
    """An SGML set of one document: ``kind`` tst or ref, ``lines`` the lines between <doc> and </doc>."""
    sysid = "sys1" if kind == "tst" else "ref"
    return (f'<{kind}set setid="s1" srclang="de" trglang="en">\n<doc sysid="{sysid}"{docid}>\n' + "".join(
        line + "\n" for line in lines) + f"</doc>\n</{kind}set>\n").encode()


def _segs(texts: Tuple[str, ...], ids: Tuple[str, ...] = ("1", "2", "3")) -> Tuple[str, ...]:
    return tuple(f'<seg id="{i}"> {t} </seg>' for i, t in zip(ids, texts))


#: The SGML files of the jar drop-in rows (each run through the jar with the row's options).
FILES.update({
    "sg-ok.sgm": _sgml("tst", _segs(_HYP)),
    "sg-ref.sgm": _sgml("ref", _segs(("the cat sat on a mat", "the dog ran in a park", "it rains today"))),
    "sg-ref2.sgm": _sgml("ref", _segs(("the cat sat on a mat", "the dog ran in a park"))),
    "sg-amp.sgm": _sgml("tst", _segs(("the cat &AMP; a mat &#233;", "the &quot;dog&quot; ran &lt;in&gt; a park",
                                      "it rains &apos;today&apos; &foo;"))),
    "sg-multiline.sgm": _sgml("tst", ('<seg id="1"> the cat sat', 'on the mat </seg>', *_segs(_HYP[1:], ("2", "3")))),
    "sg-missing.sgm": _sgml("tst", _segs(_HYP[:2])),
    "sg-unclosed.sgm": _sgml("tst", ('<seg id="1"> the cat sat on the mat', *_segs(_HYP[1:], ("2", "3")))),
    "sg-unclosed-end.sgm": _sgml("tst", (*_segs(_HYP[:2]), '<seg id="3"> it is raining today')).split(b"</doc>")[0],
    "sg-two.sgm": _sgml("tst", ("".join(_segs(_HYP[:2])), *_segs(_HYP[2:], ("3",)))),
    "sg-dup.sgm": _sgml("tst", _segs(_HYP, ("1", "1", "2"))),
    "sg-nodocid.sgm": _sgml("tst", _segs(_HYP), docid=""),
})


# --------------------------------------------------------------------------------------------------------
# the scratch directory


def _damage(src: Path, out: Path, how: str) -> None:
    """A damaged copy of the bundle ``src``: truncated, one row changed, or middle pages overwritten."""
    data = src.read_bytes()
    if how == "trunc":
        out.write_bytes(data[: len(data) // 3])
    elif how == "tampered":
        shutil.copy(src, out)
        with sqlite3.connect(out) as conn:
            conn.execute("UPDATE function_words SET word = 'thee' WHERE word = 'the'")
        conn.close()
    elif how == "mid":  # the pages of the synsets and paraphrases tables overwritten
        page = int.from_bytes(data[16:18], "big") or 65536
        with sqlite3.connect(src) as conn:
            roots = [r for (r,) in conn.execute(
                "SELECT rootpage FROM sqlite_master WHERE name IN ('synsets', 'paraphrases')")]
        conn.close()
        damaged = bytearray(data)
        for root in roots:
            damaged[(root - 1) * page: root * page] = bytes(range(256)) * (page // 256)
        out.write_bytes(bytes(damaged))
    else:  # corrupt: overwrite every page after the first two with garbage
        page = 4096 if len(data) >= 8192 else 1024
        out.write_bytes(data[: 2 * page] + bytes(range(256)) * ((len(data) - 2 * page) // 256 + 1))


@pytest.fixture(scope="session")
def untrusted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Bundles with hostile metadata, built once: a forged name/version, a licence with a newline, no language."""
    return _make_untrusted(tmp_path_factory.mktemp("untrusted"))


def _make_untrusted(d: Path) -> Path:
    """The files of :func:`untrusted`, written into ``d``."""
    from tiny_bundles import make_tiny_bundle

    make_tiny_bundle(d / "forged.sqlite", name="tiny\nFinal score:            0.999999", version="0.0.1\x1b[2J")
    make_tiny_bundle(d / "licence.sqlite", licence="CC0\nRequires-Dist: evil-dependency-xyz")
    make_tiny_bundle(d / "nolang.sqlite", language="")
    _hostile_metadata(d)
    return d


def _hostile_metadata(d: Path) -> None:
    """Bundles whose metadata or content is of the wrong type, each with its content checksum
    recomputed where one can be (as an attacker would: they pass verification), and judgment files with inf."""
    from meteor_lite.resources.schema import compute_content_checksum
    from tiny_bundles import make_tiny_bundle

    tiny = make_tiny_bundle(d / "meta-base.sqlite")
    meta = "INSERT OR REPLACE INTO meta VALUES "
    variants = {
        "meta-null": ["CREATE TABLE m2 (key TEXT PRIMARY KEY, value) WITHOUT ROWID", "INSERT INTO m2 SELECT * FROM meta",
                      "DROP TABLE meta", "ALTER TABLE m2 RENAME TO meta",
                      "UPDATE meta SET value = NULL WHERE key = 'schema_version'"],
        "meta-stemmer-text": [meta + "('stemmer', 'snowball english')"],
        "meta-stemmer-list": [meta + "('stemmer', '[\"english\"]')"],
        "meta-stemmer-field": [meta + "('stemmer', '{\"language\": [\"english\"]}')"],
        "meta-params-text": [meta + "('build_params', '{builder: me}')"],
        "meta-params-list": [meta + "('build_params', '[1, 2]')"],
        "meta-maxlen": [meta + "('paraphrase_max_length', 'three')"],
        "meta-tasks-deep": [meta + "('tasks', '{\"rank\": ' || '" + "[" * 100_000 + "' || '1' || '"
                            + "]" * 100_000 + "' || '}')"],
        "blob-word": ["INSERT INTO function_words VALUES (x'6869')"],
        # a schema of their own: a stem, a stem-map word, an exception's base form of the wrong type
        "stem-null": [*_retyped("stems", "word TEXT PRIMARY KEY, stem"), "INSERT INTO stems VALUES ('cats', NULL)"],
        "stem-int": [*_retyped("stems", "word TEXT PRIMARY KEY, stem"), "INSERT INTO stems VALUES ('cats', 7)"],
        "stem-word-int": [*_retyped("stems", "word PRIMARY KEY, stem TEXT"), "INSERT INTO stems VALUES (5, 'five')"],
        "exc-base-null": [*_retyped("synonym_exceptions", "form TEXT NOT NULL, base, PRIMARY KEY (form, base)"),
                          "INSERT INTO synonym_exceptions VALUES ('geese', NULL)"],
        "exc-base-int": [*_retyped("synonym_exceptions", "form TEXT NOT NULL, base, PRIMARY KEY (form, base)"),
                         "INSERT INTO synonym_exceptions VALUES ('geese', 3)"],
    }
    for name, sqls in variants.items():
        out = d / f"{name}.sqlite"
        shutil.copy(tiny, out)
        conn = sqlite3.connect(out)
        with conn:
            for sql in sqls:
                conn.execute(sql)
            if name != "blob-word":  # a BLOB has no checksum line: the old checksum stays
                conn.execute("UPDATE meta SET value = ? WHERE key = 'content_checksum'", (compute_content_checksum(conn),))
        conn.close()
    tiny.unlink()
    (d / "judg-inf.tsv").write_text("system\tseg_id\tmqm\nA\t1\t-1\nA\t2\tinf\nB\t1\t0\nB\t2\t-2\n")
    (d / "judg.tsv").write_text("system\tseg_id\tmqm\nA\t1\t-1\nA\t2\t-3\nB\t1\t0\nB\t2\t-2\n")
    (d / "metric.tsv").write_text("system\tseg_id\tscore\nA\t1\t0.5\nA\t2\t0.4\nB\t1\t0.6\nB\t2\t0.1\n")
    (d / "metric-inf.tsv").write_text("system\tseg_id\tscore\nA\t1\t0.5\nA\t2\t0.4\nB\t1\t0.6\nB\t2\t-Infinity\n")


def _retyped(table: str, columns: str) -> "list[str]":
    """SQL replacing ``table`` by one of the same name and rows with the column definitions ``columns``."""
    return [f"CREATE TABLE t2 ({columns})", f"INSERT INTO t2 SELECT * FROM {table}", f"DROP TABLE {table}",
            f"ALTER TABLE t2 RENAME TO {table}"]


def _recipe(d: Path, name: str, aff: bytes, dic: bytes) -> None:
    """``name.aff``/``name.dic`` and a recipe ``name.toml`` making a lemma map of them (their digest pinned)."""
    from meteor_lite_builders.lexical.hunspell import hunspell_digest

    (d / f"{name}.aff").write_bytes(aff)
    (d / f"{name}.dic").write_bytes(dic)
    (d / f"{name}.toml").write_text(
        'format = "meteor-lite-recipe"\nformat_version = 1\n\n[bundle]\nlanguage = "af"\n'
        f'name = "{name}"\nversion = "1.0.0"\ndescription = "a hostile dictionary"\n\n[sources.hunspell]\n'
        f'kind = "hunspell"\npath = "{name}.dic"\nsha256 = "{hunspell_digest(d / f"{name}.dic")}"\n'
        'licence = "none"\n\n[stems]\nfrom = "hunspell"\n', encoding="utf-8")


@pytest.fixture(scope="session")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The inputs of the untrusted-input rows, built once: a bundle with text synset ids, a copy with its function words deleted,
    hostile thesauri, dictionaries, judgments and a pack index whose listing misstates a pack's language."""
    return _make_hostile(tmp_path_factory.mktemp("hostile"))


def _make_hostile(d: Path) -> Path:
    """The files of :func:`hostile`, written into ``d``."""
    import gzip
    import random

    from meteor_lite.resources.schema import compute_content_checksum
    from meteor_lite_builders.packs import add_to_index
    from tiny_bundles import make_tiny_bundle

    syn = make_tiny_bundle(d / "syn-text.sqlite")
    with sqlite3.connect(syn) as conn:
        conn.execute("UPDATE synsets SET synset = 'x' || synset")
        conn.execute("UPDATE meta SET value = ? WHERE key = 'content_checksum'", (compute_content_checksum(conn),))
    conn.close()
    fw = make_tiny_bundle(d / "fw-deleted.sqlite")
    with sqlite3.connect(fw) as conn:
        conn.execute("DELETE FROM function_words")  # the recorded checksum is the original's
    conn.close()
    rnd = random.Random(35)
    members = "|".join(f"synonym{i:06d}-" + "x" * 64 for i in range(150_000))
    (d / "big-meaning.dat").write_text(f"UTF-8\nbig|1\n-|{members}\ncar|1\n-|auto|automobile\n", encoding="utf-8")
    (d / "rnd-thes.dat").write_bytes(rnd.randbytes(1_000_000))
    _recipe(d, "x400", ("SET UTF-8\nPFX P Y 400\n" + "".join(f"PFX P 0 p{i} .\n" for i in range(400))
                        + "SFX S Y 400\n" + "".join(f"SFX S 0 s{i} .\n" for i in range(400))).encode(),
            ("40\n" + "".join(f"root{i}/PS\n" for i in range(40))).encode())
    _recipe(d, "rnd-hun", rnd.randbytes(12_000), rnd.randbytes(200_000))
    junk = "".join(rnd.choice("abcdefghij KLMNOP/0123456789\n\t.,;") for _ in range(100_000)).encode()
    _recipe(d, "junk-hun", junk, junk)
    (d / "big-cell.tsv").write_text("system\tseg_id\tmqm\thyp\tref\nA\t1\t-1\t" + "x" * 50_000_000 + "\tb\n")
    packed = gzip.compress(b"system\tseg_id\tmqm\nA\t1\t-1\nA\t2\t-3\nB\t1\t0\nB\t2\t-2\n")
    (d / "trunc.tsv.gz").write_bytes(packed[: len(packed) // 2])
    with gzip.open(d / "bomb.tsv.gz", "wb", compresslevel=9) as out:
        out.write(b"system\tseg_id\tmqm\n")
        zeros = b"\0" * 1_000_000
        for _ in range(1000):
            out.write(zeros)
    with gzip.open(d / "tsv-bomb.tsv.gz", "wb", compresslevel=9) as out:  # a systems file: one 200 MB line
        out.write(b"seg_id\tsystem\thyp\tref\n")
        for _ in range(200):
            out.write(b"a" * 1_000_000)
    with gzip.open(d / "rows-judg.tsv.gz", "wb", compresslevel=9) as out:  # valid judgments: 40 MB of rows
        out.write(b"system\tseg_id\tmqm\tnote\n")
        note = b"n" * 500
        for block in range(80):
            out.write(b"".join(b"A\t%d\t-1\t%s\n" % (block * 1000 + i, note) for i in range(1000)))
    with gzip.open(d / "rows-bomb.tsv.gz", "wb", compresslevel=9) as out:  # valid rows: 0.6 MB for 67 MB
        out.write(b"seg_id\tsystem\thyp\tref\n")
        sentence = b" ".join(b"word%d" % i for i in range(45))
        for block in range(120):
            out.write(b"".join(b"%d\tA\t%s\t%s\n" % (block * 1000 + i, sentence, sentence) for i in range(1000)))
    with gzip.open(d / "para-bomb.gz", "wb", compresslevel=9) as out:  # a paraphrase table: one 200 MB line
        out.write(b"0.5\n")
        for _ in range(200):
            out.write(b"a" * 1_000_000)
    with gzip.open(d / "phrase-bomb.gz", "wb", compresslevel=9) as out:  # one phrase of 200,000 words, 855 bytes
        out.write(b"0.5\nthe cat\na feline\n0.5\n" + b" ".join([b"the"] * 200_000) + b"\nx y\n")
    (d / "plain.para").write_text("0.5\nthe cat\na feline\n", encoding="utf-8")  # a table not gzipped
    _paraphrase_tables(d)
    (d / "self-20k.tsv").write_text("seg_id\tsystem\thyp\tref\n" + "".join(
        f"1\tsys{i}\tthe cat\tthe cat\n" for i in range(20_000)), encoding="utf-8")
    idx = d / "files" / "langidx"
    add_to_index(make_tiny_bundle(d / "src" / "de.sqlite", language="en"), idx)
    listing = json.loads((idx / "packs.json").read_text(encoding="utf-8"))
    listing["packs"][0]["language"] = "de"
    (idx / "packs.json").write_text(json.dumps(listing), encoding="utf-8")
    return d


def _token(rnd: "random.Random") -> str:
    """16 random letters, digits, ``-`` and ``_`` (12 random bytes: text that compresses badly)."""
    import base64

    return base64.urlsafe_b64encode(rnd.randbytes(12)).decode()


def _paraphrase_tables(d: Path) -> None:
    """Paraphrase tables of 2 MB: a decompression bomb, and tables decompressing to just under the cap of
    meteor_lite.resources.jarformat (16 times the file, at least 32 MB) made of the costliest entries."""
    import gzip

    chunk = b"0.5\na\nb\n" * 131_072
    with open(d / "para-gz-bomb.gz", "wb") as raw:  # one entry repeated: 1.4 GB of text in 2 MB
        with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as gz:
            while raw.tell() < 2_000_000:
                for _ in range(64):
                    gz.write(chunk)

    def late20(i: int) -> bytes:  # 20 words, 400 characters, the spaces as late as they go: the most prefix text
        return f"0.5\np{i:07d}{'x' * 354} {' '.join(['a'] * 19)}\nparaphrase {i}\n".encode()

    def long4000(i: int) -> bytes:  # 4,000 words, meteor-jar's cap
        return f"0.5\nq{i} {' '.join(['the'] * 3999)}\nx{i}\n".encode()

    def one(i: int) -> bytes:  # one phrase, millions of paraphrases
        return b"0.5\na\nb\n"

    def alternating(i: int) -> bytes:  # phrases that alternate: every pair a run of its own
        return b"0.5\nb\nc\n" if i % 2 else b"0.5\na\nd\n"

    rnd = random.Random(49)
    for name, entry in (("caps-20.gz", late20), ("caps-4000.gz", long4000), ("one-phrase.gz", one),
                        ("alt-phrases.gz", alternating)):
        text: "list[bytes]" = []
        size = i = 0
        while size < 27_500_000:
            text.append(entry(i))
            size += len(text[-1])
            i += 1
        data = gzip.compress(b"".join(text), 9, mtime=0)
        while len(data) < 2_000_000:  # then gzip members of unsorted random entries (they compress badly) to 2 MB
            n = max(1_000, (2_000_000 - len(data)) // 26)
            filler = "".join(f"0.5\nzz{_token(rnd)}\n{_token(rnd)} x\n" for _ in range(n))
            data += gzip.compress(filler.encode(), 9, mtime=0)
        (d / name).write_bytes(data)


@pytest.fixture(scope="session")
def hostile_url(hostile: Path) -> Iterator[str]:
    """The hostile server's base URL (127.0.0.1, a free port), for the whole session."""
    from hostile_server import serve

    with serve(hostile / "files") as url:
        yield url


@pytest.fixture()
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, untrusted: Path, hostile: Path) -> Path:
    """The scratch directory (current directory during the test) with every file and bundle."""
    _fill_work(tmp_path, untrusted, hostile)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _fill_work(tmp_path: Path, untrusted: Path, hostile: Path) -> None:
    """Write the scratch directory's files into ``tmp_path``."""
    from tiny_bundles import make_empty_bundle, make_tiny_bundle

    for name, data in FILES.items():
        (tmp_path / name).write_bytes(data)
    for i in range(12):
        (tmp_path / f"r{i:02d}.txt").write_bytes(FILES["h.txt"])
    (tmp_path / "adir").mkdir()
    os.mkfifo(tmp_path / "fifo")  # --segments rows: what is not a regular file is never written over
    (tmp_path / "link.tsv").symlink_to("h.txt")
    tiny = make_tiny_bundle(tmp_path / "tiny.sqlite")
    make_tiny_bundle(tmp_path / "tiny-de.sqlite", language="de")
    for src in untrusted.iterdir():  # copies: built once, not remembered by every case's cache
        shutil.copy(src, tmp_path / src.name)
    for src in hostile.iterdir():  # bundles copied (their identity is their own), the large inputs linked
        if src.suffix == ".sqlite":
            shutil.copy(src, tmp_path / src.name)
        elif src.is_file():
            (tmp_path / src.name).symlink_to(src)
    make_empty_bundle(tmp_path / "empty.sqlite")
    (tmp_path / "junk.sqlite").write_text("not a bundle\n", encoding="utf-8")
    for name, sql in (("nochecksum", "DELETE FROM meta WHERE key = 'content_checksum'"),
                      ("emptychecksum", "UPDATE meta SET value = '' WHERE key = 'content_checksum'"),
                      ("wal", "PRAGMA journal_mode=WAL")):
        shutil.copy(tiny, tmp_path / f"{name}.sqlite")
        conn = sqlite3.connect(tmp_path / f"{name}.sqlite")
        with conn:
            conn.execute(sql)
            if name == "nochecksum":
                conn.execute("DELETE FROM function_words WHERE word = 'the'")
        conn.close()
    for how in ("trunc", "tampered", "corrupt", "mid"):
        _damage(tiny, tmp_path / f"{how}.sqlite", how)


# --------------------------------------------------------------------------------------------------------
# running a row


def _in_process(case: Case, monkeypatch: pytest.MonkeyPatch) -> Tuple[Any, str, str]:
    """Exit code (or the exception's class name), stdout, stderr of a score/bundle/build row run in this process."""
    out, err = io.StringIO(), io.StringIO()
    if case.stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(case.stdin), encoding="utf-8"))
    if case.inject == "boom":
        def boom(*args: object, **kwargs: object) -> None:
            raise RuntimeError("boom")

        monkeypatch.setattr("meteor_lite.cli.score.score", boom)
    if case.inject == "sqlite":
        def malformed(*args: object, **kwargs: object) -> None:
            raise sqlite3.DatabaseError("database disk image is malformed")

        monkeypatch.setattr("meteor_lite.cli.score.score", malformed)
    if case.inject == "disk-full":
        def full(*args: object, **kwargs: object) -> None:
            raise sqlite3.OperationalError("database or disk is full")

        monkeypatch.setattr("meteor_lite.cli.score.score", full)
    monkeypatch.delenv("METEOR_LITE_DEBUG", raising=False)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = _dispatch(case, monkeypatch)
    except Exception as exc:  # noqa: BLE001 - --debug rows: the exception itself is the result
        return type(exc).__name__, out.getvalue(), str(exc)
    return code, out.getvalue(), err.getvalue()


def _dispatch(case: Case, monkeypatch: pytest.MonkeyPatch) -> int:
    """Run the row's command line; return its exit code."""
    from meteor_lite.cli import run
    from meteor_lite.cli.errors import run_guarded

    if case.surface == BUILD:
        from meteor_lite_builders.cli import app
        from meteor_lite_builders.cli.errors import run_app

        monkeypatch.setattr(sys, "argv", ["meteor-build", *case.args])
        return run_app(app)
    if case.id == "unknown-command":
        return run_guarded(run, ["frob"])
    debug = [a for a in case.args if a == "--debug"]
    rest = [a for a in case.args if a != "--debug"]
    return run_guarded(run, [*debug, case.surface, *rest])


def _as_process(case: Case, tmp: Path) -> Tuple[int, str, str]:
    """Exit code, stdout, stderr of ``meteor-lite ARGS`` run as a process with the row's redirection."""
    cmd = [sys.executable, "-c", "from meteor_lite.cli import main; main()", *case.args]
    if case.surface == JAR:
        jar = subprocess.run([sys.executable, "-m", "meteor_lite.jarcli", *case.args], input=case.stdin,
                             capture_output=True, cwd=tmp)
        return jar.returncode, jar.stdout.decode("utf-8"), jar.stderr.decode("utf-8")
    if case.redirect == "yes":  # an endless standard input
        proc = subprocess.run(["sh", "-c", 'yes "a b c" | "$@"', "sh", *cmd], capture_output=True, cwd=tmp, text=True,
                              timeout=300)
        return proc.returncode, proc.stdout, proc.stderr
    if case.redirect == "sigterm":
        return _terminated(cmd, tmp)
    if case.redirect == "full":
        with open("/dev/full", "w") as full:
            proc = subprocess.run(cmd, stdout=full, stderr=subprocess.PIPE, cwd=tmp, text=True)
        return proc.returncode, "", proc.stderr
    if case.redirect == "errclosed":
        proc = subprocess.run(["sh", "-c", '"$@" 2>&-', "sh", *cmd], stdout=subprocess.PIPE, cwd=tmp, text=True)
        return proc.returncode, proc.stdout, ""
    if case.redirect == "inclosed":
        proc = subprocess.run(["sh", "-c", '"$@" <&-', "sh", *cmd], capture_output=True, cwd=tmp, text=True)
        return proc.returncode, proc.stdout, proc.stderr
    if case.redirect == "closed":
        proc = subprocess.run(["sh", "-c", '"$@" >&-', "sh", *cmd], stderr=subprocess.PIPE, cwd=tmp, text=True)
        return proc.returncode, "", proc.stderr
    # pipe: the reader has gone before the first write (deterministic, unlike racing `| head`)
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp, text=True) as child:
        assert child.stdout is not None and child.stderr is not None
        child.stdout.close()
        err = child.stderr.read()
        return child.wait(), "", err


def _terminated(cmd: "list[str]", tmp: Path) -> Tuple[int, str, str]:
    """Run ``cmd`` (a download), send it SIGTERM once its ``.part`` file is in the user bundle directory."""
    import signal
    import time

    bundles = tmp / "xdg" / "meteor-lite" / "bundles"
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp, text=True) as child:
        for _ in range(1200):  # at most 120 s for the download to start
            if child.poll() is not None or (bundles.is_dir() and any(bundles.glob(".*.part"))):
                break
            time.sleep(0.1)
        time.sleep(0.5)  # a little of the body written
        child.send_signal(signal.SIGTERM)
        out, err = child.communicate(timeout=60)
        return child.returncode, out, err


def _api(case: Case, tmp: Path, url: str = "") -> Tuple[str, str]:
    """The exception's class name and text raised by the row's expression ("none" when nothing is raised)."""
    import warnings

    from meteor_lite import Meteor
    from meteor_lite.resources.install import install_bundle

    names = {"Meteor": Meteor, "TINY": tmp / "tiny.sqlite", "EMPTY": tmp / "empty.sqlite", "URL": url,
             "install_bundle": install_bundle}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            eval(case.args[0], names)  # noqa: S307 - the catalogue's own expressions
        except Exception as exc:  # noqa: BLE001 - the exception is what the row checks
            return type(exc).__name__, str(exc)
    return "none", ""


def _uses_server(case: Case) -> bool:
    return any("{url}" in a for a in case.args) or (case.surface == API and "URL" in case.args[0])


def _prepare(case: Case, work: Path, url: str, setenv: Any) -> Case:
    """The row with its server URL filled in; its environment set (``setenv(name, value)``); a forged cache
    line written for ``inject="forge"``."""
    if url:
        case = dataclasses.replace(case, args=tuple(a.replace("{url}", url) for a in case.args))
        setenv("XDG_DATA_HOME", str(work / "xdg"))  # installs go to the scratch directory's user bundle dir
    for name, value in case.env:
        setenv(name, value.replace("{work}", str(work)))
    if case.inject == "forge":
        _forge_cache_line(work / case.args[case.args.index("--bundle") + 1])
    if case.inject == "forge-tables":
        _forge_mapped_tables(work / case.args[case.args.index("--bundle") + 1])
    return case


def _forge_mapped_tables(bundle: Path) -> None:
    """A mapped table file beside ``bundle`` as someone who can write its directory (not read our key) makes one:
    with the scorer's own writer, from a bundle where 'car' and 'automobile' are not synonyms, stamped with ``bundle``'s size,
    mtime, inode and checksum."""
    from meteor_lite.resources import integrity, mapped
    from meteor_lite.resources.bundle import Bundle
    from meteor_lite_builders.bundle.writer import BundleWriter

    other = bundle.with_name("forger-source.sqlite")
    with BundleWriter(other, language="en", name="tiny", version="0.0.1") as w:
        w.add_function_words(["the", "a", "of", "on"])
        w.add_synsets([("big", 2), ("large", 2)])
    saved = (os.environ.get(integrity.ENV_KEY_FILE), dict(integrity._keys), mapped._bundle_stamp)
    try:
        os.environ[integrity.ENV_KEY_FILE] = str(bundle.with_name("forger-key"))
        integrity._keys.clear()
        with Bundle.open(bundle) as real, Bundle.open(other) as forged:
            stamp = mapped._bundle_stamp(real)
            mapped._bundle_stamp = lambda b: stamp  # type: ignore[assignment]
            mapped.write_mapped_tables(forged, mapped.mapped_path(bundle))
    finally:
        if saved[0] is None:
            os.environ.pop(integrity.ENV_KEY_FILE, None)
        else:
            os.environ[integrity.ENV_KEY_FILE] = saved[0]
        integrity._keys.clear()
        integrity._keys.update(saved[1])
        mapped._bundle_stamp = saved[2]  # type: ignore[assignment]
        other.unlink()


def _forge_cache_line(bundle: Path) -> None:
    """Lines in the verification cache claiming ``bundle`` (as it is now) verified against its recorded checksum:
    one without a MAC (the old format), one with a MAC not made with this user's key."""
    from meteor_lite.resources.integrity import cache_file, file_identity

    conn = sqlite3.connect(f"file:{bundle}?mode=ro", uri=True)
    checksum = conn.execute("SELECT value FROM meta WHERE key = 'content_checksum'").fetchone()[0]
    conn.close()
    body = "\t".join([*(str(x) for x in file_identity(bundle)), checksum])
    cache = cache_file()
    cache.parent.mkdir(parents=True, exist_ok=True)
    with cache.open("a", encoding="utf-8") as out:
        out.write(f"{body}\n{body}\t{'0' * 32}\n")


#: Lines of progress on stderr that are not part of the one-line error (an index install says what it downloads).
_PROGRESS = re.compile(r"^(downloading |importing Meteor 1\.5's )")  # what a download or an import is doing, before it


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case: Case, work: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    """The row's exit code (or exception) and message."""
    url = request.getfixturevalue("hostile_url") if _uses_server(case) else ""
    case = _prepare(case, work, url, monkeypatch.setenv)
    if case.surface == API:
        raised, message = _api(case, work, url)
        assert raised == case.code, message
        assert re.search(case.message, message), message
        return
    code: Any
    if case.surface in (P, JAR):
        code, out, err = _as_process(case, work)
    else:
        code, out, err = _in_process(case, monkeypatch)
    assert code == case.code, f"exit {code}\nstdout: {out[-500:]}\nstderr: {err[-2000:]}"
    assert "Traceback" not in err, err
    assert case.inject == "boom" or "(a bug in meteor-" not in err, err  # only the row that injects a bug says so
    assert re.search(case.message, err, re.M), f"message {case.message!r} not in stderr:\n{err}"
    typer_usage = case.surface == BUILD and case.code == 2  # typer's own usage box
    if isinstance(case.code, int) and case.code not in (0, 141) and not typer_usage and case.redirect != "errclosed":
        lines = [line for line in err.splitlines() if line.strip() and not _PROGRESS.match(line)]
        assert len(lines) == 1, f"not one line:\n{err}"
    if case.stdout:
        assert re.search(case.stdout, out), out
    if case.inject == "forge-tables":  # the score is the bundle's own, as queried without any mapped file
        monkeypatch.setenv("METEOR_LITE_MAPPED", "0")
        assert _in_process(dataclasses.replace(case, inject=""), monkeypatch)[1] == out
    if "--format" in case.args and "json" in case.args and code == 0:
        json.loads(out, parse_constant=lambda c: pytest.fail(f"bare {c} in JSON"))
    if url or (case.code != 0 and any(name == "XDG_DATA_HOME" for name, _ in case.env)):
        # nothing left behind in the user bundle directory (a refused install, an interrupted one)
        bundles = work / "xdg" / "meteor-lite" / "bundles"
        assert not (bundles.is_dir() and list(bundles.iterdir())), list(bundles.iterdir())


# --------------------------------------------------------------------------------------------------------
# interrupted builds (not table rows: they need a signal or a dead process)


def test_sigterm_ends_a_build_with_a_word(capsys: pytest.CaptureFixture[str]) -> None:
    """SIGTERM during meteor-build: one line, exit 143, and the handler is restored afterwards."""
    import os
    import signal

    from meteor_lite_builders.cli.errors import run_app

    before = signal.getsignal(signal.SIGTERM)

    def app() -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        pytest.fail("SIGTERM did not stop the build")

    assert run_app(app) == 143
    assert capsys.readouterr().err == (
        "meteor-build: error: terminated (SIGTERM); the bundle being written, if any, was not kept\n"
    )
    assert signal.getsignal(signal.SIGTERM) is before


def test_stale_temporary_files_removed(tmp_path: Path) -> None:
    """Temporary bundle files of dead processes (and old unnamed ones) go; live and recent ones stay."""
    import os
    import time

    from meteor_lite_builders.bundle.stale import UNNAMED_STALE_AFTER, remove_stale_temps, temp_prefix

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        bundle = tmp_path / "x.sqlite"
        names = {
            "dead": temp_prefix(bundle, dead.pid) + "ab12cd.tmp",
            "dead-journal": temp_prefix(bundle, dead.pid) + "ab12cd.tmp-journal",
            "live": temp_prefix(bundle, live.pid) + "ef34gh.tmp",
            "mine": temp_prefix(bundle) + "ij56kl.tmp",
            "old-unnamed": ".x.sqlite.mn78op.tmp",
            "new-unnamed": ".x.sqlite.qr90st.tmp",
            "other-bundle": temp_prefix(tmp_path / "y.sqlite", dead.pid) + "uv12wx.tmp",
        }
        for name in names.values():
            (tmp_path / name).write_bytes(b"partial")
        old = time.time() - UNNAMED_STALE_AFTER - 60
        os.utime(tmp_path / names["old-unnamed"], (old, old))
        removed = {p.name for p in remove_stale_temps(bundle)}
        assert removed == {names["dead"], names["dead-journal"], names["old-unnamed"]}
        left = {p.name for p in tmp_path.iterdir()}
        assert left == {names[k] for k in ("live", "mine", "new-unnamed", "other-bundle")}
    finally:
        live.kill()
        live.wait()


def test_integrity_cache(work: Path) -> None:
    """Verified once, remembered by file identity; a tampered bundle is refused."""
    from meteor_lite.errors import BundleError
    from meteor_lite.resources.bundle import Bundle
    from meteor_lite.resources.integrity import ensure_verified, is_verified

    cache = work / "cache" / "verified.tsv"
    calls: "list[str]" = []
    with Bundle.open(work / "tiny.sqlite") as good:
        def check() -> "list[str]":
            calls.append("verify")
            return good.verify()

        ensure_verified(good.path, good.checksum, check, cache)
        ensure_verified(good.path, good.checksum, check, cache)
        assert calls == ["verify"] and is_verified(good.path, good.checksum, cache)
    shutil.copy(work / "tampered.sqlite", work / "tiny.sqlite")  # same path, new content: verified again
    with Bundle.open(work / "tiny.sqlite") as bad:
        assert not is_verified(bad.path, bad.checksum, cache)
        with pytest.raises(BundleError, match="damaged or was changed after it was built .content checksum mismatch"):
            ensure_verified(bad.path, bad.checksum, bad.verify, cache)


# --------------------------------------------------------------------------------------------------------
# the docs table


#: Peak resident memory and wall time of every row run as a process, written by ``--measure all --write``
#: (``{"id": [peak MB, seconds, exit]}``), shown after the row's problem in docs/bad-inputs.md.
MEASURED_FILE = ROOT / "tests" / "bad_inputs_measured.json"
#: A figure written into a row's problem by hand (older rows): the measured one replaces it on the page.
_FIGURE = re.compile(r"\s*\[\d+ MB peak, [\d.]+ s\]")


def _measured() -> Dict[str, str]:
    """Each measured row's figure, ``[25 MB peak, 0.8 s]`` (rows a process cannot reproduce left out)."""
    if not MEASURED_FILE.is_file():
        return {}
    data = json.loads(MEASURED_FILE.read_text(encoding="utf-8"))
    faithful = {c.id for c in CASES if _measurable(c)}
    return {k: f"[{v[0]:.0f} MB peak, {v[1]:.1f} s]" for k, v in data.items() if k in faithful}


def _measurable(case: "Case") -> bool:
    """Whether :func:`measure` runs the row as the test does: not a row whose command raises by injection
    (a monkeypatch) nor one whose output is redirected (the measured process writes to files)."""
    return not case.inject and case.redirect in ("", "yes", "sigterm")


MEASURED: Dict[str, str] = _measured()


def doc_text() -> str:
    """``docs/bad-inputs.md``: the catalogue as a table (generated from :data:`CASES`)."""
    surfaces = {S: "meteor-lite score", B: "meteor-lite bundle", P: "meteor-lite (process)", JAR: "meteor-jar",
                COR: "meteor-lite correlate",
                BUILD: "meteor-build",
                API: "Python API"}
    lines = [
        "# Bad inputs: what meteor-lite does with them",
        "",
        "Generated from the catalogue in `tests/test_bad_inputs.py` (`.venv/bin/python tests/test_bad_inputs.py",
        "--write-doc`); the test suite runs every row and checks that this page lists them all. Errors are one",
        "line on stderr (`meteor-lite: error: ...`, `meteor-build: error: ...`); exit codes: 0 success, 1 input,",
        "configuration, bundle or output error, 2 usage error, 130 interrupted, 141 broken pipe (quiet).",
        "No traceback reaches the user; `meteor-lite --debug ...` or `METEOR_LITE_DEBUG=1` shows it.",
        "In the API column \"exit\" is the exception raised. Score rows use `--bundle tiny.sqlite -m exact`",
        "(a tiny test bundle) unless they say otherwise.",
        "",
        "| id | where | given | exit | message (regular expression) | problem |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for c in CASES:
        given = c.args[0] if c.surface == API else " ".join(_shell(a) for a in c.args)
        if c.redirect:
            given += {"full": " > /dev/full", "closed": " >&-", "pipe": " | (reader gone)", "errclosed": " 2>&-",
                      "inclosed": " <&-", "yes": " < (yes 'a b c')", "sigterm": " (then SIGTERM)"}[c.redirect]
        lines.append(
            f"| `{c.id}` | {surfaces[c.surface]} | `{given.replace('|', chr(92) + '|')}` | {c.code} | "
            f"`{(c.message or '(any)').replace('|', chr(92) + '|')}` | "
            f"{_FIGURE.sub('', c.problem) + ' ' + MEASURED[c.id] if c.id in MEASURED else c.problem} |"
        )
    return "\n".join(lines + LIMITS) + "\n"


#: The bounds on untrusted input, after the table of docs/bad-inputs.md.
LIMITS = [
    "",
    "The figures in brackets give the peak resident memory and wall time of each row's command run as a process",
    "(`.venv/bin/python tests/test_bad_inputs.py --measure all` runs every row and prints exit code, memory, time",
    "and the error line, `--measure ID ...` the rows named; `--write` keeps the figures in",
    "`tests/bad_inputs_measured.json`, which this page shows; the URL rows use a local server on 127.0.0.1,",
    "`tests/hostile_server.py`). They were taken on a shared 2-core machine, interpreter start-up included. No row",
    "of at most 2 MB of input, compressed or not, takes more than 500 MB or 30 s.",
    "",
    "## Bounds on untrusted input",
    "",
    "One mechanism per kind of input, shared by every path that reads it:",
    "",
    "- **Anything fetched from a URL** (a pack listing `packs.json`, a pack, a bundle) is read by one reader",
    "  (`meteor_lite/resources/fetch.py`): http, https and file URLs only, redirects followed only to http(s);",
    "  an overall deadline over connection, headers and body (`--timeout`, default 3,600 s; a listing at most",
    "  120 s); the status line and headers within 30 s (a header deadline); a stall limit of 15 s without a byte",
    "  (as pip's); a minimum rate of 1,000 bytes a second over each 30 s of the body (as curl's `--speed-limit`),",
    "  so that a server trickling a byte at a time is stopped after about a minute, not at `--timeout`; a size cap",
    "  on the bytes received and decompressed",
    "  (`--max-size`, default 2 GB; a listing 8 MB), a `Content-Length` above it refused before the body;",
    "  decompression a mebibyte at a time. Its `.part` file is removed on an error, on Ctrl-C and on SIGTERM",
    "  (exit 130); one of a process killed outright is removed by the next install once that process is gone.",
    "- **Every field of a listing entry** is checked before it is used or printed (names, version and language",
    "  short and printable, `file` a relative path inside the index, `sha256` 64 hex digits, `size` a whole",
    "  number); the wheel's SHA-256, the bundle's content checksum and its language must be the listing's.",
    "- **Text from a listing, a bundle, a dictionary or a judgments file** is printed through one escaping",
    "  function (`meteor_lite/printable.py`: control characters, line breaks and bidirectional overrides escaped),",
    "  as are the error and warning lines of `meteor-lite` and `meteor-build`.",
    "- **Files a user gives** are read a line at a time, each malformed one reported with its file and line:",
    "  judgments and metric TSVs (plain or `.gz`) refuse a line over 1,000,000 characters, a NUL, invalid UTF-8, a",
    "  damaged or truncated gzip stream; a MyThes meaning line of more than 10,000 members is skipped before it",
    "  is tokenised (every use drops lines over `--max-set-size` anyway); a Hunspell `.aff` with no directive or",
    "  a NUL byte, a `.dic` without its count line are refused, and the expansion stops as soon as one root gives",
    "  more than 100,000 forms or the dictionary more than 5 million.",
    "- **Standard input** against a reference file is read one line past what the references fit, then refused.",
    "- **Bundles**: `bundle verify` (and the first use of a bundle file) refuses a value of another type than the",
    "  scorer reads in its column: not an integer where it reads one (synset ids, paraphrase prefix flags,",
    "  numeric-only prefixes), not text where it reads text (words, stems, base forms, phrases; a paraphrase entry",
    "  may be NULL). What verification accepts, the scorer and the mapped-table writer read.",
    "- **Paraphrase tables in Meteor's format** are read a line at a time with a cap of 1,000,000 characters",
    "  (a longer line is refused as it is met), through one capped reader (`meteor_lite/cappedlines.py`, as the",
    "  judgments and systems TSVs are). A gzipped table is decompressed up to 16 times its own size, and at least",
    "  32 MB (`MAX_TABLE_INFLATION`, `TABLE_INFLATION_FLOOR` in `meteor_lite/resources/jarformat.py`); more is",
    "  refused, naming the line the cap falls on, as a decompression bomb: Meteor 1.5's English table decompresses",
    "  4.4 times (62 MB to 272 MB), a table `meteor-build export` writes from a bundle without probabilities 7.3",
    "  times, while gzip reaches about 1,000 times on repeated text. Both readers stage what they read on disk",
    "  (SQLite), not in memory: `meteor-jar -a` keeps no row and no hash per prefix of a phrase (whether a phrase",
    "  begins a longer one is a range query on the phrase key), the bundle writer flags the prefixes in one pass",
    "  over the phrases in order (a phrase's new prefixes are those it does not share with the phrase before) and",
    "  splits a phrase's list of millions of paraphrases a chunk at a time. A 2 MB table just under the cap, of",
    "  the costliest phrases either command takes, is read in well under 30 s and 500 MB (rows `paraphrase-caps-*`).",
    "  These caps are meteor-lite's own; the values read are the jar's. `meteor-jar -a` reads them as the jar does: an entry's probability",
    "  line is not read (`NaN`, `Infinity`, `1e400`, `abc`, a byte order mark: scored as the jar scores), an entry",
    "  with an empty phrase or paraphrase is skipped, a phrase of more than 4,000 words is refused (the jar dies of",
    "  a StackOverflowError loading one of 5,000), and a table that is not gzipped is not read: one warning, and",
    "  the scores are the jar's without it (the jar prints a ZipException). `bundle install LANG --paraphrase FILE`",
    "  and `meteor-build` build a bundle from the table and refuse, with file and line, a probability that is not",
    "  a finite number, an empty phrase and a phrase of more than 20 words or 400 characters (each of its",
    "  prefixes is a row of the bundle; Meteor's own tables have phrases of at most 7 words).",
    "- **Files meteor-lite writes where the user says** (`score --tsv ... --segments OUT`, `align --out`, `report --html OUT`) go through",
    "  one writer (`meteor_lite/atomicfile.py`, `output_file`): `-` is standard output; anything else must be a",
    "  regular file or a new name (never a device, a FIFO, a symbolic link, a directory, nor one of the run's",
    "  inputs), checked before scoring, written to a temporary file created exclusively and renamed over it.",
    "- **Text from a file in a text report** (system names and column names of a WMT file, a bundle's name in the",
    "  signature) goes through one printer (`printable.report_line`): escaped as above, and any `Final score:` in",
    "  it written `Final score\\x3a`, so that the report's own `Final score:` line is the first and only one a",
    "  parser finds. The System column is padded to at most 40 characters.",
    "",
    "## What the verification cache trusts",
    "",
    "A bundle file is verified (content checksum, SQLite integrity check) the first time it is used, and the",
    "success remembered in `$XDG_CACHE_HOME/meteor-lite/verified-bundles.tsv` (or `METEOR_LITE_CACHE_DIR`),",
    "keyed by the file's identity (real path, size, mtime, inode, ctime) and its recorded checksum. A line counts",
    "only with its MAC: an HMAC-SHA-256 under a secret key of the user kept outside the cache directory",
    "(`$XDG_CONFIG_HOME/meteor-lite/cache-key`, or `METEOR_LITE_CACHE_KEY`; created mode 0600, not used when",
    "others can read or write it). Write access to the cache directory is therefore not enough to have a changed",
    "bundle scored as verified: the forged line is ignored, the file verified, and refused. The cache still",
    "trusts whoever can read the key (the user, root) and the file system's identity of a file (restoring a",
    "changed file's ctime needs root). Without a key (none can be read or created), nothing is remembered and",
    "every run verifies its bundles; `METEOR_LITE_VERIFY_BUNDLES=0` turns verification off altogether.",
    "A key file that cannot be used (readable or writable by others, not a regular file, too short, not ASCII) is",
    "named in one warning, and the first-use notice then says that the verification is done on every run.",
    "",
    "## What the mapped table file trusts",
    "",
    "The first score with a bundle writes its look-up tables as a file beside it (`<bundle>.tables`, about the",
    "bundle's size; one line on stderr says so). Its header records the bundle file's size, mtime, inode and",
    "content checksum, the file's own SHA-256, and a MAC of that SHA-256 under the same per-user key as the",
    "verification cache. All but the MAC can be read by anyone, so whoever can write the bundle's directory could",
    "write a file consistent with them; without this user's MAC such a file is never read, but written again",
    "(with the true tables) or, where the directory cannot be written, left unused (the bundle is queried with",
    "SQLite). Its content is then checked against its SHA-256 once, and remembered by its identity as bundles are.",
    "Without a usable key no mapped file is written or read. Users who share a bundle directory each rewrite the",
    "file the other wrote (a few seconds for English); give each a bundle directory of their own, or",
    "`METEOR_LITE_MAPPED=0`. A writer killed before it could rename its temporary file (`.<name>.tables.PID.THREAD.tmp`)",
    "leaves it behind; the next writer removes those of processes that are gone.",
]


def _shell(arg: str) -> str:
    """``arg`` quoted for a shell when it needs it."""
    return f"'{arg}'" if (not arg or re.search(r"[^\w@%+=:,./-]", arg)) else arg


def test_doc_lists_every_case() -> None:
    """docs/bad-inputs.md is the generated table (every case id, in order)."""
    assert len(CASES) >= 40
    assert len({c.id for c in CASES}) == len(CASES)
    assert DOC.read_text(encoding="utf-8") == doc_text(), "run: .venv/bin/python tests/test_bad_inputs.py --write-doc"


def _row_command(case: Case) -> "list[str]":
    """The row as a command line of its own process (for :func:`measure`)."""
    py = [sys.executable, "-c"]
    if case.surface == BUILD:
        return [*py, "from meteor_lite_builders.entry import main; main()", *case.args]
    if case.surface == API:
        return [*py, "import sys\nfrom meteor_lite import Meteor\nfrom meteor_lite.resources.install import install_bundle\n"
                "URL, TINY, EMPTY = sys.argv[1], 'tiny.sqlite', 'empty.sqlite'\ntry:\n    eval(sys.argv[2])\n"
                "except Exception as exc:\n    print(type(exc).__name__ + ': ' + str(exc), file=sys.stderr)\n"
                "    sys.exit(1)\n", os.environ.get("ROW_URL", ""), case.args[0]]
    if case.surface == JAR:
        return [sys.executable, "-m", "meteor_lite.jarcli", *case.args]
    head = [] if case.surface == P else [{COR: "correlate"}.get(case.surface, case.surface)]
    debug = [a for a in case.args if a == "--debug"]  # a global option: before the command, as _dispatch puts it
    return [*py, "from meteor_lite.cli import main; main()", *debug, *head, *(a for a in case.args if a != "--debug")]


def measure(ids: "list[str]", write: bool = False) -> None:
    """Run rows as processes in a scratch directory and print, per row: exit code, the stderr line, peak resident
    memory (/usr/bin/time's maximum resident set size) and wall time.  Rows: ``ids`` (``["all"]``: every row), else
    those measured before.  ``write``: the figures go into :data:`MEASURED_FILE` (replacing those of the rows run)."""
    import signal
    import tempfile
    import time
    from contextlib import ExitStack

    sys.path.insert(0, str(ROOT / "tests"))
    from hostile_server import serve

    chosen = [c for c in CASES if (ids == ["all"] or c.id in ids if ids else c.id in MEASURED or _FIGURE.search(c.problem))]
    results: Dict[str, "list[float]"] = {}
    with tempfile.TemporaryDirectory() as scratch, ExitStack() as stack:
        base = Path(scratch)
        for sub in ("untrusted", "hostile", "cache"):
            (base / sub).mkdir()
        os.environ["METEOR_LITE_CACHE_DIR"] = str(base / "cache")
        _fill_work_dirs = (_make_untrusted(base / "untrusted"), _make_hostile(base / "hostile"))
        url = stack.enter_context(serve(base / "hostile" / "files"))
        os.environ["ROW_URL"] = url
        # the first use of a bundle file verifies it (the English one: 112 MB) and maps its tables, once: done
        # before the rows, whose figures are then those of their input
        start = time.monotonic()
        (base / "h.txt").write_bytes(FILES["h.txt"])
        for warm in (["-m", "meteor_lite.jarcli", "h.txt", "h.txt", "-l", "en", "-q"],
                     ["-c", "from meteor_lite.cli import main; main()", "score", "h.txt", "h.txt", "-q"]):
            subprocess.run([sys.executable, *warm], cwd=base, capture_output=True)
        print(f"(bundles verified and mapped first: {time.monotonic() - start:.1f} s)", flush=True)
        for case in chosen:
            work = base / f"w-{case.id}"
            work.mkdir()
            _fill_work(work, *_fill_work_dirs)
            os.chdir(work)
            row = _prepare(case, work, url if _uses_server(case) else "", os.environ.__setitem__)
            feeder = subprocess.Popen(["yes", "a b c"], stdout=subprocess.PIPE) if case.redirect == "yes" else None
            stdin: Any = feeder.stdout if feeder is not None else (subprocess.PIPE if row.stdin is not None else None)
            with open(work / ".stderr", "w+") as err, open(work / ".stdout", "w") as out:
                start = time.monotonic()
                timed = ["/usr/bin/time", "-o", str(work / ".time"), "-f", "%M", *_row_command(row)]
                child = subprocess.Popen(timed, stdin=stdin, stdout=out, stderr=err, cwd=work)
                if row.stdin is not None and child.stdin is not None:
                    child.stdin.write(row.stdin)
                    child.stdin.close()
                if feeder is not None and feeder.stdout is not None:
                    feeder.stdout.close()
                if case.redirect == "sigterm":
                    bundles = work / "xdg" / "meteor-lite" / "bundles"
                    for _ in range(1200):
                        if child.poll() is not None or (bundles.is_dir() and any(bundles.glob(".*.part"))):
                            break
                        time.sleep(0.1)
                    time.sleep(0.5)
                    kids = Path(f"/proc/{child.pid}/task/{child.pid}/children").read_text().split()
                    os.kill(int(kids[0]), signal.SIGTERM)  # the row's process, not /usr/bin/time
                child.wait()
                seconds = time.monotonic() - start
                if feeder is not None:
                    feeder.kill()
                    feeder.wait()
                err.seek(0)
                lines = [ln for ln in err.read().splitlines() if ln.strip() and not _PROGRESS.match(ln)]
            left = sorted(p.name for p in (work / "xdg" / "meteor-lite" / "bundles").glob("*")) if url else []
            peak = int((work / ".time").read_text().split()[-1])
            print(f"{case.id}\texit {child.returncode}\t{peak / 1024:.0f} MB\t{seconds:.1f} s\t"
                  f"{(lines or [''])[-1][:160]}" + (f"\tleft: {left}" if left else ""), flush=True)
            results[case.id] = [round(peak / 1024), round(seconds, 1), child.returncode]
            shutil.rmtree(work, ignore_errors=True)  # rows that build bundles leave hundreds of MB
            for name, _value in row.env:
                os.environ.pop(name, None)
            os.environ.pop("XDG_DATA_HOME", None)
            os.chdir(base)
    if write:
        kept = json.loads(MEASURED_FILE.read_text(encoding="utf-8")) if MEASURED_FILE.is_file() else {}
        kept.update(results)
        order = {c.id: i for i, c in enumerate(CASES)}
        kept = {k: kept[k] for k in sorted(kept, key=lambda k: order.get(k, len(order))) if k in order}
        MEASURED_FILE.write_text("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in kept.items())
                                 + "\n}\n", encoding="utf-8")
        print(f"wrote {MEASURED_FILE} ({len(results)} rows measured, {len(kept)} kept)")


if __name__ == "__main__":  # pragma: no cover
    if sys.argv[1:] == ["--write-doc"]:
        DOC.write_text(doc_text(), encoding="utf-8")
        print(f"wrote {DOC} ({len(CASES)} cases)")
    elif sys.argv[1:2] == ["--measure"]:
        args = sys.argv[2:]
        measure([a for a in args if a != "--write"], write="--write" in args)
