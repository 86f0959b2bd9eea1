"""Geneve (English rules).  Seed 001 (blog post "geneve", whole file); RULES.md 2.2.  Decisions
followed: V1-V10, the clarifications on V8 (round scores after the caller's adjustment, among the
players still in) and on knock-outs (the highest round score gives the goodbye shuffle; the ranking
puts survivors first, then later knock-outs before earlier ones, then lower totals), and X1, X3, X6.
Geneve has no upcard-joker rule (that is Genive's alone).

3-8 players (V5): one 54-card pack (2 jokers) for 3-5 players, two packs and four jokers (108) for
6-8, kept for the whole match; card tokens repeat in two-pack play.  Values: pips at face value,
J Q K 11, A 1, joker 0 (V2).  Five cards each; the top stock card is turned up.  Seat 0 deals the
first deal (X1) and the player on its left (seat 1) plays first.

A turn is ``call`` (hand total at most 11) or ``discard`` then ``draw`` (the order is mandatory;
see ``engine.games.shedding._shedding`` for the action forms).  Discards: one card, a pair of equal ranks
(V6: pairs only by default; ``max_group`` allows 3 or 4), or a run of 3+ cards of one suit, jokers
filling gaps or ends ("5, 6, joker, 8": the next player may take only the 5 or the 8), ace low
only, no wrap.

Scoring after a call (V3, V4): non-callers score their hand totals; the caller scores 0 if his
total is strictly the lowest, otherwise (ties count against him) his hand total + 30.  A total of
exactly 200 goes back to 150; a player at 200 or more is eliminated and deals the next deal
without playing (the goodbye shuffle, V9); when several go out together the one with the highest
round score deals.  Otherwise the highest round score deals and the lowest plays first (V8; ties:
the tied player nearest to the left of the previous dealer).  The match ends when at most one
player is left (V10: if the last players all go out together, the lowest total wins).

Options:
* ``max_group`` (2): largest group of equal ranks that may be discarded (V6).
* ``call_limit`` (11): the highest hand total that may call.
* ``elimination`` (200): the elimination total; exactly this total goes back 50 (200 -> 150).
* ``failed_call_adds_hand`` (True): V3, a failed caller scores hand + 30; ``False`` is the seed's
  literal reading ("30 points are added to their existing score"): +30 only.

Events ``pair_discard`` fire for every group (with its ``size``; a pair unless ``max_group`` > 2).
``self.sheet`` rows are the points added in each deal (before the 200 -> 150 reset; 0 for players
out of the match); ``scores()`` are the totals.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards import deck_54, deck_108, value_table
from engine.core import NO_CARD_TABLES, Option, register
from engine.games.shedding._shedding import HAND_SIZE, SheddingGame, SheddingOptions, SheddingState
from engine.melds import GroupRule, Item

FAILED_CALL = 30
RESET_DROP = 50


@dataclass(frozen=True)
class GeneveOptions(SheddingOptions):
    """Geneve's options (``Geneve.options_spec``: the decisions they follow), typed."""

    max_group: int = 2
    call_limit: int = 11
    elimination: int = 200
    failed_call_adds_hand: bool = True


