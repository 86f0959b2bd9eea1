"""The greedy player's family heuristics, on hand-made observations."""
from __future__ import annotations

from typing import Any

import pytest

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


# --------------------------------------------------------------------------- meld-protocol rummies
MELD_PROTOCOL = ("jokeren_nl", "jokeren_drift", "amerikaans_jokeren", "loba", "ramino_drift")


def greedy_counts(game_id: str, seeds: range) -> tuple[int, int, int]:
    """(take-backs, confirms, turns) of greedy's seats in one-deal matches against random, each
    seed once per seat of greedy."""
    from bots.match import close_players, make_players, play_match
    from engine import load_game
    game = load_game(game_id)
    takebacks = confirms = turns = 0
    for seed in seeds:
        n = game.default_players
        for k in range(n):
            names = ["greedy" if s == k else "random" for s in range(n)]
            players = make_players(game, names, seed)
            try:
                r = play_match(game, players, seed, max_deals=1)
            finally:
                close_players(players)
            st = game.new_match(seed=seed, players=n, max_deals=1)
            for a in r.state.history:
                if st.current_player == k:
                    takebacks += a == "takeback"
                    confirms += a == "confirm"
                    turns += a.startswith("draw ")
                st.apply(a)
    return takebacks, confirms, turns


@pytest.mark.parametrize("game_id", MELD_PROTOCOL)
def test_meld_protocol_greedy_never_melds_and_takes_back_in_loops(game_id: str) -> None:
    # issue 21 section 7: greedy laid a meld and took it back turn after turn (1,332 take-backs
    # against 292 confirms in 24 jokeren_nl matches); it now plans an opening it can reach and
    # never retries a failed line
    takebacks, confirms, turns = greedy_counts(game_id, range(2))
    assert confirms > 0 and turns > 0
    assert takebacks * 10 <= confirms, (takebacks, confirms)


def test_meld_protocol_greedy_does_not_start_an_opening_it_cannot_reach() -> None:
    # jokeren_nl, 40 to open: 5H 6H 7H (18) and 9C 9D 9S (27) make 45, 2C 3C 4C (9) alone does not
    b = Bot("jokeren_nl", 0, 1)
    base = {"phase": "play", "deal": 1, "opened": [False, False], "threshold": 40, "building": [],
            "must_use": [], "pile_size": 3, "stock_size": 50, "reforms": 0}
    weak = ["2C", "3C", "4C", "9H", "JD", "KS", "6D", "8S"]
    legal = ["discard " + c for c in weak] + ["meld 2C", "meld 3C", "meld 4C"]
    assert b.act(obs(**base, hand=weak, legal_actions=legal)).startswith("discard ")
    strong = ["5H", "6H", "7H", "9C", "9D", "9S", "KS", "2D"]
    legal = ["discard " + c for c in strong] + ["meld " + c for c in strong[:6]]
    b = Bot("jokeren_nl", 0, 1)
    assert b.act(obs(**base, hand=strong, legal_actions=legal)) in {"meld 9C", "meld 9D", "meld 9S"}


def test_meld_protocol_greedy_finishes_the_meld_it_builds_and_buys_back() -> None:
    b = Bot("loba", 0, 1)
    o = obs(phase="play", deal=1, opened=[False, False], building=["5H", "6H", "7H"], hand=["8H", "KD"],
            must_use=[], pile_size=2, stock_size=40, reforms=0,
            legal_actions=["takeback", "meld 8H", "confirm"])
    assert b.act(o) == "meld 8H"
    o["legal_actions"] = ["takeback", "confirm"]
    assert b.act(o) == "confirm"
    assert b.act(obs(phase="buyback", hand=[], building=[], legal_actions=["declare buyback", "pass"])) \
        == "declare buyback"
