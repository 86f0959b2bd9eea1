"""Wildcard Rummy.  Seed 003 L603-630; RULES.md 2.24 and "Common rummy definitions".  Decisions
followed: WR1-WR8, X1, X3, X6, X7 (no cap
on re-forming, but see ``max_reforms``).

2-7 players; one 54-card pack (two jokers) for 2-6 players, two packs for 7 (WR1, option
``packs``).  Deal: one pack: 7 each (6 players: 6; 3 players: 7, WR2, option ``three_player_cards``
10); two packs: 10 each.  The rest is the stock, one card turned for the discard pile.  Seat 0
deals first (X1); the deal passes left.

Nothing is melded during play; hands stay hidden.  Melds: 3+ cards, sets of one rank (one card per
suit, at most 4) or runs of one suit; the ace high or low, never both (no K-A-2); jokers and 2s
are wild, and a 2 may also stand for itself, then as a natural (WR8); every meld holds a natural
card (WR5).

A turn (notation):

* ``draw stock`` or ``draw discard``;
* ``pass`` or a form of going out, offered only when the player can go out now (WR7, every
  form that is possible): ``knock`` (he says "rummy") when all his cards meld (out at once, without
  a discard), and ``knock XX`` for each card XX whose discard leaves all his other cards melded
  (never the card taken from the discard pile this turn, nor one identical to it), also when the
  whole hand melds;
* ``discard XX`` (after ``pass``): never the card taken from the discard pile this turn, nor one
  identical to it.

When the stock is empty after a draw, the discard pile but its top card is turned over, unshuffled,
as the new stock (``stock_flipped``; option ``reshuffle``: shuffled).  If a turn begins with no
stock and none can be formed, the deal ends with no winner (X7, ``deal_without_winner``).

Scoring: the winner collects the penalty value of the cards each other player cannot meld from his
own hand (WR3; ``penalty_collected``): pips face value, J Q K 10, A 11, jokers and 2s 25 (WR4: a 2
left in hand is 25 even as a natural).  ``wild_two_used`` when the winner's cards meld only with a
2 as a wild card.  First to ``target`` (100, WR6) wins.


Safety net (engine defaults, not in the card): X7 puts no cap on re-forming the stock here, but a
turned-over stock and deterministic players can repeat a deal for ever (four greedy bots do in
Cincinnati Rummy), so option ``max_reforms`` (30; ``None`` = X7's no cap) ends a deal whose stock
would be re-formed a 31st time as a deal without winner (nobody scores), and option
``deal_cap`` (50) ends a match that has found no winner by then.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, cast

from engine.cards import PHYS, TOKENS, bits, value_table
from engine.core import NO_CARD_TABLES, register
from engine.deadwood import MeldSpec, Solver
from engine.games.rummy._knock import (
    OUT_VERBS,
    ConfrontationGame,
    OneWinnerOptions,
    OneWinnerState,
    one_winner_options,
)

VALUES = value_table(ace=11, joker=25, two=25)  # WR4
WILD = 25


@dataclass(frozen=True)
class WildcardRummyOptions(OneWinnerOptions):
    """Wildcard Rummy's options (``WildcardRummy.options_spec``: :func:`one_winner_options`), typed."""


class WildcardRummyState(OneWinnerState):
    packs_rule: ClassVar[str] = "WR1"
    scores_word: ClassVar[str] = "collects"

    def _deal_points(self, seat: int, discard: int | None, shown: tuple[list[list[str]], list[list[str]],
                     list[list[str]], list[int]]) -> list[int]:
        n = self.players
        hands, melds, dead, dw = shown
        self._emit("rummy_declared", seat=seat, discard=None if discard is None else TOKENS[discard],
                   hands=hands, melds=melds, deadwood_cards=dead, penalties=dw)
        # WR8: the winner's cards meld only with a 2 standing as a wild card
        if cast(WildcardRummy, self.game).natural_twos.deadwood(bits(self.hands[seat])) > 0:
            self._emit("wild_two_used", seat=seat, melds=melds[seat])
        pts = [0] * n
        pts[seat] = sum(dw[s] for s in range(n) if s != seat)
        self._emit("penalty_collected", seat=seat, points=pts[seat],
                   penalties={str(s): dw[s] for s in range(n) if s != seat})
        return pts

    def _winner_invariants(self, last: dict[str, Any], w: int) -> list[str]:
        pen = [sum(VALUES[PHYS[tok][0]] for tok in d) for d in last["deadwood_cards"]]
        if pen != last["penalties"]:
            return [f"penalties {last['penalties']} do not add up to {pen}"]
        return []


class WildcardRummy(ConfrontationGame):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "draw stock", "draw discard", "knock", "knock CARD|JK", "pass", "discard CARD|JK")
    id = "wildcard_rummy"
    name = "Wildcard Rummy"
    family = "rummy"
    seed_ref = "seed 003 L603-630; RULES.md 2.24"
    summary = ("2-7 players, one 54-card pack (two for 7 players), 7 cards each (6 players: 6; two "
               "packs: 10). Draw from the stock or the discard pile, discard another card than the one "
               "taken; nothing is melded during play. Jokers and 2s are wild; aces high or low. Knock (say "
               "rummy) when all your cards meld (or all but the discard): you collect the others' "
               "unmelded cards (pips face, faces 10, A 11, jokers and 2s 25). First to 100.")
    notation = "draw stock\ndraw discard\nknock\nknock 5H\npass\ndiscard 5H"
    min_players = 2
    max_players = 7
    default_players = 4
    rule_events = ("rummy_declared", "stock_flipped", "wild_two_used", "penalty_collected",
                   "deal_without_winner")
    extra_verbs: ClassVar[dict[str, tuple[str, str]]] = OUT_VERBS  # WR7: knock, knock XX
    options_spec = one_winner_options("WR1", "WR2", "WR6")
    options_type = WildcardRummyOptions
    state_class = WildcardRummyState
    tables = NO_CARD_TABLES  # no tricks, no card points

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.natural_twos = Solver(MeldSpec(ace_low=True, ace_high=True, wild_twos=False), [1] * 54, 1)

    def make_solver(self) -> Solver:
        return Solver(MeldSpec(ace_low=True, ace_high=True, wild_twos=True), VALUES, WILD)


register(WildcardRummy)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
