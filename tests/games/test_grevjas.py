"""Grevjas (RULES.md 2.17, seed 003 L322-359): decisions GJ1-GJ17 and the card's rule events."""
from __future__ import annotations

import itertools
import random
from typing import Any

from engine import State, load_game
from engine.cards import TOKENS
from tests import gamekit
from tests.gamekit import events as ev
from tests.gamekit import first_play, play
from tests.gamekit import hand_set as hand_of
from tests.games.test_kruisjassen import MIX, PIT

G = "grevjas"

# Trump hearts (the dealer's Jas is the turned card).  Seat 1 holds K and Q of trumps; side 0
# (seats 0 and 2) can take every trick.
STUKPIT = [
    ["AC", "AD", "AS", "KC", "KD", "9H", "AH", "JH"],
    ["KH", "QH", "7C", "8C", "9C", "7D", "8D", "9D"],
    ["TH", "8H", "7H", "KS", "QS", "JS", "TS", "9S"],
    ["TC", "JC", "QC", "TD", "JD", "QD", "8S", "7S"],
]


def new(hands: list[list[str]], dealer: int = 0, seed: int = 1, carry: list[int] | None = None,
        **options: Any) -> State:
    deal: dict[str, Any] = {"dealer": dealer}
    if carry is not None:
        deal["carry"] = carry
    return gamekit.new(G, hands, partial=False, seed=seed, options=options, **deal)


def all_pass(state: State) -> None:
    play(state, "pass", "pass", "pass", "pass")


def finish_deal(state: State) -> None:
    gamekit.play_deal_out(state, first_play)


def stuk_pit_play(state: State) -> None:
    play(state, "play KH", "play 7H", "play 7S", "play JH")       # seat 0's Jas
    play(state, "play 9H", "play QH", "play 8H", "play 8S")       # seat 1's Stuk; seat 0's Nel wins
    play(state, "play AH", "play 7C", "play TH", "play TC")
    play(state, "play AC", "play 8C", "play 9S", "play JC")
    play(state, "play AD", "play 7D", "play TS", "play TD")
    play(state, "play AS", "play 9C", "play JS", "play QC")
    play(state, "play KC", "play 8D", "play QS", "play JD")
    play(state, "play KD", "play 9D", "play KS", "play QD")


def random_matches(n: int, **options: Any) -> list[State]:
    return gamekit.random_matches(G, n, **options)


# --------------------------------------------------------------------- dealing
def test_gj1_gj17_highest_cut_deals_first_ties_cut_again() -> None:
    order = "789TJQKA"
    for seed in range(30):
        st = load_game(G).new_match(seed=seed)
        cuts = st.observation(0)["first_cuts"]
        dealer = st.observation(0)["dealer"]
        last = cuts[-1]
        ranked = [order.index(r) for r in last if r is not None]
        assert last[dealer] is not None and order.index(last[dealer]) == max(ranked)
        assert ranked.count(max(ranked)) == 1
        for a, b in itertools.pairwise(cuts):  # only the tied highest cut again
            top = max(order.index(r) for r in a if r is not None)
            assert [s for s in range(4) if b[s] is not None] == [
                s for s in range(4) if a[s] is not None and order.index(a[s]) == top]


def test_gj9_player_right_of_dealer_cuts_or_taps_bottom_card_is_trump() -> None:
    st = load_game(G).new_match(seed=4)
    dealer = st.observation(0)["dealer"]
    assert st.phase == "cut" and st.current_player == (dealer - 1) % 4
    assert st.legal_actions() == ["cut", "tap"]
    assert st.observation(dealer)["hand"] == []
    bottom = TOKENS[st.pack[31]]  # type: ignore[attr-defined]
    play(st, "tap")
    assert ev(st, "grevjas.trump_by_tap")[0]["seat"] == (dealer - 1) % 4
    assert st.observation(0)["trump_card"] == bottom and bottom in hand_of(st, dealer)
    assert st.observation(0)["trump"] == bottom[1]
    st = load_game(G).new_match(seed=4)
    play(st, "cut")
    assert ev(st, "grevjas.trump_by_cut")
    tc = st.observation(0)["trump_card"]
    assert tc in hand_of(st, dealer)


