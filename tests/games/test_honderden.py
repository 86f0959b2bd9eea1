"""Honderden / Smousjas, two players (RULES.md 2.18, seed 003 L363-416): decisions HO1-HO20 and
the card's rule events, on injected deals."""
from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from engine.cards import TOKENS, cards_of, deck_32
from engine.games.jass._honderden import HonderdenState, melds_in
from engine.games.jass._jass import mask_of_tokens
from tests import gamekit
from tests.gamekit import hand_of as hand
from tests.gamekit import play
from tests.gamekit import plays as plays_only

ALL = [TOKENS[c] for c in deck_32()]


def deal2(h0: list[str], h1: list[str], up: str, stock_top: tuple[str, ...] = (),
          dealer: int = 0) -> dict[str, Any]:
    """An injected deal: the given hands and upcard; the stock starts with ``stock_top``, the
    remaining cards follow in deck order."""
    used = set(h0) | set(h1) | {up} | set(stock_top)
    rest = [t for t in ALL if t not in used]
    return {"dealer": dealer, "hands": [h0, h1], "upcard": up, "stock": list(stock_top) + rest}


def new(h0: list[str], h1: list[str], up: str = "8H", stock_top: tuple[str, ...] = (),
        dealer: int = 0, seed: int = 1, **options: Any) -> HonderdenState:
    st = gamekit.from_deal("honderden", deal2(h0, h1, up, stock_top, dealer), seed=seed, options=options)
    assert isinstance(st, HonderdenState)
    return st


def events(state: State, name: str) -> list[dict[str, Any]]:
    return gamekit.events(state, name, "honderden.")


def play_out(state: HonderdenState, stop_before_last: bool = False) -> None:
    """Play the deal with the first legal card each turn (the lower card id), taking the face-down
    card at the last stock choice; optionally stop before the last card of the deal."""
    deal = state.deal_no
    while not state.is_over() and state.deal_no == deal:
        if state.phase == "choose":
            state.apply("draw stock")
            continue
        if stop_before_last and sum(h.bit_count() for h in state.hands) == 1:
            return
        state.apply(plays_only(state)[0])


# a deal with melds: seat 1 (leader) holds a run of 5 spades and four jacks; seat 0 (dealer) two
# runs of 3, Stuk (KH QH) and the trump 7; hearts are trump (the turned 8H)
H0 = ["AC", "KC", "QC", "9D", "8D", "7D", "KH", "QH", "7H"]
H1 = ["AS", "KS", "QS", "JS", "TS", "JC", "JD", "JH", "7C"]


# ------------------------------------------------------------------------------ decisions
def test_ho1_four_jacks_200_other_carres_100() -> None:
    ms = melds_in(mask_of_tokens("JC JD JH JS AC AD AH AS"))
    assert sorted((m.kind, m.value) for m in ms) == [("carre", 100), ("carre", 200)]
    st = new(H0, H1)
    play(st, "declare JC JD JH JS", "play 7C", "play 7D")
    win = events(st, "meld_100_deal_win")
    assert [(e["seat"], e["value"]) for e in win] == [(1, 200)]


def test_ho2_no_carre_of_nines_eights_sevens() -> None:
    for r in "987":
        assert melds_in(mask_of_tokens(f"{r}C {r}D {r}H {r}S")) == []
    st = new(["9C", "9D", "9H", "9S", "8C", "8D", "8S", "AC", "KD"],
             ["7C", "7D", "7S", "TC", "KC", "QS", "TD", "JS", "AD"], up="8H")
    assert not [a for a in st.legal_actions() if a.startswith("declare ") and a != "declare dek"]


def test_ho3_running_total_counts_cards_melds_and_stuk() -> None:
    st = new(H0, H1, perfect_recall=True)
    # seat 1 leads 7C; seat 0 declares AC KC QC (20) and plays KH with QH in hand: Stuk 20
    play(st, "play 7C", "declare AC KC QC", "play KH")
    totals = st.observation(0)["totals"]
    assert totals[0] == 20 + 20 + 3  # meld 20, Stuk 20, the trick: KH (trump K) 3 + 7C 0
    assert totals[1] == 0


