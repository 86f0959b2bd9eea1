"""Klop Rummy / Poker Rummy (Knock Rummy).  Seed 003 L577-601; RULES.md 2.23 and "Common rummy
definitions".  Decisions followed: KR1-KR13, X3, X6, X7 (via KR10).

2-5 players, 52 cards; 10 each with two players, 7 each with more.  The first dealer is a seat
drawn at random from the match seed (KR12: "highest card of a draw"; an injected deal's
``dealer`` is used as given).  The rest is the stock, one card turned as the discard pile.
Melds are kept in the hand, hidden, until the deal ends: sets of 3 or 4 of a rank, runs of 3+ in
one suit, the ace low only (A-2-3, never Q-K-A).  Values (KR1): A 1, pips face value, J Q K 10.

A turn (notation):

* ``draw stock`` or ``draw discard`` (the top card of the discard pile);
* ``knock`` or ``pass``: knock to end the deal with this turn's discard (KR13: allowed with any
  deadwood; a knock whose seven or ten cards kept all meld is a Rummy, event ``rummy``).  The
  card taken from the discard pile may be discarded again (KR6).
* ``discard XX``.

The seed's order is "after discarding you say Rummy or knock"; the engine asks before the discard
so that one discard action ends the turn.  When the deal ends every hand is shown with the
arrangement that minimises its deadwood (events ``knock`` and the others carry them).

Scoring (KR7, KR2, KR8, KR9): the player with the lowest deadwood wins the others' deadwood added
up minus his own; ties: a non-knocker tied with the knocker wins; leaving the knocker out, a tie
among non-knockers gives no winner (``tie_no_winner``).  A Rummy by the knocker who wins: +25.
When the knocker loses, the winner gets +10 (``knocker_lost``).  Option ``per_opponent``: the
winner gets the sum over the others of (their deadwood - his), 25 from each opponent for a
Rummy, the 10 once.  Only the winner scores; ``scores()`` are the totals, first to ``target``
(100, KR3) wins the match.

Stock (KR4, KR10): when a turn ends with the stock empty and nobody has knocked, the deal is void
(``stock_exhausted``), scores nothing and counts as a deal played.  Next dealer (KR5, KR11): with
two players the winner deals; otherwise, and after a void or no-winner deal, the deal passes left.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.cards import PHYS, deck_52, value_table
from engine.core import NO_CARD_TABLES, Option, rank_by, register
from engine.deadwood import MeldSpec, Solver
from engine.games.rummy._knock import ConfrontationGame, ConfrontationState
from engine.stock import ReformMode

VALUES = value_table(ace=1)  # KR1
RUMMY_BONUS = 25
KNOCKER_LOST = 10


@dataclass(frozen=True)
class KlopRummyOptions:
    """Klop Rummy's options (``KlopRummy.options_spec``), typed."""

    target: int = 100
    per_opponent: bool = False


