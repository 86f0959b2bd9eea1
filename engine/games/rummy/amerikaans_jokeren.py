"""Amerikaans Jokeren.  Seed 003 L436-493; RULES.md 2.20 and the "Common rummy definitions".
Decisions followed: AJ1-AJ15, X1, X3, X6, X7.

2-4 players, 108 cards (two packs, four jokers), 13 each; one card turned to start the discard
pile.  Six deals ("rounds"), each with an opening requirement for a player's first melds of the
deal ("uitkomen"):

1. a set of at least 3; 2. a run of at least 3; 3. melds worth at least 40 points; 4. a run of at
least 4; 5. a run of at least 5; 6. going out in one turn.

* Up-card round (AJ8, AJ12): starting with voorhand, each player in turn may take the up-card
  (``draw discard``) in exchange for a card of his hand (``discard 5H``: it must differ from the
  up-card, the other pack's copy included, and becomes the new discard top), or ``pass``.  The
  round ends when somebody takes it or all have passed; it is not a turn.  Voorhand then starts.
* A turn: ``draw stock`` or ``draw discard`` (always allowed, AJ6), table play (meld protocol of
  ``engine.games.rummy._rummy``: ``meld 7H`` ... ``confirm``, ``layoff 8H 3``, ``swap 7H 3``,
  ``takeback``), then ``discard 5H``.
* Sets: 3-4 cards of one rank in different suits (AJ1); runs: 3+ cards of one suit, ace low or
  high, no wrap (AJ7).  Lay-offs onto runs and sets (AJ2), own or others' once come out.
* Coming out (AJ10, AJ11): in the turn a player comes out he lays exactly one meld of the round's
  kind and at least its size (round 3: one or more melds totalling >= 40, AJ3: a joker counts as
  its card, an ace 1 low in A-2-3 else 11), and no lay-offs or swaps, unless he goes out in that
  turn: then the requirement must be met among that turn's melds and he may also lay off onto his
  own new melds.  Round 6: only by going out in one turn (AJ4).  He has come out once that turn
  has ended (event ``opened``).  Taking back a turn with confirmed melds of a player not yet out
  emits ``opening_requirement_failed_attempt`` (AJ13).
* Jokers: a player who came out in an earlier turn may ``swap`` the natural card for a tabled
  joker, which must go into a new meld in the same turn (AJ15).
* Going out: discard the last card (AJ5), not before every player has had a turn.
* Penalties: joker 25, or 10 for a player who has not come out (AJ14, one ``joker_penalty`` event
  per holder), A 11, K/Q/J 10, pips face value; the winner 0.  Lowest total after six deals wins;
  equal totals share (AJ9).  The deal passes to the left (AJ9).
* Stock empty: the discard pile less its top card is shuffled into a new stock (X3); at most
  ``max_reforms`` times per deal (X7), then the deal ends without a winner.

Injected deals may give ``"deal_no"`` (1-6) to start in a later round.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Final

from engine.cards import BASE, DISCARD, JOKER_MASK, PACK, TOKENS, base_set, bits, deck_108, value_table
from engine.core import NO_CARD_TABLES, Option, rank_by, register
from engine.games.rummy._rummy import RummyGame, RummyState, meld_points
from engine.melds import Item, item_token
from engine.stock import ReformOptions

PENALTY: Final = value_table(ace=11, face=10, joker=25)
JOKER_UNOPENED: Final = 10
ROUNDS: Final = 6
# AJ10: (kind, minimum size) per round; round 3 is points, round 6 going out in one turn
REQUIREMENT: Final[dict[int, tuple[str, int]]] = {1: ("set", 3), 2: ("run", 3), 3: ("points", 40),
                                           4: ("run", 4), 5: ("run", 5), 6: ("out", 0)}


@dataclass(frozen=True)
class AmerikaansJokerenOptions(ReformOptions):
    """Amerikaans Jokeren's options (``AmerikaansJokeren.options_spec``), typed."""

    max_reforms: int | None = 3


