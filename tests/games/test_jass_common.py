"""The shared jass machinery (engine/games/_jass.py): RULES.md "Common jass tables", roem detection
(hand melds, announcements, roem in de slag), meld keys and the trick duties of the jass cards."""
from __future__ import annotations

import random

import pytest

from engine.cards import RANKS, TOKENS, card
from engine.games._jass import (
    GREVJAS_MELDS,
    GREVJAS_RULE,
    HANDJAS,
    HANDJAS_MELDS,
    HANDJAS_RULE,
    HANDJAS_SWISS_MELDS,
    HONDERDEN_MELDS,
    JO_JOTTE,
    KRUISJAS_MELDS,
    KRUISJAS_RULE,
    SUIT_MASK,
    TEN_HIGH,
    TEN_LOW,
    JassRule,
    announcements,
    best_meld,
    bits,
    hand_melds,
    has_stuk,
    jass_absent_after_play,
    jass_legal_mask,
    key_cards_top,
    key_value_cards_top,
    mask_of_tokens,
    runs_in,
    trick_melds,
    trick_winner_index,
)

C, D, H, S = range(4)
KLOP_RULE = JassRule(trump_instead=False, no_undertrump=False, must_trump_void=True,
                     overtrump_trump_lead=True, bare_jas_free=True)


def toks(m: int) -> set[str]:
    return {TOKENS[c] for c in bits(m)}


def cs(text: str) -> list[int]:
    return [card(t) for t in text.split()]


# --------------------------------------------------------------------- tables
def test_table_totals_match_rules_md() -> None:
    assert TEN_LOW.card_total() == 141 and TEN_LOW.deal_total() == 146
    assert HANDJAS.card_total() == 152 and HANDJAS.deal_total() == 157
    assert TEN_HIGH.card_total() == 152 and TEN_HIGH.deal_total() == 162
    assert JO_JOTTE.card_total() == 155 and JO_JOTTE.deal_total() == 165
    assert JO_JOTTE.card_total(None) == 120 and JO_JOTTE.deal_total(None) == 130
    for t in (TEN_LOW, HANDJAS, TEN_HIGH, JO_JOTTE):  # the total does not depend on the trump suit
        assert {t.card_total(s) for s in range(4)} == {t.card_total()}


def test_per_suit_points() -> None:
    assert TEN_LOW.card_points(SUIT_MASK[H] & TEN_LOW.deck, H) == 60
    assert TEN_LOW.card_points(SUIT_MASK[H] & TEN_LOW.deck, S) == 27
    assert HANDJAS.card_points(SUIT_MASK[C] & HANDJAS.deck, C) == 62
    assert HANDJAS.card_points(SUIT_MASK[C] & HANDJAS.deck, D) == 30
    assert TEN_HIGH.card_points(SUIT_MASK[D] & TEN_HIGH.deck, D) == 62
    assert TEN_LOW.points.of(card("JH"), H) == 20 and TEN_LOW.points.of(card("JH"), S) == 1
    assert TEN_LOW.points.of(card("9H"), H) == 14 and TEN_LOW.points.of(card("KH"), None) == 3
    assert TEN_LOW.jas(H) == card("JH") and TEN_LOW.nel(H) == card("9H")


@pytest.mark.parametrize(("table", "trump_order", "plain_order"), [
    (TEN_LOW, "J9AKQT87", "AKQJT987"),
    (HANDJAS, "J9AKQT876", "AKQJT9876"),
    (TEN_HIGH, "J9ATKQ87", "ATKQJ987"),
    (JO_JOTTE, "J9ATKQ87", "ATKQJ987"),
])
def test_rank_orders(table, trump_order: str, plain_order: str) -> None:
    for s in range(4):
        trumps = [card(r + "CDHS"[s]) for r in trump_order]
        assert [table.order.strength(c, s) for c in trumps] == sorted(
            (table.order.strength(c, s) for c in trumps), reverse=True)
        plain = [card(r + "CDHS"[s]) for r in plain_order]
        other = (s + 1) % 4
        assert [table.order.strength(c, other) for c in plain] == sorted(
            (table.order.strength(c, other) for c in plain), reverse=True)


def test_trick_winner_trump_beats_plain_and_led_suit_wins() -> None:
    o = TEN_LOW.order
    assert trick_winner_index(cs("AH KH 7S QH"), S, o) == 2
    assert trick_winner_index(cs("TH KH 7C QH"), S, o) == 1  # 10 low: K beats 10
    assert trick_winner_index(cs("9S JS AS 7S"), S, o) == 1  # Jas beats Nel
    assert trick_winner_index(cs("7H AC AD 8H"), S, o) == 3


# --------------------------------------------------------------------- roem
def test_runs_follow_the_natural_order_ten_between_jack_and_nine() -> None:
    assert runs_in(mask_of_tokens("JH TH 9H")) == [(H, RANKS.index("9"), 3)]
    assert runs_in(mask_of_tokens("AH KH QH JH TH 9H 8H 7H")) == [(H, RANKS.index("7"), 8)]
    assert runs_in(mask_of_tokens("AH KH JH TH")) == []
    assert runs_in(mask_of_tokens("6D 7D 8D")) == [(D, RANKS.index("6"), 3)]


