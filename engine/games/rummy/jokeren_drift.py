"""Jokeren (seed-003 description, drift rummy).  Seed 003 L499-545; RULES.md 2.21 and the "Common
rummy definitions".  Decisions followed: JD1-JD6 (with AJ1, AJ2, AJ5, AJ7, AJ3 through JD3/JD6),
X1, X3, X6, X7.

2-4 players, 108 cards (two packs, four jokers), 13 each; one card turned to start the discard
pile.  A turn: ``draw stock`` or ``draw discard`` (always allowed, AJ6 through JD6), table play
(meld protocol of ``engine.games.rummy._rummy``: ``meld 7H`` ... ``confirm``, ``layoff 8H 3``,
``swap 7H 3``, ``takeback``), then ``discard 5H``.

* Sets: 3-4 cards of one rank in different suits (the two packs' copies never share a set; a joker
  names a suit the set lacks, ``JK=7S``).  Runs: 3+ cards of one suit, ace low (A-2-3) or high
  (Q-K-A), never both, no wrap (JD3: AJ1, AJ7).  Every meld has a natural card.
* Lay-offs onto any meld, own or others', sets included (JD3: AJ2).
* Jokers name their card; a player with a meld on the table (one laid earlier in this turn
  included, JD4) may ``swap`` the natural card for a tabled joker, which must go into a new meld
  laid in the same turn (JD5).
* Going out: discard the last card (JD3: AJ5), not before every player has had a turn (the earliest
  is the dealer's first turn).  Table play keeps the card for the discard.
* Penalties for cards in hand: joker 25, A 11, K/Q/J 10, pips face value; the winner 0.
* Match: ``deals`` deals, default 2 x players (everyone deals twice, JD2); lowest total wins.
* Stock empty: the discard pile less its top card is shuffled into a new stock (X3); at most
  ``max_reforms`` times per deal (X7), after that the deal ends without a winner and everyone scores
  his hand.

Option ``open40`` (JD6): the melds laid in a player's opening turn total at least 40 (a joker
counts as the card it stands for, an ace 1 low in A-2-3 else 11); that turn he may lay off only
onto his own new melds (not counted); swaps and other lay-offs from his next turn; ``open40_met``
when the opening turn ends.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final

from engine.cards import JOKER_MASK, base_set, bits, deck_108, value_table
from engine.core import NO_CARD_TABLES, Option, rank_by, register
from engine.games.rummy._rummy import RummyGame, RummyState, meld_points
from engine.melds import Item
from engine.stock import ReformOptions

PENALTY: Final = value_table(ace=11, face=10, joker=25)
@dataclass(frozen=True)
class JokerenDriftOptions(ReformOptions):
    """Jokeren (Drift)'s options (``JokerenDrift.options_spec``), typed."""

    open40: bool = False
    deals: int = 0
    max_reforms: int | None = 3


