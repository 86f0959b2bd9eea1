"""Manillen (2 against 2, Belgian/Dutch). Seed 002, section "manillen"; RULES.md 2.4 and the
"Common rule for the manille family". Decisions followed: M1-M7 (and X1-X6).

* 32 cards (7-A); in every suit 10 (manille) > A > K > Q > J > 9 > 8 > 7; card points 10=5, A=4,
  K=3, Q=2, J=1, so 60 per deal; tricks score nothing (M7: seed-002 numbers).
* Before each deal the player on the dealer's right cuts (``cut``: the engine lifts at least three
  cards at a point drawn from the match seed) or knocks (``knock``: no cut).  Deal 3-2-3 clockwise,
  8 each.
* The dealer names trump, ``trump C|D|H|S`` (M4: never ``trump none``).  X4: his partner's
  observation shows no hand (``hand_hidden``) until trump is named.
* The player left of the dealer leads; the winner of a trick leads the next.
* Legal plays (M1, M2): :data:`~engine.games.manille._manille.MANILLEN_RULE`: follow suit; beat an
  opponent's winning card if you can; void with an opponent winning, a trump that wins if you have
  one, otherwise anything but a trump (unless you hold only trumps); while the partner wins, no
  duty, except that a trump lower than the partner's winning trump is barred unless you hold only
  trumps (seed "mag niet onderkopen").  The seed also says "men moet sowieso de slag naar zich
  proberen halen" (always try to take the trick), which M1 overrides with the partner exemption of
  seed 003; option ``partner_exemption=False`` plays that literal reading (``MANILLEN_SEED_RULE``).
* A deal: the team with more than 30 card points scores the excess (36-24 gives 6); 30-30 scores
  nothing.  The match ends when a team reaches ``target`` (101).  M3: only one team scores per deal,
  so "both teams reach 101, play on to 121" cannot happen under the seed's scoring; it is
  implemented for the house reading ``both_teams_score`` (each team adds its own card points), where
  it can.
* M5: the first dealer is drawn from the seed; the deal passes clockwise.
* Club format (``club_rounds``, M6): three blocks of 12 deals (each player deals three times per
  block); before blocks 2 and 3 partners change so that everybody partners everybody once (players
  keep their seat numbers; the playing order changes: block 1 ``0 1 2 3``, block 2 ``0 1 3 2``,
  block 3 ``0 2 1 3``, partners sitting opposite).  The team with the higher sum of deal scores wins
  the block, each member scoring one block; equal sums, no winner.  ``scores()`` are blocks won
  (0-3); without a tied block the result is 3-1-1-1 or 2-2-2-0 (seed).

Rule events (``manillen.<name>``): ``cut_knocked``, ``trump_chosen(suit)``, ``vetten`` (a counter
given to a trick the partner takes while a cheaper card was legal), ``kopen`` (trumping a plain
lead), ``undertrump_refused`` (a trump lower than the winning trump was barred),
``overtake_forced``, ``overtrump_forced``, ``undertrump_blocked``, ``partner_exemption_used`` (see
``engine.games.manille._manille``), ``hand_tie_30_30``, ``match_extended_to_121``; also ``block_won``
(club format).

Injected deal (X6): ``{"dealer": 0, "hands": [[8 tokens] x 4]}``; play starts at the trump choice.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards import SUITS, TOKENS, deck_32, mask_of
from engine.core import JSON, CardTables, Game, Option, rank_by, register
from engine.games.manille._manille import (
    MANILLE_POINTS,
    MANILLEN_RULE,
    MANILLEN_SEED_RULE,
    PLAY_CARD,
    SUIT_MASK,
    TRUMP,
    TRUMP_SUIT,
    ManilleState,
)

DECK = mask_of(deck_32())
CLUB_ORDERS = ((0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 1, 3))
"""Playing order of the seats in each club block (partners opposite: positions 0-2 and 1-3)."""
CLUB_DEALS = 12
TEAM_POINTS = 60
CHEAPER: tuple[int, ...] = tuple(
    sum(1 << x for x in range(52) if MANILLE_POINTS.plain[x] < MANILLE_POINTS.plain[c])
    for c in range(52))
"""Cards worth fewer points than each card (``vetten``: a counter given while a cheaper card was legal)."""


@dataclass(frozen=True)
class ManillenOptions:
    """Manillen's options (``Manillen.options_spec``: the decisions they follow), typed."""

    target: int = 101
    partner_exemption: bool = True
    extend_to: int = 121
    both_teams_score: bool = False
    club_rounds: bool = False
    cut_phase: bool = True


