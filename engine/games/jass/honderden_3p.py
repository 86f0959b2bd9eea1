"""Honderden, three players. Seed 003 L417-434 (with the two-player rules of L363-416); RULES.md
2.19, the ``honderden`` card and the "Common jass tables". Decisions followed: HT1-HT9, and HO1,
HO2, HO3, HO5, HO7, HO10, HO14, HO20 of ``honderden`` (and X1-X6).  The machinery is in
``engine.games.jass._honderden``.

* 24 cards (A K Q J 10 9 in each suit), 8 each (3-3-2), no stock.  HT8: the dealer's last card is
  turned for trump and stays in his hand (everyone knows he holds it); no trump-7 swap.  The first
  dealer is drawn from the seed (the cut of 003:L372); the deal rotates; voorhand leads.
* Melds only in the first trick, as with two players (``declare`` with the cards, highest first,
  before playing the card): HT5: any later declarer rejects every earlier declaration whose best
  meld his best meld beats (equal: the earlier stands).  Melds of 100 or more win a deal each
  (+1 game point at once); smaller ones go to the running total.  Stuk (trump K + Q) scores 20
  when its holder plays the first of them.
* Play (every trick): follow suit, but you may always trump instead; trump led, a trump if you
  have one; HT9: void, any card; never a duty to overtrump.  Last trick 5.
* HT3: ``declare dek`` is offered on each of his turns to a player who holds trump K and Q, or
  played one of them holding both (``dek_via_stuk``); right if his running total with the 20 of Stuk
  is >= 100: he wins the deal.  A dek with the Stuk still in hand announces it (``stuk``): its 20 go
  into his running total, right or wrong, so they count for onder jan.  HT6: wrong, the deal goes to
  the other player with the higher running total (equal: the next in play order after the claimer).
  HT2: without a dek the deal is played out; the player highest at or above 100 wins (equal at the
  top: ``tie_replay`` by the same dealer from the carried totals); nobody at 100: the totals carry
  over and the next dealer deals (``carry_over``).
* Game points: 1; 2 if both others are under 50 (HT1, ``double_both_under_jan``); HT7: a pit in a
  deal without carried totals is worth 3 in all (``pit``), in a continuation deal it is ignored
  (``pit_first_deal_only``).  HT4: first to ``target`` (5) game points; option ``elimination``:
  each player has ``lives`` lives, each loser of a deal loses the winner's game points (a 100-meld
  costs each other player one); a player at 0 or below is out; with two left the match goes on
  under the two-player rules (``switch_to_2p``; 32 cards and the stock, the kip of HO18).
  ``scores()`` are game points, or lives with ``elimination``.

Rule events (``honderden_3p.<name>``): those of ``honderden`` (``meld_announced``,
``meld_rejected``, ``stuk``, ``meld_100_deal_win``, ``carry_over``, ``onder_jan``, ``pit``,
``tie_replay``; after ``switch_to_2p`` also ``trump7_swap``, ``last_stock_choice``,
``phase_change``, ``ik_dek``, ``op_de_kip``), plus ``dek_via_stuk``, ``double_both_under_jan``,
``pit_first_deal_only``, ``switch_to_2p``.

Injected deal (X6): ``{"dealer": 0, "hands": [[8 tokens] x 3], "trump_card": "9H"}`` (without
``trump_card``, the dealer's last listed card); play starts at the first card.
"""
from __future__ import annotations

from typing import ClassVar

from engine.cards import TOKENS
from engine.core import CardTables, Game, Option, register
from engine.games.jass._honderden import (
    DECK24,
    DECK32,
    HONDERDEN_MELDS,
    TABLE,
    Honderden3Options,
    HonderdenState,
)


class Honderden3State(HonderdenState):
    def _start_lives(self) -> int:
        opts = self.game.opts(Honderden3Options)
        return opts.lives if opts.elimination else 0  # HT4: elimination option


class Honderden3p(Game):
    def action_catalogue(self, form: str) -> list[str]:
        # engine.rl: the 32-card pack of switch_to_2p, every meld of it
        from engine.rl.catalogues import deck_mask, single_melds
        deck = [TOKENS[c] for c in range(52) if DECK32 >> c & 1]
        return deck if "DECK" in form else single_melds(deck_mask(deck), (HONDERDEN_MELDS,))

    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "play DECK", "declare MELD", "declare dek", "swap 7SUIT", "draw stock", "draw DECK")
    id = "honderden_3p"
    name = "Honderden (3 players)"
    family = "jass"
    seed_ref = "seed 003 L417-434 (and L363-416)"
    summary = """
        3 players, 24 cards (A-9), 8 each, no stock; the dealer's last card
        is trump and stays his. Melds in trick 1 (declare before you play; a
        later, higher declaration rejects an earlier one; 100+ melds win a
        deal at once); Stuk 20. Follow suit or trump; trump led, play trump;
        void, anything. Early end only via Stuk (declare dek). Highest at
        100+ wins the deal; under 100 the totals carry over and the deal
        rotates. 1 game point, 2 if both others are under 50, a pit in a
        first deal 3. First to 5 (or elimination, then 2-player rules).
    """
    notation = """
        play QS             play a card to the trick
        declare QH JH TH    trick 1: announce a meld (its cards, highest first), then play
        declare dek         claim 100 with Stuk (trump K and Q)
        swap 7H / draw stock / draw 9H   after switch_to_2p: the two-player actions
    """
    min_players = 3
    max_players = 3
    default_players = 3
    rule_events = ("trump7_swap", "meld_announced", "meld_rejected", "stuk", "last_stock_choice",
                   "phase_change", "ik_dek", "meld_100_deal_win", "carry_over", "onder_jan", "pit",
                   "op_de_kip", "tie_replay", "dek_via_stuk", "double_both_under_jan",
                   "pit_first_deal_only", "switch_to_2p")
    extra_verbs: ClassVar[dict[str, tuple[str, str]]] = {"swap": ("cards1", "swap 7H")}
    options_spec = (
        Option("target", 5, "HT4: the first player to this many game points wins the match",
               check=lambda v: v > 0, max=500),
        Option("elimination", False, "HT4: play by elimination with lives; with two players left "
               "the match continues under the two-player rules"),
        Option("lives", 5, "HT4: lives each player starts with under elimination",
               check=lambda v: v > 0, max=100),
        Option("perfect_recall", False, "HO7: observations also show the deal's running totals "
               "and earlier tricks (for bots)"),
    )
    options_type = Honderden3Options
    state_class = Honderden3State
    tables = CardTables(TABLE.order, TABLE.points, last_trick=TABLE.last_trick).only(DECK24)  # 24 cards, A-9


register(Honderden3p)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
