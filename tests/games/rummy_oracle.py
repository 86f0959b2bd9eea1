"""A brute-force oracle for the meld-protocol rummies (``engine/games/_rummy.py``): can the turn
still end?  It tries every table-play action the protocol generates, one card at a time, with no
take-back and with every swap of a held natural for a tabled joker (not only the ones the engine's
exact search offers), until a discard is offered or the player goes out.  Exhaustive over the
positions it reaches (memoised), so it is for small hands only.

Used by the tests of "use it at once" (J2, J6, J16, AJ15, JD5, RD6, L2) and of the take-back cap
(meld protocol, revised turn 3) of every game on the protocol."""

from __future__ import annotations

import random
from typing import Any

from engine import State, load_game
from engine.cards import TOKENS, base_set

MELD_PROTOCOL = ("jokeren_nl", "jokeren_drift", "amerikaans_jokeren", "loba", "ramino_drift")


def _probe(st: Any) -> Any:
    """A copy of ``st`` with no take-back used (so that nothing is filtered by the cap)."""
    p = st.clone()
    p.takebacks = 0
    p._legal = None
    return p


def raw_actions(st: Any) -> list[str]:
    """Every table-play action of the protocol in ``st`` (no take-back, no discard), swaps unfiltered."""
    p = _probe(st)
    stuck = p.stuck
    legal = p.legal_actions()
    if p.stuck != stuck:
        return []  # the safety net's discards are no table play
    out = [a for a in legal if a != "takeback" and not a.startswith(("discard ", "swap "))]
    seat = st.turn
    hand = st.hands[seat]
    if not st.building and hand.bit_count() - 1 >= st.keep() and st._may_swap(seat):
        bases = base_set(hand)
        for i, m in enumerate(st.melds):
            for _c, nm in m.items:
                a = f"swap {TOKENS[nm]} {i + 1}" if nm is not None else ""
                if a and bases >> nm & 1 and a not in out:
                    out.append(a)
    return out


def discards(st: Any) -> list[str]:
    """The discards offered in ``st`` (the cap does not change them)."""
    p = _probe(st)
    stuck = p.stuck
    legal = p.legal_actions()
    return [] if p.stuck != stuck else [a for a in legal if a.startswith("discard ")]


def after(st: Any, action: str) -> Any:
    """A copy of ``st`` after ``action``, applied without the legality check (unfiltered swaps)."""
    nxt = st.clone()
    nxt._apply(action)
    nxt._legal = None
    return nxt


def can_end(st: Any, seen: dict[Any, bool] | None = None) -> bool:
    """Oracle: does some sequence of table-play actions from ``st`` end the turn?"""
    seen = {} if seen is None else seen
    return _can_end(st, st.deal_no, st.turn, seen)


def _can_end(st: Any, deal: int, seat: int, seen: dict[Any, bool]) -> bool:
    if st.is_over() or st.deal_no != deal or st.turn != seat or st.phase != "play":
        return True  # went out during table play (L10, RD2)
    key = (st.hands[seat], st.must_use, tuple(m.text() for m in st.melds), tuple(map(str, st.building)),
           tuple(st.turn_melds), tuple(m.text() for m in st.turn_laid), len(st.turn_layoffs), st.turn_swaps)
    hit = seen.get(key)
    if hit is not None:
        return hit
    seen[key] = False
    ok = bool(discards(st)) or any(_can_end(after(st, a), deal, seat, seen) for a in raw_actions(st))
    seen[key] = ok
    return ok


def finishable_actions(st: Any) -> set[str]:
    """What RULES.md's take-back cap offers in ``st``: the discards, and every table-play action
    after which some line still ends the turn."""
    seen: dict[Any, bool] = {}
    return set(discards(st)) | {a for a in raw_actions(st) if can_end(after(st, a), seen)}


def capped_positions(game_id: str, seeds: range, max_hand: int, want: int,
                     **options: Any) -> list[tuple[int, State]]:
    """Positions just after a seat's third take-back of a turn (random matches: random play up to a
    turn whose hand after the draw holds at most ``max_hand`` cards and can start a meld; then three
    times ``meld X``, ``takeback``), ``want`` of them at most, with the seed that made each."""
    game = load_game(game_id, **options)
    out: list[tuple[int, State]] = []
    for seed in seeds:
        rng = random.Random(seed)
        st: Any = game.new_match(seed=seed, players=2)
        for _ in range(400):
            if st.is_over() or len(out) >= want:
                break
            legal = st.legal_actions()
            if (st.phase == "play" and not st.snap and not st.building and not st.takebacks
                    and st.hands[st.turn].bit_count() <= max_hand):
                starts = [a for a in legal if a.startswith("meld ")]
                if starts:
                    cap = st.clone()
                    for _ in range(3):
                        cap.apply(starts[0])
                        cap.apply("takeback")
                    out.append((seed, cap))
                    # go on playing the original, table actions first, so that tables fill up
            if "draw discard" in legal and rng.random() < 0.7:
                st.apply("draw discard")  # positions with a card that must be used (J2, L2)
                continue
            table = [a for a in legal if a != "takeback" and not a.startswith("discard ")]
            pool = table if table and rng.random() < 0.6 else [a for a in legal if a != "takeback"] or legal
            st.apply(rng.choice(pool))
        if len(out) >= want:
            break
    return out


