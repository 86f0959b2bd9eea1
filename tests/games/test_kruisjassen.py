"""Kruisjassen (RULES.md 2.13, seed 003 L168-212): decisions K1-K18 and the card's rule events."""
from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from engine.cards import TOKENS, cards_of
from tests import gamekit
from tests.conformance import leaked_cards
from tests.gamekit import events as ev
from tests.gamekit import first_legal, play
from tests.gamekit import hand_set as hand_of

G = "kruisjassen"

# Every seat holds one suit; dealer 0 holds the hearts (trump 7H), seat 1 leads.
PIT = [
    ["AH", "KH", "QH", "JH", "TH", "9H", "8H", "7H"],
    ["AC", "KC", "QC", "JC", "TC", "9C", "8C", "7C"],
    ["AD", "KD", "QD", "JD", "TD", "9D", "8D", "7D"],
    ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S"],
]
# Trump hearts (8H); melds: seat 0 run 4 to KC, seat 1 run 3 to QS, seat 2 run 4 to QD, seat 3 run 3 to QH.
MIX = [
    ["KC", "QC", "JC", "TC", "7D", "AH", "9H", "8H"],
    ["TS", "JS", "QS", "7C", "8C", "8D", "AC", "7H"],
    ["JD", "TD", "9D", "QD", "9C", "9S", "7S", "KH"],
    ["KD", "AD", "TH", "JH", "QH", "8S", "KS", "AS"],
]
# Trump spades (9S); seat 1 four jacks, seat 2 four aces, seat 0 holds Stuk (KS QS).
CARRES = [
    ["KC", "QC", "TC", "9C", "KS", "QS", "TS", "9S"],
    ["JC", "JD", "JH", "JS", "7C", "7D", "7H", "7S"],
    ["AC", "AD", "AH", "AS", "8C", "8D", "8H", "8S"],
    ["KH", "QH", "TH", "9H", "KD", "QD", "TD", "9D"],
]
# Trump spades (9S); seat 2 holds the Jas as his only trump.
BARE_JAS = [
    ["KC", "QC", "TC", "9C", "KS", "QS", "TS", "9S"],
    ["AS", "8S", "7S", "7C", "8C", "AC", "7D", "8D"],
    ["JS", "AD", "KD", "QD", "JD", "TD", "9D", "AH"],
    ["JC", "KH", "QH", "JH", "TH", "9H", "8H", "7H"],
]


def new(hands: list[list[str]], dealer: int = 0, seed: int = 1, carry: list[int] | None = None,
        **options: Any) -> State:
    deal: dict[str, Any] = {"dealer": dealer}
    if carry is not None:
        deal["carry"] = carry
    return gamekit.new(G, hands, partial=False, seed=seed, options=options, **deal)


def all_pass(state: State) -> None:
    play(state, "pass", "pass", "pass", "pass")


def legal_cards(state: State) -> set[str]:
    return {a[5:] for a in state.legal_actions() if a.startswith("play ")}


def finish_deal(state: State) -> None:
    """Play the first legal action until the deal ends."""
    gamekit.play_deal_out(state, first_legal)


def random_matches(n: int, **options: Any) -> list[State]:
    return gamekit.random_matches(G, n, **options)


# --------------------------------------------------------------------- K1 ik dek
def test_k1_ik_dek_ends_the_deal_at_once_after_a_lost_trick() -> None:
    st = new(CARRES, carry=[95, 0])
    all_pass(st)
    play(st, "play JS", "play 8S", "play 9D", "play 9S")  # seat 1's Jas takes trick 1 (34 points)
    assert st.observation(0)["running_totals"] == [95, 34]
    play(st, "play 7S", "play AS", "play QD")
    assert not ev(st, "kruisjassen.ik_dek")
    play(st, "play KS")  # Stuk: 95 + 20 = 115, side 0 has lost a trick: the deal ends mid-trick
    [dek] = ev(st, "kruisjassen.ik_dek")
    assert dek["side"] == 0 and dek["points"] == 115
    assert st.deal_no == 2
    assert st.score_sheet()[0] == [230.0, 0.0, 230.0, 0.0]  # 115 doubled: side 1 has 34 (K2 onder jan)


