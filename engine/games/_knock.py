"""Shared machinery of the knock and confrontation rummies (RULES.md "Common rummy definitions",
X3, X7; games 2.22 ``tonk``, 2.23 ``klop_rummy``, 2.24 ``wildcard_rummy``, 2.26 ``ramino_klop``,
2.28 ``cincinnati_rummy``).

* :class:`MeldSpec` and :class:`Solver`: the exact deadwood minimiser.  A hand (physical card ids,
  one or two packs) is split into melds -- sets of 3..``set_max`` cards of one rank with distinct
  suits, runs of ``run_min``..``run_max`` consecutive cards of one suit, the ace low, high or either
  (never both, no wrap) -- so that the value of the cards left over (the deadwood) is as small as
  possible.  Wild cards (jokers, and in Wildcard Rummy the 2s, which may also stand for themselves)
  fill any place; every meld holds at least one natural card.  The search is exact (no limit):
  it takes the lowest natural card left and tries it as deadwood, in every set and in every run
  window holding it (a place may be filled by a wild card even when the natural card is held, so
  that the natural can serve elsewhere), memoised on the multiset of naturals left and the number
  of wild cards left.  Duplicate cards of a two-pack game are counted, not told apart.
* :class:`ConfrontationState`: the deal machinery of the hidden-hand rummies (``klop_rummy``,
  ``wildcard_rummy``, ``cincinnati_rummy``, ``ramino_klop``): deal, ``draw stock`` / ``draw
  discard``, ``discard XX`` (with the ban on the card taken from the discard pile, identical
  tokens included, where the game has it), the stock re-formed at once after the draw that empties
  it (X3: turned over without shuffling, or shuffled), the decision after the draw to end the deal
  with this turn (``knock`` -- in Wildcard and Cincinnati Rummy saying "rummy" -- or ``pass``),
  and the hands shown with their best arrangement when the deal ends.  Games add the going-out
  rules, the scoring and the match end.  The going-out verb is ``knock`` in all four games (not
  ``declare``, which the house bots treat as table talk and never choose).

The module keeps its own stock/discard manager rather than importing ``_rummy.py``: the games
here never lay melds during play, so they need only the turn-over and the ban.
"""
from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards import ACE, JOKER, MAX_PACKS, PACK, TOKENS, make
from engine.core import Game, State
from engine.deal import Cards, check_deal, check_sizes, pack_tokens
from engine.melds import Item, item_token

NPHYS = MAX_PACKS * PACK
IS_JOKER: tuple[bool, ...] = tuple(c % PACK >= JOKER for c in range(NPHYS))
BASE: tuple[int, ...] = tuple(c % PACK for c in range(NPHYS))
PHYS: dict[str, tuple[int, ...]] = {}
"""Token -> the physical ids carrying it, in pack order (jokers: both of every pack)."""
for _p in range(MAX_PACKS):
    for _b in range(PACK):
        PHYS.setdefault(TOKENS[_b], ())
        PHYS[TOKENS[_b]] += (_p * PACK + _b,)
DISCARD: tuple[str, ...] = tuple("discard " + TOKENS[c] for c in range(NPHYS))
CACHE_LIMIT = 400_000
OUT_VERBS: dict[str, tuple[str, str]] = {"knock": ("cards0", "knock, or knock 5H (out with that discard)")}
"""The going-out verb of :class:`AllMeldState` games: ``knock`` alone or with its discard (WR7, CR4)."""


_CHUNK: tuple[tuple[int, ...], ...] = tuple(tuple(i for i in range(16) if x >> i & 1) for x in range(1 << 16))


def bits(mask: int) -> list[int]:
    """The card ids of a mask, lowest first (16 bits at a time through a table)."""
    out: list[int] = []
    off = 0
    while mask:
        chunk = mask & 0xFFFF
        if chunk:
            out.extend([off + i for i in _CHUNK[chunk]] if off else _CHUNK[chunk])
        mask >>= 16
        off += 16
    return out


def hand_tokens(mask: int) -> list[str]:
    return [TOKENS[c] for c in bits(mask)]


def value_table(ace: int, face: int = 10, joker: int = 0, two: int | None = None) -> tuple[int, ...]:
    """Value per physical id: pips at face value (a 2 is ``two`` if given), J/Q/K ``face``,
    A ``ace``, joker ``joker``."""
    out = []
    for c in range(NPHYS):
        b = c % PACK
        if b >= JOKER:
            out.append(joker)
            continue
        r = b % 13
        v = ace if r == ACE else face if r >= 9 else r + 2
        if r == 0 and two is not None:
            v = two
        out.append(v)
    return tuple(out)


