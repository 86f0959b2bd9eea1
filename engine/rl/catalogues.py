"""The combination catalogues of engine.rl's action alphabets (issue 24, section 2 rule 3).

Each generator enumerates, once per game, every composite card list a game can list as one action,
using the same rule objects and enumeration functions the engine's legal lists use; the result is in
the engine's canonical spelling, ordered by card count, then text.  A game's ``action_catalogue``
hook calls one of these with its rule objects.
"""
from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

from engine.cards import PACK, SUITS, TOKENS, bits
from engine.games.jass._jass import CARRE, Meld, MeldValues, announcements, hand_melds, meld_cards
from engine.melds import GroupRule, RunRule, enumerate_groups, enumerate_runs, item_token, pos_base

JOKERS_PER_PACK = 2


def by_count_then_text(texts: Iterable[str]) -> list[str]:
    """Distinct texts ordered by card count (words other than ``+``), then text."""
    return sorted(set(texts), key=lambda t: (len([w for w in t.split() if w != "+"]), t))


def _run_hands(rule: RunRule, packs: int, max_cards: int) -> Iterable[list[int]]:
    """Hands of one suit's window of naturals plus jokers: every run of at most ``max_cards``
    cards is among the runs :func:`enumerate_runs` lists for one of them."""
    jokers = [p * PACK + 52 + j for p in range(packs) for j in range(JOKERS_PER_PACK)]
    lo = 0 if rule.ace_low else 1
    hi = 13 if rule.ace_high else 12
    for s in range(4):
        for length in range(rule.min_len, max_cards + 1):
            for start in range(lo, hi - length + 2):
                window = [pos_base(p, s) for p in range(start, start + length)]
                for k in range(1, length + 1):
                    for nat in combinations(window, k):
                        j = length - k
                        if j <= len(jokers):
                            yield list(nat) + jokers[:j]


def discard_combinations(groups: GroupRule, runs: RunRule, packs: int, max_cards: int) -> list[str]:
    """Every group and run of 2+ cards (``5H 5D``, ``5H JK=6H 7H``) of at most ``max_cards`` cards
    that :func:`enumerate_groups` and :func:`enumerate_runs` list for some hand of ``packs`` packs
    (jokers naming any subset of a run's positions, at most the jokers the packs hold)."""
    out: set[str] = set()
    for r in range(13):
        copies = [p * PACK + s * 13 + r for p in range(packs) for s in range(4)]
        for items in enumerate_groups(copies, groups):
            if 2 <= len(items) <= max_cards:
                out.add(" ".join(item_token(i) for i in items))
    for hand in _run_hands(runs, packs, max_cards):
        for items in enumerate_runs(hand, runs):
            if 2 <= len(items) <= max_cards:
                out.add(" ".join(item_token(i) for i in items))
    return by_count_then_text(out)


def natural_melds(groups: GroupRule, runs: RunRule, max_cards: int) -> list[str]:
    """Every natural group and run of at most ``max_cards`` cards of one pack (Tonk's melds), as
    the engine spells them (a group in suit order, a run ascending)."""
    deck = list(range(52))
    got = [" ".join(TOKENS[c] for c, _ in items)
           for items in enumerate_groups(deck, groups) + enumerate_runs(deck, runs)
           if len(items) <= max_cards]
    return by_count_then_text(got)


def _meld_candidates(deck: int, values: MeldValues) -> list[Meld]:
    """Every run of every length (sub-runs included) and every carré of ``values`` in ``deck``."""
    return hand_melds(deck, None, values, sub_runs=True)


def jass_announcements(deck: int, values: MeldValues, max_cards: int = 8, max_melds: int = 3) -> list[str]:
    """Every announcement (``AH KH QH + JS JH JD JC``) :func:`announcements` lists for a hand made
    of the cards of up to ``max_melds`` candidate melds (:func:`_meld_candidates`) with at most
    ``max_cards`` cards: any real announcement is listed for the hand of its own melds' cards."""
    cands = sorted({m.cards for m in _meld_candidates(deck, values)})
    hands: set[int] = set()
    for k in range(1, max_melds + 1):
        for combo in combinations(cands, k):
            h = 0
            for c in combo:
                h |= c
            if h.bit_count() <= max_cards:
                hands.add(h)
    out: set[str] = set()
    for h in hands:
        for melds in announcements(h, None, values):
            out.add(" + ".join(" ".join(m.tokens()) for m in melds))
    return by_count_then_text(out)


def single_melds(deck: int, values: Iterable[MeldValues]) -> list[str]:
    """Every meld :func:`hand_melds` lists over the whole deck with ``sub_runs`` (Handjas and
    Honderden declare one meld per action), for each of ``values``: its cards as declared
    (:func:`meld_cards`)."""
    out: set[str] = set()
    for v in values:
        for m in _meld_candidates(deck, v):
            out.add(" ".join(meld_cards(m)))
    return by_count_then_text(out)


def joker_moves(cards: Iterable[str]) -> list[str]:
    """Loba's ``move X JK=Y`` pairs: X any natural, Y another natural of X's suit (card-id order
    of X, then of Y: the joker that X replaces moves to a free end, naming Y)."""
    cs = list(cards)
    return [f"{x} JK={y}" for x in cs for y in cs if y != x and y[1] == x[1]]


def deck_mask(tokens: Iterable[str]) -> int:
    """The first-pack mask of natural tokens."""
    m = 0
    for t in tokens:
        m |= 1 << TOKENS.index(t)
    return m


__all__ = ["CARRE", "SUITS", "bits", "by_count_then_text", "deck_mask", "discard_combinations",
           "jass_announcements", "joker_moves", "natural_melds", "single_melds"]
