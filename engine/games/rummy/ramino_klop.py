"""Ramino (Klop).  Seed 003 L664-687; RULES.md 2.26 and "Common rummy definitions" (elimination
rummies, hidden hands).  Decisions followed: RK1-RK8, X1, X3, X6, X7 (no cap
on re-forming, but see ``max_reforms``).

2-6 players, 108 cards (two packs, four jokers), 7 each; the rest is the stock, one card turned for
the discard pile.  Seat 0 deals first (X1); the deal passes to the next seat still in.

Nothing is melded during play; hands stay hidden.  Combinations have exactly 3 or 4 cards (RK7:
runs too): sets of one rank with distinct suits (RK5: never the same suit twice from the two
packs), runs of one suit, the ace low only (A-2-3); jokers wild, every combination holds a
natural card.  Values: A 1, pips face value, J Q K 10, joker 20 (RK4).

A turn (notation):

* ``draw stock`` or ``draw discard``;
* ``knock`` or ``pass``, offered only when the player can end the deal with this turn's discard
  (RK1, RK8): some discard leaves him seven cards whose unmelded value (deadwood) is at most 6;
  with deadwood 0 it is a Rummy (event ``rummy``, else ``knock``);
* ``discard XX``: never the card taken from the discard pile this turn nor one identical to it
  (after ``knock``: only a discard that leaves deadwood 6 or less).

When the deal ends every hand is shown with its best arrangement and every player scores his
deadwood as penalty points, the knocker included; a Rummy scores 0 (RK2).  A player reaching 101
(RK3) is eliminated (``eliminated``) and skipped in play and dealing; the last player left wins.  If
every remaining player is eliminated in the same deal, the lowest total among them wins (RK6).
Ranking: the last player left, then later eliminations before earlier ones, the same deal by lower
total.

Stock exhausted: the discard pile but its top card is turned over, unshuffled (``stock_flipped``;
option ``reshuffle``).  A turn that begins with no stock and none to form ends the deal with no
winner (X7, ``deal_without_winner``): everyone scores his deadwood as if another had gone out.

Safety net (engine defaults, not in the card): X7 puts no cap on re-forming the stock here, but a
turned-over stock and deterministic players can repeat a deal for ever (four greedy bots do in
Cincinnati Rummy), so option ``max_reforms`` (30; ``None`` = X7's no cap) ends a deal whose stock
would be re-formed a 31st time as a deal without winner (everyone scores his deadwood, as X7 says
for the capped games).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, cast

from engine.cards import PHYS, bits, deck_108, value_table
from engine.core import NO_CARD_TABLES, Option, rank_by, register
from engine.deadwood import CACHE_LIMIT, MeldSpec, Solver, isolated_mask, naturals
from engine.games.rummy._knock import ConfrontationGame, ConfrontationState
from engine.stock import ReshuffleOptions

VALUES = value_table(ace=1, joker=20)  # RK4
JOKER_VALUE = 20
KNOCK_MAX = 6  # RK1: unused cards worth less than 7
OUT_AT = 101  # RK3


@dataclass(frozen=True)
class RaminoKlopOptions(ReshuffleOptions):
    """Ramino Klop's options (``RaminoKlop.options_spec``), typed."""

    reshuffle: bool = False
    max_reforms: int | None = 30