# ===================================================================== deadwood minimiser
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


def _place(it: Item, ace_high: bool) -> int:
    b = it[0] % PACK if it[1] is None else it[1]
    r = b % 13
    return (13 if ace_high else 0) if r == ACE else r + 1


def _pos_base(pos: int, suit: int) -> int:
    return make(ACE if pos in (0, 13) else pos - 1, suit)


POS_BASE: tuple[tuple[int, ...], ...] = tuple(tuple(_pos_base(p, s) for p in range(14)) for s in range(4))
"""Run place (0 = ace low, 1..12 = 2..K, 13 = ace high) -> base card, per suit."""


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
                items.sort(key=lambda it: _place(it, high))
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


def isolated(cards: Sequence[int], wild_twos: bool) -> tuple[list[int], int]:
    """(natural cards of ``cards`` that lack the partners a meld needs, wild cards held).

    With no wild card (the 2s counting as wild where they may be), a card is listed when it is in
    no set of three and no run of three of the hand; with wild cards, when no other natural card of
    its rank or of its suit within two places is held.  Each listed card then needs a wild card of
    its own (its neighbour place in a run, or a place in a set of wild cards), so a hand with more
    listed cards than wild cards cannot meld them all.
    """
    m1 = m2 = 0
    w = 0
    for c in cards:
        b = BASE[c]
        if b >= JOKER or (wild_twos and b % 13 == 0):
            w += 1
            continue
        bit = 1 << b
        if m1 & bit:
            m2 |= bit
        else:
            m1 |= bit
    ok = 0
    if w == 0:
        # a set: three of a rank; a run: three in a row (the ace next to the 2 and the king)
        for r in range(13):
            col = m1 & RANK_COLUMN[r]
            if col.bit_count() >= 3:
                ok |= col
        e = _ace_ext(m1)
        s3 = e & (e >> 1) & (e >> 2) & RUN_STARTS
        ok |= _ace_fold(s3 | (s3 << 1) | (s3 << 2))
    else:
        # any partner of the same rank, or of the suit within two places
        same = 0
        for k in (13, 26, 39):
            same |= (m1 << k) | (m1 >> k)
        e = _ace_ext(m1)
        near = ((e << 1) | (e >> 1) | (e << 2) | (e >> 2)) & EXT_MASK
        ok = m1 & ((same & FULL52) | _ace_fold(near))
    iso = m1 & ~ok
    if not iso:
        return [], w
    return [c for c in cards if iso >> BASE[c] & 1], w


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


FULL52 = (1 << 52) - 1
TWOS = sum(1 << (13 * s) for s in range(4))
PACK_MASK = (1 << PACK) - 1


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

# A suit laid out over 15 bits: A(low) 2 3 ... K A(high), with a 1-bit gap, so shifts stay in suit.
def _build_ext() -> tuple[tuple[int, ...], int, int]:
    cols = tuple(sum(1 << (s * 13 + r) for s in range(4)) for r in range(13))
    ext_mask = 0
    starts = 0
    for s in range(4):
        base = s * 16
        ext_mask |= ((1 << 15) - 1) << base
        starts |= ((1 << 13) - 1) << base  # run of 3 starting at place 0..12
    return cols, ext_mask, starts


RANK_COLUMN, EXT_MASK, RUN_STARTS = _build_ext()


EXT13: tuple[int, ...] = tuple((x & 0xFFF) << 1 | (x >> 12 & 1) | (x >> 12 & 1) << 13 for x in range(1 << 13))
"""A suit's 13 base bits -> its 14 run places (0 = ace low, 1..12 = 2..K, 13 = ace high)."""
FOLD14: tuple[int, ...] = tuple((x >> 1) & 0xFFF | ((x & 1) | (x >> 13 & 1)) << 12 for x in range(1 << 14))
"""The inverse: 14 run places -> 13 base bits."""


def _ace_ext(m: int) -> int:
    """Base mask -> extended mask (16 bits per suit: place 0 = ace low, 1..12 = 2..K, 13 = ace high)."""
    return (EXT13[m & 0x1FFF] | EXT13[m >> 13 & 0x1FFF] << 16 | EXT13[m >> 26 & 0x1FFF] << 32
            | EXT13[m >> 39 & 0x1FFF] << 48)


