"""Every language from the wheel: ``meteor-lite bundle install L`` then ``meteor-lite score --lang L`` in a fresh venv.

``meteor-build check languages-from-wheel`` builds the project's wheel (or takes ``--wheel``),
installs it with the ``official``, ``build`` and ``lemmas`` extras into a new virtual environment
outside the checkout (or reuses ``--venv``), and for each of the 71 languages of the shipped recipes
(the 16 of Meteor 1.5 are official imports, the others recipe builds), with an empty user bundle
directory and the working directory outside the checkout:

1. ``meteor-lite bundle install L``: exit status, wall time, the lines naming absent sources;
2. ``meteor-lite score HYP REF --lang L --norm`` (no module or weight option): exit status, the
   modules and the signature it prints, the final score.  HYP/REF are 20 segments of one system of
   ``../shared/data`` where the language has data (WMT21 systems files, the biomedical MQM set, the
   official example for English); otherwise a pair made from the installed bundle: six words of its
   vocabulary as the reference, and a hypothesis with two words in another form of the same stem
   (stem/lemma map), one word replaced by a synonym (thesaurus), and two words swapped;
3. ``hyp = ref`` (the reference scored against itself), which must give 1.0.

The report is a Markdown table (``docs/languages.md`` holds one); the exit status is 1 when any
language failed to install or score or when a ``hyp = ref`` score is not 1.0.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from .paths import ROOT

__all__ = ["LanguageResult", "wheel_languages", "bundle_pair", "data_pair", "run_languages", "format_table"]

_LOG = logging.getLogger("meteor_lite_builders.checks")

#: Segments read from a data file.
SEGMENTS = 20

#: Where a language's text comes from in ../shared/data: (file, format, first system or None).
DATA_FILES: Dict[str, str] = {
    "de": "wmt21/newstest2021.en-de.systems.tsv.gz",
    "cz": "wmt21/newstest2021.en-cs.systems.tsv.gz",
    "ru": "wmt21/newstest2021.en-ru.systems.tsv.gz",
    "zh": "wmt21/newstest2021.en-zh.systems.tsv.gz",
    "ja": "wmt21/newstest2021.en-ja.systems.tsv.gz",
    "fr": "wmt21/newstest2021.de-fr.systems.tsv.gz",
    "es": "mqm/biomed2021.en-es.dev.mqm.tsv.gz",
}


@dataclass
class LanguageResult:
    """One language's install and score."""

    lang: str
    kind: str  # "official" or "recipe"
    install_rc: int = -1
    install_seconds: float = 0.0
    bundle: str = ""  # name version @checksum
    absent: List[str] = field(default_factory=list)  # the absent-source lines of the install
    install_error: str = ""
    text: str = ""  # where HYP/REF come from
    score_rc: int = -1
    score: str = ""
    modules: str = ""
    signature: str = ""
    warnings: List[str] = field(default_factory=list)
    identity: str = ""  # the hyp = ref score
    score_error: str = ""

    @property
    def ok(self) -> bool:
        """Installed, scored, and hyp = ref scored 1.0."""
        return self.install_rc == 0 and self.score_rc == 0 and self.identity in ("1.0", "1")


def wheel_languages(recipes_dir: Path) -> List[Tuple[str, str]]:
    """``(language, kind)`` of every shipped recipe's language: Meteor 1.5's first (official imports), then the rest."""
    from ..official.release import LANGUAGE_NAMES
    from ..recipes.model import load_recipe, recipe_files

    langs = sorted({load_recipe(f).language for f in recipe_files([recipes_dir])})
    official = [lang for lang in LANGUAGE_NAMES if lang in langs]
    return [(lang, "official") for lang in official] + [(lang, "recipe") for lang in langs if lang not in LANGUAGE_NAMES]