class AmerikaansJokerenState(RummyState):
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "round": "the round of the match, from 1 (int): it fixes `requirement`",
        "requirement": "what coming out needs this round, e.g. `set 3` (str)",
        "upcard_round": "the up-card is being offered round the table (`pass` or `draw discard`) (bool)",
    }
    PHASES: ClassVar[tuple[str, ...]] = (  # engine.rl: every phase, "over" included
        "upcard", "upcard_give", "draw", "play", "over")
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md)
        "round": "num:10", "upcard_round": "bool",
    }
    TENSOR_SKIP: ClassVar[dict[str, str]] = {  # engine.rl: keys the tensor leaves out, and why
        "requirement": "fixed by `round` (encoded)",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    up_seat: int
    """Up-card round: the seat asked, or -1 once the round is over."""
    up_asked: int
    up_card: int

    def _deal_setup(self) -> None:
        self.up_seat = -1
        self.up_asked = 0
        self.up_card = -1

    def round(self) -> int:
        return (self.deal_no - 1) % ROUNDS + 1

    # ----------------------------------------------------------------- up-card round (AJ8, AJ12)
    def _begin_play(self) -> None:
        if self.pile:
            self.up_seat = self.first
            self.up_asked = 0
            self.up_card = self.pile[-1]
            self.turn = self.first
            self.phase = "upcard"
            return
        self._begin_turn(self.first)

    def _other_actions(self) -> list[str]:
        if self.phase == "upcard":
            return ["pass", "draw discard"]
        # upcard_give: any card but the up-card (AJ12: the other pack's copy counts as the same)
        hand = self.hands[self.turn]
        tok = TOKENS[self.up_card]
        out: list[str] = []
        for c in bits(hand):
            a = DISCARD[c % PACK]
            if TOKENS[c] != tok and a not in out:
                out.append(a)
        return out

    def _apply(self, action: str) -> None:
        if self.phase == "upcard":
            seat = self.turn
            if action == "pass":
                self.up_asked += 1
                if self.up_asked >= sum(self.active):
                    self._end_upcard_round()
                else:
                    self.turn = self._next_active(seat)
            else:
                c = self.pile.pop()
                self.hands[seat] |= 1 << c
                self.known[seat] |= 1 << c
                self.phase = "upcard_give"
                self._emit("upcard_taken", seat=seat, card=TOKENS[c])
            return
        if self.phase == "upcard_give":
            seat = self.turn
            tok = action.split()[1]
            c = self._pick(self.hands[seat], tok, avoid=self.known[seat])
            self.hands[seat] &= ~(1 << c)
            self.known[seat] &= ~(1 << c)
            self.pile.append(c)  # AJ8: the returned card is the new discard top
            self._end_upcard_round()
            return
        super()._apply(action)

    def _end_upcard_round(self) -> None:
        self.up_seat = -1
        self._begin_turn(self.first)  # AJ12: not a turn; voorhand starts normal play

    # ----------------------------------------------------------------- opening rules
    def _may_swap(self, seat: int) -> bool:
        return self.opened[seat]  # AJ15/AJ11: only after the coming-out turn has ended

    def _may_layoff(self, seat: int, idx: int) -> bool:
        if not self.opened[seat]:
            return idx in self.turn_melds  # AJ11: in the coming-out turn only onto his own new melds
        return True  # AJ2: runs and sets, own or others'

    def _turn_can_end(self, seat: int, going_out: bool) -> bool:
        if self.opened[seat] or not self.turn_melds:
            return True
        return self._requirement_met(going_out)

    def _build_hopeless(self) -> bool:
        """The take-back cap's search, before coming out in a set, run or going-out round: only
        the turn's first meld, of the round's kind, ends the turn without going out (AJ10: exactly
        one meld; AJ4: round 6 only by going out), so a meld being built after another one, or
        one that can no longer be of the kind (cards of two ranks for a set, two suits for a run,
        a set the hand cannot complete by the test :meth:`_build_offers` completes melds by), ends
        it only by going out (AJ11), which needs every card held but one in melds of the held
        cards: impossible while going out is not yet allowed (two cards are kept), or when the
        dead-card bound refutes it (:meth:`_out_impossible`)."""
        seat = self.turn
        if self.opened[seat]:
            return False
        kind, _ = REQUIREMENT[self.round()]
        if kind == "points":
            return False
        b = self.building
        if kind != "out" and not self.turn_melds:
            x0 = BASE[b[0][0]] if b[0][1] is None else b[0][1]
            if kind == "set":
                if all((BASE[c] if nm is None else nm) % 13 == x0 % 13 for c, nm in b):
                    hand = self.hands[seat]
                    if self._set_completable(b, base_set(hand), (hand & JOKER_MASK).bit_count(),
                                             hand.bit_count() - self.keep()):
                        return False  # may still be the round's set (as _build_offers completes it)
            elif all((BASE[c] if nm is None else nm) // 13 == x0 // 13 for c, nm in b):
                return False  # may still be the round's run
        if not self.out_allowed():
            return True
        cards = self.hands[seat]
        for c, _ in b:
            cards |= 1 << c
        return self._out_impossible(cards)

    def _build_sure(self) -> bool:
        """The take-back cap's search, with no card owed to the table in the hand (``must_use``:
        AJ15's freed joker): after coming out, any meld the hand can still complete
        (:meth:`_completable`, the test :meth:`_build_offers` offers each card by, so it can be
        built card by card and confirmed) ends the turn (AJ2: melds and lay-offs are free then,
        nothing is required of the turn); before coming out in the set round, the turn's first
        meld, of one rank, that the hand can still make a set (:meth:`_set_completable`) ends it:
        the set is the round's requirement (AJ10: one meld, no lay-offs, at least 3 cards).  Either
        way the card kept for the discard stays in hand, and any card may then be discarded."""
        seat = self.turn
        hand = self.hands[seat]
        if self.must_use & hand:
            return False
        b = self.building
        if self.opened[seat]:
            return self._completable(b, base_set(hand), (hand & JOKER_MASK).bit_count(),
                                     hand.bit_count() - self.keep())
        if self.turn_melds or self.turn_layoffs:
            return False
        kind, _ = REQUIREMENT[self.round()]
        if kind != "set":
            return False
        x0 = BASE[b[0][0]] if b[0][1] is None else b[0][1]
        if not all((BASE[c] if nm is None else nm) % 13 == x0 % 13 for c, nm in b):
            return False
        return self._set_completable(b, base_set(hand), (hand & JOKER_MASK).bit_count(),
                                     hand.bit_count() - self.keep())

    def _melds_may_meet(self, seat: int) -> bool:
        # AJ10: a set/run round's one meld cannot be mended by more melds, nor a round with
        # lay-offs; only a points round below its points can (else only going out helps)
        kind, _ = REQUIREMENT[self.round()]
        return kind == "points" and not self.turn_layoffs

    def _requirement_met(self, going_out: bool) -> bool:
        kind, size = REQUIREMENT[self.round()]
        laid = self.turn_laid
        if kind == "out":
            return going_out  # AJ4: round 6, come out only by going out in this turn
        if kind == "points":
            pts = sum(meld_points(m.kind, m.items, m.lo) for m in laid)  # AJ3
            if pts < size:
                return False
            return going_out or not self.turn_layoffs  # AJ10: no lay-offs unless going out
        fits = [m for m in laid if m.kind == kind and len(m.items) >= size]
        if going_out:
            return bool(fits)  # AJ11: the requirement met among this turn's melds
        # AJ10: exactly one meld, of the named kind and at least the named size, no lay-offs
        return len(laid) == 1 and bool(fits) and not self.turn_layoffs

    # ----------------------------------------------------------------- events
    def _after_layoff(self, seat: int, idx: int, item: Item) -> None:
        self._emit("laid_off", seat=seat, meld=idx + 1, card=item_token(item),
                   on_other=self.melds[idx].owner != seat)

    def _after_swap(self, seat: int, idx: int, c: int) -> None:
        self._emit("joker_swapped", seat=seat, meld=idx + 1, card=TOKENS[c])

    def _after_takeback(self, seat: int, melds_laid: int) -> None:
        if melds_laid and not self.opened[seat]:
            self._emit("opening_requirement_failed_attempt", seat=seat, round=self.round(),
                       melds=melds_laid)  # AJ13

    def _after_turn(self, seat: int) -> None:
        if not self.opened[seat] and self.turn_melds:
            self.opened[seat] = True
            kind, size = REQUIREMENT[self.round()]
            self._emit("opened", seat=seat, round=self.round(),
                       combo=[m.text() for m in self.turn_laid], requirement=f"{kind} {size}")
            if self.hands[seat] == 0:
                self._emit("went_out_in_one_turn", seat=seat, round=self.round())

    def _went_out(self, seat: int) -> None:
        self._emit("went_out", seat=seat, round=self.round())

    # ----------------------------------------------------------------- scoring
    def _score_deal(self, winner: int | None) -> list[float]:
        pts: list[float] = []
        for s in range(self.players):
            if s == winner:
                pts.append(0.0)
                continue
            hand = self.hands[s]
            jokers = (hand & JOKER_MASK).bit_count()
            per = 25 if self.opened[s] else JOKER_UNOPENED  # AJ14
            total = sum(PENALTY[c] for c in bits(hand & ~JOKER_MASK)) + per * jokers
            if jokers:
                self._emit("joker_penalty", seat=s, per_joker=per, jokers=jokers)
            pts.append(float(total))
        return pts

    def _match_over(self) -> bool:
        return self.deal_no >= ROUNDS

    def ranking(self) -> list[int]:
        return rank_by(self.totals)  # AJ9: lowest total wins; equal totals share

    def _observe(self, seat: int) -> dict[str, Any]:
        obs = super()._observe(seat)
        kind, size = REQUIREMENT[self.round()]
        obs["round"] = self.round()
        obs["requirement"] = f"{kind} {size}"
        obs["upcard_round"] = self.phase in ("upcard", "upcard_give")
        return obs

    def _invariants(self) -> list[str]:
        return super()._invariants() + self._last_row_invariants()


class AmerikaansJokeren(RummyGame):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "pass", "draw stock", "draw discard", "meld CARD", "meld NAMED", "confirm", "layoff CARD 1..36",
        "layoff NAMED 1..36", "swap CARD 1..36", "takeback", "discard CARD|JK")
    id = "amerikaans_jokeren"
    lower_score_wins = True
    name = "Amerikaans Jokeren"
    seed_ref = "seed 003 L436-493 ('Amerikaans Jokeren, 2-4 spelers'); RULES.md 2.20"
    summary = ("2-4 players, 108 cards (4 jokers), 13 each, six deals. An up-card round first (take "
               "the up-card for a card of your hand, or pass). Then draw (stock or top discard), "
               "meld, lay off, discard. Your first melds of a deal must meet the round's requirement: "
               "1 a set of 3+, 2 a run of 3+, 3 40 points, 4 a run of 4+, 5 a run of 5+, 6 go out in "
               "one turn; that turn nothing else unless you go out. Swap tabled jokers once out (the "
               "joker into a new meld at once). Penalties: joker 25 (10 if not out), A 11, faces 10, "
               "pips face. Lowest total wins.")
    notation = ("pass   (up-card round: decline)\ndraw discard   (up-card round: take it, then discard "
                "another card)\ndraw stock\nmeld 7H   (one card of the meld being built)\n"
                "meld JK=8H\nconfirm\nlayoff 8H 3\nlayoff JK=8H 3\nswap 7H 3\ntakeback\ndiscard 5H")
    min_players = 2
    max_players = 4
    default_players = 4
    rule_events = ("upcard_taken", "opened", "opening_requirement_failed_attempt", "joker_swapped",
                   "laid_off", "went_out", "went_out_in_one_turn", "joker_penalty", "stock_reshuffled",
                   "deal_without_winner")
    options_spec = (
        Option("max_reforms", 3, "X7: stock re-formings per deal; None = no limit",
               check=lambda v: v >= 0, nullable=True, max=1000),
    )
    options_type = AmerikaansJokerenOptions
    state_class = AmerikaansJokerenState
    tables = NO_CARD_TABLES  # no tricks, no card points
    joker_reuse: ClassVar[str] = "meld"  # AJ15: a freed joker goes into a new meld this turn

    def deck(self) -> list[int]:
        return deck_108()


register(AmerikaansJokeren)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