def _ace_fold(e: int) -> int:
    """Extended mask -> base mask."""
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
    own (its neighbour place in a run, or a place in a set), see :func:`isolated`.
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


# ===================================================================== hidden-hand deal machinery
class ConfrontationGame(Game):
    """A hidden-hand rummy (not registered itself)."""

    solver: Solver

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.solver = self.make_solver()
        self.dw_cache: dict[int, int] = {}
        self.count_cache: dict[int, int] = {}

    def make_solver(self) -> Solver:
        raise NotImplementedError

    def deadwood(self, hand: int) -> int:
        """Least deadwood of a hand mask (cached per mask)."""
        cache = self.dw_cache
        got = cache.get(hand)
        if got is None:
            got = self.solver.deadwood(bits(hand))
            if len(cache) >= CACHE_LIMIT:
                cache.clear()
            cache[hand] = got
        return got

    def within(self, hand: int, budget: int) -> bool:
        """Is the least deadwood of a hand mask at most ``budget``?"""
        return self.solver.within(bits(hand), budget)

    def out_count(self, hand: int) -> int:
        """How many cards of a hand mask are left unmelded at least (2 stands for "2 or more")."""
        cache = self.count_cache
        got = cache.get(hand)
        if got is None:
            m1, m2, w = naturals(hand, self.solver.spec.wild_twos)
            if lower_bound(m1, m2, w) > 1:
                got = 2
            else:
                got = self.solver.count2(bits(hand))
            if len(cache) >= CACHE_LIMIT:
                cache.clear()
            cache[hand] = got
        return got


