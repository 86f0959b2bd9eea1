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


HONDERDEN_3P_DEAL = {"dealer": 2, "hands": [["QS", "QH", "QD", "QC", "JS", "JH", "JD", "JC"],
                                            ["AS", "AH", "AD", "AC", "KS", "KH", "KD", "KC"],
                                            ["TS", "TH", "TD", "TC", "9S", "9H", "9D", "9C"]]}


@pytest.fixture
def clone_sharing_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    """Honderden's clone-sharing defect of issue 21 planted back: a seat's second declaration is
    appended to the meld list that a clone shares with its original."""
    from engine.games.jass._honderden import HonderdenState, meld_action, meld_public

    def shared_declare(self: HonderdenState, seat: int, action: str) -> None:
        meld = next(m for m in self._melds_open(seat) if meld_action(m) == action)
        if self.decls and self.decls[-1][0] == seat:
            mine = self.decls[-1][1]
            if not isinstance(mine, list):
                mine = list(mine)
                self.decls[-1] = (seat, mine)  # type: ignore[assignment]
            mine.append(meld)
        else:
            self.decls.append((seat, [meld]))  # type: ignore[arg-type]
        self._emit("meld_announced", seat=seat, **meld_public(meld))

    monkeypatch.setattr(HonderdenState, "_declare", shared_declare)


def test_a_saved_look_ahead_crash_replays(clone_sharing_bug: None, tmp_path: Path) -> None:
    """Issue 21 §1: the replay redoes the look-ahead clones a steered choice made, so a failure
    that a clone's play caused in the original reproduces from the saved case (it replayed as
    'no failure now' before)."""
    case = Case("honderden_3p", {}, 1, 3, 1, HONDERDEN_3P_DEAL,
                ["declare QC QD QH QS", "declare JC JD JH JS"],
                lookahead=[[0, ["play QS"]], [1, ["play QS", "declare JC JD JH JS"]]])
    got = run_case(case)
    assert got is not None and got.kind == "crash" and "StopIteration" in got.message and got.ply == 1
    path = tmp_path / "case.json"
    path.write_text(json.dumps({"case": case.__dict__}))
    again = run_case(load_case(path))
    assert again is not None and again.signature() == got.signature()
    without = Case(case.game, case.options, case.seed, case.players, case.max_deals, case.deal, case.actions)
    assert run_case(without) is None
    small, f = shrink(case, got, seconds=20)
    assert f.signature() == got.signature()
    assert [p for p, _ in small.lookahead] == [1]  # the look-ahead that does not matter is dropped


def test_the_fixed_engine_replays_the_look_ahead_case_cleanly() -> None:
    case = Case("honderden_3p", {}, 1, 3, 1, HONDERDEN_3P_DEAL,
                ["declare QC QD QH QS", "declare JC JD JH JS"],
                lookahead=[[1, ["declare JC JD JH JS"]]])
    assert run_case(case) is None


def test_steered_fuzzing_records_its_look_aheads_and_the_case_replays(clone_sharing_bug: None,
                                                                      tmp_path: Path) -> None:
    rep = fuzz.fuzz("honderden_3p", seconds=20, seed=3, out_dir=tmp_path)
    crashes = [f for f in rep.failures if f["kind"] == "crash"]
    assert crashes, "the planted clone-sharing bug was not found"
    for f in crashes:
        case = load_case(f["file"])
        assert case.lookahead, f
        got = run_case(case)
        assert got is not None and got.kind == "crash", f


def test_events_of_new_match_are_counted() -> None:
    """Issue 21 §6: an event that ``new_match`` emits (ply 0: K9's ``omboeren_result`` in
    Kruisjassen) is counted, so the report does not call it unreached although every match
    logs it."""
    state = load_game("kruisjassen").new_match(seed=0)
    at_start = {e["event"] for e in state.events}
    assert "kruisjassen.omboeren_result" in at_start
    rep = fuzz.fuzz("kruisjassen", seconds=3, seed=1)
    assert rep.matches > 0
    for name in at_start:
        assert rep.events.get(name, 0) > 0 and name not in rep.unreached
