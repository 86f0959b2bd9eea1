"""Handjas (RULES.md 2.11, seed 003 L106-147): decisions HJ1-HJ21 and the card's rule events, on
injected deals."""
from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from engine.cards import TOKENS, card, deck_36
from engine.games.jass.handjas import HandjasState, deal_strokes
from engine.tricks import PlayRule
from tests import gamekit
from tests.gamekit import play

ALL = [TOKENS[c] for c in deck_36()]


def fill(given: list[list[str]], sizes: list[int]) -> list[list[str]]:
    """Complete the holders' lists to ``sizes`` with the cards nobody was given, in deck order."""
    used = {t for h in given for t in h}
    rest = [t for t in ALL if t not in used]
    out = []
    for h, k in zip(given, sizes, strict=True):
        need = k - len(h)
        out.append(list(h) + rest[:need])
        rest = rest[need:]
    assert not rest
    return out


def new(hands: list[list[str]], dealer: int = 0, dead: list[str] | None = None,
        extra: list[str] | None = None, trump_card: str | None = None, seed: int = 1,
        **options: Any) -> HandjasState:
    """A match of ``len(hands)`` players from an injected deal; missing cards are filled in."""
    n = len(hands)
    holders = [list(h) for h in hands]
    sizes = [0 if (n == 5 and s == dealer) else 9 for s in range(n)]
    if n == 2:
        holders += [dead or [], extra or []]
        sizes += [9, 9]
    elif n == 3:
        holders += [extra or []]
        sizes += [9]
    full = fill(holders, sizes)
    deal: dict[str, Any] = {"dealer": dealer}
    if n == 2:
        deal["dead_hand"], deal["extra_hand"] = full[2], full[3]
    elif n == 3:
        deal["extra_hand"] = full[3]
    if trump_card:
        deal["trump_card"] = trump_card
    st = gamekit.new("handjas", full[:n], partial=False, seed=seed, options=options, **deal)
    assert isinstance(st, HandjasState)
    return st


def events(state: State, name: str) -> list[dict[str, Any]]:
    return gamekit.events(state, name, "handjas.")


def skip_melds(state: State) -> None:
    while state.phase in ("swap", "exchange", "meld"):
        state.apply("pass")


def plays(state: State) -> list[str]:
    return sorted(gamekit.plays(state))


def cards(*toks: str) -> list[str]:
    return sorted("play " + t for t in toks)


# four players, dealer 0: play order 1 2 3 0; the dealer's last card is turned
P1 = ["AS", "KS", "QS", "AC", "6C", "7D", "8D", "TH", "6H"]
P2 = ["JS", "TS", "9S", "KC", "QC", "JC", "9D", "7H", "8H"]
P3 = ["8S", "7S", "6S", "TC", "9C", "8C", "TD", "JD", "9H"]
P0 = ["7C", "6D", "AD", "KD", "QD", "JH", "AH", "KH", "QH"]  # turned: QH (hearts trump); Stuk


# ------------------------------------------------------------------------------ decisions
def test_hj1_no_undertrump_on_a_plain_lead() -> None:
    # seat 1 leads AC; seat 2 follows; seat 3 trumps with 9H (Nel); the dealer (void in clubs? no:
    # 7C) follows; then a trick where a void player holds only lower trumps and plain cards
    h1 = ["AC", "KC", "QC", "JC", "TC", "9C", "8C", "7C", "6C"]
    h2 = ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S", "JH"]
    h3 = ["AD", "KD", "QD", "JD", "TD", "9D", "8D", "6H", "7H"]
    h0 = ["7D", "6D", "6S", "AH", "KH", "QH", "TH", "9H", "8H"]
    st = new([h0, h1, h2, h3], trump_card="8H")
    skip_melds(st)
    play(st, "play AC", "play JH")  # seat 2, void in clubs, trumps with the Jas
    # seat 3, void in clubs, holds 6H 7H below the Jas: he may not undertrump, only discard
    assert plays(st) == cards("AD", "KD", "QD", "JD", "TD", "9D", "8D")
    with pytest.raises(IllegalAction, match="HJ1"):
        st.apply("play 6H")
    play(st, "play 8D")
    assert [e["seat"] for e in events(st, "undertrump_blocked")] == [3]
    # the dealer holds only trumps and plain 7D 6D 6S: may not undertrump either
    assert plays(st) == cards("7D", "6D", "6S")


