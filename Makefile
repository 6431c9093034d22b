# Short commands the README names.  Everything installs into .venv from pyproject.toml.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
SHARED ?= ../shared
DATA   := $(SHARED)/data
BUNDLES := resources/bundles

.PHONY: install demo test check parity bench fixtures resources bundles clean accel

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[build,test,check,lemmas]'
	touch $@

install: $(VENV)/.installed

# The default English bundle, imported from the official Meteor 1.5 release.
$(BUNDLES)/en.sqlite: $(VENV)/.installed
	$(VENV)/bin/meteor-build import-official --lang en --out $@

bundles: $(BUNDLES)/en.sqlite
	$(VENV)/bin/meteor-build import-official --lang all --out-dir $(BUNDLES) --skip-existing

# Bundles from the declarative recipes of resources/recipes (one per language): <lang>-wordfreq.sqlite
# for Meteor 1.5's languages (beside the official imports, which stay the defaults that reproduce
# Meteor 1.5), <lang>.sqlite for the other languages with a wordfreq list (docs/languages.md has the table).
# Every source's checksum is verified; a bundle whose recipe did not change is kept.
# Languages without a Snowball 2.2.0 stemmer get a lemma map (simplemma) or a Snowball 3 stem map (PyStemmer):
# the pinned 'lemmas' extra (installed with the others), used only by the builders.
RECIPES := resources/recipes
RESOURCE_JOBS ?= 2
resources: bundles
	$(VENV)/bin/meteor-build recipe $(RECIPES) --out-dir $(BUNDLES) --skip-up-to-date --jobs $(RESOURCE_JOBS)

# The Debian packages of the recipes' optional sources (LibreOffice thesauri mythes-*, Hunspell
# dictionaries hunspell-* / myspell-*, WordNet): without them `make resources` builds those bundles
# without synonyms or stem maps (each missing source is a warning).  Needs root (apt-get).
.PHONY: resource-packages
resource-packages: $(VENV)/.installed
	apt-get install -y -qq --no-install-recommends $$($(PY) -c 'from meteor_lite_builders.recipes.thesauri import THESAURI; \
	  from meteor_lite_builders.recipes.dictionaries import HUNSPELL; \
	  print(" ".join(sorted({t.package for t in THESAURI.values()} | {d.package for d in HUNSPELL.values()} | {"wordnet-base"})))')

# README command 1: install, build the default English bundle, score the official example.
demo: $(BUNDLES)/en.sqlite
	$(VENV)/bin/meteor-lite score $(DATA)/meteor-example/system1.hyp $(DATA)/meteor-example/reference --lang en --norm

# Optional: the compiled twins of the scorer's hottest loops (C, meteor_lite/_accel.c; see meteor_lite/accel.py),
# built in place: the same alignments as the pure-Python code, which stays the default of a plain install.
# METEOR_LITE_PURE=1 turns them off.  Needs a C compiler and the Python headers.
accel: $(VENV)/.installed
	METEOR_LITE_ACCEL=1 $(PY) setup.py -q build_ext --inplace

# README command 2: lint and type-check, build (or reuse) every bundle the tests need, run the suite
# (no Java needed for the suite; tests marked `java` skip without it, saying why).  The compiled search is
# built first so that the parity fixtures run on both paths (pure Python and compiled).
test: bundles check accel
	$(PY) -m pytest -q

# Lint and type-check (pinned ruff and mypy from the `check` extra; configured in pyproject.toml).
check: $(VENV)/.installed
	$(VENV)/bin/ruff check meteor_lite builders tests
	$(VENV)/bin/mypy

# Agreement with the official jar on the shared data (needs Java).
parity: $(BUNDLES)/en.sqlite
	$(VENV)/bin/meteor-build check parity --data $(DATA)

# meteor-lite vs the jar in one table (docs/performance.md): system1 wall time and memory, length scaling
# (writes docs/img/length-scaling.png; needs the bench extra), stdio and API rates, import, pivot.
# A quick run: make bench BENCH_ARGS='--only system1,stdio --repeat 1'
# The package's bytecode is compiled first, as pip does when it installs a wheel: an editable checkout
# run with PYTHONDONTWRITEBYTECODE set would otherwise compile ~35 modules at every start (~30 ms).
BENCH_ARGS ?=
bench: $(BUNDLES)/en.sqlite accel
	$(PY) -m compileall -q meteor_lite
	$(VENV)/bin/meteor-build check bench --data $(DATA) $(BENCH_ARGS)

