"""Butifarra (Catalan manille). Seed 003 L3-29; RULES.md 2.7 and the "Common rule for the
manille family". Decisions followed: B1-B7 (and X1-X6).

* 4 players, fixed partnerships (seats 0-2 against 1-3), play clockwise (seed: "wijzerzin").
* 48 cards (no tens); in every suit 9 (manilla) > A > K > Q > J > 8 > 7 > ... > 2.  Card points
  9=5, A=4, K=3, Q=2, J=1 plus one point per trick: 60 + 12 = 72 per deal.
* B4: 12 cards each, dealt four at a time from the dealer's left.  B7: the first dealer is drawn
  from the match seed; the deal passes clockwise.
* Trump (CONTRACT notation): the dealer says ``trump C|D|H|S``, ``trump none`` (Butifarra: no
  trump) or ``delegate``; after ``delegate`` his partner must say ``trump C|D|H|S`` or
  ``trump none`` (B6).
* Doubling (B3): the opponents, voorhand first, may ``double`` (Dubbel) or ``pass``; after a double
  the dealer's side, in play order from the doubler, may ``redouble`` (Herdubbel) or ``pass``.
  With ``sant_vicenc`` the opponents, in play order from the redoubler, may then ``double`` once
  more (Sant Vicenç, x8) or ``pass``.
* Voorhand (left of the dealer) leads; the family rule applies (follow suit; beat an opponent's
  card if you can; void while an opponent wins, a winning trump if you have one, else any card, a
  losing trump included, seed L27 "dan mag je bijgooien wat je wilt"; no duty while your partner
  wins).  Option ``no_losing_trump`` (default off) bars that losing trump unless you hold only
  trumps (the family's earlier reading).  B5: the seed does not make a void player trump while
  his partner wins; option ``must_trump`` (the official rule, as in andreuts/botifarra) makes a
  void player who holds a trump play one, whoever wins: one that beats the trick's highest trump
  if he has one, else any trump.
* Scoring (B1): the side with 37 or more scores its points above 36, times 2 for Butifarra (no
  trump), then times 2 for Dubbel, 4 for Herdubbel (8 for Sant Vicenç); the other side scores
  nothing; 36-36 scores nothing.  B2: the first side to reach ``target`` (101) wins.  The seed's
  "de winnende zijde scoort wat ze winnen aan punten" read literally (all its points) is option
  ``score_over_36=False``.

Rule events (``butifarra.<name>``): ``trump_delegated``, ``butifarra_declared``, ``dubbel``,
``herdubbel`` (and ``sant_vicenc``), ``deal_tied_36``, ``score_multiplier(x)`` (a deal scored
with a multiplier above 1), ``capot`` (one side took all 12 tricks), and the family's
``overtake_forced``, ``overtrump_forced``, ``undertrump_blocked``, ``partner_exemption_used``,
``trick_point_awarded`` (see ``engine.games.manille._manille``).

Injected deal (X6): ``{"dealer": 0, "hands": [[12 tokens] x 4]}``; play starts at the trump choice.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards import deck_48_no_tens, mask_of
from engine.core import JSON, CardTables, Game, Option, rank_by, register
from engine.games.manille._manille import (
    BUTIFARRA_ORDER,
    BUTIFARRA_POINTS,
    PLAY_CARD,
    TRUMP,
    TRUMP_SUIT,
    ManilleState,
    family_rule,
)

DECK = mask_of(deck_48_no_tens())
HALF = 36
"""B1: a side scores its points above 36 (of 72)."""
DEALER_ACTIONS = (*TRUMP, "trump none", "delegate")
PARTNER_ACTIONS = (*TRUMP, "trump none")
DOUBLE_ACTIONS = ("double", "pass")
REDOUBLE_ACTIONS = ("redouble", "pass")
LEVEL_NAMES = ("", "dubbel", "herdubbel", "sant_vicenc")


@dataclass(frozen=True)
class ButifarraOptions:
    """Butifarra's options (``Butifarra.options_spec``: the decisions they follow), typed."""

    target: int = 101
    score_over_36: bool = True
    must_trump: bool = False
    no_losing_trump: bool = False
    sant_vicenc: bool = False