def test_hj2_potato_on_card_points_only() -> None:
    won, pot = deal_strokes([150, 40, 30, 20], [10, 40, 30, 20], [0, 1, 2, 3], False, 22)
    assert pot == [1, 0, 0, 1]  # seat 0's melds (total 150) do not save him
    assert won == [1 + 1, 1 + 2, 0 + 2, 0 + 1]  # the top two (150, 40), then potato strokes


def test_hj3_match_to_seven_net_strokes() -> None:
    for opts, goal in (({}, 7), ({"target": 5}, 5)):
        game = load_game("handjas", **opts)
        for seed in range(5):
            st = game.new_match(seed=seed)
            rng = random.Random(seed)
            while not st.is_over():
                st.apply(rng.choice(st.legal_actions()))
            assert max(st.scores()) >= goal
            assert st.ranking()[st.scores().index(max(st.scores()))] == 1


def test_hj4_tied_highest_share_the_stroke() -> None:
    won, pot = deal_strokes([80, 80, 0], [50, 50, 57], [0, 1, 2], False, 22)
    assert won == [1, 1, 0] and pot == [0, 0, 0]
    won, _ = deal_strokes([60, 60, 60, 50], [40, 40, 40, 37], [0, 1, 2, 3], True, 22)
    assert won == [1, 1, 1, 0]  # single_winner: the tied highest


def test_hj5_five_players_the_dealer_sits_out_achterhand_turns() -> None:
    full = fill([[], ["AS", "KS"], [], [], ["QH"]], [0, 9, 9, 9, 9])
    st = load_game("handjas").new_match(seed=1, players=5, deal={"dealer": 0, "hands": full})
    assert isinstance(st, HandjasState)
    assert [e["seat"] for e in events(st, "sat_out")] == [0]
    assert st.act == [1, 2, 3, 4] and st.hands[0] == 0
    # the achterhand is seat 4 (the last to play, on the dealer's left): his last card is trump
    assert TOKENS[st.turned] == full[4][-1] and st.hands[4] >> st.turned & 1
    assert st.observation(1)["known_cards"]["4"] == [full[4][-1]]
    skip_melds(st)
    assert st.current_player == 1
    while not st.is_over() and st.deal_no == 1:
        st.apply(plays(st)[0])
    assert st.score_sheet()[0][0] == 0.0  # HJ17: the sitting-out dealer gets no stroke
    assert st.dealer == 1 and [e["seat"] for e in events(st, "sat_out")] == [0, 1]


def test_hj6_two_players_dead_hand_top_card_and_voorhand_decides_first() -> None:
    st = new([["6C"], ["7C"]], dead=["9D", "AD", "6D"], dealer=0)
    assert TOKENS[st.turned] == "9D" and st.trump == 1
    assert st.phase == "exchange" and st.current_player == 1  # voorhand first
    play(st, "pass")
    assert st.current_player == 0
    play(st, "exchange")
    assert [e["seat"] for e in events(st, "hand_exchanged")] == [0]
    assert st.phase == "meld"


def test_hj7_turned_card_belongs_to_the_dealer_with_four_and_stays_out_with_two() -> None:
    st = new([P0, P1, P2, P3])
    assert TOKENS[st.turned] == "QH" and st.hands[0] >> card("QH") & 1
    assert st.observation(2)["known_cards"]["0"] == ["QH"]
    st = new([["6C"], ["7C"]], dead=["9D"])
    assert st.dead >> card("9D") & 1 and st.observation(0)["turned_card_in"] == "dead_hand"


