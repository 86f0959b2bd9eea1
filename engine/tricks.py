"""Shared trick-taking machinery over bitmask hands (single-pack games: physical id = base id).

* :class:`Order` ranks the cards within a suit, with an optional separate order for the trump suit
  (jass: J 9 A T K Q 8 7), and :func:`rank_order` builds one from a rank string.
* :func:`beats`: a trump beats every non-trump; otherwise only cards of the led suit can win, the
  strongest by the order.
* :class:`PlayRule` and :func:`mask_function`: the one trick-rule engine of every trick game.
  Follow suit, and the manille and the jass duties (overtake an opponent,
  overtrump on a trump lead, trump instead, overtrump when void, must trump, the undertrump bans,
  only-trumps cases, the bare-Jas exception, partner exemption) are frozen knobs compiled once per
  rule into a fast mask function; :func:`absent_after_play` is what a play shows everyone about
  the player's hand (for ``determinize``).
* :class:`Points` + :func:`points_table`: card points, trump-dependent where needed.

>>> o = rank_order("AKQJT98765432")
>>> beats(card("2S"), card("KH"), None, o), beats(card("2S"), card("KH"), SPADES, o)
(False, True)
"""
from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Final

from engine.cards import JACK, PACK, RANKS, SPADES, SUIT_MASKS, SUITS, TOKENS, Hand, bits, card, make  # noqa: F401


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


def beats(a: int, b: int, trump_suit: int | None, order: Order) -> bool:
    """Does card ``a``, played after ``b``, beat ``b`` (the card winning so far)?"""
    sa, sb = a // 13, b // 13
    if sa == sb:
        return order.strength(a, trump_suit) > order.strength(b, trump_suit)
    return sa == trump_suit


@dataclass(frozen=True)
class PlayRule:
    """What a player must play to a trick beyond following suit: every trick game's duties as
    frozen knobs, compiled once per (order, rule, trump) by :func:`mask_function`.

    A duty binds while an opponent wins the trick; with ``partner_exempt`` it lapses while the
    player's partner wins (games without partners pass ``partner_winning=False``: always bound).
    ``must_trump`` binds whoever wins.  The presets live with their families:
    ``engine.games.manille._manille`` (``MANILLE_RULE``, :func:`~engine.games.manille._manille.family_rule`,
    ``MANILLEN_RULE``) and ``engine.games.jass._jass`` (``KRUISJAS_RULE``, ``GREVJAS_RULE``,
    ``HANDJAS_RULE``, ``KLOP_RULE``, ``HONDERDEN_RULE`` ...); Hearts is :data:`FOLLOW_SUIT`.
    """

    overtake: bool = False
    """Following a plain lead while bound and the winning card is of the led suit: beat it if you
    can (the manille family)."""
    overtrump_trump_lead: bool = False
    """Trump led, following while bound: beat the trick's best trump if you can (the manille
    family, Handjas HJ10, Klop)."""
    trump_instead: bool = False
    """On a plain lead a player holding the led suit may trump instead (the Dutch jass games)."""
    overtrump: bool = False
    """Void in the led suit while bound (or under ``must_trump``): if a trump of yours beats the
    trick's best trump, play one (the manille family's trump duty; Butifarra B5)."""
    must_trump: bool = False
    """Void and holding a trump, whoever wins: play a trump (Klop KB11; Butifarra option B5
    ``must_trump``, which adds ``overtrump``).  It overrides ``no_undertrump`` and the partner
    exemption."""
    no_undertrump: bool = False
    """While bound, on a plain lead: no trump below the trick's best trump unless only trumps are
    held (void: play another card; with ``trump_instead``: follow instead).  Kruisjassen K6/K7,
    Handjas HJ1; ``manillen`` (seed 002 "mag niet onderkopen") and option ``no_losing_trump`` of the
    seed-003 manille games."""
    partner_no_undertrump: bool = False
    """The same ban while the partner wins and the duties lapse (``manillen``)."""
    only_trumps_overtrump: bool = False
    """With ``no_undertrump`` in force, a hand of only trumps must still beat the trick's best trump
    if it can (Kruisjassen K6, 003:L204 "nooit een lagere troef"; off: any trump, Handjas HJ20)."""
    bare_jas_free: bool = False
    """The Jas (jack of trumps) as its holder's only trump need never be played (trump led, or a
    forced trump): he may play any card (Handjas, Grevjas, Klop; Kruisjassen ``wild_jas``)."""
    partner_exempt: bool = True
    """The duties lapse while your partner wins the trick (off: the partner counts as an opponent)."""