class GeneveState(SheddingState):
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "last_deal": "the previous deal's result, null before one ended: `deal`, `caller` (seat that "
            "called), `hand_values` and `points` per seat, `playing` (seats in that deal), `failed` (the "
            "call failed), `eliminated` (seats that reached the limit)",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    out_deal: list[int]
    """The deal in which each seat was eliminated (0: still in)."""

    def _setup(self, deal: dict[str, Any] | None) -> None:
        self.out_deal = [0] * self.players
        super()._setup(deal)

    def _start_from(self, totals: list[int], hands: list[Any]) -> None:
        limit = self.game.opts(GeneveOptions).elimination
        if any(t == limit for t in totals):
            raise ValueError(f"injected deal: a total of exactly {limit} goes back to {limit - RESET_DROP}")
        out = [s for s, t in enumerate(totals) if t >= limit]
        if len(totals) - len(out) < 2:
            raise ValueError("injected deal: at least two players must be below the elimination total")
        for s in out:
            if hands[s]:
                raise ValueError(f"injected deal: seat {s} is out of the match (total {totals[s]}) "
                                 "and holds no cards")
            self.active[s] = False
        super()._start_from(totals, hands)

    def _match_deck(self) -> list[int]:
        return deck_54() if self.players <= 5 else deck_108()  # V5

    # ----------------------------------------------------------------- events
    def _discard_events(self, seat: int, kind: str, items: list[Item], jokers: int) -> None:
        if kind == "group":
            self._emit("pair_discard", seat=seat, size=len(items))
        elif kind == "run" and jokers:
            self._emit("run_discard_with_joker", seat=seat, len=len(items), jokers=jokers)

    # ----------------------------------------------------------------- scoring
    def _left_of_dealer(self, s: int) -> int:
        return (s - self.dealer - 1) % self.players

    def _score_call(self, caller: int) -> None:
        n = self.players
        opts = self.game.opts(GeneveOptions)
        limit = opts.elimination
        playing = [s for s in range(n) if self.active[s]]
        hv = [self.hand_value(s) if self.active[s] else 0 for s in range(n)]
        ct = hv[caller]
        shown = self._show_hands(caller)
        self._emit("geneve_called", seat=caller, total=ct, hands=shown)
        others = [(caller + k) % n for k in range(1, n) if self.active[(caller + k) % n]]
        pts = list(hv)
        low = min((hv[s] for s in others), default=ct + 1)
        if low <= ct:
            tied = [s for s in others if hv[s] == ct]
            if tied:
                self._emit("tie_with_caller", seat=caller, tied=tied)
            # V3: a failed caller scores his hand + 30 (option: +30 only, the literal seed)
            pts[caller] = (ct if opts.failed_call_adds_hand else 0) + FAILED_CALL
            winners = [s for s in others if hv[s] == low]
            self._emit("geneve_failed", seat=caller, penalty=FAILED_CALL, lowest=winners)
        else:
            pts[caller] = 0  # V4: the strictly lowest caller scores 0
        self.sheet.append([float(p) for p in pts])
        for s in playing:
            t = self.totals[s] + pts[s]
            if t == limit:
                t -= RESET_DROP  # exactly 200 -> 150
                self._emit("score_reset_200_to_150", seat=s, before=limit, after=t)
            self.totals[s] = t
        gone = [s for s in playing if self.totals[s] >= limit]
        for s in gone:
            self.active[s] = False
            self.out_deal[s] = self.deal_no
            self._emit("player_eliminated", seat=s, total=self.totals[s])
        left = [s for s in playing if self.active[s]]
        self.last = {"deal": self.deal_no, "caller": caller,
                     "hands": shown,
                     "hand_values": hv, "points": pts, "playing": playing,
                     "failed": low <= ct, "eliminated": gone}
        if len(left) <= 1 or self._deals_done():
            self._finish()  # V10: one (or nobody) left; the ranking decides
            return
        # V8: ties -> the tied player nearest to the left of the previous dealer
        first = min(left, key=lambda s: (pts[s], self._left_of_dealer(s)))
        if gone:
            # V9: the player going out deals (goodbye shuffle); several: the highest round score
            dealer = max(gone, key=lambda s: (pts[s], -self._left_of_dealer(s)))
        else:
            dealer = max(left, key=lambda s: (pts[s], -self._left_of_dealer(s)))
        self._start_deal(dealer, first)
        if gone:
            self._emit("goodbye_shuffle", seat=dealer)

    def scores(self) -> list[float]:
        return [float(t) for t in self.totals]

    def _rank_key(self, s: int) -> tuple[int, int, int]:
        if self.active[s]:
            return (0, 0, self.totals[s])
        return (1, -self.out_deal[s], self.totals[s])  # later knock-outs first, then lower totals

    def ranking(self) -> list[int]:
        keys = [self._rank_key(s) for s in range(self.players)]
        return [1 + sum(1 for k in keys if k < mine) for mine in keys]

    # ----------------------------------------------------------------- invariants
    def _invariants(self) -> list[str]:
        out: list[str] = []
        n = self.players
        limit = self.game.opts(GeneveOptions).elimination
        t = list(self.start_totals)
        for row in self.sheet:
            for s in range(n):
                v = t[s] + int(row[s])
                t[s] = v - RESET_DROP if v == limit else v
        if t != self.totals:
            out.append(f"totals {self.totals} differ from the sheet replayed with the reset {t}")
        for s in range(n):
            if self.totals[s] == limit:
                out.append(f"seat {s} total {limit} was not reset to {limit - RESET_DROP}")
            if self.active[s] != (self.totals[s] < limit):
                out.append(f"seat {s} total {self.totals[s]} but active={self.active[s]}")
            if not self.active[s] and self.hands[s] and not self._over:
                out.append(f"seat {s} is out of the match but holds cards")
        if sum(self.active) < 2 and not self._over:
            out.append("at most one player left but the match goes on")
        last = self.last
        if last is not None and self.sheet:
            c = last["caller"]
            playing = last["playing"]
            hv = self._shown_values(last["hands"])
            exp = [hv[s] if s in playing else 0 for s in range(n)]
            failed = any(hv[s] <= hv[c] for s in playing if s != c)
            if failed:
                exp[c] = (hv[c] if self.game.opts(GeneveOptions).failed_call_adds_hand else 0) + FAILED_CALL
            else:
                exp[c] = 0
            out += self._last_row_check(exp)
        return out