def test_k1_pit_play_on_until_a_trick_is_lost() -> None:
    st = new(MIX, carry=[97, 0])
    all_pass(st)
    # trick 1 to seat 0 (side 0): 97 + 3 = 100 without a lost trick: play on for the pit
    play(st, "play 7C", "play 9C", "play 8S", "play KC")
    assert ev(st, "kruisjassen.ik_dek")[0]["side"] == 0 and st.deal_no == 1
    assert st.observation(0)["playing_on_for_pit"] == 0
    play(st, "play 7D", "play 8D", "play 9D", "play AD")  # seat 3 takes trick 2: the pit is off
    assert len(ev(st, "kruisjassen.ik_dek")) == 1  # K1: the opponents cannot claim meanwhile
    assert not ev(st, "kruisjassen.pit_doormars")
    assert st.deal_no == 2
    # side 0 scores its running total 100, doubled: side 1 has 11
    assert st.score_sheet()[0] == [200.0, 0.0, 200.0, 0.0]


def test_k1_option_pit_play_on_off_ends_at_ik_dek() -> None:
    st = new(MIX, carry=[97, 0], pit_play_on=False)
    all_pass(st)
    play(st, "play 7C", "play 9C", "play 8S", "play KC")
    assert st.deal_no == 2 and ev(st, "kruisjassen.ik_dek")[0]["side"] == 0


def test_k1_both_sides_at_100_the_trick_winner_claims() -> None:
    st = new(MIX, carry=[99, 99], pit_play_on=False)
    all_pass(st)
    play(st, "play AC", "play 9C", "play 8S", "play TC")  # seat 1's ace takes it
    assert ev(st, "kruisjassen.ik_dek")[0]["side"] == 1


# --------------------------------------------------------------------- K2 / K10 scoring
def test_k2_winner_scores_running_total_losers_discarded() -> None:
    for st in random_matches(40, target=300):
        sheet = st.score_sheet()
        deks = {e["deal"]: e for e in ev(st, "kruisjassen.ik_dek")}
        jans = {e["deal"] for e in ev(st, "kruisjassen.onder_jan")}
        pits = {e["deal"]: e for e in ev(st, "kruisjassen.pit_doormars")}
        extras: dict[tuple[int, int], int] = {}
        for e in ev(st, "kruisjassen.meld_100_extra_hand"):  # K16: hand and trick melds alike
            key = (e["deal"], e["seat"] % 2)
            extras[key] = extras.get(key, 0) + e["points"]
        for d, row in enumerate(sheet, start=1):
            won = [row[s] - extras.get((d, s), 0) for s in (0, 1)]
            if d in pits:
                side = pits[d]["side"]
                assert won == ([pits[d]["points"], 0] if side == 0 else [0, pits[d]["points"]])
                assert d not in jans  # K10
            elif d in deks:
                side = deks[d]["side"]
                factor = 2 if d in jans else 1
                # the running total at ik dek, or more after playing on for the pit (K1)
                assert won[side] >= factor * deks[d]["points"] and won[1 - side] == 0
                assert won[side] % factor == 0
            else:
                assert won == [0, 0]
        assert [sum(r[s] for r in sheet) for s in range(4)] == st.scores()


def test_k2_no_100_carry_over_same_dealer() -> None:
    found = 0
    for st in random_matches(60):
        for e in ev(st, "kruisjassen.no_100_carry_over"):
            a, b = e["carry"]
            assert a < 100 and b < 100 and a + b >= 146
            found += 1
    assert found


def test_k2_onder_jan_doubles() -> None:
    st = new(CARRES, carry=[95, 0])
    all_pass(st)
    play(st, "play JS", "play 8S", "play 9D", "play 9S", "play 7S", "play AS", "play QD", "play KS")
    [jan] = ev(st, "kruisjassen.onder_jan")
    assert jan["side"] == 1 and jan["points"] == 34
    assert st.scores() == [230.0, 0.0, 230.0, 0.0]


