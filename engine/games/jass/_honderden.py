"""Shared machinery of Honderden (RULES.md 2.18 ``honderden`` and 2.19 ``honderden_3p``).

Not a game: :class:`HonderdenState` plays both.  The two-player rules (32 cards, a stock with a
turned trump card, three phases) and the three-player rules (24 cards, no stock, follow rules from
the first trick) differ only in a few places, switched by :attr:`HonderdenState.three` (which the
three-player match turns off when it switches to the two-player rules, ``elimination``).

Tables ("10 low" Dutch jass, RULES.md "Common jass tables"): plain A K Q J 10 9 8 7, trump
J 9 A K Q 10 8 7; points Jas 20, Nel 14, A 11, K 3, Q 2, other J 1, 10 10 (141 + 5 for the last
trick = 146 per deal, 32 or 24 cards alike).  Melds (``declare`` with the cards, only in the first
trick): carre of A K Q 10 (100) or J (200, HO1), no carre of 9 8 7 (HO2); runs in the natural order
A K Q J 10 9 8 7 of 3 (20), 4 (50), 5 or more (100), at their full length.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards import RANKS, SUITS, TOKENS, bits, card, deck_24, deck_32, hand_tokens, mask_of
from engine.core import JSON
from engine.games.jass._jass import (
    CARRE,
    HONDERDEN_MELDS,
    HONDERDEN_RULE,
    RUN,
    SUIT_MASK,
    TEN_LOW,
    Meld,
    hand_melds,
    meld_action,
    meld_cards,
)
from engine.trickplay import TrickState
from engine.tricks import PLAY, mask_function

SEVEN, NINE, TEN, JACK, QUEEN, KING, ACE = 5, 7, 8, 9, 10, 11, 12
DECK32 = mask_of(deck_32())
DECK24 = mask_of(deck_24())
CARDS32: tuple[int, ...] = tuple(bits(DECK32))
CARDS24: tuple[int, ...] = tuple(bits(DECK24))
"""The card ids of each pack, lowest first: what a deal shuffles (made once, not per deal)."""

TABLE = TEN_LOW
"""The "10 low" jass table of ``engine.games.jass._jass`` (141 + 5)."""
RULE = HONDERDEN_RULE
"""Phase 3 (2p) and every trick (3p): ``engine.games.jass._jass.HONDERDEN_RULE``."""
STR = TABLE.strength_by_trump
LAST_TRICK = TABLE.last_trick
DEAL_POINTS = TABLE.deal_total()
"""141 card points + 5 for the last trick, in both decks (the 8s and 7s are worth 0)."""
JAN = 50
"""Below this running total the loser is "onder jan"."""

PLAY_CARD: dict[str, int] = {a: c for c, a in enumerate(PLAY)}
DEK = "declare dek"
DRAW_STOCK = "draw stock"


points = TABLE.card_points


# ----------------------------------------------------------------------------- melds
def meld_key(m: Meld, trump: int) -> tuple[int, int, int]:
    """HO14: more cards, then the higher top card (sequence order; a carre's rank), then a run in
    the trump suit (a carre is not "in trump"); equal keys: the earlier declaration stands."""
    return (m.length, m.top, 1 if m.kind == RUN and m.suit == trump else 0)


def meld_public(m: Meld) -> dict[str, JSON]:
    """What the announcement says before the cards are shown: 'carre' or '3 op de vrouw'."""
    if m.kind == CARRE:
        return {"kind": "carre"}
    return {"kind": "run", "length": m.length, "top": RANKS[m.top]}


def meld_shown(m: Meld) -> dict[str, JSON]:
    return {"kind": m.kind, "cards": meld_cards(m), "value": m.value}


def melds_in(hand: int) -> list[Meld]:
    """Every maximal run (3+ cards) and carre of A K Q J 10 in ``hand`` (HO1, HO2)."""
    return hand_melds(hand, None, HONDERDEN_MELDS)


# ----------------------------------------------------------------------------- state
@dataclass(frozen=True)
class HonderdenOptions:
    """The options both Honderden games have (their options types subclass it)."""

    target: int
    perfect_recall: bool = False


@dataclass(frozen=True)
class Honderden2Options(HonderdenOptions):
    """Honderden's options (``Honderden.options_spec``), typed."""

    target: int = 5
    lives: int | None = None


@dataclass(frozen=True)
class Honderden3Options(HonderdenOptions):
    """Honderden 3p's options (``Honderden3p.options_spec``), typed."""

    target: int = 5
    elimination: bool = False
    lives: int = 5


class HonderdenState(TrickState):
    """A Honderden match, two or three players (see the game modules for the rules)."""
    STOCK = True
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "hand": "your cards (list[card])",
        "dealer": "the seat that dealt this deal (int)",
        "active": "the seats playing this deal (list[int])",
        "trump": "the trump suit letter (str)",
        "upcard": "the trump card turned up under the stock, null once taken",
        "stock_size": "cards left in the stock (int)",
        "trick": "the current trick as [seat, card] pairs in play order",
        "last_trick": "the previous trick as [seat, card] pairs in play order",
        "trick_no": "the number of the trick being played, from 1 (int)",
        "hand_sizes": "cards held per seat (list[int])",
        "declarations": "melds declared this deal: dicts with `seat`, `kind`, `cards`, `value`",
        "stuk": "the seat that declared stuk (trump king and queen), null if none (int)",
        "known_cards": "other seats' cards you know (declared and still held), by seat as a string key "
            "(dict[str, list[card]])",
        "carried": "points carried over per seat (list[int])",
        "results": "the last five deals' points per seat (list[list[int]])",
        "game_points": "game points per seat, the match score (list[int])",
        "own_total": "your card and meld points in this deal so far (int)",
        "lives": "lives left per seat (list[int]); only with `lives`",
        "totals": "every seat's points in this deal so far (list[int]); only with `perfect_recall`",
        "played": "the cards already won in tricks this deal (list[card]); only with `perfect_recall`",
        "tricks_won": "tricks won per seat in this deal (list[int]); only with `perfect_recall`",
    }
    PHASES: ClassVar[tuple[str, ...]] = (  # engine.rl: every phase, "over" included
        "choose", "play", "over")
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md)
        "scores": "seat_nums:10", "hand": "cards", "dealer": "seat", "active": "seats",
        "trump": "choice:C|D|H|S", "upcard": "card", "stock_size": "num:32", "trick": "trick",
        "last_trick": "trick", "trick_no": "num:16", "hand_sizes": "seat_nums:16",
        "declarations": "by_seat_cards", "stuk": "seat", "known_cards": "seat_cards",
        "carried": "seat_nums:300", "game_points": "seat_nums:10", "own_total": "num:300",
        "lives": "seat_nums:10", "totals": "seat_nums:300", "played": "cards", "tricks_won": "seat_nums:16",
    }
    TENSOR_SKIP: ClassVar[dict[str, str]] = {  # engine.rl: keys the tensor leaves out, and why
        "results": "the last five deals' points per seat: their outcome is in `game_points` and `carried`",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    three: bool
    """Three-player rules (24 cards, no stock) for this deal."""
    act: list[int]
    """Active seats in play order."""
    upcard: int
    """The turned trump card lying by the stock (2p), or -1."""
    trump: int
    trick: list[int]
    tseats: list[int]
    last_trick: list[list[Any]]
    ntricks: int
    tricks_won: list[int]
    total: list[int]
    """Running totals (HO3): carried + card points + melds under 100 + Stuk."""
    carried: list[int]
    decls: list[tuple[int, tuple[Meld, ...]]]
    """Trick-1 declarations in order: (seat, melds).  The melds are a tuple, replaced (never
    appended to) when the seat declares again: a clone copies this list one level deep and
    shares the tuples."""
    rejected: set[int]
    meld_shown: bool
    stuk_seat: int
    public: list[int]
    """Cards everyone knows to be in each seat's hand (intersected with the hand when used)."""
    void: list[int]
    """Suit masks each seat is publicly known to hold nothing of."""
    gp: list[int]
    lives: list[int]
    kip_used: bool
    out_deal: list[int]
    """Deal in which each seat was eliminated (0: still in)."""
    deal_gp: list[int]
    deal_checks: list[int]
    results: list[list[int]]
    """Each finished deal's running totals at its end (public: earlier deals' results, HO7)."""

    # ------------------------------------------------------------------ setup
    def _setup(self, deal: dict[str, Any] | None) -> None:
        n = self.players
        self.three = n == 3
        self.act = list(range(n))
        self.gp = [0] * n
        start = self._start_lives()
        self.use_lives = start > 0
        self.lives = [start] * n
        self.kip_used = False
        self.out_deal = [0] * n
        self.carried = [0] * n
        self.deal_checks = []
        self.results = []
        self.deck_mask = DECK24 if self.three else DECK32
        self.deal_no = 1
        if deal is not None:
            self._inject(deal)
            return
        self.dealer = self.rng.randrange(n)  # HO13: the first dealer is drawn (a cut), not seat 0
        self._deal()

    def _start_lives(self) -> int:
        """Hook: lives each player starts with (0: no lives bookkeeping)."""
        return 0

    def _reset(self) -> None:
        n = self.players
        self.hands = [0] * n
        self.stock = []
        self.upcard = -1
        self.trick = []
        self.tseats = []
        self.wcard = self.wseat = -1
        self.last_trick = []
        self.ntricks = 0
        self.tricks_won = [0] * n
        self.won = [0] * n
        self.pts = [0] * n
        self.total = list(self.carried)
        self.decls = []
        self.rejected = set()
        self.meld_shown = False
        self.stuk_seat = -1
        self.public = [0] * n
        self.void = [0] * n
        self.deal_gp = [0] * n
        self.deck_mask = DECK24 if self.three else DECK32

    def _nxt(self, seat: int) -> int:
        a = self.act
        return a[(a.index(seat) + 1) % len(a)]

    def _deal(self) -> None:
        self._reset()
        r = self.rng.random  # once: ``rng`` is a property (the match RNG made on first use)
        deck = sorted(CARDS24 if self.three else CARDS32, key=lambda _: r())
        first = self._nxt(self.dealer)
        order = [first]
        while len(order) < len(self.act):
            order.append(self._nxt(order[-1]))
        packets = (3, 3, 2) if self.three else (3, 3, 3)
        pos = 0
        for size in packets:
            for s in order:
                for c in deck[pos:pos + size]:
                    self.hands[s] |= 1 << c
                pos += size
        rest = deck[pos:]
        if self.three:
            # the dealer's last card is turned for trump and stays his (HT8)
            self.trump = deck[pos - 1] // 13
            self.public[self.dealer] |= 1 << deck[pos - 1]
        else:
            self.upcard = rest[0]
            self.trump = rest[0] // 13
            self.stock = rest[1:]
        self._start_play()

    def _inject(self, deal: dict[str, Any]) -> None:
        """X6: take the injected first deal (the kernel's deal parser); play starts at the first
        card.  A test position (``"partial"``) still gives each hand its size."""
        n = self.players
        three = n == 3
        self._reset()
        size = 8 if three else 9
        d = self._read_hands(deal, [size] * n, stock="none" if three else "rest",
                             upcard="none" if three else "required",
                             extra=("trump_card",) if three else ())
        hands = d.hands
        dealer = self.dealer
        for i, h in enumerate(hands):
            if len(h) != size:
                raise ValueError(f"deal['hands'][{i}] has {len(h)} cards; each hand holds {size}")
        if self.three:
            tc = deal.get("trump_card")
            if tc is None:
                tc = hands[dealer][-1]  # HT8: else the dealer's last listed card
            c = card(tc)
            if not self.hands[dealer] >> c & 1:
                raise ValueError(f"deal['trump_card'] {tc} is not in the dealer's hand")
            self.trump = c // 13
            self.public[dealer] |= 1 << c
        else:
            up = deal.get("upcard")
            stock = deal.get("stock")
            if not isinstance(up, str) or not isinstance(stock, list) or len(stock) != 13:
                raise ValueError("deal needs 'upcard' (the turned trump card) and 'stock' "
                                 "(13 face-down cards, top first)")
            self.stock = [card(t) for t in stock]
            self.upcard = card(up)
            self.trump = self.upcard // 13
        self._start_play()

    def _start_play(self) -> None:
        self.phase = "play"
        self.turn = self._nxt(self.dealer)  # HO9: the non-dealer (voorhand) leads
        self._mask = mask_function(TABLE.order, RULE, self.trump)

    # ------------------------------------------------------------------ rules
    def _free(self) -> bool:
        """HO19: tricks 1-7 of the two-player game (stock phase) need not follow suit."""
        return not self.three and (self.upcard >= 0 or bool(self.stock))

    def _play_mask(self) -> int:
        hand = self.hands[self.turn]
        if not self.trick or self._free():
            return hand
        # HO19 phase 3 / HT9: follow suit or trump instead; void, any card; trump led, a trump
        return self._mask(hand, self.trick[0] // 13, self.wcard, False)

    def _melds_open(self, seat: int) -> list[Meld]:
        """Melds ``seat`` may still declare in the first trick."""
        if self.ntricks or any(s == seat for s, _ in self.decls[:-1]) or seat in self.tseats:
            return []
        mine = self.decls[-1][1] if self.decls and self.decls[-1][0] == seat else ()
        run_suits = {m.suit for m in mine if m.kind == "run"}
        have = {m.cards for m in mine}
        return [m for m in melds_in(self.hands[seat])
                if m.cards not in have and not (m.kind == "run" and m.suit in run_suits)]

    def _stuk_ready(self, seat: int) -> bool:
        km = 1 << (13 * self.trump + KING) | 1 << (13 * self.trump + QUEEN)
        return self.stuk_seat == seat or self.hands[seat] & km == km

    def _swap_card(self, seat: int) -> int:
        """HO15: the trump 7 the seat may swap for the turned card, or -1."""
        if self.three or self.upcard < 0:
            return -1
        seven = 13 * self.trump + SEVEN
        if self.upcard != seven and self.hands[seat] >> seven & 1:
            return seven
        return -1

    # ------------------------------------------------------------------ API hooks
    def _legal_actions(self) -> list[str]:
        seat = self.turn
        if self.phase == "choose":
            return [DRAW_STOCK, "draw " + TOKENS[self.upcard]]
        out = [PLAY[c] for c in bits(self._play_mask())]
        if not self.ntricks:
            out += [meld_action(m) for m in self._melds_open(seat)]
        s7 = self._swap_card(seat)
        if s7 >= 0:
            out.append("swap " + TOKENS[s7])
        if not self.three or self._stuk_ready(seat):
            out.append(DEK)  # HO12 / HT3: offered whatever the total
        return out

    def _apply(self, action: str) -> None:
        seat = self.turn
        if self.phase == "choose":
            self._last_choice(seat, action == DRAW_STOCK)
            return
        c = PLAY_CARD.get(action)
        if c is not None:
            self._play(seat, c)
        elif action == DEK:
            self._dek(seat)
        elif action.startswith("swap "):
            self._swap(seat)
        else:
            self._declare(seat, action)

    def _why_illegal(self, verb: str, args: tuple[str, ...]) -> str:
        if self.phase == "choose":
            return "the trick winner takes the last face-down card (draw stock) or the turned card"
        if verb == "declare" and args == ("dek",):
            return "HT3: only a player with Stuk (trump K and Q) may claim (dek)"
        if verb == "declare":
            return "HO10: melds only in the first trick, from your hand, one run per suit, each once"
        if verb == "swap":
            return "HO15: only the trump 7, while the turned card lies by the stock"
        if verb == "play" and args:
            return self._why_not_card(args[0])
        return ""

    def _why_not_held_card(self, c: int) -> str:
        return "follow suit or trump; when trump is led, play a trump if you have one (HO19, phase 3)"

    # ------------------------------------------------------------------ actions
    def _declare(self, seat: int, action: str) -> None:
        meld = next(m for m in self._melds_open(seat) if meld_action(m) == action)
        if self.decls and self.decls[-1][0] == seat:
            self.decls[-1] = (seat, (*self.decls[-1][1], meld))  # a new tuple: see ``decls``
        else:
            self.decls.append((seat, (meld,)))
        self._emit("meld_announced", seat=seat, **meld_public(meld))

    def _swap(self, seat: int) -> None:
        seven = self._swap_card(seat)
        up = self.upcard
        self.hands[seat] ^= (1 << seven) | (1 << up)
        self.public[seat] |= 1 << up
        self.upcard = seven
        self._emit("trump7_swap", seat=seat, card=TOKENS[up])

    def _play(self, seat: int, c: int) -> None:
        trump = self.trump
        hand = self.hands[seat]
        if self.trick and not self._free():
            # public inferences for determinize: not following (and not trumping) shows a void
            led = self.trick[0] // 13
            cs = c // 13
            if cs != led and (cs != trump or led == trump):
                self.void[seat] |= SUIT_MASK[led]
        # HO20: Stuk, 20 when its holder plays the first of trump K and Q while holding the other
        if c // 13 == trump and c % 13 in (KING, QUEEN) and self.stuk_seat < 0:
            other = 13 * trump + (QUEEN if c % 13 == KING else KING)
            if hand >> other & 1:
                self.stuk_seat = seat
                self.total[seat] += 20
                self._emit("stuk", seat=seat, card=TOKENS[c])
        self.hands[seat] = hand ^ (1 << c)
        st = STR[trump]
        if not self.trick:
            self.wcard, self.wseat = c, seat
        else:
            w = self.wcard
            if (c // 13 == w // 13 and st[c] > st[w]) or (c // 13 == trump and w // 13 != trump):
                self.wcard, self.wseat = c, seat
        self.trick.append(c)
        self.tseats.append(seat)
        if len(self.trick) < len(self.act):
            self.turn = self._nxt(seat)
            return
        self._trick_done()

    def _trick_done(self) -> None:
        taker = self.wseat
        m = 0
        for c in self.trick:
            m |= 1 << c
        p = points(m, self.trump)
        self.ntricks += 1
        self.won[taker] |= m
        self.tricks_won[taker] += 1
        self.last_trick = [[s, TOKENS[c]] for s, c in zip(self.tseats, self.trick, strict=True)]
        self.trick = []
        self.tseats = []
        last = not any(self.hands[s] for s in self.act) and not self.stock and self.upcard < 0
        if last:
            p += LAST_TRICK
        self.pts[taker] += p
        self.total[taker] += p
        self.turn = taker
        if self.ntricks == 1:
            self._score_melds()
        if last:
            self._played_out()
            return
        if not self.three and (self.stock or self.upcard >= 0):
            other = self._nxt(taker)
            if len(self.stock) >= 2:
                self.hands[taker] |= 1 << self.stock[0]
                self.hands[other] |= 1 << self.stock[1]
                del self.stock[:2]
            else:
                self.phase = "choose"  # HO16: the last face-down card or the turned card

    def _last_choice(self, seat: int, face_down: bool) -> None:
        other = self._nxt(seat)
        down, up = self.stock[0], self.upcard
        mine, theirs = (down, up) if face_down else (up, down)
        self.hands[seat] |= 1 << mine
        self.hands[other] |= 1 << theirs
        self.public[seat] |= 1 << mine  # HO16: the face-down card is shown whoever takes it
        self.public[other] |= 1 << theirs
        self.stock = []
        self.upcard = -1
        self._emit("last_stock_choice", seat=seat, took=TOKENS[mine], other=TOKENS[theirs],
                   shown=TOKENS[down])
        self._emit("phase_change", stage="stock_empty")
        self.phase = "play"

    def _score_melds(self) -> None:
        """HO11/HT5: a later declarer whose best meld beats an earlier declaration's best voids it;
        HO10: each meld worth 100 or more is a won deal (+1 game point), the others go to the
        running total."""
        trump = self.trump
        best = [max(meld_key(m, trump) for m in ms) for _, ms in self.decls]
        for j in range(len(self.decls)):
            for i in range(j):
                if best[j] > best[i] and i not in self.rejected:
                    self.rejected.add(i)
                    self._emit("meld_rejected", seat=self.decls[i][0], by=self.decls[j][0])
        for i, (seat, ms) in enumerate(self.decls):
            if i in self.rejected:
                continue
            for m in ms:
                self.public[seat] |= m.cards
                if m.value >= 100:
                    self._meld_100(seat, m)
                else:
                    self.total[seat] += m.value
        for i in self.rejected:  # the rejected cards are shown too
            seat, ms = self.decls[i]
            for m in ms:
                self.public[seat] |= m.cards
        self.meld_shown = True

    def _meld_100(self, seat: int, m: Meld) -> None:
        self.gp[seat] += 1
        self.deal_gp[seat] += 1
        self._emit("meld_100_deal_win", seat=seat, value=m.value, cards=meld_cards(m))
        if self.use_lives:
            for s in self.act:
                if s != seat:
                    self._lose_lives(s, 1)  # HO18: a 100-meld costs the opponent a life

    def _dek(self, seat: int) -> None:
        if self.three:
            if self.stuk_seat != seat:
                # HT3: a dek with the Stuk still in hand announces it: its 20 go into his running
                # total, right or wrong (so they count for onder jan)
                self.stuk_seat = seat
                self.total[seat] += 20
                self._emit("stuk", seat=seat, card=None, on_dek=True)
            right = self.total[seat] >= 100  # HT3: his total with the 20 of Stuk
            self._emit("dek_via_stuk", seat=seat, correct=right, total=self.total[seat])
            if right:
                self._win(seat, claimed=True)
                return
            # HT6: the other player with the higher running total; equal: next after the claimer
            others = [self._nxt(seat)]
            while len(others) < len(self.act) - 1:
                others.append(self._nxt(others[-1]))
            best = max(others, key=lambda s: (self.total[s], -others.index(s)))
            self._win(best, claimed=True)
            return
        right = self.total[seat] >= 100
        self._emit("ik_dek", seat=seat, result="correct" if right else "false",
                   total=self.total[seat])
        self._win(seat if right else self._nxt(seat), claimed=True)

    # ------------------------------------------------------------------ deal end
    def _record_check(self) -> None:
        left = 0
        for s in range(self.players):
            left |= self.hands[s]
        for c in self.stock:
            left |= 1 << c
        if self.upcard >= 0:
            left |= 1 << self.upcard
        for c in self.trick:
            left |= 1 << c
        rest = LAST_TRICK if left else 0
        self.deal_checks.append(sum(self.pts) + points(left, self.trump) + rest)

    def _played_out(self) -> None:
        act = self.act
        tot = self.total
        top = max(tot[s] for s in act)
        if top < 100:
            # nobody reached 100: the totals carry over (2p: same dealer; 3p: the deal rotates)
            self._emit("carry_over", totals=[tot[s] for s in range(self.players)])
            self.carried = list(tot)
            self._end_deal(next_dealer=self._nxt(self.dealer) if self.three else self.dealer)
            return
        leaders = [s for s in act if tot[s] == top]
        if len(leaders) > 1:
            # HO5/HO13: equal totals above 100, the same dealer replays from the carried totals
            self._emit("tie_replay", seats=leaders, total=top)
            self._end_deal(next_dealer=self.dealer)
            return
        self._win(leaders[0], claimed=False)

    def _win(self, w: int, claimed: bool) -> None:
        act = self.act
        losers = [s for s in act if s != w]
        under = [s for s in losers if self.total[s] < JAN]
        gp = 1
        for s in under:
            self._emit("onder_jan", seat=s, total=self.total[s])
        if self.three:
            if len(under) == 2:
                gp = 2  # HT1: doubled only if both others are under 50
                self._emit("double_both_under_jan", seat=w)
            if not claimed and self.tricks_won[w] == self.ntricks:
                if not any(self.carried):
                    gp = 3  # HT7: a pit in the first deal of a game: 3 game points in all
                    self._emit("pit", seat=w)
                else:
                    self._emit("pit_first_deal_only", seat=w)
        else:
            if under:
                gp += 1  # the loser under 50: one more game point
            if not claimed and self.tricks_won[w] == self.ntricks:
                gp += 1  # HO17: a pit only in a deal played out
                self._emit("pit", seat=w)
        self.gp[w] += gp
        self.deal_gp[w] += gp
        if self.use_lives:
            for s in losers:
                self._lose_lives(s, gp)
        self.carried = [0] * self.players
        # HO13: after a won deal the other player deals (3p: the deal rotates)
        self._end_deal(next_dealer=self._nxt(self.dealer))

    def _lose_lives(self, s: int, k: int) -> None:
        if self.out_deal[s]:
            return
        self.lives[s] -= k
        if self.lives[s] == 0 and not self.kip_used and len(self.act) == 2:
            self.kip_used = True  # HO18: the first to reach exactly 0 sits on the kip
            self.lives[s] = 1
            self._emit("op_de_kip", seat=s)

    def _end_deal(self, next_dealer: int) -> None:
        self._record_check()
        self.results.append(list(self.total))
        self.sheet.append([float(x) for x in self.deal_gp])
        if self.use_lives:
            for s in list(self.act):
                if self.lives[s] <= 0:
                    self.out_deal[s] = self.deal_no
            alive = [s for s in self.act if not self.out_deal[s]]
            if len(alive) <= 1:
                self._finish()
                return
            if len(alive) < len(self.act):
                if next_dealer not in alive:
                    next_dealer = min(alive, key=lambda s: (s - next_dealer) % self.players)
                self.act = alive
                if self.three and len(alive) == 2:
                    self.three = False  # HT4: continue as two-player Honderden
                    self.carried = [0] * self.players
                    self._emit("switch_to_2p", seats=alive)
        elif max(self.gp) >= self.game.opts(HonderdenOptions).target:
            self._finish()
            return
        if self._deals_done():
            self._finish()
            return
        self.deal_no += 1
        self.dealer = next_dealer
        self._deal()

    # ------------------------------------------------------------------ views
    def previous_trick(self) -> list[tuple[int, int]]:
        return [(s, card(t)) for s, t in self.last_trick]

    def scores(self) -> list[float]:
        if self.use_lives:
            return [float(x) for x in self.lives]
        return [float(x) for x in self.gp]

    def ranking(self) -> list[int]:
        if self.use_lives:
            # survivors first, then later eliminations before earlier ones, then more lives
            key = [(0 if not self.out_deal[s] else -10_000 + self.out_deal[s], self.lives[s])
                   for s in range(self.players)]
            return [1 + sum(1 for k in key if k > key[s]) for s in range(self.players)]
        return [1 + sum(1 for g in self.gp if g > self.gp[s]) for s in range(self.players)]

    def _decl_view(self, viewer: int) -> list[dict[str, JSON]]:
        out: list[dict[str, JSON]] = []
        for i, (seat, ms) in enumerate(self.decls):
            for m in ms:
                if self.meld_shown:
                    d = meld_shown(m)
                    d["rejected"] = i in self.rejected
                elif seat == viewer:
                    d = meld_shown(m)
                else:
                    d = meld_public(m)
                d["seat"] = seat
                out.append(d)
        return out

    def _observe(self, seat: int) -> dict[str, JSON]:
        recall = self.game.opts(HonderdenOptions).perfect_recall
        known = {str(s): hand_tokens(self.public[s] & self.hands[s])
                 for s in range(self.players) if s != seat and self.public[s] & self.hands[s]}
        obs: dict[str, JSON] = {
            "hand": hand_tokens(self.hands[seat]),
            "dealer": self.dealer,
            "active": list(self.act),
            "trump": SUITS[self.trump],
            "upcard": TOKENS[self.upcard] if self.upcard >= 0 else None,
            "stock_size": len(self.stock),
            "trick": [[s, TOKENS[c]] for s, c in zip(self.tseats, self.trick, strict=True)],
            "last_trick": self.last_trick,
            "trick_no": self.ntricks + 1,
            "hand_sizes": [h.bit_count() for h in self.hands],
            "declarations": self._decl_view(seat),
            "stuk": self.stuk_seat if self.stuk_seat >= 0 else None,
            "known_cards": known,
            "carried": list(self.carried),
            "results": [list(r) for r in self.results[-5:]],
            "game_points": list(self.gp),
            "own_total": self.total[seat],
        }
        if self.use_lives:
            obs["lives"] = list(self.lives)
        if recall:  # HO7: the deal's running totals and earlier tricks only with perfect recall
            obs["totals"] = list(self.total)
            obs["played"] = hand_tokens(self._played())
            obs["tricks_won"] = list(self.tricks_won)
        return obs

    def _played(self) -> int:
        m = 0
        for w in self.won:
            m |= w
        return m

    # ------------------------------------------------------------------ the kernel's hooks
    def _trick_cards(self) -> int:
        return mask_of(self.trick)

    def _pile_zones(self) -> dict[str, int]:
        return {"stock": self._stock_mask(), "upcard": (1 << self.upcard) if self.upcard >= 0 else 0}

    def _public(self, seat: int) -> int:
        return self.public[seat]

    def _invariants(self) -> list[str]:
        out = [f"deal {i + 1}: {t} points won or left, expected {DEAL_POINTS}"
               for i, t in enumerate(self.deal_checks) if t != DEAL_POINTS]
        if not self._over and self.phase in ("play", "choose"):
            left = 0
            for s in range(self.players):
                left |= self.hands[s]
            for c in self.stock + self.trick:
                left |= 1 << c
            if self.upcard >= 0:
                left |= 1 << self.upcard
            have = sum(self.pts) + points(left, self.trump) + (LAST_TRICK if left else 0)
            if have != DEAL_POINTS:
                out.append(f"deal {self.deal_no}: {have} card points won or still out, "
                           f"expected {DEAL_POINTS}")
        return out

    # ------------------------------------------------------------------ determinize
    def _redeal_forbid(self, holders: list[int]) -> list[int]:
        return [self.void[s] for s in holders]