def test_gj2_deal_3_2_3_or_eights_after_a_tap() -> None:
    for eights in (False, True):
        st = load_game(G, tap_deals_eights=eights).new_match(seed=9)
        dealer = st.observation(0)["dealer"]
        pack = [TOKENS[c] for c in st.pack]  # type: ignore[attr-defined]
        play(st, "tap")
        first = (dealer + 1) % 4
        want = pack[0:8] if eights else pack[0:3] + pack[12:14] + pack[20:23]
        assert hand_of(st, first) == set(want)


# --------------------------------------------------------------------- melds
def test_gj6_gj8_big_meld_scores_strokes_at_once_not_toward_100() -> None:
    st = new(PIT)
    play(st, "declare AC KC QC JC TC 9C 8C 7C", "pass", "pass", "pass")
    [b] = ev(st, "grevjas.meld_big_as_strokes")
    assert b["seat"] == 1 and b["strokes"] == 5
    assert st.scores() == [0.0, 5.0, 0.0, 5.0]
    assert st.observation(0)["running_totals"] == [0, 0]


def test_gj6_pit_side_melds_wait_for_the_pit() -> None:
    st = new(PIT)
    play(st, "declare pit + AC KC QC JC TC 9C 8C 7C", "pass", "pass", "pass")
    assert ev(st, "grevjas.pit_announced")[0]["side"] == 1
    assert not ev(st, "grevjas.meld_big_as_strokes") and st.scores() == [0.0] * 4
    play(st, "play AC", "play AD", "play AS", "play 7H")  # seat 0 trumps: the pit fails
    [f] = ev(st, "grevjas.pit_failed")
    assert f["side"] == 1 and f["trick_no"] == 1
    assert st.scores() == [0.0] * 4  # its melds are void


def test_gj10_only_the_single_best_meld_scores() -> None:
    st = new(MIX)
    play(st, "declare QS JS TS", "declare QD JD TD 9D", "pass", "pass")
    [m] = ev(st, "grevjas.meld_scored")
    assert m["seat"] == 2 and m["value"] == 50
    assert st.observation(0)["running_totals"] == [50, 0]
    st = new(PIT)  # every seat has a run of 8: the earliest announcement wins the tie
    play(st, "pass", "declare AD KD QD JD TD 9D 8D 7D", "declare AS KS QS JS TS 9S 8S 7S",
         "declare AH KH QH JH TH 9H 8H 7H")
    assert ev(st, "grevjas.meld_scored")[0]["seat"] == 2
    assert st.scores() == [5.0, 0.0, 5.0, 0.0]


def test_gj10_melds_of_one_announcement_share_no_card() -> None:
    hands = [["AC", "KC", "QC", "TC", "9C", "8C", "7C", "AH"],
             ["AD", "KD", "QD", "TD", "9D", "8D", "7D", "TH"],
             ["AS", "KS", "QS", "TS", "9S", "8S", "7S", "9H"],
             ["JH", "JS", "JC", "JD", "QH", "KH", "8H", "7H"]]
    st = new(hands)
    play(st, "pass", "pass")
    assert st.current_player == 3
    legal = st.legal_actions()
    assert "declare KH QH JH + JS JH JD JC" not in legal
    assert {"declare KH QH JH", "declare JS JH JD JC"} <= set(legal)


