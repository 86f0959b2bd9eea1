"""Every game's published card tables (``Game.card_tables()``, engine/README.md "Card tables") agree
with the engine's own play: the trick winner and the card points of random tricks."""
from __future__ import annotations

import random
from typing import Any

import pytest

from bots.builtin._common import MissingTables, trick_rules
from engine import GAMES, game_class, load_game
from engine.cards import TOKENS
from engine.core import CONTEXTS, CardTables, Game, State
from engine.trickplay import TrickState

TRICK_GAMES = [g for g in GAMES if game_class(g).tables.trick is not None]
CASES = [(g, {}) for g in TRICK_GAMES] + [("jo_jotte", {"pagat_values": True})]


def _winner(trick: list[tuple[int, str]], trump: str | None, t: CardTables) -> int:
    best = trick[0]
    for seat, c in trick[1:]:
        b = best[1]
        if (c[1] == b[1] and t.strength(c, trump) > t.strength(b, trump)) or (c[1] == trump != b[1]):
            best = (seat, c)
    return best[0]


def _views(state: State) -> TrickState:
    """The state through the trick kernel's declared views (points_taken, previous_trick)."""
    assert isinstance(state, TrickState), (
        f"{state.game.id}: a trick game's state subclasses engine.trickplay.TrickState (or "
        "PlainTrickState), whose declared views points_taken() and previous_trick() this test reads")
    return state


def _last_trick(state: State) -> list[tuple[int, str]]:
    return [(s, TOKENS[c]) for s, c in _views(state).previous_trick()]


def test_every_game_declares_its_card_tables() -> None:
    """Each game says what it has: a trick order and points, or None for a notion it lacks."""
    assert "tables" not in Game.__dict__  # no default: a game that omits its tables fails here
    for g in GAMES:
        cls = game_class(g)
        tables = load_game(g).card_tables()
        assert isinstance(cls.tables, CardTables) and isinstance(tables, CardTables), g
        tricky = cls.family.startswith(("trick", "jass"))
        assert (tables.trick is not None) == tricky, (
            f"{g}: a trick game declares its trick order (tables = CardTables(order, points)), a game "
            "without tricks NO_CARD_TABLES")
        assert tables.points is None or tricky, f"{g}: card points without tricks"  # (a trick game: optional)


@pytest.mark.parametrize("game,options", CASES, ids=["-".join([g, *o]) for g, o in CASES])
def test_card_tables_agree_with_engine_trick_winner_and_points(game: str, options: dict[str, Any]) -> None:
    """Random matches: the seat the engine lets lead after each trick is the tables' winner, and the
    card points it books for a trick are the tables' points (plus the trick point), trump or not;
    both read through the kernel's declared views (TrickState.points_taken, previous_trick)."""
    g = load_game(game, **options)
    t = g.card_tables()
    checked = scored = 0
    for seed in range(1, 5):
        state = g.new_match(seed=seed, max_deals=2)
        rng = random.Random(seed)
        prev, before, old = state.observation(0), _views(state).points_taken(), _last_trick(state)
        while not state.is_over():
            state.apply(rng.choice(state.legal_actions()))
            if state.is_over():
                break
            obs = state.observation(0)
            now, trick = _views(state).points_taken(), _last_trick(state)
            if trick and trick != old and obs["deal"] == prev["deal"]:
                trump = obs.get("trump") if obs.get("trump") in ("C", "D", "H", "S") else None
                w = _winner(trick, trump, t)
                assert state.current_player == w, (seed, trick, trump)
                checked += 1
                assert len(now) == len(before), (seed, now, before)
                base = sum(t.value(c, trump) for _, c in trick) + t.trick_point
                assert sum(now) - sum(before) in (base, base + t.last_trick), (seed, trick, trump)
                scored += 1
            prev, before, old = obs, now, trick
    assert checked >= 20 and scored >= 10, (checked, scored)


def test_card_tables_rows_rank_every_card_of_a_suit_from_1() -> None:
    """``rows()`` (the ``card_tables`` SQL table): per context and suit, rank indexes 1..n, each once,
    over exactly the cards of the game's deck."""
    for g in GAMES:
        t = load_game(g).card_tables()
        rows = t.rows()
        if t.trick is None:
            assert rows == [] and t.deck == (), g
            continue
        for ctx in CONTEXTS:
            for s in "CDHS":
                idx = sorted(r for c, card, r, _ in rows if c == ctx and card[1] == s)
                assert idx == list(range(1, len(idx) + 1)), (g, ctx, s)
        assert {card for _, card, _, _ in rows} == set(t.deck), g
        mask = load_game(g).new_match(seed=1).deck_mask
        assert set(t.deck) == {TOKENS[c] for c in range(52) if mask >> c & 1}, f"{g}: another deck"


def test_greedy_reads_declared_tables_and_fails_loudly_without_them() -> None:
    """The manille tables reach the bots from the declaration (10 > A > K; 10 worth 5, trick point
    1); a game without a trick order, or no game at all, is a MissingTables error, never the natural order."""
    r = trick_rules("manille_muette")
    assert r.strength("TS", None) > r.strength("AS", None) > r.strength("KS", None)
    assert r.value("TS", "H") == 5 and r.trick_point == 1 and set(r.deck) == set(load_game("manille_muette")
                                                                                 .card_tables().deck)
    assert trick_rules("hartenjagen").avoid and trick_rules("hartenjagen").value("QS", None) == 13
    with pytest.raises(MissingTables, match="declares no trick order"):
        trick_rules("genive")
    with pytest.raises(MissingTables, match="unknown game"):
        trick_rules("no_such_game")


@pytest.mark.parametrize("game,options", CASES, ids=["-".join([g, *o]) for g, o in CASES])
def test_observation_card_order_and_points_agree_with_card_tables_in_every_trump_context(
        game: str, options: dict[str, Any]) -> None:
    """Issue 26 item 4: every observation of a trick game carries its card order and card points
    in the current trump context (``card_order``, ``card_points``), equal to the game's published
    CardTables (read here through ``rows()``, the ``card_tables`` SQL table): a card of the trump suit
    the observation shows in the trump context, every other card (and all of them without trump) in
    the plain one.  Checked for every seat's observation in random play, in every trump context met."""
    g = load_game(game, **options)
    t = g.card_tables()
    rows = {(ctx, c): (rank, pts) for ctx, c, rank, pts in t.rows()}
    seen: set[str | None] = set()
    for seed in range(6):
        state = g.new_match(seed=seed, max_deals=2)
        rng = random.Random(seed)
        while True:
            for seat in range(state.players):
                obs = state.observation(seat)
                trump = obs.get("trump") if obs.get("trump") in ("C", "D", "H", "S") else None
                seen.add(trump)
                ctx = {c: "trump" if c[1] == trump else "plain" for c in t.deck}
                assert obs["card_order"] == {c: rows[ctx[c], c][0] for c in t.deck}, (seed, trump)
                want = None if t.points is None else {c: rows[ctx[c], c][1] for c in t.deck}
                assert obs["card_points"] == want, (seed, trump)
                obs["card_order"].clear()  # the caller's own copy: the next observation is whole
                if obs["card_points"] is not None:
                    obs["card_points"].clear()
            if state.is_over():
                break
            state.apply(rng.choice(state.legal_actions()))
    assert seen, game
    if "trump" in load_game(game).state_class.observation_keys():
        assert seen & {"C", "D", "H", "S"}, f"{game}: no trump context met in random play: {seen}"