def test_k10_pit_triples_without_onder_jan() -> None:
    st = new(PIT)
    all_pass(st)
    finish_deal(st)
    [pit] = ev(st, "kruisjassen.pit_doormars")
    assert pit["side"] == 0
    assert pit["points"] == 3 * (146 + 20)  # K2: the Stuk went into side 0's running total
    assert not ev(st, "kruisjassen.onder_jan")
    # the low cards go first, so tricks 5-8 hold four J, Q, K and A: four extra won hands (K16)
    melds = [e["meld"] for e in ev(st, "kruisjassen.trick_meld_claimed")]
    assert melds == ["carre J", "carre Q", "carre K", "carre A"]
    assert st.score_sheet()[0] == [898.0, 0.0, 898.0, 0.0]


# --------------------------------------------------------------------- K3 / K4 / K11-K13 / K15 melds
def test_k3_meld_of_100_is_an_extra_won_hand() -> None:
    st = new(CARRES)
    play(st, "declare JS JH JD JC")
    assert "declare AS AH AD AC" in st.legal_actions()  # K11: four aces beat four jacks
    play(st, "declare AS AH AD AC", "pass", "pass")
    [x] = ev(st, "kruisjassen.meld_100_extra_hand")
    assert x["seat"] == 2 and x["points"] == 100
    assert st.scores() == [100.0, 0.0, 100.0, 0.0]  # at once, outside the running total
    assert st.observation(0)["running_totals"] == [0, 0]
    assert st.phase == "play"


def test_k4_side_with_highest_meld_scores_all_its_melds() -> None:
    st = new(MIX)
    play(st, "declare QS JS TS")       # seat 1: run of 3 (20)
    play(st, "declare QD JD TD 9D")    # seat 2: run of 4 to Q (50), outbids seat 1
    assert st.legal_actions() == ["pass"]  # seat 3's run of 3 is not higher
    play(st, "pass")
    play(st, "declare KC QC JC TC")    # seat 0: run of 4 to K beats run of 4 to Q
    assert st.observation(1)["running_totals"] == [100, 0]  # 50 + 50 for side 0, none for side 1
    assert [e["seat"] for e in ev(st, "kruisjassen.meld_announced")] == [1, 2, 0]
    # K16: seat 0 beats his partner's run, not the other side's: no meld_outbid for him
    assert [(e["seat"], e["outbid"]) for e in ev(st, "kruisjassen.meld_outbid")] == [(2, 1)]


def test_k16_meld_outbid_only_over_the_other_sides_best_meld() -> None:
    st = new(MIX)
    play(st, "declare QS JS TS", "declare QD JD TD 9D", "pass", "declare KC QC JC TC")
    assert [(e["seat"], e["outbid"], e["meld"]) for e in ev(st, "kruisjassen.meld_outbid")] == [
        (2, 1, "run 3 to QS")]
    st = new(MIX)
    play(st, "pass", "declare QD JD TD 9D", "pass", "declare KC QC JC TC")
    assert not ev(st, "kruisjassen.meld_outbid")  # only the partner's meld was beaten
    st = new(CARRES)
    play(st, "declare JS JH JD JC", "declare AS AH AD AC")
    [o] = ev(st, "kruisjassen.meld_outbid")
    assert (o["seat"], o["outbid"], o["meld"]) == (2, 1, "carre J")


def test_k16_outbid_events_in_random_meld_rounds() -> None:
    """In random deals where every seat announces when it can, meld_outbid follows exactly the
    announcements that beat the best meld so far when that meld was the other side's."""
    game = load_game(G)
    partner_beaten = 0
    for seed in range(1500):
        st = game.new_match(seed=seed, max_deals=1)
        rng = random.Random(seed)
        for _ in range(4):
            legal = st.legal_actions()
            st.apply(rng.choice(legal[1:]) if len(legal) > 1 else "pass")
        best: tuple[tuple[int, int], int] | None = None
        want = []
        sides: set[int] = set()
        for e in ev(st, "kruisjassen.meld_announced"):
            key = max(_meld_key(m) for m in e["melds"])
            assert best is None or key > best[0]  # K11
            if best is not None:
                if best[1] % 2 != e["seat"] % 2:
                    want.append((e["seat"], best[1]))
                elif 1 - e["seat"] % 2 in sides:
                    partner_beaten += 1  # the partner's meld was the best, the other side's earlier
            best = (key, e["seat"])
            sides.add(e["seat"] % 2)
        assert [(e["seat"], e["outbid"]) for e in ev(st, "kruisjassen.meld_outbid")] == want
    assert partner_beaten >= 3


