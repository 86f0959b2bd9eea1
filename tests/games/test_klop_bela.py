"""Klop / Bela / Clobyosh, 2 players (RULES.md 2.15, seed 003 L264-317): decisions KB1-KB16 and
the card's rule events, on injected deals."""
from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from engine.cards import cards_of
from tests import gamekit
from tests.gamekit import events, hand_of, play

PACK32 = [r + s for s in "CDHS" for r in "789TJQKA"]


def deal(hands9: list[list[str]], upcard: str, dealer: int = 0,
         stock_rest: list[str] | None = None) -> dict[str, Any]:
    """An injected deal from the players' whole 9-card hands: the first 6 are dealt first, the last
    3 come from the stock after the first bidding round (voorhand's first).  The stock then holds
    ``stock_rest`` and every other card of the pack in pack order (a deal is the whole pack, X6)."""
    n = len(hands9)
    stock: list[str] = []
    for i in range(1, n + 1):
        stock += hands9[(dealer + i) % n][6:]
    stock += stock_rest or []
    listed = {*stock, upcard, *(t for h in hands9 for t in h)}
    stock += [t for t in PACK32 if t not in listed]
    return {"dealer": dealer, "hands": [h[:6] for h in hands9], "upcard": upcard, "stock": stock}


def new(hands9: list[list[str]], upcard: str, dealer: int = 0, seed: int = 1, max_deals: int | None = None,
        game: str = "klop_bela", **options: Any) -> State:
    return gamekit.from_deal(game, deal(hands9, upcard, dealer), seed=seed, max_deals=max_deals,
                             options=options)


def plays(state: State) -> list[str]:
    return sorted(gamekit.plays(state))


def finish_deal(state: State, first: bool = True) -> None:
    """Play the current deal out choosing the first (or last) legal card, never claiming."""

    def pick(st: State) -> str:
        legal = gamekit.plays(st) or st.legal_actions()
        return legal[0] if first else legal[-1]

    gamekit.play_deal_out(state, pick)


# Dealer seat 0, voorhand seat 1.  Spades turned: both pass round 1, voorhand names hearts in round
# 2 and holds every trump but K Q, which the dealer must give as Stuk / en Brok without a trick.
SWEEP = [
    ["KH", "QH", "7S", "9S", "JS", "7C", "9C", "7D", "9D"],  # dealer: Bela, no sequence
    ["JH", "9H", "AH", "TH", "8H", "7H", "AS", "AC", "AD"],  # voorhand: 7H-JH is a sequence of 5
]
# Hearts turned (9H): voorhand accepts; the dealer holds the 7H (swap) and 7S 8S 9S.
ACCEPT = [
    ["7H", "TH", "KH", "QH", "7S", "8S", "9S", "7C", "8C"],
    ["JH", "AH", "8H", "AS", "TS", "KS", "AC", "TC", "KC"],
]
# Hearts turned (9H, the 7H is out of play): the dealer's only trump is the Jas; no diamonds.
HOLD = [
    ["JH", "7S", "9S", "JS", "7C", "9C", "JC", "KS", "KC"],
    ["AH", "TH", "KH", "QH", "AS", "TS", "AC", "TC", "8D"],
]


def sweep_deal(**options: Any) -> State:
    st = new(SWEEP, "8S", **options)
    play(st, "pass", "pass", "trump H")
    return st


# --------------------------------------------------------------------- bidding (KB8, KB12)
def test_kb12_round_one_ends_at_the_first_acceptance() -> None:
    st = new(ACCEPT, "9H")
    assert st.current_player == 1 and st.legal_actions() == ["trump H", "pass"]
    play(st, "trump H")
    assert [(e["seat"], e["suit"]) for e in events(st, "klop_bela.accept")] == [(1, "H")]
    # the dealer is not asked: the three extra cards are dealt and the trump-7 holder may swap
    assert st.phase == "swap" and st.current_player == 0
    assert len(hand_of(st, 0)) == len(hand_of(st, 1)) == 9
    assert st.observation(1)["maker"] == 1


