"""Loba / Rami (drift rummy with elimination).  Seed 003 L632-662; RULES.md 2.25, the "Common rummy
definitions", X3, X6, X7 and the elimination-rummy rules.  Decisions followed: L1-L16.

2-5 players, 108 cards (two packs, four jokers), 9 each; one card turned to start the discard pile.
A turn: ``draw stock`` or ``draw discard``, table play (the meld protocol of
``engine.games.rummy._rummy``: ``meld 7H`` ... ``confirm``, ``layoff 8H 3``, ``move 7H JK=9H 3``,
``takeback``), then ``discard 5H``.

* Pierna: 3-6 cards of one rank in exactly three different suits (a suit may repeat with two packs:
  7H 7H 7S 7C is a pierna, 7H 7D 7S 7C is not; L16); no jokers.  A lay-off onto a pierna is a card
  of one of its three suits, up to 6 cards (L4).
* Escalera: 4+ consecutive cards of one suit, the ace low (A-2-3-4) or high (J-Q-K-A), never both,
  no wrap; at most 2 jokers; a joker names its card and stands for A (low) up to K, never the high
  ace (L11).
* Jokers are never exchanged for natural cards and never taken into a hand.  ``move 7H JK=9H 3``
  (L12, a lay-off): the natural 7H takes the place of the joker of escalera 3 that stands for 7H,
  and that joker moves to a free end of the escalera, here naming 9H (event ``joker_moved_end``).
* The top discard may be taken only if it can be laid at once in a new meld from the hand (L2;
  option ``pickup_for_layoff``: a lay-off or a move counts too).  The turn cannot end before it is
  on the table (``discard_pickup_used``).  Lay-offs are allowed without an own meld (L3).
* A joker may be discarded only as the last card (going out, ``joker_discard_to_finish``), or when
  the hand holds nothing but jokers and none can be laid this turn (L13).
* Going out (L10): as soon as the hand is empty, by melding or laying off the last card or by
  discarding it.  Penalties for the others' hands: A and faces 10, pips face value, joker 25 (L1).
  A player who goes out in the turn of his first table play of the deal subtracts 10 from his
  earlier total, not below 0 (L14, L7: ``went_out_in_one``).
* Elimination (L5, L6, L9, L15): after a deal each player at >= 100 with a buy-back left chooses,
  lowest seat first: ``declare buyback`` (his total becomes the highest total among the players
  below 100; ``buy_back``; at most twice) or ``pass`` (``eliminated``).  If nobody is below 100, all
  at >= 100 are eliminated.  Eliminated players are skipped in play and dealing; the last player
  left wins (``winner_last_standing``).  Ranking: the last player left first, then later
  eliminations before earlier ones, the same deal by lower total (all out in one deal: the lowest
  total wins).
* Stock empty: the discard pile less its top card is shuffled into a new stock (L8, X3:
  ``stock_reshuffled``); at most ``max_reforms`` times per deal (X7), after that the deal ends
  without a winner and everyone scores his hand (``deal_without_winner``).

Injected deal (X6): the common rummy keys, plus optional ``"buybacks"`` (buy-backs used per seat)
and ``"eliminated"`` (seats already out, with empty hands).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Final

from engine.cards import (
    BASE,
    IS_JOKER,
    JOKER,
    JOKER_MASK,
    PACK,
    TOKENS,
    base_set,
    bits,
    card,
    deck_108,
    value_table,
)
from engine.core import NO_CARD_TABLES, Option, register
from engine.errors import IllegalAction
from engine.games.rummy._rummy import (
    MELD1,
    MELDJ,
    RANK_MASK,
    RUMMY_VERBS,
    SPREAD,
    Meld,
    RummyGame,
    RummyState,
)
from engine.melds import GroupRule, Item, RunRule, pos_base
from engine.stock import ReformMode, ReformOptions

PENALTY: Final = value_table(ace=10, face=10, joker=25)  # L1: joker 25; seed: A and faces 10, pips face
OUT_AT: Final = 100  # L5: ">= 100"
MAX_BUYBACKS: Final = 2
MIN_PIERNA, MAX_PIERNA = 3, 6
HIGH_ACE: Final = 13
LOBA_VERBS: Final[dict[str, tuple[str, str]]] = {
    **RUMMY_VERBS,
    "move": ("layoff", "move 7H JK=9H 3"),
}


def copies(hand: int, b: int) -> int:
    """How many physical copies of base card ``b`` the hand holds."""
    n = 0
    while hand:
        n += hand >> b & 1
        hand >>= PACK
    return n


def pierna_ok(named: list[int], nj: int) -> bool:
    """L16/L4: 3-6 natural cards of one rank in exactly three distinct suits."""
    if nj or not MIN_PIERNA <= len(named) <= MAX_PIERNA:
        return False
    r = named[0] % 13
    return all(x % 13 == r for x in named) and len({x // 13 for x in named}) == 3


@dataclass(frozen=True)
class LobaOptions(ReformOptions):
    """Loba's options (``Loba.options_spec``), typed."""

    pickup_for_layoff: bool = False
    max_buybacks: int = MAX_BUYBACKS
    max_reforms: int | None = 3


