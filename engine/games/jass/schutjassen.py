"""Schutjassen (4 players, 2 against 2). Seed 003 L149-166 ("speel zoals bij Kruisjas"); RULES.md
2.12, read with 2.13 (``kruisjassen``) and "Common jass tables".  Decisions followed: S1-S10, and
Kruisjassen's K3-K7, K9, K11-K16, K18 for the play (X1-X6).

* Cards, omboeren, deal, trump, meld round, play rule, Stuk and roem in de slag as in
  :mod:`engine.games.jass.kruisjassen`.
* S1 bidding, after the deal and the turned trump: one round from voorhand, ``declare schut`` or
  ``pass``; the first Schut fixes the Schut side (the Schutters need 100).  S8: nobody says Schut:
  the same dealer deals again; the deal scores nothing and counts as played.
* S2/S7 during play (talk actions, which do not use up the turn): a defender on turn may
  ``declare herschut`` before the last trick starts (his side takes the contract over), or
  ``declare concede`` until Herschut (Schutters +100, the deal ends).  After Herschut the Schutters
  get one decision on their next turn: play on, ``declare concede`` (Herschutters +300) or
  ``declare tout`` (the Schutters take the contract back, the deal is worth 900).  After Tout
  nobody may bid or concede.
* S4/S5/S9 the contract side's running total (card points, melds under 100, Stuk, trick melds under
  100; no carry-over) is checked after every trick and every Stuk: at 100 the contract is made and
  the deal ends (no pit, no play-on).  After eight tricks below 100 it failed.  A meld of 100 or more
  is an extra won hand (+100 to its side, K3).  S10: Herschut by a side already at 100 wins at once.
* Scores: Schutters make 100: 200 (300 if the opponents are under 50, onder jan); Schutters fail:
  opponents 100 (200 if the Schutters are under 50); Herschutters make 100: 400 (500 if the
  Schutters are under 50); Herschutters fail: Schutters 500; Tout: 900 to the winner (S3: the
  Herschutters when the Schutters fail).  S6: first side to 1100 (11 strokes on the boom).

Notation::

    declare schut / pass          bidding
    pass / declare AH KH QH + ...  meld round (as Kruisjassen)
    play QS                       play a card
    declare herschut              a defender takes the contract over (before his card)
    declare tout                  the Schutters take it back (their one decision after Herschut)
    declare concede               give up the deal

Rule events (``schutjassen.<name>``): ``schut(player)``, ``no_schut_redeal``,
``herschut(player, trick_no)``, ``tout``, ``conceded(side)``, ``under_jan``, ``contract_made``,
``contract_failed``; and as in Kruisjassen ``trump_turned``, ``meld_announced``, ``meld_outbid``,
``meld_100_extra_hand``, ``stuk_on_play``, ``trick_meld_claimed``, ``undertrump_blocked``,
``trump_instead_of_follow``, ``omboeren_result``.

Injected deal (X6): as Kruisjassen (``dealer``, ``hands``, optional ``trump_card``); play starts at
the bidding.
"""
from __future__ import annotations

from typing import ClassVar

from engine.core import JSON, CardTables, Option, register
from engine.games.jass._kruisjas import KruisjasGame, KruisjasState, SchutjassenOptions, play_list

SCHUT, HERSCHUT, TOUT, CONCEDE = "declare schut", "declare herschut", "declare tout", "declare concede"


