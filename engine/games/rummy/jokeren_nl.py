"""Jokeren (Dutch home and club rules).  Seed 002, section "Jokeren" with its "Wedstrijdregels";
RULES.md 2.5 and the "Common rummy definitions".  Decisions followed: J1-J17, X1, X3, X6, X7.

2-4 players, 108 cards (two packs, four jokers, J1), 13 each dealt one at a time; no up-card: the
discard pile starts with the first player's discard (J11).  A turn: ``draw stock`` or
``draw discard``, table play (meld protocol of ``engine.games.rummy._rummy``: ``meld 7H`` ... ``confirm``,
``layoff 8H 3``, ``swap 7H 3``, ``takeback``), then ``discard 5H``.

* Sets: 3-4 cards of one rank in different suits; runs: 3+ cards of one suit, the ace low (A-2-3)
  or high (Q-K-A), no wrap (J4), never two jokers side by side (J7).  A joker names its card.
* Opening (J10, J13, J14, J15, J3): the melds laid in a player's opening turn total at least 40
  (A 1 low in a run, else 11; K/Q/J 10; a joker 10; pips face value).  Lay-offs that turn only onto
  his own new melds, not counted.  He has opened once that turn ends (event ``opened``); from his
  next turn he may lay off onto anybody's melds and ``swap`` a natural card for a tabled joker,
  which must be laid again in the same turn, in a new meld or as a lay-off (J6, J16).
* The top discard (J2, J12) may be taken only if it can be used at once, in this turn, under all
  the other rules: by a player who has opened, in a new meld, a lay-off or a swap; by one who has
  not, inside one of the melds that open him this turn.  The turn cannot end before it is on the
  table (event ``discard_pickup_used`` when taken).
* Going out (J5): discard the last card, not before every player has had a turn (the earliest is
  the dealer's first turn); table play keeps the card for the discard.
* Scoring: the winner gets an X (0 points), the others score the number of cards in hand.  A match
  is 10 deals with a subtotal after 5 (``match_subtotal``); lowest total wins, more X's break a
  tie, still tied is shared (J9).
* Stock empty: the discard pile less its top card is shuffled into a new stock (J8, X3); at most
  ``max_reforms`` times per deal (X7), after that the deal ends without a winner and everyone scores
  his card count, no X (``deal_without_winner``).

Options: ``open50`` (the 50-point opening; a player may open with less by going out in that turn,
``open_below_50_by_going_out``); ``competition`` (J17: 3-4 players, 3 jokers for 4 players and 2
for 3, an ace counts 1 or 10 for the opening, 6 deals, with 3 players seat 0 deals the first two
deals, ``dealt_twice``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Final

from engine.cards import ACE, BASE, JOKER_MASK, base_set, bits, build_deck
from engine.core import NO_CARD_TABLES, Option, register
from engine.deadwood import can_cover, can_reach
from engine.games.rummy._rummy import RummyGame, RummyState
from engine.melds import GroupRule, Item, RunRule, item_token, meld_candidates, pos_base
from engine.stock import ReformOptions

DEALS: Final = 10
DEALS_COMPETITION: Final = 6
SUBTOTAL_AFTER: Final = 5


def pips(b: int, ace_high: int) -> int:
    """J15/J3 opening value of natural base card ``b`` (ace ``ace_high`` unless low in a run)."""
    r = b % 13
    return ace_high if r == ACE else 10 if r >= 9 else r + 2


@dataclass(frozen=True)
class JokerenNLOptions(ReformOptions):
    """Jokeren's options (``JokerenNL.options_spec``), typed."""

    open50: bool = False
    competition: bool = False
    max_reforms: int | None = 3