def _meld_key(describe: str) -> tuple[int, int]:
    """(cards, top rank in natural order) from 'run 4 to KH' or 'carre J' (K11)."""
    order = "789TJQKA"
    parts = describe.split()
    if parts[0] == "carre":
        return (4, order.index(parts[1]))
    return (int(parts[1]), order.index(parts[3][0]))


def test_k11_announcement_must_beat_every_earlier_meld() -> None:
    st = new(CARRES)
    assert "declare JS JH JD JC" in st.legal_actions()
    play(st, "declare JS JH JD JC")
    legal = st.legal_actions()
    assert legal == ["pass", "declare AS AH AD AC"]
    with pytest.raises(IllegalAction):
        new(MIX).apply("declare KC QC JC")  # seat 1 cannot announce seat 0's cards


def test_k12_one_meld_round_from_voorhand() -> None:
    st = new(MIX, dealer=0)
    seats = []
    for _ in range(4):
        seats.append(st.current_player)
        play(st, "pass")
    assert seats == [1, 2, 3, 0]
    assert st.phase == "play" and st.current_player == 1


def test_k12_runs_announced_at_full_length_never_split() -> None:
    hands = [["AH", "KH", "8C", "9C", "TC", "JC", "QC", "KC"],
             ["7H", "8H", "9H", "TH", "JH", "QH", "AC", "7S"],
             ["8S", "9S", "TS", "JS", "QS", "KS", "AS", "7C"],
             ["7D", "8D", "9D", "TD", "JD", "QD", "KD", "AD"]]
    st = new(hands)
    assert st.legal_actions() == ["pass", "declare QH JH TH 9H 8H 7H"]
    for shorter in ("declare QH JH TH + 9H 8H 7H", "declare QH JH TH", "declare JH TH 9H 8H 7H"):
        with pytest.raises(IllegalAction):
            new(hands).apply(shorter)
    # a carré beside the run takes one of its cards: the run goes at the longest length left
    hands = [["AH", "KH", "7H", "9C", "TC", "QC", "KC", "AC"],
             ["8H", "9H", "TH", "JH", "QH", "JC", "JS", "JD"],
             ["8S", "9S", "TS", "7C", "QS", "KS", "AS", "7S"],
             ["7D", "8D", "9D", "TD", "8C", "QD", "KD", "AD"]]
    st = new(hands)
    assert st.legal_actions() == ["pass", "declare QH JH TH 9H 8H", "declare JS JH JD JC",
                                  "declare TH 9H 8H + JS JH JD JC"]


def test_k12_announcements_in_random_deals_are_disjoint_full_runs() -> None:
    """Every announcement offered in random deals: melds share no card, each run is a maximal run
    of the hand unless a carré of the same announcement took one of its cards."""
    from engine.games.jass._jass import KRUISJAS_MELDS, hand_melds, mask_of_tokens
    game = load_game(G)
    for seed in range(300):
        st = game.new_match(seed=seed, max_deals=1)
        for _ in range(4):
            hand = st.zones()[f"hand{st.current_player}"]
            full = {m.cards for m in hand_melds(hand, 0, KRUISJAS_MELDS)}
            for a in st.legal_actions()[1:]:
                melds = [mask_of_tokens(g.split()) for g in a[len("declare "):].split(" + ")]
                seen = 0
                for m in melds:
                    assert not m & seen, a
                    seen |= m
                carres = [m for m in melds if len({TOKENS[c][0] for c in cards_of(m)}) == 1]
                for m in melds:
                    if m not in carres and m not in full:
                        assert any(m & ~c != m or _touches(m, c, hand) for c in carres), a
            st.apply("pass")


