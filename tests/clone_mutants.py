"""Shallow-clone mutants: does the clone-isolation property catch a clone that shares a field?

For each game and each list, dict or set field of its state, ``clone`` is patched to hand the copy
the original's own object for that field (a *shallow mutant*; ``determinize`` copies through
``clone`` share it too).  The property (tests/conformance.py: ``clone_isolation_walk``) must then
fail.  Its structural part (no mutable container shared) catches every such mutant by
construction, so each mutant is run through the behavioural part alone (play the copies, compare
the original with a replay and its next plies): a mutant it misses is then classed by whether the
field's object is changed in place during play (a miss to fix) or was not seen changed in place
in random play (rebound only, or changed too rarely to be seen: the property's structural part,
which refuses any shared container, still catches it).

Source only (a compiled class cannot be patched).  ``python -m tests.clone_mutants [GAME...]``
prints the table; tests/test_clone_isolation.py runs it.
"""
from __future__ import annotations

import os
import random
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

os.environ.setdefault("CARDARENA_COMPILED", "0")  # before engine is imported: the source can be patched

from engine import GAMES, State, load_game
from tests.conformance import clone_isolation_walk, pick, render_value, state_fields

MUTANT_SEEDS = 6
"""Random matches walked per mutant before play is checked for changing the field in place."""
MUTANT_MORE_SEEDS = 24
"""Random matches walked per mutant of a field that play changes in place before it counts as
missed."""


@dataclass
class MutantResult:
    game: str
    field: str
    caught: bool
    """The behavioural property failed with the field shared."""
    mutated: bool
    """The shared object was changed in place while the clone and the original played."""
    message: str


def container_fields(game_id: str, seeds: int = 3, plies: int = 400) -> list[str]:
    """The list, dict and set fields a state of the game holds somewhere in random play."""
    out: set[str] = set()
    game = load_game(game_id)
    for seed in range(seeds):
        st = game.new_match(seed=seed)
        rng = random.Random(seed)
        for _ in range(plies):
            out.update(k for k, v in state_fields(st).items() if isinstance(v, (list, dict, set)))
            if st.is_over():
                break
            st.apply(pick(rng, st.legal_actions()))
    return sorted(out)


@contextmanager
def shallow_mutant(game_id: str, field: str) -> Iterator[None]:
    """While active, the game's ``clone`` shares ``field`` with the original."""
    cls = type(load_game(game_id).new_match(seed=0))
    original: Callable[[State], State] = cls.clone

    def clone(self: State) -> State:
        new = original(self)
        v = getattr(self, field, None)
        if isinstance(v, (list, dict, set)):
            setattr(new, field, v)
        return new

    had = "clone" in vars(cls)
    saved = vars(cls).get("clone")
    cls.clone = clone  # type: ignore[method-assign]
    try:
        yield
    finally:
        if had:
            cls.clone = saved  # type: ignore[method-assign]
        else:
            del cls.clone


def changed_in_place(game_id: str, field: str, seeds: int = 6, plies: int = 3000) -> bool:
    """Is the object held in ``field`` ever changed in place (not rebound) by an action, in
    ``seeds`` random matches checked after every action?  (No mutant needed: sharing such an
    object is a defect, sharing one that is only ever rebound is not.)"""
    game = load_game(game_id)
    for seed in range(seeds):
        st = game.new_match(seed=seed)
        rng = random.Random(seed)
        for _ in range(plies):
            if st.is_over():
                break
            obj = getattr(st, field, None)
            text = render_value(obj)
            st.apply(pick(rng, st.legal_actions()))
            if getattr(st, field, None) is obj and isinstance(obj, (list, dict, set)):
                if render_value(obj) != text:
                    return True
    return False


def run_mutant(game_id: str, field: str) -> MutantResult:
    """The shallow mutant of ``field`` through the behavioural property: :data:`MUTANT_SEEDS`
    matches, and up to :data:`MUTANT_MORE_SEEDS` when play changes the field in place (a rare
    change: Honderden's rejected declarations, HO11)."""
    with shallow_mutant(game_id, field):
        mutated: bool | None = None
        for seed in range(MUTANT_MORE_SEEDS):
            if seed == MUTANT_SEEDS:
                mutated = changed_in_place(game_id, field)
                if not mutated:
                    break
            try:
                bad = clone_isolation_walk(game_id, seed, structural=False, late=True)
            except Exception as e:  # a crash of the mutant counts as caught: the property saw it
                bad = [f"{type(e).__name__}: {e}"]
            if bad:
                return MutantResult(game_id, field, True, True, f"seed {seed}: {bad[0][:160]}")
    return MutantResult(game_id, field, False, bool(mutated),
                        "MISSED although changed in place" if mutated
                        else "not seen changed in place in 6 random matches (rebound, or changed only "
                        "rarely: the sharing check catches it)")


def main(argv: list[str] | None = None) -> int:
    games = (argv if argv is not None else sys.argv[1:]) or GAMES
    missed = 0
    for g in games:
        for f in container_fields(g):
            r = run_mutant(g, f)
            missed += not r.caught and r.mutated
            print(f"{g:20s} {f:18s} {'caught' if r.caught else 'not caught':10s} {r.message}", flush=True)
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
