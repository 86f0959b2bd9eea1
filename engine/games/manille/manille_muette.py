"""Manille Muette (4 players, 2 against 2, in silence). Seed 003 L56-79; RULES.md 2.9 and the
"Common rule for the manille family". Decisions followed: those of Manille Parlée (P3-P7; X1-X6),
without talk.

The game is Manille Parlée (:mod:`engine.games.manille.manille_parlee`) with no talk at all: 32 cards,
10 > A > K > Q > J > 9 > 8 > 7, card points 10=5 A=4 K=3 Q=2 J=1 plus one per trick (68 per
deal), 35 or more wins the deal; 8 cards each, four at a time; the dealer's last card is turned
up and fixes trump; voorhand leads; the family rule with partner exemption (void with no winning
trump: any card, seed L74; option ``no_losing_trump`` as in Parlée); the first side to win two
deals (``deals_to_win``) wins the match; 34-34 wins nobody; the deal passes to the left; seat 0
deals first; ``scores()`` are deals won, partners equal.  A ``declare`` action (talk) or ``trump X``
is an IllegalAction that says why.

Rule events (``manille_muette.<name>``): ``trump_card_exposed(card)``, ``deal_won(side, points)``,
``deal_tied_34``, and the family's ``overtake_forced``, ``overtrump_forced``,
``undertrump_blocked``, ``partner_exemption_used``, ``trick_point_awarded``.

Injected deal (X6): ``{"dealer": 0, "hands": [[8 tokens] x 4], "trump_card": "7H"}`` (without
``trump_card``, the dealer's last listed card); play starts at voorhand's first card.
"""
from __future__ import annotations

from typing import ClassVar

from engine.core import CardTables, Game, State, register
from engine.games.manille._parlee import PARLEE_PLAY_EVENTS, ParleeOptions, ParleeState, parlee_options
from engine.tricks import play_list


class MuetteState(ParleeState):
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "talk": None,
        "may_talk": None,
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    TALK: ClassVar[bool] = False

    def legal_actions(self) -> list[str]:
        """No talk: the plain play list, as ``ManilleState.legal_actions`` gives it, without calling
        through it (one Python frame per call less on the source: 5% of a random deal)."""
        m = self._lmask  # nonzero exactly while playing
        if m:
            return play_list(m)
        return State.legal_actions(self)


class ManilleMuette(Game):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "play CARD",)
    id = "manille_muette"
    name = "Manille Muette"
    family = "trick-taking (manille)"
    seed_ref = "seed 003 L56-79 (Manille Muette, 4 spelers)"
    summary = """
        Manille Parlée without talk.  4 players, partners opposite,
        clockwise; 32 cards, 10 (manille) > A > K > Q > J > 9 > 8 > 7; card
        points 10=5 A=4 K=3 Q=2 J=1 plus 1 per trick (68 per deal); 35 or
        more wins the deal.  8 cards each, 4 at a time; the dealer's last
        card is turned up and is trump.  Voorhand leads.  Follow suit; beat
        an opponent's winning card if you can; void while an opponent wins,
        a winning trump if you can, else any card; no duty while your
        partner wins.  First side to win two deals wins.
    """
    notation = """
        play QS             play a card to the trick (no talk, no trump naming)
    """
    min_players = 4
    max_players = 4
    default_players = 4
    rule_events = ("trump_card_exposed", *PARLEE_PLAY_EVENTS)
    teams = True
    options_spec = parlee_options("L74")
    options_type = ParleeOptions
    state_class = MuetteState
    tables = CardTables(state_class.ORDER, state_class.POINTS, state_class.TRICK_POINT)


register(ManilleMuette)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
