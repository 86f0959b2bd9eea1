"""Shared machinery of the manille family (RULES.md "Common rule for the manille family").

Not a game: the five games (``manillen``, ``butifarra``, ``manille_parlee``, ``manille_muette``,
``manille_2_7``) build on :class:`ManilleState`, which owns the trick play:

* the legal-move rule is :func:`engine.tricks.mask_function` with the game's
  :class:`~engine.tricks.PlayRule` (:data:`MANILLE_RULE`; partner exemption on or off; manillen's
  :data:`MANILLEN_RULE` with its ban on a losing trump,
  option ``no_losing_trump`` in the seed-003 games; manillen's undertrump ban while the partner
  wins; Butifarra's B5 option ``must_trump``), built by :func:`family_rule`, and
  :meth:`ManilleState._why_not_held_card` (the kernel's refusal hook) explains a refused card from
  the same rule;
* trick winner (:func:`engine.tricks.beats`), card points (:class:`~engine.tricks.Points`) and the
  trick point of the seed-003 games;
* the family's rule events, emitted when the rule is decisive: ``overtake_forced`` (following suit,
  the legal cards were narrowed to those that beat an opponent's card), ``overtrump_forced`` (void,
  narrowed to the trumps that win), ``undertrump_blocked`` (void, an opponent wins, no winning trump:
  the losing trumps were barred; only where a rule bars them), ``partner_exemption_used`` (the
  card played would have been illegal had an opponent been winning), ``trick_point_awarded``
  (once per deal, with each seat's trick count, in the games that count tricks);
* per-deal point invariants; zones, hidden cards and ``determinize`` are the trick kernel's
  (:class:`engine.trickplay.TrickState`), with the family's hooks: the stock as the face-down pile
  whose known cards keep their places, a seat that may not see its own hand yet, public
  constraints a redeal must pass.

Seats play in the order ``nxt`` (normally ``seat + 1``; Manillen's club format re-seats players);
``partner[seat]`` is -1 in games without partnerships.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from operator import itemgetter
from typing import Any, ClassVar

from engine.cards import SUITS, TOKENS, bits, hand_tokens
from engine.core import JSON
from engine.deal import StockMode
from engine.trickplay import TrickState, trick_pairs, voids_shown
from engine.tricks import (
    PLAY,
    PLAY_T,
    MaskFunction,
    Order,
    PlayRule,
    Points,
    mask_function,
    play_list,
    points_table,
    rank_order,
)

# ----------------------------------------------------------------------------- tables
MANILLE_ORDER = rank_order("TAKQJ987")
"""10 (manille) > A (manillon) > K > Q > J > 9 > 8 > 7, in every suit."""
MANILLE_POINTS = points_table({"T": 5, "A": 4, "K": 3, "Q": 2, "J": 1})
BUTIFARRA_ORDER = rank_order("9AKQJ8765432")
"""9 (manilla) > A > K > Q > J > 8 > ... > 2 (no tens)."""
BUTIFARRA_POINTS = points_table({"9": 5, "A": 4, "K": 3, "Q": 2, "J": 1})

MANILLE_RULE = PlayRule(overtake=True, overtrump_trump_lead=True, overtrump=True)
"""The family rule with partner exemption (seed 003 L25-27): while an opponent wins, beat his card
if you can (following suit, or void with a trump); void with no trump that wins, any card, a losing
trump included ("dan mag je bijgooien wat je wilt")."""
MANILLEN_RULE = replace(MANILLE_RULE, no_undertrump=True, partner_no_undertrump=True)
"""Manillen M1/M2: the family rule, no losing trump while an opponent wins unless only trumps are
held, and the seed-002 undertrump ban ("mag niet onderkopen") while the partner wins."""
MANILLEN_SEED_RULE = replace(MANILLE_RULE, no_undertrump=True, partner_exempt=False)
"""Manillen option ``partner_exemption=False``, the seed-002 sentence read literally: "men moet
sowieso de slag naar zich proberen halen" -- beat the winning card, the partner's too."""


_FAMILY_RULES: dict[tuple[bool, bool, bool], PlayRule] = {}


