"""Ramino (Drift) / Remigio.  Seed 003 L689-713; RULES.md 2.27, the "Common
rummy definitions", X3, X6, X7 and the elimination-rummy rules.  Decisions followed: RD1-RD6.

2-4 players (RD1), one pack of 54 cards (2 jokers), 7 each; one card turned to start the discard
pile.  A turn: ``draw stock`` or ``draw discard`` (always allowed), table play (the meld protocol of
``engine.games.rummy._rummy``: ``meld 7H`` ... ``confirm``, ``layoff 8H 3``, ``swap 7H 3``,
``takeback``), then ``discard 5H`` -- never the card taken from the discard pile this turn (nor,
for a joker, the other joker).  Table play may not end with only such a card left in hand: the
turn cannot end then (lay it too, going out, or ``takeback``).

* Melds: sets of 3-4 cards of one rank in different suits, runs of 3+ cards of one suit, aces low
  only (A-2-3, never Q-K-A); jokers stand for any card (a set: a suit it lacks, ``JK=7S``); every
  meld holds a natural card.
* Joker swap (RD4: no need to have come out): ``swap 7H 3`` puts the natural 7H in the place of
  the joker of meld 3 that stands for 7H; the joker must be laid again in the same turn, in a new
  meld or as a lay-off (RD6; a lay-off only once the player has come out).
* Lay-offs: once a player has come out (his first meld of the deal, one laid earlier in the same
  turn included, RD5; event ``came_out``) he may add single cards to melds on the table, his own
  or others' -- runs, and sets too (RD3, option ``layoff_sets``).
* Going out (RD2): with or without a final discard -- the deal ends as soon as the hand is empty
  (after a meld or a lay-off, or by discarding the last card).
* Penalties for cards in hand: A 1, pips face value, faces 10, jokers 20; the player out scores 0.
* Stock empty: the discard pile less its top card is turned over without shuffling into a new
  stock (``stock_flipped``; option ``reshuffle``: shuffled, ``stock_reshuffled``); at most
  ``max_reforms`` times per deal (X7), after that the deal ends without a winner and everyone
  scores his hand.
* Elimination: a player whose total reaches 101 (>= 101) is out (``eliminated``) and skipped in
  play and dealing; the last player left wins.  Ranking: the last player first, then later
  eliminations before earlier ones, the same deal by lower total (all out in one deal: the lowest
  total wins).

Injected deal (X6): as in ``engine.games.rummy._rummy``, plus ``"eliminated"`` (seats already out, with
empty hands).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Final

from engine.cards import BASE, IS_JOKER, JOKER, JOKER_MASK, PHYS, TOKENS, bits, deck_54, value_table
from engine.core import NO_CARD_TABLES, Option, register
from engine.games.rummy._rummy import RummyGame, RummyState
from engine.melds import GroupRule, Item, RunRule, item_token
from engine.stock import ReformMode, ReshuffleOptions

PENALTY: Final = value_table(ace=1, face=10, joker=20)
OUT_AT: Final = 101


@dataclass(frozen=True)
class RaminoDriftOptions(ReshuffleOptions):
    """Ramino (Drift)'s options (``RaminoDrift.options_spec``), typed."""

    layoff_sets: bool = True
    reshuffle: bool = False
    max_reforms: int | None = 3


