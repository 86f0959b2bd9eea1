"""CONTRACT.md's engine API at its public boundary: wrongly typed or out-of-range arguments raise
ValueError (IllegalAction for an action), never TypeError/IndexError/OverflowError; injected deals
are checked strictly by engine.deal (X6); game options are typed and bounded."""
from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import GAMES, IllegalAction, load_game
from engine.cards import TOKENS, cards_of

JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-10**30, 10**30), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6), st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3),
                                                                               st.integers(), max_size=2),
    st.tuples(st.integers()),
)
GAME = st.sampled_from(GAMES)


def _only_value_error(f: Any, *args: Any, **kwargs: Any) -> None:
    try:
        f(*args, **kwargs)
    except ValueError:
        pass


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(GAME, JUNK, JUNK, JUNK, JUNK)
def test_x6_new_match_junk_arguments_raise_only_value_error(game: str, seed: Any, players: Any,
                                                            max_deals: Any, deal: Any) -> None:
    g = load_game(game)
    _only_value_error(g.new_match, seed=seed, players=players, max_deals=max_deals, deal=deal)


@settings(max_examples=150, deadline=None)
@given(GAME, JUNK, JUNK)
def test_state_methods_junk_arguments_raise_only_value_error(game: str, seat: Any, action: Any) -> None:
    s = load_game(game).new_match(seed=3)
    _only_value_error(s.observation, seat)
    _only_value_error(s.determinize, seat, random.Random(1))
    before = s.legal_actions()
    if not (isinstance(action, str) and action in before):
        with pytest.raises(IllegalAction):
            s.apply(action)
        assert s.legal_actions() == before


@settings(max_examples=200, deadline=None)
@given(GAME, st.data())
def test_options_junk_values_raise_only_value_error(game: str, data: st.DataObject) -> None:
    spec = load_game(game).options_spec
    opt = data.draw(st.sampled_from(spec))
    _only_value_error(load_game, game, **{opt.name: data.draw(JUNK)})


@settings(max_examples=120, deadline=None)
@given(GAME, st.data())
def test_x6_mutated_deals_raise_only_value_error(game: str, data: st.DataObject) -> None:
    """A seeded deal written out as an injected deal, then damaged: any damage is a ValueError."""
    deal = _deal_of(game, 5)
    kind = data.draw(st.sampled_from(["drop", "dup", "key", "junk_card", "junk_hand", "stock", "upcard"]))
    hands = deal["hands"]
    seat = data.draw(st.integers(0, len(hands) - 1))
    if kind == "drop" and hands[seat]:
        hands[seat].pop(data.draw(st.integers(0, len(hands[seat]) - 1)))
    elif kind == "dup" and hands[seat]:
        hands[seat].append(hands[seat][0])
    elif kind == "key":
        deal[data.draw(st.text(min_size=1, max_size=5))] = 1
    elif kind == "junk_card" and hands[seat]:
        hands[seat][0] = data.draw(JUNK)
    elif kind == "junk_hand":
        hands[seat] = data.draw(JUNK)
    elif kind == "stock":
        deal["stock"] = data.draw(st.one_of(JUNK, st.lists(st.sampled_from(TOKENS[:54]), max_size=4)))
    else:
        deal["upcard"] = data.draw(st.one_of(JUNK, st.sampled_from(TOKENS[:54])))
    _only_value_error(load_game(game).new_match, seed=1, deal=deal)


def _deal_of(game: str, seed: int) -> dict[str, Any]:
    """A complete, valid injected deal for ``game``: every seat's cards, everything else the stock
    when the game has one (trick games: 4-hand deals of the whole pack)."""
    s = load_game(game).new_match(seed=seed)
    if game == "zenuwen":  # Z2: the whole pack round robin
        deck = [TOKENS[c] for c in cards_of(s.deck_mask)]
        return {"dealer": 0, "hands": [deck[p::s.players] for p in range(s.players)]}
    masks = s.hands  # type: ignore[attr-defined]
    return {"dealer": s.dealer, "hands": [[TOKENS[c] for c in cards_of(m)] for m in masks]}  # type: ignore[attr-defined]


HUGE_ACTIONS = [
    "x" * 100_000,  # one unknown verb
    "play " + "Q" * 100_000,  # one bad card
    "play " + "QS " * 33_000,  # too many cards
    "meld " + "QS " * 33_000,  # valid tokens, not legal
    "meld " + "JK=" + "6" * 100_000,  # a bad joker
    "trump " + "H" * 100_000,
    "draw " + "s" * 100_000,
    "layoff " + "QS " * 33_000 + "x",
    "pass " + "KS " * 33_000,
]