FOLLOW_SUIT = PlayRule()


@dataclass(frozen=True)
class FirstTrickBan:
    """A declared rule beside a game's :class:`PlayRule`: on the first trick of a deal, a seat that
    cannot follow suit may not play a card of :attr:`cards` while it holds any other card
    (Hartenjagen H3: no heart or queen of spades).  Written once, in :meth:`legal`; the cards it
    holds back (what a game's event reports) and a refused card's reason are read off that mask.
    ``cards == 0`` bans nothing (the rule switched off by an option)."""

    cards: int
    """The banned cards (a mask)."""
    rule: str = ""
    """The decision it implements, as the reason cites it (``"H3"``)."""
    what: str = ""
    """The banned cards in words (``"no heart or QS"``)."""

    def legal(self, hand: Hand) -> Hand:
        """The cards of a void ``hand`` it lets the seat play on the first trick."""
        return hand & ~self.cards or hand

    def held_back(self, hand: Hand) -> Hand:
        """The cards of ``hand`` it keeps off the first trick (0: none)."""
        return hand & ~self.legal(hand)

    def why_refused(self, hand: Hand, c: int) -> str:
        """Why card ``c`` of a void ``hand`` may not be played to the first trick (``""``: it may)."""
        if self.legal(hand) >> c & 1:
            return ""
        if not hand >> c & 1:
            return f"{TOKENS[c]} is not in the hand"
        return f"{self.rule}: {self.what} on the first trick while you hold another card"


NO_FIRST_TRICK_BAN = FirstTrickBan(0)
"""Bans nothing: every card of a void hand may be played to the first trick."""

MaskFunction = Callable[[Hand, int, int, bool], Hand]
"""``(hand, led suit, winning card, partner_winning) -> legal mask`` (see :func:`mask_function`)."""


_MASK_FNS: dict[tuple[int, PlayRule, int | None], MaskFunction] = {}
_MASK_ORDERS: list[Order] = []