class Geneve(SheddingGame):
    def action_catalogue(self, form: str) -> list[str]:
        # engine.rl: V5 two packs from six players on, V6 groups up to 4
        from engine.rl.catalogues import discard_combinations
        most = max(max(o.choices or (o.default,)) for o in self.options_spec if o.name == "max_group")
        return discard_combinations(GroupRule(2, most, jokers=False), self.run_rule, 2, HAND_SIZE)

    id = "geneve"
    lower_score_wins = True
    name = "Geneve (English rules)"
    family = "shedding"
    seed_ref = "seed 001 (blog post 'geneve', whole file); RULES.md 2.2"
    summary = ("3-8 players (two packs from 6), 5 cards each. Discard a card, a pair or a run (jokers "
               "in runs), then draw the top stock card or a card the previous player discarded (a "
               "run: only an end). With at most 11 points call 'geneve': the strictly lowest caller "
               "scores 0, otherwise hand + 30; others score their hands. Exactly 200 goes back to "
               "150; 200 or more is out (goodbye shuffle). The last player left wins.")
    notation = ("call\ndiscard 5H\ndiscard 5H 5D\ndiscard 5H 6H JK=7H 8H\ndraw stock\ndraw 5H\ndraw JK")
    min_players = 3
    max_players = 8
    default_players = 4
    rule_events = ("geneve_called", "geneve_failed", "tie_with_caller", "score_reset_200_to_150",
                   "player_eliminated", "goodbye_shuffle", "pair_discard", "run_discard_with_joker",
                   "stock_reshuffled")
    options_spec = (
        Option("max_group", 2, "V6: largest group of equal ranks that may be discarded (2 = pairs)",
               choices=(2, 3, 4)),
        Option("call_limit", 11, "Highest hand total that may call 'geneve'", check=lambda v: v >= 0),
        Option("elimination", 200, "Elimination total; exactly this total goes back 50 (200 -> 150)",
               check=lambda v: v > RESET_DROP, max=20000),
        Option("failed_call_adds_hand", True, "V3: a failed caller scores hand + 30 (False: the seed's "
               "literal +30 only)"),
    )
    options_type = GeneveOptions
    state_class = GeneveState
    tables = NO_CARD_TABLES  # no tricks, no card points
    values: ClassVar[tuple[int, ...]] = value_table(ace=1, face=11)  # V1: faces 11 (Genive: 10); V2: joker 0

    def group_rule(self) -> GroupRule:
        return GroupRule(min_size=2, max_size=self.opts(GeneveOptions).max_group, jokers=False)  # V6


register(Geneve)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