class ManillenState(ManilleState):
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "hand_hidden": "true while you are the dealer's partner before trump is named (X4): your `hand` is "
            "then empty (bool)",
        "team_scores": "match points of team 0/2 and team 1/3 (list[int])",
        "goal": "the match score that wins (`target`, raised to `extend_to` on a tie) (int)",
        "block": "the club-rounds block being played, from 1 (int); only with `club_rounds`",
        "block_points": "per seat, deal points in the current block (list[int]); only with `club_rounds`",
        "blocks_won": "blocks won per seat (list[int]); only with `club_rounds`",
        "order": "the playing order of the seats in this block (list[int]); only with `club_rounds`",
    }
    PHASES: ClassVar[tuple[str, ...]] = (  # engine.rl: every phase, "over" included
        "cut", "trump", "play", "over")
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md)
        "hand_hidden": "bool", "team_scores": "nums:2:150", "goal": "num:200", "block": "num:10",
        "block_points": "seat_nums:100", "blocks_won": "seat_nums:10", "order": "nums:4:4",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    TRICK_POINT: ClassVar[int] = 0  # M7: seed-002 numbers, 60 card points, tricks count nothing
    TRACK_TRICK: ClassVar[bool] = True
    TRUMPING_EVENT: ClassVar[str] = "kopen"
    UNDERTRUMP_EVENT: ClassVar[str] = "undertrump_refused"  # seed 002 "mag niet onderkopen"

    team_score: list[int]
    """Match points of each seat's team (partners equal)."""
    goal: int
    extended: bool
    block: int
    block_pts: list[int]
    blocks_won: list[int]

    def _setup(self, deal: dict[str, Any] | None) -> None:
        opts = self.game.opts(ManillenOptions)
        # M1: partner exemption (default), or the seed's literal "always try to take the trick"
        self._init_family(MANILLEN_RULE if opts.partner_exemption else MANILLEN_SEED_RULE, DECK)
        self.team_score = [0] * 4
        self.goal = opts.target
        self.extended = False
        self.block = 0
        self.block_pts = [0] * 4
        self.blocks_won = [0] * 4
        if opts.club_rounds:
            self._seat(CLUB_ORDERS[0])
        self._first_deal(deal, 8, self._begin_deal)  # M5: random first dealer

    def _seat(self, order: tuple[int, ...]) -> None:
        """Seat the players in ``order`` (club format): who plays after whom, who partners whom."""
        for i, s in enumerate(order):
            self.nxt[s] = order[(i + 1) % 4]
            self.partner[s] = order[(i + 2) % 4]

    def _begin_deal(self) -> None:
        self._reset_deal()
        self.stock = self._shuffled()
        if self.game.opts(ManillenOptions).cut_phase:
            self.phase = "cut"
            self.turn = self._right_of(self.dealer)
        else:
            self._deal()

    def _right_of(self, seat: int) -> int:
        return next(s for s in range(4) if self.nxt[s] == seat)

    def _deal(self) -> None:
        rest = self._deal_packets(self.stock, (3, 2, 3))
        assert not rest
        self.stock = []
        self._ask_trump()

    # ------------------------------------------------------------------ API hooks
    def _legal_actions(self) -> list[str]:
        if self.phase == "play":
            return self._play_actions()
        if self.phase == "trump":
            return list(TRUMP)  # M4: a suit, never no-trump
        return ["cut", "knock"]

    def _apply(self, action: str) -> None:
        if self.phase == "play":
            self._play(PLAY_CARD[action])
        elif self.phase == "trump":
            self.trump = TRUMP_SUIT[action]
            self._emit("trump_chosen", seat=self.turn, suit=action[-1])
            self._start_play(self.nxt[self.dealer])
        elif action == "knock":
            self._emit("cut_knocked", seat=self.turn)
            self._deal()
        else:
            k = self.rng.randrange(3, len(self.stock) - 2)  # at least three cards lifted and left
            self.stock = self.stock[k:] + self.stock[:k]
            self._deal()

    def _why_illegal(self, verb: str, args: tuple[str, ...]) -> str:
        if verb == "trump":
            if args == ("none",) and self.phase == "trump":
                return "M4: manillen has no no-trump; the dealer names a suit (trump C, D, H or S)"
            if self.phase != "trump":
                return f"only the dealer (seat {self.dealer}) names trump, before the first card"
        if verb in ("cut", "knock") and self.phase != "cut":
            return "only the player on the dealer's right cuts or knocks, before the deal"
        if verb == "play" and self.phase == "play" and args:
            return self._why_not_card(args[0])
        return ""

    def _why_not_held_card(self, c: int) -> str:
        led = self.led
        if self.hands[self.turn] & SUIT_MASK[led] and c // 13 != led:
            return f"follow suit: {SUITS[led]} was led"
        if self.partner[self.turn] == self.wseat:
            return "M1/M2: no trump lower than your partner's winning trump unless you hold only trumps"
        return ("M1/M2: an opponent is winning; beat his card if you can (follow suit higher, or "
                "when void a winning trump), and never play a losing trump unless you hold only trumps")

    # ------------------------------------------------------------------ events
    def _trick_done(self, taker: int) -> None:
        """``vetten``: the taker's partner gave a counter while a cheaper card was legal."""
        plays = self.last_trick
        mate = self.partner[taker]
        for i in (1, 2, 3):
            p = plays[i]
            if p >> 6 == mate:
                c = p & 63
                if self.tlegal[i] & CHEAPER[c]:
                    # ply: the trick's last card is applied but not yet recorded in the history
                    self._emit("vetten", seat=mate, card=TOKENS[c], taker=taker,
                               ply=len(self.history) - 3 + i)
                return

    # ------------------------------------------------------------------ deal end
    def _deal_over(self) -> None:
        team = [self.pts[s] + self.pts[self.partner[s]] for s in range(4)]
        row = [0.0] * 4
        if self.game.opts(ManillenOptions).both_teams_score:
            row = [float(t) for t in team]
        elif team[0] == team[self.nxt[0]]:  # the next seat is always an opponent
            self._emit("hand_tie_30_30", points=team[0])
        else:
            for s in range(4):
                if team[s] > TEAM_POINTS // 2:
                    row[s] = float(team[s] - TEAM_POINTS // 2)  # 36 - 30 = 6
        self.sheet.append(row)
        if self.game.opts(ManillenOptions).club_rounds:
            self._club_deal_over(row)
            return
        for s in range(4):
            self.team_score[s] += int(row[s])
        if self._match_decided() or self._deals_done():
            self._finish()
            return
        self._next_deal()

    def _match_decided(self) -> bool:
        sc = self.team_score
        opts = self.game.opts(ManillenOptions)
        target, extend = opts.target, opts.extend_to
        if not self.extended and sc[0] >= target and sc[1] >= target:
            # M3: both teams reached the target together (only possible with both_teams_score)
            self.extended = True
            self.goal = extend
            self._emit("match_extended_to_121", scores=[sc[0], sc[1]], to=extend)
        top = max(sc)
        return top >= self.goal and sc[0] != sc[1]

    def _club_deal_over(self, row: list[float]) -> None:
        for s in range(4):
            self.block_pts[s] += int(row[s])
        if self.deal_no % CLUB_DEALS == 0:
            bp = self.block_pts
            if bp[0] != bp[self.nxt[0]]:  # M6: higher sum wins the block; equal, no winner
                best = 0 if bp[0] > bp[self.nxt[0]] else self.nxt[0]
                for s in (best, self.partner[best]):
                    self.blocks_won[s] += 1
                self._emit("block_won", seat=best, partner=self.partner[best], block=self.block + 1,
                           points=[bp[best], bp[self.nxt[best]]])
            self.block += 1
            self.block_pts = [0] * 4
            if self.block < len(CLUB_ORDERS):
                self._seat(CLUB_ORDERS[self.block])
        if self.block >= len(CLUB_ORDERS) or self._deals_done():
            self._finish()
            return
        self._next_deal()

    def _next_deal(self) -> None:
        self.deal_no += 1
        self.dealer = self.nxt[self.dealer]  # M5: the deal passes clockwise
        self._begin_deal()

    # ------------------------------------------------------------------ views
    def scores(self) -> list[float]:
        if self.game.opts(ManillenOptions).club_rounds:
            return [float(b) for b in self.blocks_won]
        return [float(s) for s in self.team_score]

    def ranking(self) -> list[int]:
        return rank_by(self.scores(), lower_is_better=False)

    def _own_hand_unknown(self, seat: int) -> bool:
        # X4: the dealer's partner does not look at his cards before trump is named
        return self.phase == "trump" and seat == self.partner[self.dealer]

    def _observe(self, seat: int) -> dict[str, JSON]:
        hidden = self._own_hand_unknown(seat)
        obs = self._observe_play(seat, show_hand=not hidden)
        obs["hand_hidden"] = hidden
        obs["team_scores"] = [self.team_score[0], self.team_score[1]]
        obs["goal"] = self.goal
        if self.game.opts(ManillenOptions).club_rounds:
            obs["block"] = self.block + 1
            obs["block_points"] = list(self.block_pts)
            obs["blocks_won"] = list(self.blocks_won)
            obs["order"] = list(CLUB_ORDERS[min(self.block, len(CLUB_ORDERS) - 1)])
        return obs


class Manillen(Game):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "cut", "knock", "trump SUIT", "play CARD")
    id = "manillen"
    name = "Manillen (2 against 2)"
    family = "trick-taking (manille)"
    seed_ref = "seed 002, section manillen"
    summary = """
        4 players, partners opposite; 32 cards, 10 > A > K > Q > J > 9 > 8 >
        7 in every suit. Card points 10=5 A=4 K=3 Q=2 J=1 (60 per deal);
        tricks count nothing. The player right of the dealer cuts or knocks;
        3-2-3 deal; the dealer names trump (no no-trump) and his partner may
        not look at his cards before that.  Left of dealer leads. Follow
        suit; beat an opponent's winning card if you can; void while an
        opponent wins, trump to win if you can; never undertrump (unless
        only trumps); no duty while your partner wins, but still no trump
        below his winning trump. The team with more than 30 scores the
        excess (36-24 gives 6); first team to 101 wins. Club format
        (club_rounds): 3 blocks of 12 deals with rotating partners; blocks
        won count.
    """
    notation = """
        cut                 the player right of the dealer cuts the pack
        knock               ... or knocks (no cut)
        trump C|D|H|S       the dealer names trump
        play QS             play a card to the trick
    """
    min_players = 4
    max_players = 4
    default_players = 4
    rule_events = (
        "cut_knocked",
        "trump_chosen",
        "vetten",
        "kopen",
        "undertrump_refused",
        "overtake_forced",
        "hand_tie_30_30",
        "match_extended_to_121",
        "overtrump_forced",
        "partner_exemption_used",
        "undertrump_blocked",
    )
    teams = True
    extra_verbs: ClassVar[dict[str, tuple[str, str]]] = {"cut": ("none", "cut")}
    options_spec = (
        Option("target", 101, "M3: the first team to reach this many points wins the match",
               check=lambda v: v > 0, max=10100),
        Option("partner_exemption", True, "M1: no duty to beat your partner's winning card; False "
               "is the seed's literal 'always try to take the trick' (beat the partner's card too)"),
        Option("extend_to", 121, "M3: the new target when both teams reach `target` together",
               check=lambda v: v > 0, max=12100),
        Option("both_teams_score", False, "house reading, not the seed: each team adds its own card "
               "points every deal (makes M3's extension reachable)"),
        Option("club_rounds", False, "M6: club format, 3 blocks of 12 deals with rotating partners; "
               "scores are blocks won"),
        Option("cut_phase", True, "the player right of the dealer cuts or knocks before each deal"),
    )
    options_type = ManillenOptions
    state_class = ManillenState
    tables = CardTables(state_class.ORDER, state_class.POINTS, state_class.TRICK_POINT)

    def _check_options(self) -> None:
        o = self.opts(ManillenOptions)
        if o.extend_to <= o.target:
            raise ValueError(f"manillen: extend_to ({o.extend_to}) must be above target ({o.target})")


register(Manillen)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
