"""Cincinnati Rummy.  Seed 003 L715-742 (the scoring is L742, the file's last line); RULES.md 2.28
and "Common rummy definitions".  Decisions followed: CR1-CR3, X1, X3, X6, X7 (no cap on
re-forming, but see ``max_reforms``).

2-7 players; packs and deal as Wildcard Rummy (CR3 = WR1, WR2): one 54-card pack for 2-6 players,
two for 7 (option ``packs``); one pack: 7 each (6 players: 6; 3 players: 7, option
``three_player_cards`` 10); two packs: 10 each.  Seat 0 deals first (X1); the deal passes left.

Nothing is melded during play; hands stay hidden.  Melds: 3+ cards, sets of one rank (one card per
suit, at most 4) or runs of one suit; the ace high or low, never both; jokers wild (2s are not),
every meld holds a natural card.

A turn (notation):

* ``draw stock`` or ``draw discard``;
* ``pass`` or a form of going out, offered only when the player can go out now (CR4, every
  form that is possible): ``knock`` (he says "rummy") when all his cards meld (out at once, without
  a discard), and ``knock XX`` for each card XX whose discard leaves all his other cards melded
  (never the card taken from the discard pile this turn, nor one identical to it), also when the
  whole hand melds;
* ``discard XX`` (after ``pass``): never the card taken from the discard pile this turn, nor one
  identical to it.

Stock exhausted: the discard pile but its top card is turned over, unshuffled (``stock_flipped``;
option ``reshuffle``).  A turn that begins with no stock and none to form ends the deal with no
winner (X7, ``deal_without_winner``).

Scoring (CR1): the winner scores the value of the cards in his own combinations: pips face value (a
2 is 2), J Q K 10, A 11, joker 15; a final discard counts for nothing; the others score nothing
(``went_out_all_at_once``).  Option ``scoring="penalties"``: the winner collects the others'
unmelded cards instead, as in Wildcard Rummy (joker 25).  First to ``target`` (100, CR2) wins.


Safety net (engine defaults, not in the card): X7 puts no cap on re-forming the stock here, but a
turned-over stock and deterministic players can repeat a deal for ever (four greedy bots do in
Cincinnati Rummy), so option ``max_reforms`` (30; ``None`` = X7's no cap) ends a deal whose stock
would be re-formed a 31st time as a deal without winner (nobody scores), and option
``deal_cap`` (50) ends a match that has found no winner by then.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards import PHYS, TOKENS, bits, value_table
from engine.core import NO_CARD_TABLES, Option, register
from engine.deadwood import MeldSpec, Solver
from engine.games.rummy._knock import (
    OUT_VERBS,
    ConfrontationGame,
    OneWinnerOptions,
    OneWinnerState,
    one_winner_options,
)

COMBO_VALUES = value_table(ace=11, joker=15)  # CR1
PENALTY_VALUES = value_table(ace=11, joker=25)  # CR1 option "penalties"


@dataclass(frozen=True)
class CincinnatiRummyOptions(OneWinnerOptions):
    """Cincinnati Rummy's options (``CincinnatiRummy.options_spec``), typed."""

    scoring: str = "combinations"


class CincinnatiRummyState(OneWinnerState):
    packs_rule: ClassVar[str] = "CR3"
    scores_word: ClassVar[str] = "scores"

    def _deal_points(self, seat: int, discard: int | None, shown: tuple[list[list[str]], list[list[str]],
                     list[list[str]], list[int]]) -> list[int]:
        n = self.players
        hands, melds, dead, dw = shown
        pts = [0] * n
        if self.game.opts(CincinnatiRummyOptions).scoring == "combinations":
            # CR1: the value of the winner's own combinations (every card he keeps)
            pts[seat] = sum(COMBO_VALUES[c] for c in bits(self.hands[seat]))
        else:
            pts[seat] = sum(dw[s] for s in range(n) if s != seat)
        self._emit("went_out_all_at_once", seat=seat, discard=None if discard is None else TOKENS[discard],
                   points=pts[seat], hands=hands, melds=melds, deadwood_cards=dead, penalties=dw)
        return pts

    def _winner_invariants(self, last: dict[str, Any], w: int) -> list[str]:
        if self.game.opts(CincinnatiRummyOptions).scoring == "combinations":
            v = sum(COMBO_VALUES[PHYS[tok][0]] for tok in last["hands"][w])
            if v != last["points"][w]:
                return [f"winner {w} scored {last['points'][w]}, his combinations are worth {v}"]
        return []


class CincinnatiRummy(ConfrontationGame):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "draw stock", "draw discard", "knock", "knock CARD|JK", "pass", "discard CARD|JK")
    id = "cincinnati_rummy"
    name = "Cincinnati Rummy"
    family = "rummy"
    seed_ref = "seed 003 L715-742; RULES.md 2.28"
    summary = ("2-7 players, one 54-card pack (two for 7 players), 7 cards each (6 players: 6; two "
               "packs: 10). Draw from the stock or the discard pile, discard another card than the one "
               "taken; nothing is melded during play. Go out only all at once, every card in sets or "
               "runs (jokers wild, aces high or low), with or without a final discard (knock): you score the "
               "value of your own combinations (pips face, faces 10, A 11, joker 15). First to 100.")
    notation = "draw stock\ndraw discard\nknock\nknock 5H\npass\ndiscard 5H"
    min_players = 2
    max_players = 7
    default_players = 2
    rule_events = ("went_out_all_at_once", "stock_flipped", "deal_without_winner")
    extra_verbs: ClassVar[dict[str, tuple[str, str]]] = OUT_VERBS  # CR4: knock, knock XX
    options_spec = (
        Option("scoring", "combinations", "CR1: 'combinations' (the winner's own melds) or 'penalties' "
               "(the others' unmelded cards, joker 25)", choices=("combinations", "penalties")),
        *one_winner_options("CR3/WR1", "CR3/WR2", "CR2"),
    )
    options_type = CincinnatiRummyOptions
    state_class = CincinnatiRummyState
    tables = NO_CARD_TABLES  # no tricks, no card points

    def make_solver(self) -> Solver:
        return Solver(MeldSpec(ace_low=True, ace_high=True, wild_twos=False), PENALTY_VALUES, 25)


register(CincinnatiRummy)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
