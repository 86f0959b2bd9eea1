"""Jo-Jotte, 2 players. Seed 003 L214-262; RULES.md 2.14 and "Common jass tables".  Decisions
followed: JJ1-JJ20 (and X1-X6).  Trick play, zones and ``determinize`` come from
``engine/games/jass/_bela.py``; the tables, sequence detection and trick duties from ``_jass.py``.

* 32 cards; trump J 9 A 10 K Q 8 7, plain A 10 K Q J 9 8 7.  JJ1: the seed's values, trump J 20,
  9 15, A 10, 10 10, K 5, Q 5; plain A 10, 10 10, K 5, Q 5; last trick 10 (165; 130 without trump);
  option ``pagat_values`` plays 20/14/11/10/4/3 and J 2 (162).
* JJ20: seat 0 deals first and the deal alternates every deal, a thrown-in one included.  6 cards
  each, the next card is turned.  Bidding (JJ2, JJ11): round 1, the non-dealer then the dealer,
  ``trump X`` (accept the turned suit X) or ``pass``; round 2, any other suit ``trump X``,
  ``trump none`` or ``pass``.  A suit bid (an acceptance included) may be overcalled once by the
  other player with ``trump none``; a no-trump bid stands.  Both pass twice: thrown in (scores
  nothing, counts as a deal).  The winner of the bid is the Speler.
* JJ12: with six cards each the opponent ``double`` or ``pass``; after a double the Speler
  ``redouble`` or ``pass``.  Then 3 more cards each; the bottom card of the stock is turned face up;
  the rest is out of play (JJ3: the turned card too).
* JJ13 Dix: in the turned suit (and unless the turned card is the 7), the holder of the trump 7
  ``declare dix`` (takes the turned card; the 7 lies face up out of play) or ``pass``.
* JJ14 meld phase: the opponent ``declare meld``, ``declare nullo`` or ``pass``; after a Nullo the
  Speler ``declare pit`` (the Nullo is off; the opponent may still meld) or ``pass``; then the
  Speler ``declare meld`` or ``pass``.  ``declare meld`` (offered to a player holding a carré or a
  sequence of 3+) shows his best carré and best sequence.  JJ15: only the single best sequence
  (longer, higher top card, trump; still equal: none) scores 20/40/50, and the highest carré
  (JJ8: J > 9 > A > K > Q > 10 > 8 > 7 with a trump, natural order without) 100.
* JJ16: jo-jotte, automatic: ``jo`` when the trump K is played while the Q is held, ``jotte`` and
  20 when that Q follows (JJ4: Q first, nothing).  It counts as roem.
* Play: the opponent leads; follow suit; void, trump (any trump); trump led, overtrump if able.
* Scoring: totals = melds + card points + last trick.  Speler higher: his card points x the double
  factor below the line; lower (``contract_failed``): the opponent scores both players' card points
  x factor below; equal (JJ17, ``tie_carry_over``): both players' card points x factor go below the
  line of the next deal's winner.  Melds above the line, not multiplied.  JJ18: announced Pit made
  +500 above, failed 500 to the opponent (JJ6); an unannounced sweep +100 above (the opponent's
  sweep of a Pit deal too).  Nullo (JJ5,
  JJ9): played out without trump, the Nullo player leads; no tricks: 200 to him above, else 200
  + 100 per further trick to the Speler; no card points, the Speler's melds still score.
* JJ19: a game is won by reaching 80 below the line (``game_won``); both below-the-line counts
  restart; two games win the rubber (+300 above, ``rubber_won``) and end the match.  JJ10:
  ``scores()`` = above + below over the rubber; the ranking follows the scores.

Rule events (``jo_jotte.<name>``): ``bid`` (kind accept, pass, suit, no_trump), ``double``,
``redouble``, ``dix_swap``, ``nullo_announced``, ``pit_announced``, ``jo``, ``jotte``, ``carre_won``,
``sequence_won``, ``contract_failed``, ``tie_carry_over``, ``slam`` (announced or not),
``game_won``, ``rubber_won``.

Injected deal (X6): ``{"dealer": 0, "hands": [[6 tokens], [6 tokens]], "upcard": "9H",
"stock": [top first: the non-dealer's 3 extra cards, the dealer's 3, ..., the bottom card last]}``;
play starts at the bidding.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards import JACK, KING, NINE, QUEEN, SEVEN, SUITS, TOKENS, hand_tokens
from engine.core import JSON, CardTables, Game, Option, rank_by, register
from engine.games.jass._bela import (
    _BIT,
    KLOP_RULE_NO_HOLDBACK,
    PLAY_CARD,
    SUIT_LETTER,
    BelaState,
    run_cards,
    seq_key,
)
from engine.games.jass._jass import JO_JOTTE, TEN_HIGH, MeldValues, carre_table, runs_in

JJ_RULE = KLOP_RULE_NO_HOLDBACK
"""003:L246: follow suit; void, trump; trump led, overtrump if able (no duty when ruffing)."""
JJ_MELDS = MeldValues((0, 0, 0, 20, 40, 50), carre_table({r: 100 for r in "789TJQKA"}))
"""003:L239-240: sequences 3 = 20, 4 = 40, 5+ = 50; every carré 100 (JJ8)."""
JO_JOTTE_POINTS = 20
NULLO = 200
NULLO_EXTRA = 100
PIT = 500
SWEEP = 100
GAME = 80
RUBBER = 300
TRUMPS = ("trump C", "trump D", "trump H", "trump S")


def carre_rank_key(rank: int, trump: int | None) -> int:
    """JJ8: with a trump J > 9 > A > K > Q > 10 > 8 > 7; without, natural order A high."""
    if trump is not None:
        if rank == JACK:
            return 100
        if rank == NINE:
            return 99
    return rank


@dataclass(frozen=True)
class JoJotteOptions:
    """Jo-Jotte's options (``JoJotte.options_spec``), typed."""

    pagat_values: bool = False


