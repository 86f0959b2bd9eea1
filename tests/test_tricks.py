"""The shared trick machinery: the manille family's legal-move rule (RULES.md "Common rule for the
manille family") with its parameters, the public inferences drawn from a play, and rank tables."""
from __future__ import annotations

import random

from engine.cards import SPADES, card, mask_of
from engine.games.manille._manille import MANILLE_RULE, MANILLEN_RULE, MANILLEN_SEED_RULE, family_rule
from engine.tricks import FOLLOW_SUIT, PlayRule, beats, mask_function, rank_order
from engine.tricks import absent_after_play as _absent
from tests.trick_reference import legal_plays, trick_winner

MANILLE = rank_order("TAKQJ987")
BUTIFARRA = rank_order("9AKQJ8765432")
FAMILY = PlayRule(overtake=True, overtrump_trump_lead=True, overtrump=True)
FAMILY_NLT = PlayRule(overtake=True, overtrump_trump_lead=True, overtrump=True, no_undertrump=True)
MANILLEN = PlayRule(overtake=True, overtrump_trump_lead=True, overtrump=True, no_undertrump=True,
                    partner_no_undertrump=True)
SOLO = PlayRule(overtake=True, overtrump_trump_lead=True, overtrump=True, partner_exempt=False)
SOLO_NLT = PlayRule(overtake=True, overtrump_trump_lead=True, overtrump=True, no_undertrump=True,
                    partner_exempt=False)
B5 = PlayRule(overtake=True, overtrump_trump_lead=True, overtrump=True, must_trump=True)
SUIT_C = [r + "C" for r in "23456789TJQKA"]
DECK32 = [c for c in range(52) if c % 13 >= 5]