class ButifarraState(ManilleState):
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "declarer": "the seat whose team chose trump, null while trump is being chosen (int)",
        "multiplier": "the deal's score multiplier (2 for no-trump, doubled per doubling), null while trump "
            "is being chosen (int)",
        "doubling": "the doubling level: null, `dubbel`, `herdubbel` or `sant_vicenc`",
        "team_scores": "match points of team 0/2 and team 1/3 (list[int])",
    }
    PHASES: ClassVar[tuple[str, ...]] = (  # engine.rl: every phase, "over" included
        "trump", "delegated", "double", "redouble", "sant_vicenc", "play", "over")
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md)
        "declarer": "seat", "multiplier": "num:16", "doubling": "choice:dubbel|herdubbel|sant_vicenc",
        "team_scores": "nums:2:150",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    ORDER = BUTIFARRA_ORDER
    STRENGTH = BUTIFARRA_ORDER.plain
    POINTS = BUTIFARRA_POINTS
    TRICK_POINT: ClassVar[int] = 1

    team_score: list[int]
    declarer: int
    """The seat that named trump (the dealer, or his partner after ``delegate``)."""
    level: int
    """0 none, 1 doubled, 2 redoubled, 3 Sant Vicenç."""
    asking: list[int]
    """Seats still to be asked in the current doubling round, in order."""

    def _setup(self, deal: dict[str, Any] | None) -> None:
        o = self.game.opts(ButifarraOptions)
        self._init_family(family_rule(o.no_losing_trump, o.must_trump), DECK)  # B5 must_trump
        self.team_score = [0] * 4
        self.declarer = 0
        self.level = 0
        self.asking = []
        self._first_deal(deal, 12, self._deal)  # B7: random first dealer

    def _deal(self) -> None:
        self._reset_deal()
        rest = self._deal_packets(self._shuffled(), (4, 4, 4))  # B4: four at a time
        assert not rest
        self._ask_trump()

    def _ask_trump(self) -> None:
        super()._ask_trump()
        self.declarer = self.dealer
        self.level = 0
        self.asking = []

    # ------------------------------------------------------------------ API hooks
    def _legal_actions(self) -> list[str]:
        ph = self.phase
        if ph == "play":
            return self._play_actions()
        if ph == "trump":
            return list(DEALER_ACTIONS)
        if ph == "delegated":
            return list(PARTNER_ACTIONS)  # B6: a suit or Butifarra, no passing back
        if ph == "redouble":
            return list(REDOUBLE_ACTIONS)
        return list(DOUBLE_ACTIONS)  # "double" and "sant_vicenc"

    def _apply(self, action: str) -> None:
        ph = self.phase
        if ph == "play":
            self._play(PLAY_CARD[action])
        elif ph in ("trump", "delegated"):
            if action == "delegate":
                self._emit("trump_delegated", seat=self.turn)
                self.phase = "delegated"
                self.turn = self.declarer = self.partner[self.dealer]
                return
            self.trump = TRUMP_SUIT[action]
            if self.trump is None:
                self._emit("butifarra_declared", seat=self.turn)
            self._open_doubling("double", self.nxt[self.dealer])
        elif action == "pass":
            self.asking.pop(0)
            if self.asking:
                self.turn = self.asking[0]
            else:
                self._start_play(self.nxt[self.dealer])
        else:
            # B3: double (x2), redouble (x4), Sant Vicenç (x8)
            self.level += 1
            self._emit(LEVEL_NAMES[self.level], seat=self.turn, multiplier=2 ** self.level)
            if self.level == 1:
                self._open_doubling("redouble", self.nxt[self.turn])
            elif self.level == 2 and self.game.opts(ButifarraOptions).sant_vicenc:
                self._open_doubling("sant_vicenc", self.nxt[self.turn])
            else:
                self._start_play(self.nxt[self.dealer])

    def _open_doubling(self, phase: str, first: int) -> None:
        """Ask, in play order from ``first``, the side that may now raise the stakes."""
        declaring = phase == "redouble"
        order = [first]
        for _ in range(3):
            order.append(self.nxt[order[-1]])
        dealer_side = (self.dealer, self.partner[self.dealer])
        self.asking = [s for s in order if (s in dealer_side) == declaring]
        self.phase = phase
        self.turn = self.asking[0]

    def _why_illegal(self, verb: str, args: tuple[str, ...]) -> str:
        ph = self.phase
        if verb == "trump" and ph not in ("trump", "delegated"):
            return "trump is named by the dealer (or his partner after 'delegate') before the play"
        if verb == "delegate" and ph != "trump":
            return "B6: only the dealer may delegate, once, before trump is named"
        if verb in ("double", "redouble") and ph not in ("double", "redouble", "sant_vicenc"):
            return "B3: doubling happens after trump is named and before the first lead"
        if verb == "double" and ph == "redouble":
            return "B3: the dealer's side answers a double with 'redouble' or 'pass'"
        if verb == "redouble" and ph in ("double", "sant_vicenc"):
            return "B3: only the dealer's side may redouble, after a double"
        if verb == "play" and ph == "play" and args:
            return self._why_not_card(args[0])
        return ""

    # ------------------------------------------------------------------ deal end
    def _deal_over(self) -> None:
        side = [self.pts[s] + self.pts[self.partner[s]] for s in range(4)]
        tricks = [self.ntricks[s] + self.ntricks[self.partner[s]] for s in range(4)]
        if 12 in tricks:
            self._emit("capot", seat=tricks.index(12), partner=self.partner[tricks.index(12)])
        mult = (2 if self.trump is None else 1) * 2 ** self.level
        row = [0.0] * 4
        if side[0] == side[1]:
            self._emit("deal_tied_36", points=side[0])
        else:
            over = HALF if self.game.opts(ButifarraOptions).score_over_36 else 0
            for s in range(4):
                if side[s] > HALF:
                    row[s] = float((side[s] - over) * mult)  # B1: points above 36, multiplied
            if mult > 1:
                best = 0 if side[0] > side[1] else 1
                self._emit("score_multiplier", seat=best, x=mult, points=side[best] - over,
                           score=int(row[best]))
        self.sheet.append(row)
        for s in range(4):
            self.team_score[s] += int(row[s])
        if max(self.team_score) >= self.game.opts(ButifarraOptions).target or self._deals_done():  # B2
            self._finish()
            return
        self.deal_no += 1
        self.dealer = self.nxt[self.dealer]  # B7: the deal passes clockwise
        self._deal()

    # ------------------------------------------------------------------ views
    def scores(self) -> list[float]:
        return [float(s) for s in self.team_score]

    def ranking(self) -> list[int]:
        return rank_by(self.team_score, lower_is_better=False)

    def _observe(self, seat: int) -> dict[str, JSON]:
        obs = self._observe_play(seat)
        obs["declarer"] = self.declarer if self.phase not in ("trump", "delegated") else None
        obs["multiplier"] = (2 if self.trump is None else 1) * 2 ** self.level \
            if self.phase not in ("trump", "delegated") else None
        obs["doubling"] = LEVEL_NAMES[self.level] or None
        obs["team_scores"] = [self.team_score[0], self.team_score[1]]
        return obs


