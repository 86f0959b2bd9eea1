"""Cards as ints, hands as bitmasks, deck builders.

A *base card* is an int ``suit * 13 + rank`` with ranks ``2 3 4 5 6 7 8 9 T J Q K A`` numbered
0..12 and suits ``C D H S`` numbered 0..3; the jokers are base cards 52 and 53.  One physical
pack therefore has 54 base ids.  Games played with several packs give each physical card the id
``copy * 54 + base`` so that a hand of physical cards is still a plain bitmask (a Python int);
its token repeats (``"5H"`` twice), as CONTRACT.md asks for two-deck games.

>>> token(card("QS")), card("TD"), rank_of(card("AC")), suit_of(card("7H"))
('QS', 21, 12, 2)
>>> [token(c) for c in cards_of(mask_of([card("2C"), card("AS")]))]
['2C', 'AS']
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final, TypeAlias

from engine.errors import quoted

Card: TypeAlias = int
"""A physical card id (``copy * 54 + base``)."""
Hand: TypeAlias = int
"""A bitmask of physical card ids."""

RANKS = "23456789TJQKA"
SUITS = "CDHS"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
SUIT_SYMBOLS = ("\u2663", "\u2666", "\u2665", "\u2660")
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(13)
JOKER = 52
"""Base id of the first joker; 53 is the second joker of a pack."""
PACK = 54
"""Base ids per physical pack (52 cards and two joker slots)."""
JOKER_TOKEN = "JK"

BASE_TOKENS: tuple[str, ...] = (*(r + s for s in SUITS for r in RANKS), JOKER_TOKEN, JOKER_TOKEN)
_TOKEN_TO_BASE: dict[str, int] = {t: i for i, t in enumerate(BASE_TOKENS[:52])}
_TOKEN_TO_BASE[JOKER_TOKEN] = JOKER

SUIT_MASKS: Final[tuple[int, ...]] = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
"""Bitmask of the 13 base cards of each suit (first pack only)."""

MAX_PACKS = 4
TOKENS: Final[tuple[str, ...]] = BASE_TOKENS * MAX_PACKS
"""Token of every physical id, for up to four packs."""


def card(tok: str) -> Card:
    """The base card id of a token; raises ``ValueError`` for anything but strict notation."""
    try:
        return _TOKEN_TO_BASE[tok]
    except KeyError:
        raise ValueError(bad_card_message(tok)) from None


def bad_card_message(tok: str) -> str:
    return (f"bad card {quoted(tok)}: write rank then suit, e.g. 'TH' or 'QS' "
            "(ranks 2-9 T J Q K A, suits C D H S, joker JK)")


def is_token(tok: str) -> bool:
    return tok in _TOKEN_TO_BASE


def token(c: Card) -> str:
    return TOKENS[c]


def base(c: Card) -> int:
    return c % PACK


def rank_of(c: Card) -> int:
    """Rank 0..12 (2..A); 13 for a joker."""
    b = c % PACK
    return 13 if b >= JOKER else b % 13


def suit_of(c: Card) -> int:
    """Suit 0..3 (C D H S); 4 for a joker."""
    b = c % PACK
    return 4 if b >= JOKER else b // 13


def is_joker(c: Card) -> bool:
    return c % PACK >= JOKER


def make(rank: int, suit: int) -> Card:
    return suit * 13 + rank


def mask_of(cards: Iterable[Card]) -> Hand:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: Hand) -> Iterator[Card]:
    """The card ids in a mask, lowest id first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def tokens_of(cards: Iterable[Card]) -> list[str]:
    return [TOKENS[c] for c in cards]


def pretty(c: Card) -> str:
    """Display form with a suit symbol (never used in notation)."""
    if is_joker(c):
        return "\U0001f0cf"
    r = RANKS[rank_of(c)]
    return ("10" if r == "T" else r) + SUIT_SYMBOLS[suit_of(c)]