def test_gj10_announcements_in_random_deals_share_no_card() -> None:
    from engine.games.jass._jass import mask_of_tokens
    game = load_game(G)
    offered = 0
    for seed in range(300):
        st = game.new_match(seed=seed, max_deals=1)
        play(st, "tap")
        for _ in range(4):
            for a in st.legal_actions():
                if a.startswith("declare ") and a != "declare pit":
                    groups = a.removeprefix("declare pit + ").removeprefix("declare ").split(" + ")
                    seen = 0
                    for g in groups:
                        m = mask_of_tokens(g.split())
                        assert not m & seen, a
                        seen |= m
                    offered += len(groups) > 1
            st.apply("pass")
    assert offered


# --------------------------------------------------------------------- pit
def test_gj11_pit_side_does_not_claim_while_the_pit_lives() -> None:
    st = new(PIT, carry=[95, 0])
    play(st, "pass", "pass", "pass", "declare pit")
    play(st, "play 7C", "play 7D", "play 7S", "play 7H")
    assert st.observation(0)["running_totals"][0] >= 95
    finish_deal(st)
    assert not ev(st, "grevjas.honderd_claimed")
    [p] = ev(st, "grevjas.pit_made")
    assert p["side"] == 0 and p["strokes"] == 4


def test_gj12_pit_worth_4_plus_big_melds_cancels_opponents_stuk() -> None:
    st = new(STUKPIT, dealer=0)
    play(st, "pass", "pass", "pass", "declare pit")
    stuk_pit_play(st)
    assert [e["seat"] for e in ev(st, "grevjas.stuk")] == [1]
    [p] = ev(st, "grevjas.pit_made")
    assert p["side"] == 0 and p["strokes"] == 4
    assert ev(st, "grevjas.stuk_cancelled_by_pit")[0]["side"] == 1
    assert st.score_sheet()[0] == [4.0, 0.0, 4.0, 0.0]
    st = new(PIT)
    play(st, "pass", "pass", "pass", "declare pit + AH KH QH JH TH 9H 8H 7H")
    finish_deal(st)
    assert ev(st, "grevjas.pit_made")[0]["strokes"] == 4 + 5


def test_gj12_made_pit_logs_its_big_melds_as_strokes() -> None:
    st = new(PIT)
    play(st, "pass", "pass", "pass", "declare pit + AH KH QH JH TH 9H 8H 7H")
    assert not ev(st, "grevjas.meld_big_as_strokes")  # GJ6: waits for the pit
    finish_deal(st)
    [b] = ev(st, "grevjas.meld_big_as_strokes")
    assert (b["seat"], b["meld"], b["strokes"], b["pit"]) == (0, "run 8 to AH", 5, True)
    assert st.score_sheet()[0] == [9.0, 0.0, 9.0, 0.0]
    st = new(PIT)  # the partner's big meld counts for the pit too, and is logged
    play(st, "pass", "declare AD KD QD JD TD 9D 8D 7D", "pass", "declare pit + AH KH QH JH TH 9H 8H 7H")
    finish_deal(st)
    assert [(e["seat"], e["strokes"]) for e in ev(st, "grevjas.meld_big_as_strokes")] == [(2, 5), (0, 5)]
    assert ev(st, "grevjas.pit_made")[0]["strokes"] == 4 + 5 + 5
    assert st.score_sheet()[0] == [14.0, 0.0, 14.0, 0.0]


GJ12_DEAL = {"dealer": 0, "trump_card": "TD",
             "hands": [["JS", "JH", "QC", "8D", "QD", "9D", "JD", "TD"],
                       ["8S", "7C", "AC", "7S", "8H", "7H", "9H", "QH"],
                       ["8C", "KC", "9S", "TH", "KD", "AD", "KS", "7D"],
                       ["9C", "TS", "KH", "AH", "JC", "QS", "TC", "AS"]]}
GJ12_PLAY = ("AC KD TC 8D 9S TS JD 8S QC 7C KC 9C TH AH TD QH 9D 7H AD AS QD 8H 7D QS JS 7S KS JC 8C KH "
             "JH 9H").split()


