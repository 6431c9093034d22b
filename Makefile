# Short commands the README names.  Everything installs into .venv from pyproject.toml.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
SHARED ?= ../shared
DATA   := $(SHARED)/data
BUNDLES := resources/bundles

.PHONY: install demo test check parity bench docs site stem-fixtures spark-bench fixtures resources bundles clean accel packs tune-mqm validity mqm-transfer universal

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[build,test,check,lemmas,spark,docs]'
	touch $@

install: $(VENV)/.installed

# The default English bundle, imported from the official Meteor 1.5 release.
$(BUNDLES)/en.sqlite: $(VENV)/.installed
	$(VENV)/bin/meteor-build import-official --lang en --out $@

# The other languages BUNDLE_JOBS at a time (one process each); the bundles are the same whatever the number, and with
# or without Java (no stem-corrections table: --stems jar adds it, docs/bundle-format.md).
BUNDLE_JOBS ?= 2
bundles: $(BUNDLES)/en.sqlite
	$(VENV)/bin/meteor-build import-official --lang all --out-dir $(BUNDLES) --skip-existing --jobs $(BUNDLE_JOBS)

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

# A pack index of every bundle in resources/bundles (the official imports of make bundles, the recipe bundles of
# make resources, whatever else is there): a PEP 503 simple repository plus packs.json, in $(PACK_INDEX).
# Serve it (python -m http.server -d $(PACK_INDEX)) for pip install --index-url URL meteor-lite-pack-de and
# meteor-lite bundle install de --index URL.  `make -o resources packs` packs the bundles already there.
PACK_INDEX ?= build/pack-index
packs: resources
	@for b in $(BUNDLES)/*.sqlite; do \
	  $(VENV)/bin/meteor-build pack "$$b" --index $(PACK_INDEX) || exit 1; \
	done

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

# The compiled twins of the scorer's hottest loops (C, meteor_lite/_accel.c and meteor_lite/accel_c/; see meteor_lite/accel.py) and the
# compiled English stemmer (meteor_lite/stemmers/_english.c over Snowball's C, see meteor_lite/stemmers/compiled.py),
# rebuilt in place: the same alignments and stems as the pure-Python code.  Wheels and source installs compile them
# too when a compiler is there (setup.py); here a failure is an error.  METEOR_LITE_PURE=1 turns them off.
# The module codes of the pair kernel come from the module registry (meteor_lite/align/modules.py): the header
# meteor_lite/_accel_modules.h is written from it first (tests/test_modules.py checks the committed one is current).
accel: modules-header
	METEOR_LITE_ACCEL=1 $(PY) setup.py -q build_ext --inplace

.PHONY: modules-header
modules-header: $(VENV)/.installed
	METEOR_LITE_PURE=1 $(PY) -c 'import sys; from meteor_lite.align.modules import main; sys.exit(main(["--c-header", "meteor_lite/_accel_modules.h"]))'


# README command 2: lint and type-check, build (or reuse) every bundle the tests need, build the docs site, run the
# suite (tests/test_docs.py runs the documents' examples)
# (no Java needed for the suite; tests marked `java` skip without it, saying why).  The compiled search is
# built first so that the parity fixtures run on both paths (pure Python and compiled).
# The tests marked both `java` and `slow` (live comparisons with the jar: one JVM per case, minutes) run in
# make parity, not here; plain `pytest` runs them too.
# The suite runs in TEST_JOBS worker processes (pytest-xdist, from the test extra; auto: one per core), each test file
# whole in one worker, in its order (a page's docs examples share one directory); TEST_JOBS=0: one process, no workers.
# The files are handed out in the order tests/conftest.py gives them (the longest first), not re-sorted by their
# number of tests (--no-loadscope-reorder), so that no worker finishes a long file alone at the end.
# The package's bytecode is compiled first: the tests start the command-line tools in hundreds of fresh processes,
# which would otherwise compile the modules again each time where PYTHONDONTWRITEBYTECODE is set.
TEST_JOBS ?= auto
test: bundles check accel site
	$(PY) -m compileall -q meteor_lite builders
	$(PY) -m pytest -q -m "not (java and slow)" -n $(TEST_JOBS) --dist loadfile --no-loadscope-reorder

# The documentation site (mkdocs.yml, docs/): built in strict mode, so that a broken link or anchor fails.
site: $(VENV)/.installed
	$(VENV)/bin/mkdocs build --strict --quiet

# Docs that run: every example of README.md and docs/*.md run and its output compared, or marked
# <!-- docs-check: skip REASON --> (docs/contributing.md), then the site.  `make test` runs both.
docs: $(VENV)/.installed site
	$(PY) -m pytest -q tests/test_docs.py

# Every one of the 16 million words of the stem fixtures (tests/fixtures/stems) against the scorer, without
# Java (the test suite checks one part of them each run; make parity checks them against the jar itself).
stem-fixtures: $(VENV)/.installed
	$(VENV)/bin/meteor-build check stems --fixtures --data $(DATA)

# Lint and type-check (pinned ruff and mypy from the `check` extra; configured in pyproject.toml).
# Then the compiled kernels are built once more under AddressSanitizer and UndefinedBehaviorSanitizer (gcc; the
# warnings are errors in every build, setup.py) into build/sanitize, and the compiled-path tests run with that copy of
# the package (libasan preloaded: the interpreter is not built with it; leaks are not checked, Python keeps its own).
check: $(VENV)/.installed
	$(VENV)/bin/ruff check meteor_lite builders tests
	$(VENV)/bin/mypy
	$(MAKE) sanitize

SANITIZE_DIR := build/sanitize
SANITIZE_TESTS ?= tests/test_accel.py tests/test_pair_kernel.py tests/test_modules.py tests/test_parity_fixtures.py
.PHONY: sanitize
sanitize: modules-header
	rm -rf $(SANITIZE_DIR) && mkdir -p $(SANITIZE_DIR)/pkg
	CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -O1" \
	  LDFLAGS="-fsanitize=address,undefined" METEOR_LITE_ACCEL=1 \
	  $(PY) setup.py -q build_ext --build-lib $(SANITIZE_DIR)/lib --build-temp $(SANITIZE_DIR)/tmp
	cp -r meteor_lite $(SANITIZE_DIR)/pkg/ && rm -f $(SANITIZE_DIR)/pkg/meteor_lite/*.so $(SANITIZE_DIR)/pkg/meteor_lite/stemmers/*.so
	cp $(SANITIZE_DIR)/lib/meteor_lite/_accel*.so $(SANITIZE_DIR)/pkg/meteor_lite/
	cp $(SANITIZE_DIR)/lib/meteor_lite/stemmers/_english*.so $(SANITIZE_DIR)/pkg/meteor_lite/stemmers/
	METEOR_LITE_BUNDLE_PATH=$(CURDIR)/$(BUNDLES) PYTHONSAFEPATH=1 PYTHONPATH=$(CURDIR)/$(SANITIZE_DIR)/pkg LD_PRELOAD="$$(gcc -print-file-name=libasan.so)" \
	  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  $(PY) -c 'import meteor_lite._accel as a, sys; sys.exit(0 if a.__file__.startswith("$(CURDIR)/$(SANITIZE_DIR)/") else "not the sanitized build: " + a.__file__)'
	METEOR_LITE_BUNDLE_PATH=$(CURDIR)/$(BUNDLES) PYTHONSAFEPATH=1 PYTHONPATH=$(CURDIR)/$(SANITIZE_DIR)/pkg LD_PRELOAD="$$(gcc -print-file-name=libasan.so)" \
	  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  $(PY) -m pytest -q -n 0 -p no:cacheprovider $(SANITIZE_TESTS)

# Agreement with the official jar on the shared data (needs Java): the English sets, the other languages'
# (WMT21 and the biomedical MQM sets, every stemmed target language there is data for), and Meteor 1.5's
# stemmers against the jar's Stemmer program on a million words in each of its 15 stemmed languages.
parity: bundles
	$(VENV)/bin/meteor-build check parity --data $(DATA) --extra
	$(VENV)/bin/meteor-build check stems --data $(DATA)
	$(PY) -m pytest -q -m "java and slow"

# meteor-lite vs the jar in one table (docs/performance.md): system1 wall time and memory, length scaling
# (writes docs/img/length-scaling.png; needs the bench extra), stdio and API rates, import, pivot.
# A quick run: make bench BENCH_ARGS='--only system1,stdio --repeat 1'
# The package's bytecode is compiled first, as pip does when it installs a wheel: an editable checkout
# run with PYTHONDONTWRITEBYTECODE set would otherwise compile ~35 modules at every start (~30 ms).
BENCH_ARGS ?=
bench: $(BUNDLES)/en.sqlite accel
	$(PY) -m compileall -q meteor_lite
	$(VENV)/bin/meteor-build check bench --data $(DATA) $(BENCH_ARGS)

# Spark's local mode against the one-machine tools (docs/spark.md): corpus_score on local[1]/local[2] vs
# meteor-lite score --jobs 1/2 on 100,000 WMT21 pairs, and the pivot's spark vs duckdb engines on synthetic
# tables of 1 M and 3 M lines (outputs compared). About 10 minutes on 2 idle cores. Needs Java (spark extra).
SPARK_BENCH_ARGS ?=
spark-bench: $(BUNDLES)/en.sqlite accel
	$(VENV)/bin/meteor-build check spark-bench --data $(DATA) $(SPARK_BENCH_ARGS)

# Regenerate tests/fixtures/parity_*.jsonl and the jar's stems (tests/fixtures/stems) from the official jar
# (needs Java; jar runs are cached in bench-out/).
fixtures: $(VENV)/.installed
	$(VENV)/bin/meteor-build check fixtures --data $(DATA)
	$(VENV)/bin/meteor-build check stems --data $(DATA) --write-fixtures

clean:
	rm -rf $(VENV) $(BUNDLES)/*.sqlite $(BUNDLES)/*.sqlite.tables

# The `mqm` sets shipped with the scorer (meteor_lite/tuned_tasks.json; docs/meta-evaluation.md): one per target
# language, tuned on every shared judged set of that language (../shared/data/mqm and wmt-mqm): each file aligned once
# per normalisation (norm / norm-case) and module set (statistics cached in build/tune-mqm/cache), weights and
# parameters searched with numpy (beta and gamma where the fragmentation penalty is on); 3 folds over documents, and
# each set left out once.  A language's set is kept only where its held-out gain over Meteor's default holds, it is
# clearly below the default on no left-out set and below chrF on no set where the default is not, and the perturbation
# suite (docs/perturbations.md) ranks it at least as the default; else the default configuration ships, its provenance
# saying why.  CPU-heavy (minutes): the sets are committed, and neither CI
# nor `make test` runs this.
MQM := $(DATA)/mqm
tune-mqm: bundles
	$(VENV)/bin/meteor-build recipe $(RECIPES)/zh.toml --out-dir $(BUNDLES) --skip-up-to-date
	nice $(VENV)/bin/meteor-build check tune-mqm --data $(MQM) --data $(DATA)/wmt-mqm --cache build/tune-mqm/cache --write

# One table over every shared MQM set: meteor-lite's default and `--task mqm` (cross-validated) against chrF and
# sentence BLEU, with bootstrap intervals; the plot docs/img/validity.png (needs the bench extra's matplotlib).
validity: bundles
	$(VENV)/bin/meteor-build recipe $(RECIPES)/zh.toml --out-dir $(BUNDLES) --skip-up-to-date
	nice $(VENV)/bin/meteor-build check validity --data $(MQM) --data $(DATA)/wmt-mqm --plot docs/img/validity.png

# Meteor 1.5's task presets and a pooled leave-one-set-out search on every shared MQM set, beside chrF
# (docs/meta-evaluation.md, "Does a setting carry over?"); about 1.5 min.
mqm-transfer: bundles
	$(VENV)/bin/meteor-build recipe $(RECIPES)/zh.toml --out-dir $(BUNDLES) --skip-up-to-date
	nice $(VENV)/bin/meteor-build check mqm-transfer --data $(MQM)

# The universal parameter set (language '*', set 'default' of meteor_lite/tuned_tasks.json): one α β γ δ and weights of
# exact stem synonym paraphrase, tuned pooled over every shared MQM set of every language with each target language's
# recipe bundle (thesaurus synonyms and paraphrases need Debian's mythes-de mythes-en-us mythes-es mythes-fr mythes-ru
# and wordnet-base), measured leave one set out against exact + stem (Meteor's li); docs/languages.md, "The universal
# set".  Alignments are cached in build/universal/cache (first run 10-15 min on the busy 2-core machine, then 2 min).
UNIVERSAL_BUNDLES := build/universal/bundles
universal: bundles
	$(VENV)/bin/meteor-build recipe $(foreach l,en de es fr ru zh,$(RECIPES)/$(l).toml) --out-dir $(UNIVERSAL_BUNDLES) --skip-up-to-date
	$(VENV)/bin/meteor-build recipe $(RECIPES)/zh.toml --out-dir $(BUNDLES) --skip-up-to-date
	nice $(VENV)/bin/meteor-build check universal --data $(DATA)/mqm --data $(DATA)/wmt-mqm --bundles $(UNIVERSAL_BUNDLES) \
		--cache build/universal/cache --max-segments 400 --bootstrap 1000 --default-for es,fr,zh --write

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
