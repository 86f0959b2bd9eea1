"""Issue 22 section 6, "a new game that is really one file".

``tests/toygame/toy_tricks.py`` is a whole trick game written on the kernel's ``PlainTrickState``.
It is copied into ``engine/games/`` (the package's own folder, of a copy of the project:
tests/treecopy.py, so that the suite's other workers never see it come and go), with two variants
of it: one whose cards carry no points and one that hides no card.  In a fresh
pytest process the suites that every game must pass then run on the three, and the checks of what a
game brings besides its file (rules card, playthrough, invariant queries, the generated files) fail,
each with the message that says what to add or run.  Slow: two pytest processes.
"""
from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.treecopy import copy_env, project_copy

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
TOY = ROOT / "tests" / "toygame" / "toy_tricks.py"

NO_POINTS = ("toy_no_points", [
    ('    id = "toy_tricks"', '    id = "toy_no_points"'),
    ("    POINTS = TOY_POINTS", "    POINTS = None"),
    ("CardTables(TOY_ORDER, TOY_POINTS, trick_point=1)", "CardTables(TOY_ORDER, None, trick_point=1)")])
OPEN_HANDS = ("toy_open_hands", [
    ('    id = "toy_tricks"', '    id = "toy_open_hands"'),
    ("    POINTS = TOY_POINTS\n", "    POINTS = TOY_POINTS\n\n    def _public(self, seat: int) -> int:\n"
                                  "        return self.hands[seat]  # every hand is played open\n")])

EVERY_GAME = ["tests/test_conformance.py", "tests/test_card_tables.py", "tests/test_api_contract.py",
              "tests/test_cli.py", "tests/bots/test_players.py", "tests/bots/test_codec.py",
              "tests/bots/test_docs.py::test_observation_declaration_matches_the_observations",
              "tests/test_rules_reference.py::test_emitted_events_are_declared",
              "tests/tournaments/test_schedule.py", "tests/tournaments/test_runner.py",
              "tests/analysis/test_leaderboard.py", "tests/test_clone_isolation.py", "tests/rl",
              "tests/test_phases.py"]
"""The suites parametrized over every game (``engine.GAMES``)."""

STEPS = {
    "tests/test_rules_reference.py::test_declared_events_cover_the_rules_card[toy_tricks]":
        "docs/rules.md has no rules card for toy_tricks: add a section",
    "tests/test_playthroughs.py::test_playthrough_matches_golden_file[toy_tricks]":
        "toy_tricks has no golden playthrough; run: make playthroughs",
    "tests/test_playthroughs.py::test_all_games_have_a_playthrough": "run: make playthroughs",
    "tests/analysis/test_queries_tables.py::test_completeness_every_game_has_invariant_queries":
        "add tournaments/analysis/queries/",
    "tests/test_startup.py::test_the_shipped_games_index_is_in_sync_with_the_games": "run `make regen`",
    "tests/test_startup.py::test_help_and_games_load_no_game_no_sandbox_and_no_data_stack[args1]":
        "run `make regen`",
    "tests/tournaments/test_plan.py::test_plan_cost_table_has_every_game": "run `make regen`",
    "tests/bots/test_docs.py::test_observation_tables_are_up_to_date": "run `make regen`",
    "tests/rl/test_action_space.py::test_alphabet_size_blocks_and_no_duplicate[toy_tricks]":
        "SIZES has no entry for toy_tricks: add",
    "tests/rl/test_action_space.py::test_every_game_has_a_size_in_the_table": "SIZES has no entry for",
}
"""What a new game brings besides its file -> the phrase of the failure that asks for it."""


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The copy of the project the toy games are added to."""
    return project_copy(tmp_path_factory.mktemp("toy") / "src")


@pytest.fixture(scope="module")
def toy_games(tree: Path) -> Iterator[list[str]]:
    text = TOY.read_text(encoding="utf-8")
    files = {"toy_tricks": text}
    for gid, edits in (NO_POINTS, OPEN_HANDS):
        variant = text
        for old, new in edits:
            assert old in variant, old
            variant = variant.replace(old, new)
        files[gid] = variant
    for gid, body in files.items():
        path = tree / "engine" / "games" / f"{gid}.py"
        assert not path.exists(), f"{path} exists already"
        path.write_text(body, encoding="utf-8")
    yield list(files)


def _pytest(tree: Path, tmp_path: Path, *args: str) -> dict[str, str | None]:
    """Run pytest on ``args`` in a fresh process in the copy ``tree``: test id -> failure message
    (None: passed)."""
    report = tmp_path / "report.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
                    "-m", "not slow", f"--junitxml={report}", *args],
                   cwd=tree, env=copy_env(tree), capture_output=True, text=True, timeout=3000)
    out: dict[str, str | None] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        name = f"{case.get('classname', '').replace('.', '/')}.py::{case.get('name')}"
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        if case.find("skipped") is None:
            out[name] = None if bad is None else (bad.get("message") or "") + "\n" + (bad.text or "")
    return out


def test_the_suites_every_game_must_pass_pass_on_a_toy_game_in_the_package(
        toy_games: list[str], tree: Path, tmp_path: Path) -> None:
    """The toy game, a variant without card points and a variant without hidden cards pass every
    suite parametrized over the games, as any game must: a new trick game is one file."""
    sizes = "tests/rl/test_action_space.py::test_alphabet_size_blocks_and_no_duplicate"
    results = _pytest(tree, tmp_path, *EVERY_GAME, "-k", " or ".join(toy_games),
                      *[f"--deselect={sizes}[{g}]" for g in toy_games])  # a step (STEPS)
    failed = {k: v for k, v in results.items() if v is not None}
    assert not failed, "\n\n".join(f"{k}: {v}" for k, v in failed.items())
    for gid in toy_games:
        ran = [k for k in results if f"[{gid}" in k or f"-{gid}" in k]
        assert len(ran) >= 15, (gid, sorted(results))


def test_each_step_a_new_game_still_lacks_fails_with_what_to_add(toy_games: list[str], tree: Path,
                                                                 tmp_path: Path) -> None:
    """Before its rules card, playthrough, queries and ``make regen``, the toy game fails exactly the
    checks that ask for them, each naming what to add or run (engine/README.md, the walk-through)."""
    results = _pytest(tree, tmp_path, *STEPS)
    for test, phrase in STEPS.items():
        assert test in results, (test, sorted(results))
        message = results[test]
        assert message is not None, f"{test} passed, but the toy game lacks what it checks"
        assert phrase in message, (test, message[:600])