class JokerenNLState(RummyState):
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "xs": "X's per seat: deals in which it went out (they break ties) (list[int])",
        "threshold": "the points a first meld must be worth to come out (int)",
    }
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md)
        "xs": "seat_nums:10", "threshold": "num:100",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    xs: list[int]
    """X's (deals won) per seat."""

    def _match_setup(self) -> None:
        self.xs = [0] * self.players

    def _deck(self) -> list[int]:
        if self.rg.opts(JokerenNLOptions).competition:
            # J1/J17: 3 jokers for 4 players, 2 for 3
            return build_deck(jokers=3 if self.players == 4 else 2, packs=2)
        return build_deck(jokers=4, packs=2)  # J1: 2 x 52 + 4 jokers

    # ----------------------------------------------------------------- values
    def ace_high(self) -> int:
        return 10 if self.rg.opts(JokerenNLOptions).competition else 11  # J15 / J17

    def threshold(self) -> int:
        return 50 if self.rg.opts(JokerenNLOptions).open50 else 40

    def meld_value(self, kind: str, items: list[Item], lo: int) -> int:
        """J3/J10/J15: a meld's opening points as laid."""
        hi = self.ace_high()
        total = 0
        for i, (c, nm) in enumerate(items):
            if nm is not None:
                total += 10  # J3: a joker counts 10
            else:
                b = BASE[c]
                total += 1 if b % 13 == ACE and kind == "run" and lo + i == 0 else pips(b, hi)
        return total

    def _cand_points(self, kind: str, nats: tuple[int, ...], lo: int, nj: int) -> int:
        hi = self.ace_high()
        return 10 * nj + sum(1 if b % 13 == ACE and kind == "run" and lo == 0 else pips(b, hi) for b in nats)

    def _turn_points(self) -> int:
        return sum(self.meld_value(m.kind, m.items, m.lo) for m in self.turn_laid)  # J10, J13

    # ----------------------------------------------------------------- opening rules
    def _may_layoff(self, seat: int, idx: int) -> bool:
        if not self.opened[seat]:
            return idx in self.turn_melds  # J13: opening turn, own new melds only
        return True

    def _may_swap(self, seat: int) -> bool:
        return self.opened[seat]  # J14: opened in an earlier turn (seed L53 "al is uitgekomen")

    def _turn_can_end(self, seat: int, going_out: bool) -> bool:
        if self.opened[seat] or not self.turn_melds:
            return True
        if self._turn_points() >= self.threshold():
            return True
        return self.rg.opts(JokerenNLOptions).open50 and going_out  # open50: less, by going out this turn

    # ----------------------------------------------------------------- J2 / J12: use at once
    def _may_take_discard(self, seat: int) -> bool:
        c = self.pile[-1]
        ok = self._usable_joker(seat) if BASE[c] >= 52 else self._usable(seat, BASE[c])
        if ok or not self.opened[seat]:
            return ok  # J12: the opening search is exact
        # J2: the quick tests refused; the exact search decides (jokers freed by further swaps,
        # lay-offs judged on the table after a swap, ...), unless it has no first move
        if self._no_first_move(seat, c):
            return False
        return self._usable_after(["draw discard"])

    def _no_first_move(self, seat: int, c: int) -> bool:
        """Sound refusal before the exact search: after drawing the natural ``c`` (the quick tests
        refused it, the seat has opened), :meth:`_search_moves` offers no first move, so the
        search finds nothing (the drawn card must be used, so the start is no goal).  False
        whenever unsure: a new meld with it is completable, it or a card of its suit could be
        laid off (a chain), a joker of the hand could be laid off onto a run of its suit, or a
        table joker names a card of the hand (a swap)."""
        hand0 = self.hands[seat]
        if self.must_use & hand0 or self.building or BASE[c] >= 52:
            return False
        if not self.turn_melds and self._permission_by_meld(seat):
            return False
        hand = hand0 | 1 << c
        b = BASE[c]
        s = b // 13
        limit = hand.bit_count() - self.keep()
        bases = base_set(hand)
        jokers = (hand & JOKER_MASK).bit_count()
        if self._completable([(b, None)], base_set(hand0), jokers, limit - 1):
            return False
        for i, m in enumerate(self.melds):
            if limit >= 0 and bases & m.joker_names():
                return False  # a swap
            if limit < 1:
                continue
            acc = m.acc
            if acc is None:
                acc = m.acc = self._accept_strings(m, i)
            nat, jks = acc
            if nat >> b & 1:
                return False  # a lay-off of it
            if limit >= 2 and m.kind == "run" and (nat or jks):
                first = BASE[m.items[0][0]] if m.items[0][1] is None else m.items[0][1]
                if first // 13 == s and (nat & bases or (jokers and jks)):
                    return False  # a chain onto a run of its suit
        return True

    def _usable_joker(self, seat: int) -> bool:
        """A joker from the discard pile: as a lay-off (opened) or in a new meld."""
        hand = self.hands[seat]
        n = hand.bit_count()
        keep = self.keep()
        bases = base_set(hand)
        jokers = (hand & JOKER_MASK).bit_count() + 1
        if self.opened[seat]:
            if n >= keep and any(as_j for m in self.melds for _, as_j, _ in self.accepts(m)):
                return True
            k = self._joker_meld_cost(bases, jokers - 1)
            return k is not None and n + 1 - (k + 1) >= keep
        return self._can_open(hand, -1, n + 1 - keep)

    def _usable(self, seat: int, b: int) -> bool:
        hand = self.hands[seat]
        n = hand.bit_count()
        keep = self.keep()
        if not self.opened[seat]:
            return self._can_open(hand, b, n + 1 - keep)  # J12
        bases = base_set(hand)
        jokers = (hand & JOKER_MASK).bit_count()
        if n >= keep:
            for m in self.melds:
                if any(x == b and not as_j for x, as_j, _ in self.accepts(m)):
                    return True  # a lay-off
            for i, m in enumerate(self.melds):
                if any(nm == b for _, nm in m.items) and self._joker_usable(seat, hand, n, i):
                    return True  # a swap, the freed joker laid again (J16)
        # a new meld with it
        if self._completable([(b, None)], bases, jokers, n - keep):
            return True
        return self._chain_layoff(b, bases, jokers, n + 1 - keep)

    def _chain_layoff(self, b: int, bases: int, jokers: int, budget: int) -> bool:
        """Lay-offs from the hand onto a run that reach ``b`` (the cards between laid first)."""
        s = b // 13
        rule = self.rg.rrule
        for m in self.melds:
            first = BASE[m.items[0][0]] if m.items[0][1] is None else m.items[0][1]
            if m.kind != "run" or first // 13 != s:
                continue
            lo, hi = m.lo, m.lo + len(m.items) - 1
            for p in ((0, 13) if b % 13 == ACE else (b % 13 + 1,)):
                if p > hi + 1:
                    gap = range(hi + 1, p)
                    end_joker = m.items[-1][1] is not None
                elif p < lo - 1:
                    gap = range(p + 1, lo)
                    end_joker = m.items[0][1] is not None
                else:
                    continue
                if (lo == 0 and p == 13) or (hi == 13 and p == 0):
                    continue
                jp = [q for q in gap if not bases >> pos_base(q, s) & 1]
                if len(gap) + 1 > budget or len(jp) > jokers:
                    continue
                if not rule.adjacent_jokers:
                    edge = hi + 1 if p > hi else lo - 1
                    if any(q + 1 in jp for q in jp) or (end_joker and edge in jp):
                        continue
                return True
        return False

    def _can_open(self, hand: int, b: int, budget: int) -> bool:
        """J12: can the player open this turn with the card ``b`` (-1: a joker) inside one of his
        opening melds, using at most ``budget`` cards of hand and card together?"""
        key = ("open", hand, b, budget, self.threshold(), self.ace_high(), self.out_allowed())
        cache = self.rg.cache
        hit = cache.get(key)
        if hit is not None:
            return bool(hit)
        # quick refusals: the card starts no meld, or the best cards cannot reach the threshold
        bases = base_set(hand)
        nj0 = (hand & JOKER_MASK).bit_count()
        if b >= 0 and not self._completable([(b, None)], bases, nj0, budget - 1):
            cache[key] = False
            return False
        hi = self.ace_high()
        # only cards that can stand in some meld count toward the bound
        starts = self._start_mask(bases | (1 << b if b >= 0 else 0), nj0 + (b < 0), budget)
        vals = sorted((pips(BASE[c], hi) if BASE[c] < 52 else 10 for c in bits(hand)
                       if BASE[c] >= 52 or starts >> BASE[c] & 1), reverse=True)
        top = sum(vals[:max(0, budget - 1)]) + (pips(b, hi) if b >= 0 else 10)
        if top < self.threshold() and not (self.rg.opts(JokerenNLOptions).open50 and self.out_allowed()):
            cache[key] = False
            return False
        counts: dict[int, int] = {}
        for c in bits(hand & ~JOKER_MASK):
            counts[BASE[c]] = counts.get(BASE[c], 0) + 1
        jokers = (hand & JOKER_MASK).bit_count()
        if b >= 0:
            counts[b] = counts.get(b, 0) + 1
        else:
            jokers += 1
        cands = meld_candidates(counts, jokers, self.rg.rrule, self.rg.srule, self._cand_points)
        with_b = [cd for cd in cands if (b in cd[0] if b >= 0 else cd[1] > 0)]
        ok = False
        need = self.threshold()
        for nats, nj, pts in with_b:
            size = len(nats) + nj
            if size > budget:
                continue
            for x in nats:
                counts[x] -= 1
            if can_reach(cands, counts, jokers - nj, budget - size, need - pts):
                ok = True
            for x in nats:
                counts[x] += 1
            if ok:
                break
        if not ok and self.rg.opts(JokerenNLOptions).open50 and self.out_allowed():
            # open50: going out this turn opens whatever the points (all cards but the discard)
            for nats, nj, _ in with_b:
                for x in nats:
                    counts[x] -= 1
                if can_cover(cands, counts, jokers - nj, 1):
                    ok = True
                for x in nats:
                    counts[x] += 1
                if ok:
                    break
        if len(cache) > 200_000:
            cache.clear()
        cache[key] = ok
        return ok

    def _took_discard(self, seat: int, c: int) -> None:
        self.must_use |= 1 << c  # J2: used at once

    # ----------------------------------------------------------------- events
    def _after_swap(self, seat: int, idx: int, c: int) -> None:
        self._emit("joker_swapped", seat=seat, meld=idx + 1, card=item_token((c, None)))

    def _after_turn(self, seat: int) -> None:
        if self.took_discard >= 0:  # J2: it is on the table now (the turn could not end before)
            self._emit("discard_pickup_used", seat=seat, card=item_token((self.took_discard, None)))
        if not self.opened[seat] and self.turn_melds:
            pts = self._turn_points()
            self.opened[seat] = True  # J14: once the opening turn has ended
            self._emit("opened", seat=seat, points=pts)
            if pts < self.threshold():
                self._emit("open_below_50_by_going_out", seat=seat, points=pts)

    # ----------------------------------------------------------------- deals and scoring
    def _next_dealer(self) -> int:
        if self.rg.opts(JokerenNLOptions).competition and self.players == 3 and self.deal_no == 1:
            return self.dealer  # J17: with 3 players seat 0 deals the first two deals
        return super()._next_dealer()

    def _deal_setup(self) -> None:
        if (self.rg.opts(JokerenNLOptions).competition and self.players == 3 and self.deal_no == 2
                and self.dealer == 0):
            self._emit("dealt_twice", seat=0)

    def _score_deal(self, winner: int | None) -> list[float]:
        if winner is not None:
            self.xs[winner] += 1  # the winner's X
        return [0.0 if s == winner else float(self.hands[s].bit_count()) for s in range(self.players)]

    def _after_deal(self, winner: int | None) -> None:
        if self.deal_no == SUBTOTAL_AFTER:
            self._emit("match_subtotal", after=SUBTOTAL_AFTER, totals=list(self.totals), xs=list(self.xs))

    def _match_over(self) -> bool:
        return self.deal_no >= (DEALS_COMPETITION if self.rg.opts(JokerenNLOptions).competition else DEALS)

    def ranking(self) -> list[int]:
        # J9: lowest total; more X's break a tie; still tied -> shared
        keys = [(self.totals[s], -self.xs[s]) for s in range(self.players)]
        return [1 + sum(1 for k in keys if k < keys[s]) for s in range(self.players)]

    def _observe(self, seat: int) -> dict[str, Any]:
        obs = super()._observe(seat)
        obs["xs"] = list(self.xs)
        obs["threshold"] = self.threshold()
        return obs

    def _invariants(self) -> list[str]:
        out = super()._invariants()
        if sum(self.xs) > len(self.sheet):
            out.append(f"{sum(self.xs)} X's in {len(self.sheet)} deals")
        for row in self.sheet:
            if any(p < 0 or p != int(p) for p in row):
                out.append(f"a deal row is not card counts: {row}")
        return out


