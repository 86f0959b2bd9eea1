"""Honderden / Smousjas, two players. Seed 003 L363-416; RULES.md 2.18 and the "Common jass
tables". Decisions followed: HO1-HO20 (and X1-X6). The machinery is in ``engine.games.jass._honderden``.

* 32 cards, "10 low" jass ranks: plain A K Q J 10 9 8 7, trump J 9 A K Q 10 8 7; points Jas 20,
  Nel 14, A 11, K 3, Q 2, other J 1, 10 10 (141 + 5 for the last trick).
* HO13: the first dealer is drawn from the seed (a cut); 9 cards each (3x3x3); the rest is the
  stock, its first card turned up for trump.  HO9: the non-dealer leads the first trick.
* HO15: ``swap 7X``: the holder of the trump 7 swaps it for the turned card, on any of his turns
  while the turned card lies by the stock, before his play (it does not use up the turn).
* Trick 1 is the meld trick (HO10, HO11, HO14): before playing his card a player may
  ``declare`` melds (the cards, highest first: ``declare QH JH TH`` is "3 op de vrouw",
  ``declare KC KD KH KS`` a carre), each run at its full length, one run per suit.  The opponent
  sees only "carre" or "3 op de vrouw" until the trick is complete; then all melds are shown.  A
  later declaration whose best meld beats an earlier declaration's best voids it
  (``meld_rejected``); comparison: more cards, then the higher top card, then a run in trump, else
  the earlier stands.  Melds worth 100 or more win a deal each (+1 game point at once,
  ``meld_100_deal_win``); smaller ones go to the running total.
* HO20: Stuk (trump K + Q) scores 20 automatically when its holder plays the first of them.
* HO19: tricks 1-7 need not follow suit; after each the winner draws the top stock card, then the
  other.  After trick 7 the winner chooses the last face-down card (``draw stock``) or the turned
  card (``draw 9H``); the other gets the remaining one, and the face-down card is shown (HO16).
  From trick 8 (stock empty): follow suit or trump instead; void, any card; trump led, a trump if
  you have one; never a duty to overtrump.  Last trick 5.
* HO12: ``declare dek`` ("ik dek") is offered on each of a player's play turns: right (running
  total >= 100, HO3) he wins the deal, wrong the opponent wins it.
* Played out: the player highest at or above 100 wins; equal totals at the top replay the deal
  from the carried totals (``tie_replay``); nobody at 100: the totals carry over and the same
  dealer deals again (``carry_over``).  After a won deal the other player deals.
* Game points: 1 per deal won, +1 if the loser is under 50 (``onder_jan``), +1 for a pit (all
  tricks, only in a deal played out, HO17).  Match: first to ``target`` (5, HO8).  Option
  ``lives`` = N (HO18): the loser of a deal loses as many lives as the winner's game points, a
  100-meld costs the opponent a life; the first to reach exactly 0 sits "op de kip" with one more
  life; below 0 (or 0 again) ends the match; ``scores()`` are then lives.
* HO7: observations show the own hand, the trick and the trick just completed, the melds, public
  cards (the taken turned card, the shown last stock card, shown melds), carried totals and game
  points; the deal's running totals and earlier tricks only with ``perfect_recall=True``.

Rule events (``honderden.<name>``): ``trump7_swap``, ``meld_announced``, ``meld_rejected``, ``stuk``,
``last_stock_choice``, ``phase_change`` (stock empty), ``ik_dek`` (result correct or false),
``meld_100_deal_win``, ``carry_over``, ``onder_jan``, ``pit``, ``op_de_kip``, ``tie_replay``.

Injected deal (X6): ``{"dealer": 0, "hands": [[9 tokens] x 2], "stock": [13 tokens, top first],
"upcard": "9H"}``; play starts at the first card.
"""
from __future__ import annotations

from typing import ClassVar

from engine.core import CardTables, Game, Option, register
from engine.games.jass._honderden import TABLE, Honderden2Options, HonderdenState
from engine.games.jass._jass import HONDERDEN_MELDS


class Honderden2State(HonderdenState):
    def _start_lives(self) -> int:
        return self.game.opts(Honderden2Options).lives or 0  # HO18: lives mode, off by default


class Honderden(Game):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "play CARD", "declare MELD", "declare dek", "swap 7SUIT", "draw stock", "draw CARD")

    def action_catalogue(self, form: str) -> list[str]:  # engine.rl: every meld of the pack
        from engine.rl.catalogues import deck_mask, single_melds
        return single_melds(deck_mask(self.tables.deck), (HONDERDEN_MELDS,))

    id = "honderden"
    name = "Honderden / Smousjas (2 players)"
    family = "jass (trick-and-draw)"
    seed_ref = "seed 003 L363-416"
    summary = """
        2 players, 32 cards, jass ranks (trump J 9 A K Q 10 8 7). 9 each, the
        stock's first card turned for trump (the trump 7 may swap it). Trick 1
        is the meld trick: declare carres and runs before you play; a higher
        meld of the follower voids the leader's; melds of 100+ win a deal at
        once. Stuk 20. While the stock lasts no need to follow; winner draws
        first. Then follow suit or trump; trump led, play trump. Claim "ik
        dek" at 100 (wrong: the opponent wins). Game points: 1 a deal, +1
        loser under 50, +1 pit; first to 5.
    """
    notation = """
        play QS             play a card to the trick
        declare QH JH TH    trick 1: announce a meld (its cards, highest first), then play
        declare dek         "ik dek": claim 100 points (right: you win the deal)
        swap 7H             swap the trump 7 for the turned trump card
        draw stock          after trick 7: take the last face-down card ...
        draw 9H             ... or the turned trump card
    """
    min_players = 2
    max_players = 2
    default_players = 2
    rule_events = ("trump7_swap", "meld_announced", "meld_rejected", "stuk", "last_stock_choice",
                   "phase_change", "ik_dek", "meld_100_deal_win", "carry_over", "onder_jan", "pit",
                   "op_de_kip", "tie_replay")
    extra_verbs: ClassVar[dict[str, tuple[str, str]]] = {"swap": ("cards1", "swap 7H")}
    options_spec = (
        Option("target", 5, "HO8: the first player to this many game points wins the match",
               check=lambda v: v > 0, max=500),
        Option("lives", None, "HO18: lives bookkeeping with N lives each (None: game points)",
               check=lambda v: v > 0, kind=int, max=100),
        Option("perfect_recall", False, "HO7: observations also show the deal's running totals "
               "and earlier tricks (for bots)"),
    )
    options_type = Honderden2Options
    state_class = Honderden2State
    tables = CardTables(TABLE.order, TABLE.points, last_trick=TABLE.last_trick)


register(Honderden)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