def test_kb12_second_round_any_suit_but_the_turned_one() -> None:
    st = new(SWEEP, "8S")
    play(st, "pass")
    assert st.current_player == 0 and st.legal_actions() == ["trump S", "pass"]
    play(st, "pass")
    assert [e["seat"] for e in events(st, "klop_bela.pass")] == [1, 0]
    assert len(hand_of(st, 1)) == 9  # 003:L280: three more cards whatever happens
    assert st.current_player == 1
    assert st.legal_actions() == ["trump C", "trump D", "trump H", "pass"]
    with pytest.raises(IllegalAction, match="KB12"):
        st.apply("trump S")


def test_kb8_maker_is_who_named_trump_in_the_second_round() -> None:
    st = new(SWEEP, "8S")
    play(st, "pass", "pass", "pass", "trump D")
    ev = events(st, "klop_bela.second_round_trump")
    assert [(e["seat"], e["suit"]) for e in ev] == [(0, "D")]
    obs = st.observation(0)
    assert obs["maker"] == 0 and obs["trump"] == "D" and st.phase == "play"
    assert st.current_player == 1  # KB5: voorhand leads even when the dealer is maker


def test_kb12_both_pass_twice_same_dealer_deals_again() -> None:
    st = new(SWEEP, "8S")
    play(st, "pass", "pass", "pass", "pass")
    assert events(st, "klop_bela.redeal_all_pass")
    assert st.score_sheet() == [[0.0, 0.0]] and st.scores() == [0.0, 0.0]
    assert st.deal_no == 2 and st.observation(0)["dealer"] == 0 and st.phase == "bid"
    one = new(SWEEP, "8S", max_deals=1)
    play(one, "pass", "pass", "pass", "pass")
    assert one.is_over() and one.score_sheet() == [[0.0, 0.0]]  # a thrown-in deal counts


# --------------------------------------------------------------------- swap, play, KB5
def test_kb5_voorhand_leads_and_trump7_swap() -> None:
    st = new(ACCEPT, "9H")
    play(st, "trump H")
    assert st.legal_actions() == ["declare swap", "pass"]
    play(st, "declare swap")
    ev = events(st, "klop_bela.trump7_swap")
    assert [(e["seat"], e["seven"], e["took"]) for e in ev] == [(0, "7H", "9H")]
    assert "9H" in hand_of(st, 0) and "7H" not in hand_of(st, 0)
    assert st.zones()["table"] == 1 << 31  # the 7H lies face up out of play
    assert st.observation(1)["known"][0] == ["9H"]  # everyone saw the swap
    assert st.phase == "play" and st.current_player == 1
    assert st.zones()["stock"].bit_count() == 13  # 14 cards out of play in all


def test_swap_may_be_declined() -> None:
    st = new(ACCEPT, "9H")
    play(st, "trump H", "pass")
    assert not events(st, "klop_bela.trump7_swap") and "7H" in hand_of(st, 0)


def test_kb11_trump_when_void_any_trump_and_overtrump_on_trump_lead() -> None:
    st = new(ACCEPT, "9H")
    play(st, "trump H", "declare swap", "play 8H")
    # trump led: the dealer must beat the 8H, every trump of his does
    assert plays(st) == ["play 9H", "play KH", "play QH", "play TH"]
    play(st, "play QH")
    assert events(st, "klop_bela.stuk")[0]["seat"] == 0  # KB9: Q played while holding the K
    st2 = new(ACCEPT, "9H")
    play(st2, "trump H", "pass", "play JH")
    # the Jas cannot be beaten: any trump follows (undertrump)
    assert plays(st2) == ["play 7H", "play KH", "play QH", "play TH"]
    st3 = new(HOLD, "9H", no_jas_holdback=True)
    play(st3, "trump H", "play 8D")
    assert st3.legal_actions() == ["play JH"]  # void in diamonds: trump


