"""Genive (Dutch rules).  Seed 000 (Wikisage "Genive", whole page, with its "Variatie");
RULES.md 2.1.  Decisions followed: G1-G10, the clarifications on G1 (a burned joker-only caller:
-10 + 30 = 20) and G5/G6 (a joker in a run names a card the player does not hold), the
Genive-only upcard-joker rule, and X1, X3, X6.

3-6 players, one pack with two jokers (54).  Values: K Q J 10, 2-10 pips, A 1, joker 0.
Five cards each; the next card is turned up as the open pot (a joker turned up goes back into
the stock at a random place below the top card and the next card is turned: event
``upcard_joker_reinserted``).  Seat 0 (the youngest) plays first in the first deal (X1, G9);
later deals are started by the previous deal's winner; play goes clockwise (seat + 1).  An
injected deal (X6) also starts with seat 0 unless it names ``"first"``; its ``"dealer"`` only
deals.

A turn is ``call`` (hand total at most 5, G8: even on the first turn) or ``discard`` then ``draw``
(see ``engine.games.shedding._shedding`` for the action forms).  Groups are 2-4 natural cards of one rank
(G5: no jokers); runs are 3+ cards of one suit with at least one natural card, jokers filling
gaps or ends, the ace low only (A-2-3), no wrap (G6).

Scoring after a call: every player scores his hand total, the caller included (G1, G2); a caller
holding only one joker scores -10, only two jokers -20 (instead of 0); if any other player's hand
total is equal to or lower than the caller's, the caller is burned and scores +30 on top.  After
adding, a total of exactly 100 becomes 50 and exactly 200 becomes 100 (G7).  The match ends when a
total goes above 200 (G10); ``ranking()`` is by total, lower is better.

Options:
* ``long_play`` (False): the variation; play on beyond 200, and a total landing on any multiple
  of 100 (k·100, k >= 1) is halved once.  Nobody busts, so the match ends after
  ``long_play_deals`` deals (or ``max_deals``).
* ``long_play_deals`` (30): deals in a ``long_play`` match [engine default; the seed leaves the
  end to the players].
* ``call_limit`` (5): the highest hand total that may call.

``self.sheet`` rows are the points added in each deal (before halving); ``scores()`` are the
totals after halving.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards import IS_JOKER, TOKENS, bits, deck_54, value_table
from engine.core import NO_CARD_TABLES, Option, rank_by, register
from engine.games.shedding._shedding import SheddingGame, SheddingOptions, SheddingState
from engine.melds import Item

BURN = 30
JOKER_BONUS = -10
BUST = 200


@dataclass(frozen=True)
class GeniveOptions(SheddingOptions):
    """Genive's options (``Genive.options_spec``: the decisions they follow), typed."""

    long_play: bool = False
    long_play_deals: int = 30
    call_limit: int = 5


