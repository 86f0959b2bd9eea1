"""Injected deals (CONTRACT.md ``deal=``, RULES.md X6): the one strict validator every game calls.

A game's deal parser states what its deal is made of (the pack, each seat's hand size, whether
the cards not in the hands form the stock, whether an up-card is turned, its own extra keys) and
calls :func:`check_deal` first; what comes back is known to be well formed, so the parser only
turns tokens into the game's cards (:class:`Cards` hands out physical cards of multi-pack decks).

Checked, each failure a ``ValueError`` naming the problem: the deal is a dict with known keys only;
``dealer``, when given, is a seat (``None`` is refused; left out, the game's default applies);
``hands`` lists one list of card tokens per seat; every token is a card of the game's pack and no
card appears more often than the pack holds it; each hand has the size the game deals; the hands,
up-card and stock together are the whole pack (no card missing); a ``stock`` or ``upcard`` given to
a game that has none is refused.

``"partial": True`` marks a test position instead of a deal: hand sizes are free and the cards not
listed are out of play (the conservation check covers the cards given).  Tests use it to set up a
rule's situation in a few cards; without it a deal must be complete.

>>> d = check_deal({"dealer": 1, "hands": [["AS"], ["KS"]], "stock": ["QS"]}, game="g", players=2,
...                pack=["AS", "KS", "QS"], sizes=[1, 1], stock="rest")
>>> d.dealer, d.hands, d.stock, d.upcard
(1, [['AS'], ['KS']], ['QS'], None)
>>> check_deal({"hands": [["AS"], ["KS"]], "stock": ["QS"]}, game="g", players=2,
...            pack=["AS", "KS", "QS", "JS"], sizes=[1, 1], stock="rest")
Traceback (most recent call last):
ValueError: g deal: the hands and stock leave out 1 card of the pack: JS ("partial": True for a test position)
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from engine.cards import TOKENS, bad_card_message, is_token

StockMode = Literal["none", "rest"]
"""``none``: the game has no stock (every card is dealt); ``rest``: the cards not dealt are the
stock, and a given ``stock`` must list them all (omitted: they are shuffled from the seed)."""
UpcardMode = Literal["none", "optional", "required", "partial"]
"""``partial``: the game turns no up-card, but a test position may put one on the discard pile."""

BASE_KEYS = ("dealer", "hands", "stock", "upcard", "partial")


@dataclass(frozen=True)
class Deal:
    """A checked injected deal: tokens as given (stock top first)."""

    game: str
    dealer: int | None
    """None when the deal leaves ``dealer`` out (the game's default applies)."""
    hands: list[list[str]]
    stock: list[str] | None
    """None when not given (or the game has no stock)."""
    upcard: str | None
    partial: bool
    zones: dict[str, list[str]]
    """The game's extra card zones that were given (Handjas ``dead_hand``, ``extra_hand``)."""


def pack_tokens(deck: Iterable[int]) -> list[str]:
    """The tokens of a deck of physical cards (a multiset with several packs)."""
    return [TOKENS[c] for c in deck]


def check_deal(deal: Any, *, game: str, players: int, pack: Iterable[str],
               sizes: Sequence[int] | None, stock: StockMode = "none", upcard: UpcardMode = "none",
               extra: Iterable[str] = (), zones: Iterable[str] = (),
               seats: Sequence[bool] | None = None) -> Deal:
    """Check an injected ``deal`` strictly (see the module docstring) and return it parsed.

    ``pack``: the tokens of every card of the game (repeated for several packs); ``sizes``: each
    seat's hand size (None: any size, e.g. a deal the game takes as given); ``extra``: the game's
    own non-card keys (checked by the game); ``zones``: the game's own card-list keys, counted with
    the hands; ``seats``: which seats are in the match (a seat out may not be dealer).
    """
    where = f"{game} deal"
    if not isinstance(deal, dict):
        raise ValueError(f"{where}: must be a dict such as {{'dealer': 0, 'hands': [[...], ...]}}, "
                         f"got {type(deal).__name__}")
    zone_keys = tuple(zones)
    known = (*BASE_KEYS, *zone_keys, *extra)
    unknown = [k for k in deal if k not in known]
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; "
                         f"known keys: {', '.join(known)}")
    partial = deal.get("partial", False)
    if not isinstance(partial, bool):
        raise ValueError(f"{where}: 'partial' must be True or False, got {partial!r}")
    dealer = deal.get("dealer")
    if "dealer" in deal and (not isinstance(dealer, int) or isinstance(dealer, bool)
                             or not 0 <= dealer < players or (seats is not None and not seats[dealer])):
        raise ValueError(f"{where}: 'dealer' must be a seat 0..{players - 1}"
                         f"{' still in the match' if seats is not None else ''}, got {dealer!r}")
    if "hands" not in deal:
        raise ValueError(f"{where}: 'hands' is missing (one list of card tokens per seat)")
    hands = _card_lists(deal["hands"], where, "hands", players)
    counts = Counter(pack)
    used: Counter[str] = Counter()

    def count(toks: list[str], what: str) -> None:
        for tok in toks:
            if not isinstance(tok, str) or not is_token(tok):
                raise ValueError(f"{where}: {what}: {bad_card_message(tok)}")
            if tok not in counts:
                raise ValueError(f"{where}: {what}: bad card {tok}: not a card of this game's pack")
            used[tok] += 1
            if used[tok] > counts[tok]:
                raise ValueError(f"{where}: {what}: {tok} appears more often than the pack holds it: "
                                 f"given {_times(used[tok])}, the pack has {_times(counts[tok])}")

    for i, h in enumerate(hands):
        count(h, f"hands[{i}]")
    got_zones: dict[str, list[str]] = {}
    for z in zone_keys:
        if deal.get(z) is not None:
            got_zones[z] = _cards(deal[z], where, z)
            count(got_zones[z], z)
    up = deal.get("upcard")
    if up is not None:
        if upcard == "none" or (upcard == "partial" and not partial):
            raise ValueError(f"{where}: this game turns no up-card; 'upcard' must be None or left out, "
                             f"got {up!r}")
        count([up], "upcard")
    elif upcard == "required":
        raise ValueError(f"{where}: 'upcard' must name the turned card")
    st = deal.get("stock")
    stock_list: list[str] | None = None
    if st is not None:
        stock_list = _cards(st, where, "stock")
        if stock == "none" and stock_list:
            raise ValueError(f"{where}: this game deals every card and has no stock; 'stock' must be "
                             f"empty or left out, got {len(stock_list)} cards")
        count(stock_list, "stock")
    out = Deal(game, dealer, hands, stock_list if stock != "none" else None, up, partial, got_zones)
    if sizes is not None:
        check_sizes(out, sizes)
    if not partial and (stock == "none" or (stock == "rest" and stock_list is not None)):
        missing = counts - used
        if missing:
            parts = "hands" + (", zones" if got_zones else "") + (", up-card" if up is not None else "") \
                + (" and stock" if stock == "rest" else "")
            shown = " ".join(sorted(missing.elements())[:12]) + (" ..." if sum(missing.values()) > 12 else "")
            n = sum(missing.values())
            raise ValueError(f"{where}: the {parts} leave out {n} card{'s' if n != 1 else ''} of the pack: "
                             f"{shown} (\"partial\": True for a test position)")
    return out