def test_follow_suit() -> None:
    st = new(ACCEPT, "9H")
    play(st, "trump H", "pass", "play AS")
    assert plays(st) == ["play 7S", "play 8S", "play 9S"]
    with pytest.raises(IllegalAction, match="follow suit"):
        st.apply("play 7C")


def test_kb10_jas_held_back_on_a_trump_lead_and_on_a_ruff() -> None:
    st = new(HOLD, "9H")
    play(st, "trump H", "play 8D")
    assert len(plays(st)) == 9  # void in diamonds, the bare Jas may be kept: any card
    play(st, "play 7S")
    assert [(e["seat"], e["card"]) for e in events(st, "klop_bela.jas_held_back")] == [(0, "7S")]
    st = new(HOLD, "9H")
    play(st, "trump H", "play AH")
    assert len(plays(st)) == 9  # trump led, the Jas is the only trump
    play(st, "play JH")
    assert not events(st, "klop_bela.jas_held_back")
    strict = new(HOLD, "9H", no_jas_holdback=True)
    play(strict, "trump H", "play AH")
    assert strict.legal_actions() == ["play JH"]


def test_kb16_schots_no_worthless_trump_lead() -> None:
    st = new(ACCEPT, "9H", schots=True)
    play(st, "trump H", "pass")
    assert "play 8H" not in st.legal_actions() and "play AH" in st.legal_actions()
    with pytest.raises(IllegalAction, match="KB16"):
        st.apply("play 8H")
    plain = new(ACCEPT, "9H")
    play(plain, "trump H", "pass")
    assert "play 8H" in plain.legal_actions()


# --------------------------------------------------------------------- melds (KB1, KB2, KB6, KB9)
def test_kb1_sequence_of_five_scores_50_and_kb6_melds_after_the_first_trick() -> None:
    st = sweep_deal()
    play(st, "play JH")
    assert not events(st, "klop_bela.sequence_meld")  # announced with trick 1, shown after it
    assert st.observation(0)["known"][1] == []
    play(st, "play KH")
    ev = events(st, "klop_bela.sequence_meld")
    assert [(e["seat"], e["points"]) for e in ev] == [(1, 50)]
    assert sorted(ev[0]["cards"]) == ["7H", "8H", "9H", "JH", "TH"]
    assert st.observation(0)["known"][1] == ["7H", "8H", "9H", "TH"]  # shown, still in hand


def test_kb6_sequences_declared_automatically_with_the_first_trick() -> None:
    """No player action declares a sequence: sequence_meld is logged by the play that completes
    trick 1 (random matches, schmeiss on, 2 and 3 players)."""
    talk = {"declare claim", "declare schmeiss", "declare accept", "declare refuse", "declare swap"}
    seen = 0
    for game, n in (("klop_bela", 2), ("klop_bela_3p", 3)):
        g = load_game(game, schmeiss=True)
        for seed in range(40):
            st = g.new_match(seed=seed, max_deals=3)
            rng = random.Random(seed)
            first_trick_end: dict[int, int] = {}
            while not st.is_over():
                legal = st.legal_actions()
                assert all(a.startswith(("play ", "pass", "trump ")) or a in talk for a in legal), legal
                deal_no = st.deal_no
                st.apply(rng.choice([a for a in legal if a != "declare claim"]))
                if deal_no not in first_trick_end and st.deal_no == deal_no and \
                        len(st.observation(0).get("last_trick") or []) == n:
                    first_trick_end[deal_no] = len(st.history) - 1
            for e in events(st, f"{game}.sequence_meld"):
                seen += 1
                assert e["ply"] == first_trick_end[e["deal"]], e
    assert seen > 10