class JoJotteState(BelaState):
    """One Jo-Jotte rubber (see the module docstring)."""
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "speler": "the seat that holds the contract, null during bidding (int)",
        "contract": "the contract's trump suit letter or `none` (no-trump), null during bidding",
        "bid_round": "the bidding round, 1 or 2 (int)",
        "standing_bid": "the suit bid that stands, as [seat, suit letter], null if none",
        "factor": "the deal's score factor (doubling) (int)",
        "nullo": "the seat that plays nullo, null if none (int)",
        "pit": "the contract is a pit: all tricks (bool)",
        "melded": "per seat, whether it declared a meld this deal (list[bool])",
        "shown": "per seat, the meld cards it showed (list[list[card]])",
        "meld_points": "meld points per seat this deal (list[int])",
        "above": "points above the line per seat (honours: list[int])",
        "below": "points below the line per seat in the current game (list[int])",
        "below_earlier_games": "points below the line per seat from earlier games of the rubber (list[int])",
        "games": "games won per seat (list[int])",
        "carry": "points carried to the next deal (a hung deal) (int)",
    }
    PHASES: ClassVar[tuple[str, ...]] = (  # engine.rl: every phase, "over" included
        "bid", "dix", "double", "meld", "play", "over")
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md)
        "speler": "seat", "contract": "choice:C|D|H|S|none", "bid_round": "num:2", "factor": "num:8",
        "nullo": "seat", "pit": "bool", "melded": "seat_nums:1", "shown": "seat_cards",
        "meld_points": "seat_nums:300", "above": "seat_nums:3000", "below": "seat_nums:1000",
        "below_earlier_games": "seat_nums:3000", "games": "seat_nums:2", "carry": "num:300",
        "standing_bid": "seat_suit",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    above: list[int]
    below: list[int]
    """Below the line in the game being played."""
    banked: list[int]
    """Below the line in games already won (JJ19)."""
    games: list[int]
    carry: int
    """JJ17: tied card points waiting for the next deal's winner."""
    speler: int
    contract: int | None
    bid_round: int
    pending: int
    """A suit bid standing (its bidder) that the other player may overcall with no trump, or -1."""
    pending_suit: int
    factor: int
    meld_stage: str
    melded: list[bool]
    nullo: int
    """The Nullo player while a Nullo stands, else -1."""
    pit: bool
    meld_pts: list[int]
    shown: list[int]
    jo: list[int]
    """Per seat: 1 after ``jo``, 2 after ``jotte``."""

    def _setup(self, deal: dict[str, Any] | None) -> None:
        pagat = self.game.opts(JoJotteOptions).pagat_values
        self._init_family(JJ_RULE, TEN_HIGH if pagat else JO_JOTTE)  # JJ1
        self.above = [0, 0]
        self.below = [0, 0]
        self.banked = [0, 0]
        self.games = [0, 0]
        self.carry = 0
        self.deal_no = 1
        self.dealer = 0  # JJ20 / X1: seat 0 deals first
        self._new_deal_fields()
        if deal is not None:
            self._inject(deal)
        else:
            self._deal_first()
        self._ask_bid()

    def _new_deal_fields(self) -> None:
        self._reset_deal()
        self.speler = -1
        self.contract = None
        self.bid_round = 1
        self.pending = -1
        self.pending_suit = -1
        self.factor = 1
        self.meld_stage = ""
        self.melded = [False, False]
        self.nullo = -1
        self.pit = False
        self.meld_pts = [0, 0]
        self.shown = [0, 0]
        self.jo = [0, 0]

    def _ask_bid(self) -> None:
        self.phase = "bid"
        self.turn = self.voorhand()

    def _upsuit(self) -> int:
        return self.upcard // 13

    def _opp(self) -> int:
        return 1 - self.speler

    # ------------------------------------------------------------------ API hooks
    def _legal_actions(self) -> list[str]:
        ph = self.phase
        if ph == "play":
            return self._play_actions()
        if ph == "bid":
            if self.pending >= 0:
                return ["trump none", "pass"]  # JJ11: overcall a suit bid once with no trump
            if self.bid_round == 1:
                return [TRUMPS[self._upsuit()], "pass"]
            # JJ2: round 2, any other suit, no trump, or pass
            return [a for i, a in enumerate(TRUMPS) if i != self._upsuit()] + ["trump none", "pass"]
        if ph == "double":
            return ["redouble", "pass"] if self.factor == 2 else ["double", "pass"]
        if ph == "dix":
            return ["declare dix", "pass"]
        if ph == "meld":
            st = self.meld_stage
            if st == "pit":
                return ["declare pit", "pass"]
            acts = ["declare meld"] if self._has_melds(self.turn) else []
            if st == "opp":
                acts.append("declare nullo")
            return [*acts, "pass"]
        raise AssertionError(ph)

    def _apply(self, action: str) -> None:
        ph = self.phase
        seat = self.turn
        if ph == "play":
            self._play(PLAY_CARD[action])
        elif ph == "bid":
            self._bid(seat, action)
        elif ph == "double":
            if action == "double":
                self.factor = 2
                self._emit("double", seat=seat)
                self.turn = self.speler
                return
            if action == "redouble":
                self.factor = 4
                self._emit("redouble", seat=seat)
            self._complete_deal()
        elif ph == "dix":
            if action == "declare dix":
                assert self.contract is not None
                seven = self.contract * 13 + SEVEN
                self.hands[seat] ^= _BIT[seven] | _BIT[self.upcard]
                self.known[seat] |= _BIT[self.upcard]
                self.table = (self.table & ~_BIT[self.upcard]) | _BIT[seven]
                self._emit("dix_swap", seat=seat, seven=TOKENS[seven], took=TOKENS[self.upcard])
            self._meld_phase()
        elif ph == "meld":
            self._meld_action(seat, action)

    # ------------------------------------------------------------------ bidding
    def _bid(self, seat: int, action: str) -> None:
        other = 1 - seat
        if self.pending >= 0:
            if action == "trump none":  # JJ11: the no-trump overcall
                self._emit("bid", seat=seat, kind="no_trump", round=self.bid_round, overcall=True)
                self._contract(seat, None)
            else:
                self._emit("bid", seat=seat, kind="pass", round=self.bid_round)
                self._contract(self.pending, self.pending_suit)
            return
        if action == "pass":
            self._emit("bid", seat=seat, kind="pass", round=self.bid_round)
            if seat == self.voorhand():
                self.turn = other
            elif self.bid_round == 1:
                self.bid_round = 2
                self.turn = self.voorhand()
            else:
                self._thrown_in()
            return
        if action == "trump none":
            self._emit("bid", seat=seat, kind="no_trump", round=self.bid_round)
            self._contract(seat, None)
            return
        kind = "accept" if self.bid_round == 1 else "suit"
        self._emit("bid", seat=seat, kind=kind, round=self.bid_round, suit=action[-1])
        self.pending = seat
        self.pending_suit = SUIT_LETTER[action[-1]]
        self.turn = other

    def _contract(self, seat: int, suit: int | None) -> None:
        self.speler = seat
        self.contract = suit
        self.pending = -1
        self.phase = "double"  # JJ12: double / redouble with six cards each
        self.turn = self._opp()

    def _thrown_in(self) -> None:
        """JJ20: both passed twice; the other player deals next; the deal counts, scores nothing."""
        self.sheet.append([0.0, 0.0])
        self._next_deal()

    def _complete_deal(self) -> None:
        self._deal_rest()
        bottom = self.stock.pop()  # shown face up, for information only
        # JJ3: the turned card stays on the table (out of play) unless the Dix takes it
        self.table |= _BIT[bottom]
        c = self.contract
        if c is not None and c == self._upsuit() and self.upcard != c * 13 + SEVEN:
            seven = c * 13 + SEVEN
            for s in (self.voorhand(), self.dealer):
                if self.hands[s] >> seven & 1:
                    self.phase = "dix"  # JJ13: a player choice, only in the turned suit
                    self.turn = s
                    return
        self._meld_phase()

    # ------------------------------------------------------------------ melds, Nullo, Pit
    def _meld_trump(self) -> int | None:
        return None if self.nullo >= 0 else self.contract

    def _best_seq(self, seat: int) -> tuple[int, int, int] | None:
        runs = runs_in(self.hands[seat], 3)
        if not runs:
            return None
        return max(runs, key=lambda r: seq_key(r, self._meld_trump()))

    def _best_carre(self, seat: int) -> int:
        """The rank of the seat's best carré, or -1."""
        best = -1
        h = self.hands[seat]
        for r in range(SEVEN, 13):
            m = _BIT[r] | _BIT[13 + r] | _BIT[26 + r] | _BIT[39 + r]
            # JJ8: every carré counts, ranked by carre_rank_key
            if h & m == m and (best < 0 or carre_rank_key(r, self._meld_trump())
                               > carre_rank_key(best, self._meld_trump())):
                best = r
        return best

    def _has_melds(self, seat: int) -> bool:
        return self._best_seq(seat) is not None or self._best_carre(seat) >= 0

    def _meld_phase(self) -> None:
        self.phase = "meld"
        self.meld_stage = "opp"  # JJ14: the Speler's opponent speaks first
        self.turn = self._opp()

    def _meld_action(self, seat: int, action: str) -> None:
        st = self.meld_stage
        if action == "declare meld":
            self.melded[seat] = True
            shown = 0
            seq = self._best_seq(seat)
            if seq is not None:
                shown |= run_cards(seq)
            r = self._best_carre(seat)
            if r >= 0:
                shown |= _BIT[r] | _BIT[13 + r] | _BIT[26 + r] | _BIT[39 + r]
            self.shown[seat] = shown
            self.known[seat] |= shown
        elif action == "declare nullo":
            self.nullo = seat
            self._emit("nullo_announced", seat=seat)
            self.meld_stage = "pit"
            self.turn = self.speler
            return
        elif action == "declare pit":
            self._emit("pit_announced", seat=seat, nullo=self.nullo)
            self.nullo = -1  # JJ14: the Nullo is off; the deal is played in the Speler's contract
            self.pit = True
            self.meld_stage = "opp2"
            self.turn = self._opp()
            return
        if st in ("opp", "opp2", "pit"):
            self.meld_stage = "sp"
            self.turn = self.speler
            return
        self._score_melds()
        # the Speler's opponent leads (a Nullo player is that opponent); Nullo: no trump
        self._start_play(self._opp(), None if self.nullo >= 0 else self.contract)

    def _score_melds(self) -> None:
        """JJ15: the single best sequence and the single highest carré, each to one player."""
        trump = self._meld_trump()
        seqs: list[tuple[tuple[int, int, int], int, tuple[int, int, int]]] = []
        carres: list[tuple[int, int, int]] = []
        for s in (0, 1):
            if not self.melded[s] or s == self.nullo:  # JJ9: the Nullo caller gives up his melds
                continue
            q = self._best_seq(s)
            if q is not None:
                seqs.append((seq_key(q, trump), s, q))
            r = self._best_carre(s)
            if r >= 0:
                carres.append((carre_rank_key(r, trump), s, r))
        if seqs:  # JJ15: one sequence, one carré, each to one player
            seqs.sort(reverse=True)
            if len(seqs) == 1 or seqs[0][0] != seqs[1][0]:  # still equal: neither scores
                _, s, q = seqs[0]
                v = JJ_MELDS.run_value(q[2])
                self.meld_pts[s] += v
                self._emit("sequence_won", seat=s, points=v, cards=hand_tokens(run_cards(q)))
        if carres:
            carres.sort(reverse=True)
            _, s, r = carres[0]
            self.meld_pts[s] += JJ_MELDS.carres[r]
            self._emit("carre_won", seat=s, points=JJ_MELDS.carres[r], rank="23456789TJQKA"[r])

    # ------------------------------------------------------------------ play
    def _before_play(self, seat: int, c: int, hand: int) -> None:
        t = self.trump
        if t is None or c // 13 != t:
            return
        if c == t * 13 + KING and hand >> (t * 13 + QUEEN) & 1 and not self.jo[seat]:
            self.jo[seat] = 1  # JJ16: "jo" -- the queen is still held
            self.known[seat] |= _BIT[t * 13 + QUEEN]
            self._emit("jo", seat=seat)
        elif c == t * 13 + QUEEN and self.jo[seat] == 1:  # JJ4: only after "jo" (K first)
            self.jo[seat] = 2
            self.meld_pts[seat] += JO_JOTTE_POINTS
            self._emit("jotte", seat=seat, points=JO_JOTTE_POINTS)

    # ------------------------------------------------------------------ scoring
    def _deal_over(self) -> None:
        before = self._totals()
        sp, op = self.speler, self._opp()
        winner = -1
        for s in (0, 1):
            self.above[s] += self.meld_pts[s]  # melds above the line, never multiplied
        if self.nullo >= 0:
            n = self.nullo
            taken = self.ntricks[n]
            if taken == 0:  # JJ5
                self.above[n] += NULLO
                winner = n
            else:
                self.above[1 - n] += NULLO + NULLO_EXTRA * (taken - 1)
                winner = 1 - n
                self._emit("contract_failed", seat=n, kind="nullo", tricks=taken)
        else:
            cp = self.pts
            tot = [self.meld_pts[s] + cp[s] for s in (0, 1)]
            f = self.factor
            if tot[sp] > tot[op]:
                self.below[sp] += cp[sp] * f
                winner = sp
            elif tot[sp] < tot[op]:
                self.below[op] += (cp[sp] + cp[op]) * f  # JJ7: the won side scores both
                winner = op
                self._emit("contract_failed", seat=sp, kind="contract", totals=tot)
            else:
                self.carry += (cp[sp] + cp[op]) * f  # JJ17
                self._emit("tie_carry_over", seat=None, points=(cp[sp] + cp[op]) * f, carry=self.carry)
            if self.pit:  # JJ18 / JJ6
                if self.ntricks[sp] == 9:
                    self.above[sp] += PIT
                    self._emit("slam", seat=sp, announced=True, points=PIT)
                else:
                    self.above[op] += PIT
                    self._emit("contract_failed", seat=sp, kind="pit", tricks=self.ntricks[sp])
                    if self.ntricks[op] == 9:  # JJ18: the opponent's sweep is an unannounced one
                        self.above[op] += SWEEP
                        self._emit("slam", seat=op, announced=False, points=SWEEP)
            else:
                for s in (0, 1):
                    if self.ntricks[s] == 9:
                        self.above[s] += SWEEP
                        self._emit("slam", seat=s, announced=False, points=SWEEP)
        if winner >= 0 and self.carry:
            self.below[winner] += self.carry  # JJ17: the carried points go to this deal's winner
            self.carry = 0
        after = self._totals()
        self.sheet.append([float(after[s] - before[s]) for s in (0, 1)])
        if winner >= 0 and self.below[winner] >= GAME:  # JJ19
            self.games[winner] += 1
            self._emit("game_won", seat=winner, below=list(self.below), games=list(self.games))
            for s in (0, 1):
                self.banked[s] += self.below[s]
            self.below = [0, 0]
            if self.games[winner] == 2:  # JJ10
                self.above[winner] += RUBBER
                self.sheet[-1][winner] += RUBBER
                self._emit("rubber_won", seat=winner, points=RUBBER)
                self._finish()
                return
        self._next_deal()

    def _next_deal(self) -> None:
        if self._deals_done():
            self._finish()
            return
        self.deal_no += 1
        self.dealer = 1 - self.dealer  # JJ20: the deal alternates
        self._new_deal_fields()
        self._deal_first()
        self._ask_bid()

    def _totals(self) -> list[int]:
        return [self.above[s] + self.banked[s] + self.below[s] for s in (0, 1)]

    # ------------------------------------------------------------------ views
    def scores(self) -> list[float]:
        return [float(t) for t in self._totals()]

    def ranking(self) -> list[int]:
        return rank_by(self.scores(), lower_is_better=False)  # JJ10

    def _observe(self, seat: int) -> dict[str, JSON]:
        obs = self._observe_common(seat)
        obs.update({
            "speler": self.speler if self.speler >= 0 else None,
            "contract": None if self.speler < 0 else (SUITS[self.contract] if self.contract is not None
                                                      else "none"),
            "bid_round": self.bid_round,
            "standing_bid": ([self.pending, SUITS[self.pending_suit]] if self.pending >= 0 else None),
            "factor": self.factor,
            "nullo": self.nullo if self.nullo >= 0 else None,
            "pit": self.pit,
            "melded": list(self.melded),
            "shown": [hand_tokens(m) for m in self.shown],
            "meld_points": list(self.meld_pts),
            "above": list(self.above),
            "below": list(self.below),
            "below_earlier_games": list(self.banked),
            "games": list(self.games),
            "carry": self.carry,
        })
        return obs

    def _why_illegal(self, verb: str, args: tuple[str, ...]) -> str:
        if verb == "trump" and self.phase == "bid":
            if self.pending >= 0:
                return "JJ11: a suit bid stands; the other player may only overcall with 'trump none' or pass"
            if self.bid_round == 1:
                return f"JJ2: round 1 only accepts the turned suit ({SUITS[self._upsuit()]}) or passes"
            return f"JJ2: in round 2 the turned suit ({SUITS[self._upsuit()]}) may not be named"
        if verb == "declare" and args == ("meld",):
            return "JJ14: only a player holding a carre or a sequence of 3+ melds, in the meld phase"
        if verb == "play" and self.phase == "play" and args:
            return self._why_not_card(args[0])
        return ""

    def _why_not_held_card(self, c: int) -> str:
        return "follow suit; void, play a trump; on a trump lead beat the highest trump if you can"