def check_sizes(deal: Deal, sizes: Sequence[int]) -> None:
    """Each hand has the size the game deals to that seat (free in a test position).  Games whose
    sizes depend on the deal's own keys (seats eliminated before it) call this after reading them."""
    if deal.partial:
        return
    for i, h in enumerate(deal.hands):
        if len(h) != sizes[i]:
            rule = (f"each hand holds {sizes[i]}" if len(set(sizes)) == 1
                    else f"seat {i} is dealt {sizes[i]} (hand sizes {list(sizes)})")
            raise ValueError(f"{deal.game} deal: hands[{i}] has {len(h)} cards; {rule}")


def _times(k: int) -> str:
    return {1: "once", 2: "twice"}.get(k, f"{k} times")


def _card_lists(v: Any, where: str, key: str, n: int) -> list[list[str]]:
    if not isinstance(v, (list, tuple)) or len(v) != n:
        raise ValueError(f"{where}: '{key}' must list {n} hands (lists of card tokens), one per seat")
    return [_cards(h, where, f"{key}[{i}]") for i, h in enumerate(v)]


def _cards(v: Any, where: str, key: str) -> list[str]:
    if not isinstance(v, (list, tuple)):
        raise ValueError(f"{where}: '{key}' must be a list of card tokens, got {type(v).__name__}")
    return list(v)


class Cards:
    """The physical cards of a deck handed out by token: each :meth:`take` gives the first copy
    not yet taken (decks of several packs repeat tokens)."""

    def __init__(self, deck: Iterable[int]) -> None:
        self.free: dict[str, list[int]] = {}
        for c in sorted(deck):
            self.free.setdefault(TOKENS[c], []).append(c)
        for copies in self.free.values():
            copies.reverse()  # pop() gives the lowest copy first

    def take(self, tok: str) -> int:
        return self.free[tok].pop()

    def rest(self) -> list[int]:
        """The cards not taken, in ascending order."""
        return sorted(c for copies in self.free.values() for c in copies)