class SchutjassenState(KruisjasState):
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "carry_over": None,
        "playing_on_for_pit": None,
        "schut_side": "the team that called schut, null if none (int)",
        "contract_side": "the team that holds the contract, null before it is set (int)",
        "herschut": "schut was answered with herschut (bool)",
        "tout": "the contract is tout: every trick (bool)",
    }
    PHASES: ClassVar[tuple[str, ...]] = (  # engine.rl: every phase, "over" included
        "bid", "meld", "play", "over")
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md)
        "schut_side": "choice:0|1", "contract_side": "choice:0|1", "herschut": "bool", "tout": "bool",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    schut_side: int
    contract: int
    herschut: bool
    tout: bool
    pending: bool
    """The Schutters' one decision after Herschut is still open."""
    bid_turns: int

    def _init_match(self) -> None:
        self.schut_side = self.contract = -1
        self.herschut = self.tout = self.pending = False
        self.bid_turns = 0

    def _reset_deal(self) -> None:
        super()._reset_deal()
        self.carry = [0, 0]  # S4: each Schut deal is settled on its own
        self.run = [0, 0]
        self._init_match()

    def _after_deal(self) -> None:
        self.phase = "bid"
        self.bid_turns = 0
        self.turn = (self.dealer + 1) % 4

    # ------------------------------------------------------------------ bidding (S1, S8)
    def _other_actions(self) -> list[str]:
        return ["pass", SCHUT]

    def _apply_other(self, action: str) -> None:
        seat = self.turn
        if action == SCHUT:
            # S1: the first Schut fixes the Schut side
            self.schut_side = self.contract = seat % 2
            self._emit("schut", seat=seat, side=seat % 2)
            self._start_melds()
            return
        self.bid_turns += 1
        self.turn = (seat + 1) % 4
        if self.bid_turns == 4:
            # S8: the same dealer deals again; the deal counts as played and scores nothing
            self._emit("no_schut_redeal", seat=self.dealer)
            self._close_deal([0, 0])

    # ------------------------------------------------------------------ talk in play (S2, S7)
    def _talk(self) -> list[str]:
        if self.tout:
            return []
        side = self.turn % 2
        if side != self.schut_side:
            if self.herschut:
                return []
            out = []
            if self.ntricks < 7 or (self.ntricks == 7 and not self.tn):  # S2: before the last trick
                out.append(HERSCHUT)
            out.append(CONCEDE)  # S7: a defender may concede until Herschut
            return out
        if self.pending:
            return [TOUT, CONCEDE]
        return []

    def _play_actions(self) -> list[str]:
        return play_list(self._lmask) + self._talk()

    def _apply_talk(self, action: str) -> None:
        seat = self.turn
        side = seat % 2
        if action == HERSCHUT:
            self.herschut = True
            self.contract = side
            self.pending = True
            self._emit("herschut", seat=seat, side=side, trick_no=self.ntricks + 1)
            if self.run[side] >= 100:  # S10: the check runs at once; no decision for the Schutters
                self.pending = False
                self._contract_end(made=True)
        elif action == TOUT:
            self.tout = True
            self.pending = False
            self.contract = side
            self._emit("tout", seat=seat, side=side)
            if self.run[side] >= 100:
                self._contract_end(made=True)
        else:
            self._emit("conceded", seat=seat, side=side)
            other = 1 - side
            self._settle(other, 300 if self.herschut else 100)  # S7

    def _play(self, c: int) -> None:
        if self.pending and self.turn % 2 == self.schut_side:
            self.pending = False  # S2: the decision was to play on
        super()._play(c)

    # ------------------------------------------------------------------ contract (S4, S5, S9)
    def _check(self, side: int) -> bool:
        if self.run[self.contract] >= 100:
            self._contract_end(made=True)
            return True
        return False

    def _after_trick(self, taker: int) -> bool:
        if self._check(taker % 2):
            return True
        if self.ntricks == 8:
            self._contract_end(made=False)
            return True
        return False

    def _contract_end(self, made: bool) -> None:
        c = self.contract
        schut = self.schut_side
        other = 1 - schut
        if self.tout:
            winner, value = (c if made else 1 - c), 900  # S3: a lost Tout goes to the Herschutters
        elif self.herschut:
            if made:
                winner = c
                value = 400
                if self.run[schut] < 50:
                    value = 500
                    self._emit("under_jan", seat=None, side=schut, points=self.run[schut])
            else:
                winner, value = schut, 500  # regardless of onder jan
        elif made:
            winner, value = schut, 200
            if self.run[other] < 50:
                value = 300
                self._emit("under_jan", seat=None, side=other, points=self.run[other])
        else:
            winner, value = other, 100
            if self.run[schut] < 50:
                value = 200
                self._emit("under_jan", seat=None, side=schut, points=self.run[schut])
        self._emit("contract_made" if made else "contract_failed", seat=None, side=c,
                   points=self.run[c], winner=winner, value=value)
        self._settle(winner, value)

    def _settle(self, side: int, value: int) -> None:
        self.match[side] += value
        row = list(self.extra)
        row[side] += value
        self.dealer = (self.dealer + 1) % 4
        self._close_deal(row)

    def _no_winner(self) -> None:  # pragma: no cover - _after_trick settles the eighth trick
        self._contract_end(made=False)

    def _match_over(self) -> bool:
        return max(self.match) >= self.game.opts(SchutjassenOptions).target  # S6

    # ------------------------------------------------------------------ views
    def _observe(self, seat: int) -> dict[str, JSON]:
        obs = super()._observe(seat)
        obs.pop("carry_over")
        obs.pop("playing_on_for_pit")
        obs["schut_side"] = self.schut_side if self.schut_side >= 0 else None
        obs["contract_side"] = self.contract if self.contract >= 0 else None
        obs["herschut"] = self.herschut
        obs["tout"] = self.tout
        return obs


class Schutjassen(KruisjasGame):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "declare schut", "pass", "declare ANNOUNCEMENT", "declare herschut", "declare tout",
        "declare concede", "play CARD")

    id = "schutjassen"
    name = "Schutjassen"
    family = "jass"
    seed_ref = "seed 003, L149-166 (Schutjassen) with L168-212 (Kruisjassen)"
    summary = """
        Kruisjassen with bidding: after the deal a player who thinks his side
        makes 100 says Schut (nobody: redeal). The defenders may say Herschut
        during play and take the contract over; the Schutters may answer Tout
        (the deal is worth 900) or concede. Made: 200 (300 onder jan);
        failed: 100 to the others (200); Herschut made 400 (500); Herschut
        failed 500 to the Schutters. Concede after Schut: Schutters +100;
        after Herschut: Herschutters +300. First side to 1100.
    """
    notation = """
        declare schut | pass          bidding, one round from voorhand
        pass | declare AH KH QH + ...  meld round (as Kruisjassen)
        play QS                       play a card
        declare herschut              a defender takes the contract over
        declare tout                  the Schutters take it back after Herschut
        declare concede               give up the deal
    """
    min_players = 4
    max_players = 4
    default_players = 4
    teams = True
    rule_events = ("schut", "no_schut_redeal", "herschut", "tout", "conceded", "under_jan",
                   "contract_made", "contract_failed", "omboeren_result", "trump_turned",
                   "meld_announced", "meld_outbid", "meld_100_extra_hand", "stuk_on_play",
                   "trick_meld_claimed", "undertrump_blocked", "trump_instead_of_follow")
    options_spec = (
        Option("target", 1100, "S6: match points (100 per stroke) a side needs to win the match",
               check=lambda v: v > 0, max=110000),
        Option("wild_jas", False, "K18: the Jas as its holder's only trump is never forced out"),
    )
    options_type = SchutjassenOptions
    state_class = SchutjassenState
    tables = CardTables(state_class.TABLE.order, state_class.TABLE.points,
                        last_trick=state_class.TABLE.last_trick)


register(Schutjassen)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