def test_gj12_a_meld_scores_once() -> None:
    """Issue 21 §4 (seed 003 L351: only the pit announcer's melds wait for the pit): side 0's run of
    five scored its 5 strokes when announced (GJ6, the deal's best meld); when side 0 then sweeps
    all eight tricks under ``manual_claims`` (a pit, GJ16) it is not scored again: 4 + 5, not
    4 + 5 + 5."""
    st = load_game("grevjas", manual_claims=True).new_match(seed=1, players=4, deal=GJ12_DEAL)
    play(st, "declare pit + 9H 8H 7H", "pass", "pass", "declare QD JD TD 9D 8D")
    [b] = ev(st, "grevjas.meld_big_as_strokes")
    assert (b["seat"], b["strokes"]) == (0, 5) and "pit" not in b
    play(st, *[f"play {c}" for c in GJ12_PLAY])
    assert ev(st, "grevjas.pit_failed")[0]["side"] == 1
    [p] = ev(st, "grevjas.pit_made")
    assert p["side"] == 0 and p["strokes"] == 4
    assert len(ev(st, "grevjas.meld_big_as_strokes")) == 1  # scored once
    assert st.score_sheet()[0] == [9.0, 0.0, 9.0, 0.0]


def test_gj12_a_swept_side_scores_its_big_melds_that_had_not_scored() -> None:
    """GJ10/GJ12: only the deal's best meld scored in the meld round; a sweep (a pit) scores the
    sweeping side's other big melds, the one that scored excepted."""
    st = new(PIT, manual_claims=True)
    play(st, "pass", "declare AD KD QD JD TD 9D 8D 7D", "pass", "declare AH KH QH JH TH 9H 8H 7H")
    [b] = ev(st, "grevjas.meld_big_as_strokes")  # GJ10: the earlier of two equal melds scores
    assert (b["seat"], b["strokes"]) == (2, 5)
    finish_deal(st)
    logged = [(e["seat"], e.get("pit")) for e in ev(st, "grevjas.meld_big_as_strokes")]
    assert logged == [(2, None), (0, True)]
    assert ev(st, "grevjas.pit_made")[0]["strokes"] == 4 + 5
    assert st.score_sheet()[0] == [14.0, 0.0, 14.0, 0.0]


# --------------------------------------------------------------------- claims
def test_gj4_automatic_claim_at_100() -> None:
    st = new(MIX, carry=[95, 60])
    all_pass(st)
    play(st, "play 7C", "play 9C", "play 8S", "play TC")
    [c] = ev(st, "grevjas.honderd_claimed")
    assert c["side"] == 0 and c["correct"] and c["points"] == 105
    assert st.deal_no == 2 and st.score_sheet()[0] == [1.0, 0.0, 1.0, 0.0]
    assert not any(a == "declare honderd" for a in st.legal_actions())


def test_gj5_onder_jan_is_under_51() -> None:
    st = new(MIX, carry=[95, 50])
    all_pass(st)
    play(st, "play 7C", "play 9C", "play 8S", "play TC")
    assert ev(st, "grevjas.onder_jan")[0]["side"] == 1
    assert st.score_sheet()[0] == [2.0, 0.0, 2.0, 0.0]
    st = new(MIX, carry=[95, 51])
    all_pass(st)
    play(st, "play 7C", "play 9C", "play 8S", "play TC")
    assert not ev(st, "grevjas.onder_jan") and st.score_sheet()[0] == [1.0, 0.0, 1.0, 0.0]


def test_gj3_false_claim_gives_the_opponents_the_deal() -> None:
    st = new(MIX, manual_claims=True)
    all_pass(st)
    assert "declare honderd" in st.legal_actions()
    play(st, "declare honderd")
    [c] = ev(st, "grevjas.honderd_claimed")
    assert c["side"] == 1 and not c["correct"]
    assert st.score_sheet()[0] == [2.0, 0.0, 2.0, 0.0]  # the claimers have 0 < 51