def test_hj8_stuk_scores_for_its_holder_who_has_not_the_best_meld() -> None:
    st = new([P0, P1, P2, P3])
    play(st, "pass", "declare JS TS 9S", "pass", "pass", "pass")  # seat 2 has the best meld
    assert [e["seat"] for e in events(st, "meld_winner")] == [2]
    assert [e["seat"] for e in events(st, "stuk_scored")] == [0]  # KH QH with the dealer


def test_hj9_melds_announced_from_voorhand_first_declared_wins_ties() -> None:
    st = new([P0, P1, P2, P3])
    assert st.phase == "meld" and st.current_player == 1
    # seat 1: AS KS QS (20, top A); seat 3: 8S 7S 6S (20); seat 0: AD KD QD (20, top A)
    play(st, "declare AS KS QS", "pass", "pass", "declare 8S 7S 6S", "pass", "declare AD KD QD", "pass")
    assert [e["seat"] for e in events(st, "meld_winner")] == [1]  # equal to seat 0's: earlier


def test_hj10_hj20_handjas_plays_by_the_shared_jass_rule_objects() -> None:
    """Handjas's trick duties are _jass.HANDJAS_RULE (option off: HANDJAS_SWISS_RULE), the one rule
    object its docstring names, not a private copy."""
    import engine.games.jass.handjas as handjas_module
    from engine.games.jass import _jass
    for on, rule in ((True, _jass.HANDJAS_RULE), (False, _jass.HANDJAS_SWISS_RULE)):
        st = load_game("handjas", trump_lead_overtrump=on).new_match(seed=3, players=4)
        assert isinstance(st, HandjasState)
        assert st._rule is rule
    copies = [k for k, v in vars(handjas_module).items() if isinstance(v, PlayRule)
              and k not in ("HANDJAS_RULE", "HANDJAS_SWISS_RULE")]
    assert not copies, copies
    assert "_jass.HANDJAS_RULE" in (handjas_module.__doc__ or "")


def test_hj10_trump_lead_overtrump_option() -> None:
    # KH led; seat 2 holds AH (beats it) and 7H (does not)
    h1 = ["KH", "AC", "KC", "QC", "JC", "TC", "9C", "8C", "7C"]
    h2 = ["AH", "7H", "AS", "KS", "QS", "JS", "TS", "9S", "8S"]
    for overtrump, want in ((True, cards("AH")), (False, cards("AH", "7H"))):
        st = new([["QH"], h1, h2, []], trump_card="QH", trump_lead_overtrump=overtrump)
        skip_melds(st)
        play(st, "play KH")
        assert plays(st) == want


def test_hj11_every_carre_counts_unless_swiss_carres() -> None:
    h1 = ["6C", "6D", "6H", "6S"]
    st = new([["QH"], h1, [], []], trump_card="QH")
    assert "declare 6C 6D 6H 6S" in st.legal_actions()
    st = new([["QH"], h1, [], []], trump_card="QH", swiss_carres=True)
    assert "declare 6C 6D 6H 6S" not in st.legal_actions()


def test_hj12_three_players_swap_then_exchange_then_melds() -> None:
    # spades trump (the extra hand's top card AS); seat 2 holds the 6S
    st = new([["7C"], ["8C"], ["6S"]], extra=["AS", "6C"], dealer=0)
    assert st.phase == "swap" and st.current_player == 2
    assert st.legal_actions() == ["swap 6S", "pass"]
    play(st, "swap 6S")
    assert st.hands[2] >> card("AS") & 1 and st.extra >> card("6S") & 1
    assert [e["card"] for e in events(st, "trump6_swapped")] == ["AS"]
    assert st.phase == "exchange" and st.current_player == 1
    play(st, "exchange")  # seat 1 takes the extra hand with the 6S: no swap any more
    assert st.hands[1] >> card("6S") & 1 and st.phase == "meld"
    assert st.observation(2)["known_cards"]["1"] == ["6S"]
    assert st.observation(1)["extra_hand"] is not None and st.observation(2)["extra_hand"] is None