def test_kb9_stuk_en_brok_automatic_not_scored_without_a_trick() -> None:
    st = sweep_deal()
    play(st, "play JH", "play KH")
    assert [(e["seat"], e["card"]) for e in events(st, "klop_bela.stuk")] == [(0, "KH")]
    assert st.observation(1)["known"][0] == ["QH"]  # "Stuk" tells the table he holds the queen
    play(st, "play 9H", "play QH")
    assert [(e["seat"], e["points"]) for e in events(st, "klop_bela.en_brok")] == [(0, 20)]
    finish_deal(st)
    # the dealer took no trick: his Bela does not count (003:L303)
    assert [(e["seat"], e["points"]) for e in events(st, "klop_bela.meld_void_no_trick")] == [(0, 20)]
    # the 18 cards in play: hearts but K Q (55) + three aces (33) + JS (2) + 7 + last trick 10
    assert st.score_sheet()[0] == [0.0, 107.0 + 50.0]
    assert not events(st, "klop_bela.maker_wet")


def test_kb9_bela_scores_once_with_a_trick() -> None:
    st = new(ACCEPT, "9H")
    play(st, "trump H", "declare swap", "play 8H", "play KH")
    play(st, "play QH", "play AH")  # seat 0 took trick 1 (KH over 8H), so the Bela counts
    assert len(events(st, "klop_bela.en_brok")) == 1
    assert st.observation(0)["bela"] == [2, 0]


def _first_trick_sequences(hands: list[list[str]], upcard: str, bid: list[str]) -> list[dict[str, Any]]:
    st = new(hands, upcard)
    play(st, *bid)
    while st.phase != "play":
        play(st, "pass")
    play(st, plays(st)[0])
    play(st, plays(st)[0])
    return events(st, "klop_bela.sequence_meld")


def test_kb2_better_sequence_scores_all_his_sequences() -> None:
    hands = [
        ["AC", "KC", "QC", "JC", "7D", "8D", "9D", "7H", "8H"],  # to the ace (4) and 7D-9D (3)
        ["KS", "QS", "JS", "TS", "AH", "9C", "TD", "JD", "AS"],  # four to the king... and AS: five!
    ]
    ev = _first_trick_sequences(hands, "QH", ["trump H"])
    assert [(e["seat"], e["points"]) for e in ev] == [(1, 50)]  # TS-AS: five beats four
    hands[1][8] = "AD"  # now four to the king against four to the ace
    ev = _first_trick_sequences(hands, "QH", ["trump H"])
    assert [(e["seat"], e["points"]) for e in ev] == [(0, 70)]  # 50 + 20: he scores both


def test_kb2_equal_sequences_trump_then_voorhand() -> None:
    hands = [
        ["QC", "JC", "TC", "7H", "9H", "AD", "8S", "AS", "9D"],
        ["QD", "JD", "TD", "8H", "KH", "7S", "9S", "KS", "8C"],
    ]
    ev = _first_trick_sequences(hands, "AH", ["trump H"])
    assert [e["seat"] for e in ev] == [1]  # equal, neither in trump: voorhand (seat 1)
    ev = _first_trick_sequences(hands, "7C", ["trump C"])
    assert [e["seat"] for e in ev] == [0]  # the one in trump wins


# --------------------------------------------------------------------- scoring (KB3)
def _random_single_deals(n: int, **options: Any) -> list[State]:
    game = load_game("klop_bela", **options)
    out = []
    for seed in range(n):
        st = game.new_match(seed=seed, max_deals=1)
        rng = random.Random(seed)
        while not st.is_over():
            legal = [a for a in st.legal_actions() if a != "declare claim"]
            st.apply(rng.choice(legal))
        out.append(st)
    return out


def _totals(ev: dict[str, Any]) -> list[int]:
    return list(ev["totals"])


