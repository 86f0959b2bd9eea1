"""Shared machinery of the drift rummies: RULES.md "Common rummy definitions", X3 and X7.

Used by ``jokeren_nl``, ``jokeren_drift`` and ``amerikaans_jokeren`` (and open to ``loba`` and
``ramino_drift``).  The game modules add deck, hand size, card values, opening rules, scoring,
match end and their rule events through the hooks of :class:`RummyState`.

A turn (phase ``draw``, then ``play``):

* ``draw stock`` or ``draw discard`` (the top discard; where the game allows it).
* Table play, any number of times, in any order:

  - ``meld 7H`` / ``meld JK=8H``: put one card on the meld being built (meld protocol).  The first
    card of a meld is a natural card; a joker names the card it stands for (in a set: the rank and
    a suit the set lacks).  A card is offered only if the meld can still be completed from the hand
    while keeping the card(s) the turn still needs (the card kept for the discard).
  - ``confirm``: the meld being built is legal; it goes on the table as meld number N (melds are
    numbered from 1 in the order laid, over all players).
  - ``layoff 8H 3`` / ``layoff JK=8H 3``: add one card to table meld 3 (a run at either end, a set a
    suit it lacks).
  - ``swap 7H 3``: put the natural 7H in the place of the joker of meld 3 that stands for 7H; the
    joker goes to the hand and must be laid again this turn ("use it at once").
  - ``takeback``: while the turn cannot end as it stands (a meld not yet confirmed, a card that must
    be used still in hand, an opening requirement unmet), everything laid this turn goes back: hand
    and table return to their state just after the draw; a card taken from the discard pile stays
    taken (meld protocol, revised turn 2).  It is offered in every position from which the turn
    cannot end as it stands (no discard is legal: Loba's hand of jokers that can be laid, L13,
    included).  At most ``max_takebacks`` (3) take-backs per turn; after the third, ``takeback``
    is no longer offered and exactly the actions after which the turn can still end are offered:
    every discard, meld card, confirm, lay-off or swap from which some line still ends the turn,
    each checked by the exact turn search (:meth:`RummyState._finishable`, ``engine.deadwood``);
    the engine never picks the line (revised turn 3).
* ``discard 5H`` ends the turn, and discarding the last card goes out.  It is offered only when the
  turn can end.

The deal, the stock, hidden cards and ``determinize`` are the draw-and-discard kernel's
(:mod:`engine.stock`); meld forms and candidates are in :mod:`engine.melds` and the exact turn search
in :mod:`engine.deadwood`.

Stock (X3): the stock is re-formed at once after the draw that empties it: the top discard stays,
the rest is shuffled (``reform="shuffle"``, event ``stock_reshuffled``) or turned over unshuffled
(``reform="flip"``, the pile's oldest card on top, event ``stock_flipped``).  X7: at most
``max_reforms`` re-formings per deal (``None``: no cap); a turn that begins with an empty stock that
cannot be re-formed ends the deal without a winner (``deal_without_winner``).

Injected deal (X6): ``{"dealer": d, "hands": [[...], ...], "stock": [... top first],
"upcard": "QS" or None}`` (``"stock"`` optional: the other cards shuffled), optional
``"totals"`` (match totals so far) and ``"deal_no"`` (the number of the injected deal, from 1).
"""
from __future__ import annotations

import random
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import replace
from typing import Any, ClassVar, Final

from engine.cards import (
    ACE,
    BASE,
    DISCARD,
    IS_JOKER,
    JOKER,
    JOKER_MASK,
    PACK,
    PHYS,
    TOKENS,
    base_set,
    bits,
    card,
    hand_tokens,
    value_table,
)
from engine.core import Game, State
from engine.deadwood import MeldSpec, Solver, plan_search
from engine.deal import check_deal, check_sizes, pack_tokens
from engine.errors import IllegalAction
from engine.melds import (
    GroupRule,
    Item,
    RunRule,
    check_group,
    check_run,
    item_token,
    meld_token_lists,
    pos_base,
)
from engine.stock import (
    DrawDiscardState,
    ReformMode,
    ReformRule,
    deal_injected,
    kept_for_discard,
    match_start,
    read_totals,
    reform_cap,
    reform_mode,
)

SPREAD: Final = 1 | 1 << 13 | 1 << 26 | 1 << 39
RANK_MASK: Final[tuple[int, ...]] = tuple(sum(1 << (s * 13 + r) for s in range(4)) for r in range(13))

DRAWS: Final = ("draw stock", "draw discard")

SuitTable = list[tuple[tuple[str, ...], ...]]
_SUIT_TABLES: Final[dict[str, SuitTable]] = {}
"""Per action prefix, built on first use: per suit, per 13-bit rank mask, the action strings
``prefix + card`` in rank order."""


def suit_table(prefix: str) -> SuitTable:
    """The table of :data:`_SUIT_TABLES` for ``prefix`` (built by doubling on the first call)."""
    tab = _SUIT_TABLES.get(prefix)
    if tab is None:
        tab = []
        for s in range(4):
            t: list[tuple[str, ...]] = [()]
            for r in range(13):
                act = prefix + TOKENS[s * 13 + r]
                t += [(*x, act) for x in t]
            tab.append(tuple(t))
        _SUIT_TABLES[prefix] = tab
    return tab


def by_suit(prefix: str, bases: int) -> list[str]:
    """The actions ``prefix + card`` for the base cards in ``bases``, suit by suit."""
    tab = _SUIT_TABLES.get(prefix) or suit_table(prefix)
    return [*tab[0][bases & 0x1FFF], *tab[1][bases >> 13 & 0x1FFF], *tab[2][bases >> 26 & 0x1FFF],
            *tab[3][bases >> 39 & 0x1FFF]]


MELD1: Final[tuple[str, ...]] = tuple("meld " + TOKENS[b] for b in range(52))
MELDJ: Final[tuple[str, ...]] = tuple("meld JK=" + TOKENS[b] for b in range(52))

RUMMY_VERBS: Final[dict[str, tuple[str, str]]] = {
    "confirm": ("none", "confirm"),
    "takeback": ("none", "takeback"),
    "swap": ("layoff", "swap 7H 3"),
}


def rule_aces(rule: RunRule) -> tuple[int, ...]:
    """The run positions an ace may take under ``rule``: 0 (low) and/or 13 (high)."""
    return ((0,) if rule.ace_low else ()) + ((13,) if rule.ace_high else ())


def nat_strings(acc: tuple[int, list[str]], i: int) -> list[tuple[int, str]]:
    """The natural lay-off actions of a meld numbered ``i + 1`` that takes the bases ``acc[0]``."""
    return [(x, f"layoff {TOKENS[x]} {i + 1}") for x in bits(acc[0])]


OPEN_POINTS: Final = value_table(ace=11, face=10, joker=0)
"""Per base id (ace high 11); a joker is counted as the card it names (AJ3 through JD6: the
Jokeren family's opening points)."""


def meld_points(kind: str, items: list[Item], lo: int) -> int:
    """AJ3: the points of a meld, a joker as its card, an ace 1 when low in a run."""
    total = 0
    for i, (c, nm) in enumerate(items):
        b = BASE[c] if nm is None else nm
        if b % 13 == ACE and kind == "run" and lo + i == 0:
            total += 1
        else:
            total += OPEN_POINTS[b]
    return total


class Meld:
    """A meld on the table (or being built): items in order, kind ``run`` or ``set``."""

    acc: tuple[int, list[str]] | None
    """Cached lay-off targets: natural base mask and joker lay-off actions (None: not computed)."""

    def __init__(self, items: list[Item], kind: str, owner: int, lo: int = 0) -> None:
        self.items = items
        self.kind = kind
        self.owner = owner
        self.lo = lo
        """Run position of the first item (runs only)."""
        self.acc = None
        self.jn = -1
        """The base cards its jokers name, as a mask (-1: not computed; reset with ``acc``)."""
        self.txt: str | None = None
        """:meth:`text`, once asked (None: not computed; reset with ``acc``)."""

    def changed(self) -> None:
        """Its items changed (a lay-off, a swap, a joker moved): the cached views are dropped."""
        self.acc = None
        self.jn = -1
        self.txt = None

    def clone(self) -> Meld:
        m = Meld(list(self.items), self.kind, self.owner, self.lo)
        m.acc = self.acc
        m.jn = self.jn
        m.txt = self.txt
        return m

    def text(self) -> str:
        t = self.txt
        if t is None:
            t = self.txt = " ".join([item_token(i) for i in self.items])
        return t

    def mask(self) -> int:
        m = 0
        for c, _ in self.items:
            m |= 1 << c
        return m

    def jokers(self) -> int:
        return sum(1 for c, _ in self.items if IS_JOKER[c])

    def joker_names(self) -> int:
        """The mask of the base cards its jokers name (cached in :attr:`jn`)."""
        jn = self.jn
        if jn < 0:
            jn = 0
            for _c, nm in self.items:
                if nm is not None:
                    jn |= 1 << nm
            self.jn = jn
        return jn