class JoJotte(Game):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "trump SUIT", "trump none", "pass", "double", "redouble", "declare dix", "declare meld",
        "declare nullo", "declare pit", "play CARD")
    id = "jo_jotte"
    name = "Jo-Jotte (2 players)"
    family = "jass"
    seed_ref = "seed 003 L214-262 (Jo-Jotte)"
    summary = """
        2 players, 32 cards; trump J 20, 9 15, A 10, 10 10, K 5, Q 5; plain
        A 10, 10 10, K 5, Q 5; last trick 10 (165). 6 cards each, a turned
        card: accept or pass, then name another suit or no trump; a suit bid
        may be overcalled with no trump. Double / redouble; 3 more cards;
        Dix (trump 7 for the turned card). The opponent melds, calls Nullo
        (no tricks, no trump) or passes; the Speler may answer Nullo with a
        Pit. Best sequence 20/40/50, best carre 100, jo-jotte 20 above the
        line. Speler with more: his card points below the line; else the
        opponent scores both. 80 below wins a game, two games the rubber
        (+300).
    """
    notation = """
        trump H             accept the turned suit (round 1) or name a suit (round 2)
        trump none          bid no trump (round 2), or overcall a suit bid
        pass                decline (bidding, doubling, Dix, melding, answering a Nullo)
        double, redouble    the opponent doubles; the Speler redoubles
        declare dix         the holder of the trump 7 takes the turned card for it
        declare meld        show your best carre and best sequence
        declare nullo       the opponent plays to take no trick, without trump
        declare pit         the Speler answers a Nullo: he will take every trick
        play QS             play a card to the trick
    """
    min_players = 2
    max_players = 2
    default_players = 2
    rule_events = ("bid", "double", "redouble", "dix_swap", "nullo_announced", "pit_announced", "jo",
                   "jotte", "carre_won", "sequence_won", "contract_failed", "tie_carry_over", "slam",
                   "game_won", "rubber_won")
    extra_verbs: ClassVar[dict[str, tuple[str, str]]] = {}
    options_spec = (
        Option("pagat_values", False, "JJ1: pagat's Belote card values (14/11/10/4/3, J 2; 162) "
               "instead of the seed's (15/10/10/5/5; 165)"),
    )
    options_type = JoJotteOptions
    state_class = JoJotteState
    tables = CardTables(JO_JOTTE.order, JO_JOTTE.points, last_trick=JO_JOTTE.last_trick)

    def card_tables(self) -> CardTables:
        """JJ1: ``pagat_values`` plays the Klop/Bela table (:data:`TEN_HIGH`)."""
        t = TEN_HIGH if self.opts(JoJotteOptions).pagat_values else JO_JOTTE
        return CardTables(t.order, t.points, last_trick=t.last_trick)


register(JoJotte)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