def test_hj13_best_single_meld_value_then_cards_then_top_then_trump() -> None:
    # seat 1: carre of kings (100, 4 cards); seat 2: run of 5 spades (100, 5 cards): seat 2 wins
    h1 = ["KC", "KD", "KH", "KS"]
    h2 = ["AS", "QS", "JS", "TS", "9S", "8S"][1:]
    st = new([["6H"], h1, h2, []], trump_card="6H")
    play(st, "declare KC KD KH KS", "pass", "declare QS JS TS 9S 8S", "pass", "pass", "pass")
    assert [(e["seat"], e["value"]) for e in events(st, "meld_winner")] == [(2, 100)]
    # equal value and cards: the higher top card; then a run in trump
    st = new([["6H"], ["KC", "QC", "JC", "9D", "7D", "9S", "7S", "8C", "6S"],
              ["KH", "QH", "JH", "9C", "7C", "8D", "6D", "8S", "TS"], []], trump_card="6H")
    play(st, "declare KC QC JC", "pass", "declare KH QH JH", "pass", "pass", "pass")
    assert [e["seat"] for e in events(st, "meld_winner")] == [2]


def test_hj14_one_action_per_meld_shown_when_the_round_ends() -> None:
    st = new([P0, P1, P2, P3])
    play(st, "declare AS KS QS")
    assert st.observation(1)["my_melds"] == [["AS", "KS", "QS"]]
    assert st.observation(2)["melds"] is None  # not shown before the round is over
    play(st, "pass", "pass", "pass", "pass")
    assert st.observation(2)["melds"] == {"1": [["AS", "KS", "QS"]]}
    assert st.phase == "play"


def test_hj15_stuk_counts_for_strokes_not_for_the_potato() -> None:
    st = new([P0, P1, P2, P3])
    skip_melds(st)
    assert [(e["seat"], e["value"]) for e in events(st, "stuk_scored")] == [(0, 20)]  # automatic
    while sum(h.bit_count() for h in st.hands) > 4:
        st.apply(plays(st)[0])
    # before the last trick (the dealer leads QH and takes it): seat 2 has 15 card points and,
    # for this test, the Stuk: 35 in all, still a potato
    st.stuk_seat = 2
    st.pts = [102, 22, 15, 2]
    while st.deal_no == 1:
        st.apply(plays(st)[0])
    assert [(e["seat"], e["points"]) for e in events(st, "potato")] == [(2, 15), (3, 2)]
    # strokes: totals 102 + 31, 22, 15 + 20, 2: the top two are seats 0 and 2 (Stuk counts)
    assert st.score_sheet()[0] == [1.0 + 2, 0.0 + 2, 1.0 + 1 - 1, 0.0 + 1 - 1]


def test_hj16_four_players_everyone_at_or_above_the_second_total() -> None:
    assert deal_strokes([60, 60, 50, 30], [60, 60, 50, 30], [0, 1, 2, 3], False, 22)[0] == [1, 1, 0, 0]
    assert deal_strokes([60, 50, 50, 30], [60, 50, 50, 30], [0, 1, 2, 3], False, 22)[0] == [1, 1, 1, 0]
    assert deal_strokes([60, 50, 40, 30], [60, 50, 40, 30], [0, 1, 2, 3], True, 22)[0] == [1, 0, 0, 0]
    assert deal_strokes([60, 50, 47], [60, 50, 47], [0, 1, 2], False, 22)[0] == [1, 0, 0]


def test_hj17_potato_strokes_to_every_other_active_player() -> None:
    won, pot = deal_strokes([0, 100, 10, 20, 27], [0, 100, 10, 20, 27], [1, 2, 3, 4], False, 22)
    assert pot == [0, 0, 1, 1, 0]
    # seat 2's potato gives 1 to seats 1, 3, 4; seat 3's to 1, 2, 4; seat 0 sits out: nothing
    assert won == [0, 1 + 2, 1, 1, 1 + 2]


