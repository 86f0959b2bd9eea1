"""The greedy player's family heuristics, on hand-made observations."""
from __future__ import annotations

from typing import Any

from bots.builtin.greedy import Bot


def obs(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"seat": 0, "players": 4, "phase": "play"}
    base.update(kw)
    return base


def plays(*cards: str) -> list[str]:
    return ["play " + c for c in cards]


# --------------------------------------------------------------------------- Hartenjagen
def test_hearts_void_dumps_the_queen_of_spades() -> None:
    b = Bot("hartenjagen", 0, 1)
    o = obs(hand=["QS", "AH", "2D"], trick=["5C"], trick_leader=3, legal_actions=plays("QS", "AH", "2D"))
    assert b.act(o) == "play QS"


def test_hearts_void_without_queen_dumps_the_highest_heart() -> None:
    b = Bot("hartenjagen", 0, 1)
    o = obs(hand=["KH", "3H", "AD"], trick=["5C"], trick_leader=3, legal_actions=plays("KH", "3H", "AD"))
    assert b.act(o) == "play KH"


def test_hearts_ducks_under_the_winning_card() -> None:
    b = Bot("hartenjagen", 0, 1)
    o = obs(hand=["2C", "9C", "KC"], trick=["TC", "4C"], trick_leader=2,
            legal_actions=plays("2C", "9C", "KC"))
    assert b.act(o) == "play 9C"


def test_hearts_passes_the_queen_of_spades_when_short_in_spades() -> None:
    b = Bot("hartenjagen", 0, 1)
    hand = ["QS", "3S", "AH", "2C", "5D"]
    o = obs(phase="pass", hand=hand, legal_actions=["pass " + c for c in hand])
    assert b.act(o) == "pass QS"


# --------------------------------------------------------------------------- manille family
def test_manille_gives_points_to_the_partners_sure_trick() -> None:
    b = Bot("manillen", 0, 1)
    # partner (seat 2) leads the manille (ten) of clubs: sure to win; we smear our ace
    o = obs(hand=["AC", "7C", "8H"], trick=[[2, "TC"], [3, "9C"]], trump="H", partner=2, played=[],
            legal_actions=plays("AC", "7C"))
    assert b.act(o) == "play AC"


def test_manille_throws_cheap_when_it_cannot_win() -> None:
    b = Bot("manillen", 0, 1)
    o = obs(hand=["KC", "7C"], trick=[[1, "TC"]], trump="H", partner=2, played=[],
            legal_actions=plays("KC", "7C"))
    assert b.act(o) == "play 7C"


def test_manille_leads_a_card_nobody_can_beat() -> None:
    b = Bot("manillen", 0, 1)
    o = obs(hand=["TC", "7D", "8D"], trick=[], trump="H", partner=2, played=[],
            legal_actions=plays("TC", "7D", "8D"))
    assert b.act(o) == "play TC"


def test_manille_names_its_longest_strong_suit_trump() -> None:
    b = Bot("manillen", 0, 1)
    hand = ["TS", "AS", "KS", "9S", "7H", "8D", "JC", "QD"]
    o = obs(phase="trump", hand=hand, legal_actions=["trump C", "trump D", "trump H", "trump S"])
    assert b.act(o) == "trump S"


# --------------------------------------------------------------------------- shedding
def test_shedding_discards_the_most_points() -> None:
    b = Bot("genive", 0, 1)
    o = obs(hand=["KS", "KD", "3C", "AH"], hand_value=24, call_limit=5, hand_sizes=[4, 5, 5, 5],
            legal_actions=["discard KS", "discard KD", "discard 3C", "discard AH", "discard KD KS"])
    assert b.act(o) == "discard KD KS"


def test_shedding_calls_when_low_and_nobody_is_close() -> None:
    b = Bot("genive", 0, 1)
    o = obs(hand=["AH", "2C"], hand_value=3, call_limit=5, hand_sizes=[2, 5, 4, 5],
            legal_actions=["call", "discard AH", "discard 2C"])
    assert b.act(o) == "call"
    o["hand_sizes"] = [2, 1, 4, 5]  # an opponent with one card is probably lower
    assert b.act(o) != "call"


def test_shedding_takes_a_low_visible_card_else_the_stock() -> None:
    b = Bot("geneve", 0, 1)
    low = obs(hand=["9C", "KD"], legal_actions=["draw stock", "draw 2H"])
    high = obs(hand=["9C", "KD"], legal_actions=["draw stock", "draw QH"])
    pair = obs(hand=["9C", "KD"], legal_actions=["draw stock", "draw KS"])
    assert b.act(low) == "draw 2H" and b.act(high) == "draw stock" and b.act(pair) == "draw KS"


# --------------------------------------------------------------------------- generic fallback
def test_generic_fallback_lays_melds_and_never_talks() -> None:
    b = Bot("no_such_game", 0, 1)
    o = obs(hand=["5H", "6H", "7H", "KD"], legal_actions=["discard KD", "meld 5H 6H 7H", "knock"])
    assert b.act(o) == "meld 5H 6H 7H"
    o2 = obs(hand=["5H"], legal_actions=["draw discard", "draw stock"])
    assert b.act(o2) == "draw stock"
    o3 = obs(hand=[], legal_actions=["declare ask trumps", "declare tell trumps", "cut"])
    assert b.act(o3) == "cut"