class RaminoDriftState(RummyState):
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "eliminated": "per seat, whether it is out of the match (list[bool])",
        "came_out": "per seat, whether it has a meld of its own on the table (list[bool]; lay-offs need it)",
        "taken_discard": "the card taken from the discard pile this turn, null if none",
    }
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md)
        "table": "melds:18", "eliminated": "seat_nums:1", "came_out": "seat_nums:1", "taken_discard": "card",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    out_deal: list[int]
    """Deal in which a seat was eliminated (0: still in; -1: out before an injected deal)."""
    melded: list[bool]
    """Seat has come out this deal (RD5: a meld of his on the table, this turn's included)."""
    pending: list[tuple[str, dict[str, Any]]]
    """This turn's table-play events, emitted when the turn ends (dropped by a take-back)."""

    # ----------------------------------------------------------------- set-up
    def _match_setup(self) -> None:
        self.out_deal = [0] * self.players
        self.pending = []

    def _deal_setup(self) -> None:
        self.melded = [False] * self.players
        self.pending = []

    deal_keys = ("eliminated",)

    def _inject_extra(self, deal: dict[str, Any]) -> None:
        for s in self._read_eliminated(deal):
            self.out_deal[s] = -1

    # ----------------------------------------------------------------- the discard ban
    def _banned(self, c: int) -> bool:
        """Is base card ``c`` (``JOKER`` for a joker) the card taken from the discard this turn,
        or identical to it (the other joker)?"""
        t = self.took_discard
        if t < 0:
            return False
        return c == JOKER if IS_JOKER[t] else c == BASE[t]

    def _banned_mask(self) -> int:
        t = self.took_discard
        if t < 0:
            return 0
        if IS_JOKER[t]:
            return JOKER_MASK
        m = 0
        for c in PHYS[TOKENS[BASE[t]]]:
            m |= 1 << c
        return m

    def _discard_ok(self, seat: int, c: int, last: bool) -> bool:
        # seed L699: always another card than the one taken from the discard pile (common rule:
        # an identical card, the other joker, too)
        return not self._banned(c)

    def _discard_ban(self, seat: int, last: bool) -> int:
        t = self.took_discard
        return 0 if t < 0 or IS_JOKER[t] else 1 << BASE[t]  # seed L699: never the taken card

    def _turn_can_end(self, seat: int, going_out: bool) -> bool:
        # common rule: table play may not leave only banned cards (unless going out without a
        # discard, which ends the deal at once: RD2)
        hand = self.hands[seat]
        return not hand or bool(hand & ~self._banned_mask())

    # ----------------------------------------------------------------- RD3-RD6
    def _may_layoff(self, seat: int, idx: int) -> bool:
        if not self.melded[seat]:
            return False  # RD5: lay-offs only once come out (this turn's first meld included)
        # RD3: onto runs (seed L706), and onto sets unless the option is off
        return self.rg.opts(RaminoDriftOptions).layoff_sets or self.melds[idx].kind == "run"

    def _permission_by_meld(self, seat: int) -> bool:
        return not self.melded[seat]  # RD5: a meld laid this turn allows lay-offs

    def _may_swap(self, seat: int) -> bool:
        return True  # RD4: holding the natural card is enough; no need to have come out

    # RD6: a freed joker goes back on the table this turn, in a new meld or as a lay-off (the
    # game's joker_reuse = "any"; _rummy's _joker_usable asks _may_layoff, so RD5 holds there too)

    # ----------------------------------------------------------------- events and going out
    def _after_meld(self, seat: int, idx: int) -> None:
        if not self.melded[seat]:
            self.melded[seat] = True
            self.pending.append(("came_out", {"seat": seat, "meld": idx + 1,
                                              "cards": self.melds[idx].text()}))  # RD5
        self._check_out(seat)

    def _after_layoff(self, seat: int, idx: int, item: Item) -> None:
        self.pending.append(("laid_off", {"seat": seat, "meld": idx + 1, "card": item_token(item),
                                          "kind": self.melds[idx].kind,
                                          "on_other": self.melds[idx].owner != seat}))
        self._check_out(seat)

    def _after_swap(self, seat: int, idx: int, c: int) -> None:
        self.pending.append(("joker_swapped", {"seat": seat, "meld": idx + 1, "card": TOKENS[BASE[c]],
                                               "came_out": self.melded[seat]}))

    def _after_takeback(self, seat: int, melds_laid: int) -> None:
        self.pending = []
        self.melded[seat] = any(m.owner == seat for m in self.melds)

    def _flush(self) -> None:
        """The turn ends: its table-play events are final (and ``opened`` follows RD5)."""
        self.opened[self.turn] = self.melded[self.turn]
        for name, data in self.pending:
            self._emit(name, **data)
        self.pending = []

    def _check_out(self, seat: int) -> None:
        """RD2: the hand is empty after table play: the player goes out without a discard."""
        if self.hands[seat] == 0 and not self.building:
            self._flush()
            self._emit("went_out", seat=seat, discard=False)
            self._end_deal(seat)

    def _after_turn(self, seat: int) -> None:
        self._flush()

    def _went_out(self, seat: int) -> None:
        self._emit("went_out", seat=seat, discard=True)  # RD2: by discarding the last card

    # ----------------------------------------------------------------- scoring and elimination
    def _score_deal(self, winner: int | None) -> list[float]:
        # seed L711: the first out scores 0, the others A 1, pips face, faces 10, jokers 20
        return [0.0 if s == winner or not self.active[s]
                else float(sum(PENALTY[c] for c in bits(self.hands[s])))
                for s in range(self.players)]

    def _after_deal(self, winner: int | None) -> None:
        self.building = []
        for s in range(self.players):
            if self.active[s] and self.totals[s] >= OUT_AT:  # seed L713: 101 reached -> out
                self.active[s] = False
                self.out_deal[s] = self.deal_no
                self._emit("eliminated", seat=s, total=self.totals[s])

    def _match_over(self) -> bool:
        return sum(self.active) <= 1

    def _next_dealer(self) -> int:
        return self._next_active(self.dealer)  # eliminated players are skipped in dealing

    def ranking(self) -> list[int]:
        # the last player left first; later eliminations before earlier ones; then lower total
        # (all out in one deal: the lowest total wins, as RK6)
        keys = [(0, 0, self.totals[s]) if self.active[s] else (1, -self.out_deal[s], self.totals[s])
                for s in range(self.players)]
        return [1 + sum(1 for k in keys if k < keys[s]) for s in range(self.players)]

    # ----------------------------------------------------------------- views and checks
    def _why_illegal(self, verb: str, args: tuple[str, ...]) -> str:
        if self.phase == "play" and not self.building and verb == "discard" and args:
            if args[0] in PHYS and self._banned(BASE[PHYS[args[0]][0]]):
                return "you may not discard the card you took from the discard pile this turn"
            hand = self.hands[self.turn]
            if hand and not hand & ~self._banned_mask():
                return "only the card taken from the discard pile is left: lay it too, or 'takeback'"
        if self.phase == "play" and verb == "layoff" and not self.melded[self.turn]:
            return "lay-offs only once you have come out (a meld of yours on the table)"
        return super()._why_illegal(verb, args)

    def _observe(self, seat: int) -> dict[str, Any]:
        obs = super()._observe(seat)
        obs["eliminated"] = [not a for a in self.active]
        obs["came_out"] = list(self.melded)
        obs["taken_discard"] = TOKENS[BASE[self.took_discard]] if self.took_discard >= 0 else None
        return obs

    def _invariants(self) -> list[str]:
        out = super()._invariants() + self._last_row_invariants("the player out")
        last = self.last
        if last is not None and self.sheet:
            row = self.sheet[-1]
            if any(p > 2 * 20 + 5 * 10 for p in row):  # 7 cards at most: 2 jokers, 5 faces
                out.append(f"deal {last['deal']}: a penalty above any hand's worth {row}")
        for s in range(self.players):
            if not self.active[s] and self.hands[s] and self.out_deal[s] != self.deal_no:
                out.append(f"eliminated seat {s} holds cards")
            if self.active[s] and self.out_deal[s]:
                out.append(f"seat {s} is in play but marked eliminated")
        for m in self.melds:
            for c, nm in m.items:
                if nm is not None and not IS_JOKER[c]:
                    out.append(f"meld {m.text()}: a natural card with a named identity")
        return out


