"""The perturbation suite (``meteor-build check perturbations``) and the word-order property of every shipped configuration.

Every configuration meteor-lite ships (each Meteor 1.5 task preset a language's installed bundle can score, the
language's default, the universal set, each ``mqm`` set) must punish word salad: references with their words
reversed score below 0.75 on average and never 1.0.  The references are the first distinct ones of these files
of ``../shared/data`` (a seeded sample of them), one per target language:

* en: ``wmt21/newstest2021.de-en.da.tsv.gz``
* de: ``wmt21/newstest2021.en-de.systems.tsv.gz``
* cz: ``wmt21/newstest2021.en-cs.systems.tsv.gz``
* ru: ``wmt21/newstest2021.en-ru.systems.tsv.gz``
* zh: ``wmt21/newstest2021.en-zh.systems.tsv.gz``
* ja: ``wmt21/newstest2021.en-ja.systems.tsv.gz``
* fr: ``wmt21/newstest2021.de-fr.systems.tsv.gz``
* es: ``mqm/biomed2021.en-es.dev.mqm.tsv.gz``
"""

from __future__ import annotations

import csv
import gzip
import random
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from meteor_lite import Meteor
from meteor_lite.errors import MeteorLiteError
from meteor_lite.languages import LANGUAGES, TASKS
from meteor_lite.tuned import shipped_tasks

pt = pytest.importorskip("meteor_lite_builders.checks.research.perturbations")

#: The file of ../shared/data whose references stand for each target language.
REFERENCE_FILES: Dict[str, str] = {
    "en": "wmt21/newstest2021.de-en.da.tsv.gz",
    "de": "wmt21/newstest2021.en-de.systems.tsv.gz",
    "cz": "wmt21/newstest2021.en-cs.systems.tsv.gz",
    "ru": "wmt21/newstest2021.en-ru.systems.tsv.gz",
    "zh": "wmt21/newstest2021.en-zh.systems.tsv.gz",
    "ja": "wmt21/newstest2021.en-ja.systems.tsv.gz",
    "fr": "wmt21/newstest2021.de-fr.systems.tsv.gz",
    "es": "mqm/biomed2021.en-es.dev.mqm.tsv.gz",
}
#: References per language (a seeded sample of the first :data:`POOL` distinct ones).
SAMPLE = 40
POOL = 400
#: The word-order property.
MAX_MEAN_REVERSED = 0.75


