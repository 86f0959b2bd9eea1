"""Toy Tricks: the example game of engine/README.md's walk-through ("A new game, step by step").

Four players, 32 cards (7 to A), one deal of eight tricks.  TT1: follow suit if you can; there is no
trump, so the highest card of the led suit takes the trick.  TT2: a trick scores one point and its
cards' points (A 4, K 3, Q 2, J 1) for its taker; the most points wins.

It is a declaration plus a preset of the trick kernel (:class:`engine.trickplay.PlainTrickState`):
the deal, the trick play, the reasons a card is refused, zones, hidden cards and ``determinize`` are
the kernel's.  tests/test_new_game.py copies this file into engine/games/ and runs the suites every
game must pass on it.
"""
from __future__ import annotations

from engine.cards import deck_32, mask_of
from engine.core import CardTables, Game, register
from engine.trickplay import PlainTrickState
from engine.tricks import points_table, rank_order

TOY_ORDER = rank_order("AKQJT987")
TOY_POINTS = points_table({"A": 4, "K": 3, "Q": 2, "J": 1})


class ToyTricksState(PlainTrickState):
    DECK = mask_of(deck_32())
    ORDER = TOY_ORDER
    POINTS = TOY_POINTS


class ToyTricks(Game):
    id = "toy_tricks"
    name = "Toy Tricks"
    family = "trick-taking"
    seed_ref = "engine/README.md, the walk-through's example"
    summary = """
Four players, 32 cards, one deal.  Follow suit if you can (TT1); the highest card of the led
suit takes the trick.  A trick scores 1 and its cards' points, A 4, K 3, Q 2, J 1 (TT2).
"""
    notation = "play QS"
    action_forms = ("play CARD",)  # engine.rl: the action alphabet (docs/rl.md)
    min_players = max_players = default_players = 4
    state_class = ToyTricksState
    tables = CardTables(TOY_ORDER, TOY_POINTS, trick_point=1)


register(ToyTricks)
