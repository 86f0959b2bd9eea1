# Two commands do all the set-up on a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
RUN    := $(VENV)/.installed-run
DEV    := $(VENV)/.installed-dev

.PHONY: demo test test-slow check bench playthroughs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# (re)install when pyproject.toml changes
$(RUN): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q --disable-pip-version-check -e .
	touch $@

$(DEV): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q --disable-pip-version-check -e '.[test]'
	touch $@ $(RUN)

demo: $(RUN)
	$(BIN)/cardarena demo

# two workers (the machine has two cores); tests that start Ray clusters share one worker
test: $(DEV) check
	$(BIN)/python -m pytest -q -m "not slow" -n 2 --dist loadgroup

test-slow: $(DEV)
	$(BIN)/python -m pytest -q -m slow

check: $(DEV)
	$(BIN)/ruff check .
	$(BIN)/mypy

bench: $(DEV)
	$(BIN)/python bench/engine.py

# regenerate the golden playthroughs (tests/playthroughs/<id>.txt) after a deliberate rule change
playthroughs: $(DEV)
	$(BIN)/python -m tests.playthrough --write

clean:
	rm -rf $(VENV)
