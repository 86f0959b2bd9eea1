"""Shared settings of the engine.rl tests: the option variants that open action forms (issue 24,
section 2) and a random match player."""
from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from engine import State, load_game

VARIANTS: dict[str, list[dict[str, Any]]] = {
    "zenuwen": [{"packs": 2}, {"round_end": "slap"}],
    "geneve": [{"max_group": 4}],
    "grevjas": [{"manual_claims": True}],
    "klop_bela": [{"schmeiss": True}],
    "klop_bela_3p": [{"schmeiss": True}],
    "butifarra": [{"sant_vicenc": True}],
    "handjas": [{"swiss_carres": True}],
    "jokeren_nl": [{"open50": True}, {"competition": True}],
    "jokeren_drift": [{"open40": True}],
    "wildcard_rummy": [{"packs": 2}],
    "cincinnati_rummy": [{"packs": 2}],
    "honderden_3p": [{"elimination": True}],
}
"""Option variants that open forms the defaults never list."""


def configurations(game_id: str) -> Iterator[tuple[dict[str, Any], int]]:
    """(options, players) for the default and every variant, at every player count they accept."""
    for opts in [{}, *VARIANTS.get(game_id, [])]:
        game = load_game(game_id, **opts)
        for n in range(game.min_players, game.max_players + 1):
            try:
                game.check_players(n)
            except ValueError:
                continue
            yield opts, n


def random_states(game_id: str, options: dict[str, Any], players: int, seed: int, steps: int,
                  max_deals: int | None = 1) -> Iterator[State]:
    """The states of one random match (at most ``steps`` actions), the last one included."""
    st = load_game(game_id, **options).new_match(seed=seed, players=players, max_deals=max_deals)
    rng = random.Random(seed)
    for _ in range(steps):
        yield st
        if st.is_over():
            return
        st.apply(rng.choice(st.legal_actions()))
    yield st
