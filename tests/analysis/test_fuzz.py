"""cardarena fuzz: steered play reaches rule events, and a planted bug is found, shrunk and saved."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import IllegalAction, game_class, load_game
from tournaments.analysis import fuzz
from tournaments.analysis.fuzz import Case, Failure, load_case, probe, run_case, shrink

from .conftest import cardarena


def test_fuzz_reaches_events_without_failures(tmp_path: Path) -> None:
    rep = fuzz.fuzz("hartenjagen", seconds=8, seed=1, out_dir=tmp_path)
    assert rep.failures == []
    assert rep.actions > 1000 and rep.probes > 0
    for e in ("hartenjagen.cards_passed", "hartenjagen.hearts_broken", "hartenjagen.qs_taken"):
        assert rep.events[e] > 0
    assert set(rep.unreached) <= set(rep.card)
    assert all(reason for reason in rep.unreached.values())


@pytest.fixture
def planted_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hearts with a planted invariant bug: it 'fails' once hearts are broken after ply 20."""
    cls = game_class("hartenjagen").state_class
    original = cls._invariants

    def buggy(self: object) -> list[str]:
        out = original(self)  # type: ignore[arg-type]
        if len(self.history) > 20 and any(e["event"] == "hartenjagen.hearts_broken"  # type: ignore[attr-defined]
                                          for e in self.events):  # type: ignore[attr-defined]
            out.append("planted: hearts broken")
        return out

    monkeypatch.setattr(cls, "_invariants", buggy)


def test_planted_bug_is_found_shrunk_and_saved(planted_bug: None, tmp_path: Path) -> None:
    rep = fuzz.fuzz("hartenjagen", seconds=6, seed=2, out_dir=tmp_path)
    assert rep.failures, "the planted bug was not found"
    f = rep.failures[0]
    assert f["kind"] == "invariant" and "planted" in f["message"]
    case = load_case(f["file"])
    assert f["replay"] == f"cardarena fuzz hartenjagen --replay {f['file']}"
    got = run_case(case)
    assert got is not None and got.kind == "invariant"
    # minimal at the tail: one action fewer does not fail
    shorter = Case(case.game, case.options, case.seed, case.players, case.max_deals, case.deal,
                   case.actions[:-1])
    assert run_case(shorter) is None
    assert case.options == {} and case.deal is None  # shrunk to the defaults
    assert len(case.actions) < 60


def test_shrink_keeps_the_failure(planted_bug: None) -> None:
    game = load_game("hartenjagen")
    state = game.new_match(seed=9)
    actions = []
    while not state.is_over() and len(actions) < 200:
        a = state.legal_actions()[-1]
        state.apply(a)
        actions.append(a)
    case = Case("hartenjagen", {}, 9, 4, None, None, actions)
    failure = run_case(case)
    assert failure is not None and failure.kind == "invariant"
    small, f2 = shrink(case, failure, seconds=20)
    assert f2.signature() == failure.signature()
    assert len(small.actions) <= failure.ply + 1 < len(actions)


def test_probe_demands_illegal_action_rejected_and_state_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    state = load_game("hartenjagen").new_match(seed=3)
    assert probe(state, "play 10H", 0) is None
    assert probe(state, "pass 2C 3C", 0) is None
    cls = game_class("hartenjagen").state_class

    def lax_resolve(self: object, action: str, legal: list[str]) -> str:
        return legal[0]

    monkeypatch.setattr(cls, "_resolve", lax_resolve)
    bad = probe(state, "play AS", 0)
    if "play AS" in state.legal_actions():  # pragma: no cover - depends on the deal
        pytest.skip("play AS happens to be legal here")
    assert isinstance(bad, Failure) and bad.kind == "illegal_accepted"


def test_fuzz_cli_replays_a_saved_case(planted_bug: None, tmp_path: Path) -> None:
    game = load_game("hartenjagen")
    state = game.new_match(seed=4)
    actions = []
    while len(actions) < 120:
        a = state.legal_actions()[0]
        state.apply(a)
        actions.append(a)
    case = Case("hartenjagen", {}, 4, 4, None, None, actions)
    path = tmp_path / "case.json"
    path.write_text(json.dumps({"case": case.__dict__}))
    # the planted bug lives in this process only: a subprocess replays the case cleanly
    proc = cardarena("fuzz", "hartenjagen", "--replay", str(path))
    assert proc.returncode == 0 and "no failure now" in proc.stdout
    got = run_case(load_case(path))
    assert got is not None and got.kind == "invariant"


def test_fuzz_cli_bad_input() -> None:
    proc = cardarena("fuzz", "nosuchgame", "--minutes", "0.01")
    assert proc.returncode == 2 and "nosuchgame" in proc.stderr and "Traceback" not in proc.stderr


def test_illegal_action_api_contract() -> None:
    state = load_game("hartenjagen").new_match(seed=1)
    with pytest.raises(IllegalAction):
        state.apply("play 10H")
