"""engine.rl's fixed action alphabets (issue 24, section 2; docs/rl.md "Action ids")."""
from __future__ import annotations

import random

import numpy as np
import pytest

import engine
from engine import load_game
from engine.rl import action_space
from engine.rl.actions import ActionSpace
from tests import gamekit
from tests.rl.conftest import VARIANTS, configurations, random_states

SIZES = {
    "genive": 1575, "geneve": 2717, "hartenjagen": 104, "manillen": 38, "jokeren_nl": 5777, "zenuwen": 2834,
    "butifarra": 57, "manille_parlee": 114, "manille_muette": 32, "manille_2_7": 70, "handjas": 163,
    "schutjassen": 1265, "kruisjassen": 1261, "jo_jotte": 44, "klop_bela": 42, "klop_bela_3p": 42,
    "grevjas": 2493, "honderden": 159, "honderden_3p": 159, "amerikaans_jokeren": 5778, "jokeren_drift": 5777,
    "tonk": 1156, "klop_rummy": 56, "wildcard_rummy": 110, "loba": 26371, "ramino_klop": 57,
    "ramino_drift": 2969, "cincinnati_rummy": 110,
}
"""The sizes of issue 24's table, computed there from random matches with the real engine; every
game's alphabet has exactly that size (docs/rl.md lists each game's blocks)."""


def assert_has_ids(space: ActionSpace, legal: list[str]) -> None:
    ids = [space.id(a) for a in legal]
    assert len(set(ids)) == len(ids)
    assert all(0 <= i < space.size for i in ids)
    assert [space.string(i) for i in ids] == legal


def test_every_game_has_a_size_in_the_table() -> None:
    missing = sorted(set(engine.GAMES) - set(SIZES))
    assert not missing, f"tests/rl/test_action_space.py: SIZES has no entry for {', '.join(missing)}: add it"
    assert sorted(SIZES) == sorted(engine.GAMES), "SIZES names a game that is gone: remove it"


@pytest.mark.parametrize("game_id", engine.GAMES)
def test_alphabet_size_blocks_and_no_duplicate(game_id: str) -> None:
    space = action_space(game_id)
    assert game_id in SIZES, (f"tests/rl/test_action_space.py: SIZES has no entry for {game_id}: add "
                              f"\"{game_id}\": {space.size} (its alphabet size) after checking its blocks")
    assert space.size == SIZES[game_id] == len(space.strings) == len(set(space.strings))
    assert space.blocks[0].base == 0
    for a, b in zip(space.blocks, space.blocks[1:], strict=False):
        assert b.base == a.base + a.size
    assert space.blocks[-1].base + space.blocks[-1].size == space.size
    assert [b.form for b in space.blocks] == list(type(load_game(game_id)).action_forms)
    assert action_space(game_id) is space  # cached


@pytest.mark.parametrize("game_id", engine.GAMES)
def test_every_legal_string_of_random_matches_has_an_id_and_round_trips(game_id: str) -> None:
    space = action_space(game_id)
    for k, (opts, n) in enumerate(configurations(game_id)):
        for st in random_states(game_id, opts, n, seed=k, steps=300):
            legal = st.legal_actions()
            assert_has_ids(space, legal)
            assert space.legal_ids(st) == sorted(space.id(a) for a in legal)
            mask = space.mask(st)
            assert mask.dtype == np.int8 and mask.shape == (space.size,)
            assert np.flatnonzero(mask).tolist() == space.legal_ids(st)


@pytest.mark.parametrize("game_id", sorted(VARIANTS))
def test_ids_do_not_depend_on_options(game_id: str) -> None:
    space = action_space(game_id)
    for opts in VARIANTS[game_id]:
        assert ActionSpace(game_id, load_game(game_id, **opts)).strings == space.strings


def test_documented_order() -> None:
    hj = action_space("hartenjagen")
    assert hj.id("pass 2C") == 0 and hj.id("pass 3C") == 1 and hj.id("pass 2D") == 13
    assert hj.id("play 2C") == 52 and hj.string(103) == "play AS"
    mn = action_space("manillen")
    assert [mn.string(i) for i in range(6)] == ["cut", "knock", "trump C", "trump D", "trump H", "trump S"]
    assert mn.string(6) == "play 7C"  # the 32-card pack, in card-id order
    jk = action_space("jokeren_nl")
    first = {b.form: b.base for b in jk.blocks}
    assert jk.id("layoff 2C 1") == first["layoff CARD 1..36"]
    assert jk.id("layoff 2C 2") == first["layoff CARD 1..36"] + 1  # the first slot varies slowest
    assert jk.id("layoff 3C 1") == first["layoff CARD 1..36"] + 36
    assert jk.id("discard JK") == jk.size - 1
    ge = action_space("genive")
    combos = [s for s in ge.strings if s.startswith("discard ") and " " in s[8:]]
    counts = [len(c.split()) - 1 for c in combos]
    assert counts == sorted(counts) and combos[0] == "discard 2C 2D"  # by card count, then text