class RaminoKlopState(ConfrontationState):
    ban_taken: ClassVar[bool] = True
    out_deal: list[int]
    """The deal in which each seat was eliminated (0: still in)."""

    def _setup(self, deal: dict[str, Any] | None) -> None:
        self.out_deal = [0] * self.players
        super()._setup(deal)

    def _start_from(self, totals: list[int]) -> None:
        if any(t >= OUT_AT for t in totals):
            raise ValueError(f"injected deal: a total of {OUT_AT} or more is already out (RK3)")
        super()._start_from(totals)

    def _match_deck(self) -> list[int]:
        return deck_108()

    def _deal_size(self) -> int:
        return 7

    # ----------------------------------------------------------------- knocking
    def _can_go_out(self, seat: int) -> bool:
        """Some discard but the banned ones leaves deadwood 6 or less (RK1, RK8)."""
        hand = self.hands[seat]
        game = cast(RaminoKlop, self.game)
        m1, m2, w = naturals(hand, False)
        if w < 2:
            # RK1: cards that can meld with nothing stay deadwood; all but the discard must fit in 6
            iso = game.isolated_value(m1, m2, w)
            if iso[0] - iso[1] > KNOCK_MAX:
                return False
        return game.knock_discards(hand) & ~self._banned_mask() != 0

    def _out_discards(self, seat: int) -> int:
        """Mask of the discards but the banned ones that leave deadwood 6 or less (RK1)."""
        hand = self.hands[seat]
        return cast(RaminoKlop, self.game).knock_discards(hand) & ~self._banned_mask()

    # ----------------------------------------------------------------- deal end
    def _end_out(self, seat: int, discard: int | None) -> None:
        n = self.players
        hands, melds, dead, dw = self._shown()
        kind = "rummy" if dw[seat] == 0 else "knock"
        self._emit(kind, seat=seat, deadwood=dw[seat], hands=hands, melds=melds, deadwood_cards=dead,
                   deadwoods=dw)
        pts = [dw[s] if self.active[s] else 0 for s in range(n)]  # RK2: the knocker too, a Rummy 0
        self._score(pts, {"knocker": seat, "kind": kind, "hands": hands, "melds": melds,
                          "deadwood_cards": dead, "deadwood": dw})

    def _stock_out(self) -> None:
        # X7: no stock can be formed; everyone scores his deadwood as if another had gone out
        hands, melds, dead, dw = self._shown()
        self._emit("deal_without_winner", pile=len(self.pile), hands=hands, melds=melds,
                   deadwood_cards=dead, deadwoods=dw)
        pts = [dw[s] if self.active[s] else 0 for s in range(self.players)]
        self._score(pts, {"knocker": None, "hands": hands, "melds": melds, "deadwood_cards": dead,
                          "deadwood": dw})

    def _score(self, pts: list[int], info: dict[str, Any]) -> None:
        n = self.players
        self.sheet.append([float(p) for p in pts])
        out_now = []
        for s in range(n):
            self.totals[s] += pts[s]
            if self.active[s] and self.totals[s] >= OUT_AT:  # RK3
                out_now.append(s)
        for s in out_now:
            self.active[s] = False
            self.out_deal[s] = self.deal_no
            self._emit("eliminated", seat=s, total=self.totals[s])
        self.last = {"deal": self.deal_no, "points": pts, "eliminated": out_now, **info}
        if sum(self.active) <= 1 or self._deals_done():
            self._finish()
            return
        self._start_deal(self._next_active(self.dealer))

    # ----------------------------------------------------------------- match
    def scores(self) -> list[float]:
        return [float(t) for t in self.totals]

    def ranking(self) -> list[int]:
        # the players still in first (lower total better), then later eliminations before earlier
        # ones, the same deal by lower total (RK6: all out at once -> the lowest total wins)
        big = 10 ** 6
        keys = [float(self.totals[s]) if not self.out_deal[s]
                else float(big * (big - self.out_deal[s]) + self.totals[s]) for s in range(self.players)]
        return rank_by(keys)

    def _invariants(self) -> list[str]:
        out: list[str] = []
        n = self.players
        t = list(self.start_totals)
        for row in self.sheet:
            if any(v < 0 for v in row):
                out.append(f"deal row {row}: negative penalty")
            t = [t[s] + int(row[s]) for s in range(n)]
        if t != self.totals:
            out.append(f"totals {self.totals} differ from the sheet {t}")
        for s in range(n):
            if (self.totals[s] >= OUT_AT) == self.active[s]:
                out.append(f"seat {s} total {self.totals[s]} but active={self.active[s]} (RK3)")
        if not self._over and sum(self.active) < 2:
            out.append("the match goes on with fewer than two players")
        last = self.last
        if last is not None and last.get("knocker") is not None:
            k = last["knocker"]
            if last["deadwood"][k] > KNOCK_MAX:
                out.append(f"seat {k} knocked with deadwood {last['deadwood'][k]} (RK1)")
            dv = [sum(VALUES[PHYS[tok][0]] for tok in d) for d in last["deadwood_cards"]]
            if dv != last["deadwood"]:
                out.append(f"deadwood {last['deadwood']} does not add up to {dv}")
        return out


class RaminoKlop(ConfrontationGame):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "draw stock", "draw discard", "knock", "pass", "discard CARD|JK")
    id = "ramino_klop"
    lower_score_wins = True
    name = "Ramino (Klop)"
    family = "rummy"
    seed_ref = "seed 003 L664-687; RULES.md 2.26"
    summary = ("2-6 players, 108 cards (4 jokers), 7 each. Draw from the stock or the discard pile, "
               "discard another card than the one taken; nothing is melded during play. Combinations "
               "of exactly 3 or 4 cards (sets, runs, ace low, jokers wild). Knock with your discard when "
               "your unmelded cards are worth 6 or less (0: Rummy); everyone then scores his unmelded "
               "cards (A 1, faces 10, jokers 20). 101 or more is out; the last player left wins.")
    notation = "draw stock\ndraw discard\nknock\npass\ndiscard 5H"
    min_players = 2
    max_players = 6
    default_players = 4
    rule_events = ("knock", "rummy", "stock_flipped", "eliminated", "deal_without_winner")
    options_spec = (
        Option("reshuffle", False, "Stock exhausted: shuffle the pile instead of turning it over"),
        Option("max_reforms", 30, "X7 safety net: stock re-formings per deal, then the deal ends with no "
               "winner (None: no cap, X7; deterministic players can loop for ever) [engine default]",
               nullable=True, check=lambda v: v >= 0, max=1000),
    )
    options_type = RaminoKlopOptions
    state_class = RaminoKlopState
    tables = NO_CARD_TABLES  # no tricks, no card points

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.knock_cache: dict[int, int] = {}

    def make_solver(self) -> Solver:
        # RK5, RK7: sets of distinct suits, runs and sets of 3 or 4 cards, the ace low
        return Solver(MeldSpec(set_max=4, run_min=3, run_max=4, ace_low=True, ace_high=False), VALUES,
                      JOKER_VALUE)

    def knock_discards(self, hand: int) -> int:
        """Mask of the cards of a hand mask whose discard leaves deadwood 6 or less (RK1), from one
        search (:meth:`engine.deadwood.Solver.knock_discards`; cached per mask)."""
        cache = self.knock_cache
        got = cache.get(hand)
        if got is None:
            got = self.solver.knock_discards(bits(hand), KNOCK_MAX)
            if len(cache) >= CACHE_LIMIT:
                cache.clear()
            cache[hand] = got
        return got

    def isolated_value(self, m1: int, m2: int, w: int) -> tuple[int, int]:
        """(value, largest value) of the natural cards that cannot meld (fewer than 2 wild cards)."""
        iso = isolated_mask(m1, w)
        total = top = 0
        for b in bits(iso):
            v = VALUES[b] * (2 if m2 >> b & 1 else 1)
            total += v
            top = max(top, VALUES[b])
        return total, top


register(RaminoKlop)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
