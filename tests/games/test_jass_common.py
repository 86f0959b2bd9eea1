"""The shared jass machinery (engine/games/jass/_jass.py): RULES.md "Common jass tables", roem detection
(hand melds, announcements, roem in de slag), meld keys and the trick duties of the jass cards."""
from __future__ import annotations

import itertools
import random

import pytest

from engine.cards import RANKS, TOKENS, card
from engine.games.jass._jass import (
    GREVJAS_MELDS,
    GREVJAS_RULE,
    HANDJAS,
    HANDJAS_MELDS,
    HANDJAS_RULE,
    HANDJAS_SWISS_MELDS,
    HANDJAS_SWISS_RULE,
    HONDERDEN_MELDS,
    HONDERDEN_RULE,
    JO_JOTTE,
    KLOP_RULE,
    KLOP_RULE_NO_HOLDBACK,
    KRUISJAS_MELDS,
    KRUISJAS_RULE,
    SUIT_MASK,
    TEN_HIGH,
    TEN_LOW,
    WILD_JAS_RULE,
    announcements,
    best_meld,
    bits,
    hand_melds,
    has_stuk,
    key_cards_top,
    key_value_cards_top,
    mask_of_tokens,
    runs_in,
    trick_melds,
)
from engine.tricks import PlayRule, absent_after_play
from tests.trick_reference import legal_plays, trick_winner

C, D, H, S = range(4)


def jass_legal_mask(hand: int, trick: list[int], trump: int | None, order, rule: PlayRule) -> int:
    """The unified engine's legal mask for a trick given as its cards (no partner notion)."""
    return legal_plays(hand, trick, trick_winner(trick, trump, order), trump, order, rule)


def jass_absent_after_play(led: int, w: int, c: int, trump: int | None, order, rule: PlayRule) -> int:
    return absent_after_play(led, w, c, trump, order, rule)


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
    assert trick_winner(cs("AH KH 7S QH"), S, o) == 2
    assert trick_winner(cs("TH KH 7C QH"), S, o) == 1  # 10 low: K beats 10
    assert trick_winner(cs("9S JS AS 7S"), S, o) == 1  # Jas beats Nel
    assert trick_winner(cs("7H AC AD 8H"), S, o) == 3


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


def test_k12_announcements_runs_at_full_length_cut_only_by_a_carre() -> None:
    sets = announcements(mask_of_tokens("AH KH QH JH JC JD JS 7C"), S, KRUISJAS_MELDS)
    shown = sorted(" + ".join(m.describe() for m in a) for a in sets)
    # the run of 4 uses JH: beside the carré only A-K-Q is left; alone it is announced whole
    assert shown == ["carre J", "run 3 to AH + carre J", "run 4 to AH"]
    # a run of 6 is one meld, never two runs of 3 nor any shorter run
    sets = announcements(mask_of_tokens("QH JH TH 9H 8H 7H AC 7S"), S, KRUISJAS_MELDS)
    assert [[m.tokens() for m in a] for a in sets] == [[["QH", "JH", "TH", "9H", "8H", "7H"]]]
    # the carré splits the run: the longer piece is announced (of equal pieces, the higher)
    sets = announcements(mask_of_tokens("AH KH QH JH TH 9H 8H JC"), S, KRUISJAS_MELDS)
    assert sets == [(hand_melds(mask_of_tokens("AH KH QH JH TH 9H 8H"), S, KRUISJAS_MELDS)[0],)]
    sets = announcements(mask_of_tokens("AH KH QH JH TH 9H 8H JC JD JS"), S, KRUISJAS_MELDS)
    assert sorted(" + ".join(m.describe() for m in a) for a in sets) == [
        "carre J", "run 3 to AH + carre J", "run 7 to AH"]
    sets = announcements(mask_of_tokens("KH QH JH TH 9H 8H JC JD JS"), S, KRUISJAS_MELDS)
    assert "run 3 to TH + carre J" in [" + ".join(m.describe() for m in a) for a in sets]