# Regenerate tests/fixtures/parity_*.jsonl from the official jar (needs Java; jar runs are cached in bench-out/).
fixtures: $(VENV)/.installed
	$(VENV)/bin/meteor-build check fixtures --data $(DATA)

clean:
	rm -rf $(VENV) $(BUNDLES)/*.sqlite

# Paraphrase tables built from Multi30k (4-way parallel en/de/fr/cs) by pivoting, in bundles that also
# carry the other resources of the official bundles (English: function words, synonyms, stems,
# prefixes; German: function words, prefixes).  Needs eflomal (build extra); about 25 min on 2 cores.
M30K      := $(DATA)/multi30k
PARA_WORK := build/paraphrases-multi30k
.PHONY: paraphrases-multi30k
paraphrases-multi30k: $(BUNDLES)/en-multi30k.sqlite $(BUNDLES)/de-multi30k.sqlite

# French and Czech too (each pivoting through the three other languages): make paraphrases-multi30k-all.
# Czech is Meteor's `cz` (the official bundle and the paraphrase bundle are named cz; the corpus files cs).
.PHONY: paraphrases-multi30k-all
paraphrases-multi30k-all: paraphrases-multi30k $(BUNDLES)/fr-multi30k.sqlite $(BUNDLES)/cz-multi30k.sqlite

$(BUNDLES)/de.sqlite $(BUNDLES)/fr.sqlite $(BUNDLES)/cz.sqlite: $(BUNDLES)/%.sqlite: $(VENV)/.installed
	$(VENV)/bin/meteor-build import-official --lang $* --out $@

$(BUNDLES)/en-multi30k.sqlite: $(BUNDLES)/en.sqlite
	$(VENV)/bin/meteor-build paraphrases --lang en --corpus $(M30K)/train.en.gz \
	  --pivot de=$(M30K)/train.de.gz --pivot fr=$(M30K)/train.fr.gz --pivot cs=$(M30K)/train.cs.gz \
	  --base $(BUNDLES)/en.sqlite --name en-multi30k --work-dir $(PARA_WORK)/en \
	  --meteor-file $(PARA_WORK)/paraphrase-en.gz --out $@

$(BUNDLES)/de-multi30k.sqlite: $(BUNDLES)/de.sqlite
	$(VENV)/bin/meteor-build paraphrases --lang de --corpus $(M30K)/train.de.gz \
	  --pivot en=$(M30K)/train.en.gz --pivot fr=$(M30K)/train.fr.gz --pivot cs=$(M30K)/train.cs.gz \
	  --base $(BUNDLES)/de.sqlite --name de-multi30k --work-dir $(PARA_WORK)/de \
	  --meteor-file $(PARA_WORK)/paraphrase-de.gz --out $@

$(BUNDLES)/fr-multi30k.sqlite: $(BUNDLES)/fr.sqlite
	$(VENV)/bin/meteor-build paraphrases --lang fr --corpus $(M30K)/train.fr.gz \
	  --pivot en=$(M30K)/train.en.gz --pivot de=$(M30K)/train.de.gz --pivot cs=$(M30K)/train.cs.gz \
	  --base $(BUNDLES)/fr.sqlite --name fr-multi30k --work-dir $(PARA_WORK)/fr \
	  --meteor-file $(PARA_WORK)/paraphrase-fr.gz --out $@

$(BUNDLES)/cz-multi30k.sqlite: $(BUNDLES)/cz.sqlite
	$(VENV)/bin/meteor-build paraphrases --lang cz --corpus $(M30K)/train.cs.gz \
	  --pivot en=$(M30K)/train.en.gz --pivot de=$(M30K)/train.de.gz --pivot fr=$(M30K)/train.fr.gz \
	  --base $(BUNDLES)/cz.sqlite --name cz-multi30k --work-dir $(PARA_WORK)/cz \
	  --meteor-file $(PARA_WORK)/paraphrase-cz.gz --out $@
