"""Klop / Bela / Clobyosh, 2 players. Seed 003 L264-317; RULES.md 2.15 and "Common jass tables"
("10 high"). Decisions followed: KB1-KB16 (and X1-X6).  The game is :class:`KlopState` in
``engine/games/jass/_bela.py`` (shared with ``klop_bela_3p``).

* 32 cards.  Trump J 20 > 9 14 > A 11 > 10 10 > K 4 > Q 3 > 8 > 7; plain A 11 > 10 10 > K 4 > Q 3 >
  J 2 > 9 > 8 > 7; 10 for the last trick (162 with the whole deck; 14 cards stay out of play).
* KB4: the first dealer is drawn from the seed; the winner of a deal deals the next.  6 cards each,
  the next card is turned.  Round 1 from voorhand (the non-dealer): ``trump X`` (X the turned suit:
  "ik speel") or ``pass``; the first acceptance ends it (KB12).  Then 3 more cards each.  If both
  passed, round 2 from voorhand: ``trump X`` for any other suit, or ``pass``; both pass again: the
  same dealer deals again (the deal counts, scores nothing).  KB8: the maker is who accepted or named.
* Trump-7 swap: in the turned suit, the holder of the trump 7 ``declare swap`` (takes the turned
  card, the 7 lies face up out of play) or ``pass``.
* Play (KB5: voorhand leads): follow suit; void, trump (any trump, KB11); trump led, beat the highest
  trump if able.  KB10: the Jas as its holder's only trump need never be played (``jas_held_back``).
* Melds (KB1, KB2, KB6, automatic): after the first trick the player with the best sequence
  (longer, higher top card, trump, then voorhand) scores all his sequences: 3 cards 20, 4 or more
  50, and they are shown.  KB9: Bela (K+Q of trump) 20, automatic: ``stuk`` on the first, ``en_brok``
  on the second.  Melds count only for a player who takes a trick (``meld_void_no_trick``).
* Scoring: the defender scores his melds + card points; the maker only if his total is higher
  (KB3: a tie fails), else he goes wet (``maker_wet``) and his points go to the defender.
* KB7: ``declare claim`` is offered on a player's turn in play once his match score + this deal's
  melds + card points taken pass the target; right (melds counted only after a trick taken): the
  deal stops, both add the points so far and he wins; wrong: he loses the match.  KB13: otherwise
  the match ends after a deal with one player above 500 with the higher total.
* Options: ``no_jas_holdback``, ``no_meld_finish`` (no claim), ``schots`` (KB16), ``schmeiss`` (KB15:
  ``declare schmeiss`` in round 1, the other answers ``declare accept`` or ``declare refuse``),
  ``tie_keeps`` (KB3's pagat variation: on a tie the maker keeps his points).

Rule events (``klop_bela.<name>``): ``accept``, ``pass``, ``second_round_trump``, ``redeal_all_pass``,
``trump7_swap``, ``sequence_meld``, ``stuk``, ``en_brok``, ``jas_held_back``, ``maker_wet``,
``meld_void_no_trick``, ``claim_500_midhand``, ``schmeiss``.

Injected deal (X6): ``{"dealer": 0, "hands": [[6 tokens], [6 tokens]], "upcard": "9H",
"stock": [top first: voorhand's 3 extra cards, the dealer's 3, ...]}``; play starts at the bidding.
"""
from __future__ import annotations

from typing import ClassVar

from engine.core import CardTables, Game, register
from engine.games.jass._bela import KLOP_EVENTS, KLOP_NOTATION, KlopOptions, KlopState, klop_options


class KlopBela(Game):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "trump SUIT", "pass", "declare swap", "declare claim", "declare schmeiss", "declare accept",
        "declare refuse", "play CARD")
    id = "klop_bela"
    name = "Klop / Bela / Clobyosh (2 players)"
    family = "jass"
    seed_ref = "seed 003 L264-317 (Klop / Clobyosh / Bela)"
    summary = """
        2 players, 32 cards, 10 high (trump J 20, 9 14, A 11, 10 10, K 4, Q 3;
        plain A 11, 10 10, K 4, Q 3, J 2; last trick 10). 6 cards each and a
        turned card: accept it or pass; 3 more cards each; if both passed,
        name another suit or pass (both pass: redeal). The trump 7 may be
        swapped for the turned card. Follow suit, trump when void, overtrump
        on a trump lead; the bare Jas may be held back. Sequences (3 = 20,
        4+ = 50) go to the best one after trick 1; Bela 20; melds count only
        with a trick. The maker must score more, else all goes to the
        defender. First over 500 wins; a claim mid-deal is possible.
    """
    notation = KLOP_NOTATION
    min_players = 2
    max_players = 2
    default_players = 2
    rule_events = KLOP_EVENTS
    extra_verbs: ClassVar[dict[str, tuple[str, str]]] = {}
    options_spec = klop_options(500)
    options_type = KlopOptions
    state_class = KlopState
    tables = CardTables(state_class.TABLE.order, state_class.TABLE.points,
                        last_trick=state_class.TABLE.last_trick)


register(KlopBela)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