def build_deck(ranks: Iterable[int] = range(13), jokers: int = 0, packs: int = 1) -> list[Card]:
    """Physical card ids of ``packs`` packs holding ``ranks`` in every suit and ``jokers`` jokers
    in all (spread two per pack)."""
    if not 1 <= packs <= MAX_PACKS:
        raise ValueError(f"packs must be 1..{MAX_PACKS}, got {packs}")
    if not 0 <= jokers <= 2 * packs:
        raise ValueError(f"at most two jokers per pack: {jokers} jokers in {packs} pack(s)")
    rank_list = sorted(set(ranks))
    deck = [p * PACK + make(r, s) for p in range(packs) for s in range(4) for r in rank_list]
    deck += [(j // 2) * PACK + JOKER + j % 2 for j in range(jokers)]
    return deck


def deck_52() -> list[Card]:
    """The standard 52-card pack."""
    return build_deck()


def deck_32() -> list[Card]:
    """Piquet pack: 7 to A in four suits (manille and jass games)."""
    return build_deck(range(SEVEN, ACE + 1))


def deck_36() -> list[Card]:
    """6 to A in four suits (Handjas)."""
    return build_deck(range(SIX, ACE + 1))


def deck_48_no_tens() -> list[Card]:
    """52 minus the tens (Butifarra)."""
    return build_deck([r for r in range(13) if r != TEN])


def deck_24() -> list[Card]:
    """9 to A in four suits (three-player Honderden)."""
    return build_deck(range(NINE, ACE + 1))


def deck_54() -> list[Card]:
    """52 cards and two jokers (Genive, Geneve, Wildcard Rummy)."""
    return build_deck(jokers=2)


def deck_108() -> list[Card]:
    """Two packs and four jokers (the Jokeren family, Loba, two-pack Geneve)."""
    return build_deck(jokers=4, packs=2)


# --------------------------------------------------------------------- physical-id tables
NPHYS = MAX_PACKS * PACK
"""Physical ids of up to four packs (the size of the per-id tables below)."""
IS_JOKER: Final[tuple[bool, ...]] = tuple(c % PACK >= JOKER for c in range(NPHYS))
BASE: Final[tuple[int, ...]] = tuple(c % PACK for c in range(NPHYS))
PHYS: Final[dict[str, tuple[int, ...]]] = {}
"""Token -> the physical ids carrying it, in pack order (jokers: both of every pack)."""
for _p in range(MAX_PACKS):
    for _b in range(PACK):
        PHYS[TOKENS[_b]] = (*PHYS.get(TOKENS[_b], ()), _p * PACK + _b)
JOKER_MASK: Final[Hand] = sum((1 << (_p * PACK + JOKER)) | (1 << (_p * PACK + JOKER + 1))
                              for _p in range(MAX_PACKS))
"""Every joker id of up to four packs."""
BASE52: Hand = (1 << 52) - 1
DISCARD: Final[tuple[str, ...]] = tuple("discard " + TOKENS[c] for c in range(NPHYS))
"""The action ``discard <token>`` per physical id."""

def bits(mask: Hand) -> list[Card]:
    """The card ids of a mask as a list, lowest first (one step per card: hands are sparse masks,
    and this beats a 16-bit table on every hand of the draw-and-discard games)."""
    out: list[int] = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_names(names: tuple[str, ...], mask: Hand) -> list[str]:
    """A fresh list of ``names[c]`` for each card ``c`` of ``mask``, lowest id first, card by card
    (no list of ids between): a mask's tokens (:func:`hand_tokens`), or its actions from a tuple of
    one action string per card (Hartenjagen's legal lists in the compiled build, where a card-by-card
    walk beats joining 13-bit suit-table entries: bench/README.md, "The compiled build"); a tuple, which
    the compiled build indexes natively (a Sequence costs it a generic lookup a card)."""
    out: list[str] = []
    while mask:
        low = mask & -mask
        out.append(names[low.bit_length() - 1])
        mask ^= low
    return out


def hand_tokens(mask: Hand) -> list[str]:
    """The tokens of a mask's cards, lowest id first."""
    return mask_names(TOKENS, mask)


def base_set(mask: Hand) -> Hand:
    """Mask over the 52 base ids of the natural cards in ``mask`` (any pack)."""
    m = 0
    while mask:
        m |= mask & BASE52
        mask >>= PACK
    return m


def value_table(ace: int, face: int = 10, joker: int = 0, two: int | None = None) -> tuple[int, ...]:
    """Value per physical id: pips at face value (a 2 is ``two`` if given), J/Q/K ``face``,
    A ``ace``, joker ``joker``."""
    out = []
    for c in range(NPHYS):
        b = c % PACK
        if b >= JOKER:
            out.append(joker)
            continue
        r = b % 13
        v = ace if r == ACE else face if r >= JACK else r + 2
        if r == TWO and two is not None:
            v = two
        out.append(v)
    return tuple(out)


def find_token(hand: Hand, tok: str) -> Card | None:
    """The lowest physical card in ``hand`` whose token is ``tok`` (jokers: either joker)."""
    b = _TOKEN_TO_BASE.get(tok)
    if b is None:
        return None
    for p in range(MAX_PACKS):
        for c in ((p * PACK + JOKER, p * PACK + JOKER + 1) if b == JOKER else (p * PACK + b,)):
            if hand >> c & 1:
                return c
    return None
