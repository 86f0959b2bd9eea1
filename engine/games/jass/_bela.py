"""Shared machinery of the two- and three-handed "10 high" jass games: ``klop_bela``,
``klop_bela_3p`` (RULES.md 2.15, 2.16) and ``jo_jotte`` (2.14).  Not a game.

* :class:`BelaState` owns what the three share: the deal from a shuffled pack (or an injected one,
  X6), the turned card, the face-down rest (``stock``) and the face-up cards out of play
  (``table``), trick play with the jass duties of :mod:`engine.games.jass._jass` (follow suit; void,
  trump; trump led, overtrump if able; Klop's bare Jas held back), card points with the game's
  :class:`~engine.games.jass._jass.JassTable`, the last-trick bonus and the per-deal point
  invariant of "Common jass tables"; zones, hidden cards and ``determinize`` are the trick
  kernel's (:class:`engine.trickplay.TrickState`), the stock its face-down pile.
* :class:`KlopState` is the whole of Klop / Bela for 2 or 3 players (decisions KB1-KB16 and
  KT1-KT5); the games ``klop_bela`` and ``klop_bela_3p`` only declare themselves.

The card tables, sequence detection and the trick duties come from :mod:`engine.games.jass._jass`;
what is specific to these games (Klop's sequence values and comparison, the Bela, the claim, the
Jo-Jotte bidding) is written here and in ``jo_jotte.py``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards import EIGHT, JACK, KING, QUEEN, SEVEN, SUITS, TOKENS, bits, card, hand_tokens
from engine.core import JSON, Option, rank_by
from engine.games.jass._jass import (
    KLOP_RULE,
    KLOP_RULE_NO_HOLDBACK,
    TEN_HIGH,
    JassTable,
    MeldValues,
    carre_table,
    runs_in,
)
from engine.trickplay import TrickState, trick_pairs, voids_shown
from engine.tricks import MaskFunction, PlayRule, mask_function, play_list

SUIT_MASK: tuple[int, ...] = tuple(0x1FFF << 13 * s for s in range(4))
_BIT = tuple(1 << c for c in range(64))

KLOP_MELDS = MeldValues((0, 0, 0, 20, 50), carre_table({}))
"""Klop sequences (003:L286-287, KB1): 3 cards 20, 4 or more 50; no carrés; Bela 20."""
BELA = 20

PLAY_CARD: dict[str, int] = {"play " + TOKENS[c]: c for c in range(52)}


def seq_key(run: tuple[int, int, int], trump: int | None) -> tuple[int, int, int]:
    """A sequence's strength: longer, then higher top card, then in trump (KB2, JJ15)."""
    s, low, length = run
    return (length, low + length - 1, 1 if s == trump else 0)


def run_cards(run: tuple[int, int, int]) -> int:
    s, low, length = run
    return ((1 << length) - 1) << (s * 13 + low)