def family_rule(no_losing_trump: bool = False, must_trump: bool = False,
                partner_exempt: bool = True) -> PlayRule:
    """The seed-003 games' rule from their options: ``no_losing_trump`` (RULES.md clarification
    "Manille family, void with an opponent winning and no trump that wins": the earlier reading,
    default off) and, in Butifarra, ``must_trump`` (B5).  Made once per combination: every new
    match asks for it, and ``dataclasses.replace`` cost 15% of a one-deal match on the source."""
    key = (partner_exempt, no_losing_trump, must_trump)
    rule = _FAMILY_RULES.get(key)
    if rule is None:
        rule = _FAMILY_RULES[key] = replace(MANILLE_RULE, partner_exempt=key[0], no_undertrump=key[1],
                                            must_trump=key[2])
    return rule

PLAY_CARD: dict[str, int] = {a: c for c, a in enumerate(PLAY)}
TRUMP: tuple[str, ...] = tuple("trump " + s for s in SUITS)
TRUMP_SUIT: dict[str, int | None] = {a: i for i, a in enumerate(TRUMP)}
TRUMP_SUIT["trump none"] = None
SUIT_OF_LETTER = {s: i for i, s in enumerate(SUITS)}

_BIT = tuple(1 << c for c in range(54))
SUIT_MASK: tuple[int, ...] = tuple(0x1FFF << 13 * s for s in range(4))


def points_of(m: int, pts: Points) -> int:
    table = pts.plain
    return sum(table[c] for c in bits(m))


_DECK_LISTS: dict[int, tuple[int, ...]] = {}
_DEAL_PLANS: dict[tuple[int, ...], tuple[list[Callable[[list[int]], tuple[int, ...]]], int]] = {}
"""(first seat, packets..., -1, nxt...) -> (per seat: the getter of its cards' deck positions,
cards dealt)."""

def _deal_plan(nxt: Sequence[int], first: int, packets: Sequence[int]
               ) -> tuple[list[Callable[[list[int]], tuple[int, ...]]], int]:
    """Which deck positions each seat gets when ``packets`` are dealt from ``first`` round the
    table in the order ``nxt``; per seat a getter returning those cards as a tuple."""
    n = len(nxt)
    where: list[list[int]] = [[] for _ in range(n)]
    pos = 0
    for size in packets:
        s = first
        for _ in range(n):
            where[s].extend(range(pos, pos + size))
            pos += size
            s = nxt[s]
    getters: list[Callable[[list[int]], tuple[int, ...]]] = []
    for w in where:
        if len(w) == 1:
            getters.append(itemgetter(slice(w[0], w[0] + 1)))  # a one-card hand, as a sequence
        else:
            getters.append(itemgetter(*w))
    return getters, pos


