"""Grevjas (Faroese jass; 4 players, 2 against 2). Seed 003 L322-359; RULES.md 2.17 and "Common
jass tables".  Decisions followed: GJ1-GJ17 (and X1-X6).

* 32 cards, "10 low" (:data:`engine.games.jass._jass.TEN_LOW`), 141 card points + 5 for the last trick.
  Partners sit opposite (0+2 against 1+3).  Scores are strokes.
* GJ1/GJ17 first dealer: every player cuts a card (A K Q J 10 9 8 7, suits equal; the tied highest
  cut again); the highest deals.  GJ13: later the winner of the last completed trick deals (no
  trick completed: the same dealer again).
* GJ9 before each deal the player on the dealer's right ``cut``s (the pack is lifted at a point drawn
  from the seed) or ``tap``s (no cut): either way the pack's bottom card is trump, dealt face up to
  the dealer as his last card.  Deal 3-2-3 (GJ2 ``tap_deals_eights``: after a tap, batches of 8).
* Meld round from voorhand, each player once (GJ10, GJ11): ``pass``, ``declare`` melds (run of 3 =
  20, 4 = 50; big melds scored as strokes: four J 1, Q 2, K 3, A 4, a run of 5+ 5), ``declare pit``
  (at most one per deal), or both (``declare pit + ...``).  The melds of one announcement share no
  card; runs go at full length, shortened only where a carré beside them takes a card (K12).  Only
  the single best meld of the deal scores (more cards, then higher top card, then value; ties: the
  earlier announcement), at once: a small one into its side's running total, a big one as strokes
  (GJ6, GJ8: not toward the 100).  A pit side's melds wait for the pit.
* Play (:data:`engine.games.jass._jass.GREVJAS_RULE`): follow suit, but you may always trump; void: any
  card; trump led: follow trump, except that a bare Jas may be held back; never a duty to overtrump.
* GJ14 Stuk: 20 to its holder's side when he plays the second of trump K and Q (automatic).
* GJ4/GJ13 claims ("honderd"): checked after the meld round, after every trick and every Stuk; the
  side whose running total reaches 100 claims (both after a trick: the trick winner's side): 1 stroke,
  2 if the opponents have under 51 (GJ5 onder jan); the deal ends.  While a pit lives its side does
  not claim.  GJ11/GJ12: a pit is made by taking all 8 tricks: 4 strokes plus the strokes of every
  big meld its side announced that has not already scored (a meld scores once: only the pit
  announcer's melds wait for the pit), the opponents' Stuk cancelled; the first lost trick ends it
  (its melds void).  Nobody at 100 after 8 tricks: the running totals carry over.
* GJ16 ``manual_claims``: ``declare honderd`` on one's own turn in play; a false claim gives the
  opponents the deal (1 stroke, 2 if the claimers are under 51, GJ3); after the 8th trick an
  unclaimed side at 100 is claimed for; a side that took all 8 tricks unclaimed scores a pit.
* GJ7/GJ15 the match ends after the deal in which a side reaches ``target`` strokes (10).

Notation::

    cut | tap                     the player right of the dealer fixes how trump is shown
    pass                          no meld
    declare AH KH QH + JS JH JD JC  announce melds (cards of each, joined by +)
    declare pit [+ AH KH QH ...]  announce a pit (with or without melds)
    play QS                       play a card
    declare honderd               claim 100 (option manual_claims)

Rule events (``grevjas.<name>``): ``trump_by_cut``, ``trump_by_tap``, ``meld_big_as_strokes``,
``pit_announced``, ``pit_made``, ``pit_failed``, ``stuk_cancelled_by_pit``,
``honderd_claimed(correct)``, ``onder_jan``, ``carry_over``; also ``trump_turned``,
``meld_announced``, ``meld_scored``, ``stuk`` and ``trump_instead_of_follow``.

Injected deal (X6): ``{"dealer": 0, "hands": [[8 tokens] x 4]}``, optional ``"trump_card"`` (default:
the dealer's last listed card) and ``"carry": [a, b]``; play starts at the meld round.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from engine.cards import KING, QUEEN, TOKENS
from engine.core import JSON, CardTables, Option, State, register
from engine.games.jass._jass import (
    GREVJAS_MELDS,
    GREVJAS_RULE,
    Meld,
    MeldValues,
    announcements,
    key_cards_top,
)
from engine.games.jass._kruisjas import KruisjasGame, KruisjasOptions, KruisjasState, meld_text, play_list
from engine.tricks import PlayRule

PIT = "declare pit"
HONDERD = "declare honderd"


@dataclass(frozen=True)
class GrevjasOptions(KruisjasOptions):
    """Grevjas's options (``Grevjas.options_spec``), typed."""

    target: int = 10
    tap_deals_eights: bool = False
    manual_claims: bool = False


