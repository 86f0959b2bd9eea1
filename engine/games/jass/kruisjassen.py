"""Kruisjassen (4 players, 2 against 2). Seed 003 L168-212; RULES.md 2.13 and "Common jass tables".
Decisions followed: K1-K18 (and X1-X6).

* 32 cards, "10 low" (:data:`engine.games.jass._jass.TEN_LOW`): trump J 20 > 9 14 > A 11 > K 3 > Q 2 >
  10 10 > 8 > 7; plain A 11 > K 3 > Q 2 > J 1 > 10 10 > 9 > 8 > 7; 5 for the last trick; 146.
  Partners sit opposite (0+2 against 1+3).
* K9 omboeren: before the first deal cards are dealt face up from seat 0 round the table, skipping
  seats that have a jack; the first seat to get a jack deals first (``omboeren_result``).
* Deal 4-4 from the dealer's left; the dealer's last card is turned for trump and stays his.
* Meld round (K11-K13): from voorhand, each player once: ``pass`` or ``declare`` one or more
  disjoint melds, strictly higher (more cards, then higher top card, then value) than every meld
  announced before.  K12: each run at its full length, never split; only where a carré of the same
  announcement takes one of its cards is it announced shorter (the longest piece left).
  K16: ``meld_outbid`` when an announcement beats the best meld so far and that was the other
  side's.  Melds: four jacks 200; four A, K or Q 100; runs of 3 = 20, 4 = 50, 5-8 = 100
  (natural order A K Q J 10 9 8 7).  Others see each meld's length and top card at once and its cards
  once trick 1 is complete.  K4: the side of the highest meld scores all melds its players announced:
  under 100 into its running total, each meld of 100 or more (K3) one extra won hand (+100 match
  points at once, outside the running total).
* Play (K6, K7, :data:`engine.games.jass._jass.KRUISJAS_RULE`): follow suit, but you may always trump
  instead; never a trump below one already in the trick (a hand of only trumps too, when one of
  them beats it); trump led: any trump.  K18 ``wild_jas``: the Jas as its holder's only trump is
  never forced out.
* K14 Stuk: 20 to the running total of a player who plays the first of trump K and Q holding the
  other (automatic).  K5/K16 roem in de slag: runs of 3/4 (20/50) in the trick's cards, Stuk (20)
  to the trick winner's running total; four A, K, Q or J in one trick an extra won hand (logged as
  ``trick_meld_claimed`` and ``meld_100_extra_hand``).
* K1 ik dek: after each trick and each Stuk a side whose running total (carry-over + melds + Stuk +
  trick melds + card points) reaches 100 wins the deal (both: the trick winner's side); unless it has
  lost no trick yet (``pit_play_on``): it then plays on until it loses a trick or takes all eight.
* K2 scoring: the winner scores its running total, doubled when the opponents are under 50 (onder
  jan); a pit scores 3 x (146 + every meld point of the deal + the pit side's carry-over) (K10: no
  onder jan); the losers' total is discarded.  Nobody at 100 after eight tricks: the same dealer
  deals again and both running totals carry over.  K8/K17: ``scores()`` are match points per seat
  (partners equal; strokes = points // 100); the match ends after the deal in which a side reaches
  ``target`` (1100 = 11 strokes).

Notation::

    pass                          no meld (meld round)
    declare AH KH QH + JS JH JD JC  announce melds, each given by its cards, melds joined by "+"
    play QS                       play a card

Rule events (``kruisjassen.<name>``): ``omboeren_result``, ``meld_announced``, ``meld_outbid``,
``meld_100_extra_hand``, ``stuk_on_play``, ``trick_meld_claimed``, ``ik_dek``, ``onder_jan``,
``pit_doormars``, ``no_100_carry_over``, ``undertrump_blocked``, ``trump_instead_of_follow``; also
``trump_turned(card, suit)`` each deal (for the log's invariant queries).

Injected deal (X6): ``{"dealer": 0, "hands": [[8 tokens] x 4]}`` plus optional ``"trump_card"``
(default: the dealer's last listed card); ``"carry": [a, b]`` sets the sides' carried-over totals.
Play starts at the meld round.
"""
from __future__ import annotations

from typing import ClassVar

from engine.core import CardTables, Option, register
from engine.games.jass._kruisjas import KruisjasGame, KruisjassenOptions, KruisjasState


class KruisjassenState(KruisjasState):
    def _other_actions(self) -> list[str]:  # pragma: no cover - Kruisjassen has no other phase
        raise AssertionError(f"no actions in phase {self.phase}")


class Kruisjassen(KruisjasGame):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "pass", "declare ANNOUNCEMENT", "play CARD")

    id = "kruisjassen"
    name = "Kruisjassen"
    family = "jass"
    seed_ref = "seed 003, L168-212 (Kruisjassen)"
    summary = """
        4 players, partners opposite; 32 cards, 10 low (trump J 9 A K Q 10 8 7;
        146 points with the last trick's 5). Omboeren picks the first dealer;
        deal 4-4, the dealer's last card shows trump. One meld round: each
        announcement must beat every earlier meld (more cards, then top card);
        the side with the highest meld scores all its melds (100+ = an extra
        won hand, +100). Follow suit, but you may always trump; never
        undertrump; trump led: any trump. Stuk 20 on play; roem in de slag to
        the trick winner. Ik dek at 100: the side scores its running total,
        doubled if the others are under 50; a pit (all tricks) triples.
        Nobody at 100: the totals carry over. First side to 1100 (11 strokes).
    """
    notation = """
        pass                          no meld (meld round)
        declare AH KH QH + JS JH JD JC  announce melds (cards of each, joined by +)
        play QS                       play a card
    """
    min_players = 4
    max_players = 4
    default_players = 4
    teams = True
    rule_events = ("omboeren_result", "meld_announced", "meld_outbid", "meld_100_extra_hand",
                   "stuk_on_play", "trick_meld_claimed", "ik_dek", "onder_jan", "pit_doormars",
                   "no_100_carry_over", "undertrump_blocked", "trump_instead_of_follow",
                   "trump_turned")
    options_spec = (
        Option("target", 1100, "K8/K17: match points (100 per stroke) a side needs to win the match",
               check=lambda v: v > 0, max=110000),
        Option("pit_play_on", True, "K1: a side at 100 that has lost no trick plays on for the pit "
               "(off: the deal always ends at ik dek)"),
        Option("wild_jas", False, "K18: the Jas as its holder's only trump is never forced out"),
    )
    options_type = KruisjassenOptions
    state_class = KruisjassenState
    tables = CardTables(state_class.TABLE.order, state_class.TABLE.points,
                        last_trick=state_class.TABLE.last_trick)


register(Kruisjassen)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