def _k12_reference(hand: int, values) -> set[frozenset[int]]:
    """K12 written as a filter over every set of disjoint melds (sub-runs included): each run is a
    maximal run of the hand, or the longest (then highest) piece a carré of the set leaves of one."""
    melds = hand_melds(hand, S, values, sub_runs=True)
    maximal = {(s, low, n) for s, low, n in runs_in(hand, values.min_run)}
    out: set[frozenset[int]] = set()
    for k in (1, 2, 3):
        for combo in itertools.combinations(melds, k):
            cards = [m.cards for m in combo]
            if any(a & b for a, b in itertools.combinations(cards, 2)):
                continue
            taken = 0
            for m in combo:
                if m.kind == "carre":
                    taken |= m.cards
            ok = True
            for m in combo:
                if m.kind != "run":
                    continue
                low = m.top - m.length + 1
                if (m.suit, low, m.length) in maximal:
                    continue
                home = next(r for r in maximal
                            if r[0] == m.suit and r[1] <= low and low + m.length <= r[1] + r[2])
                whole = ((1 << home[2]) - 1) << (home[0] * 13 + home[1])
                pieces = runs_in(whole & ~taken, 1) if whole & taken else []
                best = max(pieces, key=lambda p: (p[2], p[1])) if pieces else None
                if best != (m.suit, low, m.length):
                    ok = False
            if ok:
                out.add(frozenset(cards))
    return out


@pytest.mark.parametrize("values", [KRUISJAS_MELDS, GREVJAS_MELDS])
def test_k12_gj10_announcements_match_the_rule_on_random_hands(values) -> None:
    rng = random.Random(12)
    deck = bits(TEN_LOW.deck)
    for _ in range(3000):
        # hands rich in runs and carrés: a few suits and ranks only
        suits, ranks = rng.sample(range(4), rng.choice((1, 2))), rng.sample("JQKA", 2)
        pool = [c for c in deck if c // 13 in suits or RANKS[c % 13] in ranks]
        hand = 0
        for c in rng.sample(pool, min(len(pool), rng.choice((8, 9, 10)))):
            hand |= 1 << c
        got = announcements(hand, S, values)
        assert len({frozenset(m.cards for m in a) for a in got}) == len(got)  # no repeats
        assert {frozenset(m.cards for m in a) for a in got} == _k12_reference(hand, values), toks(hand)
        for a in got:
            seen = 0
            for m in a:
                assert not m.cards & seen and m.cards & hand == m.cards
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
def reference(hand: int, trick: list[int], trump: int, rule: PlayRule, order) -> int:
    """The rule written out card by card (slow and literal)."""
    if not trick:
        return hand
    led = trick[0] // 13
    w = trick[trick_winner(trick, trump, order)]
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
        must = rule.overtrump or (rule.no_undertrump and rule.only_trumps_overtrump)  # K6
        return m(higher) if must and higher else hand
    if rule.must_trump:
        if rule.bare_jas_free and trumps == [jas]:
            return hand
        higher = [c for c in trumps if over(c)]
        return m(higher) if rule.overtrump and higher else m(trumps)
    if rule.no_undertrump:
        return m([c for c in cards if c // 13 != trump or over(c)])
    return hand


RULES = [KRUISJAS_RULE, GREVJAS_RULE, HANDJAS_RULE, HANDJAS_SWISS_RULE, KLOP_RULE,
         KLOP_RULE_NO_HOLDBACK, HONDERDEN_RULE, WILD_JAS_RULE,
         PlayRule(trump_instead=True, no_undertrump=True, only_trumps_overtrump=True, must_trump=True,
                  overtrump=True)]


@pytest.mark.parametrize("rule", RULES)
def test_legal_mask_matches_the_literal_rule(rule: PlayRule) -> None:
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
        w = trick[trick_winner(trick, trump, TEN_LOW.order)]
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
    assert toks(got) == {"7S", "8S"}  # only trumps, all lower


def test_k6_only_trumps_must_overtrump() -> None:
    # a hand of only trumps beats the trick's best trump if it can (003:L204 "nooit een lagere troef")
    hand = mask_of_tokens("7S 8S TS KS 9S AS")
    got = jass_legal_mask(hand, cs("QH QS KC"), S, TEN_LOW.order, KRUISJAS_RULE)
    assert toks(got) == {"9S", "KS", "AS"}
    assert toks(jass_legal_mask(hand, cs("QH JS"), S, TEN_LOW.order, KRUISJAS_RULE)) == toks(hand)
    # Handjas keeps HJ1/HJ20: a hand of only trumps may play any trump on a plain lead
    h36 = mask_of_tokens("6S 7S KS AS")
    assert toks(jass_legal_mask(h36, cs("QH QS"), S, HANDJAS.order, HANDJAS_RULE)) == toks(h36)
    # what an undertrump from only trumps shows: no trump above the trick's best
    absent = jass_absent_after_play(H, card("QS"), card("TS"), S, TEN_LOW.order, KRUISJAS_RULE)
    assert toks(absent & SUIT_MASK[S]) == {"JS", "9S", "AS", "KS"}


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