def test_ho4_meld_of_100_is_a_won_deal_outside_the_running_total() -> None:
    st = new(H0, H1, perfect_recall=True)
    play(st, "declare AS KS QS JS TS", "play 7C", "play 7D")
    assert st.scores() == [0.0, 1.0]
    assert st.observation(1)["totals"] == [0, 0]  # 7C, 7D worth nothing; the 100 is not added
    assert not st.is_over() and st.deal_no == 1  # play continues


def test_ho5_both_above_100_the_higher_wins_equal_replays() -> None:
    for a, b, expect in ((130, 110, 0), (120, 120, None)):
        st = new(H0, H1)
        play_out(st, stop_before_last=True)
        probe = st.clone()
        assert isinstance(probe, HonderdenState)
        probe.apply(plays_only(probe)[0])
        gain = [probe.results[-1][s] - st.total[s] for s in (0, 1)]
        st.total = [a - gain[0], b - gain[1]]
        st.apply(plays_only(st)[0])
        if expect is None:
            assert events(st, "tie_replay") and st.scores() == [0.0, 0.0]
            assert st.dealer == 0 and st.deal_no == 2  # the same dealer replays
            assert st.total == [0, 0]  # from the totals carried into the tied deal
        else:
            assert st.scores()[expect] >= 1 and not events(st, "tie_replay")


def test_ho6_stock_phase_trick_won_by_trump_or_highest_of_led_suit() -> None:
    st = new(H0, H1)
    play(st, "play AS", "play AC")  # no need to follow; AC does not beat AS (not led, not trump)
    assert st.current_player == 1 and st.observation(1)["last_trick"] == [[1, "AS"], [0, "AC"]]
    st = new(H0, H1)
    play(st, "play AS", "play 7H")  # a trump wins
    assert st.current_player == 0


def test_ho7_observation_hides_totals_and_announced_cards() -> None:
    st = new(H0, H1)
    play(st, "declare AS KS QS JS TS")
    obs0 = st.observation(0)
    assert obs0["declarations"] == [{"kind": "run", "length": 5, "top": "A", "seat": 1}]
    assert "totals" not in obs0 and "played" not in obs0
    play(st, "play 7C", "play 7D")
    shown = st.observation(0)["declarations"][0]
    assert shown["cards"] == ["AS", "KS", "QS", "JS", "TS"] and shown["rejected"] is False
    assert st.observation(0)["known_cards"] == {"1": ["TS", "JS", "QS", "KS", "AS"]}
    assert "totals" in load_game("honderden", perfect_recall=True).new_match(seed=1).observation(0)


def test_ho8_match_to_five_game_points() -> None:
    game = load_game("honderden")
    for seed in range(20):
        st = game.new_match(seed=seed)
        rng = random.Random(seed)
        while not st.is_over():
            st.apply(rng.choice(st.legal_actions()))
        assert max(st.scores()) >= 5
        assert st.ranking() == ([1, 2] if st.scores()[0] > st.scores()[1] else
                                [2, 1] if st.scores()[0] < st.scores()[1] else [1, 1])
    st = load_game("honderden", target=1).new_match(seed=3)
    st.apply("declare dek")
    assert st.is_over()


def test_ho9_non_dealer_leads() -> None:
    assert new(H0, H1, dealer=0).current_player == 1
    assert new(H1, H0, dealer=1).current_player == 0


def test_ho10_each_100_meld_is_one_game_point_smaller_melds_add_up() -> None:
    st = new(H0, H1, perfect_recall=True)
    play(st, "declare AS KS QS JS TS", "declare JC JD JH JS", "play 7C")
    play(st, "declare AC KC QC", "declare 9D 8D 7D", "play 7D")
    assert st.scores() == [0.0, 2.0]  # two melds of 100+ (the jacks' 200 included): two points
    assert st.observation(0)["totals"][0] == 40  # 20 + 20 go to the running total
    assert len(events(st, "meld_100_deal_win")) == 2