@pytest.mark.parametrize("game", GAMES)
def test_illegal_action_messages_quote_a_huge_action_capped(game: str) -> None:
    """An IllegalAction message quotes at most engine.errors.QUOTED_CHARS of the action (a bot's
    100,000-character action was quoted whole), in every game and phase reached by a few moves."""
    s = load_game(game).new_match(seed=2)
    rng = random.Random(game)
    for _ in range(4):
        for action in [*HUGE_ACTIONS, [["x"] * 100_000], "declare " + "a" * 100_000]:
            with pytest.raises(IllegalAction) as e:
                s.apply(action)
            assert len(str(e.value)) < 1_500, (action[:20], str(e.value)[:200])
        for _ in range(rng.randrange(1, 6)):
            if not s.is_over():
                s.apply(rng.choice(s.legal_actions()))


# ------------------------------------------------------------------ the deal validator by family
HEARTS = [[TOKENS[13 * suit + r] for r in range(13)] for suit in range(4)]


def test_x6_hartenjagen_unknown_key_is_refused() -> None:
    with pytest.raises(ValueError, match=r"unknown key.*'hand'"):
        load_game("hartenjagen").new_match(deal={"dealer": 0, "hands": HEARTS, "hand": []})


def test_x6_manillen_ignored_stock_and_upcard_are_refused() -> None:
    hands = [[r + suit for r in "789TJQKA"] for suit in "CDHS"]
    with pytest.raises(ValueError, match="no stock"):
        load_game("manillen").new_match(deal={"dealer": 0, "hands": hands, "stock": ["7H"]})
    with pytest.raises(ValueError, match="up-card"):
        load_game("manillen").new_match(deal={"dealer": 0, "hands": hands, "upcard": "7H"})
    load_game("manillen").new_match(deal={"dealer": 0, "hands": hands, "stock": [], "upcard": None})


def _rummy_deal(game: str, players: int) -> tuple[list[list[str]], list[str]]:
    s = load_game(game).new_match(seed=4, players=players)
    hands = [sorted(TOKENS[c] for c in cards_of(h)) for h in s.hands]  # type: ignore[attr-defined]
    held = [t for h in hands for t in h]
    rest = [TOKENS[c] for c in cards_of(s.deck_mask)]
    for t in held:
        rest.remove(t)
    return hands, rest


@pytest.mark.parametrize("game", ["jokeren_drift", "klop_rummy", "tonk", "genive"])
def test_x6_stock_one_short_is_refused(game: str) -> None:
    n = 3 if game == "genive" else 2
    hands, rest = _rummy_deal(game, n)
    g = load_game(game)
    g.new_match(players=n, deal={"dealer": 0, "hands": hands, "stock": rest})  # complete: accepted
    with pytest.raises(ValueError, match="leave out 1 card"):
        g.new_match(players=n, deal={"dealer": 0, "hands": hands, "stock": rest[1:]})


@pytest.mark.parametrize("game", ["loba", "ramino_klop", "tonk", "geneve", "zenuwen"])
def test_x6_hand_one_short_is_refused(game: str) -> None:
    n = 3 if game == "geneve" else 2
    hands, rest = _rummy_deal(game, n) if game != "zenuwen" else (_deal_of(game, 1)["hands"], [])
    hands[0] = hands[0][1:]
    with pytest.raises(ValueError, match=r"hands\[0\] has|leave out 1 card"):
        load_game(game).new_match(players=n, deal={"dealer": 0, "hands": hands, "stock": rest})


def _whole_deal(game: str) -> tuple[int, dict[str, Any]]:
    """The first deal of a seeded match written out whole (X6): every seat's hand, the turned card
    where the game turns one, every other card as the stock."""
    s = load_game(game).new_match(seed=5)
    if game == "zenuwen":
        return s.players, _deal_of(game, 5)
    while not any(s.hands):  # type: ignore[attr-defined]  # a cut or an omboeren comes first
        s.apply(s.legal_actions()[0])
    hands = [[TOKENS[c] for c in cards_of(m)] for m in s.hands]  # type: ignore[attr-defined]
    rest = [TOKENS[c] for c in cards_of(s.deck_mask)]
    for t in (t for h in hands for t in h):
        rest.remove(t)
    deal: dict[str, Any] = {"dealer": s.dealer, "hands": hands}  # type: ignore[attr-defined]
    up = getattr(s, "upcard", None)
    if isinstance(up, int) and up >= 0 and TOKENS[up] in rest:
        deal["upcard"] = TOKENS[up]
        rest.remove(TOKENS[up])
    if rest:
        deal["stock"] = rest
    return s.players, deal


def _damaged(deal: dict[str, Any], how: str) -> dict[str, Any]:
    d = copy.deepcopy(deal)
    hands, stock = d["hands"], d.get("stock")
    other = next(t for h in hands[1:] for t in h)
    if how == "stock one short":
        d["stock"] = stock[1:]
    elif how == "stock one long":
        d["stock"] = [*stock, stock[0]]
    elif how == "stock repeats a hand's card":
        d["stock"] = [other, *stock[1:]]
    elif how == "hand one short":
        hands[0] = hands[0][1:]
    elif how == "hand one long":
        hands[0] = [*hands[0], other]
    elif how == "hand repeats a card":
        hands[0] = [other, *hands[0][1:]]
    else:
        d["dealer"] = None
    return d


