"""Meld algorithms shared by the rummies: new-meld candidates of a hand and the exact turn search.

* :func:`meld_token_lists`: every new meld a hand can lay (sets and runs, jokers naming the cards
  they stand for), as the tokens a player lays one at a time (``["7H", "7S", "JK=7D"]``), only
  those holding a given card.  Over-generating is allowed: the caller's game validates each one
  with its own rules (Loba's piernas, J7's jokers never side by side, ...).
* :func:`plan_search`: the exact "use it at once" search of RULES.md's common rummy definitions
  (J2/J12, J16, AJ15, JD5, RD6, L2): can the cards that must reach the table this turn get there,
  with the turn then able to end, under every rule of the game?  It is a depth-first search over
  *macro moves* (a whole new meld, one lay-off, one swap) that the game plays on copies of its own
  state, so every rule the game enforces is enforced here; states already refuted are remembered
  by key.  There is no search limit: the move generator keeps the search small (every move puts a
  card that must be used on the table, or frees a joker by a swap, or lays the one meld that gives
  a permission).  Returns the winning line of actions (the witness the take-back cap uses), or
  ``None``.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

from engine.cards import ACE, TOKENS

S = TypeVar("S")


def _pos_base(pos: int, suit: int) -> int:
    return suit * 13 + (ACE if pos in (0, 13) else pos - 1)


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
        P = 0
        for p in range(lo_all, hi_all + 1):
            if counts.get(_pos_base(p, s), 0) > 0:
                P |= 1 << p
        if not P:
            continue
        for a in range(lo_all, hi_all + 1):
            for z in range(a + run_min - 1, hi_all + 1):
                if z - a + 1 > limit:
                    break
                w = ((1 << (z - a + 1)) - 1) << a
                if with_base is not None:
                    wp = [p for p in range(a, z + 1) if _pos_base(p, s) == with_base]
                    if not wp or not P >> wp[0] & 1:
                        continue
                gaps = w & ~P
                nj = gaps.bit_count()
                if nj > jokers or not P & w:
                    if nj > jokers:
                        break
                    continue
                if run_max_jokers is not None and nj > run_max_jokers:
                    continue
                toks = [TOKENS[_pos_base(p, s)] if P >> p & 1 else f"JK={TOKENS[_pos_base(p, s)]}"
                        for p in range(a, z + 1)]
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


def plan_search(root: S, moves: Callable[[S], Iterable[Sequence[str]]],
                play: Callable[[S, Sequence[str]], S | None], goal: Callable[[S], bool],
                key: Callable[[S], Hashable]) -> list[str] | None:
    """A line of actions from ``root`` to a state where ``goal`` holds, or None (exact DFS).

    ``moves(state)`` lists macro moves (action sequences); ``play(state, move)`` returns a new
    state after them (None if the game refuses one); states are memoised by ``key``.
    """
    refuted: set[Hashable] = set()

    def dfs(st: S) -> list[str] | None:
        if goal(st):
            return []
        k = key(st)
        if k in refuted:
            return None
        for mv in moves(st):
            nxt = play(st, mv)
            if nxt is None:
                continue
            rest = dfs(nxt)
            if rest is not None:
                return [*mv, *rest]
        refuted.add(k)
        return None

    return dfs(root)
