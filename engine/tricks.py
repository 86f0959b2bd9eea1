"""Shared trick-taking machinery over bitmask hands (single-pack games: physical id = base id).

* :class:`Order` ranks the cards within a suit, with an optional separate order for the trump suit
  (jass: J 9 A T K Q 8 7), and :func:`rank_order` builds one from a rank string.
* :func:`beats` / :func:`trick_winner`: a trump beats every non-trump; otherwise only cards of the
  led suit can win, the strongest by the order.
* :class:`PlayRule` + :func:`legal_plays`: follow suit, and the manille family's duties (overtake
  an opponent, trump when void, no losing trump, partner exemption, must trump) as parameters;
  :func:`legal_mask` is the same rule for a trick given as its led suit and winning card;
  :func:`absent_after_play`: what a play shows everyone about the player's hand (for determinize).
* :class:`Points` + :func:`trick_points`: card points, trump-dependent where needed.

>>> o = rank_order("AKQJT98765432")
>>> trick = [card("TH"), card("KH"), card("2S"), card("AD")]
>>> trick_winner(trick, None, o), trick_winner(trick, SPADES, o)
(1, 2)
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

from engine.cards import JOKER, PACK, RANKS, SPADES, SUIT_MASKS, TOKENS, Hand, card, make  # noqa: F401


def suit(c: int) -> int:
    """Suit of a card of a single pack (no jokers in trick games)."""
    return c // 13


@dataclass(frozen=True)
class Order:
    """Card strength within a suit: ``plain[c]`` for every card, ``trump[c]`` for the trump suit.

    Strengths are comparable only within one suit; higher wins.
    """

    plain: tuple[int, ...]
    trump: tuple[int, ...]

    def strength(self, c: int, trump_suit: int | None) -> int:
        return self.trump[c] if c // 13 == trump_suit else self.plain[c]

    @cached_property
    def above(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """``above[0][c]``: mask of the cards of ``c``'s suit that beat it as plain cards;
        ``above[1][c]``: the same within the trump suit (built once per order)."""
        def table(st: tuple[int, ...]) -> tuple[int, ...]:
            out = []
            for c in range(len(st)):
                s = c // 13
                m = 0
                if s < 4:
                    for x in range(13 * s, 13 * s + 13):
                        if st[x] > st[c]:
                            m |= 1 << x
                out.append(m)
            return tuple(out)
        return table(self.plain), table(self.trump)

    def beaters(self, c: int, trump_suit: int | None) -> int:
        """Mask of the cards of ``c``'s suit that beat ``c``."""
        return self.above[1 if c // 13 == trump_suit else 0][c]


def _table(ranks_high_first: str) -> tuple[int, ...]:
    ranks = ranks_high_first.replace(" ", "")
    if len(set(ranks)) != len(ranks) or not set(ranks) <= set(RANKS):
        raise ValueError(f"bad rank order {ranks_high_first!r}: give distinct ranks from {RANKS}")
    table = [-1] * PACK
    for pos, r in enumerate(reversed(ranks)):
        for s in range(4):
            table[make(RANKS.index(r), s)] = pos
    return tuple(table)


def rank_order(plain: str, trump: str | None = None) -> Order:
    """An :class:`Order` from ranks written highest first; ranks left out do not occur.

    >>> manille = rank_order("TAKQJ987")
    >>> manille.plain[card("TS")] > manille.plain[card("AS")]
    True
    """
    p = _table(plain)
    return Order(p, _table(trump) if trump else p)


NATURAL = rank_order("AKQJT98765432")
"""A high, ranks in their natural order (Hearts)."""


@dataclass(frozen=True)
class Points:
    """Card points: ``plain[c]`` for every card, ``trump[c]`` for cards of the trump suit."""

    plain: tuple[int, ...]
    trump: tuple[int, ...]

    def of(self, c: int, trump_suit: int | None) -> int:
        return self.trump[c] if c // 13 == trump_suit else self.plain[c]


def points_table(plain: dict[str, int], trump: dict[str, int] | None = None) -> Points:
    """:class:`Points` from rank -> points maps (ranks not named score 0).

    >>> manille = points_table({"T": 5, "A": 4, "K": 3, "Q": 2, "J": 1})
    >>> sum(manille.plain[c] for c in range(52) if c % 13 >= 5)
    60
    """
    def build(m: dict[str, int]) -> tuple[int, ...]:
        t = [0] * PACK
        for r, v in m.items():
            for s in range(4):
                t[make(RANKS.index(r), s)] = v
        return tuple(t)
    p = build(plain)
    return Points(p, build(trump) if trump is not None else p)


def trick_points(trick: Sequence[int], trump_suit: int | None, pts: Points) -> int:
    return sum(pts.of(c, trump_suit) for c in trick)


def beats(a: int, b: int, trump_suit: int | None, order: Order) -> bool:
    """Does card ``a``, played after ``b``, beat ``b`` (the card winning so far)?"""
    sa, sb = a // 13, b // 13
    if sa == sb:
        return order.strength(a, trump_suit) > order.strength(b, trump_suit)
    return sa == trump_suit


def trick_winner(trick: Sequence[int], trump_suit: int | None, order: Order) -> int:
    """Index (0 = the lead) of the card that wins ``trick``."""
    best, bc = 0, trick[0]
    for i in range(1, len(trick)):
        c = trick[i]
        if beats(c, bc, trump_suit, order):
            best, bc = i, c
    return best


def follow_mask(hand: Hand, led_suit: int) -> Hand:
    """The cards of ``hand`` that follow ``led_suit``, or the whole hand when void."""
    m = hand & SUIT_MASKS[led_suit]
    return m if m else hand


def stronger_mask(hand: Hand, than: int, trump_suit: int | None, order: Order) -> Hand:
    """Cards of ``hand`` in ``than``'s suit that beat it."""
    return hand & order.above[1 if than // 13 == trump_suit else 0][than]


@dataclass(frozen=True)
class PlayRule:
    """What a player must play to a trick beyond following suit.

    The manille family (RULES.md, "Common rule for the manille family") is
    ``PlayRule(overtake=True, trump_duty=True)`` in the seed-003 games (a void player with no
    winning trump may play any card, a losing trump included) and adds ``no_losing_trump`` in
    ``manillen``; Hearts is ``PlayRule()``.
    """

    overtake: bool = False
    """Following suit while an opponent wins with a card of the led suit: beat it if you can."""
    trump_duty: bool = False
    """Void while an opponent wins: play a trump that beats every trump in the trick, if you can."""
    no_losing_trump: bool = False
    """Void while an opponent wins and no trump of yours wins: no trump, unless you hold only trumps
    (``manillen``, seed 002 "mag niet onderkopen"; option ``no_losing_trump`` of the seed-003 games,
    whose L27/L50/L98 "dan mag je bijgooien wat je wilt" allows any card)."""
    partner_exempt: bool = True
    """The duties lapse while your partner wins the trick (off: the partner counts as an opponent)."""
    partner_no_undertrump: bool = False
    """Void while your partner wins with a trump: no lower trump unless only trumps (manillen)."""
    must_trump: bool = False
    """Void and holding a trump, whoever wins: play a trump, one that beats the trick's highest
    trump if you have one, else any trump (Butifarra option B5 ``must_trump``; the official
    Botifarra rule as in andreuts/botifarra).  It overrides ``no_losing_trump`` and the partner
    exemption when void."""


FOLLOW_SUIT = PlayRule()

MaskFunction = Callable[[Hand, int, int, bool], Hand]
"""``(hand, led suit, winning card, partner_winning) -> legal mask`` (see :func:`mask_function`)."""


def legal_plays(hand: Hand, trick: Sequence[int], winner: int, trump_suit: int | None,
                order: Order, rule: PlayRule = FOLLOW_SUIT, partner_winning: bool = False) -> Hand:
    """The mask of cards of ``hand`` that may be played to ``trick``.

    ``winner`` is the index in ``trick`` of the card winning so far; ``partner_winning`` says it
    was played by the player's partner.
    """
    if not trick:
        return hand
    return legal_mask(hand, trick[0] // 13, trick[winner], trump_suit, order, rule, partner_winning)


def legal_mask(hand: Hand, led: int, w: int, trump_suit: int | None, order: Order,
               rule: PlayRule = FOLLOW_SUIT, partner_winning: bool = False) -> Hand:
    """:func:`legal_plays` for a trick already begun, given by its led suit and the card ``w``
    winning so far (for games that keep the trick as a few ints on their hot path)."""
    key = (id(order), rule, trump_suit)
    fn = _MASK_FNS.get(key)
    if fn is None:
        fn = mask_function(order, rule, trump_suit)
    return fn(hand, led, w, partner_winning)


_MASK_FNS: dict[tuple[int, PlayRule, int | None], MaskFunction] = {}


def mask_function(order: Order, rule: PlayRule, trump_suit: int | None) -> MaskFunction:
    """:func:`legal_mask` with ``order``, ``rule`` and ``trump_suit`` fixed: a function
    ``(hand, led, w, partner_winning) -> mask``, built once per combination (the rule's flags and
    the order's tables are bound in it, for a game's hot path).  This is the one place the rule
    is written."""
    key = (id(order), rule, trump_suit)
    hit = _MASK_FNS.get(key)
    if hit is not None:
        return hit
    overtake = rule.overtake
    trump_duty = rule.trump_duty
    no_losing_trump = rule.no_losing_trump
    partner_exempt = rule.partner_exempt
    partner_no_undertrump = rule.partner_no_undertrump
    must_trump = rule.must_trump
    plain_above, trump_above = order.above
    suit_masks = SUIT_MASKS
    trump_mask = SUIT_MASKS[trump_suit] if trump_suit is not None else 0

    def mask(hand: Hand, led: int, w: int, partner_winning: bool) -> Hand:
        duty = not (partner_winning and partner_exempt)
        follow = hand & suit_masks[led]
        if follow:
            if overtake and duty and (w // 13 == led):
                higher = follow & (trump_above if led == trump_suit else plain_above)[w]
                if higher:
                    return higher
            return follow
        if trump_suit is None:
            return hand
        trumps = hand & trump_mask
        if not trumps:
            return hand
        beat = trumps & trump_above[w] if w // 13 == trump_suit else trumps
        if must_trump:
            return beat or trumps
        if duty and trump_duty:
            if beat:
                return beat
            if no_losing_trump and trumps != hand:
                return hand & ~trumps
            return hand
        if not duty and partner_no_undertrump and w // 13 == trump_suit and trumps != hand:
            return (hand & ~trumps) | beat
        return hand

    _MASK_FNS[key] = mask
    _MASK_ORDERS.append(order)  # keeps ``order`` alive, so its id() is not reused
    return mask


_MASK_ORDERS: list[Order] = []


def absent_after_play(trick: Sequence[int], winner: int, c: int, trump_suit: int | None, order: Order,
                      rule: PlayRule = FOLLOW_SUIT, partner_winning: bool = False) -> Hand:
    """Cards the player cannot have held when he played ``c`` to ``trick`` (a public inference).

    Everyone at the table can draw it from :func:`legal_plays`: a player who does not follow is void
    in the led suit; one who follows below an opponent's card holds nothing of that suit above it;
    one who discards while bound to trump holds no winning trump; one who plays a losing trump where
    that is barred holds only trumps; one who must trump (``must_trump``) and does not holds no
    trump, and one who then plays a losing trump holds no winning one.  Hands only shrink during
    play, so the cards stay absent for the rest of the deal.  The mask may name cards outside the
    game's deck; intersect as needed.

    >>> o = rank_order("TAKQJ987")
    >>> rule = PlayRule(overtake=True, trump_duty=True, no_losing_trump=True)
    >>> [t for t in ("TC", "AC", "KC", "9C") if absent_after_play([card("KC")], 0, card("9C"), SPADES,
    ...                                                          o, rule) >> card(t) & 1]
    ['TC', 'AC']
    """
    if not trick:
        return 0
    led = trick[0] // 13
    cs = c // 13
    w = trick[winner]
    duty = not (partner_winning and rule.partner_exempt)
    if cs == led:
        if rule.overtake and duty and w // 13 == led and not beats(c, w, trump_suit, order):
            return _stronger_in_suit(w, trump_suit, order)
        return 0
    out = SUIT_MASKS[led]
    if trump_suit is None or led == trump_suit:
        return out
    trumps = SUIT_MASKS[trump_suit]
    others = _ALL_SUITS & ~trumps
    beat = _stronger_in_suit(w, trump_suit, order) if w // 13 == trump_suit else trumps
    if rule.must_trump:
        if cs != trump_suit:
            return out | trumps
        return out if beat >> c & 1 else out | beat
    if duty:
        if not rule.trump_duty:
            return out
        if cs != trump_suit:
            return out | beat
        if beat >> c & 1:
            return out
        return out | beat | (others if rule.no_losing_trump else 0)
    if (rule.partner_no_undertrump and cs == trump_suit and w // 13 == trump_suit
            and not beat >> c & 1):
        return out | others
    return out


_ALL_SUITS = SUIT_MASKS[0] | SUIT_MASKS[1] | SUIT_MASKS[2] | SUIT_MASKS[3]


def _stronger_in_suit(w: int, trump_suit: int | None, order: Order) -> Hand:
    """Every card of ``w``'s suit that beats it."""
    return order.beaters(w, trump_suit)


# ------------------------------------------------------------------ action-string tables
SuitTables = tuple[tuple[tuple[str, ...], ...], ...]


def suit_action_tables(strings: Sequence[str]) -> SuitTables:
    """For each suit, the action strings of every 13-bit subset of its cards, lowest card first:
    ``tables[s][m]`` lists ``strings[c]`` for the cards ``c`` of suit ``s`` in ``m`` (the suit's
    13 bits, shifted down).  Turns a legal mask into its action list with a few lookups."""
    out = []
    for s in range(4):
        table: list[tuple[str, ...]] = [()] * 8192
        for x in range(1, 8192):
            top = x.bit_length() - 1
            table[x] = table[x ^ (1 << top)] + (strings[s * 13 + top],)
        out.append(tuple(table))
    return tuple(out)


PLAY: tuple[str, ...] = tuple("play " + TOKENS[c] for c in range(52))
"""``play XX`` for every card of one pack."""
PLAY_TABLES: SuitTables = suit_action_tables(PLAY)
""":func:`suit_action_tables` of :data:`PLAY`, built once for every trick game."""