DAMAGE = ["stock one short", "stock one long", "stock repeats a hand's card", "hand one short",
          "hand one long", "hand repeats a card", "dealer None"]


@pytest.mark.parametrize("game", GAMES)
def test_x6_every_game_refuses_a_deal_that_is_not_the_whole_pack_once_or_names_no_seat(game: str) -> None:
    """Every game's deal parser counts the cards (jo_jotte, klop_bela and klop_bela_3p took a stock
    one card short and dealt the missing card from the seed) and takes only a seat as dealer
    (jokeren_nl and the other rummies took ``"dealer": None``); leaving ``dealer`` out is the default."""
    n, deal = _whole_deal(game)
    g = load_game(game)
    g.new_match(seed=1, players=n, deal=deal)  # the whole deal: accepted
    g.new_match(seed=1, players=n, deal={k: v for k, v in deal.items() if k != "dealer"})
    for how in DAMAGE:
        if how.startswith("stock") and "stock" not in deal:
            continue
        with pytest.raises(ValueError, match=r"leave out|has \d+ cards|more often|'dealer' must be a seat"):
            g.new_match(seed=1, players=n, deal=_damaged(deal, how))


def test_x6_duplicate_beyond_the_pack_is_refused() -> None:
    hands = [h[:] for h in HEARTS]
    hands[1][0] = "2C"
    with pytest.raises(ValueError, match="more often than the pack holds it: given twice"):
        load_game("hartenjagen").new_match(deal={"dealer": 0, "hands": hands})


def test_x6_card_not_in_the_pack_is_refused() -> None:
    hands = [[r + suit for r in "789TJQKA"] for suit in "CDHS"]
    hands[0][0] = "2C"  # a 32-card game
    with pytest.raises(ValueError, match="not a card of this game's pack"):
        load_game("schutjassen").new_match(deal={"dealer": 0, "hands": hands})


def test_x6_partial_marks_a_test_position() -> None:
    d = {"dealer": 0, "hands": [["2C", "3C"], ["4C"]], "stock": ["5C"], "upcard": "6C"}
    with pytest.raises(ValueError, match="hands\\[0\\] has 2 cards"):
        load_game("tonk").new_match(players=2, deal=d)
    with pytest.raises(ValueError, match="'partial' must be True or False"):
        load_game("tonk").new_match(players=2, deal={**d, "partial": 1})
    s = load_game("tonk").new_match(players=2, deal={**d, "partial": True})
    assert s.deck_mask.bit_count() == 5 and not s.invariant_violations()


# ------------------------------------------------------------------ seeds and options
def test_seed_none_draws_a_fresh_seed_that_replays_the_match() -> None:
    g = load_game("hartenjagen")
    a = g.new_match(seed=None)
    assert isinstance(a.seed, int)
    b = g.new_match(seed=a.seed)
    assert a.observation(0)["hand"] == b.observation(0)["hand"]


@pytest.mark.parametrize("bad", [[], True, 1.5, "7"])
def test_seed_must_be_an_int(bad: Any) -> None:
    with pytest.raises(ValueError, match="seed must be an int"):
        load_game("tonk").new_match(seed=bad)


@pytest.mark.parametrize("value", ["abc", 2.5, True, 0, 10**9])
def test_ho18_honderden_lives_typed_and_bounded(value: Any) -> None:
    with pytest.raises(ValueError, match="lives"):
        load_game("honderden", lives=value)
    assert load_game("honderden", lives=3).options["lives"] == 3


@pytest.mark.parametrize("value", [1e20, 10**20, float("inf"), float("nan")])
def test_h4_target_finite_and_bounded(value: Any) -> None:
    with pytest.raises(ValueError, match="target"):
        load_game("hartenjagen", target=value)


def test_a_clone_carries_the_rng_state_and_plays_on_the_same_draws() -> None:
    """A clone's RNG is a copy of the match RNG's state (engine.core._copy_rng), not a fresh seed:
    the clone and the original draw the same numbers from then on, independently."""
    import random

    from engine.core import _copy_rng

    r = random.Random(11)
    r.random()
    r.gauss(0, 1)  # gauss keeps a second value: part of the state
    c = _copy_rng(r)
    assert type(c) is random.Random and c.getstate() == r.getstate()
    draws = [c.random() for _ in range(5)] + [c.gauss(0, 1)]
    assert draws == [r.random() for _ in range(5)] + [r.gauss(0, 1)]
    c.random()
    assert c.getstate() != r.getstate()