# ----------------------------------------------------------------------------- state
class ManilleState(TrickState):
    """Trick play, zones, observations and determinize shared by the manille family.

    Subclasses set the class tables, call :meth:`_start_play` once trump is known, and implement
    :meth:`_deal_over` (score the deal, then start the next one or finish).  The trick in progress
    is kept as a few ints (``tn`` cards, ``led`` suit, winning card ``wcard`` of seat ``wseat``); its
    cards in order are the last ``tn`` entries of ``plays``.
    """
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "hand": "your cards (list[card])",
        "dealer": "the seat that dealt this deal (int)",
        "partner": "your partner's seat, null without one (int)",
        "trump": "the trump suit letter, `none` for no-trump, null while it is not yet named",
        "trick": "the current trick as [seat, card] pairs in play order (list[[int, card]])",
        "last_trick": "the previous trick as [seat, card] pairs in play order ([] before the first)",
        "played": "every card played in this deal, in order (list[card])",
        "hand_sizes": "cards held per seat (list[int])",
        "tricks_won": "tricks won per seat in this deal (list[int])",
        "points_won": "card (and trick) points won per seat in this deal (list[int])",
    }
    PHASES: ClassVar[tuple[str, ...]] = (  # engine.rl: every phase, "over" included
        "cut", "trump", "delegated", "double", "redouble", "sant_vicenc", "bid", "exchange", "play", "over")
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md)
        "scores": "seat_nums:150", "hand": "cards", "dealer": "seat", "partner": "seat",
        "trump": "choice:C|D|H|S|none", "trick": "trick", "last_trick": "trick", "played": "cards",
        "hand_sizes": "seat_nums:12", "tricks_won": "seat_nums:12", "points_won": "seat_nums:100",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    _HOT: ClassVar[tuple[str, ...]] = ("_ev_prefix", "_fast", "_legal", "_lmask", "_lmf", "_over", "_pexempt",
            "_ptable", "_strength", "_track", "_trick_pt", "_trump_ev", "_under_ev",
            "deal_no", "events", "hands", "history", "last_trick", "led", "ntricks",
            "nxt", "partner", "phase", "plays", "players", "pts", "rule", "tlegal", "tn",
            "trump", "turn", "wcard", "won", "wseat")
    __slots__ = tuple(k for k in _HOT if not hasattr(TrickState, k))
    """The attributes of the hot path, in slots (the others stay in ``__dict__``); not those the
    compiled build's ``TrickState`` already stores natively (a slot would shadow them)."""

    ORDER: ClassVar[Order] = MANILLE_ORDER
    STRENGTH: ClassVar[tuple[int, ...]] = MANILLE_ORDER.plain
    """``ORDER.plain``: no game of the family has a separate trump order."""
    POINTS: ClassVar[Points] = MANILLE_POINTS
    TRICK_POINT: ClassVar[int] = 1
    """Points for each trick won (seed 003); 0 in seed-002 manillen."""
    PARTNERS: ClassVar[bool] = True
    TRUMPING_EVENT: ClassVar[str] = ""
    """Event emitted whenever a trump is played to a plain lead (manillen: ``kopen``)."""
    UNDERTRUMP_EVENT: ClassVar[str] = ""
    """Event emitted when a void player's trumps below the winning trump were barred, whoever
    wins (manillen: ``undertrump_refused``)."""
    REDEAL_TRIES = 40
    STOCK = True
    TRACK_TRICK: ClassVar[bool] = False
    """Keep each play's legal mask in ``tlegal`` and call :meth:`_trick_done` after every trick
    (for games with per-trick rule events, like manillen's ``vetten``)."""

    rule: PlayRule
    nxt: list[int]
    """Seat that plays after each seat."""
    partner: list[int]
    """Partner of each seat, -1 when none."""
    trump: int | None
    ntricks: list[int]
    last_trick: list[int]
    """The previous trick's plays (``seat << 6 | card``)."""
    deal_totals: list[int]
    """Points won in each finished deal, all seats together (the per-deal invariant)."""
    tlegal: list[int]
    """With ``TRACK_TRICK``: the legal mask of each play of the trick in progress."""
    tricks_per_deal: int
    _deck_list: tuple[int, ...]
    _ev_prefix: str
    _lmask: int
    """In the play phase: the legal mask of the seat to act (0 outside it)."""
    _lmf: MaskFunction
    """The legal-mask rule with this deal's order, rule and trump bound (set when play starts)."""
    _track: bool
    """``TRACK_TRICK``, read once per match."""
    _fast: bool

    # ------------------------------------------------------------------ setup helpers
    def _init_family(self, rule: PlayRule, deck: int) -> None:
        n = self.players
        self.rule = rule
        self.deck_mask = deck
        self._track = self.TRACK_TRICK
        self._pexempt = rule.partner_exempt
        self._strength = self.STRENGTH
        self._ptable = self.POINTS.plain
        self._trick_pt = self.TRICK_POINT
        self._trump_ev = self.TRUMPING_EVENT
        self._under_ev = self.UNDERTRUMP_EVENT
        self._ev_prefix = self.game.id + "."
        dl = _DECK_LISTS.get(deck)
        if dl is None:
            dl = _DECK_LISTS[deck] = tuple(bits(deck))
        self._deck_list = dl
        self.nxt = [(s + 1) % n for s in range(n)]
        self.partner = [(s + 2) % n for s in range(n)] if self.PARTNERS else [-1] * n
        self.deal_totals = []
        self.tricks_per_deal = 0
        self.turn = 0
        self.dealer = 0
        # each game's _setup calls _reset_deal() (directly, or by dealing)

    def _reset_deal(self) -> None:
        n = self.players
        self.hands = [0] * n
        self.stock = []
        self.trump = None
        self.tn = self.led = self.wcard = self.wseat = 0
        self.won = [0] * n
        self.pts = [0] * n
        self.ntricks = [0] * n
        self.plays = []
        self.last_trick = []
        self.tlegal = []
        self._lmask = 0
        self._fast = False

    def _shuffled(self) -> list[int]:
        """The pack in a random order from the match RNG (sorting by random keys: a uniform
        permutation, three times faster than ``random.shuffle`` here)."""
        r = self.rng.random
        return sorted(self._deck_list, key=lambda _: r())

    def _deal_packets(self, deck: list[int], packets: Sequence[int]) -> list[int]:
        """Deal ``deck`` (top first) in packets, starting left of the dealer; return the rest."""
        nxt = self.nxt
        key = (nxt[self.dealer], *packets, -1, *nxt)
        plan = _DEAL_PLANS.get(key)
        if plan is None:
            plan = _DEAL_PLANS[key] = _deal_plan(nxt, nxt[self.dealer], packets)
        getters, used = plan
        bit = _BIT.__getitem__
        self.hands = [sum(map(bit, g(deck))) for g in getters]  # distinct cards: sum is union
        return deck[used:]

    def _first_deal(self, deal: dict[str, Any] | None, size: int, begin: Callable[[], None]) -> None:
        """Deal 1 of a game whose dealer names trump (Manillen M5, Butifarra B7): an injected
        ``deal`` (hands of ``size``), then trump is asked (:meth:`_ask_trump`); else a random first
        dealer and ``begin()``, the game's own deal."""
        self.deal_no = 1
        if deal is not None:
            self._reset_deal()
            self._injected_hands(deal, size)
            self._ask_trump()
            return
        self.dealer = self.rng.randrange(4)  # M5, B7: random first dealer
        begin()

    def _ask_trump(self) -> None:
        """Hook of the games whose dealer names trump: he is asked now."""
        self.phase = "trump"
        self.turn = self.dealer

    def _injected_hands(self, deal: dict[str, Any], size: int | None, stock: StockMode = "none",
                        extra: tuple[str, ...] = ()) -> None:
        """Take ``deal["dealer"]`` and ``deal["hands"]`` (X6) by the kernel's deal parser; a test
        position (``"partial"``) must still give ``size`` cards a hand."""
        n = self.players
        d = self._read_hands(deal, None if size is None else [size] * n, stock=stock, extra=extra)
        for i, h in enumerate(d.hands):
            if size is not None and len(h) != size:
                raise ValueError(f"deal['hands'][{i}] has {len(h)} cards; each hand holds {size}")

    def _emit(self, name: str, seat: int | None = None, **data: JSON) -> None:
        """:meth:`State._emit` with the game prefix cached (the family emits about ten events a
        deal); the event dicts are the same."""
        ev: dict[str, JSON] = {"event": self._ev_prefix + name, "deal": self.deal_no,
                               "ply": len(self.history), "seat": seat}
        if data:
            ev.update(data)
        self.events.append(ev)

    # ------------------------------------------------------------------ trick play
    # In the play phase ``_fast`` is set and ``_lmask`` is always the legal mask of the seat to
    # act, so ``legal_actions`` is a table lookup and ``apply`` of a card one dict lookup and one
    # bit test (tournaments run these millions of times).
    def legal_actions(self) -> list[str]:
        m = self._lmask  # nonzero exactly while playing
        if m:  # engine.tricks.play_list, inlined: a call less per move is 3-4% of a random deal
            t = PLAY_T
            if m >> 39:
                return [*t[0][m & 8191], *t[1][m >> 13 & 8191], *t[2][m >> 26 & 8191], *t[3][m >> 39]]
            if m >> 26:
                return [*t[0][m & 8191], *t[1][m >> 13 & 8191], *t[2][m >> 26]]
            return [*t[0][m & 8191], *t[1][m >> 13]]  # clubs and diamonds only (t[1][0] is empty)
        return super().legal_actions()

    def apply(self, action: Any) -> None:  # Any: checked by the base (the compiled build too)
        try:
            code = PLAY_CARD[action]
        except (KeyError, TypeError):  # not a card action (or not a string): the base path
            code = 63
        if self._lmask >> code & 1:
            self._legal = None
            self._play(code)
            self.history.append(action)
            return
        super().apply(action)

    def _finish(self) -> None:
        super()._finish()
        self._fast = False
        self._lmask = 0

    def _start_play(self, leader: int) -> None:
        self.phase = "play"
        self.turn = leader
        self.tn = 0
        self.tricks_per_deal = self.hands[leader].bit_count()
        self._lmask = self.hands[leader]
        self._fast = True
        self._lmf = mask_function(self.ORDER, self.rule, self.trump)

    def _play_mask(self) -> int:
        hand = self.hands[self.turn]
        if not self.tn:
            return hand
        return mask_function(self.ORDER, self.rule, self.trump)(hand, self.led, self.wcard,
                                                                self.partner[self.turn] == self.wseat)

    def _play_actions(self) -> list[str]:
        return play_list(self._lmask)

    def _play(self, c: int) -> None:
        seat = self.turn
        hands = self.hands
        hand = hands[seat]
        hands[seat] = hand ^ _BIT[c]
        plays = self.plays
        plays.append(seat << 6 | c)
        legal = self._lmask
        if self._track:
            self.tlegal.append(legal)
        tn = self.tn
        if not tn:
            led = self.led = c // 13
            self.wcard = c
            self.wseat = seat
            self.tn = 1
            nxt = self.turn = self.nxt[seat]
            self._lmask = self._lmf(hands[nxt], led, c, self.partner[nxt] == seat)
            return
        led = self.led
        w = self.wcard
        trump = self.trump
        pw = self.partner[seat] == self.wseat
        # the family's rule events, when the rule was decisive (see the module docstring)
        if legal != hand:
            follow = hand & SUIT_MASK[led]
            if follow:
                if legal != follow:
                    self._emit("overtake_forced", seat=seat, card=TOKENS[c])
            elif trump is not None and hand & SUIT_MASK[trump]:
                tm = SUIT_MASK[trump]
                beat = hand & tm & (self.ORDER.above[1][w] if w // 13 == trump else tm)
                if legal == beat:  # narrowed to the winning trumps (whoever wins, B5)
                    self._emit("overtrump_forced", seat=seat, card=TOKENS[c])
                elif not (pw and self._pexempt) and not legal & tm:  # an opponent's trick (or
                    # the partner's, where he counts as one): the losing trumps were barred
                    self._emit("undertrump_blocked", seat=seat, card=TOKENS[c])
                if (self._under_ev and w // 13 == trump
                        and hand & SUIT_MASK[trump] & ~legal):
                    self._emit(self._under_ev, seat=seat, card=TOKENS[c])
        cs = c // 13
        if cs == w // 13:
            st = self._strength
            wins = st[c] > st[w]
        else:
            wins = cs == trump
        # a card that beats the winning card is legal under any duty, and a follower of a trumped
        # plain trick has no duty to overtake: only otherwise can the exemption have been used
        if (pw and not wins and (cs != led or w // 13 != trump or led == trump)
                and self._pexempt):
            self._exemption_event(seat, c, hand, w)
        if wins:
            self.wcard = w = c
            self.wseat = seat
        if cs == trump and led != trump and self._trump_ev:
            self._emit(self._trump_ev, seat=seat, card=TOKENS[c])
        tn += 1
        if tn < self.players:
            self.tn = tn
            nxt = self.turn = self.nxt[seat]
            self._lmask = self._lmf(hands[nxt], led, w, self.partner[nxt] == self.wseat)
            return
        # the trick is complete
        taker = self.wseat
        table = self._ptable
        trick = plays[-tn:]
        m = 0
        p = self._trick_pt
        for x in trick:
            m |= _BIT[x & 63]
            p += table[x & 63]
        self.pts[taker] += p
        self.ntricks[taker] += 1
        self.won[taker] |= m
        self.last_trick = trick
        self.tn = 0
        if self._track:
            self._trick_done(taker)
            self.tlegal = []
        self.turn = taker
        self._lmask = hands[taker]
        if not self._lmask:
            self._fast = False
            if self._trick_pt:
                self._emit("trick_point_awarded", tricks=list(self.ntricks))
            self.deal_totals.append(sum(self.pts))
            self._deal_over()

    def _why_not_held_card(self, c: int) -> str:
        """Why the seat to act may not play held card ``c`` now (the play phase, a trick begun):
        the family rule's duty that refuses it, read from the same :class:`PlayRule`."""
        seat = self.turn
        hand = self.hands[seat]
        led = self.led
        if hand & SUIT_MASK[led]:
            if c // 13 != led:
                return f"follow suit: {SUITS[led]} was led"
            return ("an opponent is winning: beat his card if you can (follow suit higher)"
                    if self.PARTNERS else "beat the winning card if you can (follow suit higher)")
        rule, trump = self.rule, self.trump
        assert trump is not None  # void with no trump suit: every card is legal
        tm = SUIT_MASK[trump]
        w = self.wcard
        beat = hand & tm & (self.ORDER.above[1][w] if w // 13 == trump else tm)
        if rule.must_trump:
            return ("B5 (must_trump): void in the led suit and holding a trump, you must play a "
                    "trump" + (" that beats the trick's highest trump" if beat else ""))
        if self.partner[seat] == self.wseat and rule.partner_exempt:
            return "no trump lower than your partner's winning trump unless you hold only trumps"
        who = "an opponent is winning: " if self.PARTNERS else ""
        if beat:
            return f"{who}void in the led suit, you must play a trump that wins the trick"
        return (f"{who}void in the led suit with no trump that wins: no losing trump unless you "
                "hold only trumps (option no_losing_trump)")

    def _exemption_event(self, seat: int, c: int, hand: int, w: int) -> None:
        """``partner_exemption_used``: ``c`` would have been illegal had an opponent been winning."""
        strict = self._lmf(hand, self.led, w, False)
        if not strict >> c & 1:
            self._emit("partner_exemption_used", seat=seat, card=TOKENS[c])

    def _trick_done(self, taker: int) -> None:
        """Hook (``TRACK_TRICK``): the trick is complete and taken by ``taker``; its plays are
        ``plays[-players:]`` and their legal masks ``tlegal``."""

    def _deal_over(self) -> None:
        """Hook: the last trick is taken; score the deal, then deal again or finish."""
        raise NotImplementedError

    # ------------------------------------------------------------------ public helpers
    def previous_trick(self) -> list[tuple[int, int]]:
        return trick_pairs(self.last_trick)

    def _observe_play(self, seat: int, show_hand: bool = True) -> dict[str, JSON]:
        return {
            "hand": hand_tokens(self.hands[seat]) if show_hand else [],
            "dealer": self.dealer,
            "partner": self.partner[seat] if self.partner[seat] >= 0 else None,
            "trump": (None if self.phase in ("cut", "trump", "delegated", "bid", "exchange")
                      else ("none" if self.trump is None else SUITS[self.trump])),
            **self._play_view(self.last_trick, self.ntricks),
        }

    def _deal_total(self) -> int:
        """The points of a whole deal: card points plus trick points."""
        return points_of(self.deck_mask, self.POINTS) + self.TRICK_POINT * self.tricks_per_deal

    # ------------------------------------------------------------------ the kernel's hooks
    def _invariants(self) -> list[str]:
        out = []
        for i, t in enumerate(self.deal_totals):
            exp = self._deal_total_expected(i)
            if t != exp:
                out.append(f"deal {i + 1}: {t} points won in all, expected {exp}")
        if self.phase == "play" and not self._over:
            total = self._deal_total()
            left = self._trick_cards()
            for h in self.hands:
                left |= h
            for x in self.stock:
                left |= _BIT[x]
            tricks_left = self.tricks_per_deal - sum(self.ntricks)
            have = sum(self.pts) + points_of(left, self.POINTS) + self.TRICK_POINT * tricks_left
            if have != total:
                out.append(f"deal {self.deal_no}: points won {sum(self.pts)} + points still out "
                           f"{have - sum(self.pts)} = {have}, expected {total}")
        return out

    def _deal_total_expected(self, i: int) -> int:
        """What finished deal ``i`` must total (60 manillen, 68 Parlée/Muette, 72 Butifarra)."""
        return self._deal_total()

    # ------------------------------------------------------------------ determinize
    def _absent(self) -> list[int]:
        """Per seat: cards everyone knows the seat does not hold (from this deal's plays)."""
        n = self.players
        return voids_shown(self.plays, n, n, self.trump, self.ORDER, self.rule, self.partner)

    def _own_hand_unknown(self, seat: int) -> bool:
        """Hook: the seat may not look at its own hand yet (X4, manillen)."""
        return False

    def _forbidden(self, seat: int) -> int:
        """Hook: cards publicly known not to be in ``seat``'s hand besides the plays' inferences."""
        return 0

    def _redeal_hidden(self, seat: int) -> int:
        return self.hidden_cards(seat) | (self.hands[seat] if self._own_hand_unknown(seat) else 0)

    def _redeal_holders(self, seat: int) -> list[int]:
        own_unknown = self._own_hand_unknown(seat)
        return [s for s in range(self.players) if s != seat or own_unknown]

    def _redeal_forbid(self, holders: list[int]) -> list[int]:
        absent = self._absent()
        return [absent[s] | self._forbidden(s) for s in holders]

    def _pile_sizes(self, hidden: int) -> list[int]:
        """The stock's cards hidden from the seat; the others keep their places."""
        return [sum(1 for x in self.stock if hidden >> x & 1)]

    def _lay_piles(self, new: TrickState, piles: list[int], hidden: int, rng: random.Random) -> None:
        assert isinstance(new, ManilleState)
        free = bits(piles[0])
        rng.shuffle(free)
        stock = list(self.stock)
        for i, x in zip([i for i, x in enumerate(self.stock) if hidden >> x & 1], free, strict=True):
            stock[i] = x
        new.stock = stock

    def _redealt(self, seat: int) -> None:
        if self._fast:
            self._lmask = self._play_mask()