class KlopRummyState(ConfrontationState):
    out_verb: ClassVar[str] = "knock"
    ban_taken: ClassVar[bool] = False  # KR6: the knocker may discard the card just taken
    reform: ClassVar[ReformMode] = "none"  # KR4/KR10: the stock is never re-formed

    def _match_deck(self) -> list[int]:
        return deck_52()

    def _deal_size(self) -> int:
        return 10 if self.players == 2 else 7

    def _first_dealer(self) -> int:
        return self.rng.randrange(self.players)  # KR12: a draw for the highest card

    def _can_go_out(self, seat: int) -> bool:
        return True  # KR13: any deadwood may knock

    def _out_discards(self, seat: int) -> int:
        return self.hands[seat]  # KR6: any card, the one taken from the pile included

    def _turn_end(self, seat: int) -> bool:
        if not self.stock:  # KR10: the turn ends with the stock empty and nobody knocked
            self._void("stock_exhausted")
            return True
        return False

    def _stock_out(self) -> None:
        self._void("stock_exhausted")  # only a thin injected deal begins a turn with no stock

    def _void(self, why: str) -> None:
        self._emit("stock_exhausted", pile=len(self.pile))
        self.sheet.append([0.0] * self.players)
        self.last = {"deal": self.deal_no, "void": True}
        self._next_deal(None)

    # ----------------------------------------------------------------- scoring
    def _end_out(self, seat: int, discard: int | None) -> None:
        n = self.players
        hands, melds, dead, dw = self._shown()
        rummy = dw[seat] == 0
        self._emit("knock", seat=seat, deadwood=dw[seat], hands=hands, melds=melds,
                   deadwood_cards=dead, deadwoods=dw)
        if rummy:
            self._emit("rummy", seat=seat)  # KR13: a knock with 0 deadwood
        low = min(dw)
        lowest = [s for s in range(n) if dw[s] == low]
        winner: int | None
        if lowest == [seat]:
            winner = seat
        else:
            others = [s for s in lowest if s != seat]  # KR8: the knocker is left out of a tie
            winner = others[0] if len(others) == 1 else None
        pts = [0] * n
        bonus = 0
        if winner is None:
            self._emit("tie_no_winner", seat=seat, lowest=lowest, deadwood=low)
        else:
            per_opp = self.game.opts(KlopRummyOptions).per_opponent
            if per_opp:  # KR7 option: sum over the others of (their deadwood - his)
                base = sum(dw[s] - dw[winner] for s in range(n) if s != winner)
            else:  # KR7: the others' deadwood added up, minus his own once
                base = sum(dw[s] for s in range(n) if s != winner) - dw[winner]
            pts[winner] = base
            if winner == seat and rummy:  # KR2, KR9: the 25 only for a Rummy that wins
                bonus = RUMMY_BONUS * ((n - 1) if per_opp else 1)
                pts[winner] += bonus
            if winner != seat:  # KR2: the knocker lost, the winner gets 10 more (once)
                pts[winner] += KNOCKER_LOST
                self._emit("knocker_lost", seat=seat, winner=winner, bonus=KNOCKER_LOST)
        self.sheet.append([float(p) for p in pts])
        for s in range(n):
            self.totals[s] += pts[s]
        self.last = {"deal": self.deal_no, "knocker": seat, "winner": winner, "deadwood": dw,
                     "points": pts, "rummy": rummy, "hands": hands, "melds": melds,
                     "deadwood_cards": dead}
        if max(self.totals) >= self.game.opts(KlopRummyOptions).target:  # KR3
            self._finish()
            return
        self._next_deal(winner)

    def _next_deal(self, winner: int | None) -> None:
        if self._deals_done():
            self._finish()
            return
        if self.players == 2 and winner is not None:
            self._start_deal(winner)  # KR5: with two players the winner deals
        else:
            self._start_deal((self.dealer + 1) % self.players)  # KR5, KR11: the deal passes left

    def scores(self) -> list[float]:
        return [float(t) for t in self.totals]

    def ranking(self) -> list[int]:
        return rank_by(self.totals, lower_is_better=False)

    def _invariants(self) -> list[str]:
        out: list[str] = []
        n = self.players
        t = list(self.start_totals)
        for row in self.sheet:
            if sum(1 for v in row if v) > 1:
                out.append(f"deal row {row}: only the winner scores")
            if any(v < 0 for v in row):
                out.append(f"deal row {row}: a negative score")
            t = [t[s] + int(row[s]) for s in range(n)]
        if t != self.totals:
            out.append(f"totals {self.totals} differ from the sheet {t}")
        last = self.last
        if last is not None and not last.get("void") and self.sheet:
            dw = [sum(VALUES[c] for c in map(_tok_id, d)) for d in last["deadwood_cards"]]
            if dw != last["deadwood"]:
                out.append(f"shown deadwood {last['deadwood']} does not add up to {dw}")
            w = last["winner"]
            if w is not None and dw[w] != min(dw):
                out.append(f"winner {w} has not the lowest deadwood {dw}")
        return out


def _tok_id(tok: str) -> int:
    return PHYS[tok][0]


class KlopRummy(ConfrontationGame):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "draw stock", "draw discard", "knock", "pass", "discard CARD")
    id = "klop_rummy"
    name = "Klop Rummy / Poker Rummy"
    family = "rummy"
    seed_ref = "seed 003 L577-601; RULES.md 2.23"
    summary = ("2-5 players, 52 cards, 10 each (2 players) or 7. Draw from the stock or the discard "
               "pile, then discard; melds (sets of 3-4, runs of 3+, ace low) stay hidden. Knock with "
               "your discard to end the deal: the lowest deadwood wins the others' deadwood minus "
               "his own; a Rummy (no deadwood) +25; a beaten knocker gives the winner +10; ties go "
               "to the non-knocker. A turn ending with the stock empty voids the deal. First to 100.")
    notation = "draw stock\ndraw discard\nknock\npass\ndiscard 5H"
    min_players = 2
    max_players = 5
    default_players = 3
    rule_events = ("knock", "rummy", "knocker_lost", "tie_no_winner", "stock_exhausted")
    options_spec = (
        Option("target", 100, "KR3: the match ends when a total reaches this [engine default]",
               check=lambda v: v >= 1, max=10000),
        Option("per_opponent", False, "KR7/KR2: score sum over the others of (their deadwood - his) "
               "and 25 from each opponent for a Rummy (Bicycle)"),
    )
    options_type = KlopRummyOptions
    state_class = KlopRummyState
    tables = NO_CARD_TABLES  # no tricks, no card points

    def make_solver(self) -> Solver:
        return Solver(MeldSpec(set_max=4, run_min=3, ace_low=True, ace_high=False), VALUES, 0)


register(KlopRummy)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
