# Short commands the README names.  Everything installs into .venv from pyproject.toml.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
SHARED ?= ../shared
DATA   := $(SHARED)/data
BUNDLES := resources/bundles

.PHONY: install demo test parity bench resources bundles clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[build,test]'
	touch $@

install: $(VENV)/.installed

# The default English bundle, imported from the official Meteor 1.5 release.
$(BUNDLES)/en.sqlite: $(VENV)/.installed
	$(VENV)/bin/meteor-build import-official --lang en --out $@

bundles: $(BUNDLES)/en.sqlite
	$(VENV)/bin/meteor-build import-official --lang all --out-dir $(BUNDLES) --skip-existing

# README command 1: install, build the default English bundle, score the official example.
demo: $(BUNDLES)/en.sqlite
	$(VENV)/bin/meteor-lite score $(DATA)/meteor-example/system1.hyp $(DATA)/meteor-example/reference --lang en --norm

# README command 2: the test suite (no Java needed).
test: $(VENV)/.installed
	$(PY) -m pytest -q

# Agreement with the official jar on the shared data (needs Java).
parity: $(BUNDLES)/en.sqlite
	$(PY) scripts/parity.py --data $(DATA)

# meteor-lite vs the jar, side by side: wall time and peak memory.
bench: $(BUNDLES)/en.sqlite
	$(PY) scripts/bench.py --data $(DATA)

clean:
	rm -rf $(VENV) $(BUNDLES)/*.sqlite