def _rank(text: str) -> str:
    """A fixed, content-independent order (so that the words chosen are not all from the start of the alphabet)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _word_ok(w: str) -> bool:
    return w.isalpha() and len(w) >= 3


def bundle_pair(bundle: Path) -> Tuple[str, str]:
    """A (hypothesis, reference) pair from a bundle's own resources (see the module docstring)."""
    con = sqlite3.connect(f"file:{bundle}?mode=ro", uri=True)
    try:
        tables = {r[0] for r in con.execute("select name from sqlite_master where type='table'")}
        fw = {r[0] for r in con.execute("select word from function_words")} if "function_words" in tables else set()
        groups: List[List[str]] = []
        words: List[str] = []
        if "stems" in tables:
            rows = con.execute("select stem, group_concat(word, char(9)) from stems group by stem having count(*) >= 2")
            groups = sorted(([w for w in ws.split("\t") if _word_ok(w) and w not in fw] for _s, ws in rows), key=lambda g: _rank("".join(g)))
            groups = [g for g in groups if len(g) >= 2]
            words += [r[0] for r in con.execute("select word from stems") if _word_ok(r[0]) and r[0] not in fw]
        syn: List[List[str]] = []
        if "synsets" in tables:
            rows = con.execute("select synset, group_concat(word, char(9)) from synsets group by synset having count(*) >= 2")
            syn = sorted(([w for w in ws.split("\t") if _word_ok(w) and w not in fw] for _i, ws in rows), key=lambda g: _rank("".join(g)))
            syn = [g for g in syn if len(g) >= 2]
            words += [w for g in syn for w in g]
        words += sorted(w for w in fw if _word_ok(w))
    finally:
        con.close()
    used: set = set()
    ref: List[str] = []
    hyp: List[str] = []
    for g in groups[:2]:  # two words in another form of the same stem
        ref.append(g[0])
        hyp.append(g[1])
        used.update(g)
    for g in syn[:1]:  # one synonym
        if not used & set(g):
            ref.append(g[0])
            hyp.append(g[1])
            used.update(g)
    rest = [w for w in sorted(set(words), key=_rank) if w not in used]
    fill = rest[: max(0, 6 - len(ref))]
    if len(fill) >= 2:  # two words swapped
        fill[-2], fill[-1] = fill[-1], fill[-2]
        ref += [fill[i] for i in range(len(fill) - 2)] + [fill[-1], fill[-2]]
        hyp += fill
    else:
        ref += fill
        hyp += fill
    if not ref:
        raise ValueError(f"{bundle}: no word to make a sentence of")
    return " ".join(hyp), " ".join(ref)


def data_pair(lang: str, data: Path) -> Optional[Tuple[str, List[str], List[str]]]:
    """``(description, hyps, refs)``: the first :data:`SEGMENTS` segments of the first system of the language's data, or None."""
    if lang == "en":
        hyp = (data / "meteor-example" / "system1.hyp").read_text(encoding="utf-8").splitlines()[:SEGMENTS]
        ref = (data / "meteor-example" / "reference").read_text(encoding="utf-8").splitlines()[:SEGMENTS]
        return f"meteor-example system1, {SEGMENTS} segments", hyp, ref
    rel = DATA_FILES.get(lang)
    if rel is None or not (data / rel).is_file():
        return None
    with gzip.open(data / rel, "rt", encoding="utf-8") as f:
        header = next(f).rstrip("\n").split("\t")
        ih, ir, isys = header.index("hyp"), header.index("ref" if "ref" in header else "ref_A"), header.index("system")
        hyps: List[str] = []
        refs: List[str] = []
        system = None
        for line in f:
            c = line.rstrip("\n").split("\t")
            if system is None:
                system = c[isys]
            if c[isys] == system and c[ih].strip() and c[ir].strip():
                hyps.append(c[ih])
                refs.append(c[ir])
                if len(hyps) == SEGMENTS:
                    break
    return f"{Path(rel).name.split('.tsv')[0]} {system}, {len(hyps)} segments", hyps, refs


def build_wheel(out_dir: Path) -> Path:
    """The project's wheel, built offline into ``out_dir``."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out_dir), str(ROOT)],
                   check=True, stdout=subprocess.DEVNULL)
    wheels = sorted(out_dir.glob("meteor_lite-*.whl"))
    if not wheels:
        raise RuntimeError(f"no wheel in {out_dir}")
    return wheels[-1]


def make_venv(venv: Path, wheel: Path) -> None:
    """A new venv at ``venv`` with ``wheel[official,build,lemmas]``."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", f"{wheel}[official,build,lemmas]"], check=True)


def _line(prefix: str, text: str) -> str:
    for ln in text.splitlines():
        if ln.startswith(prefix):
            return ln[len(prefix):].strip()
    return ""