def _touches(run: int, carre: int, hand: int) -> bool:
    """Does the carré take a card of the maximal run of ``hand`` that holds ``run``?"""
    s = cards_of(run)[0] // 13
    suit = hand >> (13 * s) & 0x1FFF
    lo = cards_of(run)[0] % 13
    hi = cards_of(run)[-1] % 13
    while lo > 0 and suit >> (lo - 1) & 1:
        lo -= 1
    while suit >> (hi + 1) & 1:
        hi += 1
    whole = ((1 << (hi - lo + 1)) - 1) << (13 * s + lo)
    return bool(whole & carre)


def test_k13_melds_shown_by_length_and_top_then_cards_after_trick_1() -> None:
    st = new(MIX)
    play(st, "declare QS JS TS", "declare QD JD TD 9D", "pass", "pass")
    seen = st.observation(3)["announced"]
    assert seen == [{"seat": 1, "melds": ["run 3 to QS"], "cards": None},
                    {"seat": 2, "melds": ["run 4 to QD"], "cards": None}]
    play(st, "play AC", "play 9C", "play 8S", "play TC")
    assert st.deal_no == 1
    seen = st.observation(3)["announced"]
    assert seen[1]["cards"] == [["QD", "JD", "TD", "9D"]]
    assert not leaked_cards(st, 3) and not leaked_cards(st, 0)


def test_k15_run_of_six_is_one_meld_of_100_ranked_by_length() -> None:
    hands = [list(h) for h in PIT]
    st = new(hands)
    legal = st.legal_actions()
    assert "declare AC KC QC JC TC 9C 8C 7C" in legal
    play(st, "declare AC KC QC JC TC 9C 8C 7C")
    assert st.legal_actions() == ["pass"]  # an 8-run is beaten by nothing
    play(st, "pass", "pass", "pass")
    [x] = ev(st, "kruisjassen.meld_100_extra_hand")
    assert x["meld"] == "run 8 to AC" and x["value"] == 100


def test_declare_accepts_melds_in_any_order() -> None:
    st = new(MIX)
    play(st, "declare TS QS JS")
    assert ev(st, "kruisjassen.meld_announced")[0]["melds"] == ["run 3 to QS"]


# --------------------------------------------------------------------- K5 / K16 roem in de slag
def test_k5_trick_meld_run_to_the_trick_winner() -> None:
    st = new(MIX)
    all_pass(st)
    play(st, "play TS", "play 9S", "play 8S", "play 7D")
    [m] = ev(st, "kruisjassen.trick_meld_claimed")
    assert m["seat"] == 1 and m["meld"] == "run 3 to TS" and m["value"] == 20
    assert st.observation(0)["running_totals"] == [0, 30]  # 10 card points + 20


def test_k16_four_queens_in_a_trick_extra_hand_four_tens_nothing() -> None:
    st = new(PIT)
    all_pass(st)
    play(st, "play QC", "play QD", "play QS", "play QH")
    claimed = ev(st, "kruisjassen.trick_meld_claimed")
    assert [(e["meld"], e["value"]) for e in claimed] == [("carre Q", 100)]
    assert st.scores()[0] == 100.0
    [x] = ev(st, "kruisjassen.meld_100_extra_hand")  # K16: logged as an extra won hand too
    assert (x["seat"], x["meld"], x["points"], x["trick_meld"]) == (0, "carre Q", 100, True)  # QH trumps it
    play(st, "play TH", "play TC", "play TD", "play TS")
    assert len(ev(st, "kruisjassen.trick_meld_claimed")) == 1


