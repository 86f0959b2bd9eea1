"""Cards, decks and notation (CONTRACT.md 'Cards' and 'Action notation')."""
from __future__ import annotations

from collections import Counter

import pytest

from engine import IllegalAction
from engine.cards import (
    BASE_TOKENS,
    JOKER,
    bits,
    build_deck,
    card,
    deck_24,
    deck_32,
    deck_36,
    deck_48_no_tens,
    deck_52,
    deck_54,
    deck_108,
    find_token,
    mask_of,
    rank_of,
    suit_of,
    token,
)
from engine.notation import parse_action, split_joker


def test_tokens_round_trip() -> None:
    for c in range(52):
        assert card(token(c)) == c
    assert token(JOKER) == token(JOKER + 1) == "JK" and card("JK") == JOKER
    assert [token(c) for c in (card("TD"), card("QS"), card("AC"), card("7H"))] == ["TD", "QS", "AC", "7H"]


@pytest.mark.parametrize("bad", ["10H", "qs", "Q\u2660", "1C", "AX", "", "JK2", "KH "])
def test_strict_card_parsing(bad: str) -> None:
    with pytest.raises(ValueError, match="rank then suit"):
        card(bad)


@pytest.mark.parametrize(("builder", "size", "ranks", "jokers", "copies"), [
    (deck_52, 52, 13, 0, 1), (deck_32, 32, 8, 0, 1), (deck_36, 36, 9, 0, 1),
    (deck_48_no_tens, 48, 12, 0, 1), (deck_24, 24, 6, 0, 1), (deck_54, 54, 13, 2, 1),
    (deck_108, 108, 13, 4, 2)])
def test_decks(builder, size: int, ranks: int, jokers: int, copies: int) -> None:  # type: ignore[no-untyped-def]
    deck = builder()
    assert len(deck) == len(set(deck)) == size
    toks = Counter(token(c) for c in deck)
    assert toks["JK"] == jokers
    assert len({rank_of(c) for c in deck if token(c) != "JK"}) == ranks
    assert all(n == copies for t, n in toks.items() if t != "JK")
    assert len({suit_of(c) for c in deck if token(c) != "JK"}) == 4


def test_deck_contents() -> None:
    assert "TH" not in {token(c) for c in deck_48_no_tens()}
    assert {token(c)[0] for c in deck_32()} == set("789TJQKA")
    assert {token(c)[0] for c in deck_24()} == set("9TJQKA")
    assert {token(c)[0] for c in deck_36()} == set("6789TJQKA")
    with pytest.raises(ValueError, match="two jokers per pack"):
        build_deck(jokers=3)


def test_two_pack_hand_is_a_multiset() -> None:
    deck = deck_108()
    fives = [c for c in deck if token(c) == "5H"]
    hand = mask_of(fives + [c for c in deck if token(c) == "JK"][:1])
    assert sorted(token(c) for c in bits(hand)) == ["5H", "5H", "JK"]
    first = find_token(hand, "5H")
    assert first is not None and find_token(hand & ~(1 << first), "5H") not in (None, first)
    assert find_token(hand, "6H") is None


def test_parse_action_shared_verbs() -> None:
    assert parse_action("play QS") == ("play", ("QS",))
    assert parse_action("pass QS") == ("pass", ("QS",))
    assert parse_action("pass") == ("pass", ())
    assert parse_action("trump none") == ("trump", ("none",))
    assert parse_action("discard 5H JK=6H 7H") == ("discard", ("5H", "JK=6H", "7H"))
    assert parse_action("draw stock") == ("draw", ("stock",))
    assert parse_action("draw 5H") == ("draw", ("5H",))
    assert parse_action("layoff 8H 2") == ("layoff", ("8H", "2"))
    assert parse_action("declare stuk") == ("declare", ("stuk",))
    assert split_joker("JK=6H") == ("JK", "6H") and split_joker("6H") == ("6H", None)


@pytest.mark.parametrize(("bad", "hint"), [
    ("play 10H", "the form is 'play QS'"), ("play Q\u2660", "rank then suit"),
    ("play QS QH", "exactly one card"), ("discard", "at least one card"),
    ("discard 5H JK=JK", "JK=6H"), ("trump X", "C D H S"), ("draw", "draw stock"),
    ("layoff 8H", "meld number"), ("call now", "no argument"), ("shout", "verbs are"),
    ("", "empty action")])
def test_malformed_actions_show_the_right_form(bad: str, hint: str) -> None:
    with pytest.raises(IllegalAction, match=hint.replace("(", r"\(")):
        parse_action(bad)


def test_every_base_token_is_listed_once() -> None:
    assert len(set(BASE_TOKENS[:52])) == 52
