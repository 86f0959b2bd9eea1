"""The meld library: groups (equal ranks) and runs (one suit, consecutive) with jokers.

* validation (:func:`check_run`, :func:`check_group`) under a game's :class:`RunRule` and
  :class:`GroupRule`; parsing action arguments to physical cards (:func:`parse_items`);
* enumeration: every run and group of some cards (:func:`enumerate_runs`, :func:`enumerate_groups`),
  every new meld a hand can lay as the tokens laid one at a time (:func:`meld_token_lists`), and
  every candidate meld of a hand as base cards, jokers and points (:func:`meld_candidates`), which
  the exact searches of :mod:`engine.deadwood` combine;
* the one run-position convention (:func:`pos_base`, :data:`POS_BASE`, :func:`position`).

A combination is a list of *items* ``(card, named)``: ``card`` is a physical card id and
``named`` is ``None`` for a natural card or, for a joker, the base id of the card it stands for.
Its notation is the tokens in order, a joker written ``JK=6H`` (CONTRACT.md).

Run ranks are *positions*, the same in every module and game: with the ace low, A=0, 2=1, ...,
K=12; with the ace high, 2=1, ..., K=12, A=13.  :class:`RunRule` says which the game allows, and
whether runs may wrap (no game here).

>>> rule = RunRule(ace_low=True, ace_high=False)
>>> items = parse_items(["7H", "5H", "JK=6H"], 0, [card("5H"), card("7H"), JOKER])
>>> [item_token(i) for i in check_run(items, rule)]
['5H', 'JK=6H', '7H']
>>> sorted(" ".join(map(item_token, r)) for r in enumerate_runs([card("5H"), card("6H"), JOKER], rule))[:3]
['5H 6H JK=7H', 'JK=4H 5H 6H']
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Final

from engine.cards import ACE, JOKER, PACK, TOKENS, card, is_joker
from engine.notation import split_joker

Item = tuple[int, int | None]


@dataclass(frozen=True)
class RunRule:
    """How runs are formed in a game."""

    min_len: int = 3
    ace_low: bool = True
    """A-2-3 is a run (the ace below the two)."""
    ace_high: bool = False
    """Q-K-A is a run (the ace above the king)."""
    min_naturals: int = 1
    """Natural cards a run needs at least."""
    adjacent_jokers: bool = True
    """Two jokers may stand side by side."""
    max_jokers: int | None = None
    """Jokers a run may hold at most (None: no limit beyond ``min_naturals``)."""


@dataclass(frozen=True)
class GroupRule:
    """How groups (sets of equal rank) are formed in a game."""

    min_size: int = 2
    max_size: int = 4
    distinct_suits: bool = False
    jokers: bool = False
    min_naturals: int = 1


def item_token(item: Item) -> str:
    c, named = item
    return TOKENS[c] if named is None else f"JK={TOKENS[named]}"


def items_text(items: Sequence[Item]) -> str:
    return " ".join(item_token(i) for i in items)


def parse_items(args: Iterable[str], hand: int, pool: Sequence[int] | None = None) -> list[Item]:
    """Map action arguments to physical cards of ``hand`` (a bitmask), each card used once.

    ``pool`` optionally restricts the candidates (default: the cards of ``hand``).  Raises
    ``ValueError`` naming a card the hand does not hold.
    """
    free = list(pool) if pool is not None else [c for c in range(hand.bit_length()) if hand >> c & 1]
    items: list[Item] = []
    for a in args:
        tok, named = split_joker(a)
        want_joker = tok == "JK"
        pick = next((c for c in free if (is_joker(c) if want_joker else TOKENS[c] == tok)), None)
        if pick is None:
            raise ValueError(f"you do not hold {tok}" + (" (one more than you have)" if any(
                TOKENS[c] == tok for c in (pool or [])) else ""))
        free.remove(pick)
        items.append((pick, card(named) if named is not None else None))
    return items


def _rank_positions(b: int, rule: RunRule) -> list[int]:
    r = b % 13
    if r == ACE:
        return ([0] if rule.ace_low else []) + ([13] if rule.ace_high else [])
    return [r + 1]


def pos_base(pos: int, suit: int) -> int:
    """The base card at run position ``pos`` (0..13, the module docstring's convention) of ``suit``."""
    return suit * 13 + (ACE if pos in (0, 13) else pos - 1)


POS_BASE: Final[tuple[tuple[int, ...], ...]] = tuple(tuple(pos_base(p, s) for p in range(14))
                                                for s in range(4))
"""Per suit, run position (0 = ace low, 1..12 = 2..K, 13 = ace high) -> base card."""


def position(b: int, ace_high: bool) -> int:
    """The run position of base card ``b`` (an ace: 13 if ``ace_high``, else 0)."""
    r = b % 13
    return (13 if ace_high else 0) if r == ACE else r + 1


def check_run(items: Sequence[Item], rule: RunRule) -> list[Item]:
    """The items sorted into run order, or ``ValueError`` saying why they are no run.

    A joker must name a card of the run's suit at the right place; the run holds no card twice.
    """
    if len(items) < rule.min_len:
        raise ValueError(f"a run needs at least {rule.min_len} cards")
    bases = [(c % PACK if named is None else named) for c, named in items]
    if any(b >= JOKER for b in bases):
        raise ValueError("a joker in a run must name the card it stands for, as JK=6H")
    suits = {b // 13 for b in bases}
    if len(suits) != 1:
        raise ValueError("a run's cards are all of one suit")
    naturals = sum(1 for _, n in items if n is None)
    jokers = len(items) - naturals
    if naturals < rule.min_naturals:
        raise ValueError(f"a run needs at least {rule.min_naturals} natural card(s)")
    if rule.max_jokers is not None and jokers > rule.max_jokers:
        raise ValueError(f"a run holds at most {rule.max_jokers} joker(s)")
    if len(set(bases)) != len(bases):
        raise ValueError("a run holds no card twice")
    # choose ace placement (low or high) that makes the run consecutive
    placements = ([0] if rule.ace_low else []) + ([13] if rule.ace_high else []) or [-99]
    for ace_pos in placements:
        pos = [(ace_pos if b % 13 == ACE else b % 13 + 1) for b in bases]
        order = sorted(range(len(items)), key=lambda i: pos[i])
        ps = [pos[i] for i in order]
        if all(ps[i + 1] == ps[i] + 1 for i in range(len(ps) - 1)):
            out = [items[i] for i in order]
            if not rule.adjacent_jokers and any(
                    out[i][1] is not None and out[i + 1][1] is not None for i in range(len(out) - 1)):
                raise ValueError("two jokers may not stand side by side in a run")
            return out
    if any(b % 13 == ACE for b in bases) and not (rule.ace_low and rule.ace_high):
        where = "low (A-2-3)" if rule.ace_low else "high (Q-K-A)"
        raise ValueError(f"the cards are not consecutive (the ace is {where} only)")
    raise ValueError("the cards are not consecutive")


def check_group(items: Sequence[Item], rule: GroupRule) -> list[Item]:
    """The items of a valid group (natural cards first), or ``ValueError`` saying why not."""
    if not rule.min_size <= len(items) <= rule.max_size:
        raise ValueError(f"a group holds {rule.min_size} to {rule.max_size} cards of one rank")
    naturals = [c for c, n in items if n is None and not is_joker(c)]
    jokers = [it for it in items if it[1] is not None or is_joker(it[0])]
    if jokers and not rule.jokers:
        raise ValueError("jokers may not stand in a group")
    if len(naturals) < rule.min_naturals:
        raise ValueError(f"a group needs at least {rule.min_naturals} natural card(s)")
    ranks = {c % PACK % 13 for c in naturals} | {n % 13 for _, n in jokers if n is not None}
    if len(ranks) != 1:
        raise ValueError("a group's cards are all of one rank")
    if rule.distinct_suits:
        suits = [c % PACK // 13 for c in naturals] + [n // 13 for _, n in jokers if n is not None]
        if len(set(suits)) != len(suits):
            raise ValueError("a group's cards are all of different suits")
    return list(items)


def enumerate_runs(cards: Iterable[int], rule: RunRule) -> list[list[Item]]:
    """Every run that can be made from ``cards`` (physical ids), jokers naming missing cards.

    A joker stands only for a card the player does not hold, so each run position is filled by a
    natural card when one is held.  Runs with the same tokens are listed
    once.
    """
    hand = list(cards)
    jokers = [c for c in hand if is_joker(c)]
    held: dict[int, int] = {}
    for c in hand:
        if not is_joker(c):
            held.setdefault(c % PACK, c)
    lo = 0 if rule.ace_low else 1
    hi = 13 if rule.ace_high else 12
    runs: list[list[Item]] = []
    for s in range(4):
        suit_held = {p for p in range(lo, hi + 1) if pos_base(p, s) in held}
        if not suit_held:
            continue
        for start in range(lo, hi + 1):
            items: list[Item] = []
            used_j = nat = 0
            for p in range(start, hi + 1):
                b = pos_base(p, s)
                if p in suit_held:
                    items.append((held[b], None))
                    nat += 1
                elif used_j < len(jokers) and (rule.max_jokers is None or used_j < rule.max_jokers):
                    if not rule.adjacent_jokers and items and items[-1][1] is not None:
                        break
                    items.append((jokers[used_j], b))
                    used_j += 1
                else:
                    break
                if len(items) >= rule.min_len and nat >= rule.min_naturals:
                    runs.append(list(items))
    return runs


def enumerate_groups(cards: Iterable[int], rule: GroupRule) -> list[list[Item]]:
    """Every natural group (no jokers) of ``cards``; one per distinct set of tokens."""
    by_rank: dict[int, list[int]] = {}
    for c in cards:
        if not is_joker(c):
            by_rank.setdefault(c % PACK % 13, []).append(c)
    out: list[list[Item]] = []
    seen: set[tuple[str, ...]] = set()
    for r in sorted(by_rank):
        cs = by_rank[r]
        for size in range(rule.min_size, min(rule.max_size, len(cs)) + 1):
            for combo in combinations(cs, size):
                if rule.distinct_suits and len({c % PACK // 13 for c in combo}) != size:
                    continue
                key = tuple(sorted(TOKENS[c] for c in combo))
                if key not in seen:
                    seen.add(key)
                    out.append([(c, None) for c in sorted(combo, key=lambda c: (c % PACK, c))])
    return out


# ===================================================================== candidate new melds of a hand
def meld_token_lists(counts: dict[int, int], jokers: int, *, with_base: int | None, with_joker: bool,
                     set_max: int, set_jokers: bool, set_distinct: bool, run_min: int, ace_low: bool,
                     ace_high: bool, run_max_jokers: int | None, limit: int) -> list[list[str]]:
    """New melds of a hand with naturals ``counts`` (base id -> copies) and ``jokers`` jokers, of at
    most ``limit`` cards, each holding the natural ``with_base`` (or a joker if ``with_joker``).

    Sets: 3..``set_max`` cards of one rank, naturals of distinct suits when ``set_distinct`` (else
    any copies), jokers (if ``set_jokers``) naming suits the set lacks.  Runs: windows of one suit,
    naturals where held and jokers in the gaps; a window may also put a joker on a held card's
    place (so that the natural serves elsewhere) only when the caller's card is a joker.
    """
    out: list[list[str]] = []
    seen: set[tuple[str, ...]] = set()

    def add(toks: list[str]) -> None:
        key = tuple(toks)
        if key not in seen:
            seen.add(key)
            out.append(toks)

    ranks = range(13) if with_base is None else (with_base % 13,)
    for r in ranks:
        held = [s for s in range(4) if counts.get(s * 13 + r, 0) > 0]
        if not held:
            continue
        if set_distinct:
            pools = [[s] for s in held]
        else:
            pools = [[s] * min(counts[s * 13 + r], set_max) for s in held]
        flat = [s for p in pools for s in p]
        for mask in range(1, 1 << len(flat)):
            pick = [flat[i] for i in range(len(flat)) if mask >> i & 1]
            if set_distinct and len(set(pick)) != len(pick):
                continue
            if with_base is not None and with_base // 13 not in pick:
                continue
            missing = [s for s in range(4) if s not in pick]
            top = (min(jokers, len(missing) if set_distinct else set_max)) if set_jokers else 0
            for nj in range(top + 1):
                size = len(pick) + nj
                if not 3 <= size <= set_max or size > limit or (with_joker and nj == 0):
                    continue
                names = missing[:nj] if set_distinct else [pick[0]] * nj
                add([TOKENS[s * 13 + r] for s in sorted(pick)] + [f"JK={TOKENS[s * 13 + r]}" for s in names])
    lo_all = 0 if ace_low else 1
    hi_all = 13 if ace_high else 12
    suits = range(4) if with_base is None else (with_base // 13,)
    for s in suits:
        pb = POS_BASE[s]
        P = 0
        for p in range(lo_all, hi_all + 1):
            if counts.get(pb[p], 0) > 0:
                P |= 1 << p
        if not P:
            continue
        # with ``with_base``: the window must hold one of its positions, the first one held
        wpos = [] if with_base is None else [p for p in range(lo_all, hi_all + 1) if pb[p] == with_base]
        for a in range(lo_all, hi_all + 1):
            z0 = a + run_min - 1
            if with_base is not None:
                first = next((p for p in wpos if p >= a), -1)
                if first < 0:
                    break  # no later window holds it either
                if not P >> first & 1:
                    continue
                z0 = max(z0, first)
            for z in range(z0, hi_all + 1):
                if z - a + 1 > limit:
                    break
                w = ((1 << (z - a + 1)) - 1) << a
                gaps = w & ~P
                nj = gaps.bit_count()
                if nj > jokers or not P & w:
                    if nj > jokers:
                        break
                    continue
                if run_max_jokers is not None and nj > run_max_jokers:
                    continue
                toks = [TOKENS[pb[p]] if P >> p & 1 else "JK=" + TOKENS[pb[p]] for p in range(a, z + 1)]
                if with_joker and nj == 0:
                    # the joker must be in it: on one held card's place (that natural stays in hand)
                    for i in range(len(toks)):
                        alt = list(toks)
                        alt[i] = "JK=" + alt[i]
                        if any(not t.startswith("JK=") for t in alt):
                            add(_natural_first(alt))
                    continue
                add(_natural_first(toks))
    return out


def _natural_first(toks: list[str]) -> list[str]:
    """Lay order: a meld built card by card starts with a natural card."""
    i = next(i for i, t in enumerate(toks) if not t.startswith("JK="))
    return [toks[i], *toks[:i], *toks[i + 1:]]


Cand = tuple[tuple[int, ...], int, int]
"""A candidate meld of a hand: (natural base cards, jokers used, points)."""


def meld_candidates(counts: dict[int, int], jokers: int, run_rule: RunRule, set_rule: GroupRule,
                    points: Callable[[str, tuple[int, ...], int, int], int]) -> list[Cand]:
    """Every meld that can be made from naturals ``counts`` (base -> copies) and ``jokers`` jokers,
    as (naturals, jokers used, points); ``points(kind, naturals, lo, jokers)`` values a meld."""
    out: list[Cand] = []
    seen: set[tuple[tuple[int, ...], int]] = set()
    have = set(counts)
    # sets: distinct suits, jokers name the missing ones
    for r in range(13):
        suits = [s for s in range(4) if s * 13 + r in have]
        if not suits:
            continue
        for k in range(1, len(suits) + 1):
            for combo in combinations(suits, k):
                nats = tuple(s * 13 + r for s in combo)
                for nj in range(0, min(jokers, 4 - k) + 1 if set_rule.jokers else 1):
                    size = k + nj
                    if set_rule.min_size <= size <= set_rule.max_size and k >= set_rule.min_naturals:
                        key = (nats, nj)
                        if key not in seen:
                            seen.add(key)
                            out.append((nats, nj, points("set", nats, -1, nj)))
    # runs: windows of positions, jokers for the missing ones
    lo_all = 0 if run_rule.ace_low else 1
    hi_all = 13 if run_rule.ace_high else 12
    L = run_rule.min_len
    for s in range(4):
        P = 0
        for p in range(lo_all, hi_all + 1):
            if pos_base(p, s) in have:
                P |= 1 << p
        if not P:
            continue
        for a in range(lo_all, hi_all + 1):
            if not P >> a & 1 and not jokers:
                continue
            for z in range(a + L - 1, hi_all + 1):
                if a == 0 and z == 13:
                    break
                w = ((1 << (z - a + 1)) - 1) << a
                M = w & ~P
                nj = M.bit_count()
                if nj > jokers:
                    break
                if run_rule.max_jokers is not None and nj > run_rule.max_jokers:
                    break
                if z - a + 1 - nj < run_rule.min_naturals:
                    continue
                if not run_rule.adjacent_jokers and M & (M >> 1):
                    continue
                nats = tuple(pos_base(p, s) for p in range(a, z + 1) if P >> p & 1)
                key = (nats, nj)
                if key not in seen:
                    seen.add(key)
                    out.append((nats, nj, points("run", nats, a, nj)))
    return out
