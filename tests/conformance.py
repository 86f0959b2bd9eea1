"""Helpers shared by the conformance suite and the per-game tests."""
from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from engine import State
from engine.cards import JOKER_TOKEN, TOKENS, cards_of, is_token

MAX_ACTIONS = 200_000
"""A random match taking more actions than this counts as not finishing."""


def fingerprint(state: State) -> str:
    """Everything observable about a state, as one string (to check it did not change)."""
    return json.dumps({
        "history": state.history,
        "events": state.events,
        "current": state.current_player,
        "legal": state.legal_actions(),
        "over": state.is_over(),
        "scores": state.scores(),
        "sheet": state.score_sheet(),
        "obs": [state.observation(s) for s in range(state.players)],
    }, sort_keys=True)


def random_playout(state: State, rng: random.Random, check_every_action: bool = False,
                   max_actions: int = MAX_ACTIONS) -> list[str]:
    """Play ``state`` to the end with uniform random choices; return the actions.

    Asserts the legal list is never empty before the end, and the conformance invariants at each
    deal boundary (or after every action).
    """
    actions: list[str] = []
    deal = state.deal_no
    while not state.is_over():
        legal = state.legal_actions()
        assert legal, f"{state.game.id}: empty legal list before the end at {state!r}"
        assert state.current_player is not None
        a = rng.choice(legal)
        state.apply(a)
        actions.append(a)
        if check_every_action or state.deal_no != deal or state.is_over():
            deal = state.deal_no
            bad = state.invariant_violations()
            assert not bad, f"{state.game.id} seed {state.seed} after {actions[-5:]}: {bad}"
        assert len(actions) <= max_actions, f"{state.game.id} seed {state.seed} did not finish"
    assert state.current_player is None and state.legal_actions() == []
    return actions


def observed_tokens(obs: Any) -> Counter[str]:
    """Card tokens shown anywhere in an observation (its ``legal_actions`` excepted).

    A joker that names a card (``JK=6H``) shows a joker, not the card it stands for.
    """
    out: Counter[str] = Counter()

    def walk(x: Any, key: str = "") -> None:
        if key == "legal_actions":
            return
        if isinstance(x, str):
            for piece in x.split():
                tok = piece.split("=", 1)[0] if piece.startswith(JOKER_TOKEN + "=") else piece
                if is_token(tok):
                    out[tok] += 1
        elif isinstance(x, dict):
            for k, v in x.items():
                walk(v, str(k))
        elif isinstance(x, (list, tuple)):
            for v in x:
                walk(v, key)

    walk(obs)
    return out


def leaked_cards(state: State, seat: int) -> list[str]:
    """Tokens the observation of ``seat`` shows although every copy of them is hidden from it."""
    hidden = Counter(TOKENS[c] for c in cards_of(state.hidden_cards(seat)))
    copies = Counter(TOKENS[c] for c in cards_of(state.deck_mask))
    shown = observed_tokens(state.observation(seat))
    return sorted(t for t in shown if hidden[t] and hidden[t] >= copies[t])
