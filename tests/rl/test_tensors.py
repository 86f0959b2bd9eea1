"""engine.rl's observation tensors (issue 24, section 3; docs/rl.md "Observation tensors")."""
from __future__ import annotations

import json
from collections import Counter
from typing import Any

import numpy as np
import pytest

import engine
from engine import load_game
from engine.rl.tensors import COMMON_SKIP, ObservationEncoder, declared, observation_encoder, phases_of
from tests.rl.conftest import VARIANTS, configurations, random_states


def sampled(game_id: str, steps: int = 250) -> list[tuple[dict[str, Any], ObservationEncoder, engine.State]]:
    """Observations of every seat along random matches at every player count (and option variant)."""
    out = []
    for k, (opts, n) in enumerate(configurations(game_id)):
        enc = observation_encoder(game_id, n, **opts)
        for i, st in enumerate(random_states(game_id, opts, n, seed=100 + k, steps=steps)):
            if i % 3 == 0 or st.is_over():
                for seat in range(n):
                    out.append((st.observation(seat), enc, st))
    return out


@pytest.mark.parametrize("game_id", engine.GAMES)
def test_every_observation_key_is_encoded_or_skipped_with_a_reason(game_id: str) -> None:
    cls = load_game(game_id).state_class
    kinds, skips = declared(cls, "TENSOR"), declared(cls, "TENSOR_SKIP")
    for key in cls.observation_keys():
        assert (key in kinds) != (key in skips), key
    assert all(len(reason) > 20 for reason in skips.values())
    enc = observation_encoder(game_id)
    encoded = [k for k in cls.observation_keys() if k in kinds]
    assert set(enc.layout) == {"phase", "current_player", "scores", *encoded}
    assert not (set(enc.layout) & COMMON_SKIP)


@pytest.mark.parametrize("game_id", engine.GAMES)
def test_tensor_shape_values_json_and_hand_plane(game_id: str) -> None:
    seen_phases: set[str] = set()
    for obs, enc, _ in sampled(game_id):
        x = enc.encode(obs)
        assert x.dtype == np.float32 and x.shape == enc.shape
        assert np.isfinite(x).all() and (np.abs(x) <= 1).all()
        assert np.array_equal(x, enc.encode(json.loads(json.dumps(obs))))
        seen_phases.add(str(obs["phase"]))
        # the hand plane decodes to the hand, as a multiset
        plane = x[enc.layout["hand"]] * np.array(enc.denom, dtype=np.float32)
        got = Counter({enc.domain[i]: round(float(v)) for i, v in enumerate(plane) if round(float(v))})
        want = Counter("JK" if t.startswith("JK") else t for t in obs["hand"])  # type: ignore[union-attr]
        assert got == want
    assert seen_phases <= set(phases_of(load_game(game_id).state_class))


def canonical(v: Any) -> Any:
    """A value up to the order of card lists (the planes count copies, not order)."""
    if isinstance(v, list):
        items = [canonical(x) for x in v]
        if all(isinstance(x, str) for x in v):
            return tuple(sorted(items))
        return () if all(x == () for x in items) else tuple(items)  # no seat shows anything: as null
    if isinstance(v, dict):  # an announcement's cards are the cards its descriptions name
        return tuple(sorted((k, canonical(x)) for k, x in v.items() if not (k == "cards" and "melds" in v)))
    return () if v is None or v is False else v


@pytest.mark.parametrize("game_id", engine.GAMES)
def test_changing_an_encoded_key_changes_the_tensor(game_id: str) -> None:
    """Over sampled observations of seat 0 (relative seats are then the seats) at one seat count,
    two distinct values of an encoded key (up to the order of card lists) never encode to the same
    slice."""
    by_players: dict[int, list[tuple[dict[str, Any], ObservationEncoder]]] = {}
    for obs, enc, _ in sampled(game_id, steps=150):
        if not enc.options and obs["seat"] == 0:
            by_players.setdefault(enc.players, []).append((obs, enc))
    for rows in by_players.values():
        enc = rows[0][1]
        for key, sl in enc.layout.items():
            numeric = enc.kinds[key].startswith(("num", "seat_nums", "nums", "seat_lists"))
            if key in ("phase", "current_player", "scores") or numeric:
                continue  # numbers are clipped at their declared bound
            slices: dict[bytes, Any] = {}
            for obs, _ in rows:
                rel = canonical(obs.get(key))
                b = enc.encode(obs)[sl].tobytes()
                if b in slices:
                    assert slices[b] == rel or _same_cards(slices[b], rel), (key, slices[b], rel)
                else:
                    slices[b] = rel