def _references(path: Path) -> List[str]:
    seen: Dict[str, None] = {}
    with gzip.open(path, "rt", encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        col = "ref" if "ref" in (reader.fieldnames or []) else "ref_A"
        for row in reader:
            text = (row[col] or "").strip()
            if text:
                seen.setdefault(text, None)
            if len(seen) >= POOL:
                break
    pool = sorted(seen)
    return random.Random(0).sample(pool, min(SAMPLE, len(pool)))


def _ctx(lang: str) -> "pt.Context":
    return pt.Context(lang, frozenset({"the", "a", "of", "on", "der", "die", "das", "und", "的", "了"}))


def _scorers(lang: str) -> List[Tuple[str, Meteor]]:
    """Every configuration shipped for ``lang`` that its installed bundle can score."""
    out: List[Tuple[str, Meteor]] = []
    tasks = [t for t in TASKS if lang in LANGUAGES or t in ("li", "universal")]
    for task in tasks:
        for norm in (False, True):
            try:
                out.append((f"--task {task}{' --norm' if norm else ''}", Meteor(lang, task=task, norm=norm, quiet=True,
                                                                               strict_modules=True)))
            except MeteorLiteError:
                pass  # the preset's modules need a resource the installed bundle lacks (a paraphrase table)
    try:
        out.append(("default", Meteor(lang, quiet=True)))
        out.append(("default --norm", Meteor(lang, norm=True, quiet=True)))
    except MeteorLiteError:
        pass
    u = pt.universal_meteor(lang)
    if u is not None:
        out.append(("universal set", u))
    if "mqm" in shipped_tasks(lang):
        out.append(("--task mqm", Meteor(lang, task="mqm", quiet=True)))
    return out


@pytest.mark.parametrize("lang", sorted(REFERENCE_FILES))
def test_reversed_references_score_low_in_every_shipped_configuration(lang: str, shared_data: Path,
                                                                      bundle_dir: Path) -> None:
    if not (bundle_dir / f"{lang}.sqlite").is_file():
        pytest.skip(f"needs the {lang} bundle (make bundles; zh and ja: meteor-build recipe resources/recipes/{lang}.toml)")
    refs = _references(shared_data / REFERENCE_FILES[lang])
    ctx = _ctx(lang)
    rng = random.Random(0)
    pairs = [(rev, r) for r in refs if (rev := pt.reverse(r, ctx, rng)) is not None]
    assert len(pairs) >= SAMPLE // 2
    scorers = _scorers(lang)
    assert any(label == "universal set" or label.startswith("default") for label, _ in scorers)
    failures = []
    for label, m in scorers:
        scores = [s.score for s in m.score_pairs(pairs)]
        assert all(abs(s.score - 1.0) < 1e-9 for s in m.score_pairs([(r, r) for _, r in pairs]))
        mean = sum(scores) / len(scores)
        if not (mean < MAX_MEAN_REVERSED and max(scores) < 1.0):
            failures.append(f"{label}: reversed mean {mean:.3f}, highest {max(scores):.3f}")
    assert not failures, f"{lang}: " + "; ".join(failures)


def test_reversed_sentence_of_distinct_words_scores_one_minus_gamma(en_bundle: Path) -> None:
    # n distinct words reversed: every word matches, each one its own chunk, so the fragmentation is
    # chunks / matches = 1 and the penalty is gamma * 1 ** beta = gamma, whatever beta: the score is 1 - gamma
    words = "alpha bravo charlie delta echo foxtrot golf hotel".split()
    for gamma in (0.0, 0.3, 0.6):
        m = Meteor("en", params=[0.9, 1.3, gamma, 0.8], modules=["exact"], bundle=en_bundle, quiet=True)
        s = m.score_segment(" ".join(reversed(words)), " ".join(words))
        assert s.score == pytest.approx(1.0 - gamma)


# --- the perturbation functions ---------------------------------------------------------------------------

RNG = random.Random


def test_word_order_perturbations() -> None:
    ctx = _ctx("en")
    s = "the cat sat on the mat ."
    assert pt.reverse(s, ctx, RNG(0)) == ". mat the on sat cat the"
    shuffled = pt.shuffle(s, ctx, RNG(0))
    assert shuffled is not None and shuffled != s and sorted(shuffled.split()) == sorted(s.split())
    swapped = pt.swap_neighbours(s, ctx, RNG(0))
    assert swapped is not None
    a, b = s.split(), swapped.split()
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    assert len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
    assert pt.reverse("word", ctx, RNG(0)) is None
    assert pt.shuffle("so so", ctx, RNG(0)) is None


def test_char_based_languages_move_characters_and_keep_latin_runs() -> None:
    ctx = _ctx("zh")
    assert pt.char_units("我们用GPU 4个") == ["我", "们", "用", "GPU", "4", "个"]
    assert pt.reverse("我爱北京", ctx, RNG(0)) == "京北爱我"
    assert pt.join_units(["用", "GPU", "4", "个"], True) == "用GPU 4个"


def test_deletions_and_duplication() -> None:
    ctx = _ctx("en")
    s = "the patient received treatment"
    assert pt.drop_function(s, ctx, RNG(0)) == "patient received treatment"
    dropped = pt.drop_content(s, ctx, RNG(1))
    assert dropped is not None and len(dropped.split()) == 3 and "the" in dropped.split()
    dup = pt.duplicate(s, ctx, RNG(2))
    assert dup is not None
    words = dup.split()
    assert len(words) == 5 and any(words[i] == words[i + 1] != "the" for i in range(4))
    assert pt.drop_function("patient received treatment", ctx, RNG(0)) is None


def test_casing_and_punctuation() -> None:
    ctx = _ctx("en")
    assert pt.case_first("The cat.", ctx, RNG(0)) == "the cat."
    assert pt.case_first("« the cat", ctx, RNG(0)) == "« The cat"
    assert pt.case_all("The cat.", ctx, RNG(0)) == "THE CAT."
    assert pt.case_all("THE CAT", ctx, RNG(0)) is None
    assert pt.punct_final_removed("The cat sat.", ctx, RNG(0)) == "The cat sat"
    assert pt.punct_final_removed('He said "yes!"', ctx, RNG(0)) == 'He said "yes"'
    assert pt.punct_final_removed("No stop here", ctx, RNG(0)) is None
    added = pt.punct_added("one two three", ctx, RNG(0))
    assert added in ("one, two three", "one two, three")
    assert pt.punct_added("我们去", _ctx("zh"), RNG(0)) in ("我，们去", "我们，去")


def test_number_negation_untranslated_typos() -> None:
    ctx = _ctx("en")
    assert pt.number_changed("In 2019 it rose", ctx, RNG(0)) in ("In 3019 it rose", "In 2119 it rose",
                                                                   "In 2029 it rose", "In 2010 it rose")
    assert pt.number_changed("no digits", ctx, RNG(0)) is None
    assert pt.negation("It is not safe", ctx, RNG(0)) == "It is safe"
    assert pt.negation("It is safe", ctx, RNG(0)) == "It is not safe"
    assert pt.negation("Cats sleep", ctx, RNG(0)) is None
    assert pt.negation("Das ist gut", _ctx("de"), RNG(0)) == "Das ist nicht gut"
    assert pt.negation("Ce n'est pas grave", _ctx("fr"), RNG(0)) == "Ce est grave"
    assert pt.negation("Ce est grave", _ctx("fr"), RNG(0)) == "Ce n'est pas grave"
    assert pt.negation("这是好的", _ctx("zh"), RNG(0)) == "这不是好的"
    assert pt.negation("这不是好的", _ctx("zh"), RNG(0)) == "这是好的"
    assert pt.negation("To není dobré", _ctx("cz"), RNG(0)) == "To je dobré"
    ctx.foreign["de"] = ["Krankenhaus"]
    assert pt.untranslated("the patient is", ctx, RNG(0), "de") == "the Krankenhaus is"
    assert pt.untranslated("the patient is", ctx, RNG(0), "he") is None
    dropped = pt.char_dropped("the patient", ctx, RNG(0))
    assert dropped is not None and dropped.startswith("the ") and len(dropped) == len("the patient") - 1
    assert dropped.split()[1][0] == "p" and dropped.split()[1][-1] == "t"
    swapped = pt.char_swapped("the patient", ctx, RNG(0))
    assert swapped is not None and sorted(swapped) == sorted("the patient") and swapped != "the patient"
    assert swapped.split()[1][0] == "p" and swapped.split()[1][-1] == "t"


def test_perturb_all_is_seeded_and_changes_every_copy() -> None:
    ctx = _ctx("en")
    ctx.foreign["de"] = ["Haus", "Garten"]
    item = pt.Item("en", "The 3 patients did not receive the treatment.", "ref", "de")
    first, again, other = pt.perturb_all(item, ctx, 0), pt.perturb_all(item, ctx, 0), pt.perturb_all(item, ctx, 1)
    assert first == again
    assert set(first) == set(pt.PERTURBATIONS)  # the sentence has a number, a negator, content and function words
    assert all(v != item.hyp for v in first.values())
    assert first["reverse"] == other["reverse"] and first["shuffle"] != other["shuffle"]


def test_report_counts_wins_strictly() -> None:
    ctx = _ctx("en")
    items = [pt.Item("en", "the cat sat on the mat", "the cat sat on the mat", "de")]

    def bag_of_words(hyps: List[str], refs: List[str]) -> List[float]:
        return [float(sorted(h.split()) == sorted(r.split())) for h, r in zip(hyps, refs)]

    rev = pt.reversed_scores(bag_of_words, items, ctx)
    assert rev == [1.0]  # a bag of words cannot tell a reversed sentence from the sentence