class RaminoDrift(RummyGame):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "draw stock", "draw discard", "meld CARD", "meld NAMED", "confirm", "layoff CARD 1..18",
        "layoff NAMED 1..18", "swap CARD 1..18", "takeback", "discard CARD|JK")
    id = "ramino_drift"
    lower_score_wins = True
    name = "Ramino (Drift) / Remigio"
    seed_ref = "seed 003 L689-713 ('Ramino (Drift) / Remigio, 2-4 spelers'); RULES.md 2.27"
    summary = ("2-4 players, 54 cards (2 jokers), 7 each, an up-card. Draw the top stock card or the "
               "top discard, meld sets (3-4 of a rank, different suits) and runs (3+ of a suit, ace "
               "low), swap a natural card for a tabled joker (which must be laid again at once), lay "
               "off single cards once you have come out, discard a card other than the one taken "
               "from the pile. Going out with or without a discard; the others score A 1, pips face, "
               "faces 10, jokers 20. At 101 a player is out; the last player left wins.")
    notation = ("draw stock\ndraw discard\nmeld 7H   (one card of the meld being built)\n"
                "meld JK=8H   (a joker naming its card)\nconfirm   (lay the meld being built)\n"
                "layoff 8H 3   (a card onto table meld 3; once you have come out)\nlayoff JK=8H 3\n"
                "swap 7H 3   (the natural 7H for the joker of meld 3 that stands for 7H; lay the "
                "joker again this turn)\n"
                "takeback   (undo this turn's table play)\n"
                "discard 5H   (not the card taken from the discard pile this turn)")
    min_players = 2  # RD1: 2-4 (the seed title)
    max_players = 4
    default_players = 4
    rule_events = ("joker_swapped", "came_out", "laid_off", "went_out", "stock_flipped", "eliminated",
                   "deal_without_winner", "stock_reshuffled")
    options_spec = (
        Option("layoff_sets", True, "RD3: lay-offs onto sets too (seed: sequences)"),
        Option("reshuffle", False, "seed L709 variant: shuffle the discard pile into the new stock"),
        Option("max_reforms", 3, "X7: stock re-formings per deal; None = no limit",
               check=lambda v: v >= 0, nullable=True, max=1000),
    )
    options_type = RaminoDriftOptions
    state_class = RaminoDriftState
    tables = NO_CARD_TABLES  # no tricks, no card points
    hand_size: ClassVar[int] = 7
    run_rule: ClassVar[RunRule] = RunRule(min_len=3, ace_low=True, ace_high=False, min_naturals=1)
    set_rule: ClassVar[GroupRule] = GroupRule(min_size=3, max_size=4, distinct_suits=True, jokers=True)
    reform: ClassVar[ReformMode] = "flip"
    keep_for_discard: ClassVar[bool] = False  # RD2: going out with or without a discard
    out_after_everyone: ClassVar[bool] = False
    joker_reuse: ClassVar[str] = "any"  # RD6: a new meld or a lay-off
    upcard: ClassVar[bool] = True
    free_discard: ClassVar[bool] = True  # (the ban on the taken card is applied to the listed discards)

    def deck(self) -> list[int]:
        return deck_54()


register(RaminoDrift)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