def test_bad_ids_and_strings_are_value_errors() -> None:
    hj = action_space("hartenjagen")
    with pytest.raises(ValueError, match=r"hartenjagen.*104"):
        hj.id("play 10H")
    with pytest.raises(ValueError, match="hartenjagen"):
        hj.id(52)  # type: ignore[arg-type]
    for bad in (True, 1.0, "3", None, -1, 104, np.int64(104)):
        with pytest.raises(ValueError):
            hj.string(bad)
    assert hj.string(np.int64(52)) == hj.string(np.int32(52)) == "play 2C"
    with pytest.raises(ValueError, match="game id"):
        action_space(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown game"):
        action_space("hearts")


def test_a_game_without_action_forms_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    cls = type(load_game("manille_muette"))
    monkeypatch.delattr(cls, "action_forms")
    with pytest.raises(ValueError, match="manille_muette declares no action_forms"):
        ActionSpace("manille_muette")


# ----------------------------------------------------------------------------- targeted positions
def play_out(st: engine.State, space: ActionSpace, rng: random.Random, steps: int,
             prefer: str = "") -> list[str]:
    """Random play (preferring actions that start with ``prefer``); every legal list checked."""
    seen: list[str] = []
    for _ in range(steps):
        if st.is_over():
            break
        legal = st.legal_actions()
        assert_has_ids(space, legal)
        seen += legal
        pick = [a for a in legal if prefer and a.startswith(prefer)] or legal
        st.apply(rng.choice(pick))
    return seen


def test_genive_hand_with_both_jokers() -> None:
    st = gamekit.new("genive", [["JK", "JK", "5H", "7H", "9C"], ["2C", "3D"], ["4C", "KD"]], dealer=2,
                     upcard="9D", stock=["8C", "8D", "8S", "6C", "6D", "6S", "TC", "TD"])
    legal = st.legal_actions()
    assert "discard JK=4H 5H JK=6H 7H" in legal or "discard 5H JK=6H 7H JK=8H" in legal
    assert_has_ids(action_space("genive"), legal)
    play_out(st, action_space("genive"), random.Random(1), 60)


def test_kruisjassen_hand_with_two_runs_and_a_carre() -> None:
    hand = ["JH", "QH", "KH", "JS", "QS", "KS", "JC", "JD"]
    rest = [t for t in load_game("kruisjassen").card_tables().deck if t not in hand]
    hands = [hand, rest[0:8], rest[8:16], rest[16:24]]
    st = gamekit.new("kruisjassen", hands, partial=False, dealer=3)
    space = action_space("kruisjassen")
    # K12: the carré takes a card of each run, so it is announced alone; the two runs together
    assert {"declare JS JH JD JC", "declare KH QH JH + KS QS JS"} <= set(st.legal_actions())
    play_out(st, space, random.Random(2), 40, prefer="declare")


def test_zenuwen_two_packs_shows_one_token_on_two_piles() -> None:
    space = action_space("zenuwen")
    seen: list[str] = []
    for seed in range(6):
        for st in random_states("zenuwen", {"packs": 2}, 2, seed=seed, steps=400):
            assert_has_ids(space, st.legal_actions())
            seen += st.legal_actions()
        if any("/" in a for a in seen):
            break
    assert any(a.startswith("play ") and "/" in a for a in seen)


def test_jokeren_table_with_many_melds() -> None:
    space = action_space("jokeren_nl")
    most = 0
    for seed in range(10):
        st = load_game("jokeren_nl").new_match(seed=seed, players=4, max_deals=1)
        rng = random.Random(seed)
        for _ in range(1500):
            if st.is_over():
                break
            legal = st.legal_actions()
            assert_has_ids(space, legal)
            pick = ([a for a in legal if a.startswith(("meld", "confirm", "layoff"))] or legal)
            st.apply(rng.choice(pick))
            most = max(most, len(st.observation(0)["table"]))  # type: ignore[arg-type]
        if most >= 8:
            break
    assert most >= 8


def test_loba_escalera_with_a_joker_at_an_end() -> None:
    space = action_space("loba")
    found = False
    for seed in range(40):
        st = load_game("loba").new_match(seed=seed, players=2, max_deals=1)
        rng = random.Random(seed)
        for _ in range(1500):
            if st.is_over():
                break
            legal = st.legal_actions()
            assert_has_ids(space, legal)
            if any(a.startswith("move ") for a in legal):
                found = True
                break
            pick = [a for a in legal if a.startswith(("meld", "confirm", "layoff"))] or legal
            st.apply(rng.choice(pick))
        if found:
            break
    assert found
