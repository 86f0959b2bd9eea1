"""Handjas (Swiss Handjass), 2 to 5 players, each for himself. Seed 003 L106-147; RULES.md 2.11 and
the "Common jass tables". Decisions followed: HJ1-HJ21 (and X1-X6).

* 36 cards (6-A). Trump J 20 > 9 14 > A 11 > K 4 > Q 3 > 10 10 > 8 > 7 > 6; plain A 11 > K 4 >
  Q 3 > J 2 > 10 10 > 9 > 8 > 7 > 6; last trick 5 (157 with all cards in play).  Seats are numbered
  in the direction of play (anticlockwise at the table); X1: seat 0 deals first, then the next seat.
* Deal 9 each (3x3x3), voorhand first.  2 players: also a dead hand (its top card is turned for
  trump and stays there, HJ6/HJ7/HJ21) and an extra hand.  3 players: the 9 cards left are the extra
  hand, its top card turned for trump.  4 players: the dealer's last card is turned (and stays his).
  5 players (HJ5): the dealer sits out (``sat_out``); the achterhand (the last active player, on the
  dealer's left) turns his last card.
* 2/3 players, before play (HJ12): (1) the holder of the trump 6 may ``swap 6X`` it for the turned
  card (``pass`` declines); the 6 takes the turned card's place.  (2) In playing order from
  voorhand each player may ``exchange`` his hand for the extra hand (binding; ``pass`` declines); the
  first who does ends this step and his old hand becomes the extra hand.  A trump 6 got this way is
  not swapped.
* Melds (HJ13, HJ14), every player count: one round from voorhand; a player announces melds with
  ``declare`` and their cards (a run at full length, highest first; a carre in suit order C D H S),
  one action per meld, and ends with ``pass``.  The melds are shown to all when the round is over.
  Values: runs of 3-9 = 20 50 100 150 200 250 300; every carre 100, nines 150, jacks 200 (HJ11;
  option ``swiss_carres``: only A K Q 10 9 J).  Players compare their best single meld (value, then
  cards, then top card, then a run in trump, then the earlier announcement); the winner scores all
  his melds (``meld_winner``).  HJ8/HJ15: Stuk (trump K + Q) scores 20 to its holder when play
  starts, automatically (``stuk_scored``).
* Play: voorhand leads.  Follow suit or trump; never undertrump (HJ1: trumping a plain lead after
  a trump, beat it or do not trump, unless you hold only trumps, ``undertrump_blocked``); void: trump
  (over) or discard.  Trump led (HJ10/HJ20): play a trump higher than the best in the trick if you
  can, else any trump (option ``trump_lead_overtrump=False``: any trump); a bare Jas may be kept back
  (``bare_jas_held``).  The rule is ``engine.games.jass._jass.HANDJAS_RULE`` (option off:
  ``engine.games.jass._jass.HANDJAS_SWISS_RULE``).
* Deal score: total = card points (+5 last trick) + melds + Stuk.  Strokes (HJ4, HJ16): with four
  active players everyone whose total is >= the second-highest total; with 2-3 players (or
  ``single_winner``) the highest total (ties share).  Potato (HJ2, HJ19): card points below
  ``jan_limit`` (22: 21 or less); every other active player gets a stroke per potato (HJ17).  HJ18:
  a player's strokes first cancel his potatoes of earlier deals (``potato_cancelled``).  Net
  strokes = strokes - potatoes; the match ends after the deal in which someone reaches ``target``
  (7, HJ3); ``scores()`` are net strokes.

Rule events (``handjas.<name>``): ``hand_exchanged``, ``trump6_swapped``, ``meld_winner``,
``stuk_scored``, ``bare_jas_held``, ``undertrump_blocked``, ``potato``, ``potato_cancelled``,
``sat_out``.

Injected deal (X6, HJ21): ``{"dealer": 0, "hands": [[9 tokens] x n]}`` (5 players: the dealer's hand
``[]``), with ``"dead_hand"`` (2p) and ``"extra_hand"`` (2p/3p), and optionally ``"trump_card"``;
play starts at the trump-6 swap, the exchange or the meld round.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards import SUITS, TOKENS, bits, card, deck_36, hand_tokens, mask_of
from engine.core import JSON, CardTables, Game, Option, register
from engine.deal import check_sizes
from engine.games.jass._jass import (
    HANDJAS,
    HANDJAS_MELDS,
    HANDJAS_RULE,
    HANDJAS_SWISS_MELDS,
    HANDJAS_SWISS_RULE,
    JACK,
    KING,
    QUEEN,
    SUIT_MASK,
    Meld,
    hand_melds,
    key_value_cards_top,
    meld_action,
    meld_cards,
)
from engine.trickplay import TrickState, token_mask, voids_shown
from engine.tricks import PLAY, mask_function, play_list

DECK = mask_of(deck_36())
SIX = 4
ORDER = HANDJAS.order
STR = HANDJAS.strength_by_trump
LAST = HANDJAS.last_trick
PLAY_CARD: dict[str, int] = {a: c for c, a in enumerate(PLAY)}
SWAP: tuple[str, ...] = tuple("swap " + TOKENS[c] for c in range(52))


points = HANDJAS.card_points


def deal_strokes(total: list[int], card_points: list[int], active: list[int], single_winner: bool,
                 jan_limit: int) -> tuple[list[int], list[int]]:
    """(strokes won, potatoes) per seat for one deal.

    HJ16: with four active players everyone at or above the second-highest total scores a stroke;
    HJ4: otherwise (or ``single_winner``) the highest total, ties sharing.  HJ2/HJ19: card points
    below ``jan_limit`` are a potato; HJ17: every other active player scores a stroke per potato.

    >>> deal_strokes([60, 60, 50, 30], [60, 60, 50, 30], [0, 1, 2, 3], False, 22)
    ([1, 1, 0, 0], [0, 0, 0, 0])
    >>> deal_strokes([60, 50, 50, 30], [60, 50, 50, 30], [0, 1, 2, 3], False, 22)
    ([1, 1, 1, 0], [0, 0, 0, 0])
    """
    n = len(total)
    ranked = sorted((total[s] for s in active), reverse=True)
    cut = ranked[1] if len(active) == 4 and not single_winner else ranked[0]
    won = [0] * n
    pot = [0] * n
    for s in active:
        if total[s] >= cut:
            won[s] += 1
    for s in active:
        if card_points[s] < jan_limit:
            pot[s] = 1
            for o in active:
                if o != s:
                    won[o] += 1
    return won, pot


@dataclass(frozen=True)
class HandjasOptions:
    """Handjas's options (``Handjas.options_spec``), typed."""

    target: int = 7
    single_winner: bool = False
    jan_limit: int = 22
    trump_lead_overtrump: bool = True
    swiss_carres: bool = False


