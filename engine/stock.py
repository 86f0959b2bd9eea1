"""The draw-and-discard kernel: what every game with a stock and a discard pile shares.

Used by the drift rummies (``engine.games.rummy._rummy``), the knock rummies (``_knock``), the shedding
games (``_shedding``) and ``tonk``; the family modules keep only their turn protocol and scoring.

* :func:`deal_injected`: an injected deal (RULES.md X6) checked by :func:`engine.deal.check_deal`
  turned into the game's cards -- the hands as masks, the stock (top card last; shuffled from the
  seed when the deal gives none), the up-card and the deal's card mask.  :func:`read_totals` and
  :func:`read_seat` check the extra keys most of these games accept (``totals``, ``first``).
* :class:`ReformRule`: the one re-forming policy (X3/X7) as frozen knobs -- ``shuffle`` the
  discard pile into a new stock, turn it over (``flip``: the pile's oldest card on top) or never
  (``none``); how many top cards stay on the pile; a cap on re-formings per deal.
* :class:`DrawDiscardState`: hidden cards and ``determinize`` over ``hands``, ``known`` (the
  cards a seat is publicly known to hold, taken from the discard pile) and ``stock``.
  :func:`reform_mode` reads a game's option ``reshuffle``.
* :func:`kept_for_discard`: the card table play must leave for the final discard.

>>> rule = ReformRule("flip", cap=1)
>>> rule.reform([1, 2, 3], 0, random.Random(0))
([2, 1], [3])
>>> rule.reform([1, 2, 3], 1, random.Random(0)) is None
True
"""
from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeVar

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # the pure source runs without it (the sandbox's interpreter); only mypyc reads it
    from collections.abc import Callable
    _C = TypeVar("_C")

    def mypyc_attr(*attrs: str, **kwattrs: object) -> Callable[[_C], _C]:
        return lambda cls: cls

from engine.cards import bits
from engine.core import State
from engine.deal import Cards, Deal

ReformMode = Literal["shuffle", "flip", "none"]
T = TypeVar("T")


@dataclass(frozen=True)
class Dealt:
    """An injected deal as the game's cards."""

    hands: list[int]
    """One mask per seat."""
    stock: list[int]
    """Top card last."""
    upcard: int | None
    mask: int
    """Every card of the deal (hands, stock and up-card): the state's ``deck_mask``."""


def deal_injected(d: Deal, deck: Iterable[int], rng: random.Random) -> Dealt:
    """The cards of a checked deal ``d`` over the game's ``deck``: each token takes the first copy
    not yet taken; without a given stock the cards left are shuffled with ``rng`` into one."""
    cards = Cards(deck)
    hands = [0] * len(d.hands)
    for s, toks in enumerate(d.hands):
        for tok in toks:
            hands[s] |= 1 << cards.take(tok)
    up = cards.take(d.upcard) if d.upcard is not None else None
    if d.stock is not None:
        stock = [cards.take(t) for t in d.stock]
        stock.reverse()  # internal: top card last
    else:
        stock = cards.rest()
        rng.shuffle(stock)
    m = 0
    for h in hands:
        m |= h
    for c in stock:
        m |= 1 << c
    if up is not None:
        m |= 1 << up
    return Dealt(hands, stock, up, m)


def read_totals(deal: dict[str, Any], players: int, *, ints: bool) -> list[Any] | None:
    """An injected deal's ``totals`` (match totals so far, one per seat), None when not given.

    ``ints``: whole numbers only (games scoring in points); else any finite numbers, as floats."""
    totals = deal.get("totals")
    if totals is None:
        return None
    if ints:
        if (not isinstance(totals, list) or len(totals) != players
                or not all(isinstance(t, int) and not isinstance(t, bool) for t in totals)):
            raise ValueError(f"injected deal: 'totals' must list {players} ints, one per seat")
        return list(totals)
    if (not isinstance(totals, list) or len(totals) != players
            or not all(isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t)
                       for t in totals)):
        raise ValueError(f"injected deal: 'totals' must list {players} numbers, one per seat")
    return [float(t) for t in totals]


def read_seat(deal: dict[str, Any], key: str, active: Sequence[bool], default: int) -> int:
    """An injected deal's seat-valued key (``first``): a seat still in the match."""
    seat = deal.get(key, default)
    n = len(active)
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < n or not active[seat]:
        raise ValueError(f"injected deal: '{key}' must be a seat 0..{n - 1} still in, got {seat!r}")
    return seat


@dataclass(frozen=True)
class ReformRule:
    """X3/X7: how a new stock is formed from the discard pile.

    ``mode``: ``shuffle`` the pile (less its top ``keep`` cards) into the stock, ``flip`` it (turned
    over unshuffled: the pile's oldest card becomes the top of the stock) or ``none`` (never).
    ``cap``: re-formings allowed per deal (None: no cap).
    """

    mode: ReformMode = "shuffle"
    cap: int | None = None
    keep: int = 1
    """Cards left on the discard pile (its top card stays face up; 0: the whole pile goes)."""

    def reform(self, pile: list[int], reforms: int, rng: random.Random) -> tuple[list[int], list[int]] | None:
        """(new stock, top card last; the discard pile left) from ``pile`` (top card last) after
        ``reforms`` re-formings this deal, or None when no stock can be formed.  ``pile`` is
        reused; shuffling draws from ``rng``."""
        if self.mode == "none" or len(pile) <= self.keep or (self.cap is not None and reforms >= self.cap):
            return None
        if self.keep:
            kept = pile[-self.keep:]
            del pile[-self.keep:]
        else:
            kept = []
        if self.mode == "flip":
            pile.reverse()
        else:
            rng.shuffle(pile)
        return pile, kept