class JokerenNL(RummyGame):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "draw stock", "draw discard", "meld CARD", "meld NAMED", "confirm", "layoff CARD 1..36",
        "layoff NAMED 1..36", "swap CARD 1..36", "takeback", "discard CARD|JK")
    id = "jokeren_nl"
    lower_score_wins = True
    name = "Jokeren (Dutch home and club rules)"
    seed_ref = "seed 002, section 'Jokeren' with 'Wedstrijdregels'; RULES.md 2.5"
    summary = ("2-4 players, 108 cards (4 jokers), 13 each, no up-card. Draw the top stock card (or "
               "the top discard if you use it at once), meld sets (3-4 of a rank, different suits) "
               "and runs (3+ of a suit, ace low or high, no two jokers side by side), lay off, "
               "discard. Your first melds total 40 (A 1/11, faces 10, joker 10); after that turn you "
               "may lay off anywhere and swap tabled jokers (re-used at once). Going out (discard "
               "your last card) from the dealer's first turn. The winner gets an X, the others "
               "score their card count. 10 deals; lowest total wins.")
    notation = ("draw stock\ndraw discard   (only if the card can be used at once)\n"
                "meld 7H   (one card of the meld being built)\nmeld JK=8H\nconfirm\nlayoff 8H 3\n"
                "layoff JK=8H 3\nswap 7H 3\ntakeback\ndiscard 5H")
    min_players = 2
    max_players = 4
    default_players = 4
    rule_events = ("opened", "open_below_50_by_going_out", "joker_swapped", "went_out", "dealt_twice",
                   "match_subtotal", "discard_pickup_used", "stock_reshuffled", "deal_without_winner")
    options_spec = (
        Option("open50", False, "Variant: the opening needs 50, or going out in the opening turn"),
        Option("competition", False, "J17: club rules: 3-4 players, 3/2 jokers, A 1 or 10, 6 deals, "
               "with 3 players seat 0 deals twice"),
        Option("max_reforms", 3, "X7: stock re-formings per deal; None = no limit",
               check=lambda v: v >= 0, nullable=True, max=1000),
    )
    options_type = JokerenNLOptions
    state_class = JokerenNLState
    tables = NO_CARD_TABLES  # no tricks, no card points
    run_rule: ClassVar[RunRule] = RunRule(min_len=3, ace_low=True, ace_high=True, min_naturals=1,
                                          adjacent_jokers=False)  # J4, J7
    set_rule: ClassVar[GroupRule] = GroupRule(min_size=3, max_size=4, distinct_suits=True, jokers=True)
    joker_reuse: ClassVar[str] = "any"  # J16: a new meld or a lay-off
    upcard: ClassVar[bool] = False  # J11

    def check_players(self, players: int | None) -> int:
        n = super().check_players(players)
        if self.opts(JokerenNLOptions).competition and n < 3:
            raise ValueError("jokeren_nl with competition=True takes 3 or 4 players (J17)")
        return n

    def deck(self) -> list[int]:
        return build_deck(jokers=4, packs=2)


register(JokerenNL)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
