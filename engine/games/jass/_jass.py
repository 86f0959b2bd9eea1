"""Shared jass machinery (RULES.md "Common jass tables"; games 2.11-2.19).

Not a game.  What every jass card shares, written once:

* **Tables** (:class:`JassTable`): rank order and card points for each variant, with the last-trick
  bonus: :data:`HANDJAS` (36 cards, 157), :data:`TEN_LOW` (Dutch "10 low": Kruisjassen, Schutjassen,
  Grevjas, Honderden; 146), :data:`TEN_HIGH` (Klop/Bela; 162), :data:`JO_JOTTE` (165; 130 without
  trump).  Trump order is always J 9 A ...; ``points.of(c, trump)`` gives a card's value (with
  ``trump=None`` the J and 9 are plain cards).
* **Roem (melds)**: sequences in natural order A K Q J 10 9 8 7 6 (the card's rank int, so a run is
  consecutive bits of a suit), four of a kind (carré) and Stuk (K+Q of trump).  :class:`MeldValues`
  holds one card's values (run value by length, carré value by rank, Stuk); :func:`hand_melds`
  lists the melds of a hand (runs at full length, or every sub-run), :func:`announcements` the sets
  a player may announce together (runs at full length; disjoint, or not), :func:`trick_melds`
  the roem in one trick ("roem in de slag"), :func:`has_stuk`.  Melds compare by the card's key:
  :func:`key_cards_top` (Kruisjassen K11, Grevjas GJ10, Honderden: more cards, then higher top
  card, then value) or :func:`key_value_cards_top` (Handjas HJ13: value first).
* **Trick duties**: the presets :data:`KRUISJAS_RULE`, :data:`WILD_JAS_RULE`, :data:`GREVJAS_RULE`,
  :data:`HANDJAS_RULE`, :data:`HANDJAS_SWISS_RULE`, :data:`KLOP_RULE`, :data:`KLOP_RULE_NO_HOLDBACK`
  and :data:`HONDERDEN_RULE` of the one trick-rule engine, :class:`engine.tricks.PlayRule` (follow
  suit; may trump instead; no undertrump; must trump when void; overtrump when trump is led; the
  bare Jas held back), compiled by :func:`engine.tricks.mask_function`.

>>> TEN_LOW.card_total(), TEN_LOW.deal_total(), HANDJAS.deal_total(), TEN_HIGH.deal_total()
(141, 146, 157, 162)
>>> [m.describe() for m in hand_melds(mask_of_tokens("KH QH JH TH JC JD JS"), 2, KRUISJAS_MELDS)]
['run 4 to KH', 'carre J']
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import combinations

from engine.cards import JACK, KING, NINE, QUEEN, RANKS, SUIT_MASKS, SUITS, TOKENS, bits, card, mask_of
from engine.tricks import Order, PlayRule, Points, points_table, rank_order

SUIT_MASK = SUIT_MASKS


def mask_of_tokens(text: str | Sequence[str]) -> int:
    """Mask of card tokens (a space-separated string or a list), e.g. ``"KH QH JH"``."""
    return mask_of(card(t) for t in (text.split() if isinstance(text, str) else text))


# ----------------------------------------------------------------------------- tables
@dataclass(frozen=True)
class JassTable:
    """One jass variant's card order, card points and last-trick bonus."""

    name: str
    order: Order
    points: Points
    last_trick: int
    ranks: str
    """The ranks of the deck, low first (``"789TJQKA"``)."""

    @property
    def deck(self) -> int:
        """Mask of the deck (one pack)."""
        m = 0
        for r in self.ranks:
            for s in range(4):
                m |= 1 << (s * 13 + RANKS.index(r))
        return m

    @cached_property
    def points_by_trump(self) -> tuple[tuple[int, ...], ...]:
        """``points_by_trump[t][c]``: card ``c``'s points with trump suit ``t`` (0-3)."""
        return tuple(tuple(self.points.of(c, t) for c in range(52)) for t in range(4))

    @cached_property
    def strength_by_trump(self) -> tuple[tuple[int, ...], ...]:
        """``strength_by_trump[t][c]``: card ``c``'s strength with trump suit ``t`` (0-3)."""
        return tuple(tuple(self.order.strength(c, t) for c in range(52)) for t in range(4))

    def card_points(self, m: int, trump: int | None) -> int:
        """Card points of the cards in ``m`` with ``trump`` (``None``: no trump)."""
        t = self.points.plain if trump is None else self.points_by_trump[trump]
        return sum(t[c] for c in bits(m))

    def card_total(self, trump: int | None = 0) -> int:
        """Card points of the whole deck."""
        return self.card_points(self.deck, trump)

    def deal_total(self, trump: int | None = 0) -> int:
        """Card points of the whole deck plus the last-trick bonus."""
        return self.card_total(trump) + self.last_trick

    def jas(self, trump: int) -> int:
        """The Jas (jack of trumps)."""
        return trump * 13 + JACK

    def nel(self, trump: int) -> int:
        """The Nel (nine of trumps)."""
        return trump * 13 + NINE