@dataclass(frozen=True)
class ReformOptions:
    """X7's option of the games that have it (their typed options subclass this): ``max_reforms``,
    stock re-formings per deal before the deal ends with no winner (None: no cap)."""

    max_reforms: int | None


@dataclass(frozen=True)
class ReshuffleOptions(ReformOptions):
    """X3's option ``reshuffle`` (True: shuffle the pile, False: turn it over), with X7's cap."""

    reshuffle: bool


def reform_mode(default: ReformMode, options: object) -> ReformMode:
    """X3: the family's ``default``, or the game's option ``reshuffle`` where it has one (its typed
    options, ``Game.options_type``, are :class:`ReshuffleOptions`; True: shuffle, False: turn the
    pile over)."""
    if not isinstance(options, ReshuffleOptions):
        return default
    return "shuffle" if options.reshuffle else "flip"


def reform_cap(options: object, default: int | None) -> int | None:
    """X7: the game's option ``max_reforms`` where it has one (:class:`ReformOptions`), else
    ``default``."""
    return options.max_reforms if isinstance(options, ReformOptions) else default


def match_start(players: int, zero: T) -> tuple[list[T], list[T], list[bool]]:
    """A match's starting totals, the totals it started from (both ``zero``) and every seat in."""
    return [zero] * players, [zero] * players, [True] * players


def kept_for_discard(keep_for_discard: bool, out_allowed: bool) -> int:
    """Cards table play must leave in hand: one for the discard that ends the turn, two while going
    out is not allowed yet (the discard must not be the last card)."""
    if not keep_for_discard:
        return 0
    return 1 if out_allowed else 2


@mypyc_attr(allow_interpreted_subclasses=True)
class DrawDiscardState(State):
    """Hidden cards and determinization of a draw-and-discard game.

    A subclass keeps ``hands`` (masks), ``known`` (per seat, the cards it is known to hold) and
    ``stock`` (a list, top card last).  The cards another seat holds and the viewer does not know
    are hidden; ``determinize`` redeals them with the stock (when ``stock_hidden``).
    """

    hands: list[int]
    known: list[int]
    stock: list[int]
    active: list[bool]
    """Per seat, still in the match (games that eliminate players)."""
    shown_at_end: ClassVar[bool] = True
    """At the match's end every hand has been shown: nothing is hidden any more."""

    def _next_active(self, seat: int) -> int:
        """The next seat after ``seat`` still in the match."""
        n = self.players
        s = (seat + 1) % n
        while not self.active[s]:
            s = (s + 1) % n
        return s

    def hidden_cards(self, viewer: int) -> int:
        if self.shown_at_end and self._over:
            return 0
        m = 0
        for s, h in enumerate(self.hands):
            if s != viewer:
                m |= h & ~self.known[s]
        return m

    def _redeal_hidden(self, new: DrawDiscardState, seat: int, rng: random.Random,
                       stock_hidden: bool = True) -> list[int]:
        """Deal ``new`` (a clone) other hands at random from the cards hidden from ``seat`` (and the
        stock when ``stock_hidden``); reseed its RNG.  Returns the pool left (the new stock)."""
        pool = list(self.stock) if stock_hidden else []
        sizes: list[int] = []
        for s, h in enumerate(self.hands):
            hidden = 0 if s == seat else h & ~self._kept_in_hand(s)
            sizes.append(hidden.bit_count())
            pool += bits(hidden)
        rng.shuffle(pool)
        for s in range(self.players):
            if s == seat:
                continue
            h = self.hands[s] & self._kept_in_hand(s)
            for _ in range(sizes[s]):
                h |= 1 << pool.pop()
            new.hands[s] = h
        return pool

    def _kept_in_hand(self, s: int) -> int:
        """Hook: the cards of seat ``s`` that a redeal keeps in its hand (every seat knows them)."""
        return self.known[s]

    @staticmethod
    def _reseed(new: State, rng: random.Random) -> None:
        """The clone's own RNG from ``rng``, so the future stock order is not leaked."""
        new.rng = random.Random(rng.getrandbits(64))
        new._legal = None

    def determinize(self, seat: int, rng: random.Random) -> State:
        new = self.clone()
        assert isinstance(new, DrawDiscardState)
        new.stock = self._redeal_hidden(new, seat, rng)
        self._after_redeal(new, seat)
        self._reseed(new, rng)
        return new

    def _after_redeal(self, new: Any, seat: int) -> None:
        """Hook: what else a determinized clone forgets (a take-back point of another seat)."""