def test_kb3_maker_wet_gets_nothing_and_a_tie_fails() -> None:
    ties = 0
    for st in _random_single_deals(600):
        wet = events(st, "klop_bela.maker_wet")
        row = st.score_sheet()[0]
        if not wet:
            continue
        mk = wet[0]["seat"]
        tot = _totals(wet[0])
        assert tot[mk] <= tot[1 - mk]
        assert row[mk] == 0 and row[1 - mk] == tot[0] + tot[1]  # all goes to the defender
        if tot[0] == tot[1]:
            ties += 1
    assert ties  # some random deal tied, and the maker failed


def test_kb3_option_tie_keeps() -> None:
    base = _random_single_deals(600)
    tied = [st.seed for st in base
            if (w := events(st, "klop_bela.maker_wet")) and w[0]["totals"][0] == w[0]["totals"][1]]
    assert tied
    for st in _random_single_deals(max(tied) + 1, tie_keeps=True):
        if st.seed in tied:
            assert not events(st, "klop_bela.maker_wet")
            assert st.score_sheet()[0][0] == st.score_sheet()[0][1] > 0


def test_defender_always_scores_and_maker_scores_when_higher() -> None:
    made = 0
    for st in _random_single_deals(200):
        if not events(st, "klop_bela.maker_wet") and not events(st, "klop_bela.redeal_all_pass"):
            row = st.score_sheet()[0]
            counted = [st._counted(s) for s in (0, 1)]  # type: ignore[attr-defined]
            assert row == counted  # both keep their own points, melds only with a trick
            mk = st.observation(0)["maker"]
            assert counted[mk] > counted[1 - mk]
            made += 1
    assert made


# --------------------------------------------------------------------- dealer and match (KB4, KB13)
def test_kb4_random_first_dealer_winner_deals_next() -> None:
    dealers = {load_game("klop_bela").new_match(seed=s).observation(0)["dealer"] for s in range(20)}
    assert dealers == {0, 1}
    st = sweep_deal()
    finish_deal(st)
    assert st.deal_no == 2 and st.observation(0)["dealer"] == 1  # the maker won and deals
    assert st.observation(0)["voorhand"] == 0


def _before_last_card(**options: Any) -> State:
    st = sweep_deal(**options)
    while True:
        legal = plays(st)
        probe = st.clone()
        probe.apply(legal[0])
        if probe.deal_no != st.deal_no or probe.is_over():
            return st
        st.apply(legal[0])


def test_kb13_equal_totals_over_500_play_another_deal() -> None:
    st = _before_last_card()
    probe = st.clone()
    play(probe, plays(probe)[0])
    row = [int(x) for x in probe.score_sheet()[-1]]
    st.score = [812 - row[0], 812 - row[1]]  # type: ignore[attr-defined]  # 812 each after this deal
    play(st, plays(st)[0])
    assert st.scores() == [812.0, 812.0] and not st.is_over() and st.deal_no == 2
    st = _before_last_card()
    st.score = [812 - row[0], 811 - row[1]]  # type: ignore[attr-defined]
    play(st, plays(st)[0])
    assert st.is_over() and st.ranking() == [1, 2] and st.scores() == [812.0, 811.0]


# --------------------------------------------------------------------- claims (KB7, KB14)
def test_kb7_right_claim_stops_the_deal_and_wins() -> None:
    st = new(ACCEPT, "9H", target=15)
    play(st, "trump H", "declare swap", "play 8H")
    assert "declare claim" not in st.legal_actions()  # no sequence won yet, no card points
    play(st, "play 9H")  # the dealer takes trick 1 (14 points) and wins the sequence (20)
    assert "declare claim" in st.legal_actions() and st.current_player == 0
    play(st, "declare claim")
    ev = events(st, "klop_bela.claim_500_midhand")
    assert [(e["seat"], e["right"]) for e in ev] == [(0, True)]
    assert st.is_over() and st.ranking() == [1, 2]
    assert st.score_sheet() == [[34.0, 0.0]]


