"""The clone-isolation property (tests/conformance.py) has teeth: it fails on Honderden's old
clone-sharing defect (issue 21 §1), and on clones that share any list, dict or set field that play
changes in place (tests/clone_mutants.py).  Source only: a compiled class cannot be patched."""
from __future__ import annotations

import pytest

from engine import GAMES
from engine.core import State
from engine.games.jass._honderden import HonderdenState, meld_action, meld_public
from tests.clone_mutants import container_fields, run_mutant
from tests.conformance import clone_isolation_walk, state_fields
from tests.test_conformance import CLONE_SEEDS


def _shared_declare(self: HonderdenState, seat: int, action: str) -> None:
    """Honderden's ``_declare`` before the fix: a seat's second meld appended to the list that a
    clone shares with its original."""
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


@pytest.mark.parametrize("game_id", ["honderden", "honderden_3p"])
def test_the_property_fails_on_honderdens_shared_declarations(game_id: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(HonderdenState, "_declare", _shared_declare)
    found = [b for seed in range(CLONE_SEEDS) for b in clone_isolation_walk(game_id, seed)]
    assert found and "decls" in found[0]


@pytest.mark.parametrize(("game_id", "field"), [("honderden_3p", "decls"), ("honderden_3p", "hands"),
                                                ("hartenjagen", "pts"), ("jokeren_nl", "building"),
                                                ("klop_rummy", "known"), ("manillen", "tlegal")])
def test_a_shallow_mutant_is_caught_without_the_sharing_check(game_id: str, field: str) -> None:
    """A clone that shares one field: the behavioural part of the property alone catches it."""
    r = run_mutant(game_id, field)
    assert r.caught, r.message


@pytest.mark.slow
@pytest.mark.parametrize("game_id", GAMES)
def test_every_shallow_mutant_is_caught_or_not_seen_changed(game_id: str) -> None:
    """For every list, dict or set field: sharing it is caught, or play never changes it in place
    in 6 random matches (rebound only, or too rarely changed: the sharing check catches those)."""
    results = [run_mutant(game_id, f) for f in container_fields(game_id)]
    missed = [f"{r.field}: {r.message}" for r in results if not r.caught and r.mutated]
    assert not missed, missed


def _top_containers(state: State) -> dict[str, object]:
    return {k: v for k, v in state_fields(state).items() if isinstance(v, (list, dict, set))}


@pytest.mark.parametrize("game_id", GAMES)
def test_copy_fields_shares_exactly_the_fields_it_is_told_to(game_id: str) -> None:
    """State.copy_fields, the one field-by-field copy (issue 22 section 3): every list, dict or set
    field of a deep copy (clone's), every list or dict field of a flat one (a search copy's), is a
    new object but those named in ``shared`` (the same object); without logs, history and events
    start empty."""
    import random

    from engine import load_game
    st = load_game(game_id).new_match(seed=3)
    rng = random.Random(3)
    for _ in range(25):
        if st.is_over():
            break
        st.apply(rng.choice(st.legal_actions()))
    mine = _top_containers(st)
    name = next(k for k in mine if k not in ("history", "events", "sheet"))
    for deep in (True, False):
        copy = st.copy_fields(deep=deep, shared=frozenset((name,)), logs=deep)
        theirs = _top_containers(copy)
        assert set(theirs) == set(mine), (deep, set(theirs) ^ set(mine))
        assert theirs[name] is mine[name], (deep, name)
        kinds = (list, dict, set) if deep else (list, dict)  # flat: lists and dicts copied one level
        same = sorted(k for k in mine if k != name and theirs[k] is mine[k] and isinstance(mine[k], kinds))
        assert not same, f"{game_id}: copy_fields(deep={deep}) shares {same}"
        if not deep:
            assert copy.history == [] and copy.events == [] and copy.legal_actions() == st.legal_actions()


@pytest.mark.parametrize("game_id", ["jokeren_nl", "jokeren_drift", "amerikaans_jokeren", "loba",
                                     "ramino_drift"])
def test_a_rummy_search_copy_shares_only_the_stock(game_id: str) -> None:
    """RummyState._light_clone (the turn search's copy): copy_fields flat with _SEARCH_SHARED (the
    stock: the search plays table moves only, never a draw) shared, the melds cloned, no logs."""
    import random

    from engine import load_game
    from engine.games.rummy._rummy import _SEARCH_SHARED, RummyState
    st = load_game(game_id).new_match(seed=5)
    rng = random.Random(5)
    checked = 0
    while not st.is_over() and checked < 40:
        assert isinstance(st, RummyState)
        copy = st._light_clone()
        mine, theirs = _top_containers(st), _top_containers(copy)
        assert sorted(k for k in mine if theirs.get(k) is mine[k]) == sorted(_SEARCH_SHARED & mine.keys())
        assert all(a is not b for a, b in zip(copy.melds, st.melds, strict=True))
        assert copy.history == [] and copy.events == []
        st.apply(rng.choice(st.legal_actions()))
        checked += 1
    assert checked >= 10