HANDJAS = JassTable(
    "handjas", rank_order("AKQJT9876", "J9AKQT876"),
    points_table({"A": 11, "K": 4, "Q": 3, "J": 2, "T": 10},
                 {"J": 20, "9": 14, "A": 11, "K": 4, "Q": 3, "T": 10}),
    5, "6789TJQKA")
"""Handjas (36 cards): trump J 20 > 9 14 > A 11 > K 4 > Q 3 > 10 10 > 8 > 7 > 6; plain
A 11 > K 4 > Q 3 > J 2 > 10 10 > 9 > 8 > 7 > 6; 152 + 5 = 157."""
TEN_LOW = JassTable(
    "ten_low", rank_order("AKQJT987", "J9AKQT87"),
    points_table({"A": 11, "K": 3, "Q": 2, "J": 1, "T": 10},
                 {"J": 20, "9": 14, "A": 11, "K": 3, "Q": 2, "T": 10}),
    5, "789TJQKA")
"""Dutch "10 low" (Kruisjassen, Schutjassen, Grevjas, Honderden): trump J 20 > 9 14 > A 11 > K 3 >
Q 2 > 10 10 > 8 > 7; plain A 11 > K 3 > Q 2 > J 1 > 10 10 > 9 > 8 > 7; 141 + 5 = 146."""
TEN_HIGH = JassTable(
    "ten_high", rank_order("ATKQJ987", "J9ATKQ87"),
    points_table({"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2},
                 {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3}),
    10, "789TJQKA")
"""Klop/Bela "10 high": trump J 20 > 9 14 > A 11 > 10 10 > K 4 > Q 3 > 8 > 7; plain A 11 > 10 10 >
K 4 > Q 3 > J 2 > 9 > 8 > 7; 152 + 10 = 162."""
JO_JOTTE = JassTable(
    "jo_jotte", rank_order("ATKQJ987", "J9ATKQ87"),
    points_table({"A": 10, "T": 10, "K": 5, "Q": 5},
                 {"J": 20, "9": 15, "A": 10, "T": 10, "K": 5, "Q": 5}),
    10, "789TJQKA")
"""Jo-Jotte (seed values): trump J 20, 9 15, A 10, 10 10, K 5, Q 5; plain A 10, 10 10, K 5, Q 5;
155 + 10 = 165; without trump 120 + 10 = 130."""
TABLES: dict[str, JassTable] = {t.name: t for t in (HANDJAS, TEN_LOW, TEN_HIGH, JO_JOTTE)}

LAST_TRICK_BONUS = 5
"""The Dutch and Swiss last-trick bonus (Klop/Bela and Jo-Jotte: 10, see the tables)."""


# ----------------------------------------------------------------------------- melds
RUN, CARRE, STUK = "run", "carre", "stuk"


@dataclass(frozen=True)
class MeldValues:
    """One card's meld values.

    ``runs[k]`` is a run of ``k`` cards' value (a run longer than the tuple takes its last entry;
    0 = no meld); ``carres[rank]`` a carré's (0 = no meld); ``stuk`` K+Q of trump.
    """

    runs: tuple[int, ...]
    carres: tuple[int, ...]
    stuk: int = 20

    def run_value(self, length: int) -> int:
        r = self.runs
        return r[length] if length < len(r) else r[-1]

    @property
    def min_run(self) -> int:
        """The shortest run that is a meld."""
        return next(k for k, v in enumerate(self.runs) if v)


def carre_table(values: dict[str, int]) -> tuple[int, ...]:
    """A ``carres`` tuple from rank letter -> value (ranks not named: no carré)."""
    t = [0] * 13
    for r, v in values.items():
        t[RANKS.index(r)] = v
    return tuple(t)


KRUISJAS_MELDS = MeldValues((0, 0, 0, 20, 50, 100), carre_table({"J": 200, "A": 100, "K": 100, "Q": 100}))
"""Kruisjassen / Schutjassen (K15: a run of 5-8 is 100): four jacks 200; four A, K, Q 100; run of
3 = 20, 4 = 50, 5+ = 100; Stuk 20."""
GREVJAS_MELDS = MeldValues((0, 0, 0, 20, 50, 500),
                           carre_table({"J": 100, "Q": 200, "K": 300, "A": 400}))
"""Grevjas: run of 3 = 20, 4 = 50, 5+ = 500; four J 100, Q 200, K 300, A 400; Stuk 20."""
HANDJAS_MELDS = MeldValues((0, 0, 0, 20, 50, 100, 150, 200, 250, 300),
                           carre_table({"6": 100, "7": 100, "8": 100, "T": 100, "Q": 100, "K": 100,
                                        "A": 100, "9": 150, "J": 200}))
"""Handjas (HJ11, seed): every carré 100, nines 150, jacks 200; runs 3..9 = 20 50 100 150 200 250 300."""
HANDJAS_SWISS_MELDS = MeldValues(HANDJAS_MELDS.runs,
                                 carre_table({"T": 100, "Q": 100, "K": 100, "A": 100, "9": 150, "J": 200}))
"""Handjas option ``swiss_carres`` (HJ11): only A, K, Q, 10 (100), 9 (150) and J (200) carrés."""
HONDERDEN_MELDS = MeldValues((0, 0, 0, 20, 50, 100),
                             carre_table({"J": 200, "A": 100, "K": 100, "Q": 100, "T": 100}))
"""Honderden (RULES.md section 4 #7): four jacks 200, four A, K, Q or 10 100; runs 3/4/5+ = 20/50/100."""


@dataclass(frozen=True)
class Meld:
    """One meld: its cards (a mask), kind, card count, top card's natural rank, suit (-1 for a
    carré) and value."""

    kind: str
    cards: int
    length: int
    top: int
    suit: int
    value: int
    extra: tuple[int, ...] = field(default=(), compare=False)

    def tokens(self) -> list[str]:
        """The cards, highest first (natural order; a carré in suit order C D H S)."""
        return [TOKENS[c] for c in reversed(bits(self.cards))]

    def describe(self) -> str:
        """What is announced (K13: a run by length and top card, a carré by its rank)."""
        if self.kind == RUN:
            return f"run {self.length} to {RANKS[self.top]}{SUITS[self.suit]}"
        if self.kind == CARRE:
            return f"carre {RANKS[self.top]}"
        return f"stuk {SUITS[self.suit]}"

    def top_card(self) -> int | None:
        """The top card of a run or Stuk (``None`` for a carré)."""
        return None if self.kind == CARRE else self.suit * 13 + self.top


def meld_cards(m: Meld) -> list[str]:
    """A meld's cards as announced by Handjas and Honderden: a run highest first, a carré in suit
    order C D H S."""
    cs = bits(m.cards)
    return [TOKENS[c] for c in (cs if m.kind == CARRE else reversed(cs))]


def meld_action(m: Meld) -> str:
    """``declare`` and the meld's cards (:func:`meld_cards`)."""
    return "declare " + " ".join(meld_cards(m))


def runs_in(hand: int, min_len: int = 3) -> list[tuple[int, int, int]]:
    """Maximal runs of at least ``min_len`` cards in one suit: ``(suit, low rank, length)``.

    >>> runs_in(mask_of_tokens("7H 8H 9H TH AS KS QS 9S"))
    [(2, 5, 4), (3, 10, 3)]
    """
    out = []
    for s in range(4):
        x = hand >> 13 * s & 0x1FFF
        r = 0
        while x:
            if x & 1:
                start = r
                while x & 1:
                    x >>= 1
                    r += 1
                if r - start >= min_len:
                    out.append((s, start, r - start))
            else:
                x >>= 1
                r += 1
    return out


def run_meld(suit: int, low: int, length: int, values: MeldValues) -> Meld:
    m = ((1 << length) - 1) << (suit * 13 + low)
    return Meld(RUN, m, length, low + length - 1, suit, values.run_value(length))


def carre_meld(rank: int, value: int) -> Meld:
    m = 0
    for s in range(4):
        m |= 1 << (s * 13 + rank)
    return Meld(CARRE, m, 4, rank, -1, value)


def carres_in(hand: int, values: MeldValues) -> list[Meld]:
    """The carrés of ``hand`` that are melds."""
    out = []
    for r in range(13):
        v = values.carres[r]
        if v:
            cm = carre_meld(r, v)
            if hand & cm.cards == cm.cards:
                out.append(cm)
    return out


def has_stuk(hand: int, trump: int | None) -> bool:
    """Does ``hand`` hold K and Q of trump?"""
    if trump is None:
        return False
    kq = 1 << (trump * 13 + KING) | 1 << (trump * 13 + QUEEN)
    return hand & kq == kq


def stuk_meld(trump: int, values: MeldValues) -> Meld:
    kq = 1 << (trump * 13 + KING) | 1 << (trump * 13 + QUEEN)
    return Meld(STUK, kq, 2, KING, trump, values.stuk)


def hand_melds(hand: int, trump: int | None, values: MeldValues, sub_runs: bool = False,
               stuk: bool = False) -> list[Meld]:
    """The melds in ``hand``: runs (at full length, or with ``sub_runs`` every run of at least the
    shortest meld length inside them), then carrés, then (with ``stuk``) Stuk."""
    out = []
    mn = values.min_run
    for s, low, length in runs_in(hand, mn):
        if sub_runs:
            for k in range(length, mn - 1, -1):
                for lo in range(low + length - k, low - 1, -1):
                    out.append(run_meld(s, lo, k, values))
        else:
            out.append(run_meld(s, low, length, values))
    out += carres_in(hand, values)
    if stuk and trump is not None and has_stuk(hand, trump):
        out.append(stuk_meld(trump, values))
    return out


def announcements(hand: int, trump: int | None, values: MeldValues, disjoint: bool = True,
                  max_melds: int = 3) -> list[tuple[Meld, ...]]:
    """The non-empty sets of melds (no Stuk) a player may announce together.

    Each run is announced at its full length and never split into two runs (K12).  ``disjoint``
    (Kruisjassen K12, Grevjas GJ10): no card in two melds of one announcement, so where a carré of
    the announcement takes one of a run's cards, the run is announced at the longest length the
    remaining cards give (of two equally long pieces, the higher), or not at all when no piece is a
    meld.  Otherwise a card may sit in one run and one carré.

    >>> [" + ".join(m.describe() for m in a) for a in
    ...  announcements(mask_of_tokens("KH QH JH JC JD JS"), 0, KRUISJAS_MELDS)]
    ['run 3 to KH', 'carre J']
    >>> [" + ".join(m.describe() for m in a) for a in
    ...  announcements(mask_of_tokens("AH KH QH JH TH 9H JC JD"), 0, KRUISJAS_MELDS)][-1]
    'run 6 to AH'
    """
    full = hand_melds(hand, trump, values)
    out: list[tuple[Meld, ...]] = []
    for k in range(1, min(max_melds, len(full)) + 1):
        for combo in combinations(full, k):
            if not disjoint:
                out.append(combo)
                continue
            taken = 0
            for m in combo:
                if m.kind == CARRE:
                    taken |= m.cards
            shown: list[Meld] = []
            for m in combo:
                if m.kind == RUN and m.cards & taken:
                    # K12 / GJ10: the carré takes a card; the longest piece left, if a meld
                    pieces = runs_in(m.cards & ~taken, values.min_run)
                    if not pieces:
                        break
                    s, low, length = max(pieces, key=lambda p: (p[2], p[1]))
                    m = run_meld(s, low, length, values)
                shown.append(m)
            else:
                out.append(tuple(shown))
    return out


def trick_melds(cards: int, trump: int | None, values: MeldValues, stuk: bool = True) -> list[Meld]:
    """Roem in one trick ("roem in de slag", K5): runs of the trick's cards in one suit, a carré,
    and Stuk when K and Q of trump both lie in it.

    >>> [m.describe() for m in trick_melds(mask_of_tokens("9S TS JS 7H"), 2, KRUISJAS_MELDS)]
    ['run 3 to JS']
    """
    return hand_melds(cards, trump, values, stuk=stuk)


def key_cards_top(m: Meld) -> tuple[int, int, int]:
    """K11 / GJ10 / Honderden: more cards, then higher top card (a carré's rank), then value."""
    return (m.length, m.top, m.value)


def key_value_cards_top(m: Meld, trump: int | None = None) -> tuple[int, int, int, int]:
    """HJ13 (Handjas): value, then cards, then top card, then a run in trump."""
    return (m.value, m.length, m.top, 1 if m.kind == RUN and m.suit == trump else 0)


def best_meld(melds: Sequence[Meld], key: Callable[[Meld], tuple[int, ...]] = key_cards_top) -> Meld | None:
    """The strongest meld by ``key`` (the first of equals)."""
    best = None
    for m in melds:
        if best is None or key(m) > key(best):
            best = m
    return best


# ----------------------------------------------------------------------------- trick duties
# The jass cards' duties as presets of the one trick-rule engine (engine.tricks.PlayRule, compiled
# by engine.tricks.mask_function; engine.tricks.absent_after_play for determinize).  No partner
# notion: the jass games pass ``partner_winning=False``.
KRUISJAS_RULE = PlayRule(trump_instead=True, no_undertrump=True, only_trumps_overtrump=True)
"""Kruisjassen and Schutjassen (K6, K7): follow suit or trump instead; never undertrump on a plain
lead, a hand of only trumps included when it can go higher; void: any other card; trump led: any
trump."""
WILD_JAS_RULE = replace(KRUISJAS_RULE, bare_jas_free=True)
"""K18 ``wild_jas``: the Kruisjassen rule with the bare Jas free."""
GREVJAS_RULE = PlayRule(trump_instead=True, bare_jas_free=True)
"""Grevjas: you may always trump; void: any card; trump led: follow trump, a bare Jas held back."""
HANDJAS_RULE = PlayRule(trump_instead=True, no_undertrump=True, overtrump_trump_lead=True,
                        bare_jas_free=True)
"""Handjas (HJ1, HJ10, HJ20): no undertrump unless only trumps are held (then any trump); trump
led: beat the trick's best trump if able; the bare Jas may be kept back."""
HANDJAS_SWISS_RULE = replace(HANDJAS_RULE, overtrump_trump_lead=False)
"""Handjas option ``trump_lead_overtrump=False`` (HJ10, pagat): any trump on a trump lead."""
KLOP_RULE = PlayRule(must_trump=True, overtrump_trump_lead=True, bare_jas_free=True)
"""Klop (003:L294): follow suit; void, trump (any trump, KB11); trump led, overtrump if able, else
any trump; the Jas may be held back when it is its holder's only trump (KB10)."""
KLOP_RULE_NO_HOLDBACK = replace(KLOP_RULE, bare_jas_free=False)
"""The same without the Jas hold-back (option ``no_jas_holdback``; Jo-Jotte's rule)."""
HONDERDEN_RULE = PlayRule(trump_instead=True)
"""Honderden phase 3 (2p) and every trick (3p): follow suit or trump instead; void, any card; trump
led, a trump if you have one; never a duty to overtrump (seed 003 L404, L424)."""