def test_hand_melds_values() -> None:
    ms = hand_melds(mask_of_tokens("AH KH QH JH TH JC JD JS"), H, KRUISJAS_MELDS, stuk=True)
    assert [(m.describe(), m.value) for m in ms] == [("run 5 to AH", 100), ("carre J", 200),
                                                      ("stuk H", 20)]
    ms = hand_melds(mask_of_tokens("AH KH QH JH TH 9H 8H 7H"), H, KRUISJAS_MELDS)
    assert [(m.length, m.value) for m in ms] == [(8, 100)]  # K15
    assert [m.value for m in hand_melds(mask_of_tokens("AH KH QH JH TH 9H 8H 7H"), S,
                                        HANDJAS_MELDS)] == [250]
    assert hand_melds(mask_of_tokens("TC TD TH TS"), H, KRUISJAS_MELDS) == []
    assert [m.value for m in hand_melds(mask_of_tokens("TC TD TH TS"), H, HONDERDEN_MELDS)] == [100]
    assert [m.value for m in hand_melds(mask_of_tokens("7C 7D 7H 7S"), H, HANDJAS_MELDS)] == [100]
    assert hand_melds(mask_of_tokens("7C 7D 7H 7S"), H, HANDJAS_SWISS_MELDS) == []
    assert [m.value for m in hand_melds(mask_of_tokens("KC KD KH KS"), H, GREVJAS_MELDS)] == [300]
    assert [m.value for m in hand_melds(mask_of_tokens("9S TS JS QS KS"), H, GREVJAS_MELDS)] == [500]


def test_stuk() -> None:
    assert has_stuk(mask_of_tokens("KH QH"), H) and not has_stuk(mask_of_tokens("KH QH"), S)
    assert not has_stuk(mask_of_tokens("KH QH"), None)


def test_announcements_disjoint_offer_sub_runs() -> None:
    sets = announcements(mask_of_tokens("AH KH QH JH JC JD JS 7C"), S, KRUISJAS_MELDS)
    shown = sorted(" + ".join(m.describe() for m in a) for a in sets)
    # the run of 4 uses JH: with the carré only the run A-K-Q fits
    assert "run 3 to AH + carre J" in shown
    assert "run 4 to AH + carre J" not in shown
    assert "run 4 to AH" in shown and "carre J" in shown and "run 3 to KH" in shown
    for a in sets:
        seen = 0
        for m in a:
            assert not m.cards & seen
            seen |= m.cards


def test_announcements_overlapping_allowed() -> None:
    sets = announcements(mask_of_tokens("AH KH QH JH JC JD JS 7C"), S, GREVJAS_MELDS, disjoint=False)
    shown = sorted(" + ".join(m.describe() for m in a) for a in sets)
    assert shown == ["carre J", "run 4 to AH", "run 4 to AH + carre J"]


def test_trick_melds_roem_in_de_slag() -> None:
    def desc(text: str, trump: int) -> list[str]:
        return [m.describe() for m in trick_melds(mask_of_tokens(text), trump, KRUISJAS_MELDS)]
    assert desc("9S TS JS 7H", H) == ["run 3 to JS"]
    assert desc("9S TS JS QS", H) == ["run 4 to QS"]
    assert desc("QC QD QH QS", H) == ["carre Q"]
    assert desc("KH QH 7C 8D", H) == ["stuk H"]
    assert desc("KH QH JH 8D", H) == ["run 3 to KH", "stuk H"]
    assert desc("TC TD TH TS", H) == []  # K16: four tens score nothing
    assert desc("KH QH 7C 8D", S) == []


def test_meld_keys_more_cards_then_top_card() -> None:
    run5 = hand_melds(mask_of_tokens("TC 9C 8C 7C JC"), H, KRUISJAS_MELDS)[0]
    jacks = hand_melds(mask_of_tokens("JC JD JH JS"), H, KRUISJAS_MELDS)[0]
    aces = hand_melds(mask_of_tokens("AC AD AH AS"), H, KRUISJAS_MELDS)[0]
    run4 = hand_melds(mask_of_tokens("AD KD QD JD"), H, KRUISJAS_MELDS)[0]
    assert best_meld([jacks, run5]) is run5  # K11: a run of 5 beats four jacks
    assert best_meld([jacks, aces]) is aces  # K11: four aces beat four jacks
    assert best_meld([run4, aces]) is aces  # equal cards: A top, carré value 100 vs run 50
    assert key_cards_top(aces) > key_cards_top(run4)
    # Handjas: value first
    hj = [hand_melds(mask_of_tokens("JC JD JH JS"), H, HANDJAS_MELDS)[0],
          hand_melds(mask_of_tokens("TC 9C 8C 7C 6C"), H, HANDJAS_MELDS)[0]]
    assert max(hj, key=key_value_cards_top).describe() == "carre J"


