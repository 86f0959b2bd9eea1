"""Manille Parlée (4 players, 2 against 2, with talk). Seed 003 L31-54; RULES.md 2.8 and the
"Common rule for the manille family". Decisions followed: P1-P7 (and X1-X6).

* 32 cards (7-A); in every suit 10 "manille" (5) > A "manillon" (4) > K (3) > Q (2) > J (1) > 9 > 8
  > 7; one point per trick on top: 60 + 8 = 68 per deal.  A side with 35 or more wins the deal.
* Deal 8 each, four at a time from the dealer's left.  The dealer's last card is dealt face up and
  fixes trump (``trump_card_exposed``); it belongs to his hand and is taken up once the first card
  is played (observation ``trump_card_on_table``).  An injected deal may name it with
  ``"trump_card"``; otherwise it is the dealer's last listed card.  Nobody names trump: ``trump X``
  is an IllegalAction.
* Voorhand (left of the dealer) leads; the family rule with partner exemption applies (void while
  an opponent wins and no trump of yours wins: any card, L50 "dan mag je bijgooien wat je wilt";
  option ``no_losing_trump``, default off, bars a losing trump unless only trumps are held).
* The match is won by the first side to win ``deals_to_win`` (2) deals.  P3: 34-34 wins nobody
  (the deal still counts for ``max_deals``).  P4: no bonus for the turned card.  P5: the deal
  passes to the left.  P7: ``scores()`` are deals won, partners equal.  X1: seat 0 deals first.

Talk (P1, P2). Immediately before playing his card to a trick, each player may speak once in that
trick (option ``talk_by="leader"``: only the player who plays the trick's first card, a literal
reading of the seed's "vlak voordat je de eerste kaart speelt aan de slag"): ask his partner one
question, or state one fact about his own hand. Talk does not use up the turn: while a player may
still talk, his legal actions are his plays plus the talk actions; a talk action is answered at
once and the same player then plays. The engine gives the truthful answer from the actual hand;
question and answer are public (the ``talk`` list of every seat's observation).  The vocabulary
(``declare`` actions):

====================================  =====================================================
``declare ask count S``               partner, how many spades do you hold?  -> ``"0"``..``"8"``
``declare ask highest S``             partner, what is your highest spade?   -> ``"TS"`` / ``"none"``
``declare ask has AS``                partner, do you hold the ace of spades? -> ``"yes"`` / ``"no"``
``declare ask trumps``                partner, do you hold a trump?          -> ``"yes"`` / ``"no"``
``declare tell count S``              I hold this many spades                -> ``"0"``..``"8"``
``declare tell highest S``            my highest spade is ...                -> ``"TS"`` / ``"none"``
``declare tell has AS``               I hold the ace of spades (cards in hand only) -> ``"yes"``
``declare tell trumps``               whether I hold a trump                 -> ``"yes"`` / ``"no"``
====================================  =====================================================

``ask has`` is offered for the cards whose place the asker does not know (not in his hand, not
played, not publicly placed).  A talk record is ``{"trick", "seat", "kind": "ask"|"tell",
"topic": "count"|"highest"|"has"|"trumps", "suit", "rank", "about": seat answering, "answer"}``;
the asked card is given by ``rank`` and ``suit`` (a question does not show where a card is).

Rule events (``manille_parlee.<name>``): ``trump_card_exposed(card)``, ``question_asked(type)``,
``info_revealed(type)``, ``deal_won(side, points)``, ``deal_tied_34``, and the family's
``overtake_forced``, ``overtrump_forced``, ``undertrump_blocked``, ``partner_exemption_used``,
``trick_point_awarded`` (see ``engine.games.manille._manille``).

``determinize`` keeps the turned card with the dealer and uses the answers: cards said to be held
stay put, cards said or shown (by the plays) to be absent go elsewhere, and suit counts are met
by rejection sampling.

Manille Muette (``manille_muette``) is this game without talk (same class, ``TALK = False``).
"""
from __future__ import annotations

from typing import ClassVar

from engine.core import CardTables, Game, Option, register
from engine.games.manille._parlee import PARLEE_PLAY_EVENTS, ManilleParleeOptions, ParleeState, parlee_options


class ManilleParlee(Game):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "play CARD", "declare ask count SUIT", "declare ask highest SUIT", "declare ask has CARD",
        "declare ask trumps", "declare tell count SUIT", "declare tell highest SUIT",
        "declare tell has CARD", "declare tell trumps")
    id = "manille_parlee"
    name = "Manille Parlée"
    family = "trick-taking (manille)"
    seed_ref = "seed 003 L31-54 (Manille Parlée, 4 spelers)"
    summary = """
        4 players, partners opposite, clockwise; 32 cards, 10 (manille) > A
        > K > Q > J > 9 > 8 > 7. Card points 10=5 A=4 K=3 Q=2 J=1, plus 1
        per trick: 68 per deal; 35 or more wins the deal. 8 cards each, 4 at
        a time; the dealer's last card is turned up and is trump. Voorhand
        leads.  Follow suit; beat an opponent's winning card if you can;
        void while an opponent wins, a winning trump if you can, else any
        card; no duty while your partner wins.
        Talk: once per trick, just before his card, a player may ask his
        partner one question or state one fact about his own hand, from a
        fixed public vocabulary; the engine answers truthfully for everyone
        to hear.  The first side to win two deals wins (34-34: nobody).
    """
    notation = """
        play QS                 play a card to the trick
        declare ask count S     partner, how many spades?       -> "0".."8"
        declare ask highest S   partner, your highest spade?    -> "TS" / "none"
        declare ask has AS      partner, do you hold AS?        -> "yes" / "no"
        declare ask trumps      partner, do you hold a trump?   -> "yes" / "no"
        declare tell count S    I hold this many spades         -> "0".."8"
        declare tell highest S  my highest spade is             -> "TS" / "none"
        declare tell has AS     I hold AS (cards in your hand)  -> "yes"
        declare tell trumps     whether I hold a trump          -> "yes" / "no"
        At most one declare per player per trick, before his card; it does not
        use the turn.  Question and answer are in every observation ("talk").
    """
    min_players = 4
    max_players = 4
    default_players = 4
    rule_events = ("trump_card_exposed", "question_asked", "info_revealed", *PARLEE_PLAY_EVENTS)
    teams = True
    options_spec = (
        Option("talk_by", "each", "P2: 'each': every player may talk once per trick before his card; "
               "'leader': only the player who plays the trick's first card (the seed's literal "
               "'vlak voordat je de eerste kaart speelt aan de slag')", choices=("each", "leader")),
        *parlee_options("L50"),
    )
    options_type = ManilleParleeOptions
    state_class = ParleeState
    tables = CardTables(state_class.ORDER, state_class.POINTS, state_class.TRICK_POINT)


register(ManilleParlee)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