def check_capped_position(st: Any, rng: random.Random, steps: int = 4) -> int:
    """After the third take-back: the offered actions are exactly :func:`finishable_actions`, also
    after each of up to ``steps`` random offered table plays; the turn then ends.  The number of
    positions compared."""
    compared = 0
    deal, seat = st.deal_no, st.turn
    for _ in range(steps + 1):
        if st.is_over() or st.deal_no != deal or st.turn != seat or st.phase != "play":
            break
        legal = st.legal_actions()
        assert "takeback" not in legal, st.history[-6:]
        assert set(legal) == finishable_actions(st), (st.history[-8:], sorted(legal))
        assert len(legal) == len(set(legal)), legal
        compared += 1
        table = [a for a in legal if not a.startswith("discard ")]
        st.apply(rng.choice(table or legal))
    assert st.stuck == 0
    return compared


# ----------------------------------------------------- "use it at once": the freed joker's place
SWAP_GAMES = ("jokeren_nl", "jokeren_drift", "amerikaans_jokeren", "ramino_drift")
"""The protocol's games with swaps (Loba never frees a joker: L12 moves it along its escalera)."""

SUITS = "CDHS"
RANKS = "23456789TJQKA"


def _tok(r: int, s: int) -> str:
    return RANKS[r] + SUITS[s]


def joker_after_layoff_position(game_id: str, rng: random.Random, from_pile: bool = False) -> tuple[Any, str]:
    """A random position of seat 0, who may swap (opened, or melded, as the game asks), just after
    his draw: meld 1 a run up to the ace whose low end is a joker (``JK=TS JS QS KS AS``; in the
    one-pack game, whose ace is low only, up to the king), meld 2 a full set
    whose joker names a card of the hand (the swap), and in the hand, often, the natural just
    below the run's joker (so that the freed joker fits only after that natural is laid off: J7's
    jokers never side by side), sometimes the one below that, and a few random cards.  Returns the
    state and the swap action.  ``from_pile``: the swapping natural is the top discard instead, and
    seat 0 is still to draw."""
    from tests import gamekit
    two_packs = game_id != "ramino_drift"
    s = rng.randrange(4)
    r0 = rng.randrange(3, 10)  # the run's joker names rank r0 (ranks 0..12 = 2..A)
    q = rng.randrange(r0 - 2)  # the set's rank, below the run and its lay-offs
    t = rng.randrange(4)
    hand = [_tok(q, t)]
    if rng.random() < 0.75:
        hand.append(_tok(r0 - 1, s))
        if rng.random() < 0.3:
            hand.append(_tok(r0 - 2, s))
    top = 13 if two_packs else 12  # the run ends at the ace (high), or at the king
    used = {*hand, *(_tok(r, s) for r in range(r0, top)), *(_tok(q, u) for u in range(4))}
    pool = [_tok(r, u) for r in range(13) for u in range(4) if _tok(r, u) not in used]
    if two_packs:
        pool.append("JK")  # (the one-pack game's two jokers are on the table)
    hand += rng.sample(pool, rng.randrange(2, 5))
    rest = [c for c in pool if c not in hand and c != "JK"]
    rng.shuffle(rest)
    stock = rest[4:8]
    if from_pile:
        st: Any = gamekit.new(game_id, [hand[1:], rest[:3]], dealer=1, stock=stock, upcard=hand[0])
    else:
        st = gamekit.new(game_id, [hand[1:], rest[:3]], dealer=1, stock=[hand[0], *stock], upcard=rest[3])
        while "pass" in st.legal_actions():
            st.apply("pass")  # Amerikaans: the up-card round
        st.apply("draw stock")
    pack = 54 if two_packs else 0
    jk = 107 if two_packs else 53
    base = {tok: i for i, tok in enumerate(TOKENS[:52])}
    run = [(jk, base[_tok(r0, s)])] + [(pack + base[_tok(r, s)], None) for r in range(r0 + 1, top)]
    jk2 = 106 if two_packs else 52
    setm = [(pack + base[_tok(q, u)], None) for u in range(4) if u != t] + [(jk2, base[_tok(q, t)])]
    melds = []
    for items in (run, setm):
        m = st._meld_ok(items)
        assert m is not None, items
        m.owner = 1
        melds.append(m)
    st.melds = melds
    st.opened = [True] * st.players
    if hasattr(st, "melded"):
        st.melded = [True] * st.players
    st.turns = 10  # going out is allowed (everyone has had a turn)
    st._legal = None
    return st, f"swap {_tok(q, t)} 2"