def test_ho11_a_higher_follower_meld_voids_the_leaders_declaration() -> None:
    # leader (seat 1) announces 3 to the queen; the follower's run of 5 voids it
    h1 = ["QS", "JS", "TS", "9C", "8C", "AD", "KD", "7C", "9H"]
    h0 = ["AH", "KH", "QH", "JH", "TH", "7D", "8D", "7S", "9S"]
    st = new(h0, h1, up="8H", perfect_recall=True)
    play(st, "declare QS JS TS", "play 7C", "declare AH KH QH JH TH", "play 7D")
    assert [e["seat"] for e in events(st, "meld_rejected")] == [1]
    assert st.observation(0)["totals"][1] == 0 and st.scores() == [1.0, 0.0]
    # a lower follower meld: both declarations count
    st = new(["9D", "8D", "7D", "7S", "AC", "KC", "TH", "JH", "QH"], h1, up="8H", perfect_recall=True)
    play(st, "declare QS JS TS", "play 7C", "declare 9D 8D 7D", "play 7S")
    assert not events(st, "meld_rejected")
    assert st.observation(0)["totals"][0] == 20 and st.observation(0)["totals"][1] == 20


def test_ho12_ik_dek_right_wins_the_deal_wrong_gives_it_away() -> None:
    st = new(H0, H1)
    assert "declare dek" in st.legal_actions()  # offered whatever the total
    st.apply("declare dek")
    assert events(st, "ik_dek")[0]["result"] == "false"
    assert st.scores() == [2.0, 0.0]  # the opponent wins; the claimer (0 points) is onder jan
    st = new(H0, H1)
    st.total[1] = 100
    st.apply("declare dek")
    assert events(st, "ik_dek")[0]["result"] == "correct" and st.scores() == [0.0, 2.0]


def test_ho13_dealers_first_drawn_then_alternate_after_a_won_deal() -> None:
    firsts = {load_game("honderden").new_match(seed=s).dealer for s in range(12)}  # type: ignore[attr-defined]
    assert firsts == {0, 1}
    st = new(H0, H1)
    st.apply("declare dek")  # a won deal: the other player deals
    assert st.deal_no == 2 and st.dealer == 1
    st = new(H0, H1)
    play_out(st)  # with 146 points split nobody may reach 100: then the same dealer deals again
    if events(st, "carry_over"):
        assert st.dealer == 0 and st.carried != [0, 0]
    else:
        assert st.dealer == 1


def test_ho14_equal_melds_trump_run_wins_else_the_leader_stands() -> None:
    h1 = ["QS", "JS", "TS", "9C", "8C", "AD", "KD", "7C", "9H"]
    # follower's QH JH TH in trump (hearts): equal size and top, in trump: it rejects
    st = new(["QH", "JH", "TH", "7D", "8D", "7S", "AC", "KC", "9S"], h1, up="8H")
    play(st, "declare QS JS TS", "play 7C", "declare QH JH TH", "play 7D")
    assert [e["seat"] for e in events(st, "meld_rejected")] == [1]
    # the same with diamonds trump: exactly equal, the leader's meld stands
    st = new(["QH", "JH", "TH", "7H", "8H", "7S", "AC", "KC", "9S"], h1, up="8D")
    play(st, "declare QS JS TS", "play 7C", "declare QH JH TH", "play 7H")
    assert not events(st, "meld_rejected")
    # a carre (4 cards) beats a run of 3; a run of 5 beats a carre; the queens beat the jacks
    st = new(["QC", "QD", "QH", "QS", "7D", "8D", "7S", "AC", "9S"],
             ["JC", "JD", "JH", "JS", "7C", "9C", "8C", "AD", "KD"], up="8H")
    play(st, "declare JC JD JH JS", "play 7C", "declare QC QD QH QS", "play 7D")
    assert [e["seat"] for e in events(st, "meld_rejected")] == [1]
    assert st.scores() == [1.0, 0.0]