# --------------------------------------------------------------------- trick duties
def reference(hand: int, trick: list[int], trump: int, rule: JassRule, order) -> int:
    """The rule written out card by card (slow and literal)."""
    if not trick:
        return hand
    led = trick[0] // 13
    w = trick[trick_winner_index(trick, trump, order)]
    cards = bits(hand)
    follow = [c for c in cards if c // 13 == led]
    trumps = [c for c in cards if c // 13 == trump]
    jas = trump * 13 + RANKS.index("J")

    def over(c: int) -> bool:
        return w // 13 != trump or order.strength(c, trump) > order.strength(w, trump)

    def m(xs: list[int]) -> int:
        out = 0
        for x in xs:
            out |= 1 << x
        return out
    if led == trump:
        if not follow:
            return hand
        if rule.bare_jas_free and follow == [jas]:
            return hand
        higher = [c for c in follow if over(c)]
        if rule.overtrump_trump_lead and higher:
            return m(higher)
        return m(follow)
    if follow:
        if rule.trump_instead:
            ok = [c for c in trumps if over(c) or not rule.no_undertrump]
            return m(follow + ok)
        return m(follow)
    if not trumps:
        return hand
    if len(trumps) == len(cards):
        higher = [c for c in trumps if over(c)]
        return m(higher) if rule.overtrump_void and higher else hand
    if rule.must_trump_void:
        if rule.bare_jas_free and trumps == [jas]:
            return hand
        higher = [c for c in trumps if over(c)]
        return m(higher) if rule.overtrump_void and higher else m(trumps)
    if rule.no_undertrump:
        return m([c for c in cards if c // 13 != trump or over(c)])
    return hand


RULES = [KRUISJAS_RULE, GREVJAS_RULE, HANDJAS_RULE, KLOP_RULE,
         JassRule(must_trump_void=True, overtrump_void=True), JassRule(bare_jas_free=True)]


@pytest.mark.parametrize("rule", RULES)
def test_legal_mask_matches_the_literal_rule(rule: JassRule) -> None:
    rng = random.Random(7)
    deck = bits(TEN_LOW.deck)
    for _ in range(3000):
        rng.shuffle(deck)
        trump = rng.randrange(4)
        k = rng.randrange(1, 4)
        trick = deck[:k]
        hand = 0
        for c in deck[k:k + rng.randrange(1, 9)]:
            hand |= 1 << c
        got = jass_legal_mask(hand, trick, trump, TEN_LOW.order, rule)
        assert got == reference(hand, trick, trump, rule, TEN_LOW.order), (toks(hand), trick, trump)
        assert got and got & ~hand == 0
        # what the play shows is true of the hand that played it
        led = trick[0] // 13
        w = trick[trick_winner_index(trick, trump, TEN_LOW.order)]
        for c in bits(got):
            absent = jass_absent_after_play(led, w, c, trump, TEN_LOW.order, rule)
            assert not absent & hand, (toks(hand), trick, TOKENS[c], toks(absent & hand))


def test_k6_style_undertrump_barred_while_holding_the_led_suit() -> None:
    hand = mask_of_tokens("7H 8S JS")
    got = jass_legal_mask(hand, cs("AH 9S"), S, TEN_LOW.order, KRUISJAS_RULE)
    assert toks(got) == {"7H", "JS"}  # may trump over the nel with the Jas, never with the 8
    got = jass_legal_mask(mask_of_tokens("7C 8S"), cs("AH 9S"), S, TEN_LOW.order, KRUISJAS_RULE)
    assert toks(got) == {"7C"}  # void: discard rather than undertrump
    got = jass_legal_mask(mask_of_tokens("7S 8S"), cs("AH 9S"), S, TEN_LOW.order, KRUISJAS_RULE)
    assert toks(got) == {"7S", "8S"}  # only trumps


def test_trump_led_follow_any_trump_or_overtrump() -> None:
    hand = mask_of_tokens("7S JS AH")
    assert toks(jass_legal_mask(hand, cs("9S"), S, TEN_LOW.order, KRUISJAS_RULE)) == {"7S", "JS"}
    assert toks(jass_legal_mask(hand, cs("9S"), S, TEN_LOW.order, HANDJAS_RULE)) == {"JS"}
    bare = mask_of_tokens("JS AH 7D")
    assert toks(jass_legal_mask(bare, cs("9S"), S, TEN_LOW.order, GREVJAS_RULE)) == {"JS", "AH", "7D"}
    assert toks(jass_legal_mask(bare, cs("9S"), S, TEN_LOW.order, KRUISJAS_RULE)) == {"JS"}


def test_no_trump_only_follow_suit() -> None:
    hand = mask_of_tokens("7S JS AH")
    assert toks(jass_legal_mask(hand, cs("9S"), None, JO_JOTTE.order, KRUISJAS_RULE)) == {"7S", "JS"}
    assert toks(jass_legal_mask(hand, cs("9C"), None, JO_JOTTE.order, KRUISJAS_RULE)) == toks(hand)