class GrevjasState(KruisjasState):
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "match_points": None,
        "playing_on_for_pit": None,
        "strokes": "strokes per team, the match score (list[int])",
        "pit_side": "the team going for a pit, null if none (int)",
        "first_cuts": "the ranks cut to choose the first dealer, one list of ranks per cutting round",
    }
    PHASES: ClassVar[tuple[str, ...]] = (  # engine.rl: every phase, "over" included
        "cut", "meld", "play", "over")
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md)
        "scores": "seat_nums:12", "pit_side": "choice:0|1",
    }
    TENSOR_SKIP: ClassVar[dict[str, str]] = {  # engine.rl: keys the tensor leaves out, and why
        "first_cuts": "the cuts that chose the first dealer (ranks; the dealer they chose is `dealer`)",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    MELDS: ClassVar[MeldValues] = GREVJAS_MELDS
    DEAL_PACKETS: ClassVar[tuple[int, ...]] = (3, 2, 3)

    pack: list[int]
    pit_side: int
    """The side playing a live pit (-1: none)."""
    pit_seat: int
    last_taker: int
    stuk_side: list[bool]
    scored: tuple[int, int]
    """GJ10/GJ12: the meld that scored in the meld round, as (announcement, meld) indices into
    ``announced`` ((-1, -1): none); a made pit does not score it again."""

    def _rule(self) -> PlayRule:
        return GREVJAS_RULE

    first_cuts: list[list[str | None]]
    """GJ17: the ranks each player cut for the first deal, round by round (ties cut again)."""

    def _init_match(self) -> None:
        self.scored = (-1, -1)
        self.first_cuts = []
        self.pack = []
        self.pit_side = self.pit_seat = -1
        self.last_taker = -1
        self.stuk_side = [False, False]

    def _reset_deal(self) -> None:
        super()._reset_deal()
        self.pit_side = self.pit_seat = -1
        self.last_taker = -1
        self.stuk_side = [False, False]
        self.pack = []
        self.scored = (-1, -1)

    # ------------------------------------------------------------------ dealing (GJ1, GJ2, GJ9, GJ17)
    def _first_dealer(self) -> int:
        # GJ17: every player cuts a card; the tied highest cut again; the highest deals (GJ1)
        order = "789TJQKA"
        cutting = [0, 1, 2, 3]
        self.first_cuts = []
        while True:
            pack = self._shuffled()
            cuts = {s: order.index(TOKENS[pack[i]][0]) for i, s in enumerate(cutting)}
            self.first_cuts.append([order[cuts[s]] if s in cuts else None for s in range(4)])
            top = max(cuts.values())
            cutting = [s for s in cutting if cuts[s] == top]
            if len(cutting) == 1:
                return cutting[0]

    def _new_deal(self) -> None:
        self._reset_deal()
        self.pack = self._shuffled()
        self.phase = "cut"
        self.turn = (self.dealer - 1) % 4  # GJ9: the player on the dealer's right

    def _other_actions(self) -> list[str]:
        return ["cut", "tap"]

    def _apply_other(self, action: str) -> None:
        pack = self.pack
        if action == "cut":
            k = self.rng.randrange(3, len(pack) - 2)
            pack = pack[k:] + pack[:k]
            self._emit("trump_by_cut", seat=self.turn)
        else:
            self._emit("trump_by_tap", seat=self.turn)
        eights = action == "tap" and self.game.opts(GrevjasOptions).tap_deals_eights  # GJ2: Parlett's batches
        self.pack = []
        # the bottom card (pack[31]) is the dealer's last card: trump
        self._deal_cards(pack, (8,) if eights else self.DEAL_PACKETS)
        self._after_deal()

    # ------------------------------------------------------------------ melds (GJ6, GJ8, GJ10, GJ11)
    def _meld_options(self) -> list[tuple[Meld, ...]]:
        # GJ10 / K12: the melds of one announcement share no card; runs at full length, shortened
        # only where a carré of the same announcement takes a card
        return announcements(self.hands[self.turn], self.trump, self.MELDS)

    def _meld_actions(self) -> list[str]:
        opts = [meld_text(c) for c in self._meld_options()]
        out = ["pass", *opts]
        if self.pit_side < 0:  # GJ11: at most one pit per deal
            out.append(PIT)
            out += [PIT + " + " + a[len("declare "):] for a in opts]
        return out

    def _canonical(self, verb: str, args: tuple[str, ...]) -> str | None:
        if args[:1] == ("pit",):
            rest = super()._canonical(verb, args[2:]) if len(args) > 2 and args[1] == "+" else None
            return PIT + " + " + rest[len("declare "):] if rest else None
        return super()._canonical(verb, args)

    def _apply_meld(self, action: str) -> None:
        seat = self.turn
        if action.startswith(PIT):
            self.pit_side = seat % 2
            self.pit_seat = seat
            self._emit("pit_announced", seat=seat, side=seat % 2)
            action = "declare" + action[len(PIT):].replace(" +", "", 1) if action != PIT else "pass"
        if action != "pass":
            combo = next(c for c in self._meld_options() if meld_text(c) == action)
            self.announced.append((seat, combo))
            for m in combo:
                self.known[seat] |= m.cards
            self._emit("meld_announced", seat=seat, melds=[m.describe() for m in combo],
                       value=sum(m.value for m in combo))
        self.meld_turns += 1
        self.turn = (seat + 1) % 4
        if self.meld_turns == 4:
            self._melds_done()

    def _melds_done(self) -> None:
        best: tuple[int, Meld, tuple[int, int]] | None = None
        for i, (seat, combo) in enumerate(self.announced):
            for j, m in enumerate(combo):
                if best is None or key_cards_top(m) > key_cards_top(best[1]):  # GJ10: ties, earlier
                    best = (seat, m, (i, j))
        if best is not None:
            seat, m, where = best
            side = seat % 2
            if side != self.pit_side:  # GJ6: a pit side's melds wait for the pit
                self._emit("meld_scored", seat=seat, meld=m.describe(), value=m.value)
                self._score_meld(side, seat, m)
                self.scored = where  # GJ12: it scores once
        if self._claims(None):
            return
        self._start_play((self.dealer + 1) % 4)

    def _score_meld(self, side: int, seat: int, m: Meld) -> None:
        if m.value >= 100:  # big melds score as strokes, not toward the 100 (GJ8)
            self.extra[side] += m.value // 100
            self.match[side] += m.value // 100
            self._emit("meld_big_as_strokes", seat=seat, meld=m.describe(), strokes=m.value // 100)
        else:
            self.run[side] += m.value
            self.bonus[side] += m.value

    # ------------------------------------------------------------------ play
    def _play_actions(self) -> list[str]:
        acts = play_list(self._lmask)
        if self.game.opts(GrevjasOptions).manual_claims and self.turn % 2 != self.pit_side:
            acts.append(HONDERD)  # GJ16
        return acts

    def _apply_talk(self, action: str) -> None:
        side = self.turn % 2
        self._claim(side, correct=self.run[side] >= 100)

    def _card_played(self, seat: int, c: int, hand: int) -> bool:
        """GJ14: Stuk when a player plays the second of trump K and Q, having played the first."""
        t = self.trump
        k, q = t * 13 + KING, t * 13 + QUEEN
        if c == k or c == q:
            other = q if c == k else k
            if (seat << 6 | other) in self.plays:
                side = seat % 2
                v = self.MELDS.stuk
                self.run[side] += v
                self.bonus[side] += v
                self.stuk_side[side] = True
                self._emit("stuk", seat=seat, card=TOKENS[c], points=v)
                if not self.game.opts(GrevjasOptions).manual_claims:
                    return self._claims(side)
        return False

    def _trick_melds(self, taker: int, m: int) -> None:
        """No roem in de slag in Grevjas."""

    def _after_trick(self, taker: int) -> bool:
        side = taker % 2
        self.last_taker = taker
        if self.pit_side >= 0 and side != self.pit_side:
            # GJ11: the first lost trick ends the pit; its melds are void, its claims resume
            self._emit("pit_failed", seat=self.pit_seat, side=self.pit_side, trick_no=self.ntricks)
            self.pit_side = -1
        if self.ntricks == 8:
            sweep = self.tricks[1 - side] == 0
            if self.pit_side >= 0 or (sweep and self.game.opts(GrevjasOptions).manual_claims):
                self._pit_made(side)
                return True
            if self.game.opts(GrevjasOptions).manual_claims:  # GJ16: an unclaimed side at 100 is claimed for
                reached = [s for s in (side, 1 - side) if self.run[s] >= 100]
                if reached:
                    self._claim(reached[0], correct=True)
                    return True
                return False
        if self.game.opts(GrevjasOptions).manual_claims:
            return False
        return self._claims(side)

    def _check(self, side: int) -> bool:
        return self._claims(side)

    def _claims(self, side: int | None) -> bool:
        """GJ13: automatic claims; ``side`` wins a tie (the trick winner's)."""
        if self.game.opts(GrevjasOptions).manual_claims:
            return False
        reached = [s for s in (0, 1) if self.run[s] >= 100 and s != self.pit_side]
        if not reached:
            return False
        s = side if side in reached else reached[0]
        self._claim(s, correct=True)
        return True

    # ------------------------------------------------------------------ deal end
    def _claim(self, side: int, correct: bool) -> None:
        self._emit("honderd_claimed", seat=None, side=side, correct=correct, points=self.run[side])
        winner = side if correct else 1 - side
        loser = 1 - winner
        strokes = 1
        if self.run[loser] < 51:  # GJ5: onder jan is under 51 in Grevjas
            strokes = 2
            self._emit("onder_jan", seat=None, side=loser, points=self.run[loser])
        self._end(winner, strokes)

    def _pit_made(self, side: int) -> None:
        # GJ12: 4 strokes in all, plus every big meld its side announced that has not already scored
        # (a meld scores once: only the pit announcer's melds wait for the pit); the opponents' Stuk
        # cancelled
        strokes = 4
        big: list[tuple[int, Meld]] = []
        for i, (seat, combo) in enumerate(self.announced):
            if seat % 2 == side:
                for j, m in enumerate(combo):
                    if m.value >= 100 and (i, j) != self.scored:
                        strokes += m.value // 100
                        big.append((seat, m))
        self._emit("pit_made", seat=self.pit_seat if self.pit_seat >= 0 else None, side=side,
                   strokes=strokes)
        for seat, m in big:  # GJ12: the made pit's big melds score as strokes
            self._emit("meld_big_as_strokes", seat=seat, meld=m.describe(), strokes=m.value // 100,
                       pit=True)
        if self.stuk_side[1 - side]:
            self._emit("stuk_cancelled_by_pit", seat=None, side=1 - side)
        self._end(side, strokes)

    def _end(self, side: int, strokes: int) -> None:
        self.match[side] += strokes
        row = list(self.extra)
        row[side] += strokes
        self.carry = [0, 0]
        self._next_dealer()
        self._close_deal(row)

    def _next_dealer(self) -> None:
        if self.last_taker >= 0:  # GJ13: the winner of the last completed trick deals
            self.dealer = self.last_taker

    def _no_winner(self) -> None:
        self.carry = list(self.run)
        self._emit("carry_over", seat=None, carry=list(self.carry))
        self._next_dealer()
        self._close_deal(list(self.extra))

    def _match_over(self) -> bool:
        return max(self.match) >= self.game.opts(GrevjasOptions).target  # GJ7, GJ15

    def determinize(self, seat: int, rng: random.Random) -> State:
        """:meth:`KruisjasState.determinize`; before the deal (cut or tap) the undealt pack is
        shuffled too, so its order is not leaked."""
        new = super().determinize(seat, rng)
        assert isinstance(new, GrevjasState)
        if new.pack:
            pack = list(new.pack)
            rng.shuffle(pack)
            new.pack = pack
        return new

    # ------------------------------------------------------------------ views
    def _observe(self, seat: int) -> dict[str, JSON]:
        obs = super()._observe(seat)
        obs.pop("match_points")
        obs.pop("playing_on_for_pit")
        obs["strokes"] = list(self.match)
        obs["pit_side"] = self.pit_side if self.pit_side >= 0 else None
        obs["first_cuts"] = [list(r) for r in self.first_cuts]
        return obs


class Grevjas(KruisjasGame):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "cut", "tap", "pass", "declare ANNOUNCEMENT", "declare pit", "declare pit + ANNOUNCEMENT",
        "declare honderd", "play CARD")

    id = "grevjas"
    name = "Grevjas (Faroese jass)"
    family = "jass"
    seed_ref = "seed 003, L322-359 (Grevjas)"
    summary = """
        4 players, partners opposite; 32 cards, 10 low (146). The player right
        of the dealer cuts or taps: the bottom card is trump and the dealer's.
        Deal 3-2-3; one meld round (run 3 = 20, 4 = 50; four J/Q/K/A and runs
        of 5+ score 1/2/3/4/5 strokes); only the best meld scores; a pit may be
        announced. Follow suit but you may always trump; a bare Jas may be
        kept back. Stuk 20 on the second card. The first side to 100 claims:
        1 stroke, 2 if the others are under 51; pit 4 strokes. Nobody at 100:
        points carry over. First side to 10 strokes.
    """
    notation = """
        cut | tap                     the player right of the dealer: how trump is shown
        pass                          no meld
        declare AH KH QH + JS JH JD JC  announce melds (cards of each, joined by +)
        declare pit [+ AH KH QH ...]  announce a pit (with or without melds)
        play QS                       play a card
        declare honderd               claim 100 (option manual_claims)
    """
    min_players = 4
    max_players = 4
    default_players = 4
    teams = True
    rule_events = ("trump_by_cut", "trump_by_tap", "meld_big_as_strokes", "pit_announced", "pit_made",
                   "pit_failed", "stuk_cancelled_by_pit", "honderd_claimed", "onder_jan", "carry_over",
                   "trump_turned", "meld_announced", "meld_scored", "stuk", "trump_instead_of_follow")
    extra_verbs: ClassVar[dict[str, tuple[str, str]]] = {"cut": ("none", "cut"), "tap": ("none", "tap")}
    options_spec = (
        Option("target", 10, "GJ7: strokes a side needs to win the match", check=lambda v: v > 0, max=1000),
        Option("tap_deals_eights", False, "GJ2: after a tap, deal in batches of eight (Parlett)"),
        Option("manual_claims", False, "GJ4/GJ16: players claim 'honderd' themselves (declare "
               "honderd); a false claim gives the opponents the deal"),
    )
    options_type = GrevjasOptions
    state_class = GrevjasState
    tables = CardTables(state_class.TABLE.order, state_class.TABLE.points,
                        last_trick=state_class.TABLE.last_trick)


register(Grevjas)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