class BelaState(TrickState):
    """Trick play, deal helpers, zones, observations and ``determinize`` of the 10-high games."""
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "hand": "your cards (list[card])",
        "dealer": "the seat that dealt this deal (int)",
        "upcard": "the card turned up for trump bidding, null once taken or when there is none",
        "table": "the cards lying face up on the table (list[card])",
        "trump": "the trump suit letter, `none` for no-trump, null before trump is fixed",
        "trick": "the current trick as [seat, card] pairs in play order",
        "last_trick": "the previous trick as [seat, card] pairs in play order",
        "played": "every card played in this deal, in order (list[card])",
        "hand_sizes": "cards held per seat (list[int])",
        "tricks_won": "tricks won per seat in this deal (list[int])",
        "points_won": "card and meld points won per seat in this deal (list[int])",
        "known": "per seat, its cards you know (shown or taken from the table), list[list[card]]",
    }
    PHASES: ClassVar[tuple[str, ...]] = (  # engine.rl: every phase, "over" included
        "bid", "schmeiss", "swap", "dix", "double", "meld", "play", "over")
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md)
        "scores": "seat_nums:3000", "hand": "cards", "dealer": "seat", "upcard": "card", "table": "cards",
        "trump": "choice:C|D|H|S|none", "trick": "trick", "last_trick": "trick", "played": "cards",
        "hand_sizes": "seat_nums:10", "tricks_won": "seat_nums:10", "points_won": "seat_nums:300",
        "known": "seat_cards",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    TABLE: ClassVar[JassTable] = TEN_HIGH
    STOCK = True
    HAND: ClassVar[int] = 9
    """Cards in each hand once the deal is complete."""
    FIRST_PACKET: ClassVar[int] = 6

    table_: JassTable
    rule: PlayRule
    known: list[int]
    """Per seat: cards of that hand every player knows (taken turned card, shown melds, the Bela or
    jo-jotte partner)."""
    table: int
    """Face-up cards out of play (the turned card while it lies there, the swapped 7, ...)."""
    upcard: int
    trump: int | None
    ntricks: list[int]
    last_trick: list[int]
    in_play: int
    """Card points of the cards in the hands when play began (per-deal invariant)."""
    deal_checks: list[str]
    _pt: tuple[int, ...]
    _lmf: MaskFunction
    _lmask: int

    # ------------------------------------------------------------------ setup helpers
    def _init_family(self, rule: PlayRule, table: JassTable | None = None) -> None:
        self.table_ = table or self.TABLE
        self.rule = rule
        self.deck_mask = self.table_.deck
        self._deck_list = tuple(bits(self.deck_mask))
        self.deal_checks = []
        self.dealer = 0
        self.turn = 0
        self._reset_deal()

    def _reset_deal(self) -> None:
        n = self.players
        self.hands = [0] * n
        self.known = [0] * n
        self.stock = []
        self.table = 0
        self.upcard = -1
        self.trump = None
        self.plays = []
        self.tn = self.led = self.wcard = self.wseat = 0
        self.won = [0] * n
        self.pts = [0] * n
        self.ntricks = [0] * n
        self.last_trick = []
        self.in_play = 0
        self._pt = self.table_.points.plain
        self._lmask = 0

    def nxt(self, seat: int) -> int:
        return (seat + 1) % self.players

    def voorhand(self) -> int:
        return self.nxt(self.dealer)

    def order_from(self, first: int) -> list[int]:
        n = self.players
        return [(first + i) % n for i in range(n)]

    def _deal_first(self) -> None:
        """Shuffle and deal 6 cards each from voorhand (3 + 3), turn the next card up."""
        r = self.rng.random
        deck = sorted(self._deck_list, key=lambda _: r())
        n = self.players
        order = self.order_from(self.voorhand())
        pos = 0
        for packet in (3, self.FIRST_PACKET - 3):
            for s in order:
                for c in deck[pos:pos + packet]:
                    self.hands[s] |= _BIT[c]
                pos += packet
        self.upcard = deck[pos]
        self.table = _BIT[deck[pos]]
        self.stock = deck[pos + 1:]
        assert pos == n * self.FIRST_PACKET

    def _inject(self, deal: dict[str, Any]) -> None:
        """X6: ``{"dealer", "hands": [6 tokens] per seat, "upcard", "stock": [top first]}``; the
        stock is every card not in the hands or turned up (a test position, ``"partial": True``,
        lists at least the cards still to be dealt and the rest follows in a seeded order).  Read
        by the kernel's deal parser; a test position still gives 6 cards a hand."""
        n = self.players
        d = self._read_hands(deal, [self.FIRST_PACKET] * n, stock="rest", upcard="required")
        for i, h in enumerate(d.hands):
            if len(h) != self.FIRST_PACKET:
                raise ValueError(f"deal['hands'][{i}] must hold {self.FIRST_PACKET} cards")
        assert d.upcard is not None  # upcard="required"
        self.upcard = card(d.upcard)
        self.table = _BIT[self.upcard]
        stock = [card(t) for t in d.stock or []]
        seen = self.table
        for m in self.hands:
            seen |= m
        for c in stock:
            seen |= _BIT[c]
        need = (self.HAND - self.FIRST_PACKET) * n
        rest = [c for c in self._deck_list if not seen >> c & 1]
        if len(stock) < need and rest:
            raise ValueError(f"deal['stock'] must list at least the {need} cards still to be dealt")
        self.rng.shuffle(rest)
        self.stock = stock + rest

    def _deal_rest(self) -> None:
        """The extra cards: 3 each from voorhand, from the top of the stock."""
        k = self.HAND - self.FIRST_PACKET
        pos = 0
        for s in self.order_from(self.voorhand()):
            for c in self.stock[pos:pos + k]:
                self.hands[s] |= _BIT[c]
            pos += k
        self.stock = self.stock[pos:]

    # ------------------------------------------------------------------ trick play
    def _start_play(self, leader: int, trump: int | None) -> None:
        self.phase = "play"
        self.trump = trump
        self.turn = leader
        self.tn = 0
        tb = self.table_
        pts = tb.points
        self._pt = tuple(pts.of(c, trump) if c < 52 else 0 for c in range(52))
        self._lmf = mask_function(tb.order, self.rule, trump)
        inhand = 0
        for h in self.hands:
            inhand |= h
        self.in_play = self._points(inhand)
        out = 0
        for c in self.stock:
            out |= _BIT[c]
        out |= self.table
        if self.in_play + self._points(out) != tb.card_total(trump):
            self.deal_checks.append(f"deal {self.deal_no}: card points in play {self.in_play} + out of "
                                    f"play {self._points(out)} != {tb.card_total(trump)}")
        self._lmask = self._lead_mask(self.hands[leader])

    def _points(self, m: int) -> int:
        pt = self._pt
        return sum(pt[c] for c in bits(m))

    def _lead_mask(self, hand: int) -> int:
        """Hook: the cards that may be led (Klop's ``schots``)."""
        return hand

    def _play_actions(self) -> list[str]:
        return play_list(self._lmask)

    def _play(self, c: int) -> None:
        seat = self.turn
        hand = self.hands[seat]
        self._before_play(seat, c, hand)
        self.hands[seat] = hand & ~_BIT[c]
        self.known[seat] &= ~_BIT[c]
        self.plays.append(seat << 6 | c)
        tn = self.tn
        if not tn:
            self.led = c // 13
            self.wcard = c
            self.wseat = seat
        else:
            w = self.wcard
            if c // 13 == w // 13:
                st = self.table_.order
                if st.strength(c, self.trump) > st.strength(w, self.trump):
                    self.wcard, self.wseat = c, seat
            elif c // 13 == self.trump:
                self.wcard, self.wseat = c, seat
        tn += 1
        if tn < self.players:
            self.tn = tn
            nxt = self.turn = self.nxt(seat)
            self._lmask = self._lmf(self.hands[nxt], self.led, self.wcard, False)
            return
        taker = self.wseat
        trick = self.plays[-tn:]
        m = 0
        p = 0
        pt = self._pt
        for x in trick:
            m |= _BIT[x & 63]
            p += pt[x & 63]
        last = not self.hands[taker]
        if last:
            p += self.table_.last_trick
        self.pts[taker] += p
        self.ntricks[taker] += 1
        self.won[taker] |= m
        self.last_trick = trick
        self.tn = 0
        self.turn = taker
        self._trick_done(taker, len(self.plays) // self.players)
        if self._over or self.phase != "play":
            self._lmask = 0
            return
        if last:
            self._lmask = 0
            total = sum(self.pts)
            want = self.in_play + self.table_.last_trick
            if total != want:
                self.deal_checks.append(f"deal {self.deal_no}: {total} points taken, expected {want}")
            self._deal_over()
            return
        self._lmask = self._lead_mask(self.hands[taker])

    def _before_play(self, seat: int, c: int, hand: int) -> None:
        """Hook: ``seat`` plays ``c`` from ``hand`` (rule events)."""

    def _trick_done(self, taker: int, number: int) -> None:
        """Hook: trick ``number`` (from 1) was taken by ``taker``."""

    def _deal_over(self) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------------ views
    def previous_trick(self) -> list[tuple[int, int]]:
        return trick_pairs(self.last_trick)

    def _observe_common(self, seat: int) -> dict[str, JSON]:
        return {
            "hand": hand_tokens(self.hands[seat]),
            "dealer": self.dealer,
            "upcard": TOKENS[self.upcard] if self.upcard >= 0 else None,
            "table": hand_tokens(self.table),
            "trump": None if self.phase != "play" and not self._over and self.trump is None
            else (SUITS[self.trump] if self.trump is not None else "none"),
            **self._play_view(self.last_trick, self.ntricks),
            "known": [hand_tokens(k) for k in self.known],
        }

    # ------------------------------------------------------------------ the kernel's hooks
    def _pile_zones(self) -> dict[str, int]:
        return {"stock": self._stock_mask(), "table": self.table}

    def _public(self, seat: int) -> int:
        return self.known[seat]

    def _invariants(self) -> list[str]:
        out = list(self.deal_checks)
        if self.phase == "play" and not self._over:
            left = self._trick_cards()
            for h in self.hands:
                left |= h
            bonus = self.table_.last_trick
            have = sum(self.pts) + self._points(left) + (bonus if left else 0)
            if have != self.in_play + bonus:
                out.append(f"deal {self.deal_no}: points taken {sum(self.pts)} + still in play "
                           f"{have - sum(self.pts)} = {have}, expected {self.in_play + bonus}")
        return out

    # ------------------------------------------------------------------ determinize
    def _absent(self) -> list[int]:
        """Per seat: cards everyone knows the seat does not hold (from this deal's plays)."""
        n = self.players
        return voids_shown(self.plays, n, n, self.trump, self.table_.order, self.rule)

    def _redeal_forbid(self, holders: list[int]) -> list[int]:
        if self.phase != "play":
            return [0] * len(holders)
        absent = self._absent()
        return [absent[s] for s in holders]

    def _redealt(self, seat: int) -> None:
        if self.phase == "play" and not self._over:
            left = self._trick_cards()
            for x in self.hands:
                left |= x
            self.in_play = sum(self.pts) + self._points(left)  # the cards in play changed
            h = self.hands[self.turn]
            self._lmask = self._lead_mask(h) if not self.tn else self._lmf(h, self.led, self.wcard, False)


# ============================================================================== Klop / Bela
KLOP_EVENTS = (
    "accept",
    "pass",
    "second_round_trump",
    "redeal_all_pass",
    "trump7_swap",
    "sequence_meld",
    "stuk",
    "en_brok",
    "jas_held_back",
    "maker_wet",
    "meld_void_no_trick",
    "claim_500_midhand",
    "schmeiss",
)

KLOP_NOTATION = """
    trump H             round 1: accept the turned suit ("ik speel"); round 2: name another suit
    pass                decline (bidding), or keep the trump 7 (swap)
    declare swap        the holder of the trump 7 takes the turned card for it
    play QS             play a card to the trick
    declare claim       claim the match mid-deal (over the target with this deal's points)
    declare schmeiss    option schmeiss, round 1: the other player answers
    declare accept      ... the schmeisser plays the turned suit
    declare refuse      ... or the deal is thrown in
"""


@dataclass(frozen=True)
class KlopOptions:
    """The options of ``klop_bela`` and ``klop_bela_3p`` (:func:`klop_options`), typed."""

    target: int = 500
    no_jas_holdback: bool = False
    no_meld_finish: bool = False
    schots: bool = False
    schmeiss: bool = False
    tie_keeps: bool = False


def klop_options(target: int) -> tuple[Option, ...]:
    """The options of ``klop_bela`` and ``klop_bela_3p`` (notation: :data:`KLOP_NOTATION`)."""
    return (
        Option("target", target, "KB13: the match is won with more than this many points",
               check=lambda v: v > 0),
        Option("no_jas_holdback", False, "KB10 variant: the bare Jas may not be held back"),
        Option("no_meld_finish", False, "KB7 variant: no claim during a deal"),
        Option("schots", False, "KB16: the trump 8 and 7 may not be led while holding another card"),
        Option("schmeiss", False, "KB15: round-1 bid schmeiss; the other player accepts or throws in"),
        Option("tie_keeps", False, "KB3 variant (pagat): on equal totals the maker keeps his points"),
    )


TRUMP_ACTION: tuple[str, ...] = tuple("trump " + s for s in SUITS)
SUIT_LETTER = {s: i for i, s in enumerate(SUITS)}


class KlopState(BelaState):
    """Klop / Bela / Clobyosh for 2 or 3 players (RULES.md 2.15, 2.16)."""
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "voorhand": "the seat that leads the first trick and bids first (int)",
        "maker": "the seat that chose trump, null before one did (int)",
        "bid_round": "the bidding round: 1 (only the upcard's suit) or 2 (any other suit) (int)",
        "match_scores": "match points per seat (list[int])",
        "target": "the match score that wins (int)",
        "sequence_winner": "the seat whose sequences count this deal, null before it is decided (int)",
        "sequence_points": "the value of the best sequence shown so far this deal (int)",
        "bela": "per seat, bela (trump king and queen) points declared this deal (list[int])",
    }
    PHASES: ClassVar[tuple[str, ...]] = (  # engine.rl: every phase, "over" included
        "bid", "schmeiss", "swap", "play", "over")
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md)
        "scores": "seat_nums:700", "voorhand": "seat", "maker": "seat", "bid_round": "num:2",
        "match_scores": "seat_nums:700", "target": "num:1000", "sequence_winner": "seat",
        "sequence_points": "num:100", "bela": "seat_nums:20",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    score: list[int]
    maker: int
    bid_round: int
    passes: int
    schmeisser: int
    seq_winner: int
    """Seat whose sequences score (KB2), -1 before the first trick is over or when nobody has one."""
    seq_points: int
    bela: list[int]
    """Per seat: 0, 1 after ``stuk``, 2 after ``en_brok`` (KB9)."""
    claim: tuple[int, bool] | None

    def _setup(self, deal: dict[str, Any] | None) -> None:
        opts = self.game.opts(KlopOptions)
        # KB10: the Jas may be held back (option no_jas_holdback removes it); KB11: void on a plain
        # lead any trump will do, the overtrump duty holds on a trump lead only (KLOP_RULE)
        self._init_family(KLOP_RULE_NO_HOLDBACK if opts.no_jas_holdback else KLOP_RULE)
        self.score = [0] * self.players
        self.claim = None
        self.deal_no = 1
        if deal is not None:
            self._new_deal_fields()
            self._inject(deal)
            self._ask_bid()
            return
        self.dealer = self.rng.randrange(self.players)  # KB4: first dealer random
        self._begin_deal()

    def _new_deal_fields(self) -> None:
        self._reset_deal()
        self.maker = -1
        self.bid_round = 1
        self.passes = 0
        self.schmeisser = -1
        self.seq_winner = -1
        self.seq_points = 0
        self.bela = [0] * self.players

    def _begin_deal(self) -> None:
        self._new_deal_fields()
        self._deal_first()
        self._ask_bid()

    def _ask_bid(self) -> None:
        self.phase = "bid"
        self.turn = self.voorhand()

    # ------------------------------------------------------------------ API hooks
    def _upsuit(self) -> int:
        return self.upcard // 13

    def _legal_actions(self) -> list[str]:
        ph = self.phase
        if ph == "play":
            acts = self._play_actions()
            if self._may_claim(self.turn):
                acts.append("declare claim")
            return acts
        if ph == "bid":
            if self.bid_round == 1:
                acts = [TRUMP_ACTION[self._upsuit()], "pass"]
                if self.game.opts(KlopOptions).schmeiss:
                    acts.append("declare schmeiss")
                return acts
            # KB12: round 2, any suit but the turned one
            return [a for i, a in enumerate(TRUMP_ACTION) if i != self._upsuit()] + ["pass"]
        if ph == "schmeiss":
            return ["declare accept", "declare refuse"]
        if ph == "swap":
            return ["declare swap", "pass"]
        raise AssertionError(ph)

    def _apply(self, action: str) -> None:
        ph = self.phase
        seat = self.turn
        if ph == "play":
            if action == "declare claim":
                self._claim(seat)
            else:
                self._play(PLAY_CARD[action])
        elif ph == "bid":
            self._bid(seat, action)
        elif ph == "schmeiss":
            s = self.schmeisser
            ok = action == "declare accept"
            # KB15: the other player chooses: the schmeisser plays the turned suit, or a new deal
            self._emit("schmeiss", seat=s, chooser=seat, accepted=ok)
            if ok:
                self._made(s, self._upsuit())
            else:
                self._thrown_in()
        elif ph == "swap":
            if action == "declare swap":
                seven = self.trump * 13 + SEVEN if self.trump is not None else 0
                self.hands[seat] ^= _BIT[seven] | _BIT[self.upcard]
                self.known[seat] |= _BIT[self.upcard]
                self.table = _BIT[seven]
                self._emit("trump7_swap", seat=seat, seven=TOKENS[seven], took=TOKENS[self.upcard])
            self._play_starts()

    def _bid(self, seat: int, action: str) -> None:
        if action == "pass":
            self._emit("pass", seat=seat, round=self.bid_round)
            self.passes += 1
            if self.passes < self.players:
                self.turn = self.nxt(seat)
                return
            if self.bid_round == 1:
                self._deal_rest()  # 003:L280: three more cards whatever happens
                self.bid_round = 2
                self.passes = 0
                self.turn = self.voorhand()
                return
            self._emit("redeal_all_pass", seat=self.dealer)
            self._thrown_in()
            return
        if action == "declare schmeiss":
            self.schmeisser = seat
            self.phase = "schmeiss"
            self.turn = self.nxt(seat)
            return
        suit = SUIT_LETTER[action[-1]]
        if self.bid_round == 1:
            self._emit("accept", seat=seat, suit=action[-1])
            self._made(seat, suit)
        else:
            self._emit("second_round_trump", seat=seat, suit=action[-1])
            self.maker = seat  # KB8: who names trump is the maker
            self.trump = suit
            self._play_starts()

    def _made(self, seat: int, suit: int) -> None:
        """Round 1 ended with ``seat`` as maker in the turned suit (KB12: the others are not asked)."""
        self.maker = seat  # KB8
        self.trump = suit
        self._deal_rest()
        seven = suit * 13 + SEVEN
        if self.upcard != seven:
            for s in self.order_from(self.voorhand()):
                if self.hands[s] >> seven & 1:
                    self.phase = "swap"
                    self.turn = s
                    return
        self._play_starts()

    def _play_starts(self) -> None:
        self._start_play(self.voorhand(), self.trump)  # KB5: voorhand leads

    def _thrown_in(self) -> None:
        """KB12: nobody plays; the same dealer deals again; the deal counts and scores nothing."""
        self.sheet.append([0.0] * self.players)
        if self._deals_done():
            self._finish()
            return
        self.deal_no += 1
        self._begin_deal()

    def _lead_mask(self, hand: int) -> int:
        if self.game.opts(KlopOptions).schots and self.trump is not None:
            # KB16: the worthless trumps (8 and 7) are not led while the leader holds another card
            low = _BIT[self.trump * 13 + EIGHT] | _BIT[self.trump * 13 + SEVEN]
            rest = hand & ~low
            if rest:
                return rest
        return hand

    # ------------------------------------------------------------------ play events
    def _before_play(self, seat: int, c: int, hand: int) -> None:
        trump = self.trump
        if trump is None:
            return
        if c // 13 == trump:
            k, q = trump * 13 + KING, trump * 13 + QUEEN
            if c in (k, q):
                other = q if c == k else k
                # KB9: Stuk on the first of K and Q while holding the other, en Brok on the second
                if self.bela[seat] == 0 and hand >> other & 1:
                    self.bela[seat] = 1
                    self.known[seat] |= _BIT[other]
                    self._emit("stuk", seat=seat, card=TOKENS[c])
                elif self.bela[seat] == 1:
                    self.bela[seat] = 2
                    self._emit("en_brok", seat=seat, card=TOKENS[c], points=BELA)
            return
        jas = trump * 13 + JACK
        if self.tn and self.rule.bare_jas_free and hand & SUIT_MASK[trump] == _BIT[jas]:
            # KB10: was the Jas forced but for the hold-back?
            strict = mask_function(self.table_.order, KLOP_RULE_NO_HOLDBACK, trump)
            if not strict(hand, self.led, self.wcard, False) >> c & 1:
                self._emit("jas_held_back", seat=seat, card=TOKENS[c])

    def _trick_done(self, taker: int, number: int) -> None:
        if number == 1:
            self._sequences()  # KB6: melds of the first trick, compared and shown once it is over

    def _sequences(self) -> None:
        """KB2/KB6: after the first trick the best sequence wins; its holder scores all his."""
        n = self.players
        first = self.order_from(self.voorhand())
        best: tuple[int, int, int, int] | None = None
        who = -1
        runs_of: dict[int, list[tuple[int, int, int]]] = {}
        for pos, s in enumerate(first):
            held = self.hands[s]
            for p in self.plays[:n]:
                if p >> 6 == s:
                    held |= _BIT[p & 63]
            runs = runs_in(held, 3)
            if not runs:
                continue
            runs_of[s] = runs
            top = max(seq_key(r, self.trump) for r in runs)
            key = (*top, -pos)  # KB2 / KT2 / KT4: longer, higher top, trump, then voorhand
            if best is None or key > best:
                best, who = key, s
        if who < 0:
            return
        self.seq_winner = who
        pts = 0
        shown = 0
        for r in runs_of[who]:
            pts += KLOP_MELDS.run_value(r[2])  # KB1: 3 = 20, 4 or more = 50
            shown |= run_cards(r)
        self.seq_points = pts
        self.known[who] |= shown & self.hands[who]
        self._emit("sequence_meld", seat=who, points=pts, cards=hand_tokens(shown))

    # ------------------------------------------------------------------ melds, claim, scoring
    def _melds(self, seat: int) -> int:
        """This deal's melds of ``seat`` so far: sequences won (after trick 1) and the Bela."""
        m = self.seq_points if self.seq_winner == seat else 0
        if self.bela[seat] == 2:
            m += BELA
        return m

    def _counted(self, seat: int) -> int:
        """Deal points of ``seat`` so far, melds only once he has taken a trick (003:L303)."""
        return self.pts[seat] + (self._melds(seat) if self.ntricks[seat] else 0)

    def _may_claim(self, seat: int) -> bool:
        # KB7: offered whenever match score + melds + card points taken pass the target; KB14: this
        # claim also covers the "early finish" variant (card points of any trick count)
        if self.game.opts(KlopOptions).no_meld_finish:
            return False
        return self.score[seat] + self.pts[seat] + self._melds(seat) > self.game.opts(KlopOptions).target

    def _claim(self, seat: int) -> None:
        right = self.score[seat] + self._counted(seat) > self.game.opts(KlopOptions).target
        row = [float(self._counted(s)) for s in range(self.players)]
        for s in range(self.players):
            self.score[s] += int(row[s])
        self.sheet.append(row)
        self.claim = (seat, right)
        self._emit("claim_500_midhand", seat=seat, right=right, total=self.score[seat])
        self._finish()

    def _deal_over(self) -> None:
        n = self.players
        tot = [0] * n
        for s in range(n):
            m = self._melds(s)
            if m and not self.ntricks[s]:
                self._emit("meld_void_no_trick", seat=s, points=m)  # 003:L303
            tot[s] = self._counted(s)
        mk = self.maker
        defenders = [s for s in self.order_from(self.voorhand()) if s != mk]
        top = max(tot[d] for d in defenders)
        row = [float(t) for t in tot]
        tie_keeps = self.game.opts(KlopOptions).tie_keeps
        if tot[mk] > top or (tie_keeps and tot[mk] == top):
            winner = mk
        else:
            # KB3/KT1: the maker goes wet; his points go to the defender with the higher total
            best = [d for d in defenders if tot[d] == top]
            row[mk] = 0.0
            share = tot[mk] // len(best)
            for d in best:
                row[d] += share
            winner = best[0]  # KT3/KT4: ties broken by play order from voorhand
            self._emit("maker_wet", seat=mk, points=tot[mk], to=best, totals=tot)
        for s in range(n):
            self.score[s] += int(row[s])
        self.sheet.append(row)
        target = self.game.opts(KlopOptions).target
        hi = max(self.score)
        if (hi > target and self.score.count(hi) == 1) or self._deals_done():
            self._finish()  # KB13: the higher total over the target wins; equal: play on
            return
        self.deal_no += 1
        self.dealer = winner  # 003:L301: the winner deals
        self._begin_deal()

    # ------------------------------------------------------------------ views
    def scores(self) -> list[float]:
        return [float(s) for s in self.score]

    def ranking(self) -> list[int]:
        base = rank_by(self.scores(), lower_is_better=False)
        if self.claim is None:
            return base
        seat, right = self.claim
        n = self.players
        others = [s for s in range(n) if s != seat]
        sub = rank_by([self.score[s] for s in others], lower_is_better=False)
        out = [0] * n
        # KB7/KT5: a right claim wins the match, a wrong one loses it; the rest by totals
        for s, r in zip(others, sub, strict=True):
            out[s] = r + (1 if right else 0)
        out[seat] = 1 if right else n
        return out

    def _observe(self, seat: int) -> dict[str, JSON]:
        obs = self._observe_common(seat)
        obs.update({
            "voorhand": self.voorhand(),
            "maker": self.maker if self.maker >= 0 else None,
            "bid_round": self.bid_round,
            "match_scores": list(self.score),
            "target": self.game.opts(KlopOptions).target,
            "sequence_winner": self.seq_winner if self.seq_winner >= 0 else None,
            "sequence_points": self.seq_points,
            "bela": list(self.bela),
        })
        return obs

    def _why_illegal(self, verb: str, args: tuple[str, ...]) -> str:
        if verb == "trump" and self.phase == "bid":
            if self.bid_round == 1:
                return f"KB12: in the first round only the turned suit ({SUITS[self._upsuit()]}) is accepted"
            return f"KB12: in the second round the turned suit ({SUITS[self._upsuit()]}) may not be named"
        if verb == "declare" and args == ("claim",):
            return "KB7: a claim needs match score + this deal's melds and card points over the target"
        if verb == "play" and self.phase == "play" and args:
            return self._why_not_card(args[0])
        return ""

    def _why_not_held_card(self, c: int) -> str:
        if not self.tn:
            return "KB16 (schots): the trump 8 and 7 are not led while you hold another card"
        return ("follow suit; void, play a trump; on a trump lead beat the highest trump if you "
                "can (003:L294)")
