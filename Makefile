# Two commands do all the set-up on a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
RUN    := $(VENV)/.installed-run
DEV    := $(VENV)/.installed-dev
CTOOLS := $(VENV)/.installed-compiled

.PHONY: demo test test-slow test-compiled compiled check bench playthroughs regen clean sandbox-tools

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# (re)install when pyproject.toml changes
$(RUN): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q --disable-pip-version-check -e .
	touch $@

$(DEV): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q --disable-pip-version-check -e '.[test,rl]'
	touch $@ $(RUN)

# a real tournament (a pool of local processes) of every built-in bot over every game, its leaderboard,
# and the HTML report; data/demo is the demo's own directory, started afresh each time
# The tournament starts at once on the engine there is (the compiled build while fresh, else the source);
# the optional compiled build (minutes of CPU the first time) follows at low priority, for the next run.
demo: $(RUN) sandbox-tools
	rm -rf data/demo
	$(BIN)/cardarena tournament run examples/demo.toml
	$(BIN)/cardarena dashboard data/demo -o data/demo/report.html
	@echo "demo: done; now building the optional compiled engine at low priority for the next run"
	@nice -n 19 $(MAKE) --no-print-directory compiled

# bubblewrap is the sandbox of submitted bots and libseccomp2 builds their seccomp filter (bots/sandbox/,
# bots/seccomp.py, docs/bots.md): without them they are refused, unless CARDARENA_SANDBOX=unshare accepts
# the unshare fallback (root only, which still needs libseccomp2).  Installed with apt-get as root, or with
# sudo where that works without a password; otherwise say how.
SANDBOX_PKGS = $$(command -v bwrap >/dev/null || echo bubblewrap) \
	$$(/sbin/ldconfig -p 2>/dev/null | grep -q 'libseccomp\.so\.2' || echo libseccomp2)
sandbox-tools:
	@pkgs=$$(echo $(SANDBOX_PKGS)); [ -z "$$pkgs" ] || ! command -v apt-get >/dev/null \
	  || { if [ "$$(id -u)" = 0 ]; then SUDO=; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; \
	       else false; fi && $$SUDO apt-get update -qq \
	       && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$pkgs >/dev/null; } \
	  || echo "$$pkgs could not be installed (run: sudo apt-get install $$pkgs): submitted bots" \
	          "will be refused until they are"

# two workers (the machine has two cores); tests that start Ray clusters share one worker.  The fast suite
# runs on the pure-Python source (tests/conftest.py pins CARDARENA_COMPILED=0), then, where the set-up
# could build it, the compiled games' conformance, playthroughs, game tests and the oracle on the build
test: $(DEV) sandbox-tools check compiled
	$(BIN)/python -m pytest -q -m "not slow" -n 2 --dist loadgroup
	@if $(BIN)/python build_compiled.py --check >/dev/null; then $(BIN)/python build_compiled.py --test; \
	 else echo "test-compiled skipped: no compiled build (gcc, the CPython headers and mypyc build it)"; fi

# the optional compiled hot path (engine/_compiled.py): mypyc into build/compiled when a C compiler, the
# CPython headers and mypyc are present, else skipped in one line (the pure-Python source is the
# reference and runs everywhere); used by default while its sources are unchanged (CARDARENA_COMPILED=0
# forces the source; `cardarena --version` says which runs).  Nothing to do when the build is fresh
compiled: $(RUN) $(CTOOLS)
	$(BIN)/python build_compiled.py --quiet

# mypyc (the `compiled` extra) where a C compiler is present; nothing to install without one
$(CTOOLS): pyproject.toml | $(RUN)
	@if command -v "$$($(BIN)/python -c 'import sysconfig; print((sysconfig.get_config_var("CC") or "cc").split()[0])')" \
	  >/dev/null; then $(BIN)/pip install -q --disable-pip-version-check -e '.[compiled]'; fi
	touch $@

# the conformance suite, the golden playthroughs, the game tests and the oracle
# (tests/test_compiled.py) on the compiled build, for the compiled games
test-compiled: $(DEV) compiled
	$(BIN)/python build_compiled.py --test

test-slow: $(DEV)
	$(BIN)/python -m pytest -q -m slow -n 2 --dist loadgroup

# the generated files, after adding or changing a game: the games index (`cardarena games`), the cost
# table's entries of games it lacks (`tournament plan`), the observation and notation docs
# (docs/bots.md, docs/notation.md).  A test that finds one of them stale says "run `make regen`"
regen: $(DEV)
	$(BIN)/python -m tournaments.games_index
	$(BIN)/python bench/game_costs.py --missing
	$(BIN)/python -m bots.obsdoc --write

check: $(DEV)
	$(BIN)/ruff check .
	$(BIN)/mypy

bench: $(DEV)
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/tournament.py
	$(BIN)/python bench/analysis.py
	$(BIN)/python bench/sandbox.py
	$(BIN)/python bench/bots.py

# re-render the golden playthroughs (tests/playthroughs/<id>.txt) from the plan in each file's header after a
# deliberate rule change; a new game gets a plan from a search (python -m tests.playthrough --search)
playthroughs: $(DEV)
	$(BIN)/python -m tests.playthrough --write

clean:
	rm -rf $(VENV)
