"""Exact searches over rummy hands: the turn search, meld covers and the deadwood minimiser.

* :func:`can_reach` and :func:`can_cover`: over a hand's candidate melds
  (:func:`engine.melds.meld_candidates`), can disjoint melds reach a number of points within a
  card budget, can they cover every card but a few.
* :func:`plan_search`: the exact "use it at once" search of RULES.md's common rummy definitions
  (J2/J12, J16, AJ15, JD5, RD6, L2): can the cards that must reach the table this turn get there,
  with the turn then able to end, under every rule of the game?  It is a depth-first search over
  *macro moves* (a whole new meld, one lay-off, one swap) that the game plays on copies of its own
  state, so every rule the game enforces is enforced here; states already refuted are remembered
  by key.  There is no search limit: the move generator keeps the search small (every move puts a
  card that must be used on the table, or frees a joker by a swap, or lays the one meld that gives
  a permission).  Returns the winning line of actions (the witness of the "use it at once" test),
  or ``None``.  The take-back cap (``RummyState._finishable``) asks the same question's yes/no
  form over the same moves, with one memo for all the candidate actions.
* :class:`MeldSpec` and :class:`Solver`: the exact deadwood minimiser of the knock rummies.  A hand
  (physical card ids, one or two packs) is split into melds -- sets of 3..``set_max`` cards of one
  rank with distinct suits, runs of ``run_min``..``run_max`` consecutive cards of one suit, the ace
  low, high or either (never both, no wrap) -- so that the value of the cards left over (the
  deadwood) is as small as possible.  Wild cards (jokers, and in Wildcard Rummy the 2s, which may
  also stand for themselves) fill any place; every meld holds at least one natural card.  The
  search is exact (no limit): it takes the lowest natural card left and tries it as deadwood, in
  every set and in every run window holding it (a place may be filled by a wild card even when
  the natural card is held, so that the natural can serve elsewhere), memoised on the multiset of
  naturals left and the number of wild cards left.  Duplicate cards of a two-pack game are
  counted, not told apart.  :func:`lower_bound`, :func:`isolated_mask` and :func:`prefilter_out` are
  cheap necessary conditions in front of it.

No table is built at import: the run-place tables (:data:`EXT13`, :data:`FOLD14`) are filled on
first use.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final, TypeVar

from engine.cards import ACE, BASE, IS_JOKER, JOKER, PACK, TOKENS
from engine.melds import POS_BASE, Cand, Item, item_token, position

S = TypeVar("S")


def plan_search(root: S, moves: Callable[[S], Iterable[Sequence[str]]],
                play: Callable[[S, Sequence[str]], S | None], goal: Callable[[S], bool],
                key: Callable[[S], Hashable]) -> list[str] | None:
    """A line of actions from ``root`` to a state where ``goal`` holds, or None (exact DFS).

    ``moves(state)`` lists macro moves (action sequences); ``play(state, move)`` returns a new
    state after them (None if the game refuses one); states are memoised by ``key``.
    """
    return _plan_dfs(root, moves, play, goal, key, set())


def _plan_dfs(st: S, moves: Callable[[S], Iterable[Sequence[str]]],
              play: Callable[[S, Sequence[str]], S | None], goal: Callable[[S], bool],
              key: Callable[[S], Hashable], refuted: set[Hashable]) -> list[str] | None:
    """:func:`plan_search`'s DFS from ``st``.  A module function, not a closure calling itself: a
    recursive closure is a reference cycle (the function, its cell) holding every state and
    callable it reaches, freed only by the cyclic garbage collector, whose collections then cost
    the whole game more (issue 28 §4: 4-5% of Amerikaans Jokeren's random deals)."""
    if goal(st):
        return []
    k = key(st)
    if k in refuted:
        return None
    for mv in moves(st):
        nxt = play(st, mv)
        if nxt is None:
            continue
        rest = _plan_dfs(nxt, moves, play, goal, key, refuted)
        if rest is not None:
            return [*mv, *rest]
    refuted.add(k)
    return None


# ===================================================================== deadwood minimiser
CACHE_LIMIT: Final = 400_000
"""Entries per memo of a :class:`Solver` (and per cache of a game's deadwood), cleared when full."""
FULL52: Final = (1 << 52) - 1
OUT_WILD: Final = 1 << 52
"""In :meth:`Solver._outs`: a wild card may be the one card left unmelded."""
OUT_WHOLE: Final = 1 << 53
"""In :meth:`Solver._outs`: every card melds."""


@dataclass(frozen=True)
class MeldSpec:
    """How melds are formed (the arrangement of a hand at the deal's end)."""

    set_max: int = 4
    """Cards in a set at most (one per suit)."""
    run_min: int = 3
    run_max: int | None = None
    """Cards in a run at most (Ramino: 4, RK7); None: no limit."""
    ace_low: bool = True
    ace_high: bool = False
    wild_twos: bool = False
    """2s are wild too, and may also stand for themselves (Wildcard Rummy, WR8)."""


Meld = tuple[str, tuple[int, ...], tuple[int, ...]]
"""(kind 'set'|'run', natural base ids, base ids the wild cards stand for); a run's two lists
together, sorted by place, give the run in order."""


class Solver:
    """Exact deadwood minimiser for one :class:`MeldSpec` and one value table.

    ``values`` gives each base card's deadwood value; ``wild_value`` the value of an unused wild
    card.  With ``values`` all 1 it counts unmelded cards instead.  Results are memoised on the
    multiset of natural cards and the number of wild cards (shared by every hand of a game).
    """

    def __init__(self, spec: MeldSpec, values: Sequence[int], wild_value: int) -> None:
        self.spec = spec
        self.v = tuple(values[b] for b in range(PACK))
        self.wv = wild_value
        self.memo: dict[int, int] = {}
        self.fit_memo: dict[int, bool] = {}
        self.cnt_memo: dict[int, int] = {}
        self.within_memo: dict[int, bool] = {}
        self.outs_memo: dict[int, int] = {}
        self.knock_memo: dict[int, int] = {}
        self.lo = 0 if spec.ace_low else 1
        self.hi = 13 if spec.ace_high else 12
        self.rmax = spec.run_max if spec.run_max is not None else 14
        self.ace_places = ((0,) if spec.ace_low else ()) + ((13,) if spec.ace_high else ())

    # ----------------------------------------------------------------- public
    def deadwood(self, cards: Sequence[int]) -> int:
        """The least deadwood value of the physical cards ``cards``."""
        best = None
        for m1, m2, w, _ in self._splits(cards):
            c = self._cost(m1, m2, w)
            if best is None or c < best:
                best = c
        assert best is not None
        return best

    def arrange(self, cards: Sequence[int]) -> tuple[int, list[list[Item]], list[int]]:
        """(deadwood, melds as items over the physical ``cards``, deadwood cards) of a best
        arrangement.  Jokers name the card they stand for (a set: a suit it lacks); a 2 used as a
        wild card names its card too."""
        best: tuple[int, int, int, int, tuple[int, ...]] | None = None
        for m1, m2, w, wild_twos in self._splits(cards):
            c = self._cost(m1, m2, w)
            if best is None or c < best[0]:
                best = (c, m1, m2, w, wild_twos)
        assert best is not None
        cost, m1, m2, w, wild_twos = best
        plan: list[Meld] = []
        self._walk(m1, m2, w, plan)
        # map bases back to physical cards
        free = list(cards)
        wilds = [c for c in free if IS_JOKER[c]]
        for b in wild_twos:
            pc = next(c for c in free if BASE[c] == b and c not in wilds)
            wilds.append(pc)
        for c in wilds:
            free.remove(c)
        melds: list[list[Item]] = []
        for kind, nats, named in plan:
            items: list[Item] = []
            for b in nats:
                pc = next(c for c in free if BASE[c] == b)
                free.remove(pc)
                items.append((pc, None))
            for b in named:
                items.append((wilds.pop(0), b))
            if kind == "run":
                ranks = {(x[0] % PACK if x[1] is None else x[1]) % 13 for x in items}
                high = 11 in ranks and 0 not in ranks  # a run with the king and no 2: the ace is high
                items.sort(key=lambda it: position(it[0] % PACK if it[1] is None else it[1], high))
            melds.append(items)
        return cost, melds, free + wilds

    # ----------------------------------------------------------------- internals
    def _splits(self, cards: Sequence[int]) -> Iterator[tuple[int, int, int, tuple[int, ...]]]:
        """(naturals once, naturals twice, wild count, 2s used as wild) for each way of using the
        2s (Wildcard Rummy) -- one split otherwise."""
        w = 0
        nats: list[int] = []
        twos: list[int] = []
        for c in cards:
            if IS_JOKER[c]:
                w += 1
            elif self.spec.wild_twos and BASE[c] % 13 == 0:
                twos.append(BASE[c])
            else:
                nats.append(BASE[c])
        k = len(twos)
        for sub in range(1 << k):
            m1 = m2 = 0
            ww = w
            used: list[int] = []
            for i, b in enumerate(twos):
                if sub >> i & 1:
                    ww += 1
                    used.append(b)
                else:
                    nats.append(b)
            for b in nats:
                bit = 1 << b
                if m1 & bit:
                    m2 |= bit
                else:
                    m1 |= bit
            for _ in range(k - len(used)):
                nats.pop()
            yield m1, m2, ww, tuple(used)

    def _options(self, m1: int, m2: int, w: int) -> Iterator[tuple[int, int, int, Meld | None, int]]:
        """Moves for the lowest natural card: (m1, m2, w after it, meld or None, immediate cost)."""
        low = m1 & -m1
        c = low.bit_length() - 1
        if m2 & low:
            a1, a2 = m1, m2 ^ low
        else:
            a1, a2 = m1 ^ low, m2
        yield a1, a2, w, None, self.v[c]
        r, s = c % 13, c // 13
        # sets: c with cards of other suits (one each), wild cards for the suits missing
        others = [r + 13 * t for t in range(4) if t != s and a1 >> (r + 13 * t) & 1]
        smax = self.spec.set_max
        if others or w:
            for sub in range(1 << len(others)):
                b1, b2 = a1, a2
                nats = [c]
                for i, b in enumerate(others):
                    if sub >> i & 1:
                        bit = 1 << b
                        if b2 & bit:
                            b2 ^= bit
                        else:
                            b1 ^= bit
                        nats.append(b)
                n = len(nats)
                if n > smax:
                    continue
                lo_k = 3 - n if n < 3 else 0
                hi_k = min(w, smax - n)
                if lo_k > hi_k:
                    continue
                suits = {x // 13 for x in nats}
                missing = [r + 13 * t for t in range(4) if t not in suits]
                for k in range(lo_k, hi_k + 1):
                    yield b1, b2, w - k, ("set", tuple(nats), tuple(missing[:k])), 0
        # runs of c's suit holding c
        pb = POS_BASE[s]
        sb = a1 >> (13 * s) & 0x1FFF
        ace = sb >> 12 & 1
        ext = (sb & 0xFFF) << 1 | ace | ace << 13
        held = [ext >> q & 1 for q in range(14)]
        lo, hi, rmin, rmax = self.lo, self.hi, self.spec.run_min, self.rmax
        for p in (self.ace_places if r == ACE else (r + 1,)):
            need_lo = 0
            for a in range(p, max(lo, p - rmax + 1) - 1, -1):
                if a < p and not held[a]:
                    need_lo += 1
                    if need_lo > w:
                        break
                need = need_lo
                avail = [q for q in range(a, p) if held[q]]
                for b in range(p, min(hi, a + rmax - 1) + 1):
                    if b > p:
                        if held[b]:
                            avail.append(b)
                        else:
                            need += 1
                            if need > w:
                                break
                    if b - a + 1 < rmin:
                        continue
                    if a == 0 and b == 13:
                        break
                    # each held place may still be filled by a wild card instead
                    na = len(avail)
                    spare = w - need
                    for sub in range(1 << na if spare else 1):
                        extra = sub.bit_count()
                        if extra > spare:
                            continue
                        b1, b2 = a1, a2
                        nats = [c]
                        for i, q in enumerate(avail):
                            if not sub >> i & 1:
                                bq = pb[q]
                                bit = 1 << bq
                                if b2 & bit:
                                    b2 ^= bit
                                else:
                                    b1 ^= bit
                                nats.append(bq)
                        if need or extra:
                            named = tuple(pb[q] for q in range(a, b + 1) if q != p and pb[q] not in nats)
                        else:
                            named = ()
                        yield b1, b2, w - need - extra, ("run", tuple(nats), named), 0

    def _cost(self, m1: int, m2: int, w: int) -> int:
        if not m1:
            return w * self.wv
        key = m1 | m2 << 54 | w << 108
        memo = self.memo
        got = memo.get(key)
        if got is not None:
            return got
        best = 1 << 30
        for b1, b2, ww, _, now in self._options(m1, m2, w):
            if now >= best:
                continue
            c = now + self._cost(b1, b2, ww)
            if c < best:
                best = c
                if best == 0:
                    break
        if len(memo) >= CACHE_LIMIT:
            memo.clear()
        memo[key] = best
        return best

    def fits(self, cards: Sequence[int], k: int) -> bool:
        """True when all the ``cards`` but at most ``k`` of them can be melded."""
        for m1, m2, w, _ in self._splits(cards):
            if self._fits(m1, m2, w, k):
                return True
        return False

    def _fits(self, m1: int, m2: int, w: int, k: int) -> bool:
        if not m1:
            return w <= k
        key = m1 | m2 << 54 | w << 108 | k << 112
        memo = self.fit_memo
        got = memo.get(key)
        if got is not None:
            return got
        ok = False
        for b1, b2, ww, meld, _ in self._options(m1, m2, w):
            if meld is None:
                if k and self._fits(b1, b2, ww, k - 1):
                    ok = True
                    break
            elif self._fits(b1, b2, ww, k):
                ok = True
                break
        if len(memo) >= CACHE_LIMIT:
            memo.clear()
        memo[key] = ok
        return ok

    def within(self, cards: Sequence[int], budget: int) -> bool:
        """True when the least deadwood of ``cards`` is at most ``budget`` (a bounded search)."""
        for m1, m2, w, _ in self._splits(cards):
            if self._within(m1, m2, w, budget):
                return True
        return False

    def _within(self, m1: int, m2: int, w: int, budget: int) -> bool:
        if not m1:
            return w * self.wv <= budget
        key = m1 | m2 << 54 | w << 108 | budget << 112
        memo = self.within_memo
        got = memo.get(key)
        if got is not None:
            return got
        ok = False
        if w < 2:
            iso = isolated_mask(m1, w)
            low = 0
            v = self.v
            while iso:
                b = (iso & -iso).bit_length() - 1
                low += v[b] * (2 if m2 >> b & 1 else 1)
                iso &= iso - 1
            if low > budget:
                memo[key] = False
                return False
        dead = None
        for b1, b2, ww, meld, now in self._options(m1, m2, w):
            if meld is None:
                dead = (b1, b2, ww, now)
                continue
            if self._within(b1, b2, ww, budget):
                ok = True
                break
        if not ok and dead is not None and dead[3] <= budget:
            ok = self._within(dead[0], dead[1], dead[2], budget - dead[3])
        if len(memo) >= CACHE_LIMIT:
            memo.clear()
        memo[key] = ok
        return ok

    def count2(self, cards: Sequence[int]) -> int:
        """The fewest cards of ``cards`` left unmelded, capped at 2 (2 means "2 or more")."""
        best = 2
        for m1, m2, w, _ in self._splits(cards):
            best = min(best, self._cnt2(m1, m2, w))
            if best == 0:
                break
        return best

    def _cnt2(self, m1: int, m2: int, w: int) -> int:
        if not m1:
            return w if w < 2 else 2
        key = m1 | m2 << 54 | w << 108
        memo = self.cnt_memo
        got = memo.get(key)
        if got is not None:
            return got
        if lower_bound(m1, m2, w) >= 2:
            memo[key] = 2
            return 2
        best = 2
        dead = None
        for b1, b2, ww, meld, _ in self._options(m1, m2, w):
            if meld is None:
                dead = (b1, b2, ww)
                continue
            v = self._cnt2(b1, b2, ww)
            if v < best:
                best = v
                if v == 0:
                    break
        if best == 2 and dead is not None:
            best = min(2, 1 + self._cnt2(*dead))
        if len(memo) >= CACHE_LIMIT:
            memo.clear()
        memo[key] = best
        return best

    def outs1(self, cards: Sequence[int]) -> tuple[bool, int]:
        """(every card of ``cards`` melds, the mask ``sum(1 << c)`` of the physical cards ``c`` of
        ``cards`` whose removal leaves a hand with no card unmelded), in one search.

        Equal to ``(count2(cards) == 0, [c for c in cards if count2(cards - c) == 0])``: a card's
        removal leaves a melded hand exactly when some arrangement of the whole hand leaves that
        card, and only it, unmelded.  The search is :meth:`_cnt2`'s over the same moves, without
        stopping at the first success: :meth:`_outs` unites over every branch.  Identical cards
        (two packs; jokers; a 2 as wild or natural, WR8) are all in the mask or none is."""
        whole = False
        nat = 0
        wild = False
        for m1, m2, w, _ in self._splits(cards):
            r = self._outs(m1, m2, w)
            if r & OUT_WHOLE:
                whole = True
            nat |= r & FULL52
            if r & OUT_WILD:
                wild = True
        return whole, _cards_of(cards, nat, wild)

    def _outs(self, m1: int, m2: int, w: int) -> int:
        """Over the arrangements of naturals ``m1``/``m2`` and ``w`` wild cards: bit
        :data:`OUT_WHOLE` when one leaves no card unmelded, bit :data:`OUT_WILD` when one leaves
        exactly one card unmelded and it is a wild card, and bit ``b`` (a base) when one leaves
        exactly one card unmelded and it is a natural of base ``b``."""
        if not m1:
            return OUT_WHOLE if w == 0 else OUT_WILD if w == 1 else 0
        key = m1 | m2 << 54 | w << 108
        memo = self.outs_memo
        got = memo.get(key)
        if got is not None:
            return got
        r = 0
        if lower_bound(m1, m2, w) < 2:
            for b1, b2, ww, meld, _ in self._options(m1, m2, w):
                if meld is None:
                    if self._cnt2(b1, b2, ww) == 0:
                        r |= m1 & -m1  # the lowest natural is the one card left
                else:
                    r |= self._outs(b1, b2, ww)
        if len(memo) >= CACHE_LIMIT:
            memo.clear()
        memo[key] = r
        return r

    def knock_discards(self, cards: Sequence[int], budget: int) -> int:
        """The mask ``sum(1 << c)`` of the physical cards ``c`` of ``cards`` whose removal leaves a
        hand with least deadwood at most ``budget``, in one search.

        Equal to ``[c for c in cards if within(cards - c, budget)]``: a card's removal leaves such a
        hand exactly when some arrangement of the whole hand leaves that card unmelded and the
        other unmelded cards worth at most ``budget``.  The search is :meth:`_within`'s over the
        same moves, uniting over every branch (:meth:`_knock`).  Identical cards (two packs;
        jokers; a 2 as wild or natural, WR8) are all in the mask or none is."""
        nat = 0
        wild = False
        for m1, m2, w, _ in self._splits(cards):
            r = self._knock(m1, m2, w, budget)
            nat |= r & FULL52
            if r & OUT_WILD:
                wild = True
        return _cards_of(cards, nat, wild)

    def _knock(self, m1: int, m2: int, w: int, budget: int) -> int:
        """Over the arrangements of naturals ``m1``/``m2`` and ``w`` wild cards: bit ``b`` (a base)
        when one leaves a natural of base ``b`` unmelded and the other unmelded cards worth at most
        ``budget``; bit :data:`OUT_WILD` when one leaves a wild card unmelded and the others worth
        at most ``budget``."""
        if not m1:
            return OUT_WILD if w and (w - 1) * self.wv <= budget else 0
        key = m1 | m2 << 54 | w << 108 | budget << 112
        memo = self.knock_memo
        got = memo.get(key)
        if got is not None:
            return got
        r = 0
        if w < 2:
            # cards that can meld with nothing stay unmelded: all of them but the one removed
            iso = isolated_mask(m1, w)
            low = top = 0
            v = self.v
            while iso:
                b = (iso & -iso).bit_length() - 1
                vb = v[b]
                low += vb * (2 if m2 >> b & 1 else 1)
                if vb > top:
                    top = vb
                iso &= iso - 1
            if low - top > budget:
                memo[key] = 0
                return 0
        for b1, b2, ww, meld, now in self._options(m1, m2, w):
            if meld is None:
                # the lowest natural is the card removed, or one more unmelded card
                if self._within(b1, b2, ww, budget):
                    r |= m1 & -m1
                if now <= budget:
                    r |= self._knock(b1, b2, ww, budget - now)
            else:
                r |= self._knock(b1, b2, ww, budget)
        if len(memo) >= CACHE_LIMIT:
            memo.clear()
        memo[key] = r
        return r

    def _walk(self, m1: int, m2: int, w: int, plan: list[Meld]) -> None:
        while m1:
            target = self._cost(m1, m2, w)
            for b1, b2, ww, meld, now in self._options(m1, m2, w):
                if now + self._cost(b1, b2, ww) == target:
                    if meld is not None:
                        plan.append(meld)
                    m1, m2, w = b1, b2, ww
                    break
            else:  # pragma: no cover - the memo always holds a matching move
                raise AssertionError("deadwood walk found no move")


def _cards_of(cards: Sequence[int], nat: int, wild: bool) -> int:
    """The mask of the physical cards of ``cards`` whose base is in ``nat`` (a mask of bases), and
    of every joker when ``wild`` (a wild card may be the one left over).  A 2 left over as a wild card
    needs no bit of its own: the split with that 2 natural leaves it over as a natural with the same
    melds, so its base is in ``nat`` already (WR8)."""
    bases = nat | (3 << JOKER if wild else 0)
    out = 0
    if bases:
        for c in cards:
            if bases >> BASE[c] & 1:
                out |= 1 << c
    return out


def prefilter_out(cards: Sequence[int], wild_twos: bool, k: int = 1) -> bool:
    """A cheap necessary condition for "all the cards but at most ``k`` can be melded"."""
    m1 = m2 = w = 0
    for c in cards:
        b = BASE[c]
        if b >= JOKER or (wild_twos and b % 13 == 0):
            w += 1
        elif m1 >> b & 1:
            m2 |= 1 << b
        else:
            m1 |= 1 << b
    return lower_bound(m1, m2, w) <= k


TWOS: Final = sum(1 << (13 * s) for s in range(4))
PACK_MASK: Final = (1 << PACK) - 1


def naturals(hand: int, wild_twos: bool) -> tuple[int, int, int]:
    """(natural bases held, bases held twice, wild cards) of a hand mask of up to four packs."""
    m1 = m2 = w = 0
    while hand:
        p = hand & PACK_MASK
        w += (p >> JOKER).bit_count()
        p &= FULL52
        m2 |= m1 & p
        m1 |= p
        hand >>= PACK
    if wild_twos:
        w += (m1 & TWOS).bit_count() + (m2 & TWOS).bit_count()
        m1 &= ~TWOS
        m2 &= ~TWOS
    return m1, m2, w


# A suit laid out over 16 bits: A(low) 2 3 ... K A(high) in 15, with a 1-bit gap, so shifts stay in suit.
EXT_MASK: Final = sum(((1 << 15) - 1) << (16 * s) for s in range(4))
RUN_STARTS: Final = sum(((1 << 13) - 1) << (16 * s) for s in range(4))
"""Places 0..12 of each suit: where a run of three can start."""


EXT13: Final[list[int]] = []
"""A suit's 13 base bits -> its 14 run places (0 = ace low, 1..12 = 2..K, 13 = ace high); filled on
first use by :func:`_ext_tables`."""
FOLD14: Final[list[int]] = []
"""The inverse: 14 run places -> 13 base bits (filled with :data:`EXT13`)."""


def _ext_tables() -> list[int]:
    EXT13[:] = [(x & 0xFFF) << 1 | (x >> 12 & 1) | (x >> 12 & 1) << 13 for x in range(1 << 13)]
    FOLD14[:] = [(x >> 1) & 0xFFF | ((x & 1) | (x >> 13 & 1)) << 12 for x in range(1 << 14)]
    return EXT13


def _ace_ext(m: int) -> int:
    """Base mask -> extended mask (16 bits per suit: place 0 = ace low, 1..12 = 2..K, 13 = ace high)."""
    t = EXT13 or _ext_tables()
    return t[m & 0x1FFF] | t[m >> 13 & 0x1FFF] << 16 | t[m >> 26 & 0x1FFF] << 32 | t[m >> 39 & 0x1FFF] << 48


def _ace_fold(e: int) -> int:
    """Extended mask -> base mask (the tables are filled: an extended mask came from :func:`_ace_ext`)."""
    return (FOLD14[e & 0x3FFF] | FOLD14[e >> 16 & 0x3FFF] << 13 | FOLD14[e >> 32 & 0x3FFF] << 26
            | FOLD14[e >> 48 & 0x3FFF] << 39)


def _strong_iso(m1: int) -> int:
    """Naturals in no set of three and no run of three of the hand (a mask)."""
    a, b, c, d = m1 & 0x1FFF, m1 >> 13 & 0x1FFF, m1 >> 26 & 0x1FFF, m1 >> 39
    r3 = (a & b & (c | d)) | (c & d & (a | b))  # ranks held in three suits or four
    ok = r3 | r3 << 13 | r3 << 26 | r3 << 39
    e = _ace_ext(m1)
    s3 = e & (e >> 1) & (e >> 2) & RUN_STARTS
    ok |= _ace_fold(s3 | (s3 << 1) | (s3 << 2))
    return m1 & ~ok


def isolated_mask(m1: int, w: int) -> int:
    """Naturals that cannot be melded at all with ``w`` (0 or 1) wild cards: with none, those in no
    natural set or run of three; with one, those with no other card of their rank or of their
    suit within two places (they would need two wild cards)."""
    if w == 0:
        return _strong_iso(m1)
    same = (m1 << 13 | m1 >> 13 | m1 << 26 | m1 >> 26 | m1 << 39 | m1 >> 39) & FULL52
    e = _ace_ext(m1)
    near = ((e << 1) | (e >> 1) | (e << 2) | (e >> 2)) & EXT_MASK
    return m1 & ~(same | _ace_fold(near))


def lower_bound(m1: int, m2: int, w: int) -> int:
    """Cards that must stay unmelded at least, for naturals ``m1`` (``m2``: second copies) and ``w``
    wild cards.

    No wild card: every card in no natural set or run of three.  One wild card: those cards can
    only go into the one meld that holds the wild card, so all but one suit's or one rank's worth
    of them stay; and a card with no other card of its rank or of its suit within two places
    needs two wild cards.  More wild cards: each such partnerless card needs a wild card of its
    own (its neighbour place in a run, or a place in a set).
    """
    if w == 0:
        iso = _strong_iso(m1)
        return iso.bit_count() + (iso & m2).bit_count()
    same = (m1 << 13 | m1 >> 13 | m1 << 26 | m1 >> 26 | m1 << 39 | m1 >> 39) & FULL52
    e = _ace_ext(m1)
    near = ((e << 1) | (e >> 1) | (e << 2) | (e >> 2)) & EXT_MASK
    iso = m1 & ~(same | _ace_fold(near))
    n = iso.bit_count() + (iso & m2).bit_count()
    if w == 1:
        st = _strong_iso(m1)
        if st:
            a, b, c, d = st & 0x1FFF, st >> 13 & 0x1FFF, st >> 26 & 0x1FFF, st >> 39
            if a & b & c & d:
                most = 4
            elif (a & b & (c | d)) | (c & d & (a | b)):
                most = 3
            elif (a | b) & (c | d) | (a & b) | (c & d):
                most = 2
            else:
                most = 1
            most = max(most, a.bit_count(), b.bit_count(), c.bit_count(), d.bit_count())
            k = st.bit_count() + (st & m2).bit_count() - most
            if k > n:
                n = k
        return n  # and an isolated card needs two wild cards
    return n - w if n > w else 0


def _item_text(it: Item) -> str:
    c, named = it
    if named is None:
        return TOKENS[c]
    return item_token(it) if IS_JOKER[c] else f"{TOKENS[c]}={TOKENS[named]}"


def melds_text(melds: list[list[Item]]) -> list[str]:
    """Melds for display (a joker as ``JK=6H``, a wild 2 as ``2C=6H``)."""
    return [" ".join(_item_text(i) for i in m) for m in melds]


# ===================================================================== covers of a hand by candidate melds
def can_reach(cands: Sequence[Cand], counts: dict[int, int], jokers: int, budget: int, need: int,
              start: int = 0) -> bool:
    """Disjoint melds from ``cands`` (index >= ``start``) within ``budget`` cards worth >= ``need``."""
    if need <= 0:
        return True
    for i in range(start, len(cands)):
        nats, nj, pts = cands[i]
        size = len(nats) + nj
        if size > budget or nj > jokers or any(counts.get(b, 0) <= 0 for b in nats):
            continue
        for b in nats:
            counts[b] -= 1
        ok = can_reach(cands, counts, jokers - nj, budget - size, need - pts, i)
        for b in nats:
            counts[b] += 1
        if ok:
            return True
    return False


def can_cover(cands: Sequence[Cand], counts: dict[int, int], jokers: int, spare: int) -> bool:
    """Can melds from ``cands`` cover every card but ``spare`` of them (naturals and jokers)?"""
    left = [b for b, k in counts.items() if k > 0]
    if not left:
        return jokers <= spare
    b0 = min(left)
    if spare > 0:  # leave one copy of b0 out
        counts[b0] -= 1
        ok = can_cover(cands, counts, jokers, spare - 1)
        counts[b0] += 1
        if ok:
            return True
    for nats, nj, _ in cands:
        if b0 not in nats or nj > jokers or any(counts.get(b, 0) <= 0 for b in nats):
            continue
        for b in nats:
            counts[b] -= 1
        ok = can_cover(cands, counts, jokers - nj, spare)
        for b in nats:
            counts[b] += 1
        if ok:
            return True
    return False
