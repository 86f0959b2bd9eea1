"""Test helpers over engine.tricks for a trick given as its list of cards (the games keep a trick as
its led suit and winning card, and compute neither of these on their hot paths)."""
from __future__ import annotations

from collections.abc import Sequence

from engine.tricks import FOLLOW_SUIT, Order, PlayRule, beats, mask_function


def trick_winner(trick: Sequence[int], trump_suit: int | None, order: Order) -> int:
    """Index (0 = the lead) of the card that wins ``trick``."""
    best = 0
    for i in range(1, len(trick)):
        if beats(trick[i], trick[best], trump_suit, order):
            best = i
    return best


def legal_plays(hand: int, trick: Sequence[int], winner: int, trump_suit: int | None, order: Order,
                rule: PlayRule = FOLLOW_SUIT, partner_winning: bool = False) -> int:
    """The mask of the cards of ``hand`` that may be played to ``trick``, whose card ``winner``
    (an index) wins so far: :func:`engine.tricks.mask_function`'s rule."""
    if not trick:
        return hand
    return mask_function(order, rule, trump_suit)(hand, trick[0] // 13, trick[winner], partner_winning)
