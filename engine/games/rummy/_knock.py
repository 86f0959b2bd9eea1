"""Shared machinery of the knock and confrontation rummies (RULES.md "Common rummy definitions",
X3, X7; games 2.22 ``tonk``, 2.23 ``klop_rummy``, 2.24 ``wildcard_rummy``, 2.26 ``ramino_klop``,
2.28 ``cincinnati_rummy``).

* The deadwood of a hand comes from the exact minimiser :class:`engine.deadwood.Solver` (one per
  game: its :class:`~engine.deadwood.MeldSpec` and card values), cached per hand mask.
* :class:`ConfrontationState`: the deal machinery of the hidden-hand rummies (``klop_rummy``,
  ``wildcard_rummy``, ``cincinnati_rummy``, ``ramino_klop``): deal, ``draw stock`` / ``draw
  discard``, ``discard XX`` (with the ban on the card taken from the discard pile, identical
  tokens included, where the game has it), the stock re-formed at once after the draw that empties
  it (X3: turned over without shuffling, or shuffled), the decision after the draw to end the deal
  with this turn (``knock`` -- in Wildcard and Cincinnati Rummy saying "rummy" -- or ``pass``),
  and the hands shown with their best arrangement when the deal ends.  Games add the going-out
  rules, the scoring and the match end.  The going-out verb is ``knock`` in all four games (not
  ``declare``, which the house bots treat as table talk and never choose).

The stock, the discard pile's re-forming (X3/X7), the injected deal (X6), hidden cards and
``determinize`` come from the draw-and-discard kernel, :mod:`engine.stock`; this module keeps the
turn protocol (draw, decide, discard with the ban) and the end of a deal.
:class:`OneWinnerState` is the part Wildcard and Cincinnati Rummy share (packs, deal size, one
winner's row).
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, ClassVar, cast

from engine.cards import DISCARD, PHYS, TOKENS, bits, build_deck, hand_tokens
from engine.core import Game, Option, State, rank_by
from engine.deadwood import (
    CACHE_LIMIT,
    Solver,
    lower_bound,
    melds_text,
    naturals,
)
from engine.deal import check_deal, check_sizes, pack_tokens
from engine.stock import (
    DrawDiscardState,
    ReformMode,
    ReformRule,
    ReshuffleOptions,
    deal_injected,
    match_start,
    read_seat,
    read_totals,
    reform_cap,
    reform_mode,
)

OUT_VERBS: dict[str, tuple[str, str]] = {"knock": ("cards0", "knock, or knock 5H (out with that discard)")}
"""The going-out verb of :class:`AllMeldState` games: ``knock`` alone or with its discard (WR7, CR4)."""


# ===================================================================== hidden-hand deal machinery
REDEALS = 20
"""Redeals ``determinize`` tries for a seat that has declared going out (then the copy's seat
decides again)."""


class ConfrontationGame(Game):
    """A hidden-hand rummy (not registered itself)."""

    solver: Solver

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.solver = self.make_solver()
        self.dw_cache: dict[int, int] = {}
        self.outs_cache: dict[int, tuple[bool, int]] = {}

    def make_solver(self) -> Solver:
        raise NotImplementedError

    def deadwood(self, hand: int) -> int:
        """Least deadwood of a hand mask (cached per mask)."""
        cache = self.dw_cache
        got = cache.get(hand)
        if got is None:
            got = self.solver.deadwood(bits(hand))
            if len(cache) >= CACHE_LIMIT:
                cache.clear()
            cache[hand] = got
        return got

    def outs(self, hand: int) -> tuple[bool, int]:
        """(the whole hand mask melds, mask of its cards whose discard leaves a melded hand):
        ``solver.count2(hand) == 0`` and every ``c`` with ``solver.count2(hand - c) == 0``, from
        one search (:meth:`engine.deadwood.Solver.outs1`; cached per mask)."""
        cache = self.outs_cache
        got = cache.get(hand)
        if got is None:
            m1, m2, w = naturals(hand, self.solver.spec.wild_twos)
            if lower_bound(m1, m2, w) > 1:
                got = (False, 0)
            else:
                got = self.solver.outs1(bits(hand))
            if len(cache) >= CACHE_LIMIT:
                cache.clear()
            cache[hand] = got
        return got


class ConfrontationState(DrawDiscardState):
    """Deal, draw, discard, stock re-forming and the going-out decision of the hidden-hand rummies.

    Turn: ``draw stock`` / ``draw discard``; then, when the game allows the player to end the deal
    this turn, ``<out verb>`` or ``pass``; then ``discard XX`` (after the out verb only the discards
    that end the deal as the game requires).  The phase shown to every seat is ``draw`` and then
    ``play`` for the whole rest of the turn, so that nobody learns that a player could have gone out.
    """
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "hand": "your cards (list[card])",
        "dealer": "the seat that dealt this deal (int)",
        "pile": "the discard pile, top card last (list[card])",
        "stock_size": "cards left in the stock (int)",
        "stock_order_known": "the stock was re-formed from the discard pile in a known order: you can tell "
            "what comes next (bool)",
        "hand_sizes": "cards held per seat (list[int])",
        "known_cards": "per seat, the cards it is publicly known to hold (taken from the discard pile), "
            "list[list[card]]",
        "banned_discards": "on your turn, the cards you may not discard now (the card just taken, ...) "
            "(list[card])",
        "totals": "match points per seat (list[int])",
        "active": "per seat, whether it is still in the match (list[bool])",
        "last_deal": "the previous deal's result, null before one ended: `deal`, `points` per seat and the "
            "game's own fields (`knocker`, `winner`, `deadwood`, `kind`, `penalties`, ...)",
    }
    PHASES: ClassVar[tuple[str, ...]] = (  # engine.rl: every phase, "over" included
        "draw", "play", "over")
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md)
        "scores": "seat_nums:200", "hand": "cards", "dealer": "seat", "pile": "cards",
        "stock_size": "num:108", "stock_order_known": "bool", "hand_sizes": "seat_nums:15",
        "known_cards": "seat_cards", "banned_discards": "cards", "totals": "seat_nums:200",
        "active": "seat_nums:1",
    }
    TENSOR_SKIP: ClassVar[dict[str, str]] = {  # engine.rl: keys the tensor leaves out, and why
        "last_deal": "the previous deal's summary: its points are already in `totals`",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    out_verb: ClassVar[str] = "knock"
    ban_taken: ClassVar[bool] = True
    """The card taken from the discard pile (or an identical one) may not be discarded this turn."""
    reform: ClassVar[ReformMode] = "flip"
    """Stock exhausted: 'flip' (turn the pile over, X3), 'shuffle', or 'none' (the game ends the deal);
    a game with option ``reshuffle`` chooses by it (:meth:`reform_mode`)."""

    hands: list[int]
    known: list[int]
    stock: list[int]
    stock_view: str
    """What everyone knows of the stock: 'hidden', 'set' (after a reshuffle) or 'order' (after a flip)."""
    pile: list[int]
    turn: int
    dealer: int
    step: str
    """'draw', 'decide' (out verb or pass), 'discard'."""
    taken: int
    declared: bool
    allowed: int
    """After the out verb: mask of the cards whose discard ends the deal as required."""
    totals: list[int]
    active: list[bool]
    deck: list[int]
    last: dict[str, Any] | None
    start_totals: list[int]
    reforms: int

    # ----------------------------------------------------------------- hooks
    def _match_deck(self) -> list[int]:
        raise NotImplementedError

    def _deal_size(self) -> int:
        raise NotImplementedError

    def _first_dealer(self) -> int:
        return 0  # X1

    def _can_go_out(self, seat: int) -> bool:
        """After the draw: may ``seat`` end the deal this turn (the out verb is offered)?"""
        raise NotImplementedError

    def _out_now(self, seat: int) -> bool:
        """After the out verb: does the deal end at once, without a discard?"""
        return False

    def _out_discards(self, seat: int) -> int:
        """After the out verb: mask of the cards whose discard ends the deal."""
        raise NotImplementedError

    def _end_out(self, seat: int, discard: int | None) -> None:
        """Score a deal ended by ``seat`` (after his discard, or without one) and go on."""
        raise NotImplementedError

    def _stock_out(self) -> None:
        """A turn begins with no stock and none can be formed: the deal ends with no winner."""
        raise NotImplementedError

    def _turn_end(self, seat: int) -> bool:
        """Hook after an ordinary discard; True if it ended the deal."""
        return False

    # ----------------------------------------------------------------- set-up
    def _setup(self, deal: dict[str, Any] | None) -> None:
        self.totals, self.start_totals, self.active = match_start(self.players, 0)
        self.last = None
        self.deck = self._match_deck()
        if deal is None:
            self._start_deal(self._first_dealer())
        else:
            self._inject(deal)

    def _reset_deal(self) -> None:
        n = self.players
        self.hands = [0] * n
        self.known = [0] * n
        self.pile = []
        self.stock = []
        self.stock_view = "hidden"
        self.taken = -1
        self.declared = False
        self.allowed = 0
        self.reforms = 0
        self.deal_no += 1
        self._legal = None

    def _start_deal(self, dealer: int) -> None:
        self._reset_deal()
        self.dealer = dealer
        deck = list(self.deck)
        self.rng.shuffle(deck)
        self.deck_mask = 0
        for c in deck:
            self.deck_mask |= 1 << c
        seats = []
        s = dealer
        for _ in range(sum(self.active)):
            s = self._next_active(s)
            seats.append(s)
        for _ in range(self._deal_size()):
            for s in seats:
                self.hands[s] |= 1 << deck.pop()
        self.stock = deck
        if self.stock:
            self.pile.append(self.stock.pop())
        self._begin_turn(seats[0])

    def _inject(self, deal: dict[str, Any]) -> None:
        n = self.players
        d = check_deal(deal, game=self.game.id, players=n, pack=pack_tokens(self.deck), sizes=None,
                       stock="rest", upcard="optional", extra=("totals", "first"))
        totals = read_totals(deal, n, ints=True)
        if totals is not None:
            self._start_from(totals)
        for s, toks in enumerate(d.hands):
            if toks and not self.active[s]:
                raise ValueError(f"injected deal: seat {s} is out of the match and holds no cards")
        check_sizes(d, [self._deal_size() if self.active[s] else 0 for s in range(n)])
        dealer = 0 if d.dealer is None else d.dealer
        if not self.active[dealer]:
            raise ValueError(f"injected deal: 'dealer' must be a seat 0..{n - 1} still in, got {dealer!r}")
        self._reset_deal()
        self.dealer = dealer
        dealt = deal_injected(d, self.deck, self.rng)
        self.hands = dealt.hands
        self.stock = dealt.stock
        if dealt.upcard is not None:
            self.pile.append(dealt.upcard)
        elif self.stock:
            self.pile.append(self.stock.pop())
        self.deck_mask = dealt.mask
        self._begin_turn(read_seat(deal, "first", self.active, self._next_active(dealer)))

    def _start_from(self, totals: list[int]) -> None:
        self.totals = list(totals)
        self.start_totals = list(totals)

    # ----------------------------------------------------------------- turn
    def _begin_turn(self, seat: int) -> None:
        self.turn = seat
        self.taken = -1
        self.declared = False
        self.allowed = 0
        self.step = "draw"
        self.phase = "draw"
        self._legal = None
        if not self.stock:
            self._reform()
            if not self.stock:  # X7: no stock and none can be formed
                self._stock_out()

    def reform_mode(self) -> ReformMode:
        """X3: the class's ``reform``, or the game's option ``reshuffle`` where it has one."""
        return reform_mode(self.reform, self.game.opts(object))

    def _reform(self) -> bool:
        """X3: re-form the stock from the discard pile, keeping its top card face up."""
        # X7 safety net (``max_reforms``): past the cap the deal then ends with no winner
        rule = ReformRule(self.reform_mode(), reform_cap(self.game.opts(object), None), keep=1)
        got = rule.reform(self.pile, self.reforms, self.rng)
        if got is None:
            return False
        self.stock, self.pile = got
        self.stock_view = "order" if rule.mode == "flip" else "set"
        self.reforms += 1
        self._reformed(len(self.stock))
        return True

    def _reformed(self, size: int) -> None:
        """The re-forming event (X3)."""
        self._emit("stock_flipped", size=size, shuffled=self.reform_mode() == "shuffle")

    def _current(self) -> int:
        return self.turn

    def _legal_actions(self) -> list[str]:
        step = self.step
        if step == "draw":
            out = ["draw stock"] if self.stock else []
            if self.pile:
                out.append("draw discard")
            return out
        if step == "decide":
            return self._decide_actions(self.turn)
        hand = self.hands[self.turn]
        if self.declared:
            hand &= self.allowed
        elif self.ban_taken and self.taken >= 0:
            for c in PHYS[TOKENS[self.taken]]:
                hand &= ~(1 << c)
        return list(dict.fromkeys([DISCARD[c] for c in bits(hand)]))

    def _banned_mask(self) -> int:
        m = 0
        if self.ban_taken and self.taken >= 0:
            for c in PHYS[TOKENS[self.taken]]:
                m |= 1 << c
        return m

    def _apply(self, action: str) -> None:
        seat = self.turn
        if action == "draw stock":
            c = self.stock.pop()
            self.hands[seat] |= 1 << c
            if self.stock_view == "order":
                self.known[seat] |= 1 << c  # a turned-over stock's order is public
            if not self.stock:
                self._reform()
            self._after_draw(seat)
        elif action == "draw discard":
            c = self.pile.pop()
            self.hands[seat] |= 1 << c
            self.known[seat] |= 1 << c
            self.taken = c
            self._after_draw(seat)
        elif action == "pass":
            self.step = "discard"
        elif action.startswith(self.out_verb + " "):  # going out with this discard (WR7, CR4)
            tok = action[len(self.out_verb) + 1:]
            hand = self.hands[seat]
            c = next(x for x in PHYS[tok] if hand >> x & 1 and self.allowed >> x & 1)
            self.declared = True
            self.hands[seat] = hand & ~(1 << c)
            self.known[seat] &= ~(1 << c)
            self.pile.append(c)
            self._end_out(seat, c)
        elif action == self.out_verb:
            self.declared = True
            if self._out_now(seat):
                self._end_out(seat, None)
                return
            self.allowed = self._out_discards(seat)
            self.step = "discard"
        else:  # discard XX
            tok = action[8:]
            hand = self.hands[seat]
            c = next(x for x in PHYS[tok] if hand >> x & 1 and (not self.declared or self.allowed >> x & 1))
            self.hands[seat] = hand & ~(1 << c)
            self.known[seat] &= ~(1 << c)
            self.pile.append(c)
            if self.declared:
                self._end_out(seat, c)
                return
            if self._turn_end(seat):
                return
            self._begin_turn(self._next_active(seat))

    def _rederive(self, seat: int) -> bool:
        """After ``determinize`` redealt the hand of ``seat`` (to act, after its draw): its step's
        choices from the new hand; False when it has declared going out and this hand cannot."""
        if self.step == "decide":
            self.step = "decide" if self._can_go_out(seat) else "discard"
            return True
        if self.declared:
            self.allowed = self._out_discards(seat)
            return self.hands[seat] & self.allowed != 0
        return True

    def _decide_actions(self, seat: int) -> list[str]:
        """The choices of the ``decide`` step: ``pass`` and the out verb (games may list several
        forms of going out)."""
        return ["pass", self.out_verb]

    def _after_draw(self, seat: int) -> None:
        self.phase = "play"
        self.step = "decide" if self._can_go_out(seat) else "discard"

    # ----------------------------------------------------------------- deal end helpers
    def _shown(self) -> tuple[list[list[str]], list[list[str]], list[list[str]], list[int]]:
        """Every hand, its best arrangement (melds, deadwood cards) and deadwood value."""
        hands, melds, dead, dw = [], [], [], []
        for s in range(self.players):
            cards = bits(self.hands[s])
            cost, ms, dd = cast(ConfrontationGame, self.game).solver.arrange(cards)
            hands.append([TOKENS[c] for c in cards])
            melds.append(melds_text(ms))
            dead.append([TOKENS[c] for c in dd])
            dw.append(cost)
        return hands, melds, dead, dw

    # ----------------------------------------------------------------- views
    def zones(self) -> dict[str, int]:
        z = {f"hand{s}": h for s, h in enumerate(self.hands)}
        st = pl = 0
        for c in self.stock:
            st |= 1 << c
        for c in self.pile:
            pl |= 1 << c
        z.update(stock=st, pile=pl)
        return z

    def determinize(self, seat: int, rng: random.Random) -> State:
        new = self.clone()
        assert isinstance(new, ConfrontationState)
        pool = self._redeal_hidden(new, seat, rng, stock_hidden=self.stock_view == "hidden")
        t = self.turn
        if seat != t and self.phase == "play" and self.step != "draw":
            # what the seat to act may do after its draw was worked out from its real hand: work it
            # out again from the redealt one (a declared out that this hand cannot make is redealt,
            # up to REDEALS times, then taken back: the copy decides again)
            for _ in range(REDEALS):
                if new._rederive(t):
                    break
                pool = self._redeal_hidden(new, seat, rng, stock_hidden=self.stock_view == "hidden")
            else:
                new.declared = False
                new._after_draw(t)
        if self.stock_view == "hidden":
            new.stock = pool
        elif self.stock_view == "set":
            stock = list(self.stock)
            rng.shuffle(stock)
            new.stock = stock
        self._reseed(new, rng)
        return new

    def _observe(self, seat: int) -> dict[str, Any]:
        last = self.last
        if last is not None and not self._over:
            last = {k: v for k, v in last.items() if k not in ("hands", "melds", "deadwood_cards")}
        banned = sorted({TOKENS[c] for c in bits(self._banned_mask())}) if self.turn == seat else []
        return {
            "hand": hand_tokens(self.hands[seat]),
            "dealer": self.dealer,
            "pile": [TOKENS[c] for c in self.pile],
            "stock_size": len(self.stock),
            "stock_order_known": self.stock_view == "order",
            "hand_sizes": [h.bit_count() for h in self.hands],
            "known_cards": [hand_tokens(k) for k in self.known],
            "banned_discards": banned,
            "totals": list(self.totals),
            "active": list(self.active),
            "last_deal": last,
        }


class AllMeldState(ConfrontationState):
    """Going out with every card in melds (Wildcard and Cincinnati Rummy): after the draw, every
    possible form of going out is offered (WR7, CR4): ``knock`` when all the cards meld (out
    without a discard), and ``knock XX`` for each card XX whose discard leaves a melded hand (the
    ban on the card taken from the pile applies), also when the whole hand melds."""

    out_verb: ClassVar[str] = "knock"  # "rummy!": going out ends the deal, as a knock does
    go_now: bool = False
    go_mask: int = 0

    def _can_go_out(self, seat: int) -> bool:
        game = cast(ConfrontationGame, self.game)
        hand = self.hands[seat]
        whole, outs = game.outs(hand)  # one search for the whole hand and every discard
        self.go_now = whole
        self.go_mask = 0
        if not whole and not outs:  # two or more cards unmelded at least
            return False
        m = outs & ~self._banned_mask()  # the ban covers every copy of the taken token
        self.go_mask = m
        self.allowed = m
        return whole or m != 0

    def _decide_actions(self, seat: int) -> list[str]:
        out = ["pass"]
        if self.go_now:
            out.append(self.out_verb)
        prefix = self.out_verb + " "
        out += list(dict.fromkeys(prefix + TOKENS[c] for c in bits(self.go_mask)))
        return out

    def _out_now(self, seat: int) -> bool:
        return self.go_now

    def _out_discards(self, seat: int) -> int:
        return 0  # ``knock`` alone goes out without a discard; ``knock XX`` names the discard


def packs_for(players: int, option: int | None) -> int:
    """WR1/CR3: one pack for 2-6 players, two for 7 (or the game's option ``packs``)."""
    if option is not None:
        return option
    return 2 if players >= 7 else 1


def deal_size(players: int, packs: int, three: int) -> int:
    """WR2/CR3: two packs 10 each; one pack 7 each (6 players: 6; 3 players: ``three``)."""
    if packs == 2:
        return 10
    if players == 3:
        return three  # WR2
    return 6 if players == 6 else 7


@dataclass(frozen=True)
class OneWinnerOptions(ReshuffleOptions):
    """The options :class:`OneWinnerState` games share (:func:`one_winner_options`), typed; a game
    with more subclasses it."""

    packs: int | None = None
    three_player_cards: int = 7
    reshuffle: bool = False
    max_reforms: int | None = 30
    deal_cap: int = 50
    target: int = 100


def one_winner_options(packs: str, cards: str, target: str) -> tuple[Option, ...]:
    """The options :class:`OneWinnerState` games share (``packs``, ``cards``, ``target``: the rule
    ids their help names)."""
    return (
        Option("packs", None, f"{packs}: packs (1 or 2); default one for 2-6 players, two for 7",
               choices=(None, 1, 2)),
        Option("three_player_cards", 7, f"{cards}: cards each with 3 players and one pack", choices=(7, 10)),
        Option("reshuffle", False, "Stock exhausted: shuffle the pile instead of turning it over"),
        Option("max_reforms", 30, "X7 safety net: stock re-formings per deal, then the deal ends with no "
               "winner (None: no cap, X7; deterministic players can loop for ever) [engine default]",
               nullable=True, check=lambda v: v >= 0, max=1000),
        Option("deal_cap", 50, "Safety net: the match ends after this many deals even if nobody reached "
               "the target (deals without a winner score nothing) [engine default]",
               check=lambda v: v >= 1, max=1000),
        Option("target", 100, f"{target}: the match ends when a total reaches this [engine default]",
               check=lambda v: v >= 1, max=10000),
    )


class OneWinnerState(AllMeldState):
    """Wildcard and Cincinnati Rummy: one or two packs by the number of players, the winner alone
    scores the deal (:meth:`_deal_points`), a deal without winner scores nothing, the first to the
    option ``target`` wins (``deal_cap`` deals at most)."""

    ban_taken: ClassVar[bool] = True
    packs_rule: ClassVar[str] = "WR1"
    """The rule that asks for two packs with 7 players (in the error that says so)."""
    scores_word: ClassVar[str] = "collects"
    """What the winner does in the invariant that only he scores (``collects``, ``scores``)."""

    def _match_deck(self) -> list[int]:
        packs = packs_for(self.players, self.game.opts(OneWinnerOptions).packs)
        if packs == 1 and self.players == 7:
            raise ValueError(f"{self.game.id}: 7 players need two packs ({self.packs_rule})")
        return build_deck(jokers=2 * packs, packs=packs)

    def _deal_size(self) -> int:
        packs = packs_for(self.players, self.game.opts(OneWinnerOptions).packs)
        return deal_size(self.players, packs, self.game.opts(OneWinnerOptions).three_player_cards)

    def _stock_out(self) -> None:
        self._emit("deal_without_winner", pile=len(self.pile))
        self.sheet.append([0.0] * self.players)
        self.last = {"deal": self.deal_no, "winner": None}
        self._next_deal()

    def _deal_points(self, seat: int, discard: int | None, shown: tuple[list[list[str]], list[list[str]],
                     list[list[str]], list[int]]) -> list[int]:
        """The deal's points per seat when ``seat`` went out (the game's events said)."""
        raise NotImplementedError

    def _end_out(self, seat: int, discard: int | None) -> None:
        shown = self._shown()
        hands, melds, dead, dw = shown
        pts = self._deal_points(seat, discard, shown)
        self.sheet.append([float(p) for p in pts])
        self.totals[seat] += pts[seat]
        self.last = {"deal": self.deal_no, "winner": seat, "points": pts, "penalties": dw,
                     "hands": hands, "melds": melds, "deadwood_cards": dead}
        if self.totals[seat] >= self.game.opts(OneWinnerOptions).target:  # WR6, CR2
            self._finish()
            return
        self._next_deal()

    def _next_deal(self) -> None:
        if self._deals_done() or self.deal_no >= self.game.opts(OneWinnerOptions).deal_cap:
            self._finish()
            return
        self._start_deal((self.dealer + 1) % self.players)

    def scores(self) -> list[float]:
        return [float(t) for t in self.totals]

    def ranking(self) -> list[int]:
        return rank_by(self.totals, lower_is_better=False)

    def _winner_invariants(self, last: dict[str, Any], w: int) -> list[str]:
        """Hook: the game's checks of the winner's score in the last deal."""
        return []

    def _invariants(self) -> list[str]:
        out: list[str] = []
        t = list(self.start_totals)
        for row in self.sheet:
            if sum(1 for v in row if v) > 1 or any(v < 0 for v in row):
                out.append(f"deal row {row}: only the winner {self.scores_word}")
            t = [t[s] + int(row[s]) for s in range(self.players)]
        if t != self.totals:
            out.append(f"totals {self.totals} differ from the sheet {t}")
        last = self.last
        if last is not None and last.get("winner") is not None and self.sheet:
            w = last["winner"]
            if last["penalties"][w] != 0:
                out.append(f"the winner {w} did not meld every card: {last['deadwood_cards'][w]}")
            out += self._winner_invariants(last, w)
        return out