def test_kb7_wrong_claim_without_a_trick_loses() -> None:
    st = new(ACCEPT, "9H", target=15)
    play(st, "trump H", "declare swap", "play AS", "play 7S")  # voorhand takes trick 1
    play(st, "play KS")
    assert st.current_player == 0 and "declare claim" in st.legal_actions()  # melds 20 > 15
    play(st, "declare claim")
    assert [e["right"] for e in events(st, "klop_bela.claim_500_midhand")] == [False]
    assert st.is_over() and st.ranking() == [2, 1]  # melds count only with a trick


def test_kb7_no_meld_finish_option() -> None:
    st = new(ACCEPT, "9H", target=15, no_meld_finish=True)
    play(st, "trump H", "declare swap", "play 8H", "play 9H")
    assert "declare claim" not in st.legal_actions()


def test_kb14_early_finish_is_the_claim() -> None:
    opts = {o.name for o in type(load_game("klop_bela")).options_spec}
    assert "early_finish" not in opts
    # a claim counting card points of the first trick only (no melds involved)
    st = new(HOLD, "9H", target=20)
    play(st, "trump H", "play AH", "play JH")  # the dealer takes AH + JH = 31 points
    assert "declare claim" in st.legal_actions()
    play(st, "declare claim")
    assert events(st, "klop_bela.claim_500_midhand")[0]["right"] is True


# --------------------------------------------------------------------- schmeiss (KB15)
def test_kb15_schmeiss_accepted_or_refused() -> None:
    st = new(ACCEPT, "9H", schmeiss=True)
    assert st.legal_actions() == ["trump H", "pass", "declare schmeiss"]
    play(st, "declare schmeiss")
    assert st.current_player == 0 and st.legal_actions() == ["declare accept", "declare refuse"]
    play(st, "declare accept")
    ev = events(st, "klop_bela.schmeiss")
    assert [(e["seat"], e["chooser"], e["accepted"]) for e in ev] == [(1, 0, True)]
    assert st.observation(0)["maker"] == 1 and st.phase == "swap"
    st = new(ACCEPT, "9H", schmeiss=True)
    play(st, "declare schmeiss", "declare refuse")
    assert events(st, "klop_bela.schmeiss")[0]["accepted"] is False
    assert st.deal_no == 2 and st.score_sheet() == [[0.0, 0.0]] and st.observation(0)["dealer"] == 0
    assert "declare schmeiss" not in load_game("klop_bela").new_match(seed=1).legal_actions()


# --------------------------------------------------------------------- whole deals
def test_card_points_162_with_the_whole_deck() -> None:
    st = sweep_deal(max_deals=1)
    finish_deal(st)
    z = st.zones()
    out = z["stock"] | z["table"]
    trump = 2  # hearts
    values = st.table_.points  # type: ignore[attr-defined]
    out_pts = sum(values.of(c, trump) for c in cards_of(out))
    taken = sum(st.observation(0)["points_won"])
    assert taken == 107 and taken + out_pts == 162


def test_invariants_every_action_and_determinize() -> None:
    game = load_game("klop_bela", schots=True, schmeiss=True)
    for seed in range(15):
        st = game.new_match(seed=seed, max_deals=3)
        rng = random.Random(seed)
        while not st.is_over():
            assert not st.invariant_violations()
            seat = st.current_player
            assert seat is not None
            d = st.determinize(seat, random.Random(seed))
            assert d.legal_actions() == st.legal_actions()
            assert d.zones()[f"hand{seat}"] == st.zones()[f"hand{seat}"]
            assert not d.invariant_violations()
            st.apply(rng.choice(st.legal_actions()))


def test_injected_deal_is_checked() -> None:
    with pytest.raises(ValueError, match="given twice"):
        load_game("klop_bela").new_match(deal=deal([SWEEP[0], SWEEP[0]], "8S"))
    with pytest.raises(ValueError, match="upcard"):
        load_game("klop_bela").new_match(deal={"dealer": 0, "hands": [h[:6] for h in SWEEP]})