class HandjasState(TrickState):
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "hand": "your cards (list[card])",
        "dealer": "the seat that dealt this deal (int)",
        "active": "the seats playing this deal, in playing order (list[int])",
        "sitting_out": "the seat that sits out this deal (the dealer with 5 players), else null",
        "trump": "the trump suit letter (str)",
        "turned_card": "the card turned up for trump (card)",
        "turned_card_in": "where the turned card is: `hand` (the dealer's), `extra_hand` or `dead_hand`",
        "extra_hand_taken_by": "the seat that took the extra hand, null if none (int)",
        "extra_hand": "the extra hand's cards, shown only to the seat that took it, else null (list[card])",
        "known_cards": "other seats' cards you have seen (shown melds, the turned card), by seat as a "
            "string key (dict[str, list[card]])",
        "my_melds": "your declared melds, each a list of cards (list[list[card]])",
        "melds": "every seat's declared melds by seat (string key), once the melds are shown, else null",
        "meld_scores": "meld points per seat in this deal (list[int])",
        "stuk": "the seat that announced stuk (trump king and queen), null if none (int)",
        "trick": "the current trick as [seat, card] pairs in play order",
        "last_trick": "the previous trick as [seat, card] pairs in play order",
        "played": "every card played in this deal, in order (list[card])",
        "hand_sizes": "cards held per seat (list[int])",
        "points_won": "card points won per seat in this deal (list[int])",
        "strokes": "strokes (match marks) per seat (list[int])",
        "potatoes": "potatoes (penalty marks) per seat (list[int])",
    }
    PHASES: ClassVar[tuple[str, ...]] = (  # engine.rl: every phase, "over" included
        "swap", "exchange", "meld", "play", "over")
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md)
        "scores": "seat_nums:10", "hand": "cards", "dealer": "seat", "active": "seats", "sitting_out": "seat",
        "trump": "choice:C|D|H|S", "turned_card": "card",
        "turned_card_in": "choice:hand|extra_hand|dead_hand", "extra_hand_taken_by": "seat",
        "extra_hand": "cards", "known_cards": "seat_cards", "my_melds": "cards", "melds": "seat_cards",
        "meld_scores": "seat_nums:300", "stuk": "seat", "trick": "trick", "last_trick": "trick",
        "played": "cards", "hand_sizes": "seat_nums:12", "points_won": "seat_nums:157",
        "strokes": "seat_nums:10", "potatoes": "seat_nums:10",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    act: list[int]
    """Active seats in play order (voorhand first)."""
    dead: int
    extra: int
    turned: int
    trump: int
    queue: list[int]
    """Seats still to act in the current pre-play step."""
    decl: dict[int, list[Meld]]
    melds_open: bool
    meld_scores: list[int]
    stuk_seat: int
    public: list[int]
    extra_known: int
    """Seat that knows the extra hand (its old hand after an exchange), or -1."""
    trick: list[int]
    tseats: list[int]
    last_trick: list[list[Any]]
    ntricks: int
    inplay: int
    strokes: list[int]
    potatoes: list[int]
    """Uncancelled potatoes of each seat."""
    net: list[int]
    checks: list[tuple[int, int]]

    # ------------------------------------------------------------------ setup
    def _setup(self, deal: dict[str, Any] | None) -> None:
        n = self.players
        opts = self.game.opts(HandjasOptions)
        self.deck_mask = DECK
        self.strokes = [0] * n
        self.potatoes = [0] * n
        self.net = [0] * n
        self.checks = []
        self._rule = HANDJAS_RULE if opts.trump_lead_overtrump else HANDJAS_SWISS_RULE  # HJ10
        self._values = HANDJAS_SWISS_MELDS if opts.swiss_carres else HANDJAS_MELDS  # HJ11
        self.deal_no = 1
        self.dealer = 0  # X1
        if deal is not None:
            self._inject(deal)
        else:
            self._deal()

    def _reset(self) -> None:
        n = self.players
        self.hands = [0] * n
        self.dead = self.extra = 0
        self.turned = -1
        self.queue = []
        self.decl = {}
        self.melds_open = False
        self.meld_scores = [0] * n
        self.stuk_seat = -1
        self.public = [0] * n
        self.extra_known = -1
        self.trick = []
        self.tseats = []
        self.wcard = -1
        self.last_trick = []
        self.ntricks = 0
        self.won = [0] * n
        self.pts = [0] * n
        self.inplay = 0
        self.plays = []
        d = self.dealer
        if n == 5:
            # HJ5: the dealer sits out; play starts on his right (the next seat in play order)
            self.act = [(d + i) % 5 for i in range(1, 5)]
            self._emit("sat_out", seat=d)
        else:
            self.act = [(d + i) % n for i in range(1, n + 1)]

    def _deal(self) -> None:
        self._reset()
        r = self.rng.random  # once: ``rng`` is a property (the match RNG made on first use)
        deck = sorted(bits(DECK), key=lambda _: r())
        n = self.players
        holders: list[int] = list(self.act) + ([-1, -2] if n == 2 else [])
        got: dict[int, list[int]] = {h: [] for h in holders}
        pos = 0
        for _ in range(3):
            for h in holders:
                got[h] += deck[pos:pos + 3]
                pos += 3
        for s in self.act:
            self.hands[s] = mask_of(got[s])
        if n == 2:
            self.dead = mask_of(got[-1])
            self.extra = mask_of(got[-2])
            self.turned = got[-1][0]  # HJ21: the top card of the dead hand
        elif n == 3:
            rest = deck[pos:]
            self.extra = mask_of(rest)
            self.turned = rest[0]  # the top card of the extra hand
        else:
            holder = self.dealer if n == 4 else self.act[-1]  # HJ5: 5p, the achterhand
            self.turned = got[holder][-1]
            self.public[holder] |= 1 << self.turned  # HJ7: it stays his
        self.trump = self.turned // 13
        self._begin()

    def _inject(self, deal: dict[str, Any]) -> None:
        """X6 (the kernel's deal parser): ``dealer``, ``hands`` (9 cards a seat in play, the sitting
        dealer's empty), the two-player ``dead_hand`` and ``extra_hand``, the three-player
        ``extra_hand``, and ``trump_card`` (where the turned card lies, HJ21); a test position
        (``"partial"``) still gives every hand its size."""
        n = self.players
        zones = ("dead_hand", "extra_hand") if n == 2 else ("extra_hand",) if n == 3 else ()
        d = self._read_hands(deal, None, zones=zones, extra=("trump_card",))
        masks = self.hands
        dealer = self.dealer
        self._reset()
        sizes = [9 if s in self.act else 0 for s in range(n)]
        check_sizes(d, sizes)  # HJ5: 5 players, the dealer's empty
        for s in range(n):
            if len(d.hands[s]) != sizes[s]:
                raise ValueError(f"deal['hands'][{s}] must list {sizes[s]} card tokens")
        self.hands = masks

        def zone(key: str) -> int:
            toks = d.zones.get(key)
            if toks is None or len(toks) != 9:
                raise ValueError(f"deal['{key}'] must list 9 card tokens")
            return token_mask(toks)

        seen = 0
        for m in masks:
            seen |= m
        tc = deal.get("trump_card")
        if n == 2:
            self.dead = zone("dead_hand")
            self.extra = zone("extra_hand")
            first, where = deal["dead_hand"][0], self.dead
        elif n == 3:
            self.extra = zone("extra_hand")
            first, where = deal["extra_hand"][0], self.extra
        else:
            holder = dealer if n == 4 else self.act[-1]
            first, where = d.hands[holder][-1], self.hands[holder]
        if seen | self.dead | self.extra != DECK:
            raise ValueError("the injected deal must place all 36 cards")
        c = card(tc if tc is not None else first)
        if not where >> c & 1:
            raise ValueError(f"deal['trump_card'] {tc} is not where the turned card lies (HJ21)")
        self.turned = c
        if n >= 4:
            self.public[dealer if n == 4 else self.act[-1]] |= 1 << c
        self.trump = c // 13
        self._begin()

    # ------------------------------------------------------------------ phases
    def _begin(self) -> None:
        n = self.players
        if n <= 3:
            six = 13 * self.trump + SIX
            holder = next((s for s in self.act if self.hands[s] >> six & 1), -1)
            if holder >= 0 and self.turned != six:
                self.phase = "swap"
                self.turn = holder
                return
            self._start_exchange()
            return
        self._start_melds()

    def _start_exchange(self) -> None:
        self.phase = "exchange"
        self.queue = list(self.act)  # HJ6/HJ12: in playing order from voorhand
        self.turn = self.queue.pop(0)

    def _start_melds(self) -> None:
        self.phase = "meld"
        self.queue = list(self.act)  # HJ9: voorhand first
        self.turn = self.queue.pop(0)

    def _next_in_queue(self, then: str) -> None:
        if self.queue:
            self.turn = self.queue.pop(0)
        elif then == "melds":
            self._start_melds()
        else:
            self._start_play()

    def _melds_of(self, seat: int) -> list[Meld]:
        have = {m.cards for m in self.decl.get(seat, [])}
        return [m for m in hand_melds(self.hands[seat], self.trump, self._values) if m.cards not in have]

    def _start_play(self) -> None:
        self._score_melds()
        t = self.trump
        kq = 1 << (13 * t + KING) | 1 << (13 * t + QUEEN)
        for s in self.act:
            if self.hands[s] & kq == kq:
                # HJ8/HJ15: Stuk scores 20 for its holder, automatically, when play starts
                self.stuk_seat = s
                self.public[s] |= kq
                self._emit("stuk_scored", seat=s, value=20)
        m = 0
        for s in self.act:
            m |= self.hands[s]
        self.inplay = points(m, t)
        self.phase = "play"
        self.turn = self.act[0]
        self._lmf = mask_function(ORDER, self._rule, t)

    def _score_melds(self) -> None:
        """HJ13: the best single meld (value, cards, top card, run in trump; then the earlier
        announcement) wins; its holder scores every meld he announced."""
        self.melds_open = True
        best: tuple[int, ...] | None = None
        winner = -1
        for s in self.act:  # in announcement order: a later equal meld does not win
            for m in self.decl.get(s, []):
                k = key_value_cards_top(m, self.trump)
                if best is None or k > best:
                    best, winner = k, s
            for m in self.decl.get(s, []):
                self.public[s] |= m.cards
        if winner >= 0:
            v = sum(m.value for m in self.decl[winner])
            self.meld_scores[winner] = v
            self._emit("meld_winner", seat=winner, value=v)

    # ------------------------------------------------------------------ API hooks
    def _legal_actions(self) -> list[str]:
        ph = self.phase
        if ph == "play":
            return play_list(self._mask())
        if ph == "swap":
            return [SWAP[13 * self.trump + SIX], "pass"]
        if ph == "exchange":
            return ["exchange", "pass"]
        return [meld_action(m) for m in self._melds_of(self.turn)] + ["pass"]

    def _mask(self) -> int:
        hand = self.hands[self.turn]
        if not self.trick:
            return hand
        return self._lmf(hand, self.trick[0] // 13, self.wcard, False)

    def _apply(self, action: str) -> None:
        ph = self.phase
        seat = self.turn
        if ph == "play":
            self._play(seat, PLAY_CARD[action])
        elif ph == "swap":
            if action != "pass":
                six = 13 * self.trump + SIX
                up = self.turned
                self.hands[seat] ^= (1 << six) | (1 << up)
                self.public[seat] |= 1 << up
                if self.players == 2:
                    self.dead ^= (1 << six) | (1 << up)
                else:
                    self.extra ^= (1 << six) | (1 << up)
                self.turned = six
                self._emit("trump6_swapped", seat=seat, card=TOKENS[up])
            self._start_exchange()
        elif ph == "exchange":
            if action == "exchange":
                old = self.hands[seat]
                self.hands[seat] = self.extra
                self.extra = old
                self.extra_known = seat
                # the turned card (3p) or the 6 that took its place goes along, known to all
                if self.hands[seat] >> self.turned & 1:
                    self.public[seat] |= 1 << self.turned
                self._emit("hand_exchanged", seat=seat, extra=True)
                self.queue = []
                self._start_melds()
            else:
                self._next_in_queue("melds")
        else:
            if action == "pass":
                self._next_in_queue("play")
            else:
                meld = next(m for m in self._melds_of(seat) if meld_action(m) == action)
                self.decl.setdefault(seat, []).append(meld)

    def _why_illegal(self, verb: str, args: tuple[str, ...]) -> str:
        if self.phase != "play":
            return f"now the {self.phase} step (HJ12, HJ14): " + {
                "swap": "the trump-6 holder swaps it for the turned card or passes",
                "exchange": "each player in turn may exchange his hand for the extra hand or pass",
                "meld": "announce your melds (declare and the cards) and pass"}[self.phase]
        if verb == "play" and args:
            return self._why_not_card(args[0])
        return ""

    def _why_not_held_card(self, c: int) -> str:
        return ("HJ1/HJ10/HJ20: follow suit or trump, never undertrump; trump led, a higher trump if "
                "you can (a bare Jas may be kept)")

    # ------------------------------------------------------------------ play
    def _play(self, seat: int, c: int) -> None:
        t = self.trump
        hand = self.hands[seat]
        if self.trick:
            led = self.trick[0] // 13
            tm = SUIT_MASK[t]
            legal = self._mask()
            if led == t:
                if hand & tm == 1 << (13 * t + JACK) and c // 13 != t:
                    self._emit("bare_jas_held", seat=seat, card=TOKENS[c])
            elif self.wcard // 13 == t and hand & tm & ~legal:
                self._emit("undertrump_blocked", seat=seat, card=TOKENS[c])  # HJ1
        self.hands[seat] = hand ^ (1 << c)
        self.plays.append(seat << 6 | c)
        if not self.trick:
            self.wcard = c
            self.wseat = seat
        else:
            w = self.wcard
            st = STR[t]
            if (c // 13 == w // 13 and st[c] > st[w]) or (c // 13 == t and w // 13 != t):
                self.wcard, self.wseat = c, seat
        self.trick.append(c)
        self.tseats.append(seat)
        if len(self.trick) < len(self.act):
            a = self.act
            self.turn = a[(a.index(seat) + 1) % len(a)]
            return
        taker = self.wseat
        m = 0
        for x in self.trick:
            m |= 1 << x
        p = points(m, t)
        self.won[taker] |= m
        self.ntricks += 1
        self.last_trick = [[s, TOKENS[x]] for s, x in zip(self.tseats, self.trick, strict=True)]
        self.trick = []
        self.tseats = []
        done = not any(self.hands[s] for s in self.act)
        if done:
            p += LAST
        self.pts[taker] += p
        self.turn = taker
        if done:
            self._deal_over()

    # ------------------------------------------------------------------ scoring
    def _deal_over(self) -> None:
        opts = self.game.opts(HandjasOptions)
        act = self.act
        n = self.players
        self.checks.append((sum(self.pts), self.inplay + LAST))
        total = [self.pts[s] + self.meld_scores[s] + (20 if self.stuk_seat == s else 0)
                 for s in range(n)]
        won, new_pot = deal_strokes(total, self.pts, act, opts.single_winner, opts.jan_limit)
        for s in act:
            if new_pot[s]:
                self._emit("potato", seat=s, points=self.pts[s])
        row = [0.0] * n
        for s in act:
            k = min(self.potatoes[s], won[s])  # HJ18: strokes first cancel earlier potatoes
            for _ in range(k):
                self._emit("potato_cancelled", seat=s)
            self.potatoes[s] -= k
            self.strokes[s] += won[s] - k
            self.potatoes[s] += new_pot[s]
            self.net[s] += won[s] - new_pot[s]
            row[s] = float(won[s] - new_pot[s])
        self.sheet.append(row)
        if max(self.net) >= opts.target or self._deals_done():  # HJ3
            self._finish()
            return
        self.deal_no += 1
        self.dealer = (self.dealer + 1) % n
        self._deal()

    # ------------------------------------------------------------------ views
    def previous_trick(self) -> list[tuple[int, int]]:
        return [(s, card(t)) for s, t in self.last_trick]

    def scores(self) -> list[float]:
        return [float(x) for x in self.net]

    def ranking(self) -> list[int]:
        return [1 + sum(1 for x in self.net if x > self.net[s]) for s in range(self.players)]

    def _observe(self, seat: int) -> dict[str, JSON]:
        known = {str(s): hand_tokens(self.public[s] & self.hands[s])
                 for s in range(self.players) if s != seat and self.public[s] & self.hands[s]}
        turned_out = self.turned >= 0 and (self.dead | self.extra) >> self.turned & 1
        obs: dict[str, JSON] = {
            "hand": hand_tokens(self.hands[seat]),
            "dealer": self.dealer,
            "active": list(self.act),
            "sitting_out": self.dealer if self.players == 5 else None,
            "trump": SUITS[self.trump],
            "turned_card": TOKENS[self.turned],
            "turned_card_in": ("dead_hand" if self.players == 2 and turned_out else
                               "extra_hand" if turned_out else "hand"),
            "extra_hand_taken_by": self.extra_known if self.extra_known >= 0 else None,
            "extra_hand": hand_tokens(self.extra) if self.extra_known == seat else None,
            "known_cards": known,
            "my_melds": [meld_cards(m) for m in self.decl.get(seat, [])],
            "melds": ({str(s): [meld_cards(m) for m in ms] for s, ms in self.decl.items()}
                      if self.melds_open else None),
            "meld_scores": list(self.meld_scores),
            "stuk": self.stuk_seat if self.stuk_seat >= 0 else None,
            "trick": [[s, TOKENS[c]] for s, c in zip(self.tseats, self.trick, strict=True)],
            "last_trick": self.last_trick,
            "played": [TOKENS[p & 63] for p in self.plays],
            "hand_sizes": [h.bit_count() for h in self.hands],
            "points_won": list(self.pts),
            "strokes": list(self.strokes),
            "potatoes": list(self.potatoes),
        }
        return obs

    # ------------------------------------------------------------------ the kernel's hooks
    def _trick_cards(self) -> int:
        return mask_of(self.trick)

    def _pile_zones(self) -> dict[str, int]:
        return {"dead": self.dead, "extra": self.extra}

    def _public(self, seat: int) -> int:
        return self.public[seat]

    def _face_down(self, viewer: int) -> int:
        return (self.dead | self.extra) & ~self._known_out(viewer)

    def _known_out(self, viewer: int) -> int:
        """Cards of the dead and extra hands that ``viewer`` knows."""
        k = 0
        if self.turned >= 0:
            k |= 1 << self.turned  # the turned card (or the 6 in its place) lies face up
        if self.extra_known == viewer:
            k |= self.extra
        return k

    def _invariants(self) -> list[str]:
        out = [f"deal {i + 1}: {got} card points taken, expected {want} (cards in play + 5)"
               for i, (got, want) in enumerate(self.checks) if got != want]
        if self.phase == "play" and not self._over:
            left = 0
            for s in self.act:
                left |= self.hands[s]
            for c in self.trick:
                left |= 1 << c
            have = sum(self.pts) + points(left, self.trump) + LAST
            if have != self.inplay + LAST:
                out.append(f"deal {self.deal_no}: {have} points won or still out, expected "
                           f"{self.inplay + LAST}")
            if self.players >= 4 and self.inplay + LAST != 157:
                out.append(f"deal {self.deal_no}: {self.inplay} card points in play, not 152")
        return out

    # ------------------------------------------------------------------ determinize
    def _redeal_forbid(self, holders: list[int]) -> list[int]:
        if self.phase != "play":
            return [0] * len(holders)
        absent = voids_shown(self.plays, self.players, len(self.act), self.trump, ORDER, self._rule)
        return [absent[s] for s in holders]

    def _pile_sizes(self, hidden: int) -> list[int]:
        return [(self.dead & hidden).bit_count(), (self.extra & hidden).bit_count()]

    def _lay_piles(self, new: TrickState, piles: list[int], hidden: int, rng: random.Random) -> None:
        assert isinstance(new, HandjasState)
        new.dead = (self.dead & ~hidden) | piles[0]
        new.extra = (self.extra & ~hidden) | piles[1]

    def _redealt(self, seat: int) -> None:
        if self.phase == "play":  # 2/3 players: the cards in play may have changed
            m = 0
            for s in range(self.players):
                m |= self.hands[s] | self.won[s]
            for c in self.trick:
                m |= 1 << c
            self.inplay = points(m, self.trump)


class Handjas(Game):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "swap 6SUIT", "pass", "exchange", "declare MELD", "play CARD")

    def action_catalogue(self, form: str) -> list[str]:  # engine.rl: every meld, both meld values
        from engine.rl.catalogues import deck_mask, single_melds
        return single_melds(deck_mask(self.tables.deck), (HANDJAS_MELDS, HANDJAS_SWISS_MELDS))

    id = "handjas"
    name = "Handjas (Swiss Handjass)"
    family = "jass"
    seed_ref = "seed 003 L106-147"
    summary = """
        2-5 players, each for himself (5: the dealer sits out); 36 cards,
        jass ranks (trump J 9 A K Q 10 8 7 6; plain A K Q J 10 9 8 7 6). 9
        cards each; 2p: a dead hand (trump turned from it) and an extra
        hand; 3p: an extra hand (trump turned from it); 4p/5p: the
        dealer's/achterhand's last card is trump. 2/3p: the trump 6 may be
        swapped for the turned card, then one player may exchange his hand
        for the extra hand. Melds before play: only the best meld's holder
        scores all his melds; Stuk 20 always. Follow suit or trump, never
        undertrump; trump led, overtrump if able (a bare Jas may be kept).
        Most points (4 players: the top two) get a stroke; 21 card points
        or less is a potato, a stroke for every other player. First to 7
        net strokes.
    """
    notation = """
        swap 6H             2/3 players: swap the trump 6 for the turned card ...
        pass                ... or decline (also: decline the exchange; end your melds)
        exchange            2/3 players: take the extra hand for your own
        declare KH QH JH    announce a meld (its cards: a run highest first, a carre C D H S)
        play QS             play a card to the trick
    """
    min_players = 2
    max_players = 5
    default_players = 4
    rule_events = ("hand_exchanged", "trump6_swapped", "meld_winner", "stuk_scored", "bare_jas_held",
                   "undertrump_blocked", "potato", "potato_cancelled", "sat_out")
    extra_verbs: ClassVar[dict[str, tuple[str, str]]] = {"swap": ("cards1", "swap 6H"),
                                                         "exchange": ("none", "exchange")}
    options_spec = (
        Option("target", 7, "HJ3: net strokes that win the match (the seed also allows 5)",
               check=lambda v: v > 0, max=700),
        Option("single_winner", False, "variant: only the highest total scores a stroke, also with "
               "four players (HJ16)"),
        Option("jan_limit", 22, "HJ19: a potato is card points below this (22: 21 or less; "
               "variant 26)", check=lambda v: v > 0),
        Option("trump_lead_overtrump", True, "HJ10: when trump is led, overtrump if able (seed); "
               "False: any trump (pagat)"),
        Option("swiss_carres", False, "HJ11: only carres of A K Q 10 (100), 9 (150), J (200) count "
               "(Swiss practice); default: every carre, as the seed"),
    )
    options_type = HandjasOptions
    state_class = HandjasState
    tables = CardTables(HANDJAS.order, HANDJAS.points, last_trick=HANDJAS.last_trick)


register(Handjas)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