def _run_one(lang: str, kind: str, exe: Path, env: Dict[str, str], cwd: Path, data: Path, user_dir: Path) -> LanguageResult:
    res = LanguageResult(lang, kind)
    t0 = time.monotonic()
    p = subprocess.run([str(exe), "bundle", "install", lang], cwd=cwd, env=env, capture_output=True, text=True)
    res.install_seconds = time.monotonic() - t0
    res.install_rc = p.returncode
    res.absent = [ln for ln in p.stderr.splitlines() if "is not installed; it would add" in ln]
    if p.returncode != 0:
        res.install_error = (p.stderr.strip().splitlines() or ["?"])[-1]
        return res
    m = re.search(r"\((\S+ \S+ @\w+),", p.stdout)
    res.bundle = m.group(1) if m else ""
    path = Path(p.stdout.split()[1]) if p.stdout.startswith(("installed", "kept")) else user_dir / f"{lang}.sqlite"
    found = data_pair(lang, data)
    if found is not None:
        res.text, hyps, refs = found
    else:
        hyp, ref = bundle_pair(path)
        res.text = f"from the bundle: {hyp} / {ref}"
        hyps, refs = [hyp], [ref]
    (cwd / "hyp.txt").write_text("\n".join(hyps) + "\n", encoding="utf-8")
    (cwd / "ref.txt").write_text("\n".join(refs) + "\n", encoding="utf-8")
    s = subprocess.run([str(exe), "score", "hyp.txt", "ref.txt", "--lang", lang, "--norm"], cwd=cwd, env=env,
                       capture_output=True, text=True)
    res.score_rc = s.returncode
    if s.returncode != 0:
        res.score_error = (s.stderr.strip().splitlines() or ["?"])[-1]
        return res
    res.score = _line("Final score:", s.stdout)
    res.modules = _line("Modules:", s.stdout)
    res.signature = _line("Signature:", s.stdout)
    res.warnings = [ln for ln in s.stderr.splitlines() if ln.strip()]
    i = subprocess.run([str(exe), "score", "ref.txt", "ref.txt", "--lang", lang, "--norm", "-q"], cwd=cwd, env=env,
                       capture_output=True, text=True)
    res.identity = i.stdout.strip() if i.returncode == 0 else f"exit {i.returncode}"
    return res


def run_languages(data: Path, *, venv: Optional[Path] = None, wheel: Optional[Path] = None,
                  langs: Optional[Sequence[str]] = None, work: Optional[Path] = None,
                  out: Optional[Path] = None) -> List[LanguageResult]:
    """Install and score every language (or ``langs``) from the wheel in a fresh venv (module docstring);
    the table so far is rewritten at ``out`` after each language."""
    work = work or Path(tempfile.mkdtemp(prefix="meteor-lite-wheel-"))
    work.mkdir(parents=True, exist_ok=True)
    if venv is None or not (venv / "bin" / "meteor-lite").exists():
        if wheel is None:
            _LOG.info("building the wheel")
            wheel = build_wheel(work / "wheel")
        venv = venv or work / "venv"
        _LOG.info(f"installing {wheel.name}[official,build,lemmas] into {venv}")
        make_venv(venv, wheel)
    exe = venv / "bin" / "meteor-lite"
    home = work / "home"
    cwd = work / "cwd"
    for d in (home, cwd):
        d.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("METEOR_LITE_BUNDLE_PATH", "PYTHONPATH", "XDG_DATA_HOME", "VIRTUAL_ENV")}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "share"))
    user_dir = home / "share" / "meteor-lite" / "bundles"
    shipped = wheel_languages(ROOT / "resources" / "recipes")
    chosen = [(lang, kind) for lang, kind in shipped if not langs or lang in langs]
    results = []
    for n, (lang, kind) in enumerate(chosen, 1):
        r = _run_one(lang, kind, exe, env, cwd, data, user_dir)
        results.append(r)
        if out is not None:
            out.write_text(format_table(results), encoding="utf-8")
        _LOG.info(f"[{n}/{len(chosen)}] {lang}: install {r.install_rc} ({r.install_seconds:.1f} s) score {r.score_rc} "
                  f"{r.score} identity {r.identity} {r.modules} {r.install_error or r.score_error}")
    return results


def _short(text: str, width: int = 90) -> str:
    """An error line cut to ``width`` characters (the table's cell; the full line follows the table)."""
    return text if len(text) <= width else text[: width - 1] + "…"


def format_table(results: Sequence[LanguageResult]) -> str:
    """The Markdown table of the results, then the absent sources and the failures."""
    lines = ["| lang | install | s | bundle | modules (signature `mods:`) | score | hyp = ref | text |",
             "| --- | --- | ---: | --- | --- | ---: | ---: | --- |"]
    for r in results:
        mods = re.search(r"\|mods:([^|]*)\|", r.signature)
        text = r.text.replace("|", "\\|")
        lines.append(f"| `{r.lang}` | {r.kind} | {r.install_seconds:.1f} | {r.bundle or _short(r.install_error)} | "
                     f"{mods.group(1) if mods else _short(r.score_error)} | {r.score} | {r.identity} | {text} |")
    absent = [ln for r in results for ln in r.absent]
    failed = [r for r in results if not r.ok]
    lines.append("")
    lines.append(f"{len(results)} languages; {len(results) - len(failed)} installed and scored (hyp = ref 1.0); "
                 f"{len(absent)} absent optional sources")
    lines += [f"absent: {ln}" for ln in absent]
    lines += [f"FAILED {r.lang}: {r.install_error or r.score_error or 'hyp = ref ' + r.identity}" for r in failed]
    return "\n".join(lines) + "\n"