def test_ho15_trump7_swap_before_play_does_not_use_the_turn() -> None:
    st = new(H0, H1, up="AH")
    play(st, "play 7C")
    assert "swap 7H" in st.legal_actions()
    play(st, "swap 7H")
    assert st.current_player == 0 and "AH" in hand(st, 0) and "7H" not in hand(st, 0)
    assert st.observation(1)["upcard"] == "7H" and st.observation(1)["known_cards"] == {"0": ["AH"]}
    assert "swap 7H" not in st.legal_actions()
    assert [e["card"] for e in events(st, "trump7_swap")] == ["AH"]
    with pytest.raises(IllegalAction, match="HO15"):
        st.apply("swap 7H")


def test_ho16_last_stock_choice_shows_the_face_down_card() -> None:
    st = new(H0, H1)
    for _ in range(7):
        while st.phase != "choose" and st.ntricks < 7:
            st.apply(plays_only(st)[0])
    assert st.phase == "choose" and len(st.stock) == 1
    w = st.current_player
    assert w is not None
    assert st.legal_actions() == ["draw stock", "draw 8H"]
    down = TOKENS[st.stock[0]]
    st.apply("draw 8H")
    ev = events(st, "last_stock_choice")[0]
    assert ev["seat"] == w and ev["took"] == "8H" and ev["shown"] == down
    assert down in hand(st, 1 - w) and "8H" in hand(st, w)
    assert st.observation(w)["known_cards"][str(1 - w)] == [down]
    assert events(st, "phase_change")[0]["stage"] == "stock_empty"


def test_ho17_onder_jan_at_the_claim_and_no_pit_after_a_claim() -> None:
    st = new(H0, H1)
    st.carried = [0, 60]
    st.total = [100, 60]  # the loser has 60 with carried points: not under 50
    st.tricks_won = [0, 0]
    st.apply("declare dek")  # seat 1 leads: seat 1 claims with 60, wrong
    assert st.scores() == [1.0, 0.0] and not events(st, "onder_jan") and not events(st, "pit")


def test_ho18_lives_and_the_kip() -> None:
    st = new(H0, H1, lives=2)
    assert st.scores() == [2.0, 2.0]
    st.apply("declare dek")  # seat 1 wrong: seat 0 wins 2 game points (onder jan), seat 1 -> 0
    assert [e["seat"] for e in events(st, "op_de_kip")] == [1]
    assert st.scores() == [2.0, 1.0] and not st.is_over()
    # the next loss ends the match (the kip is used)
    while not st.is_over():
        st.apply("declare dek")
    assert st.ranking()[0] != st.ranking()[1]


