# Two commands do all the set-up on a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
RUN    := $(VENV)/.installed-run
DEV    := $(VENV)/.installed-dev

.PHONY: demo test test-slow check bench playthroughs clean sandbox-tools

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# (re)install when pyproject.toml changes
$(RUN): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q --disable-pip-version-check -e .
	touch $@

$(DEV): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q --disable-pip-version-check -e '.[test]'
	touch $@ $(RUN)

# a real tournament (embedded local Ray) of every built-in bot over every game, its leaderboard,
# and the HTML report; data/demo is the demo's own directory, started afresh each time
demo: $(RUN)
	rm -rf data/demo
	$(BIN)/cardarena tournament run examples/demo.toml
	$(BIN)/cardarena dashboard data/demo -o data/demo/report.html

# bubblewrap gives submitted bots a read-only filesystem and no network (bots/sandbox.py); without it
# the sandbox falls back to rlimits and cgroups, and the tests of those two guarantees skip
sandbox-tools:
	@command -v bwrap >/dev/null || [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null \
	  || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null) \
	  || echo "bubblewrap could not be installed: the sandbox's filesystem and network tests will skip"

# two workers (the machine has two cores); tests that start Ray clusters share one worker
test: $(DEV) sandbox-tools check
	$(BIN)/python -m pytest -q -m "not slow" -n 2 --dist loadgroup

test-slow: $(DEV)
	$(BIN)/python -m pytest -q -m slow -n 2 --dist loadgroup

check: $(DEV)
	$(BIN)/ruff check .
	$(BIN)/mypy

bench: $(DEV)
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/tournament.py
	$(BIN)/python bench/analysis.py
	$(BIN)/python bench/sandbox.py
	$(BIN)/python bench/bots.py

# regenerate the golden playthroughs (tests/playthroughs/<id>.txt) after a deliberate rule change
playthroughs: $(DEV)
	$(BIN)/python -m tests.playthrough --write

clean:
	rm -rf $(VENV)
