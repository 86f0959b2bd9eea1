"""Shared helpers of the game tests (tests/games/): a match from an injected deal, a list of actions,
events by name, what a seat holds, and the few ways the tests play a deal or a match out.

Each test module keeps a thin ``new`` that states its game's defaults (dealer, up-card, stock) and
calls :func:`new` here; everything else is imported as is.

>>> st = new("tonk", [["KD", "5C"], ["2H", "AS"]], dealer=0, stock=["9C", "8D"], upcard="2C")
>>> play(st, "draw stock").phase
'play'
>>> hand_of(st, 1)
['2H', '9C', 'AS']
"""
from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from engine import State, load_game
from engine.cards import TOKENS, cards_of


def new(game: str, hands: list[list[str]], *, partial: bool = True, seed: int = 1, players: int | None = None,
        max_deals: int | None = None, options: Mapping[str, Any] | None = None, **deal: Any) -> State:
    """A match of ``game`` (with ``options``) from the injected deal ``hands`` plus the other deal
    fields given (``dealer``, ``stock``, ``upcard``, a game's own keys).  ``partial`` marks a test
    position (hand sizes free, cards not listed out of play); ``partial=False`` injects a whole deal.
    ``players`` defaults to one per hand."""
    fields: dict[str, Any] = {"partial": True} if partial else {}
    fields.update(deal, hands=hands)
    return from_deal(game, fields, seed=seed, players=len(hands) if players is None else players,
                     max_deals=max_deals, options=options)


def from_deal(game: str, deal: dict[str, Any], *, seed: int = 1, players: int | None = None,
              max_deals: int | None = None, options: Mapping[str, Any] | None = None) -> State:
    """A match of ``game`` from a whole injected deal dict (CONTRACT.md ``deal=``) as a test built it."""
    return load_game(game, **dict(options or {})).new_match(seed=seed, players=players, max_deals=max_deals,
                                                            deal=deal)


def play(state: State, *actions: str) -> State:
    """Apply ``actions`` in order; the state, for chaining."""
    for a in actions:
        state.apply(a)
    return state


def events(state: State, name: str, prefix: str = "") -> list[dict[str, Any]]:
    """The rule events named ``prefix + name`` (``"hartenjagen.moon_shot"``), in order."""
    full = prefix + name
    return [e for e in state.events if e["event"] == full]


def zone_tokens(state: State, zone: str) -> list[str]:
    """The cards of one of ``state.zones()``, sorted by card id."""
    return sorted(TOKENS[c] for c in cards_of(state.zones()[zone]))


def hand_of(state: State, seat: int) -> list[str]:
    """``seat``'s hand, sorted by card id."""
    return zone_tokens(state, f"hand{seat}")


def hand_set(state: State, seat: int) -> set[str]:
    """``seat``'s hand as a set of tokens."""
    return {TOKENS[c] for c in cards_of(state.zones()[f"hand{seat}"])}


def legal_with(state: State, verb: str) -> list[str]:
    """The legal actions of one verb (``"play"``, ``"discard"``), in the engine's order."""
    head = verb + " "
    return [a for a in state.legal_actions() if a.startswith(head)]


def plays(state: State) -> list[str]:
    """The legal ``play`` actions, in the engine's order."""
    return legal_with(state, "play")


def discards(state: State) -> list[str]:
    """The legal ``discard`` actions, in the engine's order."""
    return legal_with(state, "discard")


def can_discard(state: State) -> bool:
    return any(a.startswith("discard") for a in state.legal_actions())


def table(state: State) -> list[str]:
    """The melds on a rummy table, as seat 0 sees them."""
    return [m["cards"] for m in state.observation(0)["table"]]


def sides(state: State) -> tuple[int, int]:
    """Card points of the deal for seats 0+2 and for seats 1+3."""
    pts = state.observation(0)["points_won"]
    return pts[0] + pts[2], pts[1] + pts[3]


def play_deal_out(state: State, pick: Callable[[State], str]) -> None:
    """Apply ``pick(state)`` until the current deal (or the match) ends."""
    deal = state.deal_no
    while state.deal_no == deal and not state.is_over():
        state.apply(pick(state))


def finish_deal(state: State, rng: random.Random) -> None:
    """Play the current deal out at random."""
    play_deal_out(state, lambda st: rng.choice(st.legal_actions()))


def first_legal(state: State) -> str:
    return state.legal_actions()[0]


def first_play(state: State) -> str:
    """The first legal ``play`` action."""
    return next(a for a in state.legal_actions() if a.startswith("play "))


def random_matches(game: str, n: int, start: int = 0, max_deals: int | None = None,
                   **options: Any) -> list[State]:
    """``n`` matches from seeds ``start``.. played out at random (each seed also seeds the choices)."""
    g = load_game(game, **options)
    out = []
    for seed in range(start, start + n):
        st = g.new_match(seed=seed, max_deals=max_deals)
        rng = random.Random(seed)
        while not st.is_over():
            st.apply(rng.choice(st.legal_actions()))
        out.append(st)
    return out


def draw_and_discard_it(st: State) -> None:
    """One rummy turn that ends nothing: draw the top stock card, pass on going out, discard that card."""
    seat = st.current_player
    before = st.hands[seat]  # type: ignore[attr-defined]
    st.apply("draw stock")
    drawn = st.hands[seat] & ~before  # type: ignore[attr-defined]
    if "pass" in st.legal_actions():
        st.apply("pass")
    st.apply("discard " + TOKENS[drawn.bit_length() - 1])
