"""The scorer's options of the command line (meteor_lite/cli/scorer_options.py): declared once, read back whole.

Every flag of :data:`SCORER_FLAGS` is a field of :class:`ScorerOptions` and the other way round; every flag given
on the command line of each command that offers it comes back in its field (and changes no other); every field
reaches the :class:`~meteor_lite.Meteor` scorer it builds; and a command's parser holds no scorer-like option
outside the shared ones.
"""

from __future__ import annotations

import argparse
from dataclasses import fields, replace
from typing import Any, Callable, Dict, List, Tuple

import pytest

from meteor_lite.cli.scorer_options import SCORER_FLAGS, ScorerOptions

#: Per option that takes a value: what to write on the command line and the field's value read back.
VALUES: Dict[str, Tuple[List[str], Any]] = {
    "lang": (["de"], "de"),
    "task": (["adq"], "adq"),
    "params": (["0.5 0.25,1 0.125"], (0.5, 0.25, 1.0, 0.125)),
    "modules": (["exact stem"], ("exact", "stem")),
    "weights": (["1 0.5"], (1.0, 0.5)),
    "beam": (["7"], 7),
    "tokenize": (["char"], "char"),
    "bundle": (["some/bundle.sqlite"], "some/bundle.sqlite"),
    "jobs": (["3"], 3),
}

#: What each command offers besides the scorer's options (a new option there is listed here, or is the scorer's).
OWN_OPTIONS = {
    "score": {"help", "hypothesis", "references", "refs_per_hyp", "fmt", "quiet", "tsv", "sgml", "system_column",
              "segment_column", "hyp_column", "ref_column", "segment_file"},
    "compare": {"help", "files", "refs", "names", "tsv", "baseline", "systems", "resamples", "trials", "seed", "fmt"},
    "report": {"help", "files", "refs", "names", "tsv", "baseline", "systems", "resamples", "trials", "seed", "html",
               "examples", "title"},
    "align": {"help", "hypothesis", "reference", "align_type", "fmt", "out", "title", "matrix"},
}
#: Positional arguments each command needs to parse.
POSITIONALS = {"score": ["h", "r"], "compare": [], "report": ["--html", "x.html"], "align": ["h", "r"]}


def _parser(command: str) -> argparse.ArgumentParser:
    from importlib import import_module

    build: Callable[[], argparse.ArgumentParser] = import_module(f"meteor_lite.cli.{command}").build_parser
    return build()


def _offered(parser: argparse.ArgumentParser) -> Dict[str, argparse.Action]:
    return {a.dest: a for a in parser._actions}  # noqa: SLF001 - the parser's own list of what it accepts


def test_every_flag_is_a_field_and_every_field_a_flag() -> None:
    assert list(SCORER_FLAGS) == [f.name for f in fields(ScorerOptions)]


def test_every_option_that_takes_a_value_has_a_sample_here() -> None:
    takes_value = {d for d, f in SCORER_FLAGS.items() if f.keywords.get("action") != "store_true"}
    assert takes_value == set(VALUES)


def _given(dest: str, action: argparse.Action) -> Tuple[List[str], Any]:
    """The command line giving option ``dest`` a value other than its default, and that value as read back."""
    if isinstance(action, argparse._StoreTrueAction):  # noqa: SLF001
        return [action.option_strings[0]], True
    words, value = VALUES[dest]
    return [action.option_strings[0], *words], value


@pytest.mark.parametrize("command", sorted(OWN_OPTIONS))
def test_every_shared_flag_round_trips(command: str) -> None:
    parser = _parser(command)
    offered = _offered(parser)
    base = ScorerOptions.from_args(parser.parse_intermixed_args(POSITIONALS[command]))
    shared = [d for d in SCORER_FLAGS if d in offered]
    assert shared, command
    for dest in shared:
        argv, value = _given(dest, offered[dest])
        read = ScorerOptions.from_args(parser.parse_intermixed_args([*POSITIONALS[command], *argv]))
        assert getattr(read, dest) == value, (command, dest)
        assert read == replace(base, **{dest: value}), f"{command} {' '.join(argv)} changed another field"


@pytest.mark.parametrize("command", sorted(OWN_OPTIONS))
def test_a_command_has_no_scorer_option_outside_the_shared_ones(command: str) -> None:
    """An option of a command is the scorer's (:data:`SCORER_FLAGS`) or listed here as the command's own."""
    offered = set(_offered(_parser(command)))
    assert offered - set(SCORER_FLAGS) == OWN_OPTIONS[command]


def test_commands_that_score_offer_every_option_and_align_those_of_an_alignment() -> None:
    from meteor_lite.cli.align import ALIGN_SCORER_OPTIONS

    for command in ("score", "compare", "report"):
        assert set(SCORER_FLAGS) <= set(_offered(_parser(command))), command
    assert set(SCORER_FLAGS) & set(_offered(_parser("align"))) == set(ALIGN_SCORER_OPTIONS)


def test_help_texts_and_defaults_are_the_declared_ones() -> None:
    """score, compare and report show each option as declared (align words some of its own)."""
    for command in ("score", "compare", "report"):
        offered = _offered(_parser(command))
        for dest, flag in SCORER_FLAGS.items():
            action = offered[dest]
            assert tuple(action.option_strings) == flag.names
            assert action.help == flag.keywords["help"]
            if "default" in flag.keywords:
                assert action.default == flag.keywords["default"]


def test_repeated_and_comma_separated_modules_are_one_list() -> None:
    parser = _parser("score")
    read = ScorerOptions.from_args(parser.parse_intermixed_args(["h", "r", "-m", "exact", "-m", "stem,synonym"]))
    assert read.modules == ("exact", "stem", "synonym")


class _Recorder:
    """Stands for :class:`~meteor_lite.Meteor`: keeps what it was made with."""

    def __init__(self, lang: str, **keywords: Any):
        self.keywords = {"lang": lang, **keywords}


def test_every_field_reaches_the_scorer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each field changed alone changes what the scorer is made with (``jobs``: how many processes score, no
    option of the scorer itself)."""
    monkeypatch.setattr("meteor_lite.meteor.Meteor", _Recorder)
    parser = _parser("score")
    offered = _offered(parser)
    made_default = ScorerOptions().scorer().keywords  # type: ignore[attr-defined]
    assert made_default["lang"] == "en" and made_default["beam"] == SCORER_FLAGS["beam"].keywords["default"]
    for f in fields(ScorerOptions):
        if f.name == "jobs":
            continue
        argv, _ = _given(f.name, offered[f.name])
        options = ScorerOptions.from_args(parser.parse_intermixed_args(["h", "r", *argv]))
        made = options.scorer().keywords  # type: ignore[attr-defined]
        changed = {k for k in made if made[k] != made_default[k]}
        assert changed == {f.name}, f.name


def test_the_language_of_the_input_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("meteor_lite.meteor.Meteor", _Recorder)
    assert ScorerOptions().scorer("de").keywords["lang"] == "de"  # type: ignore[attr-defined]
    assert ScorerOptions(lang="fr").scorer("de").keywords["lang"] == "fr"  # type: ignore[attr-defined]


def test_params_that_are_not_numbers_are_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    parser = _parser("score")
    with pytest.raises(SystemExit) as exc:
        ScorerOptions.from_args(parser.parse_intermixed_args(["h", "r", "--params", "0.5 x"]))
    assert exc.value.code == 2
    assert "--params takes numbers separated by spaces, got '0.5 x'" in capsys.readouterr().err