class JokerenDriftState(RummyState):
    melded: list[bool]
    """Seat has a meld on the table this deal (JD4)."""
    open40: bool
    """Option ``open40`` (JD6), read once a match: the rules ask it a few times an action."""

    def _match_setup(self) -> None:
        self.open40 = self.rg.opts(JokerenDriftOptions).open40

    def _deal_setup(self) -> None:
        self.melded = [False] * self.players

    # ----------------------------------------------------------------- rules
    def _may_swap(self, seat: int) -> bool:
        if self.open40:
            return self.opened[seat]  # JD6: swaps from the turn after the opening turn
        return self.melded[seat] or bool(self.turn_melds)  # JD4: a meld laid earlier this turn counts

    def _may_layoff(self, seat: int, idx: int) -> bool:
        if self.open40 and not self.opened[seat]:
            return idx in self.turn_melds  # JD6: in the opening turn only onto his own new melds
        return True  # JD3/AJ2: onto any meld, own or others', sets included

    def _permission_by_meld(self, seat: int) -> bool:
        # JD4: a meld laid this turn allows swaps
        return not self.open40 and not self.melded[seat]

    def _build_key(self) -> object:
        return None

    def _build_sure(self) -> bool:
        """The take-back cap's search (revised turn 3): with no opening requirement left (plain
        Jokeren Drift, or open40 once opened: JD6) and no card owed to the table left in the hand
        (``must_use``: the joker a swap freed, JD5), a meld being built that the hand
        can still complete within the cards table play may use (:meth:`_completable`, the test
        :meth:`_build_offers` offers each card by, so it can be built card by card and confirmed)
        ends the turn: the card kept for the discard stays in hand, and any card may be discarded."""
        seat = self.turn
        if self.open40 and not self.opened[seat]:
            return False
        hand = self.hands[seat]
        if self.must_use & hand:
            return False
        return self._completable(self.building, base_set(hand), (hand & JOKER_MASK).bit_count(),
                                 hand.bit_count() - self.keep())

    def _turn_can_end(self, seat: int, going_out: bool) -> bool:
        if self.open40 and not self.opened[seat] and self.turn_melds:
            return self._turn_points() >= 40  # JD6: the opening turn's melds total at least 40
        return True

    def _turn_points(self) -> int:
        # JD6: the melds as laid; lay-offs onto them this turn do not count
        return sum(meld_points(m.kind, m.items, m.lo) for m in self.turn_laid)

    # ----------------------------------------------------------------- events
    def _after_meld(self, seat: int, idx: int) -> None:
        self.melded[seat] = True

    def _after_takeback(self, seat: int, melds_laid: int) -> None:
        self.melded[seat] = any(m.owner == seat for m in self.melds)

    def _after_layoff(self, seat: int, idx: int, item: Item) -> None:
        self._emit("laid_off", seat=seat, meld=idx + 1, card=_tok(item),
                   on_other=self.melds[idx].owner != seat)

    def _after_swap(self, seat: int, idx: int, c: int) -> None:
        self._emit("joker_swapped", seat=seat, meld=idx + 1, card=_tok((c, None)))

    def _after_turn(self, seat: int) -> None:
        if self.open40 and not self.opened[seat] and self.turn_melds:
            self.opened[seat] = True
            self._emit("open40_met", seat=seat, points=self._turn_points())
        elif not self.open40 and self.melded[seat]:
            self.opened[seat] = True

    # ----------------------------------------------------------------- scoring
    def _score_deal(self, winner: int | None) -> list[float]:
        return [0.0 if s == winner else float(sum(PENALTY[c] for c in bits(self.hands[s])))
                for s in range(self.players)]

    def _match_over(self) -> bool:
        deals = self.rg.opts(JokerenDriftOptions).deals
        return self.deal_no >= (deals or 2 * self.players)  # JokerenDrift.deals

    def ranking(self) -> list[int]:
        return rank_by(self.totals)  # lowest total wins; equal totals share the place

    def _invariants(self) -> list[str]:
        return super()._invariants() + self._last_row_invariants()


def _tok(item: Item) -> str:
    from engine.melds import item_token
    return item_token(item)


class JokerenDrift(RummyGame):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "draw stock", "draw discard", "meld CARD", "meld NAMED", "confirm", "layoff CARD 1..36",
        "layoff NAMED 1..36", "swap CARD 1..36", "takeback", "discard CARD|JK")
    id = "jokeren_drift"
    lower_score_wins = True
    name = "Jokeren (seed-003 drift rummy)"
    seed_ref = "seed 003 L499-545 ('Jokeren, 2-4 spelers'); RULES.md 2.21"
    summary = ("2-4 players, 108 cards (4 jokers), 13 each, an up-card. Draw the top stock card or "
               "the top discard, meld sets (3-4 of a rank, different suits) and runs (3+ of a suit, "
               "ace low or high), lay off onto any meld, swap a natural card for a tabled joker (once "
               "you have a meld down; the joker goes into a new meld at once), discard. Going out "
               "(no cards after the discard) is allowed from the dealer's first turn. Penalties: "
               "joker 25, A 11, faces 10, pips face. 2 x players deals; lowest total wins.")
    notation = ("draw stock\ndraw discard\nmeld 7H   (one card of the meld being built)\n"
                "meld JK=8H   (a joker naming its card)\nconfirm   (lay the meld being built)\n"
                "layoff 8H 3   (a card onto table meld 3)\nlayoff JK=8H 3\n"
                "swap 7H 3   (the natural 7H for the joker of meld 3 that stands for it)\n"
                "takeback   (undo this turn's table play)\ndiscard 5H")
    min_players = 2
    max_players = 4
    default_players = 4
    rule_events = ("went_out", "joker_swapped", "laid_off", "stock_reshuffled", "open40_met",
                   "deal_without_winner")
    options_spec = (
        Option("open40", False, "JD6 variant: a player's first melds (his opening turn) total >= 40"),
        Option("deals", 0, "JD2: deals in a match; 0 = 2 x players (everyone deals twice)",
               check=lambda v: v >= 0, max=1000),
        Option("max_reforms", 3, "X7: stock re-formings per deal; None = no limit",
               check=lambda v: v >= 0, nullable=True, max=1000),
    )
    options_type = JokerenDriftOptions
    state_class = JokerenDriftState
    tables = NO_CARD_TABLES  # no tricks, no card points
    joker_reuse: ClassVar[str] = "meld"  # JD5: a freed joker goes into a new meld this turn

    def deck(self) -> list[int]:
        return deck_108()

    def deals(self, players: int) -> int:
        return self.opts(JokerenDriftOptions).deals or 2 * players


register(JokerenDrift)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
