"""Klop / Bela, 3 players. Seed 003 L318-320 ("Speelt hetzelfde, er zijn minder verborgen kaarten.
Spelers spreken en spelen om de beurt, met de klok mee"); RULES.md 2.16, with everything of 2.15
(``klop_bela``: KB1-KB16).  Decisions followed: KT1-KT5.  The game is :class:`KlopState` in
``engine/games/jass/_bela.py``.

* 3 players clockwise: 6 + 3 = 9 cards each, one turned card, 4 cards out of play (plus the
  turned card unless swapped).  Bidding and play clockwise from voorhand (left of the dealer).
* KT1: each defender scores his own points; the maker must have more than each defender, else his
  points go to the defender with the higher total (equal: split, rounded down).
* KT2: the best sequence among all three scores.  KT3: the winner of the deal deals next (the maker
  if he made it, else the defender with the higher total).  KT4: other ties are broken by play
  order from voorhand.  KT5: a right claim ranks the claimer first, a wrong one last; the other
  two by their totals.
* Option ``schmeiss``: the player after the schmeisser chooses.

Notation, options and rule events (``klop_bela_3p.<name>``) as ``klop_bela``.
Injected deal (X6): ``{"dealer": 0, "hands": [[6 tokens] x 3], "upcard": "9H", "stock": [...]}``.
"""
from __future__ import annotations

from typing import ClassVar

from engine.core import CardTables, Game, register
from engine.games.jass._bela import KLOP_EVENTS, KLOP_NOTATION, KlopOptions, KlopState, klop_options


class KlopBela3p(Game):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "trump SUIT", "pass", "declare swap", "declare claim", "declare schmeiss", "declare accept",
        "declare refuse", "play CARD")
    id = "klop_bela_3p"
    name = "Klop / Bela, 3 players"
    family = "jass"
    seed_ref = "seed 003 L318-320 (Klop, 3 spelers)"
    summary = """
        Klop / Bela for 3 players clockwise: 9 cards each, one turned card,
        4 cards out of play. As klop_bela; each defender scores his own
        points; the maker must beat each defender, else his points go to the
        defender with the higher total (tie: split). First over 500 wins.
    """
    notation = KLOP_NOTATION
    min_players = 3
    max_players = 3
    default_players = 3
    rule_events = KLOP_EVENTS
    options_spec = klop_options(500)
    options_type = KlopOptions
    state_class = KlopState
    tables = CardTables(state_class.TABLE.order, state_class.TABLE.points,
                        last_trick=state_class.TABLE.last_trick)


register(KlopBela3p)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
