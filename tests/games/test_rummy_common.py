"""The shared drift-rummy machinery (engine/games/rummy/_rummy.py): RULES.md "Common rummy definitions",
X3 and X7, exercised through ``jokeren_drift`` (the plainest game that uses it)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from engine.cards import JOKER_MASK, TOKENS, base_set, bits, cards_of
from engine.games.rummy._rummy import RummyState
from tests import gamekit
from tests.gamekit import can_discard, events, play, table
from tests.games.rummy_oracle import (
    MELD_PROTOCOL,
    SWAP_GAMES,
    finishable_actions,
    joker_after_layoff_position,
)
from tests.games.rummy_oracle import after as oracle_after
from tests.games.rummy_oracle import can_end as oracle_can_end

FILL = ["2C", "4D", "6S", "8C", "TD", "QS", "KC"]  # no meld among them


def new(
    hands: list[list[str]],
    stock: list[str] | None = None,
    upcard: str | None = "AS",
    dealer: int | None = None,
    game: str = "jokeren_drift",
    seed: int = 1,
    **opts: Any,
) -> State:
    deal: dict[str, Any] = {"dealer": len(hands) - 1 if dealer is None else dealer, "upcard": upcard}
    if stock is not None:
        deal["stock"] = stock
    return gamekit.new(game, hands, seed=seed, options=opts, **deal)


# --------------------------------------------------------------------- meld protocol
def test_meld_card_offered_only_if_completable() -> None:
    st = new([["5H", "6H", "9C", "9D", "KS", "2C", "4S"], FILL], stock=["JD", "3D", "3D", "3S"])
    play(st, "draw stock")  # JD: no meld can use it
    legal = st.legal_actions()
    assert "meld 5H" not in legal and "meld 9C" not in legal and "meld JD" not in legal
    st2 = new([["5H", "6H", "9C", "9D", "KS", "2C", "4S"], FILL], stock=["7H", "3D", "3D", "3S"])
    play(st2, "draw stock")
    legal = st2.legal_actions()
    assert {"meld 5H", "meld 6H", "meld 7H"} <= set(legal) and "meld 9C" not in legal
    play(st2, "meld 6H")
    assert "meld 9C" not in st2.legal_actions() and "confirm" not in st2.legal_actions()
    with pytest.raises(IllegalAction):
        st2.apply("meld 9C")


def test_meld_confirm_numbers_melds_from_one_over_all_players() -> None:
    st = new(
        [["5H", "6H", "7H", *FILL], ["9C", "9D", "9S", "3S", "4D", "5S", "7C", "JD"]],
        stock=["KD", "KH", "2S", "2S"],
    )
    play(st, "draw stock", "meld 7H", "meld 5H", "meld 6H", "confirm", "discard KD")
    play(st, "draw stock", "meld 9S", "meld 9C", "meld 9D", "confirm", "discard KH")
    obs = st.observation(0)
    assert [(m["n"], m["owner"], m["cards"]) for m in obs["table"]] == [
        (1, 0, "5H 6H 7H"),
        (2, 1, "9C 9D 9S"),
    ]


def test_takeback_returns_hand_and_table_to_the_state_after_the_draw() -> None:
    st = new(
        [["5H", "6H", "7H", "8H", *FILL], ["9C", "9D", "3S", "4D", "5S", "7C", "JD", "QD"]],
        stock=["9H", "KH", "2S", "2S"],
    )
    play(st, "draw stock")
    hand = sorted(st.observation(0)["hand"])
    play(st, "meld 5H", "meld 6H")
    assert "takeback" in st.legal_actions() and not any(a.startswith("discard") for a in st.legal_actions())
    play(st, "takeback")
    assert sorted(st.observation(0)["hand"]) == hand and table(st) == []
    play(st, "meld 5H", "meld 6H", "meld 7H", "confirm")
    assert "takeback" not in st.legal_actions()  # the turn can end as it stands
    play(st, "layoff 8H 1")
    assert table(st) == ["5H 6H 7H 8H"]


def test_layoff_at_both_ends_of_a_run_and_a_missing_suit_of_a_set() -> None:
    st = new(
        [["5H", "6H", "7H", "4H", "8H", "2C", "4D", "6S"], ["9C", "9D", "9S", "9H", "3S", "JD", "QD", "KD"]],
        stock=["KH", "KS", "2S", "2S"],
    )
    play(st, "draw stock", "meld 5H", "meld 6H", "meld 7H", "confirm")
    legal = st.legal_actions()
    assert "layoff 4H 1" in legal and "layoff 8H 1" in legal
    play(st, "layoff 4H 1", "layoff 8H 1", "discard KH")
    assert table(st) == ["4H 5H 6H 7H 8H"]
    play(st, "draw stock", "meld 9C", "meld 9D", "meld 9S", "confirm")
    play(st, "discard KS")
    assert table(st)[1] == "9C 9D 9S"


def test_joker_in_a_set_names_a_missing_suit() -> None:
    st = new([["7H", "7S", "JK", *FILL], FILL], stock=["KH", "2S", "2S"])
    play(st, "draw stock", "meld 7H")
    legal = st.legal_actions()
    assert "meld JK=7C" in legal and "meld JK=7D" in legal and "meld JK=7H" not in legal
    play(st, "meld JK=7D", "meld 7S", "confirm")
    assert table(st) == ["7H 7S JK=7D"]


def test_two_copies_of_a_card_never_share_a_set() -> None:
    st = new([["7H", "7H", "7S", *FILL], FILL], stock=["KH", "2S", "2S"])
    play(st, "draw stock")
    assert "meld 7H" not in st.legal_actions() and "meld 7S" not in st.legal_actions()
    st = new([["7H", "7H", "7S", "7D", *FILL], FILL], stock=["KH", "2S", "2S"])
    play(st, "draw stock", "meld 7H")
    assert "meld 7H" not in st.legal_actions() and "meld 7S" in st.legal_actions()


# --------------------------------------------------------------------- card kept, first round
def test_table_play_keeps_two_cards_before_going_out_is_allowed() -> None:
    # seat 0 (voorhand) may not go out in his first turn: the hand of 4 after the draw keeps 2
    st = new([["5H", "6H", "7H"], ["2C", "4D", "6S", "8C", "TD", "QS", "KC"]], stock=["8H", "2S", "2S", "3S"])
    play(st, "draw stock")
    assert "meld 5H" not in st.legal_actions()  # a meld of 3 would leave only 1 card
    st = new(
        [["5H", "6H", "7H", "KD"], ["2C", "4D", "6S", "8C", "TD", "QS", "KC"]], stock=["8H", "2S", "2S", "3S"]
    )
    play(st, "draw stock", "meld 5H", "meld 6H", "meld 7H")
    assert "meld 8H" not in st.legal_actions() and "confirm" in st.legal_actions()


def test_going_out_earliest_in_the_dealers_first_turn() -> None:
    st = new([["2C", "4D", "6S", "8C"], ["5H", "6H", "7H", "KD"]], stock=["KS", "8H", "2S", "2S", "3S"])
    play(st, "draw stock", "discard KS")  # seat 0, voorhand
    play(st, "draw stock", "meld 5H", "meld 6H", "meld 7H", "meld 8H", "confirm")  # seat 1 = dealer
    assert st.legal_actions() == ["discard KD"]
    play(st, "discard KD")
    assert [e["seat"] for e in events(st, "jokeren_drift.went_out")] == [1]
    assert st.deal_no == 2


# --------------------------------------------------------------------- stock (X3, X7)
def test_x3_stock_reshuffled_at_once_keeping_the_top_discard() -> None:
    st = new([["2C", "4D", "6S", "8C", "TD"], ["3C", "5D", "7S", "9C", "JD"]], stock=["KS"], upcard="QH")
    play(st, "draw stock")  # empties the stock: re-formed at once, but the pile has only QH
    assert st.observation(0)["stock_size"] == 0
    play(st, "discard KS")  # seat 1's turn begins: pile QH KS -> stock QH, pile KS
    ev = events(st, "jokeren_drift.stock_reshuffled")
    assert len(ev) == 1 and ev[0]["cards"] == 1
    obs = st.observation(1)
    assert obs["discard_top"] == "KS" and obs["stock_size"] == 1


def test_x3_flip_turns_the_pile_over_oldest_card_on_top() -> None:
    g = load_game("jokeren_drift")
    g.reform = "flip"  # type: ignore[misc]  (the policy of ramino_drift; the machinery is shared)
    st = g.new_match(
        seed=1,
        players=2,
        deal={
            "partial": True,
            "dealer": 1,
            "hands": [["2C", "4D", "6S", "8C", "TD"], ["3C", "5D", "7S", "9C", "JD"]],
            "stock": ["KS", "KH", "KD"],
            "upcard": "QH",
        },
    )
    play(st, "draw stock", "discard 2C", "draw stock", "discard 3C", "draw stock")
    # stock empty after the third draw: pile QH 2C 3C -> stock from the oldest: QH then 2C; pile 3C
    assert [e["event"] for e in st.events if e["event"].endswith("flipped")] == [
        "jokeren_drift.stock_flipped"
    ]
    assert isinstance(st, RummyState)
    assert [TOKENS[c] for c in reversed(st.stock)] == ["QH", "2C"] and [TOKENS[c] for c in st.pile] == ["3C"]


def test_x7_deal_without_winner_when_reforms_are_used_up() -> None:
    st = new(
        [["2C", "4D", "6S", "8C", "TD"], ["3C", "5D", "7S", "9C", "JD"]],
        stock=["KS"],
        upcard="QH",
        max_reforms=0,
    )
    play(st, "draw stock", "discard KS")
    ev = events(st, "jokeren_drift.deal_without_winner")
    assert len(ev) == 1 and st.deal_no == 2
    assert st.score_sheet()[0] == [float(2 + 4 + 6 + 8 + 10 + 11 - 11), float(3 + 5 + 7 + 9 + 10)]


def test_x7_no_cap_with_max_reforms_none() -> None:
    st = new(
        [["2C", "4D", "6S", "8C", "TD"], ["3C", "5D", "7S", "9C", "JD"]],
        stock=["KS"],
        upcard="QH",
        max_reforms=None,
    )
    for _ in range(10):
        play(st, "draw stock")
        play(st, st.legal_actions()[0])
    assert len(events(st, "jokeren_drift.stock_reshuffled")) >= 5
    assert not events(st, "jokeren_drift.deal_without_winner")


# --------------------------------------------------------------------- use it at once (swap)
def test_swapped_joker_must_be_used_at_once_before_the_turn_ends() -> None:
    st = new(
        [["5H", "JK", "7H", "KD", "9C", "9D", "2S"], ["6H", "3C", "3C", "4D", "QS", "TD", "8S"]],
        stock=["2D", "QC", "5S", "5S"],
    )
    play(st, "draw stock", "meld 5H", "meld JK=6H", "meld 7H", "confirm", "discard 2D")
    play(st, "draw stock", "discard QC")
    play(st, "draw stock")
    # seat 0 has a meld; he holds no 6H, so no swap; seat 1 swaps next turn
    play(st, "discard 5S")
    play(st, "draw stock")
    assert "swap 6H 1" not in st.legal_actions()  # seat 1 has no meld on the table (JD4)


def test_swap_offered_only_if_the_freed_joker_can_be_used() -> None:
    st = new(
        [["5H", "JK", "7H", "KD", "2S", "6H", "QC"], ["3C", "3C", "4D", "QS", "TD", "8S", "9S"]],
        stock=["9C", "9D", "5S", "5S"],
    )
    play(st, "draw stock", "meld 5H", "meld JK=6H", "meld 7H", "confirm")
    # the freed joker needs two hand cards for a new meld (JD5): KD 2S QC 9C make none with it
    assert "swap 6H 1" not in st.legal_actions()


def test_swap_then_new_meld_with_the_joker() -> None:
    st = new(
        [["5H", "JK", "7H", "KD", "9C", "9D", "6H", "2S"], ["3C", "3C", "4D", "QS", "TD", "8S", "9S", "JC"]],
        stock=["AC", "AD", "5S", "5S"],
    )
    play(st, "draw stock", "meld 5H", "meld JK=6H", "meld 7H", "confirm")
    assert "swap 6H 1" in st.legal_actions()
    play(st, "swap 6H 1")
    assert table(st) == ["5H 6H 7H"]
    assert not any(a.startswith("discard") for a in st.legal_actions())  # the joker is still in hand
    play(st, "meld 9C", "meld 9D", "meld JK=9H", "confirm")
    assert any(a.startswith("discard") for a in st.legal_actions())
    assert [e["card"] for e in events(st, "jokeren_drift.joker_swapped")] == ["6H"]


# ------------------------------------------------------ the fast paths agree with the exact test
def test_start_mask_agrees_with_the_exact_completability_test() -> None:
    st = new([FILL, FILL])
    assert isinstance(st, RummyState)
    deck = [c for c in cards_of(st.deck_mask)] + [c for c in bits(st.hands[0] | st.hands[1])]
    rng = random.Random(5)
    from engine.cards import deck_108

    full = deck_108()
    for _ in range(400):
        hand = 0
        for c in rng.sample(full, rng.randint(3, 14)):
            hand |= 1 << c
        bases = base_set(hand)
        jokers = (hand & JOKER_MASK).bit_count()
        limit = rng.randint(2, 14)
        fast = st._start_mask(bases, jokers, limit)
        slow = 0
        for x in bits(bases):
            if st._completable([(x, None)], bases, jokers, limit - 1):
                slow |= 1 << x
        assert fast == slow, (sorted(TOKENS[c] for c in bits(hand)), limit)
    assert deck


def test_clone_copies_the_table_melds() -> None:
    st = new([["5H", "6H", "7H", "8H", *FILL], FILL], stock=["9H", "KH", "2S", "2S"])
    play(st, "draw stock", "meld 5H", "meld 6H", "meld 7H", "confirm")
    cl = st.clone()
    play(cl, "layoff 8H 1")
    assert table(st) == ["5H 6H 7H"] and table(cl) == ["5H 6H 7H 8H"]


def test_determinize_keeps_the_card_taken_from_the_discard_pile() -> None:
    st = new(
        [["2C", "4D", "6S", "8C", "TD"], ["3C", "5D", "7S", "9C", "JD"]],
        stock=["KS", "KH", "QD"],
        upcard="QH",
    )
    play(st, "draw discard", "discard 2C")
    d = st.determinize(1, random.Random(3))
    assert isinstance(d, RummyState) and isinstance(st, RummyState)
    assert "QH" in [TOKENS[c] for c in bits(d.hands[0])]
    assert d.hands[1] == st.hands[1]
    assert d.invariant_violations() == []


def test_takeback_cap_offers_every_action_after_which_the_turn_can_still_end() -> None:
    # meld protocol (revised turn 3): after the third take-back, table play stays open wherever the
    # turn can still end (meld 5H 6H 7H, then a discard), and never takes the turn where it cannot
    st = new([["5H", "6H", "7H", *FILL], FILL], stock=["KH", "2S", "2S"])
    play(st, "draw stock")
    for _ in range(3):
        play(st, "meld 5H", "takeback")
    legal = st.legal_actions()
    assert "takeback" not in legal and {"meld 5H", "meld 6H", "meld 7H"} <= set(legal)
    assert set(legal) == finishable_actions(st)
    play(st, "meld 6H")
    assert st.legal_actions() == ["meld 5H", "meld 7H"]  # no take-back left: the meld is finished
    play(st, "meld 7H", "meld 5H", "confirm")
    assert can_discard(st) and table(st) == ["5H 6H 7H"]


@pytest.mark.parametrize("game", SWAP_GAMES)
def test_use_it_at_once_agrees_with_the_oracle_when_the_freed_jokers_place_needs_a_natural_laid_off_first(
        game: str) -> None:
    # "use it at once" (J2/J6/J16, AJ15, JD5, RD6) is exact: on random positions where the freed
    # joker's only place on a run may open after a natural of the hand is laid off (or a new meld
    # takes it), a swap, and the pick-up of the swapping card, are offered exactly when some line
    # ends the turn.  (Loba never frees a joker.)
    rng = random.Random(21)
    seen = {True: 0, False: 0}
    for i in range(120):
        st, swap = joker_after_layoff_position(game, rng, from_pile=i % 2 == 1)
        act = "draw discard" if i % 2 else swap
        expected = oracle_can_end(oracle_after(st, act))
        assert (act in st.legal_actions()) == expected, (i, st.observation(0)["hand"], table(st))
        seen[expected] += 1
    assert seen[True] >= 20


def plain_finishable(st: Any, actions: list[str]) -> list[str]:
    """The take-back cap's answer by the plain exact search: each action on a copy of its own, then
    engine.deadwood.plan_search over the search's moves, a copy per move, a meld built card by card
    (what RummyState._finishable answered before it searched a meld being built in place)."""
    from engine.deadwood import plan_search
    deal = st.deal_no
    out = []
    for a in actions:
        probe = st._light_clone()
        probe.takebacks = 0
        probe._apply(a)
        if plan_search(probe, st._search_moves, st._search_play, lambda s: st._search_goal(s, deal),
                       st._search_key) is not None:
            out.append(a)
    return out


CAP_CASES: list[Any] = [(g, {}, 1) for g in MELD_PROTOCOL] + [("jokeren_drift", {"open40": True}, 1),
                                                             ("jokeren_nl", {"open50": True}, 1)] + [
    ("amerikaans_jokeren", {}, r) for r in range(2, 5)] + [  # AJ10: each round's opening requirement
    pytest.param("amerikaans_jokeren", {}, r, marks=pytest.mark.slow) for r in (5, 6)]  # (slow plain search)


def random_deal(game: str, seed: int, deal_no: int, **opts: Any) -> Any:
    """A two-player match of ``game`` from a random whole deal injected as deal number ``deal_no``."""
    rng = random.Random(seed)
    deck = [TOKENS[c] for c in load_game(game, **opts).deck()]  # type: ignore[attr-defined]
    rng.shuffle(deck)
    return gamekit.new(game, [deck[:13], deck[13:26]], partial=False, seed=seed, max_deals=1,
                       options=opts, dealer=1, upcard=deck[26], stock=deck[27:], deal_no=deal_no)


@pytest.mark.parametrize(("game", "opts", "deal_no"), CAP_CASES)
def test_revised_turn_3_the_caps_search_answers_as_the_plain_exact_search(game: str, opts: dict[str, Any],
                                                                          deal_no: int) -> None:
    # meld protocol (revised turn 3): the take-back cap's search (a meld being built searched in place,
    # one memo for all the actions, a game's sound refusals) keeps exactly the table plays the plain
    # search keeps (a copy per move, no refusal), at every position of random matches that take back
    # often (capped and not) and build melds often: positions being built and not, actions kept and
    # refused
    g = load_game(game, **opts)
    seen = {"kept": 0, "refused": 0, "building": 0}
    for seed in range(6 if deal_no == 1 else 2):  # (rounds 5 and 6's plain searches are slow)
        rng = random.Random(seed)
        st: Any = g.new_match(seed=seed, max_deals=1) if deal_no == 1 else \
            random_deal(game, seed, deal_no, **opts)
        for _ in range(600):
            if st.is_over():
                break
            legal = st.legal_actions()
            if st.phase == "play":
                probe = st.clone()
                probe.takebacks = 0
                probe._legal = None
                table = [a for a in probe.legal_actions() if a != "takeback" and not a.startswith("discard ")]
                if table:
                    st.rg.cache.pop(("finish", tuple(table), *st._position_key()), None)
                    got = st._finishable(table)
                    assert got == plain_finishable(st, table), (seed, st.history[-8:], table)
                    seen["kept"] += len(got)
                    seen["refused"] += len(table) - len(got)
                    seen["building"] += bool(st.building)
            if "takeback" in legal and rng.random() < 0.5:
                a = "takeback"
            else:
                tab = [x for x in legal if not x.startswith("discard ")]
                a = rng.choice(tab if tab and rng.random() < 0.8 else legal)
            st.apply(a)
    # (plain Jokeren Drift has no opening requirement: a meld that can be built can be laid)
    assert seen["kept"] >= (0 if deal_no == 6 else 50) and seen["building"] >= 20, seen  # (AJ4: rarely out)
    assert seen["refused"] >= (0 if (game, opts) == ("jokeren_drift", {}) else 5), seen


@pytest.mark.parametrize("game", MELD_PROTOCOL)
def test_revised_turn_3_the_searchs_meld_legality_memo_agrees_with_meld_ok(game: str) -> None:
    # meld protocol: the cap's search asks whether the meld being built may be confirmed through a
    # memo keyed by each item's card (a joker: the card it names) and joker flag; on random melds
    # in the making (one rank or one suit, 1-7 cards, jokers anywhere, either physical copy of a card)
    # it answers as _meld_ok itself, whatever was asked before it
    from engine.cards import PHYS
    memo: Any = load_game(game).new_match(seed=1)
    plain: Any = load_game(game).new_match(seed=1)
    rng = random.Random(5)
    legal = 0
    for _ in range(3000):
        r, s = rng.randrange(13), rng.randrange(4)
        pool = [q * 13 + r for q in range(4)] if rng.random() < 0.5 else [s * 13 + k for k in range(13)]
        bases = [rng.choice(pool) for _ in range(rng.randint(1, 7))]
        items = [(rng.choice(PHYS["JK"]), b) if rng.random() < 0.3 else (rng.choice(PHYS[TOKENS[b]]), None)
                 for b in bases]
        want = plain._meld_ok(items) is not None
        assert memo._meld_legal(items) == want, items
        legal += want
    assert legal >= 50