class Butifarra(Game):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "trump SUIT", "trump none", "delegate", "double", "redouble", "pass", "play CARD")
    id = "butifarra"
    name = "Butifarra"
    family = "trick-taking (manille)"
    seed_ref = "seed 003 L3-29 (Butifarra, 4 spelers)"
    summary = """
        4 players, partners opposite, clockwise; 48 cards (no tens), 9 > A >
        K > Q > J > 8 > ... > 2. Card points 9=5 A=4 K=3 Q=2 J=1, plus 1 per
        trick: 72 per deal.  12 cards each, 4 at a time. The dealer names
        trump, says Butifarra (no trump) or delegates to his partner, who
        must then choose.  The opponents may double; the dealer's side may
        redouble. Voorhand leads.  Follow suit; beat an opponent's winning
        card if you can; void while an opponent wins, a winning trump if you
        can, else any card; no duty while your partner wins (option
        must_trump: void, trump whoever wins). The side with 37+ scores
        its points above 36, x2 for Butifarra, x2 doubled / x4 redoubled.
        First side to 101 wins.
    """
    notation = """
        trump C|D|H|S       name trump (the dealer, or his partner after delegate)
        trump none          declare Butifarra (no trump)
        delegate            the dealer hands the choice to his partner
        double              an opponent doubles (Dubbel); with sant_vicenc also Sant Vicenç
        redouble            the dealer's side redoubles (Herdubbel)
        pass                decline to double or redouble
        play QS             play a card to the trick
    """
    min_players = 4
    max_players = 4
    default_players = 4
    rule_events = (
        "trump_delegated",
        "butifarra_declared",
        "dubbel",
        "herdubbel",
        "deal_tied_36",
        "score_multiplier",
        "capot",
        "overtake_forced",
        "overtrump_forced",
        "partner_exemption_used",
        "undertrump_blocked",
        "trick_point_awarded",
    )
    teams = True
    options_spec = (
        Option("target", 101, "B2: the first side to reach this many points wins the match",
               check=lambda v: v > 0, max=10100),
        Option("score_over_36", True, "B1: the winning side scores its points above 36; False is "
               "the seed's literal 'scores what they win' (all its points)"),
        Option("must_trump", False, "B5: void and holding a trump, you must play one whoever "
               "wins, a trump that beats the trick's highest trump if you can (official rule; "
               "andreuts/botifarra)"),
        Option("no_losing_trump", False, "void while an opponent wins and no trump of yours wins: "
               "no losing trump unless you hold only trumps (the family's earlier reading; seed "
               "L27 allows any card)"),
        Option("sant_vicenc", False, "B3: after a redouble the opponents may double again (x8)"),
    )
    options_type = ButifarraOptions
    state_class = ButifarraState
    tables = CardTables(state_class.ORDER, state_class.POINTS, state_class.TRICK_POINT)


register(Butifarra)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