def mask_function(order: Order, rule: PlayRule, trump_suit: int | None) -> MaskFunction:
    """The legal-mask function for ``order``, ``rule`` and ``trump_suit``: ``(hand, led, w,
    partner_winning) -> mask`` for a trick already begun, given by its led suit and the card ``w``
    winning so far (the trick's best trump whenever it holds one).  Built once per combination, the
    rule's knobs and the order's tables bound in it, for a game's hot path.  This is the one place
    the rule is written (:func:`absent_after_play` is its public inference)."""
    key = (id(order), rule, trump_suit)
    hit = _MASK_FNS.get(key)
    if hit is not None:
        return hit
    overtake = rule.overtake
    over_lead = rule.overtrump_trump_lead
    trump_instead = rule.trump_instead
    overtrump = rule.overtrump
    must_trump = rule.must_trump
    no_under = rule.no_undertrump
    partner_no_under = rule.partner_no_undertrump
    only_over = rule.only_trumps_overtrump
    bare_free = rule.bare_jas_free
    exempt = rule.partner_exempt
    plain_above, trump_above = order.above
    suit_masks = SUIT_MASKS
    trump_mask = SUIT_MASKS[trump_suit] if trump_suit is not None else 0
    jas = 1 << (trump_suit * 13 + JACK) if trump_suit is not None else 0

    def mask(hand: Hand, led: int, w: int, partner_winning: bool) -> Hand:
        duty = not (partner_winning and exempt)
        follow = hand & suit_masks[led]
        if follow:
            if led == trump_suit:
                if bare_free and follow == jas:
                    return hand
                if over_lead and duty:
                    higher = follow & trump_above[w]
                    if higher:
                        return higher
                return follow
            if overtake and duty and w // 13 == led:
                higher = follow & plain_above[w]
                if higher:
                    return higher
            if trump_instead:
                trumps = hand & trump_mask
                if trumps:
                    if no_under if duty else partner_no_under:
                        return follow | (trumps & trump_above[w] if w // 13 == trump_suit else trumps)
                    return follow | trumps
            return follow
        trumps = hand & trump_mask
        if not trumps:
            return hand
        beat = trumps & trump_above[w] if w // 13 == trump_suit else trumps
        nu = no_under if duty else partner_no_under
        if trumps == hand:
            # only trumps held: one that beats the trick's best trump where a duty asks for it (K6)
            if beat and ((overtrump and (duty or must_trump)) or (nu and only_over)):
                return beat
            return hand
        if must_trump:
            if bare_free and trumps == jas:
                return hand
            return beat if overtrump and beat else trumps
        if overtrump and duty and beat:
            return beat
        if nu:
            return (hand & ~trumps) | beat
        return hand

    _MASK_FNS[key] = mask
    _MASK_ORDERS.append(order)  # keeps ``order`` alive, so its id() is not reused
    return mask


def absent_after_play(led: int, w: int, c: int, trump_suit: int | None, order: Order,
                      rule: PlayRule = FOLLOW_SUIT, partner_winning: bool = False) -> Hand:
    """Cards the player cannot have held when he played ``c`` to a trick led in ``led`` and won so
    far by ``w`` (a public inference, drawn from :func:`mask_function`'s rule).

    A player who does not follow is void in the led suit; one who follows below a card he was bound
    to beat holds nothing of that suit above it; one who discards while bound to trump holds no
    (winning) trump; one who undertrumps where that is barred holds only trumps (and, where a duty
    asks, none that wins).  Hands only shrink during play, so the cards stay absent for the rest
    of the deal.  The mask may name cards outside the game's deck; intersect as needed.

    >>> o = rank_order("TAKQJ987")
    >>> rule = PlayRule(overtake=True, overtrump_trump_lead=True, overtrump=True, no_undertrump=True)
    >>> [t for t in ("TC", "AC", "KC", "9C") if absent_after_play(0, card("KC"), card("9C"), SPADES,
    ...                                                          o, rule) >> card(t) & 1]
    ['TC', 'AC']
    """
    cs = c // 13
    duty = not (partner_winning and rule.partner_exempt)
    if cs == led:
        if led == trump_suit:
            bound = rule.overtrump_trump_lead
        else:
            bound = rule.overtake and w // 13 == led
        if bound and duty:
            above = order.beaters(w, trump_suit)
            if not above >> c & 1:
                return above
        return 0
    out = SUIT_MASKS[led]
    if trump_suit is None:
        return out
    tm = SUIT_MASKS[trump_suit]
    held_back = tm & ~(1 << (trump_suit * 13 + JACK)) if rule.bare_jas_free else tm
    if led == trump_suit:
        return held_back
    beat = order.above[1][w] if w // 13 == trump_suit else tm
    nu = rule.no_undertrump if duty else rule.partner_no_undertrump
    over = rule.overtrump and (duty or rule.must_trump)
    if cs != trump_suit:  # a discard, void in the led suit
        if rule.must_trump:
            return out | held_back
        return out | beat if over else out
    if beat >> c & 1:  # a winning trump
        return 0 if rule.trump_instead else out
    # an undertrump: from a hand holding the led suit, a void one, or one of only trumps
    if rule.trump_instead and not nu:
        return 0
    if rule.must_trump or not nu:
        return out | beat if over else out
    return out | (_ALL_SUITS & ~tm) | (beat if over or rule.only_trumps_overtrump else 0)


_ALL_SUITS = SUIT_MASKS[0] | SUIT_MASKS[1] | SUIT_MASKS[2] | SUIT_MASKS[3]


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


PLAY: Final[tuple[str, ...]] = tuple("play " + TOKENS[c] for c in range(52))
"""``play XX`` for every card of one pack."""
PLAY_TABLES: Final[SuitTables] = suit_action_tables(PLAY)
""":func:`suit_action_tables` of :data:`PLAY`, built once for every trick game."""


def why_refused(order: Order, rule: PlayRule, trump_suit: int | None, hand: Hand, led: int, w: int,
                partner_winning: bool, c: int) -> str:
    """Why card ``c`` may not be played to a trick led in ``led`` and won so far by ``w``, or ``""``
    when it may: the refusal is read off the legal mask that :func:`mask_function` makes from the
    same ``rule`` (never a second copy of the duties), by what the mask keeps of the hand."""
    legal = mask_function(order, rule, trump_suit)(hand, led, w, partner_winning)
    if legal >> c & 1:
        return ""
    if not hand >> c & 1:
        return f"{TOKENS[c]} is not in the hand"
    s = c // 13
    follow = hand & SUIT_MASKS[led]
    tm = SUIT_MASKS[trump_suit] if trump_suit is not None else 0
    if follow:
        if s == led:
            if led == trump_suit:
                return "trump led: play a trump that beats the trick's best trump if you can"
            return "beat the winning card if you can (follow suit higher)"
        if s == trump_suit and legal & tm:
            return "no trump below the trick's best trump while you can follow suit (no undertrump)"
        return f"follow suit: {SUITS[led]} was led"
    if s != trump_suit:
        return "void in the led suit: play a trump" + (
            " that beats the trick's best trump" if legal != hand & tm else "")
    if legal & tm:
        return "void in the led suit: play a trump that beats the trick's best trump"
    return "no trump below the trick's best trump unless you hold only trumps"


# ------------------------------------------------------------------ hands of trick games
PLAY_T: Final = PLAY_TABLES


def play_list(m: int) -> list[str]:
    """``play XX`` for every card of mask ``m``, lowest card first."""
    t = PLAY_T
    if m >> 39:
        return [*t[0][m & 8191], *t[1][m >> 13 & 8191], *t[2][m >> 26 & 8191], *t[3][m >> 39]]
    if m >> 26:
        return [*t[0][m & 8191], *t[1][m >> 13 & 8191], *t[2][m >> 26]]
    if m >> 13:
        return [*t[0][m & 8191], *t[1][m >> 13]]
    return list(t[0][m])


def mask_of_tokens(toks: Sequence[str], deck: int, what: str) -> int:
    """Mask of the strict tokens ``toks``; ``ValueError`` for a card outside ``deck`` or repeated."""
    m = 0
    for t in toks:
        c = card(t)
        if not deck >> c & 1:
            raise ValueError(f"{what}: {t} is not a card of this game's deck")
        if m >> c & 1:
            raise ValueError(f"{what}: {t} is given twice")
        m |= 1 << c
    return m


def constrained_deal(pool: int, sizes: Sequence[int], forbid: Sequence[int],
                     rng: random.Random) -> list[int] | None:
    """Deal the cards of ``pool`` into holders of ``sizes`` so that no holder gets a card of its
    ``forbid`` mask.  Randomised greedy (most constrained card first) with retries, then an exact
    matching; ``None`` only if no deal satisfies the constraints."""
    cards = bits(pool)
    k = len(sizes)
    if sum(sizes) != len(cards):
        raise ValueError(f"redeal of {len(cards)} cards into holders of sizes {list(sizes)}")
    live = [(h, forbid[h]) for h in range(k) if sizes[h]]
    allowed = [[h for h, f in live if not f >> c & 1] for c in cards]
    width = [len(a) for a in allowed]
    order = list(range(len(cards)))
    rnd = rng.random
    for _ in range(12):
        rng.shuffle(order)
        order.sort(key=width.__getitem__)
        room = list(sizes)
        out = [0] * k
        for i in order:
            opts = [h for h in allowed[i] if room[h]]
            if not opts:
                break
            h = opts[0]
            last = len(opts) - 1
            if last:
                # a holder with room, weighted by its room: random.choices(opts, weights=room) inlined
                # (the same draw: one random() scaled by the total, the first cumulative room above it)
                x = rnd() * (sum([room[o] for o in opts]) + 0.0)
                acc = room[h]
                j = 0
                while j < last and acc <= x:
                    j += 1
                    h = opts[j]
                    acc += room[h]
            room[h] -= 1
            out[h] |= 1 << cards[i]
        else:
            return out
    # exact fallback: bipartite matching of cards to holder slots (Kuhn's augmenting paths)
    slots = [h for h in range(k) for _ in range(sizes[h])]
    rng.shuffle(slots)
    slot_card = [-1] * len(slots)

    def augment(i: int, seen: list[bool]) -> bool:
        for j, h in enumerate(slots):
            if not seen[j] and h in allowed[i]:
                seen[j] = True
                if slot_card[j] < 0 or augment(slot_card[j], seen):
                    slot_card[j] = i
                    return True
        return False

    idx = list(range(len(cards)))
    rng.shuffle(idx)
    for i in idx:
        if not augment(i, [False] * len(slots)):
            return None
    out = [0] * k
    for j, i in enumerate(slot_card):
        out[slots[j]] |= 1 << cards[i]
    return out