def test_hj18_strokes_cancel_earlier_potatoes() -> None:
    game = load_game("handjas")
    for seed in range(40):
        st = game.new_match(seed=seed)
        rng = random.Random(seed)
        while not st.is_over():
            st.apply(rng.choice(st.legal_actions()))
        assert isinstance(st, HandjasState)
        assert st.net == [k - p for k, p in zip(st.strokes, st.potatoes, strict=True)]
        if events(st, "potato_cancelled"):
            ev = events(st, "potato_cancelled")[0]
            earlier = [e for e in events(st, "potato") if e["seat"] == ev["seat"]]
            assert earlier and earlier[0]["deal"] < ev["deal"]  # never by a stroke of its own deal
            return
    pytest.fail("no potato was cancelled in 40 matches")


def test_hj19_jan_limit_option() -> None:
    assert deal_strokes([60, 60, 25, 10], [60, 60, 25, 12], [0, 1, 2, 3], False, 22)[1] == [0, 0, 0, 1]
    assert deal_strokes([60, 60, 25, 10], [60, 60, 25, 12], [0, 1, 2, 3], False, 26)[1] == [0, 0, 1, 1]
    assert load_game("handjas", jan_limit=26).options["jan_limit"] == 26


def test_hj20_trump_led_overtrump_or_any_trump_bare_jas_held() -> None:
    h1 = ["AH", "AC", "KC", "QC", "JC", "TC", "9C", "8C", "7C"]
    h2 = ["JH", "AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S"]
    h3 = ["KH", "6H", "AD", "KD", "QD", "JD", "TD", "9D", "8D"]
    st = new([["QH"], h1, h2, h3], trump_card="QH")
    skip_melds(st)
    play(st, "play AH")
    # seat 2's only trump is the Jas: he may keep it back and play anything
    assert plays(st) == cards(*h2)
    play(st, "play AS")
    assert [e["seat"] for e in events(st, "bare_jas_held")] == [2]
    # seat 3 holds KH 6H, neither beats the AH: any trump
    assert plays(st) == cards("KH", "6H")


def test_hj21_injected_deal_keys_and_turned_card() -> None:
    st = new([["6C"], ["7C"]], dead=["9D"], trump_card="9D")
    assert TOKENS[st.turned] == "9D"
    with pytest.raises(ValueError, match="HJ21"):
        new([["6C"], ["7C"]], dead=["9D"], extra=["AS"], trump_card="AS")
    st = new([["6C"], ["7C"], ["8C"]], extra=["TD"])
    assert TOKENS[st.turned] == "TD" and st.observation(0)["turned_card_in"] == "extra_hand"
    st = new([P0, P1, P2, P3], trump_card="AD")
    assert st.trump == 1


# ------------------------------------------------------------------------------ events and invariants
def test_events_and_invariants_in_random_matches() -> None:
    names = {"handjas.hand_exchanged", "handjas.trump6_swapped", "handjas.meld_winner",
             "handjas.stuk_scored", "handjas.bare_jas_held", "handjas.undertrump_blocked",
             "handjas.potato", "handjas.potato_cancelled", "handjas.sat_out"}
    seen: set[str] = set()
    for n in (2, 3, 4, 5):
        game = load_game("handjas")
        for seed in range(6):
            st = game.new_match(seed=seed, players=n, max_deals=2)
            rng = random.Random(seed)
            while not st.is_over():
                assert not st.invariant_violations()
                seat = st.current_player
                assert seat is not None
                d = st.determinize(seat, random.Random(seed))
                assert isinstance(d, HandjasState) and not d.invariant_violations()
                st.apply(rng.choice(st.legal_actions()))
            seen |= {e["event"] for e in st.events}
    assert seen == names
    assert "handjas.potato" in seen and "handjas.sat_out" in seen