class RummyGame(Game):
    """A drift rummy (not registered itself): deck, meld rules and the table-play policy."""

    family = "rummy"
    extra_verbs: ClassVar[dict[str, tuple[str, str]]] = RUMMY_VERBS
    hand_size: ClassVar[int] = 13
    run_rule: ClassVar[RunRule] = RunRule(min_len=3, ace_low=True, ace_high=True, min_naturals=1)
    set_rule: ClassVar[GroupRule] = GroupRule(min_size=3, max_size=4, distinct_suits=True, jokers=True)
    reform: ClassVar[ReformMode] = "shuffle"
    """X3: ``shuffle`` or ``flip`` the discard pile (less its top card) into a new stock."""
    keep_for_discard: ClassVar[bool] = True
    """Going out needs a final discard: table play leaves at least 1 card (2 before going out is
    allowed)."""
    out_after_everyone: ClassVar[bool] = True
    """Nobody goes out before everyone has had a turn (earliest: the dealer's first turn)."""
    joker_reuse: ClassVar[str] = "meld"
    """A joker freed by a swap must be laid again this turn: ``meld`` (in a new meld) or ``any``
    (a new meld or a lay-off)."""
    upcard: ClassVar[bool] = True
    """One card is turned to start the discard pile."""
    free_discard: ClassVar[bool] = True
    """Any card may be discarded (no ``_discard_ok`` restriction): a faster path."""
    max_takebacks: ClassVar[int] = 3
    """Take-backs per turn (meld protocol); after the last one exactly the actions after which the
    turn can still end are offered, so that every turn ends (revised turn 3)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.cache: dict[Any, Any] = {}
        self.run_table: list[list[int]] = []
        """Per number of jokers (0 .. the run length), per one suit's 13-bit rank mask: the ranks that
        start a run (-1: not computed yet; each list made on first use)."""
        self._ace_rules: tuple[RunRule, ...] | None = None
        self._reform_rule: ReformRule | None = None
        # native copies of the class's rules for the hot paths (compiled code reads a ClassVar
        # through the type's dict, by name, on every access)
        self.rrule: RunRule = self.run_rule
        self.srule: GroupRule = self.set_rule
        self.keeps_discard: bool = self.keep_for_discard
        self.outs_after_everyone: bool = self.out_after_everyone
        self.reuse: str = self.joker_reuse
        self.frees_discard: bool = self.free_discard
        self.takeback_cap: int = self.max_takebacks
        self.aces: tuple[int, ...] = rule_aces(self.run_rule)

    def deck(self) -> list[int]:
        raise NotImplementedError

    def run_rules_each_ace(self) -> tuple[RunRule, ...]:
        """The run rule once per allowed ace placement (low, then high)."""
        rules = self._ace_rules
        if rules is None:
            r = self.run_rule
            rules = tuple(replace(r, ace_low=low, ace_high=not low) for low in (True, False)
                          if (r.ace_low if low else r.ace_high)) or (r,)
            self._ace_rules = rules
        return rules

    def max_reforms(self) -> int | None:
        return reform_cap(self.opts(object), 3)

    def reform_rule(self) -> ReformRule:
        """X3/X7 of this game (:attr:`reform` or option ``reshuffle``, and ``max_reforms``), made once."""
        rule = self._reform_rule
        if rule is None:
            rule = self._reform_rule = ReformRule(
                reform_mode(self.reform, self.opts(object)), self.max_reforms(), keep=1)
        return rule


class RummyState(DrawDiscardState):
    """The deal machinery of the drift rummies; the games add scoring and the match end."""
    shown_at_end: ClassVar[bool] = False
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "hand": "your cards (list[card]; a multiset: a two-pack game repeats tokens)",
        "dealer": "the seat that dealt this deal (int)",
        "turn": "the seat whose turn it is (int)",
        "table": "the melds on the table: dicts with `n` (the number `layoff` uses), `owner`, `kind` "
            "(`run`/`set`) and `cards` (a space-separated string, jokers as `JK=6H`)",
        "building": "the cards of the meld you are laying, one `meld` action per card, before `confirm` "
            "(list[card])",
        "discard_top": "the top card of the discard pile, null when it is empty",
        "pile_size": "cards in the discard pile (int)",
        "stock_size": "cards left in the stock (int)",
        "reforms": "times the stock was re-formed from the discard pile this deal (int)",
        "hand_sizes": "cards held per seat (list[int])",
        "known_cards": "per seat, the cards it is publicly known to hold (taken from the discard pile), "
            "list[list[card]]",
        "opened": "per seat, whether it has come out (opened) this deal (list[bool])",
        "must_use": "on your turn, the cards you must lay on the table before you discard (a taken discard, "
            "a freed joker) (list[card])",
        "totals": "penalty totals per seat (list[float])",
        "active": "per seat, whether it is still in the match (list[bool])",
        "last_deal": "the previous deal's result, null before one ended: `deal`, `winner` (the seat that "
            "went out, or null) and `points` per seat",
    }
    PHASES: ClassVar[tuple[str, ...]] = (  # engine.rl: every phase, "over" included
        "draw", "play", "over")
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md)
        "scores": "seat_nums:500", "hand": "cards", "dealer": "seat", "turn": "seat", "table": "melds:36",
        "building": "named_cards", "discard_top": "card", "pile_size": "num:108", "stock_size": "num:108",
        "reforms": "num:3", "hand_sizes": "seat_nums:20", "known_cards": "seat_cards",
        "opened": "seat_nums:1", "must_use": "cards", "totals": "seat_nums:500", "active": "seat_nums:1",
    }
    TENSOR_SKIP: ClassVar[dict[str, str]] = {  # engine.rl: keys the tensor leaves out, and why
        "last_deal": "the previous deal's summary: its points are already in `totals`",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    rg: RummyGame
    """``game``, as the rummy game it is (set first in :meth:`_setup`; a compiled class cannot narrow
    the type of ``State.game``)."""
    # ``hands``, ``known`` (cards each seat is publicly known to hold: taken from the discard pile),
    # ``stock`` (top card last) and ``active`` are DrawDiscardState's fields: not declared again here
    # (a compiled subclass that declares a field of its base again visits it twice for the garbage
    # collector, which then frees a list the search's copies share with a live state).
    pile: list[int]
    """The discard pile, top card last."""
    melds: list[Meld]
    building: list[Item]
    turn: int
    dealer: int
    first: int
    totals: list[float]
    start_totals: list[float]
    opened: list[bool]
    """Seat has come out (its opening turn has ended), per the game's definition."""
    turns: int
    """Turns begun in this deal."""
    reforms: int
    must_use: int
    """Cards that must be on the table before the turn ends (taken discard, freed jokers)."""
    snap: tuple[int, list[Meld], int] | None
    """Hand, table and must_use just after the draw, saved at the first table play of the turn."""
    turn_melds: list[int]
    """Indices of the melds this seat laid this turn."""
    turn_laid: list[Meld]
    """Copies of this turn's melds as confirmed (before lay-offs onto them)."""
    turn_layoffs: list[tuple[int, int]]
    """(meld index, card) laid off this turn."""
    turn_swaps: int
    takebacks: int
    """Take-backs in this turn."""
    pickup_refused: bool
    """Only the stock may be drawn this turn (kept for games that need it; take-backs never
    return a taken discard)."""
    stuck: int
    """Times the safety net ended a turn that had no legal action (never, if the rules hold)."""
    took_discard: int
    """The card taken from the discard pile this turn, or -1."""
    last: dict[str, Any] | None
    deal_offset: int

    # ----------------------------------------------------------------- set-up
    def _setup(self, deal: dict[str, Any] | None) -> None:
        game = self.game
        assert isinstance(game, RummyGame)
        self.rg = game
        self.totals, self.start_totals, self.active = match_start(self.players, 0.0)
        self.last = None
        self.deal_offset = 0
        self.stuck = 0
        self._match_setup()
        if deal is None:
            self._start_deal(self._first_dealer())
        else:
            self._inject(deal)

    def _match_setup(self) -> None:
        """Hook: per-match state of the game."""

    def _first_dealer(self) -> int:
        return 0  # X1

    def _reset_deal(self, dealer: int) -> None:
        n = self.players
        self.deal_no += 1
        self.dealer = dealer
        self.first = self._next_active(dealer)
        self.turn = self.first
        self.hands = [0] * n
        self.known = [0] * n
        self.stock = []
        self.pile = []
        self.melds = []
        self.building = []
        self.opened = [False] * n
        self.turns = 0
        self.reforms = 0
        self._clear_turn()
        self._legal = None
        self._deal_setup()

    def _deal_setup(self) -> None:
        """Hook: per-deal state of the game."""

    def _start_deal(self, dealer: int) -> None:
        self._reset_deal(dealer)
        deck = self._deck()
        self.rng.shuffle(deck)
        self.deck_mask = 0
        for c in deck:
            self.deck_mask |= 1 << c
        seats = []
        s = self.first
        for _ in range(self.players):
            if self.active[s]:
                seats.append(s)
            s = (s + 1) % self.players
        for _ in range(self._hand_size()):
            for s in seats:
                self.hands[s] |= 1 << deck.pop()
        self.stock = deck
        if self.rg.upcard and deck:
            self.pile.append(deck.pop())
        self._begin_play()

    def _deck(self) -> list[int]:
        return self.rg.deck()

    def _hand_size(self) -> int:
        return self.rg.hand_size

    def _inject(self, deal: dict[str, Any]) -> None:
        n = self.players
        d = check_deal(deal, game=self.rg.id, players=n, pack=pack_tokens(self._deck()), sizes=None,
                       stock="rest", upcard="optional" if self.rg.upcard else "partial",
                       extra=("totals", "deal_no", *self.deal_keys))
        totals = read_totals(deal, n, ints=False)
        if totals is not None:
            self.totals = totals
            self.start_totals = list(self.totals)
        self._inject_extra(deal)
        check_sizes(d, [self._hand_size() if self.active[s] else 0 for s in range(n)])
        dno = deal.get("deal_no", 1)
        if not isinstance(dno, int) or isinstance(dno, bool) or dno < 1:
            raise ValueError("injected deal: 'deal_no' must be a positive int")
        self.deal_offset = dno - 1
        self.deal_no = dno - 1
        dealer = self._first_dealer() if d.dealer is None else d.dealer
        self._reset_deal(dealer)
        dealt = deal_injected(d, self._deck(), self.rng)
        self.hands = dealt.hands
        self.stock = dealt.stock
        if dealt.upcard is not None:
            self.pile.append(dealt.upcard)
        self.deck_mask = dealt.mask
        self._begin_play()

    deal_keys: ClassVar[tuple[str, ...]] = ()
    """The game-specific keys of an injected deal (read by :meth:`_inject_extra`)."""

    def _inject_extra(self, deal: dict[str, Any]) -> None:
        """Hook: game-specific keys of an injected deal (declared in :attr:`deal_keys`)."""

    def _begin_play(self) -> None:
        """After the deal: the first turn begins (games with an up-card round override)."""
        self._begin_turn(self.first)

    # ----------------------------------------------------------------- turn flow
    def _clear_turn(self) -> None:
        """A turn begins: nothing laid, taken back or owed to the table yet."""
        self.must_use = 0
        self.snap = None
        self.turn_melds = []
        self.turn_laid = []
        self.turn_layoffs = []
        self.turn_swaps = 0
        self.takebacks = 0
        self.took_discard = -1
        self.pickup_refused = False
        self.building = []

    def _begin_turn(self, seat: int) -> None:
        self.turn = seat
        self.phase = "draw"
        self._clear_turn()
        if not self.stock and not self._reform():
            # X7: the stock is empty and cannot be re-formed: the deal ends without a winner
            self._emit("deal_without_winner", reforms=self.reforms)
            self._end_deal(None)
            return
        self.turns += 1

    def _reform(self) -> bool:
        """X3/X7: the discard pile less its top card becomes the new stock, if allowed."""
        rule = self.rg.reform_rule()
        got = rule.reform(self.pile, self.reforms, self.rng)
        if got is None:
            return False
        self.stock, self.pile = got
        self.reforms += 1
        if rule.mode == "flip":
            self._emit("stock_flipped", cards=len(self.stock), reforms=self.reforms)
        else:
            self._emit("stock_reshuffled", cards=len(self.stock), reforms=self.reforms)
        return True

    def out_allowed(self) -> bool:
        """'Not before everyone has had a turn': the earliest is the dealer's first turn."""
        if not self.rg.outs_after_everyone:
            return True
        return self.turns >= self.active.count(True)

    def keep(self) -> int:
        """Cards table play must leave in hand (the card kept for the discard)."""
        k = self.rg.keeps_discard
        return kept_for_discard(k, k and self.out_allowed())  # out_allowed only asked when it counts

    def _current(self) -> int:
        return self.turn

    # ----------------------------------------------------------------- legal actions
    def _legal_actions(self) -> list[str]:
        if self.phase == "draw":
            if self.pile and not self.pickup_refused and self._may_take_discard(self.turn):
                return list(DRAWS)
            return ["draw stock"]
        if self.phase == "play":
            return self._play_actions()
        return self._other_actions()

    def _other_actions(self) -> list[str]:
        """Hook: the legal actions of a game-specific phase."""
        raise NotImplementedError(self.phase)

    def _play_actions(self) -> list[str]:
        seat = self.turn
        hand = self.hands[seat]
        n = hand.bit_count()
        keep = self.keep()
        may_takeback = self.takebacks < self.rg.takeback_cap
        if self.building:
            out = self._build_offers(hand, n - keep)
            if self._meld_ok(self.building) is not None:
                out.append("confirm")
            if may_takeback:
                out.insert(0, "takeback")
            else:
                out = self._finishable(out)  # the take-back cap (revised turn 3)
            return out
        discards = self._discards(seat, hand, n)
        table: list[str] = []
        if n - 1 >= keep:
            bases = base_set(hand)
            starts = self._start_mask(bases, (hand & JOKER_MASK).bit_count(), n - keep)
            if starts:
                table = by_suit("meld ", starts)
            table += self._layoff_offers(seat, hand)
            table += self._swap_offers(seat, hand, n)
            if not may_takeback:
                # the take-back cap: exactly the actions after which the turn can still end
                table = self._finishable(table)
        out = discards + table
        if not discards and self.snap is not None and may_takeback:
            out.insert(0, "takeback")  # the turn cannot end as it stands
        if not out:
            # safety net (should not happen; tests check it never does): any discard ends the turn
            self.stuck += 1
            out = sorted({DISCARD[c] for c in bits(hand)})
        return out

    def _discards(self, seat: int, hand: int, n: int) -> list[str]:
        """The discards that end the turn now: none while a card must still be used or the game's
        requirements are unmet (:meth:`_turn_can_end`), else the cards :meth:`_discard_ok` allows
        (with :meth:`_discard_ban`)."""
        if self.must_use & hand or not hand or not self._turn_can_end(seat, n <= 1):
            return []
        last = n == 1
        jokers = hand & JOKER_MASK
        bases = base_set(hand)
        if self.rg.frees_discard:
            out = by_suit("discard ", bases & ~self._discard_ban(seat, last))
            if jokers and self._discard_ok(seat, JOKER, last):
                out.append(DISCARD[JOKER])
            return out
        out = [DISCARD[b] for b in bits(bases) if self._discard_ok(seat, b, last)]
        if jokers and self._discard_ok(seat, JOKER, last):
            out.append(DISCARD[JOKER])
        return out

    def _discard_ban(self, seat: int, last: bool) -> int:
        """Natural base cards that may not be discarded now, as a mask (games with
        ``free_discard``; the joker is asked of :meth:`_discard_ok`)."""
        return 0

    def _finishable(self, actions: list[str]) -> list[str]:
        """The take-back cap (meld protocol, revised turn 3): the table-play ``actions`` after
        which some line still ends the turn (the exact search, :meth:`_can_finish`, one memo for
        all of them: their lines meet in the same positions).  Memoised per position.

        A ``meld`` action is played on one private copy and undone after its search (a meld card
        changes only the hand and the meld being built: :meth:`_build_search`); the others each on
        a copy of their own."""
        if not actions:
            return actions
        key = ("finish", tuple(actions), *self._position_key())
        cache = self.rg.cache
        hit = cache.get(key)
        if hit is not None:
            return list(hit)
        memo: dict[Hashable, bool] = {}
        deal = self.deal_no
        out = []
        base: RummyState | None = None
        rest: Hashable = None
        keep = 0
        for a in actions:
            if a.startswith("meld "):
                if base is None:
                    base = self._light_clone()
                    base.takebacks = 0  # the search plays table moves, never a take-back
                    rest = self._build_rest(base)  # (a meld card changes neither)
                    keep = base.keep()
                st = base
                seat = st.turn
                hand = st.hands[seat]
                nb = len(st.building)
                st._apply(a)
                # _can_finish, with the rest of the key made once for every meld card
                ok = self._search_goal(st, deal) or self._build_search(st, memo, deal, rest, keep)
                st.hands[seat] = hand  # undone: the copy serves the next meld card
                del st.building[nb:]
            else:
                st = self._light_clone()
                st.takebacks = 0
                st._apply(a)
                ok = self._can_finish(st, memo, deal)
            if ok:
                out.append(a)
        if len(cache) > 200_000:
            cache.clear()
        cache[key] = tuple(out)
        return out

    def _can_finish(self, st: RummyState, memo: dict[Hashable, bool], deal: int) -> bool:
        """Exact: can the turn end from ``st`` (a private copy)?  The DFS of :meth:`_plan_from`
        over :meth:`_search_moves`, answering yes or no, with ``memo`` shared between searches.
        A meld being built is searched in place (:meth:`_can_finish_building`)."""
        if self._search_goal(st, deal):
            return True
        if st.building:
            return self._can_finish_building(st, memo, deal)
        k = self._search_key(st)
        hit = memo.get(k)
        if hit is not None:
            return hit
        memo[k] = False
        for mv in self._search_moves(st):
            nxt = self._search_play(st, mv)
            if nxt is not None and self._can_finish(nxt, memo, deal):
                memo[k] = True
                return True
        return False

    def _can_finish_building(self, st: RummyState, memo: dict[Hashable, bool], deal: int) -> bool:
        """:meth:`_can_finish` from ``st`` while it builds a meld (so not a goal), searched in place
        by :meth:`_build_search`: a meld card changes only the hand and the meld being built, so
        the rest of the search key is the same all the way down."""
        return self._build_search(st, memo, deal, self._build_rest(st), st.keep())

    @staticmethod
    def _build_rest(st: RummyState) -> Hashable:
        """:meth:`_search_key` less the hand and the meld being built: what a meld card leaves as it is."""
        return (st.must_use, tuple([m.text() for m in st.melds]), tuple(st.turn_melds), st.turn_swaps,
                tuple([m.text() for m in st.turn_laid]), len(st.turn_layoffs))

    def _build_search(self, st: RummyState, memo: dict[Hashable, bool], deal: int, rest: Hashable,
                      keep: int) -> bool:
        """The moves of :meth:`_search_moves` from a meld being built (``confirm`` when the meld is
        legal, then every card :meth:`_build_offers` offers), refused as :meth:`_search_play`
        refuses them (a card that would leave fewer than ``keep`` cards), each meld card played on
        ``st`` itself and undone after its search instead of on a copy (``st`` is left as it
        was); memoised by the hand, the meld being built (in any order) and ``rest``."""
        seat = st.turn
        hand = st.hands[seat]
        b = st.building
        k = (hand, tuple(sorted(b)), rest)
        hit = memo.get(k)
        if hit is not None:
            return hit
        memo[k] = False
        if st._build_hopeless():
            return False
        if st._build_sure():
            memo[k] = True
            return True
        if st._meld_legal(b):
            nxt: RummyState | None = st._light_clone()
            assert nxt is not None
            try:
                nxt._apply("confirm")
            except IllegalAction:
                nxt = None
            if nxt is not None and nxt.deal_no == deal and not nxt._over and nxt.rg.keeps_discard \
                    and nxt.hands[seat].bit_count() < nxt.keep():
                nxt = None  # as _search_play refuses it
            if nxt is not None and self._can_finish(nxt, memo, deal):
                memo[k] = True
                return True
        nb = len(b)
        keeps = st.rg.keeps_discard
        for a in st._build_offers(hand, hand.bit_count() - keep):
            try:
                st._apply(a)
            except IllegalAction:
                ok = False
            else:
                ok = (not keeps or st.hands[seat].bit_count() >= keep) and \
                    self._build_search(st, memo, deal, rest, keep)
            st.hands[seat] = hand
            del b[nb:]
            if ok:
                memo[k] = True
                return True
        return False

    def _discard_ok(self, seat: int, c: int, last: bool) -> bool:
        """Hook: may card ``c`` be discarded (``last``: it is the last card, going out)?"""
        return True

    # ----- meld protocol
    def _build_offers(self, hand: int, limit: int) -> list[str]:
        """``meld`` actions that keep the meld being built completable with at most ``limit``
        cards of the hand."""
        b = self.building
        if limit <= 0:
            return []
        key = (hand, tuple(b), limit, self._build_key())
        cache = self.rg.cache
        hit = cache.get(key)
        if hit is not None:
            return list(hit)
        out: list[str] = []
        bases = base_set(hand)
        jokers = (hand & JOKER_MASK).bit_count()
        used_b = {BASE[c] if n is None else n for c, n in b}
        cand = bases
        if b:
            x0 = next(iter(used_b))
            cand &= RANK_MASK[x0 % 13] | (0x1FFF << (13 * (x0 // 13)))
        for x in bits(cand):
            if x in used_b:
                continue
            if self._completable([*b, (x, None)], bases, jokers, limit - 1):
                out.append(MELD1[x])
        if b and jokers:
            for x in self._joker_namings(b):
                if self._completable([*b, (JOKER, x)], bases, jokers - 1, limit - 1):
                    out.append(MELDJ[x])
        if len(cache) > 200_000:
            cache.clear()
        cache[key] = tuple(out)
        return out

    def _start_mask(self, bases: int, jokers: int, limit: int) -> int:
        """The natural base cards that can start a meld completable with at most ``limit`` cards
        of a hand holding natural ``bases`` and ``jokers`` jokers (bit arithmetic)."""
        out = 0
        srule = self.rg.srule
        if limit >= srule.min_size and self._sets_plain():
            j = jokers if srule.jokers else 0
            need = srule.min_size - j  # suits of the rank the hand must hold
            if need <= 1:
                out = bases
            else:
                s0, s1, s2, s3 = (bases & 0x1FFF, bases >> 13 & 0x1FFF, bases >> 26 & 0x1FFF,
                                  bases >> 39 & 0x1FFF)
                if need == 2:
                    r = (s0 & (s1 | s2 | s3)) | (s1 & (s2 | s3)) | (s2 & s3)
                else:
                    r = (s0 & s1 & (s2 | s3)) | ((s0 | s1) & s2 & s3) if need == 3 else s0 & s1 & s2 & s3
                out = bases & (r * SPREAD)
        rule = self.rg.rrule
        if limit >= rule.min_len:
            j = min(jokers, rule.min_len)
            tabs = self.rg.run_table
            while len(tabs) <= j:
                tabs.append([-1] * 8192)
            tab = tabs[j]
            for s in range(4):
                sm = (bases >> (13 * s)) & 0x1FFF
                if sm:
                    got = tab[sm]
                    if got < 0:
                        got = tab[sm] = self._run_starts(sm, j)
                    out |= got << (13 * s)
        return out

    def _run_starts(self, sm: int, jokers: int) -> int:
        """The ranks (13-bit mask) of one suit's naturals ``sm`` that start a completable run."""
        rule = self.rg.rrule
        L = rule.min_len
        lo = 0 if rule.ace_low else 1
        hi = 13 if rule.ace_high else 12
        win = (1 << L) - 1
        high_joker = self._joker_pos_ok({13})
        P = (sm & 0xFFF) << 1
        if sm >> 12 & 1:
            P |= (1 if rule.ace_low else 0) | ((1 << 13) if rule.ace_high else 0)
        got = 0
        for a in range(lo, hi - L + 2):
            w = win << a
            present = P & w
            if not present:
                continue
            M = w & ~P
            miss = M.bit_count()
            if miss > jokers or L - miss < rule.min_naturals:
                continue
            if rule.max_jokers is not None and miss > rule.max_jokers:
                continue
            if not rule.adjacent_jokers and M & (M >> 1):
                continue
            if not high_joker and M >> 13 & 1:
                continue
            got |= present
        out = (got >> 1) & 0xFFF
        if got & ((1 << 13) | 1):
            out |= 1 << 12
        return out

    def _sets_plain(self) -> bool:
        """Sets follow the common definition (distinct suits); Loba's piernas override."""
        return True

    def _build_key(self) -> Any:
        """Hook: extra state the build offers depend on (cache key)."""
        return None

    def _joker_namings(self, items: list[Item]) -> list[int]:
        """Base cards a joker may name next in the partial meld ``items``."""
        named = [BASE[c] if n is None else n for c, n in items]
        out: set[int] = set()
        ranks = {x % 13 for x in named}
        suits = {x // 13 for x in named}
        if len(ranks) == 1 and self.rg.srule.jokers:
            r = next(iter(ranks))
            for s in range(4):
                if s not in suits or not self.rg.srule.distinct_suits:
                    out.add(s * 13 + r)
        if len(suits) == 1:
            # a joker in a run: in a gap or next to an end (any run can be built in that order)
            s = next(iter(suits))
            for ace in (0, 13):
                pos = [(ace if x % 13 == ACE else x % 13 + 1) for x in named]
                for p in range(min(pos) - 1, max(pos) + 2):
                    if 0 <= p <= 13 and p not in pos:
                        out.add(pos_base(p, s))
        return sorted(out)

    def _completable(self, items: list[Item], bases: int, jokers: int, limit: int) -> bool:
        """Can ``items`` become a legal meld by adding at most ``limit`` cards from a hand with
        natural ``bases`` (mask over base ids) and ``jokers`` jokers?  (The items' own cards are
        already out of the hand counts; a natural in ``items`` is never taken twice.)"""
        return self._set_completable(items, bases, jokers, limit) or \
            self._run_completable(items, bases, jokers, limit)

    def _set_completable(self, items: list[Item], bases: int, jokers: int, limit: int) -> bool:
        rule = self.rg.srule
        if len(items) > rule.max_size:
            return False
        r = -1
        suits = 0
        for c, nm in items:
            x = BASE[c] if nm is None else nm
            if r < 0:
                r = x % 13
            elif x % 13 != r:
                return False
            if nm is not None and not rule.jokers:
                return False
            bit = 1 << (x // 13)
            if suits & bit and rule.distinct_suits:
                return False
            suits |= bit
        need = rule.min_size - len(items)
        if need <= 0:
            return True
        if need > limit:
            return False
        if not rule.distinct_suits:
            return True  # approximation not used by the Jokeren family
        free_nat = 0
        for q in range(4):
            if not suits >> q & 1 and bases >> (q * 13 + r) & 1:
                free_nat += 1
        return free_nat + (jokers if rule.jokers else 0) >= need

    def _run_completable(self, items: list[Item], bases: int, jokers: int, limit: int) -> bool:
        rule = self.rg.rrule
        s = -1
        for c, nm in items:
            x = BASE[c] if nm is None else nm
            if s < 0:
                s = x // 13
            elif x // 13 != s:
                return False
        sm = (bases >> (13 * s)) & 0x1FFF
        L = rule.min_len
        n = len(items)
        for ace in self.rg.aces:
            have = jm = 0
            for c, nm in items:
                x = BASE[c] if nm is None else nm
                p = ace if x % 13 == ACE else x % 13 + 1
                if have >> p & 1:
                    break
                have |= 1 << p
                if nm is not None:
                    jm |= 1 << p
            else:
                P = (sm & 0xFFF) << 1  # the hand's naturals of the suit as positions
                if sm >> 12 & 1:
                    P |= 1 << ace
                mn = (have & -have).bit_length() - 1
                mx = have.bit_length() - 1
                lo_min = 0 if ace == 0 else 1
                hi_max = 13 if ace == 13 else 12
                if mx - mn + 1 >= L:
                    a_first, a_last, width = mn, mn, mx - mn + 1  # the items' own span
                else:
                    a_first, a_last, width = mx - L + 1, mn, L  # every window of length L over them
                for a0 in range(a_first, a_last + 1):
                    z = a0 + width - 1
                    if a0 < lo_min or z > hi_max or z - a0 + 1 - n > limit:
                        continue
                    w = ((1 << (z - a0 + 1)) - 1) << a0
                    fill = w & ~have
                    jp = fill & ~P  # positions no natural of the hand can fill
                    allj = jp | jm
                    if jp.bit_count() > jokers:
                        continue
                    if rule.max_jokers is not None and allj.bit_count() > rule.max_jokers:
                        continue
                    if not rule.adjacent_jokers and allj & (allj >> 1):
                        continue
                    if not self._joker_mask_ok(allj):
                        continue
                    if (w & ~allj).bit_count() >= rule.min_naturals:
                        return True
        return False

    def _joker_pos_ok(self, jpos: set[int]) -> bool:
        """Hook: may jokers stand at these run positions (Loba: never the high ace)?"""
        return True

    def _joker_mask_ok(self, mask: int) -> bool:
        """:meth:`_joker_pos_ok` for the run positions of a mask (overridden with it)."""
        return True

    def _meld_ok(self, items: list[Item]) -> Meld | None:
        """The meld that ``items`` make (canonical order), or None.  Whether it is None depends on
        each item's card (a joker: the card it names) and joker flag alone (:meth:`_meld_legal`
        memoises it so)."""
        if len(items) < min(self.rg.rrule.min_len, self.rg.srule.min_size):
            return None
        named = [BASE[c] if n is None else n for c, n in items]
        if len({x % 13 for x in named}) == 1 and len(items) > 1:
            try:
                grp = check_group(items, self.rg.srule)
            except ValueError:
                return None
            order = sorted(grp, key=lambda it: (it[1] is not None, BASE[it[0]] if it[1] is None else it[1]))
            return Meld(order, "set", self.turn)
        run: list[Item] | None = None
        for rule in self.rg.run_rules_each_ace():
            try:
                run = check_run(items, rule)  # each ace placement on its own (melds.py stops at the
                break  # first consecutive one, even when two jokers then stand side by side)
            except ValueError:
                continue
        if run is None:
            return None
        got = run
        jp = set()
        first = BASE[got[0][0]] if got[0][1] is None else got[0][1]
        lo = 0 if first % 13 == ACE else first % 13 + 1  # an ace first in run order is low
        for i, (_, nm) in enumerate(got):
            if nm is not None:
                jp.add(lo + i)
        if not self._joker_pos_ok(jp):
            return None
        return Meld(list(got), "run", self.turn, lo)

    def _meld_legal(self, items: list[Item]) -> bool:
        """``_meld_ok(items) is not None``, memoised per game by what :meth:`_meld_ok` reads of
        the items: each one's card (a joker: the card it names) and whether it is a joker, in
        order (never which physical copy of a card it is)."""
        key = ("legal", *[BASE[c] * 2 if nm is None else nm * 2 + 1 for c, nm in items])
        cache = self.rg.cache
        hit = cache.get(key)
        if hit is None:
            hit = self._meld_ok(items) is not None
            if len(cache) > 200_000:
                cache.clear()
            cache[key] = hit
        return bool(hit)

    # ----- lay-offs and swaps
    def accepts(self, m: Meld) -> list[tuple[int, bool, int]]:
        """What meld ``m`` takes as a lay-off: (base card, as a joker?, position or -1)."""
        return self._accepts(m)

    def _accepts(self, m: Meld) -> list[tuple[int, bool, int]]:
        out: list[tuple[int, bool, int]] = []
        if m.kind == "set":
            grule = self.rg.srule
            if len(m.items) >= grule.max_size:
                return out
            named = [BASE[c] if n is None else n for c, n in m.items]
            r = named[0] % 13
            suits = {x // 13 for x in named}
            for s in range(4):
                if s not in suits:
                    out.append((s * 13 + r, False, -1))
                    if grule.jokers:
                        out.append((s * 13 + r, True, -1))
            return out
        rule = self.rg.rrule
        s = (BASE[m.items[0][0]] if m.items[0][1] is None else m.items[0][1]) // 13
        lo, hi = m.lo, m.lo + len(m.items) - 1
        lo_min = 0 if rule.ace_low and hi < 13 else 1
        hi_max = 13 if rule.ace_high and lo > 0 else 12
        nj = m.jokers()
        for p, end in ((lo - 1, 0), (hi + 1, -1)):
            if not lo_min <= p <= hi_max:
                continue
            out.append((pos_base(p, s), False, p))
            if (rule.max_jokers is None or nj < rule.max_jokers) and (
                    rule.adjacent_jokers or m.items[end][1] is None) and self._joker_pos_ok({p}):
                out.append((pos_base(p, s), True, p))
        return out

    def _layoff_offers(self, seat: int, hand: int) -> list[str]:
        out: list[str] = []
        if not self.melds:
            return out
        bases = base_set(hand)
        jk = hand & JOKER_MASK
        jk_free = jk & ~self.must_use if self.rg.reuse == "meld" else jk
        for i, m in enumerate(self.melds):
            acc = m.acc
            if acc is None:
                acc = m.acc = self._accept_strings(m, i)
            nat, jks = acc
            if (bases & nat or (jk_free and jks)) and self._may_layoff(seat, i):
                if bases & nat:
                    out += [a for x, a in nat_strings(acc, i) if bases >> x & 1]
                if jk_free:
                    out += jks
        return out

    def _accept_strings(self, m: Meld, i: int) -> tuple[int, list[str]]:
        """(mask of natural base cards meld ``m`` takes, its joker lay-off actions)."""
        nat = 0
        jks: list[str] = []
        for x, as_joker, _ in self._accepts(m):
            if as_joker:
                a = f"layoff JK={TOKENS[x]} {i + 1}"
                if a not in jks:
                    jks.append(a)
            else:
                nat |= 1 << x
        return nat, jks

    def _swap_offers(self, seat: int, hand: int, n: int) -> list[str]:
        out: list[str] = []
        if not self.melds or not self._may_swap(seat):
            return out
        bases = base_set(hand)
        for i, m in enumerate(self.melds):
            if not bases & m.joker_names():
                continue  # no joker of it names a card of the hand
            for _c, nm in m.items:
                if nm is not None and bases >> nm & 1:
                    a = f"swap {TOKENS[nm]} {i + 1}"
                    if a not in out and (self._joker_usable(seat, hand & ~(1 << self._pick(hand, TOKENS[nm])),
                                                            n - 1, i) or (not self._swap_hopeless(hand, nm, i)
                                                                          and self._usable_after([a]))):
                        out.append(a)  # the quick test, else the exact search (J16, AJ15, JD5, RD6)
        return out

    def _joker_usable(self, seat: int, hand: int, n: int, skip: int) -> bool:
        """'Use it at once' for a freed joker: can it go on the table this turn, with ``hand``
        (``n`` cards) left after the swap?  A new meld holding it (RULES.md: AJ15, JD5), or under
        ``joker_reuse='any'`` also a lay-off (J16, RD6)."""
        keep = self.keep()
        k = self._joker_meld_cost(base_set(hand), (hand & JOKER_MASK).bit_count())
        if k is not None and n - k >= keep:
            return True
        if self.rg.reuse == "any" and n >= keep:
            for i, m in enumerate(self.melds):
                if self._may_layoff(seat, i) and any(j for _, j, _ in self.accepts(m)):
                    return True
        return False

    def _joker_meld_cost(self, bases: int, jokers: int) -> int | None:
        """The fewest hand cards that make a new meld with one more joker (None: impossible)."""
        key = (bases, jokers)
        cache = self.rg.cache
        hit = cache.get(key, -1)
        if hit != -1:
            return hit
        best: int | None = None
        grule = self.rg.srule
        if grule.jokers and self._sets_plain():
            for r in range(13):
                c = (bases & RANK_MASK[r]).bit_count()
                # a rank held in all four suits still takes the joker with two of them (AJ15)
                if c and min(c, grule.max_size - 1) + jokers + 1 >= grule.min_size:
                    best = grule.min_size - 1
                    break
        rule = self.rg.rrule
        lo = 0 if rule.ace_low else 1
        hi = 13 if rule.ace_high else 12
        for L in (rule.min_len, rule.min_len + 1):
            if best is not None and best <= L - 1:
                break
            win = (1 << L) - 1
            found = False
            for s in range(4):
                sm = (bases >> (13 * s)) & 0x1FFF
                if not sm:
                    continue
                P = (sm & 0xFFF) << 1
                if sm >> 12 & 1:
                    P |= (1 if rule.ace_low else 0) | ((1 << 13) if rule.ace_high else 0)
                for a0 in range(lo, hi - L + 2):
                    w = win << a0
                    M = w & ~P
                    miss = M.bit_count()
                    if not 1 <= miss <= jokers + 1 or L - miss < rule.min_naturals:
                        continue
                    if rule.max_jokers is not None and miss > rule.max_jokers:
                        continue
                    if not rule.adjacent_jokers and M & (M >> 1):
                        continue
                    if not self._joker_mask_ok(M):
                        continue
                    found = True
                    break
                if found:
                    break
            if found:
                best = L - 1
                break
        if len(cache) > 200_000:
            cache.clear()
        cache[key] = best
        return best

    # ----------------------------------------------------------------- the exact turn search
    def _turn_plan(self) -> list[str] | None:
        """A line of table-play actions after which this turn can end (every card that must be
        used on the table, the game's requirements met), or None: RULES.md's exact "use it at
        once" test (J2/J12, J16, AJ15, JD5, RD6, L2) and the take-back cap's guarantee."""
        return self._plan_from(self._light_clone())

    def _plan_from(self, root: RummyState) -> list[str] | None:
        """:meth:`_turn_plan` from ``root``, a private copy of this state (it is searched in place)."""
        root.takebacks = 0  # the search plays table moves, never a take-back
        deal = self.deal_no
        return plan_search(root, self._search_moves, self._search_play,
                           lambda st: self._search_goal(st, deal), self._search_key)

    def _swap_hopeless(self, hand: int, x: int, idx: int) -> bool:
        """A sound refusal before the exact search of a swap of natural ``x`` into meld ``idx``,
        once the quick test (:meth:`_joker_usable`) has refused it: the freed joker must go into a
        new meld (``joker_reuse='meld'``), the quick test found no new meld with it in the hand's
        cards (its windows miss a joker on a held card's place only when no window of the suit has
        a gap, i.e. when the hand holds the whole suit), and no further swap could free another
        joker."""
        if self.rg.reuse != "meld" or self.must_use & hand or not self._sets_plain():
            return False
        bases = base_set(hand & ~(1 << self._pick(hand, TOKENS[x])))
        for i, m in enumerate(self.melds):
            for _j, nm in m.items:
                if nm is not None and (i != idx or nm != x) and bases >> nm & 1:
                    return False  # a further swap: let the exact search decide
        return True

    def _light_clone(self) -> RummyState:
        """A cheap copy for the search, which only plays table moves (and, when a player goes out
        during table play, ends the deal): :meth:`~engine.core.State.copy_fields` (the one
        field-by-field copy, :meth:`clone`'s too) with lists and dicts copied one level deep
        (:func:`~engine.core.flat_copy`), the fields of :data:`_SEARCH_SHARED` shared (the stock:
        table play never draws, and a new deal rebinds it), no logs; then the melds cloned and the
        search's RNG (the copy's later deals are never looked at)."""
        new = self.copy_fields(deep=False, shared=_SEARCH_SHARED, logs=False)
        new.melds = [m.clone() for m in self.melds]
        new.rng = _SEARCH_RNG
        if self.snap is None:
            new.snap = (0, [], 0)  # never taken back: no snapshot to save
        return new

    def _position_key(self) -> tuple[Hashable, ...]:
        """What the turn search's answers depend on: hand, top discard, cards owed, table with
        owners, this turn's melds and swaps, flags, the meld being built."""
        seat = self.turn
        return (seat, self.hands[seat], self.pile[-1] if self.pile else None, self.must_use,
                self.took_discard, tuple([(m.owner, m.text()) for m in self.melds]), tuple(self.turn_melds),
                self.turn_swaps, tuple(self.opened), self.out_allowed(), self._build_key(), self.deal_no,
                len(self.turn_layoffs), tuple(self.building), tuple([m.text() for m in self.turn_laid]))

    def _usable_after(self, actions: Sequence[str]) -> bool:
        """Exact: after ``actions`` (a draw from the pile, a swap), can the turn still end?
        Memoised per position (hand, table with owners, this turn's melds, flags) and actions."""
        key = ("plan", tuple(actions), *self._position_key())
        cache = self.rg.cache
        hit = cache.get(key)
        if hit is not None:
            return bool(hit)
        st = self._light_clone()
        for a in actions:
            st._apply(a)
        ok = st._plan_from(st) is not None  # st is a private copy: searched from without a second one
        if len(cache) > 200_000:
            cache.clear()
        cache[key] = ok
        return ok

    @staticmethod
    def _search_key(st: RummyState) -> Hashable:
        # this turn's melds as confirmed and its lay-offs count too: the opening rules read them
        # (J10/J13: lay-offs onto a new meld add nothing; AJ10: no lay-offs unless going out)
        return (st.hands[st.turn], st.must_use, tuple([m.text() for m in st.melds]),
                tuple(st.turn_melds), st.turn_swaps, tuple(sorted(st.building)),  # (in any order)
                tuple([m.text() for m in st.turn_laid]), len(st.turn_layoffs))

    @staticmethod
    def _search_play(st: RummyState, move: Sequence[str]) -> RummyState | None:
        new = st._light_clone()
        seat, deal = new.turn, new.deal_no
        try:
            for a in move:
                if a == "confirm" and new._meld_ok(new.building) is None:
                    return None
                new._apply(a)
                if new.deal_no != deal or new._over:
                    return new  # went out during table play (RD2, L10)
        except IllegalAction:
            return None
        if new.rg.keeps_discard and new.hands[seat].bit_count() < new.keep():
            return None
        return new

    def _search_goal(self, st: RummyState, deal: int) -> bool:
        if st.deal_no != deal or st._over:
            return True
        if st.building:
            return False
        seat = st.turn
        hand = st.hands[seat]
        if not hand:
            return not st.rg.keeps_discard
        return bool(st._discards(seat, hand, hand.bit_count()))

    def _build_hopeless(self) -> bool:
        """Hook: a sound refusal in the take-back cap's search (:meth:`_build_search`) of the meld
        being built: True only where no line from this position ends the turn (the search then
        looks no further, so its answers stay exact).  By default never."""
        return False

    def _build_sure(self) -> bool:
        """Hook: a sound acceptance in the take-back cap's search (:meth:`_build_search`) of the
        meld being built: True only where some line from this position surely ends the turn (the
        search then looks no further, so its answers stay exact).  By default never."""
        return False

    def _out_impossible(self, cards: int) -> bool:
        """Going out cannot lay ``cards`` (every card the seat holds, a meld being built
        included) on the table but one: :meth:`_dead_cards`'s lower bound passes 1 (memoised per
        game by the cards and what the table's melds could take)."""
        ranks, suits = self._table_takers()
        key = ("out-dead", cards, ranks, suits)
        cache = self.rg.cache
        hit = cache.get(key)
        if hit is None:
            hit = self._dead_cards(self.turn, cards, cards.bit_count() - 1) > 1
            if len(cache) > 200_000:
                cache.clear()
            cache[key] = hit
        return bool(hit)

    def _permission_by_meld(self, seat: int) -> bool:
        """Hook: would laying a meld this turn allow lay-offs or swaps not allowed now?"""
        return False

    def _meld_moves(self, hand: int, limit: int, u: int) -> list[list[str]]:
        """New melds (as actions) of ``hand`` holding card ``u`` (-1: any), at most ``limit`` cards
        (memoised per game)."""
        key = ("melds", hand, limit, -1 if u < 0 else JOKER if IS_JOKER[u] else BASE[u])
        cache = self.rg.cache
        hit = cache.get(key)
        if hit is not None:
            return hit
        counts: dict[int, int] = {}
        for c in bits(hand & ~JOKER_MASK):
            counts[BASE[c]] = counts.get(BASE[c], 0) + 1
        g = self.rg
        sr, rr = g.srule, g.rrule
        nat = u >= 0 and not IS_JOKER[u]
        lists = meld_token_lists(
            counts, (hand & JOKER_MASK).bit_count(), with_base=BASE[u] if nat else None,
            with_joker=u >= 0 and IS_JOKER[u], set_max=sr.max_size, set_jokers=sr.jokers,
            set_distinct=sr.distinct_suits, run_min=rr.min_len, ace_low=rr.ace_low, ace_high=rr.ace_high,
            run_max_jokers=rr.max_jokers, limit=limit)
        out = [[*("meld " + t for t in toks), "confirm"] for toks in lists]
        if len(cache) > 200_000:
            cache.clear()
        cache[key] = out
        return out

    def _search_moves(self, st: RummyState) -> Iterator[list[str]]:
        """The search's macro moves, lazily (new melds first: the usual way to use a card).

        Complete for the goal (the turn can end): a meld being built is finished card by card
        (every card the protocol offers, then ``confirm``); a card that must be used goes into a
        new meld, is laid off (after hand cards that reach it on a run of its suit), or, a freed
        joker under ``joker_reuse='any'``, is laid off after any natural lay-offs onto runs that
        open its place (J6/J16, RD6: in any order); an unmet opening requirement takes new melds,
        and lay-offs where going out meets it; a hand with no discard allowed (Loba's jokers, L13)
        takes lay-offs; and every swap is tried."""
        seat = st.turn
        hand = st.hands[seat]
        n = hand.bit_count()
        limit = n - st.keep()
        if st.building:
            if st._meld_ok(st.building) is not None:
                yield ["confirm"]  # the shortest way on first
            for a in st._build_offers(hand, limit):
                yield [a]
            return
        must = st.must_use & hand
        if must:
            nat = must & ~JOKER_MASK
            u = (nat or must) & -(nat or must)
            u = u.bit_length() - 1
            if not IS_JOKER[u] or st.rg.reuse in ("meld", "any"):
                yield from st._meld_moves(hand, limit, u)
            # a joker that must go into a new meld is never laid off (nothing below yields for it)
            if limit >= 1 and not (IS_JOKER[u] and st.rg.reuse != "any"):
                tok = TOKENS[u]
                suit = -1 if IS_JOKER[u] else BASE[u] // 13
                for a in st._layoff_offers(seat, hand):
                    parts = a.split()
                    if len(parts) != 3:  # another verb's form (Loba's 'move 8D JK=8D 3')
                        if parts[1] == tok:
                            yield [a]
                        continue
                    m = st.melds[int(parts[2]) - 1]
                    if IS_JOKER[u]:
                        if parts[1].startswith("JK="):
                            yield [a]
                        elif m.kind == "run" and limit >= 2:
                            yield [a]  # a natural first, opening the joker's place (J6/J16, RD6)
                        continue
                    if parts[1] == tok:
                        yield [a]
                        continue
                    # a chain: hand cards laid off onto a run of u's suit first
                    x = card(parts[1][3:] if parts[1].startswith("JK=") else parts[1])
                    if m.kind == "run" and x // 13 == suit and limit >= 2:
                        yield [a]
            if not st.turn_melds and st._permission_by_meld(seat):
                yield from st._meld_moves(hand, limit, -1)  # the meld that allows the rest
        elif not st._turn_can_end(seat, n <= 1):
            # an opening requirement still unmet: more melds, or going out (open50, AJ4/AJ10/AJ11,
            # RD's banned cards), which needs every card but one to find a place
            out_possible = st._dead_cards(seat, hand, limit) <= 1
            if out_possible or st._melds_may_meet(seat):
                yield from st._meld_moves(hand, limit, -1)
            if limit >= 1 and out_possible and st._layoffs_may_end_turn(seat):
                for a in st._layoff_offers(seat, hand):
                    yield [a]
        elif limit >= 1 and not st._discards(seat, hand, n):
            for a in st._layoff_offers(seat, hand):
                yield [a]  # no discard allowed (L13: only jokers that can be laid)
        if st._may_swap(seat) and limit >= 0:
            bases = base_set(hand)
            for i, m in enumerate(st.melds):
                for _c, nm in m.items:
                    if nm is not None and bases >> nm & 1:
                        yield [f"swap {TOKENS[nm]} {i + 1}"]

    # ----------------------------------------------------------------- hooks for the games
    def _may_take_discard(self, seat: int) -> bool:
        return True

    def _may_layoff(self, seat: int, idx: int) -> bool:
        return True

    def _may_swap(self, seat: int) -> bool:
        return True

    def _turn_can_end(self, seat: int, going_out: bool) -> bool:
        """Opening requirements met by what was laid this turn (``going_out``: the discard ends
        the hand)."""
        return True

    def _dead_cards(self, seat: int, hand: int, limit: int) -> int:
        """A lower bound on the cards of ``hand`` that table play cannot lay this turn: naturals
        that no meld from the hand can hold (:meth:`_completable`) and that no table meld could
        ever take (a set of its rank, a run of its suit).  Going out needs it at most 1."""
        bases = base_set(hand)
        jokers = (hand & JOKER_MASK).bit_count()
        ranks, suits = self._table_takers()
        dead = 0
        for c in bits(hand & ~JOKER_MASK):
            x = BASE[c]
            if ranks >> (x % 13) & 1 or suits >> (x // 13) & 1:
                continue
            if not self._completable([(x, None)], bases, jokers, limit - 1):
                dead += 1
                if dead > 1:
                    return dead  # a lower bound already above 1: going out is impossible
        if not self._sets_plain():
            return dead
        # the exact deadwood minimiser, counting the cards no table meld could take (its melds are
        # at least as free as the game's: jokers side by side, any number of them)
        key = ("solver", ranks, suits)
        cache = self.rg.cache
        solver = cache.get(key)
        if solver is None:
            vals = [0 if b >= JOKER or ranks >> (b % 13) & 1 or suits >> (b // 13) & 1 else 1
                    for b in range(PACK)]
            r, g = self.rg.rrule, self.rg.srule
            solver = Solver(MeldSpec(set_max=g.max_size, run_min=r.min_len, ace_low=r.ace_low,
                                     ace_high=r.ace_high), vals, 0)
            cache[key] = solver
        assert isinstance(solver, Solver)
        return solver.deadwood(bits(hand))

    def _table_takers(self) -> tuple[int, int]:
        """The ranks of the table's sets and the suits of its runs, as masks (13 and 4 bits)."""
        ranks = suits = 0
        for m in self.melds:
            c, nm = m.items[0]
            b = BASE[c] if nm is None else nm
            if m.kind == "run":
                suits |= 1 << (b // 13)
            else:
                ranks |= 1 << (b % 13)
        return ranks, suits

    def _melds_may_meet(self, seat: int) -> bool:
        """Hook: while :meth:`_turn_can_end` is False, could more new melds meet the requirement
        without going out?  (Jokeren: the opening points; Amerikaans: only ``points`` rounds.)"""
        return True

    def _layoffs_may_end_turn(self, seat: int) -> bool:
        """Hook: while :meth:`_turn_can_end` is False, could lay-offs help to end the turn (by
        going out)?  False only where they provably cannot (the search then skips them)."""
        return True

    def _after_meld(self, seat: int, idx: int) -> None:
        pass

    def _after_layoff(self, seat: int, idx: int, item: Item) -> None:
        pass

    def _after_swap(self, seat: int, idx: int, c: int) -> None:
        pass

    def _after_takeback(self, seat: int, melds_laid: int) -> None:
        pass

    def _after_turn(self, seat: int) -> None:
        """The turn ended by a discard (opening bookkeeping)."""

    def _score_deal(self, winner: int | None) -> list[float]:
        raise NotImplementedError

    def _match_over(self) -> bool:
        raise NotImplementedError

    def _next_dealer(self) -> int:
        return self._next_active(self.dealer)

    # ----------------------------------------------------------------- apply
    def _pick(self, hand: int, tok: str, avoid: int = 0) -> int:
        """A physical card of ``hand`` with token ``tok`` (not in ``avoid`` if possible)."""
        cands = PHYS[tok]
        free = hand & ~avoid if avoid else hand
        for c in cands:
            if free >> c & 1:
                return c
        for c in cands:
            if hand >> c & 1:
                return c
        raise IllegalAction(f"you do not hold {tok}")

    def _apply(self, action: str) -> None:
        seat = self.turn
        verb, _, rest = action.partition(" ")
        if verb == "draw":
            self._do_draw(seat, rest)
        elif verb == "discard":
            self._do_discard(seat, rest)
        elif verb == "meld":
            self._save()
            self._do_build(seat, rest)
        elif verb == "confirm":
            self._do_confirm(seat)
        elif verb == "layoff":
            self._save()
            tok, num = rest.split()
            self._do_layoff(seat, tok, int(num) - 1)
        elif verb == "swap":
            self._save()
            tok, num = rest.split()
            self._do_swap(seat, tok, int(num) - 1)
        elif verb == "takeback":
            self._do_takeback(seat)
        else:
            self._apply_other(seat, verb, rest)

    def _apply_other(self, seat: int, verb: str, rest: str) -> None:
        raise IllegalAction(f"unknown action {verb}")

    def _save(self) -> None:
        if self.snap is None:
            self.snap = (self.hands[self.turn], [m.clone() for m in self.melds], self.must_use)

    def _do_draw(self, seat: int, what: str) -> None:
        if what == "stock":
            c = self.stock.pop()
            self.hands[seat] |= 1 << c
            if not self.stock:
                self._reform()  # X3: at once after the draw that empties it
        else:
            c = self.pile.pop()
            self.hands[seat] |= 1 << c
            self.known[seat] |= 1 << c
            self.took_discard = c
            self._took_discard(seat, c)
        self.phase = "play"

    def _took_discard(self, seat: int, c: int) -> None:
        """Hook: the top discard was taken (use-at-once games set ``must_use``)."""

    def _do_build(self, seat: int, tok: str) -> None:
        hand = self.hands[seat]
        if tok.startswith("JK="):
            c = self._pick(hand, "JK", avoid=0)
            # a freed joker that must go into a new meld is the one to use first
            mu = self.must_use & hand & JOKER_MASK
            if mu:
                c = bits(mu)[0]
            item: Item = (c, card(tok[3:]))
        else:
            c = self._pick(hand, tok, avoid=~self.must_use)
            item = (c, None)
        self.hands[seat] = hand & ~(1 << c)
        self.building.append(item)

    def _do_confirm(self, seat: int) -> None:
        m = self._meld_ok(self.building)
        assert m is not None
        m.owner = seat
        self.building = []
        self.melds.append(m)
        for c, _ in m.items:
            self.must_use &= ~(1 << c)
            self.known[seat] &= ~(1 << c)
        idx = len(self.melds) - 1
        self.turn_melds.append(idx)
        self.turn_laid.append(m.clone())
        self._after_meld(seat, idx)

    def _do_layoff(self, seat: int, tok: str, idx: int) -> None:
        hand = self.hands[seat]
        m = self.melds[idx]
        if tok.startswith("JK="):
            x = card(tok[3:])
            avoid = self.must_use if self.rg.reuse == "meld" else 0
            mu = self.must_use & hand & JOKER_MASK
            c = bits(mu)[0] if mu and self.rg.reuse == "any" else self._pick(hand, "JK", avoid)
            item: Item = (c, x)
        else:
            x = card(tok)
            c = self._pick(hand, tok, avoid=~self.must_use)
            item = (c, None)
        self.hands[seat] = hand & ~(1 << c)
        self.must_use &= ~(1 << c)
        self.known[seat] &= ~(1 << c)
        m.changed()
        if m.kind == "set":
            m.items.append(item)
            m.items.sort(key=lambda it: (it[1] is not None, BASE[it[0]] if it[1] is None else it[1]))
        else:
            # the end that takes it (an ace may fit both ends of a 2..K run: the low end first,
            # unless only the high end takes it, e.g. a joker next to a joker under J7)
            ends = [p for bx, j, p in self._accepts(m) if bx == x and j == (item[1] is not None)]
            if m.lo - 1 in ends:
                m.items.insert(0, item)
                m.lo -= 1
            else:
                m.items.append(item)
        self.turn_layoffs.append((idx, c))
        self._after_layoff(seat, idx, item)

    def _do_swap(self, seat: int, tok: str, idx: int) -> None:
        hand = self.hands[seat]
        m = self.melds[idx]
        x = card(tok)
        c = self._pick(hand, tok, avoid=~self.must_use)
        for i, (j, nm) in enumerate(m.items):
            if nm == x:
                m.items[i] = (c, None)
                self.hands[seat] = (hand & ~(1 << c)) | (1 << j)
                self.must_use = (self.must_use & ~(1 << c)) | (1 << j)  # use it at once
                self.known[seat] &= ~(1 << c)
                break
        if m.kind == "set":
            m.items.sort(key=lambda it: (it[1] is not None, BASE[it[0]] if it[1] is None else it[1]))
        m.changed()
        self.turn_swaps += 1
        self._after_swap(seat, idx, c)

    def _do_takeback(self, seat: int) -> None:
        assert self.snap is not None
        laid = len(self.turn_melds)
        hand, melds, must = self.snap
        self.hands[seat] = hand
        self.melds = melds
        self.must_use = must
        self.building = []
        self.snap = None
        self.turn_melds = []
        self.turn_laid = []
        self.turn_layoffs = []
        self.turn_swaps = 0
        self.takebacks += 1
        c = self.took_discard
        if c >= 0:
            self.known[seat] |= 1 << c  # a card taken from the pile stays taken (meld protocol)
        self._after_takeback(seat, laid)

    def _do_discard(self, seat: int, tok: str) -> None:
        hand = self.hands[seat]
        c = self._pick(hand, tok, avoid=self.known[seat])
        hand &= ~(1 << c)
        self.hands[seat] = hand
        self.known[seat] &= ~(1 << c)
        self.pile.append(c)
        self._after_turn(seat)
        if hand == 0:
            self._went_out(seat)
            self._end_deal(seat)
            return
        self._begin_turn(self._next_active(seat))

    def _went_out(self, seat: int) -> None:
        self._emit("went_out", seat=seat)

    def _end_deal(self, winner: int | None) -> None:
        pts = self._score_deal(winner)
        self.sheet.append(pts)
        for s in range(self.players):
            self.totals[s] += pts[s]
        self.last = {"deal": self.deal_no, "winner": winner, "points": list(pts)}
        self._after_deal(winner)
        if self._over:
            return
        if self._match_over() or self._deals_done():
            self._finish()
            return
        self._start_deal(self._next_dealer())

    def _after_deal(self, winner: int | None) -> None:
        """Hook: match bookkeeping after a deal is scored (subtotals, elimination)."""

    def _deals_done(self) -> bool:
        return self.max_deals is not None and self.deal_no - self.deal_offset >= self.max_deals

    # ----------------------------------------------------------------- canonical / reasons
    def _why_illegal(self, verb: str, args: tuple[str, ...]) -> str:
        if self.phase == "draw":
            if verb != "draw":
                return "draw first: 'draw stock' (or 'draw discard' where allowed)"
            return "the top discard may not be taken now (it could not be used at once)"
        if self.building:
            return "finish the meld being built (meld one card at a time, then 'confirm') or 'takeback'"
        if verb == "discard":
            if self.must_use & self.hands[self.turn]:
                return "a card that must be used at once is still in your hand"
            return "the turn cannot end yet (opening requirement, or the card kept for the discard)"
        return ""

    # ----------------------------------------------------------------- views
    def zones(self) -> dict[str, int]:
        z = {f"hand{s}": h for s, h in enumerate(self.hands)}
        stock = pile = table = 0
        for c in self.stock:
            stock |= 1 << c
        for c in self.pile:
            pile |= 1 << c
        for m in self.melds:
            table |= m.mask()
        build = 0
        for c, _ in self.building:
            build |= 1 << c
        z.update(stock=stock, pile=pile, table=table, building=build)
        return z

    def _kept_in_hand(self, s: int) -> int:
        """The cards a redeal keeps in seat ``s``'s hand: the known ones and, for the seat to act,
        the cards it must use this turn (the jokers it freed: public)."""
        return self.known[s] | (self.must_use if s == self.turn else 0)

    def _after_redeal(self, new: Any, seat: int) -> None:
        snap = new.snap  # the clone's copy of this state's snapshot
        if snap is not None and seat != self.turn:
            # the take-back point of the seat to act, in its redealt hand: the cards it has put on
            # the table this turn (public) go back, the jokers it freed (public, kept: _kept_in_hand) leave
            t = self.turn
            hand, melds, must = snap
            now = self.hands[t]
            new.snap = ((new.hands[t] & ~(now & ~hand)) | (hand & ~now), melds, must)
        if seat != self.turn:
            cap = self.rg.takeback_cap
            if new.takebacks >= cap and new.snap is not None and new._turn_plan() is None:
                new.takebacks = cap - 1  # past the cap, the redealt turn cannot end: one more take-back

    def _observe(self, seat: int) -> dict[str, Any]:
        return {
            "hand": hand_tokens(self.hands[seat]),
            "dealer": self.dealer,
            "turn": self.turn,
            "table": [{"n": i + 1, "owner": m.owner, "kind": m.kind, "cards": m.text()}
                      for i, m in enumerate(self.melds)],
            "building": [item_token(i) for i in self.building],
            "discard_top": TOKENS[self.pile[-1]] if self.pile else None,
            "pile_size": len(self.pile),
            "stock_size": len(self.stock),
            "reforms": self.reforms,
            "hand_sizes": [h.bit_count() for h in self.hands],
            "known_cards": [hand_tokens(k) for k in self.known],
            "opened": list(self.opened),
            "must_use": hand_tokens(self.must_use & self.hands[seat]) if seat == self.turn else [],
            "totals": list(self.totals),
            "active": list(self.active),
            "last_deal": dict(self.last) if self.last else None,
        }

    def scores(self) -> list[float]:
        return list(self.totals)

    def clone(self) -> State:
        new = super().clone()
        assert isinstance(new, RummyState)
        new.melds = [m.clone() for m in self.melds]
        new.turn_laid = [m.clone() for m in self.turn_laid]
        if self.snap is not None:
            h, ms, mu = self.snap
            new.snap = (h, [m.clone() for m in ms], mu)
        return new

    # ----------------------------------------------------------------- invariants
    def _invariants(self) -> list[str]:
        out: list[str] = []
        t = list(self.start_totals)
        for row in self.sheet:
            t = [t[s] + row[s] for s in range(self.players)]
        if t != self.totals:
            out.append(f"totals {self.totals} differ from the sheet {t}")
        for i, m in enumerate(self.melds):
            if self._meld_valid(m) is None:
                out.append(f"table meld {i + 1} ({m.text()}) is not a legal meld")
        return out

    def _meld_valid(self, m: Meld) -> Meld | None:
        return self._meld_ok(m.items)

    def _last_row_invariants(self, winner: str = "the winner") -> list[str]:
        """The last deal's row: the seat that went out (``winner``) scored nothing, nobody less."""
        out: list[str] = []
        last = self.last
        if last is not None and self.sheet:
            row = self.sheet[-1]
            w = last["winner"]
            if w is not None and row[w] != 0:
                out.append(f"deal {last['deal']}: {winner} scored {row[w]}")
            if any(p < 0 for p in row):
                out.append(f"deal {last['deal']}: a negative penalty {row}")
        return out

    def _read_eliminated(self, deal: dict[str, Any]) -> list[int]:
        """An injected deal's ``eliminated`` (seats already out: empty hands), marked not active."""
        n = self.players
        out = deal.get("eliminated")
        if out is None:
            return []
        if not isinstance(out, list) or not all(isinstance(s, int) and 0 <= s < n for s in out):
            raise ValueError(f"injected deal: 'eliminated' must list seats 0..{n - 1}")
        if n - len(set(out)) < 2:
            raise ValueError("injected deal: at least two players must still be in")
        for s in out:
            if deal["hands"][s]:
                raise ValueError(f"injected deal: eliminated seat {s} must have an empty hand")
            self.active[s] = False
        return out


_SEARCH_SHARED: Final = frozenset(("stock",))
"""The fields the search's copies share with the real state (``RummyState._light_clone``)."""
_SEARCH_RNG: Final = random.Random(0)
"""The RNG of every search copy (shared: it only deals a copy's next deal, never looked at)."""