class GeniveState(SheddingState):
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "last_deal": "the previous deal's result, null before one ended: `deal`, `caller` (seat that "
            "called), `hand_values` and `points` per seat, `joker_bonus`, `burned_by` (seats whose hand "
            "was as low as the caller's), `winner`",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    upcard_joker_back: ClassVar[bool] = True  # Genive only (RULES.md clarification)

    def _match_deck(self) -> list[int]:
        return deck_54()

    def _first_player(self, dealer: int) -> int:
        return 0  # G9/X1: the youngest, seat 0, starts the first deal

    def _start_from(self, totals: list[int], hands: list[Any]) -> None:
        if not self.game.opts(GeniveOptions).long_play and any(t > BUST for t in totals):
            raise ValueError("injected deal: a total above 200 has already lost the match (G10)")
        super()._start_from(totals, hands)

    # ----------------------------------------------------------------- events
    def _discard_events(self, seat: int, kind: str, items: list[Item], jokers: int) -> None:
        if kind == "group":
            self._emit("group_discard", seat=seat, size=len(items))
        elif kind == "run":
            self._emit("run_discard", seat=seat, len=len(items), jokers=jokers)

    def _run_end_taken(self, seat: int, c: int, end: str) -> None:
        self._emit("take_from_run_end", seat=seat, card=TOKENS[c], end=end)

    # ----------------------------------------------------------------- scoring
    def _halve(self, t: int) -> int:
        if self.game.opts(GeniveOptions).long_play:
            return t // 2 if t > 0 and t % 100 == 0 else t  # variation: every k·100 -> k·50
        return t // 2 if t in (100, 200) else t  # G7: exactly 100 -> 50, exactly 200 -> 100

    def _score_call(self, caller: int) -> None:
        n = self.players
        hv = [self.hand_value(s) for s in range(n)]
        ct = hv[caller]
        shown = self._show_hands(caller)
        self._emit("genive_called", seat=caller, total=ct, hands=shown)
        order = [(caller + k) % n for k in range(1, n)]
        # burned when another player's total is equal to or lower than the caller's
        burners = [s for s in order if hv[s] <= ct]
        pts = list(hv)  # G1, G2: everybody scores his hand, the caller and the burners included
        cards = bits(self.hands[caller])
        bonus = 0
        if cards and all(IS_JOKER[c] for c in cards):
            bonus = JOKER_BONUS * len(cards)  # G1: only jokers: -10 / -20 instead of 0
            pts[caller] = bonus
            self._emit("joker_only_bonus", seat=caller, bonus=bonus)
        if burners:
            pts[caller] += BURN  # G1 clarification: with a joker-only hand, -10 + 30 = 20
            self._emit("genive_burned", seat=caller, caller=caller, burners=burners, penalty=BURN)
            # G3: the lowest burner wins the deal; ties -> the first burner clockwise from the caller
            winner = min(burners, key=lambda s: (hv[s], order.index(s)))
        else:
            winner = caller
        self.sheet.append([float(p) for p in pts])
        for s in range(n):
            t = self.totals[s] + pts[s]
            h = self._halve(t)  # G7: checked after the deal's addition only
            if h != t:
                self._emit("score_halved", seat=s, before=t, after=h)
            self.totals[s] = h
        self.last = {"deal": self.deal_no, "caller": caller, "hands": shown,
                     "hand_values": hv, "points": pts, "joker_bonus": bonus, "burned_by": burners,
                     "winner": winner}
        if self.game.opts(GeniveOptions).long_play:
            if self.deal_no >= self.game.opts(GeniveOptions).long_play_deals:
                self._finish()
                return
        else:
            busted = [s for s in range(n) if self.totals[s] > BUST]  # G10: above 200 after halving
            if busted:
                for s in busted:
                    self._emit("player_busted", seat=s, total=self.totals[s])
                self._finish()
                return
        if self._deals_done():
            self._finish()
            return
        self._start_deal((winner - 1) % n, winner)  # next deal: the winner starts

    def scores(self) -> list[float]:
        return [float(t) for t in self.totals]

    def ranking(self) -> list[int]:
        return rank_by(self.totals)  # G10: lower total is better; the busted are above 200

    # ----------------------------------------------------------------- invariants
    def _invariants(self) -> list[str]:
        out: list[str] = []
        n = self.players
        t = list(self.start_totals)
        for row in self.sheet:
            t = [self._halve(t[s] + int(row[s])) for s in range(n)]
        if t != self.totals:
            out.append(f"totals {self.totals} differ from the sheet replayed with halving {t}")
        long_play = self.game.opts(GeniveOptions).long_play
        for s, v in enumerate(self.totals):
            if not long_play and v == 200:
                out.append(f"seat {s} total {v} was not halved (G7)")
        if not long_play and not self._over and any(v > BUST for v in self.totals):
            out.append("a total is above 200 but the match goes on (G10)")
        last = self.last
        if last is not None and self.sheet:
            hv = self._shown_values(last["hands"])
            if hv != last["hand_values"]:
                out.append("shown hand values do not add up")
            c = last["caller"]
            exp = list(hv)
            toks = last["hands"][c]
            if toks and all(tok == "JK" for tok in toks):
                exp[c] = JOKER_BONUS * len(toks)
            burned = any(hv[s] <= hv[c] for s in range(n) if s != c)
            if burned:
                exp[c] += BURN
            out += self._last_row_check(exp)
        return out


class Genive(SheddingGame):
    id = "genive"
    lower_score_wins = True
    name = "Genive (Dutch rules)"
    family = "shedding"
    seed_ref = "seed 000 (Wikisage 'Genive', whole page and 'Variatie'); RULES.md 2.1"
    summary = ("3-6 players, 54 cards (2 jokers), 5 each. On your turn call 'Genive' with at most 5 "
               "points in hand, or discard a card, a group of equal ranks or a run (jokers in runs) "
               "and then draw one card: the top of the stock or a card of the previous player's "
               "discard (a run: only an end). After a call everybody scores his hand; a caller "
               "matched or beaten by another hand is burned (+30); a caller with only jokers scores "
               "-10 per joker. Totals of exactly 100 or 200 are halved; above 200 loses.")
    notation = ("call\ndiscard 5H\ndiscard 5H 5D\ndiscard 5H JK=6H 7H\ndraw stock\ndraw 5H\ndraw JK")
    min_players = 3
    max_players = 6
    default_players = 4
    rule_events = ("genive_called", "genive_burned", "joker_only_bonus", "score_halved",
                   "upcard_joker_reinserted", "stock_reshuffled", "group_discard", "run_discard",
                   "take_from_run_end", "player_busted")
    options_spec = (
        Option("long_play", False, "Variation: play on past 200; a total landing on a multiple of "
               "100 is halved"),
        Option("long_play_deals", 30, "long_play only: deals in a match [engine default]",
               check=lambda v: v >= 1, max=1000),
        Option("call_limit", 5, "Highest hand total that may call 'Genive'", check=lambda v: v >= 0),
    )
    options_type = GeniveOptions
    state_class = GeniveState
    tables = NO_CARD_TABLES  # no tricks, no card points
    values: ClassVar[tuple[int, ...]] = value_table(ace=1, face=10)


register(Genive)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
