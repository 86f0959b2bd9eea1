"""The one trick-rule engine (engine.tricks.PlayRule / mask_function / absent_after_play) against the
two engines it replaced, kept here verbatim as the oracle: the manille family's ``PlayRule`` (partner
exemption, overtake, trump duty, no losing trump, B5 must_trump) and ``_jass.JassRule`` (trump
instead, no undertrump, K6 only-trumps overtrump, must trump, bare Jas).  Every preset a game plays
by must compile to the very mask, and show the very absent cards, the old engine gave."""
from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from engine.cards import JACK, SUIT_MASKS
from engine.games.jass import _jass
from engine.games.manille import _manille
from engine.tricks import Order, PlayRule, absent_after_play, beats, mask_function
from tests.trick_reference import trick_winner

_ALL = SUIT_MASKS[0] | SUIT_MASKS[1] | SUIT_MASKS[2] | SUIT_MASKS[3]


# ------------------------------------------------------------------ the old manille engine (oracle)
@dataclass(frozen=True)
class OldPlayRule:
    overtake: bool = False
    trump_duty: bool = False
    no_losing_trump: bool = False
    partner_exempt: bool = True
    partner_no_undertrump: bool = False
    must_trump: bool = False


def old_manille_mask(order: Order, rule: OldPlayRule, trump_suit: int | None, hand: int, led: int,
                     w: int, partner_winning: bool) -> int:
    plain_above, trump_above = order.above
    trump_mask = SUIT_MASKS[trump_suit] if trump_suit is not None else 0
    duty = not (partner_winning and rule.partner_exempt)
    follow = hand & SUIT_MASKS[led]
    if follow:
        if rule.overtake and duty and (w // 13 == led):
            higher = follow & (trump_above if led == trump_suit else plain_above)[w]
            if higher:
                return higher
        return follow
    if trump_suit is None:
        return hand
    trumps = hand & trump_mask
    if not trumps:
        return hand
    beat = trumps & trump_above[w] if w // 13 == trump_suit else trumps
    if rule.must_trump:
        return beat or trumps
    if duty and rule.trump_duty:
        if beat:
            return beat
        if rule.no_losing_trump and trumps != hand:
            return hand & ~trumps
        return hand
    if not duty and rule.partner_no_undertrump and w // 13 == trump_suit and trumps != hand:
        return (hand & ~trumps) | beat
    return hand


def old_manille_absent(trick: list[int], winner: int, c: int, trump_suit: int | None, order: Order,
                       rule: OldPlayRule, partner_winning: bool) -> int:
    led = trick[0] // 13
    cs = c // 13
    w = trick[winner]
    duty = not (partner_winning and rule.partner_exempt)
    if cs == led:
        if rule.overtake and duty and w // 13 == led and not beats(c, w, trump_suit, order):
            return order.beaters(w, trump_suit)
        return 0
    out = SUIT_MASKS[led]
    if trump_suit is None or led == trump_suit:
        return out
    trumps = SUIT_MASKS[trump_suit]
    others = _ALL & ~trumps
    beat = order.beaters(w, trump_suit) if w // 13 == trump_suit else trumps
    if rule.must_trump:
        if cs != trump_suit:
            return out | trumps
        return out if beat >> c & 1 else out | beat
    if duty:
        if not rule.trump_duty:
            return out
        if cs != trump_suit:
            return out | beat
        if beat >> c & 1:
            return out
        return out | beat | (others if rule.no_losing_trump else 0)
    if (rule.partner_no_undertrump and cs == trump_suit and w // 13 == trump_suit
            and not beat >> c & 1):
        return out | others
    return out


# ------------------------------------------------------------------ the old jass engine (oracle)
@dataclass(frozen=True)
class OldJassRule:
    trump_instead: bool = True
    no_undertrump: bool = True
    must_trump_void: bool = False
    overtrump_void: bool = False
    overtrump_trump_lead: bool = False
    bare_jas_free: bool = False
    only_trumps_overtrump: bool = True


def old_jass_mask(order: Order, rule: OldJassRule, trump: int | None, hand: int, led: int,
                  w: int) -> int:
    if trump is None:
        f = hand & SUIT_MASKS[led]
        return f if f else hand
    tm = SUIT_MASKS[trump]
    tabove = order.above[1]
    jas = 1 << (trump * 13 + JACK)
    over_only = rule.overtrump_void or (rule.no_undertrump and rule.only_trumps_overtrump)
    follow = hand & SUIT_MASKS[led]
    trumps = hand & tm
    over = trumps & tabove[w] if w // 13 == trump else trumps
    if led == trump:
        if not follow:
            return hand
        if rule.bare_jas_free and follow == jas:
            return hand
        if rule.overtrump_trump_lead and over:
            return over
        return follow
    if follow:
        if not rule.trump_instead or not trumps:
            return follow
        return follow | (over if rule.no_undertrump else trumps)
    if not trumps:
        return hand
    if trumps == hand:
        return over if (over_only and over) else hand
    if rule.must_trump_void:
        if rule.bare_jas_free and trumps == jas:
            return hand
        return over if (rule.overtrump_void and over) else trumps
    if rule.no_undertrump:
        return (hand & ~tm) | over
    return hand


def old_jass_absent(led: int, w: int, c: int, trump: int | None, order: Order, rule: OldJassRule) -> int:
    cs = c // 13
    if trump is None:
        return 0 if cs == led else SUIT_MASKS[led]
    tm = SUIT_MASKS[trump]
    jas = 1 << (trump * 13 + JACK)
    top_trump = w // 13 == trump
    above = order.above[1][w] if top_trump else tm
    beats_top = (not top_trump) or bool(above >> c & 1)
    if led == trump:
        if cs == trump:
            if rule.overtrump_trump_lead and not beats_top:
                return above
            return 0
        return tm & ~jas if rule.bare_jas_free else tm
    if cs == led:
        return 0
    if cs == trump:
        if beats_top:
            return 0 if rule.trump_instead else SUIT_MASKS[led]
        out = 0 if rule.trump_instead and not rule.no_undertrump else SUIT_MASKS[led]
        if rule.no_undertrump and not rule.must_trump_void:
            out |= _ALL & ~tm
            if rule.only_trumps_overtrump:
                out |= above
        if rule.overtrump_void:
            out |= above
        return out
    out = SUIT_MASKS[led]
    if rule.must_trump_void:
        out |= tm & ~jas if rule.bare_jas_free else tm
    return out


# ------------------------------------------------------------------ presets: old spelling -> new
MANILLE_PRESETS: list[tuple[str, OldPlayRule, PlayRule]] = [
    ("MANILLE_RULE", OldPlayRule(overtake=True, trump_duty=True), _manille.MANILLE_RULE),
    ("no_losing_trump", OldPlayRule(overtake=True, trump_duty=True, no_losing_trump=True),
     _manille.family_rule(no_losing_trump=True)),
    ("B5 must_trump", OldPlayRule(overtake=True, trump_duty=True, must_trump=True),
     _manille.family_rule(must_trump=True)),
    ("B5 + no_losing_trump",
     OldPlayRule(overtake=True, trump_duty=True, must_trump=True, no_losing_trump=True),
     _manille.family_rule(must_trump=True, no_losing_trump=True)),
    ("manille_2_7 (no exemption)", OldPlayRule(overtake=True, trump_duty=True, partner_exempt=False),
     _manille.family_rule(partner_exempt=False)),
    ("manille_2_7 + no_losing_trump",
     OldPlayRule(overtake=True, trump_duty=True, partner_exempt=False, no_losing_trump=True),
     _manille.family_rule(no_losing_trump=True, partner_exempt=False)),
    ("MANILLEN_RULE", OldPlayRule(overtake=True, trump_duty=True, no_losing_trump=True,
                                  partner_no_undertrump=True), _manille.MANILLEN_RULE),
    ("MANILLEN_SEED_RULE", OldPlayRule(overtake=True, trump_duty=True, no_losing_trump=True,
                                       partner_exempt=False), _manille.MANILLEN_SEED_RULE),
]
JASS_PRESETS: list[tuple[str, OldJassRule, PlayRule]] = [
    ("KRUISJAS_RULE", OldJassRule(), _jass.KRUISJAS_RULE),
    ("WILD_JAS_RULE", OldJassRule(bare_jas_free=True), _jass.WILD_JAS_RULE),
    ("GREVJAS_RULE", OldJassRule(no_undertrump=False, bare_jas_free=True), _jass.GREVJAS_RULE),
    ("HANDJAS_RULE", OldJassRule(overtrump_trump_lead=True, bare_jas_free=True,
                                 only_trumps_overtrump=False), _jass.HANDJAS_RULE),
    ("HANDJAS_SWISS_RULE", OldJassRule(bare_jas_free=True, only_trumps_overtrump=False),
     _jass.HANDJAS_SWISS_RULE),
    ("KLOP_RULE", OldJassRule(trump_instead=False, no_undertrump=False, must_trump_void=True,
                              overtrump_trump_lead=True, bare_jas_free=True), _jass.KLOP_RULE),
    ("KLOP_RULE_NO_HOLDBACK", OldJassRule(trump_instead=False, no_undertrump=False,
                                          must_trump_void=True, overtrump_trump_lead=True),
     _jass.KLOP_RULE_NO_HOLDBACK),
    ("HONDERDEN_RULE", OldJassRule(trump_instead=True, no_undertrump=False), _jass.HONDERDEN_RULE),
]
MANILLE_ORDERS = [(_manille.MANILLE_ORDER, [c for c in range(52) if c % 13 >= 5]),
                  (_manille.BUTIFARRA_ORDER, [c for c in range(52) if c % 13 != 8])]
JASS_ORDERS = [(_jass.TEN_LOW.order, _jass.TEN_LOW.deck), (_jass.TEN_HIGH.order, _jass.TEN_HIGH.deck),
               (_jass.HANDJAS.order, _jass.HANDJAS.deck), (_jass.JO_JOTTE.order, _jass.JO_JOTTE.deck)]


def _random_trick(rng: random.Random, deck: list[int]) -> tuple[int, list[int], int | None]:
    cards = rng.sample(deck, rng.randrange(3, 14))
    k = rng.randrange(1, 4)
    hand = 0
    for c in cards[k:]:
        hand |= 1 << c
    return hand, cards[:k], rng.choice([None, 0, 1, 2, 3])


@pytest.mark.parametrize("name,old,new", MANILLE_PRESETS, ids=[p[0] for p in MANILLE_PRESETS])
def test_m1_b5_manille_presets_compile_to_the_old_manille_masks(name: str, old: OldPlayRule,
                                                                new: PlayRule) -> None:
    rng = random.Random(name)
    for order, deck in MANILLE_ORDERS:
        for _ in range(1500):
            hand, trick, trump = _random_trick(rng, deck)
            pw = rng.random() < 0.5
            win = trick_winner(trick, trump, order)
            led, w = trick[0] // 13, trick[win]
            got = mask_function(order, new, trump)(hand, led, w, pw)
            assert got == old_manille_mask(order, old, trump, hand, led, w, pw), (name, trick, trump, pw)
            for c in deck:
                if c not in trick:
                    assert absent_after_play(led, w, c, trump, order, new, pw) == \
                        old_manille_absent(trick, win, c, trump, order, old, pw), (name, trick, c, trump, pw)


@pytest.mark.parametrize("name,old,new", JASS_PRESETS, ids=[p[0] for p in JASS_PRESETS])
def test_k6_hj20_kb10_jass_presets_compile_to_the_old_jass_masks(name: str, old: OldJassRule,
                                                                 new: PlayRule) -> None:
    rng = random.Random(name)
    for order, deck_mask in JASS_ORDERS:
        deck = [c for c in range(52) if deck_mask >> c & 1]
        for _ in range(1000):
            hand, trick, trump = _random_trick(rng, deck)
            led, w = trick[0] // 13, trick[trick_winner(trick, trump, order)]
            got = mask_function(order, new, trump)(hand, led, w, False)
            assert got == old_jass_mask(order, old, trump, hand, led, w), (name, trick, trump)
            for c in deck:
                if c not in trick:
                    assert absent_after_play(led, w, c, trump, order, new) == \
                        old_jass_absent(led, w, c, trump, order, old), (name, trick, c, trump)