def absent_after_play(trick: list[int], winner: int, c: int, trump: int | None, order, rule: PlayRule,
                      partner_winning: bool = False) -> int:
    """:func:`engine.tricks.absent_after_play` for a trick given as its cards."""
    return _absent(trick[0] // 13, trick[winner], c, trump, order, rule, partner_winning)


def m(*toks: str) -> int:
    return mask_of(card(t) for t in toks)


def toks(mask: int) -> set[str]:
    from engine.cards import TOKENS, cards_of
    return {TOKENS[c] for c in cards_of(mask)}


def family_reference(hand: int, trick: list[int], trump: int | None, order, partner_winning: bool,
                     exempt: bool = True, undertrump_ban: bool = False,
                     no_losing_trump: bool = False, must_trump: bool = False) -> int:
    """The RULES.md pseudo-code, written out card by card (slow and literal)."""
    if not trick:
        return hand
    cards = [c for c in range(52) if hand >> c & 1]
    led = trick[0] // 13
    w = trick[trick_winner(trick, trump, order)]
    opp = not (partner_winning and exempt)

    def wins(c: int) -> bool:
        return beats(c, w, trump, order)

    led_cards = [c for c in cards if c // 13 == led]
    if led_cards:
        if opp and w // 13 == led:
            higher = [c for c in led_cards if wins(c)]
            if higher:
                return mask_of(higher)
        return mask_of(led_cards)
    trumps = [c for c in cards if trump is not None and c // 13 == trump]
    winning = [c for c in trumps if wins(c)]
    if must_trump and trumps:  # B5 option: a trump whoever wins, a winning one if held
        return mask_of(winning or trumps)
    if opp:
        if winning:
            return mask_of(winning)
        if no_losing_trump and trumps and len(trumps) < len(cards):
            return mask_of([c for c in cards if c not in trumps])
        return hand
    if undertrump_ban and trumps and w // 13 == trump and len(trumps) < len(cards):
        return mask_of([c for c in cards if c not in trumps or wins(c)])
    return hand


def random_situation(rng: random.Random, deck: list[int]) -> tuple[int, list[int], int | None, bool]:
    cards = rng.sample(deck, rng.randrange(2, 13))
    n = rng.randrange(0, 4)
    trick, hand = cards[:n], mask_of(cards[n:])
    trump = rng.choice([None, 0, 1, 2, 3])
    return hand, trick, trump, rng.random() < 0.5


def test_family_rule_matches_the_rules_md_pseudo_code_on_random_situations() -> None:
    rng = random.Random(7)
    for _ in range(4000):
        hand, trick, trump, pw = random_situation(rng, DECK32)
        w = trick_winner(trick, trump, MANILLE) if trick else 0
        got = legal_plays(hand, trick, w, trump, MANILLE, FAMILY, pw)
        assert got == family_reference(hand, trick, trump, MANILLE, pw), (toks(hand), trick, trump, pw)
        got = legal_plays(hand, trick, w, trump, MANILLE, FAMILY_NLT, pw)
        assert got == family_reference(hand, trick, trump, MANILLE, pw, no_losing_trump=True)
        got = legal_plays(hand, trick, w, trump, MANILLE, MANILLEN, pw)
        assert got == family_reference(hand, trick, trump, MANILLE, pw, undertrump_ban=True,
                                       no_losing_trump=True)
        got = legal_plays(hand, trick, w, trump, MANILLE, SOLO, pw)
        assert got == family_reference(hand, trick, trump, MANILLE, pw, exempt=False)
        got = legal_plays(hand, trick, w, trump, MANILLE, SOLO_NLT, pw)
        assert got == family_reference(hand, trick, trump, MANILLE, pw, exempt=False,
                                       no_losing_trump=True)
        got = legal_plays(hand, trick, w, trump, MANILLE, B5, pw)
        assert got == family_reference(hand, trick, trump, MANILLE, pw, must_trump=True)
        if trick:
            assert mask_function(MANILLE, FAMILY, trump)(hand, trick[0] // 13, trick[w], pw) == \
                legal_plays(hand, trick, w, trump, MANILLE, FAMILY, pw)


def test_butifarra_order_and_no_trump_use_the_same_rule() -> None:
    deck48 = [c for c in range(52) if c % 13 != 8]
    rng = random.Random(11)
    for _ in range(2000):
        hand, trick, trump, pw = random_situation(rng, deck48)
        w = trick_winner(trick, trump, BUTIFARRA) if trick else 0
        assert legal_plays(hand, trick, w, trump, BUTIFARRA, FAMILY, pw) == \
            family_reference(hand, trick, trump, BUTIFARRA, pw)


def test_opponent_winning_must_overtake_in_suit() -> None:
    trick = [card("KC")]
    got = legal_plays(m("9C", "AC", "TC", "7H"), trick, 0, SPADES, MANILLE, FAMILY)
    assert toks(got) == {"AC", "TC"}


def test_partner_winning_need_not_overtake_but_must_follow() -> None:
    trick = [card("KC")]
    got = legal_plays(m("9C", "AC", "7H"), trick, 0, SPADES, MANILLE, FAMILY, partner_winning=True)
    assert toks(got) == {"9C", "AC"}


def test_void_opponent_winning_must_trump_to_win() -> None:
    trick = [card("KC"), card("9S")]  # clubs led, trumped with the nine of spades
    assert toks(legal_plays(m("8S", "AS", "7H"), trick, 1, SPADES, MANILLE, FAMILY)) == {"AS"}
    assert toks(legal_plays(m("8S", "AS", "7H"), trick, 1, SPADES, MANILLE, FAMILY_NLT)) == {"AS"}


def test_family_void_no_winning_trump_any_card_a_losing_trump_included() -> None:
    """RULES.md clarification "Manille family, void with an opponent winning and no trump that
    wins" (revised turn 2; seed 003 L27/L50/L98 "dan mag je bijgooien wat je wilt")."""
    trick = [card("KC"), card("9S")]
    hand = m("8S", "7H", "QD")
    assert legal_plays(hand, trick, 1, SPADES, MANILLE, MANILLE_RULE) == hand
    assert legal_plays(hand, trick, 1, SPADES, MANILLE, family_rule()) == hand
    solo = family_rule(partner_exempt=False)
    assert legal_plays(hand, trick, 1, SPADES, MANILLE, solo, partner_winning=True) == hand
    # option no_losing_trump (the earlier reading): anything but a losing trump ...
    nlt = family_rule(no_losing_trump=True)
    assert toks(legal_plays(hand, trick, 1, SPADES, MANILLE, nlt)) == {"7H", "QD"}
    # ... unless only trumps are held
    assert toks(legal_plays(m("8S", "7S"), trick, 1, SPADES, MANILLE, nlt)) == {"8S", "7S"}
    # manillen keeps the ban ("mag niet onderkopen")
    assert toks(legal_plays(hand, trick, 1, SPADES, MANILLE, MANILLEN)) == {"7H", "QD"}


def test_void_partner_winning_free_discard_unless_manillen_undertrump() -> None:
    trick = [card("KC"), card("9S")]
    hand = m("8S", "AS", "7H")
    assert legal_plays(hand, trick, 1, SPADES, MANILLE, FAMILY, True) == hand
    # manillen: "mag niet onderkopen" still bars the 8S below the partner's 9S
    assert toks(legal_plays(hand, trick, 1, SPADES, MANILLE, MANILLEN, True)) == {"AS", "7H"}


def test_b5_must_trump_whoever_wins_a_winning_trump_else_any_trump() -> None:
    trick = [card("KC"), card("AC")]
    hand = m("8S", "AS", "7H")
    assert legal_plays(hand, trick, 1, SPADES, MANILLE, FAMILY, True) == hand
    assert B5 == family_rule(must_trump=True)
    # partner winning with a plain card: any trump (all of them win)
    assert toks(legal_plays(hand, trick, 1, SPADES, MANILLE, B5, True)) == {"8S", "AS"}
    assert toks(legal_plays(hand, trick, 1, SPADES, MANILLE, B5, False)) == {"8S", "AS"}
    # the trick trumped with 9S: a trump that beats it, whoever won it
    trumped = [card("KC"), card("9S")]
    assert toks(legal_plays(hand, trumped, 1, SPADES, MANILLE, B5, True)) == {"AS"}
    assert toks(legal_plays(hand, trumped, 1, SPADES, MANILLE, B5, False)) == {"AS"}
    # no trump that beats it: any trump, a losing one, still a trump
    low = m("8S", "7S", "7H", "QD")
    assert toks(legal_plays(low, trumped, 1, SPADES, MANILLE, B5, False)) == {"8S", "7S"}
    assert toks(legal_plays(low, trumped, 1, SPADES, MANILLE, B5, True)) == {"8S", "7S"}
    # no trump in hand: free
    assert legal_plays(m("7H", "QD"), trick, 1, SPADES, MANILLE, B5, True) == m("7H", "QD")
    # what the table learns: a discard shows no trump at all, a losing trump no winning one
    assert toks(absent_after_play(trick, 1, card("7H"), SPADES, MANILLE, B5, True)) >= {"7S", "TS"}
    shown = absent_after_play(trumped, 1, card("7S"), SPADES, MANILLE, B5, True)
    assert toks(shown) >= {"TS", "AS", "KS"} and not shown & m("8S", "7H")


def test_follow_suit_rule_of_hearts_is_unchanged() -> None:
    trick = [card("KC")]
    assert legal_plays(m("9C", "AC", "7H"), trick, 0, None, MANILLE, FOLLOW_SUIT) == m("9C", "AC")
    assert legal_plays(m("7H", "QD"), trick, 0, None, MANILLE, FOLLOW_SUIT) == m("7H", "QD")


def test_beaters_agree_with_strength() -> None:
    for order in (MANILLE, BUTIFARRA, rank_order("AKQJT98765432", "J9AKQT876")):
        for trump in (None, 0, 3):
            for c in range(52):
                if order.plain[c] < 0:
                    continue
                want = mask_of(x for x in range(13 * (c // 13), 13 * (c // 13) + 13)
                               if order.strength(x, trump) > order.strength(c, trump))
                assert order.beaters(c, trump) == want


def test_absent_after_play_is_sound() -> None:
    """Whatever a play shows absent was really absent from every hand that could play it."""
    rng = random.Random(3)
    for _ in range(3000):
        hand, trick, trump, pw = random_situation(rng, DECK32)
        if not trick:
            continue
        w = trick_winner(trick, trump, MANILLE)
        for rule in (FAMILY, FAMILY_NLT, MANILLEN, SOLO, SOLO_NLT, B5):
            legal = legal_plays(hand, trick, w, trump, MANILLE, rule, pw)
            for c in range(52):
                if legal >> c & 1:
                    absent = absent_after_play(trick, w, c, trump, MANILLE, rule, pw)
                    assert not absent & hand, (toks(hand), trick, trump, pw, rule, c)


def test_absent_after_play_shows_voids_and_missing_winners() -> None:
    trick = [card("KC")]
    # discarding on clubs shows a void in clubs and, bound to trump, no spade at all
    absent = absent_after_play(trick, 0, card("7H"), SPADES, MANILLE, FAMILY)
    assert toks(absent) >= {"TC", "AC", "9C", "TS", "AS", "7S"}
    # following low under an opponent's king: no ten or ace of clubs
    assert toks(absent_after_play(trick, 0, card("9C"), SPADES, MANILLE, FAMILY)) == {"TC", "AC"}
    # ... but under the partner's king nothing is shown
    assert absent_after_play(trick, 0, card("9C"), SPADES, MANILLE, FAMILY, True) == 0
    # a losing trump where that is barred: only trumps were held
    trick = [card("KC"), card("AS")]
    assert absent_after_play(trick, 1, card("7S"), SPADES, MANILLE, FAMILY) == m(*SUIT_C, "TS")
    absent = absent_after_play(trick, 1, card("7S"), SPADES, MANILLE, FAMILY_NLT)
    assert toks(absent) >= {"7H", "AD", "TS"} and not absent & m("9S", "8S", "KS")


def test_m1_b5_the_family_presets_are_the_knobs_tested_here() -> None:
    assert MANILLE_RULE == FAMILY == family_rule()
    assert family_rule(no_losing_trump=True) == FAMILY_NLT
    assert family_rule(partner_exempt=False) == SOLO
    assert MANILLEN_RULE == MANILLEN and MANILLEN_SEED_RULE == SOLO_NLT
    assert family_rule(must_trump=True) == B5


def test_a_refused_cards_reason_comes_from_the_rule_that_makes_the_mask() -> None:
    """Reasons from the rule (issue 22): ``why_refused`` gives a reason exactly for the cards of the
    hand that the rule's legal mask leaves out, over random tricks of every preset of the engine,
    and the reason names the duty at work (follow suit, beat the card, trump, no undertrump)."""
    from engine.games.jass import _jass
    from engine.tricks import why_refused
    presets = [FOLLOW_SUIT, MANILLE_RULE, MANILLEN_RULE, MANILLEN_SEED_RULE, B5, SOLO_NLT,
               _jass.KRUISJAS_RULE, _jass.WILD_JAS_RULE, _jass.GREVJAS_RULE, _jass.HANDJAS_RULE,
               _jass.HANDJAS_SWISS_RULE, _jass.KLOP_RULE, _jass.KLOP_RULE_NO_HOLDBACK, _jass.HONDERDEN_RULE]
    orders = [MANILLE, _jass.TEN_LOW.order]
    rng = random.Random(22)
    refused = 0
    for _ in range(3000):
        rule, order = rng.choice(presets), rng.choice(orders)
        trump = rng.choice([None, 0, 1, 2, 3])
        cards = rng.sample(DECK32, 12)
        hand, led_card, w = mask_of(cards[:8]), cards[8], rng.choice(cards[8:])
        if w // 13 not in (led_card // 13, trump):
            w = led_card
        pw = rng.random() < 0.3
        legal = mask_function(order, rule, trump)(hand, led_card // 13, w, pw)
        for c in cards[:8]:
            why = why_refused(order, rule, trump, hand, led_card // 13, w, pw, c)
            assert (why == "") == bool(legal >> c & 1), (rule, trump, c, why)
            if why:
                refused += 1
                assert any(k in why for k in ("follow suit", "beat", "trump")), why
                if hand & mask_of(x for x in DECK32 if x // 13 == led_card // 13) and c // 13 not in (
                        led_card // 13, trump):
                    assert why.startswith("follow suit"), why
    assert refused > 1000


def test_voids_shown_under_follow_suit_is_what_absent_after_play_says() -> None:
    # voids_shown's shortcut for FOLLOW_SUIT (no duty beyond following) against the walk every other
    # rule takes, play by play through absent_after_play, with and without a trump suit
    from engine.trickplay import voids_shown
    rng = random.Random(22)
    order = rank_order("AKQJT98765432")
    for _ in range(300):
        seats = rng.choice((3, 4))
        pack = list(range(52))
        rng.shuffle(pack)
        n = rng.randrange(0, 52 // seats * seats + 1)
        trump = rng.choice((None, 0, 1, 2, 3))
        plays, want = [], [0] * seats
        led = w = 0
        seat = rng.randrange(seats)
        for i, c in enumerate(pack[:n]):
            if i % seats:
                want[seat] |= _absent(led, w, c, trump, order, FOLLOW_SUIT, False)
                if beats(c, w, trump, order):
                    w = c
            else:
                led, w = c // 13, c
            plays.append(seat << 6 | c)
            seat = (seat + 1) % seats
        assert voids_shown(plays, seats, seats, trump, order, FOLLOW_SUIT) == want
