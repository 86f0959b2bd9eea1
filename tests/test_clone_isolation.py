"""The clone-isolation property (tests/conformance.py) has teeth: it fails on Honderden's old
clone-sharing defect (issue 21 §1), and on clones that share any list, dict or set field that play
changes in place (tests/clone_mutants.py).  Source only: a compiled class cannot be patched."""
from __future__ import annotations

import pytest

from engine import GAMES
from engine.games.jass._honderden import HonderdenState, meld_action, meld_public
from tests.clone_mutants import container_fields, run_mutant
from tests.conformance import clone_isolation_walk
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