def test_ho19_follow_rules_by_phase() -> None:
    st = new(H0, H1)
    play(st, "play AS")
    assert set(plays_only(st)) == {"play " + t for t in H0}  # stock phase: anything
    st = new(H0, H1)
    while st.stock or st.upcard >= 0:
        if st.phase == "choose":
            st.apply("draw stock")
        else:
            st.apply(plays_only(st)[0])
    # phase 3: follow suit or trump; trump led, a trump if you have one; void, anything
    leader = st.current_player
    assert leader is not None
    st.apply(plays_only(st)[0])
    led = st.trick[0] // 13
    seat = st.current_player
    assert seat is not None
    other = st.hands[seat]
    follow = {c for c in cards_of(other) if c // 13 == led}
    trumps = {c for c in cards_of(other) if c // 13 == st.trump}
    got = {c for c in cards_of(other) if "play " + TOKENS[c] in st.legal_actions()}
    if led == st.trump:
        assert got == (trumps or set(cards_of(other)))
    elif follow:
        assert got == follow | trumps
    else:
        assert got == set(cards_of(other))


def test_ho20_stuk_scored_automatically_with_the_first_of_k_and_q() -> None:
    st = new(H0, H1, perfect_recall=True)
    play(st, "play 7C", "play QH")
    assert [e["seat"] for e in events(st, "stuk")] == [0]
    assert st.observation(0)["totals"][0] == 20 + 2  # Stuk + the trump queen
    assert not [a for a in st.legal_actions() if a.startswith("declare stuk")]


# ------------------------------------------------------------------------------ events
def test_events_carry_over_pit_and_onder_jan() -> None:
    st = new(H0, H1)
    play_out(st, stop_before_last=True)
    probe = st.clone()
    assert isinstance(probe, HonderdenState)
    probe.apply(plays_only(probe)[0])
    w = max((0, 1), key=lambda s: probe.results[-1][s] - st.total[s])
    # nobody at 100: carry over
    st2 = st.clone()
    assert isinstance(st2, HonderdenState)
    st2.total = [10, 10]
    st2.apply(plays_only(st2)[0])
    assert events(st2, "carry_over") and st2.dealer == 0 and st2.carried != [0, 0]
    # the last trick's taker took every trick: a pit, and the loser is onder jan
    st.tricks_won = [0, 0]
    st.tricks_won[w] = st.ntricks
    st.total = [0, 0]
    st.total[w] = 140
    st.apply(plays_only(st)[0])
    assert events(st, "pit")[0]["seat"] == w and events(st, "onder_jan")[0]["seat"] == 1 - w
    assert st.scores()[w] == 3.0  # 1 + onder jan + pit


def test_event_names() -> None:
    """Every event of the card is emitted under its RULES.md name."""
    names = {"honderden.trump7_swap", "honderden.meld_announced", "honderden.meld_rejected",
             "honderden.stuk", "honderden.last_stock_choice", "honderden.phase_change",
             "honderden.ik_dek", "honderden.meld_100_deal_win", "honderden.carry_over",
             "honderden.onder_jan", "honderden.pit", "honderden.op_de_kip", "honderden.tie_replay"}
    seen: set[str] = set()
    game = load_game("honderden", lives=3)
    for seed in range(300):
        st = game.new_match(seed=seed)
        rng = random.Random(seed)
        while not st.is_over():
            legal = st.legal_actions()
            plays = [a for a in legal if a != "declare dek"]
            st.apply(rng.choice(plays if plays and rng.random() < 0.97 else legal))
        seen |= {e["event"] for e in st.events}
    assert seen <= names
    assert {"honderden.trump7_swap", "honderden.meld_announced", "honderden.stuk",
            "honderden.last_stock_choice", "honderden.ik_dek", "honderden.op_de_kip"} <= seen


def test_invariant_146_per_deal_and_determinize_keeps_public_cards() -> None:
    game = load_game("honderden")
    for seed in range(30):
        st = game.new_match(seed=seed, max_deals=2)
        rng = random.Random(seed)
        while not st.is_over():
            assert not st.invariant_violations()
            seat = st.current_player
            assert seat is not None
            d = st.determinize(seat, random.Random(seed))
            assert isinstance(d, HonderdenState)
            assert d.hands[seat] == st.hands[seat]  # type: ignore[attr-defined]
            assert not d.invariant_violations()
            legal = [a for a in st.legal_actions() if a != "declare dek"] or st.legal_actions()
            st.apply(rng.choice(legal))


def test_a_second_declaration_on_a_clone_never_reaches_the_original() -> None:
    """Issue 21 §1 (two players): a seat's second declaration made on a clone (or a determinized
    copy) stays there; the original's declarations, legal list and future are unchanged."""
    from tests.conformance import fingerprint
    checked = 0
    for seed in range(300):
        s = load_game("honderden").new_match(seed=seed, max_deals=1)
        while not s.is_over() and checked < 5:
            decl = [a for a in s.legal_actions() if a.startswith("declare") and a != "declare dek"]
            mine = s.decls and s.decls[-1][0] == s.turn  # type: ignore[attr-defined]
            if decl and mine:
                before = fingerprint(s)
                for copy in (s.clone(), s.determinize(s.turn, random.Random(seed))):
                    for a in copy.legal_actions():
                        if a.startswith("declare") and a != "declare dek":
                            copy.clone().apply(a)
                    copy.apply(decl[0] if decl[0] in copy.legal_actions() else copy.legal_actions()[0])
                assert fingerprint(s) == before, f"seed {seed}"
                checked += 1
            s.apply(s.legal_actions()[0] if not decl else decl[0])
        if checked >= 5:
            break
    assert checked == 5