class LobaState(RummyState):
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "buybacks": "times each seat has bought back in after being eliminated (list[int])",
        "eliminated": "per seat, whether it is out of the match (list[bool])",
    }
    PHASES: ClassVar[tuple[str, ...]] = (  # engine.rl: every phase, "over" included
        "draw", "play", "buyback", "over")
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md)
        "buybacks": "seat_nums:2", "eliminated": "seat_nums:1",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    buybacks: list[int]
    out_deal: list[int]
    """Deal in which a seat was eliminated (0: still in)."""
    queue: list[int]
    """Seats at >= 100 still to choose (buy back or not), lowest seat first (L15)."""
    tabled: list[bool]
    """Seat made table play in an earlier turn of this deal (L14)."""
    winner: int | None
    moves_of: dict[int, tuple[Any, list[tuple[int, str]]]]
    """Per table meld: (its lay-off cache object, its L12 move actions (card, action))."""

    # ----------------------------------------------------------------- set-up
    def _match_setup(self) -> None:
        n = self.players
        self.buybacks = [0] * n
        self.out_deal = [0] * n
        self.queue = []
        self.winner = None

    def _deal_setup(self) -> None:
        self.tabled = [False] * self.players
        self.moves_of = {}

    deal_keys = ("buybacks", "eliminated")

    def _inject_extra(self, deal: dict[str, Any]) -> None:
        n = self.players
        bb = deal.get("buybacks")
        if bb is not None:
            if not isinstance(bb, list) or len(bb) != n or not all(
                    isinstance(x, int) and 0 <= x <= MAX_BUYBACKS for x in bb):
                raise ValueError(f"injected deal: 'buybacks' must list {n} counts 0..{MAX_BUYBACKS}")
            self.buybacks = list(bb)
        for s in self._read_eliminated(deal):
            self.out_deal[s] = -1

    # ----------------------------------------------------------------- meld rules
    def _sets_plain(self) -> bool:
        return False  # L16: piernas have their own rule (handled below)

    def _joker_pos_ok(self, jpos: set[int]) -> bool:
        return HIGH_ACE not in jpos  # L11: a joker never stands for the high ace

    def _joker_mask_ok(self, mask: int) -> bool:
        return not mask >> HIGH_ACE & 1  # L11, as above

    def _start_mask(self, bases: int, jokers: int, limit: int) -> int:
        out = super()._start_mask(bases, jokers, limit)
        if limit >= MIN_PIERNA:
            # L16: a rank held in at least three suits starts a pierna (any of its cards)
            s0, s1, s2, s3 = bases & 0x1FFF, bases >> 13 & 0x1FFF, bases >> 26 & 0x1FFF, bases >> 39 & 0x1FFF
            r = (s0 & s1 & (s2 | s3)) | ((s0 | s1) & s2 & s3)
            out |= bases & (r * SPREAD)
        return out

    def _set_completable(self, items: list[Item], bases: int, jokers: int, limit: int) -> bool:
        # L16: exactly three suits, 3-6 cards, no jokers
        if any(nm is not None for _, nm in items) or len(items) > MAX_PIERNA:
            return False
        named = [BASE[c] for c, _ in items]
        r = named[0] % 13
        if any(x % 13 != r for x in named):
            return False
        suits = {x // 13 for x in named}
        if len(suits) > 3:
            return False
        new_suits = 3 - len(suits)
        need = max(MIN_PIERNA - len(items), new_suits)
        if need > limit:
            return False
        avail = sum(1 for s in range(4) if s not in suits and bases >> (s * 13 + r) & 1)
        if avail < new_suits:
            return False
        return True  # L16: (need never exceeds the new suits: items hold no more suits than cards)

    def _run_completable(self, items: list[Item], bases: int, jokers: int, limit: int) -> bool:
        """The common test over bit masks (same answers; faster): can ``items`` become an
        escalera with at most ``limit`` more hand cards (4+ cards, at most 2 jokers, none of them
        the high ace, the ace low or high)?"""
        x0 = BASE[items[0][0]] if items[0][1] is None else items[0][1]
        s = x0 // 13
        sm = (bases >> (13 * s)) & 0x1FFF
        mid = (sm & 0xFFF) << 1
        ace_in_hand = sm >> 12 & 1
        n = len(items)
        for mode in (0, HIGH_ACE):
            pos = 0
            jm = 0
            ok = True
            for c, nm in items:
                x = BASE[c] if nm is None else nm
                if x // 13 != s:
                    return False
                p = mode if x % 13 == 12 else x % 13 + 1
                if pos >> p & 1:
                    ok = False
                    break
                pos |= 1 << p
                if nm is not None:
                    jm |= 1 << p
            if not ok or jm >> HIGH_ACE & 1:
                continue
            P = mid | (ace_in_hand << mode)
            mn = (pos & -pos).bit_length() - 1
            mx = pos.bit_length() - 1
            lo_min, hi_max = (0, 12) if mode == 0 else (1, HIGH_ACE)
            windows: tuple[tuple[int, int], ...]
            if mx - mn + 1 >= 4:
                windows = ((mn, mx),)
            else:
                windows = tuple((a, a + 3) for a in range(mx - 3, mn + 1))
            for a, z in windows:
                if a < lo_min or z > hi_max or z - a + 1 - n > limit:
                    continue
                w = ((1 << (z - a + 1)) - 1) << a
                miss = w & ~pos & ~P
                if miss.bit_count() > jokers or (miss | jm).bit_count() > 2 or miss >> HIGH_ACE & 1:
                    continue
                return True
        return False

    def _meld_ok(self, items: list[Item]) -> Meld | None:
        named = [BASE[c] if n is None else n for c, n in items]
        if len(items) > 1 and len({x % 13 for x in named}) == 1:
            nj = sum(1 for _, n in items if n is not None)
            if not pierna_ok(named, nj):
                return None
            order = sorted(items, key=lambda it: (BASE[it[0]], it[0]))
            return Meld(order, "set", self.turn)
        return super()._meld_ok(items)

    def _accepts(self, m: Meld) -> list[tuple[int, bool, int]]:
        if m.kind == "set":
            if len(m.items) >= MAX_PIERNA:
                return []
            named = [BASE[c] for c, _ in m.items]
            r = named[0] % 13
            # L4: only the pierna's own three suits (a fourth suit is illegal)
            return [(s * 13 + r, False, -1) for s in sorted({x // 13 for x in named})]
        return super()._accepts(m)

    def _build_offers(self, hand: int, limit: int) -> list[str]:
        """As the common protocol, but a pierna may repeat a card (L16: the other pack's copy)."""
        b = self.building
        if limit <= 0:
            return []
        key = ("loba", hand, tuple(b), limit)
        cache = self.rg.cache
        hit = cache.get(key)
        if hit is not None:
            return list(hit)
        out: list[str] = []
        bases = base_set(hand)
        jokers = (hand & JOKER_MASK).bit_count()
        x0 = BASE[b[0][0]] if b[0][1] is None else b[0][1]
        cand = bases & (RANK_MASK[x0 % 13] | (0x1FFF << (13 * (x0 // 13))))
        for x in bits(cand):
            if self._completable([*b, (x, None)], bases, jokers, limit - 1):
                out.append(MELD1[x])
        if jokers:
            for x in self._joker_namings(b):
                if self._completable([*b, (JOKER, x)], bases, jokers - 1, limit - 1):
                    out.append(MELDJ[x])
        if len(cache) > 200_000:
            cache.clear()
        cache[key] = tuple(out)
        return out

    # ----------------------------------------------------------------- L2: the discard pick-up
    def _may_take_discard(self, seat: int) -> bool:
        c = self.pile[-1]
        hand = self.hands[seat]
        n = hand.bit_count()
        bases = base_set(hand)
        jokers = (hand & JOKER_MASK).bit_count()
        if IS_JOKER[c]:
            k = self._joker_meld_cost(bases, jokers)  # a new escalera with it
            return k is not None and k <= n  # (a taken joker always goes into a new escalera)
        b = BASE[c]
        # L2: a new meld from the hand with it (a meld it can start, with the hand's cards)
        if self._start_mask(bases | 1 << b, jokers, n + 1) >> b & 1:
            return True
        if self.rg.opts(LobaOptions).pickup_for_layoff:
            return self._layoff_usable(b, hand)
        return False

    def _layoff_usable(self, b: int, hand: int) -> bool:
        """Option ``pickup_for_layoff``: ``b`` laid off (directly, after hand cards that reach
        it on an escalera, or by a move)."""
        bases = base_set(hand)
        jokers = (hand & JOKER_MASK).bit_count()
        n = hand.bit_count()
        for m in self.melds:
            for x, as_j, _ in self._accepts(m):
                if x == b and not as_j:
                    return True
            if m.kind == "run" and self._move_targets(m, b):
                return True
        return self._chain_layoff(b, bases, jokers, n + 1)

    def _chain_layoff(self, b: int, bases: int, jokers: int, budget: int) -> bool:
        """Lay-offs from the hand onto an escalera that reach ``b`` (the cards between first)."""
        s = b // 13
        for m in self.melds:
            if m.kind != "run" or self._run_suit(m) != s:
                continue
            lo, hi = m.lo, m.lo + len(m.items) - 1
            for p in ((0, 13) if b % 13 == 12 else (b % 13 + 1,)):
                if p > hi + 1:
                    gap = range(hi + 1, p)
                elif p < lo - 1:
                    gap = range(p + 1, lo)
                else:
                    continue
                if (lo == 0 and p == 13) or (hi == 13 and p == 0):
                    continue
                jp = [q for q in gap if not bases >> pos_base(q, s) & 1]
                if len(gap) + 1 > budget or len(jp) > jokers or len(jp) + m.jokers() > 2:
                    continue
                if HIGH_ACE in jp:
                    continue
                return True
        return False

    def _took_discard(self, seat: int, c: int) -> None:
        self.must_use |= 1 << c  # L2: it must be laid this turn

    # ----------------------------------------------------------------- lay-offs and moves
    @staticmethod
    def _run_suit(m: Meld) -> int:
        c, nm = m.items[0]
        return (BASE[c] if nm is None else nm) // 13

    def _move_targets(self, m: Meld, x: int) -> list[int]:
        """L12: where the joker of escalera ``m`` naming ``x`` may go when ``x`` takes its place:
        the free ends, within A (low) .. K (L11), never both aces."""
        if not any(nm == x for _, nm in m.items):
            return []
        s = self._run_suit(m)
        lo, hi = m.lo, m.lo + len(m.items) - 1
        out = []
        if lo - 1 >= 0 and not (lo - 1 == 0 and hi == HIGH_ACE):
            out.append(pos_base(lo - 1, s))
        if hi + 1 < HIGH_ACE:  # L11: never above the king
            out.append(pos_base(hi + 1, s))
        return out

    def _layoff_blocked(self, hand: int, x: int) -> bool:
        """L2: the card taken from the discard pile goes into a new meld, not a lay-off (unless
        the hand holds another copy of it)."""
        if self.rg.opts(LobaOptions).pickup_for_layoff:
            return False
        mu = self.must_use & hand & ~JOKER_MASK
        if not mu:
            return False
        return any(BASE[c] == x for c in bits(mu)) and copies(hand, x) < 2

    def _move_strings(self, m: Meld, i: int) -> list[tuple[int, str]]:
        """L12: the move actions (card, action) of meld ``m``, numbered ``i + 1``."""
        moves: list[tuple[int, str]] = []
        if m.kind == "run":
            for _c, nm in m.items:
                if nm is not None:
                    moves += [(nm, f"move {TOKENS[nm]} JK={TOKENS[y]} {i + 1}")
                              for y in self._move_targets(m, nm)]
        return moves

    def _layoff_offers(self, seat: int, hand: int) -> list[str]:
        out = super()._layoff_offers(seat, hand)  # (refreshes every meld's lay-off cache)
        if self.must_use & hand and not self.rg.opts(LobaOptions).pickup_for_layoff:
            out = [a for a in out if a.startswith("layoff JK=")
                   or not self._layoff_blocked(hand, card(a.split()[1]))]
        if not self.melds:
            return out
        bases = base_set(hand)
        for i, m in enumerate(self.melds):
            # keyed by the meld's lay-off cache object, read from the meld (the base class has
            # just filled it): compiled code boxes a returned tuple anew, so the object is taken
            # from the attribute, never from the call that computed it
            acc: object = m.acc
            got = self.moves_of.get(i)
            if got is None or got[0] is not acc:
                got = self.moves_of[i] = (acc, self._move_strings(m, i))
            for nm, a in got[1]:
                if bases >> nm & 1 and not self._layoff_blocked(hand, nm):
                    out.append(a)  # L12
        return out

    _pick_free: bool = False
    """Lay off / move a copy that is not the taken discard (L2, default)."""

    def _pick(self, hand: int, tok: str, avoid: int = 0) -> int:
        if self._pick_free:
            avoid = self.must_use
        return super()._pick(hand, tok, avoid)

    def _do_layoff(self, seat: int, tok: str, idx: int) -> None:
        # L2: under the default a natural lay-off never uses the taken discard (another copy is)
        self._pick_free = not self.rg.opts(LobaOptions).pickup_for_layoff
        try:
            super()._do_layoff(seat, tok, idx)
        finally:
            self._pick_free = False

    def _do_move(self, seat: int, tok: str, new_tok: str, idx: int) -> None:
        """L12: the natural ``tok`` takes the joker's place; the joker moves to a free end."""
        hand = self.hands[seat]
        m = self.melds[idx]
        x = card(tok)
        y = card(new_tok[3:])
        free = not self.rg.opts(LobaOptions).pickup_for_layoff
        c = self._pick(hand, tok, avoid=self.must_use if free else ~self.must_use)
        self.hands[seat] = hand & ~(1 << c)
        self.must_use &= ~(1 << c)
        self.known[seat] &= ~(1 << c)
        j = next(i for i, (_, nm) in enumerate(m.items) if nm == x)
        jc = m.items[j][0]
        m.items[j] = (c, None)
        s = self._run_suit(m)
        if m.lo > 0 and pos_base(m.lo - 1, s) == y:
            m.items.insert(0, (jc, y))
            m.lo -= 1
        else:
            m.items.append((jc, y))
        m.changed()
        self.turn_layoffs.append((idx, c))
        self._emit("joker_moved_end", seat=seat, meld=idx + 1, card=tok, joker=f"JK={new_tok[3:]}")
        self._check_out(seat)

    def _apply_other(self, seat: int, verb: str, rest: str) -> None:
        if verb == "move":
            self._save()
            tok, new_tok, num = rest.split()
            self._do_move(seat, tok, new_tok, int(num) - 1)
        elif verb == "declare":
            self._decide(seat, True)
        elif verb == "pass":
            self._decide(seat, False)
        else:
            raise IllegalAction(f"unknown action {verb}")

    def _may_swap(self, seat: int) -> bool:
        return False  # seed L654: jokers cannot be exchanged for natural cards

    # ----------------------------------------------------------------- L13: joker discards
    def _discard_ok(self, seat: int, c: int, last: bool) -> bool:
        if c != JOKER:
            return True
        if last:
            return True  # L13: the last card, going out
        hand = self.hands[seat]
        if hand & ~JOKER_MASK:
            return False
        # L13: only jokers, none of which can be laid this turn
        return not any(self._may_layoff(seat, i) and any(j for _, j, _ in self._accepts(m))
                       for i, m in enumerate(self.melds))

    # ----------------------------------------------------------------- events and going out
    def _after_meld(self, seat: int, idx: int) -> None:
        m = self.melds[idx]
        if m.kind == "set":
            self._emit("pierna", seat=seat, meld=idx + 1, size=len(m.items),
                       suits=len({BASE[c] // 13 for c, _ in m.items}), cards=m.text())
        else:
            self._emit("escalera", seat=seat, meld=idx + 1, len=len(m.items), jokers=m.jokers(),
                       cards=m.text())
        self._check_out(seat)

    def _after_layoff(self, seat: int, idx: int, item: Item) -> None:
        self._check_out(seat)

    def _check_out(self, seat: int) -> None:
        """L10: the hand is empty after table play: the player goes out at once."""
        if self.hands[seat] == 0 and not self.building:
            self._turn_done(seat)
            self._went_out(seat)
            self._end_deal(seat)

    def _after_turn(self, seat: int) -> None:
        self._turn_done(seat)

    def _turn_done(self, seat: int) -> None:
        if self.took_discard >= 0:  # L2: it is on the table now (the turn could not end before)
            self._emit("discard_pickup_used", seat=seat, card=TOKENS[self.took_discard])
        self.one_go = not self.tabled[seat]
        if self.turn_melds or self.turn_layoffs:
            self.tabled[seat] = True

    one_go: bool = False
    """The turn that just ended was the seat's first turn with table play (L14)."""

    def _do_discard(self, seat: int, tok: str) -> None:
        if tok == "JK" and self.hands[seat].bit_count() == 1:
            self._emit("joker_discard_to_finish", seat=seat)  # L13
        super()._do_discard(seat, tok)

    def _went_out(self, seat: int) -> None:
        self._emit("went_out", seat=seat)

    # ----------------------------------------------------------------- scoring
    def _score_deal(self, winner: int | None) -> list[float]:
        pts = [float(sum(PENALTY[c] for c in bits(self.hands[s]))) if self.active[s] else 0.0
               for s in range(self.players)]
        if winner is not None:
            pts[winner] = 0.0
            if self.one_go:
                # L14 / L7: everything laid out in one go: -10 on the earlier total, not below 0
                bonus = -min(10.0, self.totals[winner]) + 0.0  # (no -0.0)
                pts[winner] = bonus
                self._emit("went_out_in_one", seat=winner, points=bonus)
        return pts

    def _end_deal(self, winner: int | None) -> None:
        pts = self._score_deal(winner)
        self.sheet.append(pts)
        for s in range(self.players):
            self.totals[s] += pts[s]
        self.last = {"deal": self.deal_no, "winner": winner, "points": list(pts)}
        self.building = []
        if self._deals_done():
            self._finish()
            return
        # L5 / L15: the players at >= 100 choose, lowest seat first
        over = [s for s in range(self.players) if self.active[s] and self.totals[s] >= OUT_AT]
        below = [s for s in range(self.players) if self.active[s] and self.totals[s] < OUT_AT]
        if not below:
            for s in over:  # nobody below 100: all at >= 100 are out
                self._eliminate(s)
        else:
            self.queue = over
        self._next_choice()

    def _next_choice(self) -> None:
        while self.queue:
            s = self.queue[0]
            if self.buybacks[s] < self.rg.opts(LobaOptions).max_buybacks:
                self.phase = "buyback"
                self.turn = s
                return
            self.queue.pop(0)
            self._eliminate(s)
        live = [s for s in range(self.players) if self.active[s]]
        if len(live) <= 1:
            self._end_match()
            return
        self._start_deal(self._next_dealer())

    def _decide(self, seat: int, buy: bool) -> None:
        self.queue.pop(0)
        if buy:
            # L6 / L15: the highest total among the players below 100; L9: no other price
            target = max(self.totals[s] for s in range(self.players)
                         if self.active[s] and self.totals[s] < OUT_AT)
            self.buybacks[seat] += 1
            self.start_totals[seat] += target - self.totals[seat]
            self.totals[seat] = target
            self._emit("buy_back", seat=seat, n=self.buybacks[seat], total=target)
        else:
            self._eliminate(seat)
        self._next_choice()

    def _eliminate(self, seat: int) -> None:
        self.active[seat] = False
        self.out_deal[seat] = self.deal_no
        self._emit("eliminated", seat=seat, total=self.totals[seat])

    def _end_match(self) -> None:
        rank = self.ranking()
        w = rank.index(1)
        live = [s for s in range(self.players) if self.active[s]]
        self.winner = w
        self._emit("winner_last_standing", seat=w, total=self.totals[w],
                   all_out=not live)
        self._finish()

    def _match_over(self) -> bool:
        return sum(self.active) <= 1

    def ranking(self) -> list[int]:
        # the last player left first; later eliminations before earlier ones; then lower total
        keys = [(0, 0, self.totals[s]) if self.active[s] else (1, -self.out_deal[s], self.totals[s])
                for s in range(self.players)]
        return [1 + sum(1 for k in keys if k < keys[s]) for s in range(self.players)]

    # ----------------------------------------------------------------- other phase
    def _other_actions(self) -> list[str]:
        if self.phase == "buyback":
            return ["declare buyback", "pass"]
        raise NotImplementedError(self.phase)

    def _why_illegal(self, verb: str, args: tuple[str, ...]) -> str:
        if self.phase == "buyback":
            return "you are at 100 or more: 'declare buyback' or 'pass' (eliminated)"
        if verb == "discard" and args and args[0] == "JK":
            return ("a joker may be discarded only as your last card, or when you hold only jokers "
                    "none of which can be laid")
        return super()._why_illegal(verb, args)

    def _observe(self, seat: int) -> dict[str, Any]:
        obs = super()._observe(seat)
        obs["buybacks"] = list(self.buybacks)
        obs["eliminated"] = [not a for a in self.active]
        return obs

    def _invariants(self) -> list[str]:
        out = super()._invariants()
        last = self.last
        if last is not None and self.sheet:
            row = self.sheet[-1]
            w = last["winner"]
            if w is not None and not -10 <= row[w] <= 0:
                out.append(f"deal {last['deal']}: the winner scored {row[w]}")
            if any(p < 0 for s, p in enumerate(row) if s != w):
                out.append(f"deal {last['deal']}: a negative penalty {row}")
        if any(t < 0 for t in self.totals):
            out.append(f"a negative total {self.totals}")
        return out


class Loba(RummyGame):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "draw stock", "draw discard", "meld CARD", "meld NAMED", "confirm", "layoff CARD 1..36",
        "layoff NAMED 1..36", "move MOVE 1..36", "takeback", "discard CARD|JK", "declare buyback", "pass")

    def action_catalogue(self, form: str) -> list[str]:  # engine.rl: X and the card the moved joker names
        from engine.rl.actions import NATURALS
        from engine.rl.catalogues import joker_moves
        return joker_moves(NATURALS)

    id = "loba"
    lower_score_wins = True
    name = "Loba / Rami"
    seed_ref = "seed 003 L632-662 ('Loba / Rami, 2-5 spelers'); RULES.md 2.25"
    summary = ("2-5 players, 108 cards (4 jokers), 9 each, an up-card. Draw the top stock card, or "
               "the top discard if you lay it at once in a new meld. Piernas: 3-6 cards of one rank "
               "in exactly three suits; escaleras: 4+ of a suit, ace low or high, at most 2 jokers "
               "(never the high ace). Jokers are never exchanged, but a player holding the card a "
               "joker stands for may put it in its place and move the joker to an end. Go out by "
               "emptying your hand; the others score A/faces 10, pips face, joker 25; going out in "
               "one go takes 10 off your total. At 100 you are out, or buy back in (twice at most) "
               "at the highest score below 100. The last player left wins.")
    notation = ("draw stock\ndraw discard   (only if you lay it at once in a new meld)\n"
                "meld 7H   (one card of the meld being built)\nmeld JK=8H   (a joker naming its card)\n"
                "confirm   (lay the meld being built)\nlayoff 8H 3   (a card onto table meld 3)\n"
                "layoff JK=8H 3\n"
                "move 7H JK=9H 3   (your 7H takes the place of the joker of escalera 3 that stands for "
                "7H; the joker moves to a free end, here naming 9H)\n"
                "takeback   (undo this turn's table play)\ndiscard 5H\n"
                "declare buyback   (at 100 or more: buy back in)\npass   (at 100 or more: leave the game)")
    min_players = 2
    max_players = 5
    default_players = 4
    rule_events = ("discard_pickup_used", "pierna", "escalera", "joker_moved_end", "joker_discard_to_finish",
                   "went_out_in_one", "eliminated", "buy_back", "winner_last_standing", "stock_reshuffled",
                   "deal_without_winner", "went_out")
    options_spec = (
        Option("pickup_for_layoff", False, "L2 variant: the taken discard may also be used in a lay-off"),
        Option("max_buybacks", MAX_BUYBACKS, "buy-backs per player (seed: twice)",
               check=lambda v: v >= 0),
        Option("max_reforms", 3, "X7: stock re-formings per deal; None = no limit",
               check=lambda v: v >= 0, nullable=True, max=1000),
    )
    options_type = LobaOptions
    state_class = LobaState
    tables = NO_CARD_TABLES  # no tricks, no card points
    extra_verbs: ClassVar[dict[str, tuple[str, str]]] = LOBA_VERBS
    hand_size: ClassVar[int] = 9
    run_rule: ClassVar[RunRule] = RunRule(min_len=4, ace_low=True, ace_high=True, min_naturals=1,
                                          max_jokers=2)
    set_rule: ClassVar[GroupRule] = GroupRule(min_size=3, max_size=6, distinct_suits=False, jokers=False)
    reform: ClassVar[ReformMode] = "shuffle"  # L8
    keep_for_discard: ClassVar[bool] = False  # L10: out as soon as the hand is empty
    out_after_everyone: ClassVar[bool] = False
    joker_reuse: ClassVar[str] = "meld"
    upcard: ClassVar[bool] = True
    free_discard: ClassVar[bool] = True  # (L13 is applied to the listed joker discard)

    def deck(self) -> list[int]:
        return deck_108()


register(Loba)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
