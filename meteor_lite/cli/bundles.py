"""``meteor-lite bundle info|verify|list|install|remove``: inspect, install and remove resource bundles."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List

from .argtypes import positive_number
from .errors import EXIT_ERROR, Parser, fail

if TYPE_CHECKING:  # pragma: no cover
    import argparse

    from ..config import TunedTask

__all__ = ["run", "build_parser", "bundle_info", "bundle_verify", "bundle_list", "bundle_install", "bundle_remove",
           "bundle_available"]

_LIST_HELP = """Bundles the scorer can find, in lookup order, with where each comes from.

'*' marks the bundle '--lang X' uses for the language X it is named after (the
first <X>.sqlite in this order): $METEOR_LITE_BUNDLE_PATH (env path), then the
user bundle directory (user dir), then installed packs (pack DIST), then this
checkout's resources/bundles (checkout)."""


def build_parser() -> "argparse.ArgumentParser":
    """The ``meteor-lite bundle`` argument parser and its sub-commands."""
    from argparse import SUPPRESS

    p = Parser(prog="meteor-lite bundle", description="Inspect, install and remove resource bundles.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    info = sub.add_parser("info", help="Language, versions, provenance, table counts, tuned tasks and checksum of a bundle.")
    info.add_argument("path", metavar="BUNDLE", help="Bundle file, or the name of a bundle on the search path (en).")
    info.add_argument("--json", dest="as_json", action="store_true", help="Print JSON.")
    verify = sub.add_parser("verify", help="Check a bundle's integrity, schema and content checksum.")
    verify.add_argument("path", metavar="BUNDLE", help="Bundle file, or the name of a bundle on the search path (en).")
    sub.add_parser(
        "list", help="Bundles the scorer can find, where each comes from, and which one --lang uses.",
        description=_LIST_HELP,
    )
    sub.add_parser(
        "available", help="Languages 'bundle install LANG' can install here, and what each bundle would contain.",
        description="One line per language: the official Meteor 1.5 imports (pycocoevalcap) and every recipe shipped "
        "with meteor-lite (built locally from wordfreq, simplemma, Debian's Hunspell and MyThes files), with the "
        "resources the bundle would have from the sources present, and how to get the absent ones.",
    )
    inst = sub.add_parser(
        "install", help="Install a language (en, de, ca, ...), a bundle file or URL, or a pack from an index, into the "
        "user bundle directory.",
        description="Install into the user bundle directory ($XDG_DATA_HOME/meteor-lite/bundles, default "
        "~/.local/share/meteor-lite/bundles). SOURCE is one of: a language of the official Meteor 1.5 release "
        "(en cz de es fr ru da fi hu it nl no pt ro se tr), imported from the installed pycocoevalcap package "
        "(pip install 'meteor-lite[official]'; no Java needed: the same bundle as make bundles'); any other language with a recipe "
        "shipped with meteor-lite (ca, pl, zh, ...; or a recipe's bundle name, de-wordfreq), built here from the "
        "sources it names that are installed (pip install 'meteor-lite[build,lemmas]'; meteor-lite bundle available "
        "lists them); with --index, a bundle name looked up in a pack index (meteor-build pack --index), no build; "
        "or a bundle file, as a path or an http(s) URL (plain, .xz, or .zst with the zstandard module). "
        "Checksums are verified before the bundle is moved into place; on any error nothing is left behind. "
        "A bundle already installed under the name is replaced by another one only with --force.",
    )
    inst.add_argument("source", metavar="SOURCE", help="Language (en), bundle name (with --index), or bundle file path or URL.")
    inst.add_argument("--index", metavar="URL", help="Pack index (directory, file:// or http(s) URL) to look SOURCE up in.")
    inst.add_argument(
        "--stem-corrections", action="store_true",
        help="Official import with the jar's stem-corrections table (the words where Meteor 1.5's stemmer differs from "
        "snowballstemmer, for other tools; the scorer does not read it: same scores, another checksum). Needs Java.",
    )
    # no table is now the default: still accepted, hidden
    inst.add_argument("--snowball-stems", action="store_true", help=SUPPRESS)
    inst.add_argument("--sha256", metavar="HEX", help="Expected SHA-256 of the file as given (compressed, if it is).")
    inst.add_argument("--name", help="Install as <NAME>.sqlite (default: the language, the recipe's bundle name, or from "
                      "SOURCE, e.g. en.sqlite.xz -> en); --bundle NAME scores with it.")
    inst.add_argument("--force", action="store_true",
                      help="Replace a bundle already installed under the name by another one (default: refuse).")
    inst.add_argument(
        "--paraphrase", metavar="FILE",
        help="Official import with this paraphrase table in Meteor's format (e.g. the full Meteor 1.5 distribution's "
        "paraphrase-de.gz, or meteor-build paraphrases --meteor-file): the scores of the jar run with -a FILE.",
    )
    inst.add_argument("--timeout", type=positive_number, default=None, metavar="SECONDS",
                      help="Deadline of the whole download of a bundle file or URL (default: 3600).")
    inst.add_argument("--stall", type=positive_number, default=None, metavar="SECONDS",
                      help="Give up on a download that sends no byte for this long (default: 15, as pip).")
    inst.add_argument("--max-size", type=positive_number, default=None, metavar="MB",
                      help="Size cap of a bundle file or URL, received and decompressed, in MB (default: 2000).")
    remove = sub.add_parser("remove", help="Delete a bundle from the user bundle directory.")
    remove.add_argument("name", metavar="NAME", help="Bundle name (en, or en.sqlite).")
    return p


def run(argv: List[str]) -> int:
    """``meteor-lite bundle COMMAND ...``; return the exit code."""
    a = build_parser().parse_args(argv)
    if a.command == "info":
        bundle_info(a.path, a.as_json)
    elif a.command == "verify":
        bundle_verify(a.path)
    elif a.command == "list":
        bundle_list()
    elif a.command == "install":
        from ..resources.fetch import interrupt_on_sigterm

        with interrupt_on_sigterm():  # SIGTERM as Ctrl-C: every builder's and installer's cleanup runs
            bundle_install(a.source, a.sha256, a.name, index=a.index, stem_corrections=a.stem_corrections,
                           timeout=a.timeout, max_size_mb=a.max_size, force=a.force, paraphrase=a.paraphrase,
                           stall=a.stall)
    elif a.command == "available":
        bundle_available()
    else:
        bundle_remove(a.name)
    return 0


def _bundle_path(given: str) -> str:
    """``given`` when it is a file (or looks like a path); else the bundle of that name on the search path."""
    import os

    from ..resources.locate import BUNDLE_SUFFIX, find_bundle

    if os.path.exists(given) or os.sep in given or "/" in given or given.endswith(BUNDLE_SUFFIX):
        return given
    found = find_bundle(given)
    if found is None:
        raise fail(f"{given}: no such file, and no bundle of that name on the search path (meteor-lite bundle list)")
    return str(found)


def _out(line: str) -> None:
    """Print one line of a bundle's description: its metadata are data, escaped so they never add a line."""
    from ..printable import one_line

    print(one_line(line))


def bundle_info(path: str, as_json: bool = False) -> None:
    """Language, versions, provenance, table counts and checksum of a bundle (a file, or a name on the search path)."""
    from ..config import TASKS_META_KEY, read_tuned_tasks
    from ..errors import BundleError, ConfigError
    from ..resources.bundle import Bundle
    from ..tuned import TASKS_RUN_META_KEY, merge_run_facts

    path = _bundle_path(path)
    try:
        with Bundle.open(path) as b:
            info = b.info()
            tasks = merge_run_facts(read_tuned_tasks(b.meta.get(TASKS_META_KEY), f"bundle {path}"), b.meta.get(TASKS_RUN_META_KEY))
    except (BundleError, ConfigError) as exc:
        raise fail(str(exc)) from None
    info["tasks"] = {name: {**t.to_dict(), "hash": t.short_hash} for name, t in sorted(tasks.items())}
    from ..tuned import shipped_tasks

    try:
        shipped = shipped_tasks(str(info["language"] or "")) if info["language"] else {}
    except ConfigError as exc:
        raise fail(str(exc)) from None
    info["shipped_tasks"] = {name: {**t.to_dict(), "hash": t.short_hash} for name, t in sorted(shipped.items())}
    if as_json:
        import json

        print(json.dumps(info, indent=1, ensure_ascii=False))
        return
    _out(f"{info['path']}")
    for key in ("language", "name", "version", "schema_version", "created_by", "content_checksum"):
        _out(f"  {key + ':':17} {info[key]}")
    if info["stemmer"]:
        st: Dict[str, str] = info["stemmer"]  # type: ignore[assignment]
        _out(f"  {'stemmer:':17} {st.get('package')} {st.get('version')} ({st.get('language')})")
    _out("  counts:")
    counts: Dict[str, int] = info["counts"]  # type: ignore[assignment]
    for table, n in counts.items():
        _out(f"    {table:22} {n}")
    _out("  sources:")
    sources: List[Dict[str, str]] = info["sources"]  # type: ignore[assignment]
    for s in sources:
        _out(f"    {s['name']}: {s['description']} [{s['licence']}] sha256:{s['sha256'][:12]}")
    _out("  tuned tasks (meteor-lite score --task NAME):" if tasks else "  tuned tasks:       none")
    for name, t in sorted(tasks.items()):
        _out(f"    {name}@{t.short_hash}: {_task_line(t)}")
        for line in _provenance_lines(t.provenance):
            _out(f"      {line}")
    if shipped:
        _out(f"  tuned sets shipped with meteor-lite for {info['language']} (used with any {info['language']} bundle; "
              "the bundle's own set of the same name wins):")
    for name, t in sorted(shipped.items()):
        _out(f"    {name}@{t.short_hash}: {'--' + t.norm + ' ' if t.norm else ''}{_task_line(t)}")
        for line in _provenance_lines(t.provenance):
            _out(f"      {line}")


def _task_line(t: "TunedTask") -> str:
    """``-p 'a b g d' -m '...' -w '...'`` of a tuned task (what ``meteor-lite score`` would be given; ``--ch`` first
    for a set over characters)."""
    num = lambda x: f"{x:g}"  # noqa: E731
    return (f"{'--ch ' if t.unit == 'char' else ''}-p '{' '.join(num(v) for v in (t.alpha, t.beta, t.gamma, t.delta))}' "
            f"-m '{' '.join(t.modules)}' -w '{' '.join(num(w) for w in t.weights)}'")


def _provenance_lines(prov: Dict[str, object]) -> List[str]:
    """The provenance of a tuned task, one ``key: value`` line each (nested values as compact JSON)."""
    import json

    out = []
    for key in sorted(prov):
        value = prov[key]
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
        out.append(f"{key}: {text}")
    return out


def bundle_verify(path: str) -> None:
    """Check a bundle's integrity, schema and content checksum (a file, or a name on the search path)."""
    from ..errors import BundleError
    from ..resources.bundle import Bundle

    path = _bundle_path(path)
    try:
        with Bundle.open(path) as b:
            problems = b.verify()
    except BundleError as exc:
        raise fail(str(exc)) from None
    if problems:
        for p in problems:
            print(f"{path}: {p}", file=sys.stderr)
        raise SystemExit(EXIT_ERROR)
    print(f"{path}: ok")


def bundle_list() -> None:
    """Bundles the scorer can find, in lookup order; ``*`` marks the one ``--lang <name>`` uses.

    The first column is the name ``--bundle NAME`` (and ``bundle info|verify|remove NAME``) takes: the
    file name without ``.sqlite``; the second the bundle's language.
    """
    from ..errors import BundleError
    from ..resources.bundle import Bundle
    from ..resources.locate import bundle_search_path, locate_bundles

    names = set()
    found = False
    locs = locate_bundles()
    width = max([len(loc.name) for loc in locs] + [4])
    for loc in locs:
        first = loc.name not in names
        names.add(loc.name)
        try:
            with Bundle.open(loc.path) as b:
                lang, desc = b.language, f"{b.name} {b.version} @{b.checksum[:8]}"
        except BundleError as exc:
            _out(f"  {loc.name:{width}} ?    {loc.path}  (unreadable: {exc})  [{loc.describe()}]")
            continue
        found = True
        mark = "*" if first and lang == loc.name else ""
        _out(f"{mark:1} {loc.name:{width}} {lang:4} {desc:28} {loc.path}  [{loc.describe()}]")
    if not found:
        _out("no bundles found; searched: " + ", ".join(str(d) for d in bundle_search_path()) + ", installed packs")


def _is_name(source: str) -> bool:
    """A bare name (``en``, ``de-wordfreq``), not a path or URL: no separator, no file suffix, no such file."""
    import os
    import re

    return re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", source) is not None and not os.path.exists(source)


def bundle_install(
    source: str, sha256: "str | None" = None, name: "str | None" = None, *, index: "str | None" = None,
    stem_corrections: bool = False, timeout: "float | None" = None, max_size_mb: "float | None" = None,
    force: bool = False, paraphrase: "str | None" = None, stall: "float | None" = None,
) -> None:
    """Install into the user bundle directory: an official language, a shipped recipe's language (built here),
    a pack from an index, or a bundle file/URL."""
    from ..errors import BundleError
    from ..resources.fetch import DEFAULT_STALL
    from ..resources.install import DEFAULT_DEADLINE, DEFAULT_MAX_BYTES, install_bundle

    if index is not None and not _is_name(source):
        raise fail(f"--index takes a bundle name (e.g. de), not {source!r}")
    if index is None and _is_name(source):
        _install_language(source, name=name, force=force, stem_corrections=stem_corrections, paraphrase=paraphrase)
        return
    if paraphrase is not None:
        raise fail("--paraphrase FILE goes with an official language (bundle install de --paraphrase paraphrase-de.gz)")
    deadline = DEFAULT_DEADLINE if timeout is None else timeout
    max_bytes = DEFAULT_MAX_BYTES if max_size_mb is None else int(max_size_mb * 1_000_000)
    quiet_limit = DEFAULT_STALL if stall is None else stall
    try:
        if index is not None:
            from ..resources.index import install_from_index

            done = install_from_index(source, index, name=name, say=_say, deadline=deadline, max_bytes=max_bytes,
                                        stall=quiet_limit, force=force)
        else:
            done = install_bundle(source, sha256=sha256, name=name, deadline=deadline, max_bytes=max_bytes,
                                  stall=quiet_limit, force=force)
    except BundleError as exc:
        raise fail(str(exc)) from None
    except KeyboardInterrupt:
        raise fail("interrupted: nothing installed", 130) from None
    verb = "replaced" if done.replaced else "installed"
    _out(f"{verb} {done.path} ({done.bundle_name} {done.version} @{done.checksum[:8]}, {done.size / 1e6:.1f} MB, checksum verified)")


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _builders(module: str, what: str) -> Any:
    """A module of the builders (shipped in the same wheel; imported only here: the scorer never needs them)."""
    import importlib

    try:
        return importlib.import_module(f"meteor_lite_builders.{module}")
    except ImportError as exc:
        raise fail(f"{what}: the builders cannot be imported ({exc}): pip install 'meteor-lite[build]'") from None


def _install_language(source: str, *, name: "str | None", force: bool, stem_corrections: bool, paraphrase: "str | None") -> None:
    """``bundle install LANG``: Meteor 1.5's resources (pycocoevalcap), or a shipped recipe built here."""
    verb = "installed"
    from ..errors import MeteorLiteError
    from ..languages import language_alias

    release = _builders("official.release", f"bundle install {source}")
    official = release.LANGUAGE_NAMES
    lang = language_alias(source)
    if lang in official and not force and not stem_corrections and paraphrase is None:
        kept = _installed_import(lang, name)
        if kept is not None:  # decided before importing: the same release's import is there already
            _out(kept)
            return
    try:
        if lang in official:
            importer = _builders("official.user_install", f"bundle install {source}")
            path: Path = importer.install_official(
                lang, stem_corrections=stem_corrections, say=_say, name=name, force=force, paraphrase_file=paraphrase)
        else:
            shipped = _builders("recipes.shipped", f"bundle install {source}")
            recipe = shipped.find_shipped_recipe(source)
            if recipe is None and lang in NOT_INSTALLABLE:
                raise fail(f"bundle install {source}: {NOT_INSTALLABLE[lang]}")
            if recipe is None:
                raise fail(f"bundle install {source}: no official Meteor 1.5 language and no shipped recipe of that name "
                           "(meteor-lite bundle available lists them); a bundle file, a URL, or --index URL installs others")
            if paraphrase is not None:
                raise fail(f"--paraphrase FILE goes with the official Meteor 1.5 languages ({', '.join(official)}), "
                           f"not {source}: meteor-build recipe builds a bundle with a paraphrase-table source")
            path, built = shipped.install_recipe(recipe, name=name, force=force, say=_say)
            if not built:
                verb = "kept"
    except MeteorLiteError as exc:
        raise fail(str(exc)) from None
    except KeyboardInterrupt:
        raise fail("interrupted: nothing installed", 130) from None
    from ..resources.bundle import Bundle

    with Bundle.open(path) as b:
        _out(f"{verb} {path} ({b.name} {b.version} @{b.checksum[:8]}, {path.stat().st_size / 1e6:.1f} MB)")


#: Languages of the README's table that ``bundle install`` does not install, and what to do instead.
NOT_INSTALLABLE = {
    "th": "Thai has no bundle to install (no recipe ships: no Thai word list or thesaurus is packaged); score it "
          "without one: meteor-lite score HYP REF -l th --modules exact (character tokens), or build a bundle with "
          "meteor-build (docs/languages.md)",
    "ar-bw-red": "Meteor 1.5's Buckwalter Arabic (ar-bw-red) resources are inside the jar, not among the release files "
                 "meteor-lite imports; score it without them: meteor-lite score HYP REF -l ar-bw-red --modules exact "
                 "(meteor-jar ... -l ar-bw-red -m exact), or build a bundle with meteor-build",
}


def _installed_import(lang: str, name: "str | None") -> "str | None":
    """``kept ...`` when the user bundle directory holds this release's import of ``lang`` under the name (no
    stem-corrections table), else None (then the importer decides, after importing)."""
    import json

    from ..errors import BundleError
    from ..resources.bundle import Bundle
    from ..resources.locate import user_bundle_dir

    target = user_bundle_dir() / f"{name or lang}.sqlite"
    if not target.is_file():
        return None
    try:
        with Bundle.open(target) as b:
            params = json.loads(b.meta.get("build_params") or "{}")
            same = (params.get("builder") == "meteor-build import-official" and b.language == lang
                    and not params.get("stem_corrections"))
            label = f"{b.name} {b.version} @{b.checksum[:8]}"
    except (BundleError, OSError, ValueError):
        return None
    if not same:
        return None
    return (f"kept {target} ({label}, {target.stat().st_size / 1e6:.1f} MB): already installed from the official "
            "release; --force imports it again and replaces it")


def bundle_available() -> None:
    """What ``bundle install LANG`` can install here: the official imports and the shipped recipes, with what each
    bundle would contain from the sources present, and how to get the absent ones."""
    from ..errors import MeteorLiteError

    shipped = _builders("recipes.shipped", "bundle available")
    try:
        lines = shipped.available_lines()
    except MeteorLiteError as exc:
        raise fail(str(exc)) from None
    from ..resources.locate import locate_bundles

    installed: Dict[str, str] = {}
    for loc in locate_bundles():  # the first one of a name is the one used
        installed.setdefault(loc.name, loc.describe())
    names = [ln.split(" ", 1)[0] for ln in lines[1:] if not ln.startswith("building ")]
    here = [f"{n} ({installed[n]})" for n in names if n in installed]
    for line in lines:
        _out(line)
    _out("installed here: " + (", ".join(here) if here else "none of these yet") + " (meteor-lite bundle list shows where)")
    if any(" nothing yet" in ln for ln in lines):
        _out("'nothing yet': none of the recipe's sources is installed here, so a bundle built now would hold no table "
             "(the notes after it name what to install)")


def bundle_remove(name: str) -> None:
    """Delete a bundle from the user bundle directory (pack bundles: pip uninstall the pack)."""
    from ..errors import BundleError
    from ..resources.install import remove_bundle

    try:
        path = remove_bundle(name)
    except BundleError as exc:
        raise fail(str(exc)) from None
    print(f"removed {path}")