class ConfrontationState(State):
    """Deal, draw, discard, stock re-forming and the going-out decision of the hidden-hand rummies.

    Turn: ``draw stock`` / ``draw discard``; then, when the game allows the player to end the deal
    this turn, ``<out verb>`` or ``pass``; then ``discard XX`` (after the out verb only the discards
    that end the deal as the game requires).  The phase shown to every seat is ``draw`` and then
    ``play`` for the whole rest of the turn, so that nobody learns that a player could have gone out.
    """
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "hand": "your cards (list[card])",
        "dealer": "the seat that dealt this deal (int)",
        "pile": "the discard pile, top card last (list[card])",
        "stock_size": "cards left in the stock (int)",
        "stock_order_known": "the stock was re-formed from the discard pile in a known order: you can tell "
            "what comes next (bool)",
        "hand_sizes": "cards held per seat (list[int])",
        "known_cards": "per seat, the cards it is publicly known to hold (taken from the discard pile), "
            "list[list[card]]",
        "banned_discards": "on your turn, the cards you may not discard now (the card just taken, ...) "
            "(list[card])",
        "totals": "match points per seat (list[int])",
        "active": "per seat, whether it is still in the match (list[bool])",
        "last_deal": "the previous deal's result, null before one ended: `deal`, `points` per seat and the "
            "game's own fields (`knocker`, `winner`, `deadwood`, `kind`, `penalties`, ...)",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    game: ConfrontationGame
    out_verb: ClassVar[str] = "knock"
    ban_taken: ClassVar[bool] = True
    """The card taken from the discard pile (or an identical one) may not be discarded this turn."""
    reform: ClassVar[str] = "flip"
    """Stock exhausted: 'flip' (turn the pile over, X3), 'shuffle', or 'none' (the game ends the deal)."""

    hands: list[int]
    known: list[int]
    stock: list[int]
    stock_view: str
    """What everyone knows of the stock: 'hidden', 'set' (after a reshuffle) or 'order' (after a flip)."""
    pile: list[int]
    turn: int
    dealer: int
    step: str
    """'draw', 'decide' (out verb or pass), 'discard'."""
    taken: int
    declared: bool
    allowed: int
    """After the out verb: mask of the cards whose discard ends the deal as required."""
    totals: list[int]
    active: list[bool]
    deck: list[int]
    last: dict[str, Any] | None
    start_totals: list[int]
    reforms: int

    # ----------------------------------------------------------------- hooks
    def _match_deck(self) -> list[int]:
        raise NotImplementedError

    def _deal_size(self) -> int:
        raise NotImplementedError

    def _first_dealer(self) -> int:
        return 0  # X1

    def _can_go_out(self, seat: int) -> bool:
        """After the draw: may ``seat`` end the deal this turn (the out verb is offered)?"""
        raise NotImplementedError

    def _out_now(self, seat: int) -> bool:
        """After the out verb: does the deal end at once, without a discard?"""
        return False

    def _out_discards(self, seat: int) -> int:
        """After the out verb: mask of the cards whose discard ends the deal."""
        raise NotImplementedError

    def _end_out(self, seat: int, discard: int | None) -> None:
        """Score a deal ended by ``seat`` (after his discard, or without one) and go on."""
        raise NotImplementedError

    def _stock_out(self) -> None:
        """A turn begins with no stock and none can be formed: the deal ends with no winner."""
        raise NotImplementedError

    def _turn_end(self, seat: int) -> bool:
        """Hook after an ordinary discard; True if it ended the deal."""
        return False

    # ----------------------------------------------------------------- set-up
    def _setup(self, deal: dict[str, Any] | None) -> None:
        n = self.players
        self.totals = [0] * n
        self.start_totals = [0] * n
        self.active = [True] * n
        self.last = None
        self.deck = self._match_deck()
        if deal is None:
            self._start_deal(self._first_dealer())
        else:
            self._inject(deal)

    def _next_active(self, seat: int) -> int:
        n = self.players
        s = (seat + 1) % n
        while not self.active[s]:
            s = (s + 1) % n
        return s

    def _reset_deal(self) -> None:
        n = self.players
        self.hands = [0] * n
        self.known = [0] * n
        self.pile = []
        self.stock = []
        self.stock_view = "hidden"
        self.taken = -1
        self.declared = False
        self.allowed = 0
        self.reforms = 0
        self.deal_no += 1
        self._legal = None

    def _start_deal(self, dealer: int) -> None:
        self._reset_deal()
        self.dealer = dealer
        deck = list(self.deck)
        self.rng.shuffle(deck)
        self.deck_mask = 0
        for c in deck:
            self.deck_mask |= 1 << c
        seats = []
        s = dealer
        for _ in range(sum(self.active)):
            s = self._next_active(s)
            seats.append(s)
        for _ in range(self._deal_size()):
            for s in seats:
                self.hands[s] |= 1 << deck.pop()
        self.stock = deck
        if self.stock:
            self.pile.append(self.stock.pop())
        self._begin_turn(seats[0])

    def _inject(self, deal: dict[str, Any]) -> None:
        n = self.players
        d = check_deal(deal, game=self.game.id, players=n, pack=pack_tokens(self.deck), sizes=None,
                       stock="rest", upcard="optional", extra=("totals", "first"))
        totals = deal.get("totals")
        if totals is not None:
            if (not isinstance(totals, list) or len(totals) != n
                    or not all(isinstance(t, int) and not isinstance(t, bool) for t in totals)):
                raise ValueError(f"injected deal: 'totals' must list {n} ints, one per seat")
            self._start_from(list(totals))
        for s, toks in enumerate(d.hands):
            if toks and not self.active[s]:
                raise ValueError(f"injected deal: seat {s} is out of the match and holds no cards")
        check_sizes(d, [self._deal_size() if self.active[s] else 0 for s in range(n)])
        dealer = 0 if d.dealer is None else d.dealer
        if not self.active[dealer]:
            raise ValueError(f"injected deal: 'dealer' must be a seat 0..{n - 1} still in, got {dealer!r}")
        self._reset_deal()
        self.dealer = dealer
        cards = Cards(self.deck)
        for s, toks in enumerate(d.hands):
            for tok in toks:
                self.hands[s] |= 1 << cards.take(tok)
        up = cards.take(d.upcard) if d.upcard is not None else None
        if d.stock is not None:
            stock = [cards.take(t) for t in d.stock]
            stock.reverse()  # internal: top card last
        else:
            stock = cards.rest()
            self.rng.shuffle(stock)
        self.stock = stock
        if up is not None:
            self.pile.append(up)
        elif self.stock:
            self.pile.append(self.stock.pop())
        m = 0
        for h in self.hands:
            m |= h
        for c in self.stock + self.pile:
            m |= 1 << c
        self.deck_mask = m
        first = deal.get("first", self._next_active(dealer))
        if (not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < n
                or not self.active[first]):
            raise ValueError(f"injected deal: 'first' must be a seat still in, got {first!r}")
        self._begin_turn(first)

    def _start_from(self, totals: list[int]) -> None:
        self.totals = list(totals)
        self.start_totals = list(totals)

    # ----------------------------------------------------------------- turn
    def _begin_turn(self, seat: int) -> None:
        self.turn = seat
        self.taken = -1
        self.declared = False
        self.allowed = 0
        self.step = "draw"
        self.phase = "draw"
        self._legal = None
        if not self.stock:
            self._reform()
            if not self.stock:  # X7: no stock and none can be formed
                self._stock_out()

    def _reform(self) -> bool:
        """X3: re-form the stock from the discard pile, keeping its top card face up."""
        if self.reform == "none" or len(self.pile) < 2:
            return False
        cap = self.game.options.get("max_reforms")
        if cap is not None and self.reforms >= cap:
            return False  # X7 safety net: the deal then ends with no winner
        rest = self.pile[:-1]
        self.pile = self.pile[-1:]
        if self.reform == "flip":
            rest.reverse()  # the pile's bottom (oldest) card becomes the top of the stock
            self.stock = rest
            self.stock_view = "order"
        else:
            self.rng.shuffle(rest)
            self.stock = rest
            self.stock_view = "set"
        self.reforms += 1
        self._reformed(len(rest))
        return True

    def _reformed(self, size: int) -> None:
        """Hook: emit the game's re-forming event."""

    def _current(self) -> int:
        return self.turn

    def _legal_actions(self) -> list[str]:
        step = self.step
        if step == "draw":
            out = ["draw stock"] if self.stock else []
            if self.pile:
                out.append("draw discard")
            return out
        if step == "decide":
            return self._decide_actions(self.turn)
        hand = self.hands[self.turn]
        if self.declared:
            hand &= self.allowed
        elif self.ban_taken and self.taken >= 0:
            for c in PHYS[TOKENS[self.taken]]:
                hand &= ~(1 << c)
        return list(dict.fromkeys([DISCARD[c] for c in bits(hand)]))

    def _banned_mask(self) -> int:
        m = 0
        if self.ban_taken and self.taken >= 0:
            for c in PHYS[TOKENS[self.taken]]:
                m |= 1 << c
        return m

    def _apply(self, action: str) -> None:
        seat = self.turn
        if action == "draw stock":
            c = self.stock.pop()
            self.hands[seat] |= 1 << c
            if self.stock_view == "order":
                self.known[seat] |= 1 << c  # a turned-over stock's order is public
            if not self.stock:
                self._reform()
            self._after_draw(seat)
        elif action == "draw discard":
            c = self.pile.pop()
            self.hands[seat] |= 1 << c
            self.known[seat] |= 1 << c
            self.taken = c
            self._after_draw(seat)
        elif action == "pass":
            self.step = "discard"
        elif action.startswith(self.out_verb + " "):  # going out with this discard (WR7, CR4)
            tok = action[len(self.out_verb) + 1:]
            hand = self.hands[seat]
            c = next(x for x in PHYS[tok] if hand >> x & 1 and self.allowed >> x & 1)
            self.declared = True
            self.hands[seat] = hand & ~(1 << c)
            self.known[seat] &= ~(1 << c)
            self.pile.append(c)
            self._end_out(seat, c)
        elif action == self.out_verb:
            self.declared = True
            if self._out_now(seat):
                self._end_out(seat, None)
                return
            self.allowed = self._out_discards(seat)
            self.step = "discard"
        else:  # discard XX
            tok = action[8:]
            hand = self.hands[seat]
            c = next(x for x in PHYS[tok] if hand >> x & 1 and (not self.declared or self.allowed >> x & 1))
            self.hands[seat] = hand & ~(1 << c)
            self.known[seat] &= ~(1 << c)
            self.pile.append(c)
            if self.declared:
                self._end_out(seat, c)
                return
            if self._turn_end(seat):
                return
            self._begin_turn(self._next_active(seat))

    def _decide_actions(self, seat: int) -> list[str]:
        """The choices of the ``decide`` step: ``pass`` and the out verb (games may list several
        forms of going out)."""
        return ["pass", self.out_verb]

    def _after_draw(self, seat: int) -> None:
        self.phase = "play"
        self.step = "decide" if self._can_go_out(seat) else "discard"

    # ----------------------------------------------------------------- deal end helpers
    def _shown(self) -> tuple[list[list[str]], list[list[str]], list[list[str]], list[int]]:
        """Every hand, its best arrangement (melds, deadwood cards) and deadwood value."""
        hands, melds, dead, dw = [], [], [], []
        for s in range(self.players):
            cards = bits(self.hands[s])
            cost, ms, dd = self.game.solver.arrange(cards)
            hands.append([TOKENS[c] for c in cards])
            melds.append(melds_text(ms))
            dead.append([TOKENS[c] for c in dd])
            dw.append(cost)
        return hands, melds, dead, dw

    # ----------------------------------------------------------------- views
    def zones(self) -> dict[str, int]:
        z = {f"hand{s}": h for s, h in enumerate(self.hands)}
        st = pl = 0
        for c in self.stock:
            st |= 1 << c
        for c in self.pile:
            pl |= 1 << c
        z.update(stock=st, pile=pl)
        return z

    def hidden_cards(self, viewer: int) -> int:
        if self._over:
            return 0  # the last deal ended with every hand shown
        m = 0
        for s, h in enumerate(self.hands):
            if s != viewer:
                m |= h & ~self.known[s]
        return m

    def determinize(self, seat: int, rng: random.Random) -> State:
        new = self.clone()
        assert isinstance(new, ConfrontationState)
        pool = list(self.stock) if self.stock_view == "hidden" else []
        sizes: list[int] = []
        for s, h in enumerate(self.hands):
            hidden = 0 if s == seat else h & ~self.known[s]
            sizes.append(hidden.bit_count())
            pool += bits(hidden)
        rng.shuffle(pool)
        for s in range(self.players):
            if s == seat:
                continue
            h = self.hands[s] & self.known[s]
            for _ in range(sizes[s]):
                h |= 1 << pool.pop()
            new.hands[s] = h
        if self.stock_view == "hidden":
            new.stock = pool
        elif self.stock_view == "set":
            stock = list(self.stock)
            rng.shuffle(stock)
            new.stock = stock
        new.rng = random.Random(rng.getrandbits(64))
        new._legal = None
        return new

    def _observe(self, seat: int) -> dict[str, Any]:
        last = self.last
        if last is not None and not self._over:
            last = {k: v for k, v in last.items() if k not in ("hands", "melds", "deadwood_cards")}
        banned = sorted({TOKENS[c] for c in bits(self._banned_mask())}) if self.turn == seat else []
        return {
            "hand": hand_tokens(self.hands[seat]),
            "dealer": self.dealer,
            "pile": [TOKENS[c] for c in self.pile],
            "stock_size": len(self.stock),
            "stock_order_known": self.stock_view == "order",
            "hand_sizes": [h.bit_count() for h in self.hands],
            "known_cards": [hand_tokens(k) for k in self.known],
            "banned_discards": banned,
            "totals": list(self.totals),
            "active": list(self.active),
            "last_deal": last,
        }