def test_gj16_manual_claims_no_automatic_claim_then_claimed_after_the_last_trick() -> None:
    st = new(MIX, carry=[95, 60], manual_claims=True)
    all_pass(st)
    play(st, "play 7C", "play 9C", "play 8S", "play TC")
    assert not ev(st, "grevjas.honderd_claimed") and st.deal_no == 1
    play(st, "declare honderd")  # seat 0 leads next and claims
    assert ev(st, "grevjas.honderd_claimed")[0]["correct"]
    st = new(MIX, carry=[95, 60], manual_claims=True)
    all_pass(st)
    finish_deal(st)
    claims = ev(st, "grevjas.honderd_claimed")
    assert len(claims) == 1 and claims[0]["correct"]
    st = new(PIT, manual_claims=True)  # a sweep without a claim scores the pit
    all_pass(st)
    finish_deal(st)
    assert ev(st, "grevjas.pit_made")[0]["side"] == 0


def test_gj13_claim_moments_tie_and_next_dealer() -> None:
    st = new(MIX, carry=[99, 99])
    all_pass(st)
    play(st, "play AC", "play 9C", "play 8S", "play TC")  # seat 1 takes it: both sides at 100
    assert ev(st, "grevjas.honderd_claimed")[0]["side"] == 1
    assert st.observation(0)["dealer"] == 1  # the last trick's winner deals
    st2 = new(MIX, carry=[80, 0])
    play(st2, "pass", "declare QD JD TD 9D", "pass", "pass")  # 80 + 50: claimed after the meld round
    assert ev(st2, "grevjas.honderd_claimed")[0]["side"] == 0
    assert st2.deal_no == 2 and st2.observation(0)["dealer"] == 0  # no trick: the same dealer


def test_gj14_stuk_on_the_second_card() -> None:
    st = new(STUKPIT)
    all_pass(st)
    play(st, "play KH", "play 7H", "play 7S", "play JH")
    assert not ev(st, "grevjas.stuk")
    play(st, "play 9H", "play QH")
    [s] = ev(st, "grevjas.stuk")
    assert s["seat"] == 1 and s["points"] == 20
    assert st.observation(0)["running_totals"] == [23, 20]  # KH 3 + JH 20; the Stuk


def test_gj7_gj15_match_to_10_strokes_checked_at_deal_end() -> None:
    assert load_game(G).options["target"] == 10
    st = new(PIT, target=3)
    play(st, "declare AC KC QC JC TC 9C 8C 7C", "pass", "pass", "pass")
    assert st.scores()[1] == 5.0 and not st.is_over()
    finish_deal(st)
    assert st.is_over()
    for st in random_matches(15):
        assert max(st.scores()) >= 10
        assert [sum(r[s] for r in st.score_sheet()) for s in range(4)] == st.scores()


def test_carry_over_when_nobody_reaches_100() -> None:
    found = 0
    for st in random_matches(30):
        for e in ev(st, "grevjas.carry_over"):
            a, b = e["carry"]
            assert a < 100 and b < 100
            found += 1
    assert found


def test_determinize_keeps_hand_sizes() -> None:
    st = new(MIX)
    play(st, "declare QS JS TS", "pass", "pass", "pass", "play AC")
    rng = random.Random(2)
    for _ in range(10):
        d = st.determinize(2, rng)
        assert hand_of(d, 2) == hand_of(st, 2) and {"QS", "JS", "TS"} <= hand_of(d, 1)
        assert not d.invariant_violations()


def test_determinize_before_the_deal_shuffles_the_pack() -> None:
    st = load_game(G).new_match(seed=5)
    assert st.phase == "cut"
    packs = {tuple(st.determinize(0, random.Random(i)).pack) for i in range(5)}  # type: ignore[attr-defined]
    assert len(packs) > 1 and all(sorted(p) == sorted(st.pack) for p in packs)  # type: ignore[attr-defined]