def _same_cards(a: Any, b: Any) -> bool:
    """Two values equal once laid jokers are read as jokers (the plane counts a laid JK=6H as JK)."""
    def norm(v: Any) -> Any:
        if isinstance(v, str):
            return "JK" if v.startswith("JK") else v
        if isinstance(v, tuple):
            items = tuple(norm(x) for x in v)
            return tuple(sorted(items, key=repr))
        return v
    return bool(norm(a) == norm(b))


def test_shape_depends_on_players_not_on_the_match() -> None:
    a, b = observation_encoder("loba", 2), observation_encoder("loba", 5)
    assert a.shape != b.shape and observation_encoder("loba", 2) is a
    start = a.layout["table"].start
    assert a.layout["table"] == slice(start, start + 36 * (2 * 53 + 2 + 1))


def test_an_undeclared_phase_fails() -> None:
    enc = observation_encoder("hartenjagen")
    obs = load_game("hartenjagen").new_match(seed=1).observation(0)
    obs["phase"] = "bidding"
    with pytest.raises(ValueError, match="not in its PHASES"):
        enc.encode(obs)


@pytest.mark.parametrize("game_id", sorted(VARIANTS))
def test_variants_encode(game_id: str) -> None:
    for opts in VARIANTS[game_id]:
        enc = observation_encoder(game_id, None, **opts)
        st = load_game(game_id, **opts).new_match(seed=3)
        assert enc.encode(st.observation(0)).shape == enc.shape


def _card_lists(v: Any) -> list[list[Any]]:
    """Every list of an observation value that holds a card token (nested ones included)."""
    out: list[list[Any]] = []
    if isinstance(v, dict):
        for x in v.values():
            out += _card_lists(x)
    elif isinstance(v, list):
        if any(isinstance(x, str) for x in v):
            out.append(v)
        for x in v:
            out += _card_lists(x)
    return out


@pytest.mark.parametrize("game_id", engine.GAMES)
def test_cards_plane_fast_path_equals_the_general_path(game_id: str) -> None:
    """A cards plane is written in one pass over a list of known tokens, falling back to the
    general walk (nested lists, strings, unknown tokens); both give the same entries on every card
    list of sampled observations, and on lists the fast pass cannot take."""
    from engine.rl.tensors import _cards_general
    for obs, enc, _ in sampled(game_id, steps=120):
        table = enc._tables[enc.layout["hand"].start]
        for cards in [*_card_lists(obs), ["XX", *obs["hand"]], [obs["hand"], "JK=2C", 7, None]]:
            fast: list[int] = []
            general: list[int] = []
            enc._cards_into(cards, table, fast)
            _cards_general(cards, table, general)
            assert fast == general, cards


def _odd_numbers(v: Any, k: int) -> Any:
    """A number key's value in another shape: null, a short list, a non-number element, out of
    bounds, negative, a bool."""
    if isinstance(v, list) and v:
        return [None, v[:1], [*v[:-1], "x"], [x * 1000 if isinstance(x, (int, float)) else x for x in v],
                [-x if isinstance(x, (int, float)) else x for x in v], [True] * len(v)][k % 6]
    return [None, "3", 10**6, -7.5, True, 0][k % 6]


@pytest.mark.parametrize("game_id", engine.GAMES)
def test_number_keys_of_any_shape_encode_as_their_general_writer(game_id: str) -> None:
    """The number keys are divided and clipped in one vectorised block; a value of another shape
    (null, short list, a non-number element) falls back to the key's general writer. Every number
    key's slice equals what its general writer writes, on sampled and on reshaped values."""
    for k, (obs, enc, _) in enumerate(sampled(game_id, steps=60)):
        odd = dict(obs)
        for key, _, _, _ in enc._numbers:
            if k % 2:
                odd[key] = _odd_numbers(obs.get(key), k + len(key))
        x = enc.encode(odd)
        for key, _, _, general in enc._numbers:
            at: list[int] = []
            val: list[float] = []
            general(odd, odd["seat"], [], at, val)
            want = np.zeros(enc.shape, np.float32)
            want[at] = val
            sl = enc.layout[key]
            assert np.array_equal(x[sl], want[sl]), (key, odd.get(key))


def _outer_tuples(v: Any) -> Any:
    return tuple(v) if isinstance(v, list) else v


@pytest.mark.parametrize("game_id", engine.GAMES)
def test_fast_writers_equal_their_general_walk(game_id: str) -> None:
    """The writers of card lists per seat, tricks, melds and laid jokers take one C-level pass per
    list when every element has the expected shape, else the general walk: a value given as a tuple
    (which only the general walk reads) encodes the same."""
    for obs, enc, _ in sampled(game_id, steps=120):
        numbers = {key for key, _, _, _ in enc._numbers}
        odd = {k: v if k in numbers else _outer_tuples(v) for k, v in obs.items()}
        assert np.array_equal(enc.encode(odd), enc.encode(obs))