def test_k16_every_trick_meld_of_100_is_logged_as_an_extra_hand_in_random_deals() -> None:
    """Random deals of one suit per seat, where the players mostly match the leader's rank so
    carrés fall in tricks: each trick meld of 100 or more logs trick_meld_claimed and
    meld_100_extra_hand (+100) together; smaller ones only trick_meld_claimed."""
    big = 0
    for seed in range(60):
        rng = random.Random(seed)
        suits = [[r + s for r in "AKQJT987"] for s in rng.sample("CDHS", 4)]
        st = new(suits, dealer=rng.randrange(4), seed=seed, pit_play_on=False)
        deal = st.deal_no
        all_pass(st)
        while st.deal_no == deal and not st.is_over():
            legal = st.legal_actions()
            trick = st.observation(st.current_player)["trick"]
            same = [a for a in legal if trick and a[5] == trick[0][1][0]]
            st.apply(rng.choice(same) if same and rng.random() < 0.8 else rng.choice(legal))
        claimed = [(e["ply"], e["seat"], e["meld"]) for e in ev(st, "kruisjassen.trick_meld_claimed")
                   if e["value"] >= 100]
        extra = [(e["ply"], e["seat"], e["meld"]) for e in ev(st, "kruisjassen.meld_100_extra_hand")
                 if e["trick_meld"]]
        assert claimed == extra
        assert all(e["points"] == 100 for e in ev(st, "kruisjassen.meld_100_extra_hand"))
        big += len(claimed)
    assert big >= 10


# --------------------------------------------------------------------- K6 / K7 / K18 play
def test_k6_only_trumps_must_overtrump() -> None:
    st = load_game(G).new_match(seed=0, players=4, max_deals=1, deal={
        "dealer": 0, "trump_card": "AS", "hands": [
        ["7H", "8H", "7S", "8S", "TS", "KS", "9S", "AS"], ["AH", "KH", "QH", "7C", "8C", "9C", "TC", "JC"],
        ["9H", "TH", "QS", "7D", "8D", "9D", "TD", "JD"], ["JH", "QD", "KD", "AD", "QC", "KC", "AC", "JS"]]})
    all_pass(st)
    play(st, "play AH", "play 9H", "play JH", "play 7H", "play KH", "play TH", "play QC", "play 8H",
         "play QH", "play QS", "play KC")
    assert st.current_player == 0 and legal_cards(st) == {"9S", "KS", "AS"}
    with pytest.raises(IllegalAction):
        st.apply("play TS")


def _k6_legal(hand: set[str], trick: list[str], trump: str) -> set[str]:
    """K6/K7 written out from the card text: follow, or trump instead; never below a trump in the
    trick (only trumps held: beat it if you can); trump led: any trump."""
    order = "78TQKA9J"
    led = trick[0][1]
    follow = {c for c in hand if c[1] == led}
    trumps = {c for c in hand if c[1] == trump}
    top = max((order.index(c[0]) for c in trick if c[1] == trump), default=-1)
    higher = {c for c in trumps if order.index(c[0]) > top}
    if led == trump:
        return follow or hand
    if follow:
        return follow | higher
    if trumps == hand:
        return higher or hand
    return (hand - trumps) | higher


def test_k6_legal_plays_match_the_rule_in_random_matches() -> None:
    """Every legal set in random matches is K6/K7 written out; the players hoard trumps (a plain
    card when one is legal, mostly), so hands of only trumps meet a trumped trick often."""
    checked = bites = 0
    for seed in range(30):
        st = load_game(G, target=300).new_match(seed=seed)
        rng = random.Random(seed)
        while not st.is_over():
            legal = st.legal_actions()
            if st.phase == "play":
                obs = st.observation(st.current_player)
                trump, trick, hand = obs["trump"], [t for _, t in obs["trick"]], set(obs["hand"])
                if trick:
                    want = _k6_legal(hand, trick, trump)
                    assert legal_cards(st) == want, (obs, trick)
                    checked += 1
                    bites += want != hand and all(c[1] == trump for c in hand)
                plain = [a for a in legal if a[-1] != trump]
                if plain and (not any(t[1] == trump for t in trick) or rng.random() < 0.5):
                    st.apply(rng.choice(plain))
                    continue
            st.apply(rng.choice(legal))
    assert checked > 1000 and bites >= 5