class AllMeldState(ConfrontationState):
    """Going out with every card in melds (Wildcard and Cincinnati Rummy): after the draw, every
    possible form of going out is offered (WR7, CR4): ``knock`` when all the cards meld (out
    without a discard), and ``knock XX`` for each card XX whose discard leaves a melded hand (the
    ban on the card taken from the pile applies), also when the whole hand melds."""

    out_verb: ClassVar[str] = "knock"  # "rummy!": going out ends the deal, as a knock does
    go_now: bool = False
    go_mask: int = 0

    def _can_go_out(self, seat: int) -> bool:
        game = self.game
        hand = self.hands[seat]
        k = game.out_count(hand)
        self.go_now = k == 0
        self.go_mask = 0
        if k > 1:
            return False
        m = 0
        seen = 0  # one search per token (the other pack's copy leaves the same hand)
        for c in bits(hand & ~self._banned_mask()):
            b = BASE[c]
            if seen >> b & 1:
                continue
            seen |= 1 << b
            if game.out_count(hand & ~(1 << c)) == 0:
                for x in PHYS[TOKENS[c]]:
                    m |= hand & (1 << x)
        self.go_mask = m
        self.allowed = m
        return self.go_now or m != 0

    def _decide_actions(self, seat: int) -> list[str]:
        out = ["pass"]
        if self.go_now:
            out.append(self.out_verb)
        prefix = self.out_verb + " "
        out += list(dict.fromkeys(prefix + TOKENS[c] for c in bits(self.go_mask)))
        return out

    def _out_now(self, seat: int) -> bool:
        return self.go_now

    def _out_discards(self, seat: int) -> int:
        return 0  # ``knock`` alone goes out without a discard; ``knock XX`` names the discard