def test_k6_may_trump_instead_but_never_undertrump() -> None:
    st = new(MIX)
    all_pass(st)
    play(st, "play AC")
    assert legal_cards(st) == {"9C", "KH"}
    play(st, "play KH")
    assert [e["seat"] for e in ev(st, "kruisjassen.trump_instead_of_follow")] == [2]
    assert legal_cards(st) == {"KD", "AD", "8S", "KS", "AS", "JH"}  # QH and TH are below KH
    play(st, "play 8S")
    [u] = ev(st, "kruisjassen.undertrump_blocked")
    assert u["seat"] == 3 and sorted(u["barred"]) == ["QH", "TH"]
    assert legal_cards(st) == {"KC", "QC", "JC", "TC", "AH", "9H"}
    with pytest.raises(IllegalAction):
        st.apply("play 8H")


def test_k7_trump_led_any_trump() -> None:
    st = new(BARE_JAS)
    all_pass(st)
    play(st, "play AS", "play JS", "play JC")
    assert legal_cards(st) == {"KS", "QS", "TS", "9S"}


def test_k18_wild_jas_bare_jas_never_forced() -> None:
    st = new(BARE_JAS)
    all_pass(st)
    play(st, "play 7S")
    assert legal_cards(st) == {"JS"}
    st = new(BARE_JAS, wild_jas=True)
    all_pass(st)
    play(st, "play 7S")
    assert legal_cards(st) == set(BARE_JAS[2])


# --------------------------------------------------------------------- K8 / K9 / K14 / K17
def test_k8_target_is_1100_and_configurable() -> None:
    assert load_game(G).options["target"] == 1100
    for st in random_matches(20, target=400):
        assert max(st.scores()) >= 400 or False
        sheet = st.score_sheet()
        before = [sum(r[s] for r in sheet[:-1]) for s in (0, 1)]
        assert max(before) < 400


def test_k9_omboeren_picks_the_first_dealer() -> None:
    for seed in range(20):
        st = load_game(G).new_match(seed=seed)
        [om] = ev(st, "kruisjassen.omboeren_result")
        assert all(j and j[0] == "J" for j in om["jacks"]) and len(set(om["jacks"])) == 4
        assert st.observation(0)["dealer"] == om["dealer"]
        assert st.current_player == (om["dealer"] + 1) % 4
    st = new(MIX)
    assert not ev(st, "kruisjassen.omboeren_result")  # X6: an injected deal skips omboeren


def test_k14_stuk_scored_on_play_automatically() -> None:
    st = new(BARE_JAS)
    all_pass(st)
    assert not any("stuk" in a for a in st.legal_actions())
    play(st, "play AS", "play JS", "play JC", "play KS")
    [s] = ev(st, "kruisjassen.stuk_on_play")
    assert s["seat"] == 0 and s["points"] == 20
    # the Jas (seat 2) takes the trick: 20 + AS 11 + JS 20 + JC 1 + KS 3
    assert st.observation(1)["running_totals"] == [55, 0]


def test_k17_scores_are_match_points_partners_equal() -> None:
    for st in random_matches(20):
        sc = st.scores()
        assert sc[0] == sc[2] and sc[1] == sc[3]
        assert max(sc) >= 1100
        assert st.ranking()[0] == st.ranking()[2]
        obs = st.observation(0)
        assert obs["strokes"] == [int(sc[0]) // 100, int(sc[1]) // 100]


# --------------------------------------------------------------------- invariants and determinize
def test_determinize_keeps_known_cards_and_hand_sizes() -> None:
    st = new(MIX)
    play(st, "declare QS JS TS", "pass", "pass", "pass")
    play(st, "play AC", "play 9C")
    rng = random.Random(3)
    for _ in range(20):
        d = st.determinize(0, rng)
        assert hand_of(d, 0) == hand_of(st, 0)
        assert {"QS", "JS", "TS"} <= hand_of(d, 1)
        assert [len(hand_of(d, s)) for s in range(4)] == [len(hand_of(st, s)) for s in range(4)]
        assert not d.invariant_violations()
        d.apply(d.legal_actions()[0])


def test_per_deal_points_146() -> None:
    for st in random_matches(10):
        assert not st.invariant_violations()
