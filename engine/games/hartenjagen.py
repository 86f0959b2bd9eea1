"""Hartenjagen (Hearts). Seed 002, section "hartenjagen"; RULES.md card 2.3, decisions H1-H6.

Four players, one 52-card pack, A high, no trumps; hearts are 1 penalty point each and the queen
of spades 13 (26 a deal).  The holder of the two of clubs leads it; follow suit if you can, else
play anything; the highest card of the led suit takes the trick and leads the next.

Decisions followed (RULES.md 2.3):

* **H1** before play each seat passes three cards; the direction cycles by deal number: deal 1
  left (to the next seat in the direction of play), deal 2 right, deal 3 across, deal 4 no pass,
  then again.  X2: the seats pass one at a time in seat order (0, 1, 2, 3), one ``pass QS`` action
  per card; no seat sees another's passed cards, and the cards join the receivers' hands only
  once all twelve are passed.  The seat that passed a card knows where it went.
* **H2** hearts may not be led before they are broken, unless the leader holds only hearts (then
  ``forced_heart_lead``).  Hearts are broken by the first heart played, and by the queen of spades
  however it is played (option ``qs_breaks_hearts``).  RULES.md says "a heart or Q♠ discarded":
  a discard is the usual way, but as in OpenSpiel (whose flags the decision cites) a heart led by
  a seat holding only hearts, or the queen led or played to a spade trick, breaks hearts too.  A
  leader holding only hearts and the queen of spades must lead the queen (OpenSpiel's default).
* **H3** on the first trick a seat that cannot follow clubs may not play a heart or the queen of
  spades unless it holds nothing else (``points_on_first_trick_blocked`` records a seat held back).
  One rule object, :data:`H3` (:class:`engine.tricks.FirstTrickBan`): the legal masks, the event's
  held cards and the refusal's reason are all read off it.
* **H4** the match ends after a deal in which a seat reaches ``target`` (100) or more; the lowest
  total wins, equal totals share a place.
* **H5** a seat that takes all 26 points scores 0 and each other seat 26 (``moon_shot``).
* **H6** four players only.

Options (defaults = the card):

* ``pass_cards`` (True): H1 passing; False = never pass.
* ``must_break_hearts`` (True): H2, no heart lead before hearts are broken.
* ``qs_breaks_hearts`` (True): H2, playing the queen of spades breaks hearts.
* ``no_pts_on_first_trick`` (True): H3.
* ``target`` (100): H4, the match ends when a total reaches it.
* ``moon_shot`` ("others_plus_26"): H5; "self_minus_26" is the alternative the card rejects
  (the shooter scores -26, the others 0).

Actions: ``pass QS`` (passing phase, one card at a time) and ``play QS``.
The injected deal (X6) takes ``{"dealer", "hands": 4 x 13 tokens, "stock": [], "upcard": None}``
and optionally ``"pass_direction"``: "left", "right", "across" or "none" (default: the cycle's
first, "left", or "none" without ``pass_cards``).  Play starts at passing, or at the 2C lead.

Scores are cumulative penalty points (lower is better); ``score_sheet()`` has one row per deal,
which sums to 26, or 78 after a moon shot.
"""
from __future__ import annotations

import hashlib
import random
import struct
import types
from dataclasses import dataclass
from typing import Any, ClassVar, Final, final

from engine.cards import SUIT_MASKS, SUITS, TOKENS, card, hand_tokens, mask_names
from engine.core import JSON, CardTables, Game, Option, rank_by, register
from engine.trickplay import TrickState, trick_pairs, voids_shown
from engine.tricks import (
    FOLLOW_SUIT,
    NO_FIRST_TRICK_BAN,
    PLAY,
    PLAY_TABLES,
    FirstTrickBan,
    Points,
    rank_order,
    suit_action_tables,
)

# --------------------------------------------------------------------- tables, built once
NCARDS: Final = 52
FULL: Final = (1 << NCARDS) - 1
CLUBS_MASK: Final = SUIT_MASKS[0]
DIAMONDS_MASK: Final = SUIT_MASKS[1]
HEARTS_MASK: Final = SUIT_MASKS[2]
SPADES_MASK: Final = SUIT_MASKS[3]
TWO_CLUBS: Final = card("2C")
QUEEN_SPADES: Final = card("QS")
TWO_CLUBS_BIT: Final = 1 << TWO_CLUBS
QS_BIT: Final = 1 << QUEEN_SPADES
PENALTY_MASK: Final = HEARTS_MASK | QS_BIT
"""Hearts and the queen of spades: the cards H3 keeps off the first trick."""
H3: Final = FirstTrickBan(PENALTY_MASK, "H3", "no heart or QS")
"""H3 as one rule (option ``no_pts_on_first_trick``; off: :data:`~engine.tricks.NO_FIRST_TRICK_BAN`):
the hot path's mask, the from-scratch mask, the ``points_on_first_trick_blocked`` event's held cards
and the refusal's reason all come from it (tests/games/test_hartenjagen.py, test_h3_...)."""
PTS: Final[tuple[int, ...]] = tuple(13 if c == QUEEN_SPADES else 1 if c // 13 == 2 else 0
                                    for c in range(NCARDS))
TOTAL_POINTS: Final = 26
ORDER: Final = rank_order("AKQJT98765432")
"""Ace high, no trumps."""

PASS: Final[tuple[str, ...]] = tuple("pass " + TOKENS[c] for c in range(NCARDS))
PASS_SUIT: Final = 4
PLAY_INFO: Final[dict[str, tuple[int, int, int]]] = {s: (c, c // 13, 1 << c) for c, s in enumerate(PLAY)}
"""Action string -> (card id, its suit, its bit): the actions of the play phase."""
PLAY_CARD: Final[dict[str, int]] = {s: c for c, s in enumerate(PLAY)}
"""Action string -> card id (the play phase's, for deriving the deal's plays from the history)."""
SEAT_BITS: Final[tuple[int, ...]] = tuple((k & 3) << 6 for k in range(8))
"""Leader + place in the trick (0..7) -> the playing seat in the kernel's form ``seat << 6``."""
PASS_INFO: Final[dict[str, tuple[int, int, int]]] = {s: (c, PASS_SUIT, 1 << c) for c, s in enumerate(PASS)}
"""The same for the passing phase (suit PASS_SUIT).  A state looks actions up in its phase's
dict (``_info``), so a pass while playing (or a play while passing) is no key: one bit test of
the legal mask ``_lm`` checks the rest."""


PLAY_T: Final = PLAY_TABLES
PASS_T: Final = suit_action_tables(PASS)
PLAY_FLAT: Final[tuple[tuple[str, ...], ...]] = PLAY_T[0] + PLAY_T[1] + PLAY_T[2] + PLAY_T[3]
"""The same tables flattened: entry ``suit << 13 | m`` holds the actions of the cards of 13-bit
subset ``m`` of ``suit`` (one index instead of two)."""
PASS_FLAT: Final[tuple[tuple[str, ...], ...]] = PASS_T[0] + PASS_T[1] + PASS_T[2] + PASS_T[3]


def _pass_list(m: int) -> list[str]:
    """A fresh list of the pass actions of the cards in mask ``m``, in card order."""
    if NATIVE:
        return mask_names(PASS, m)
    return [*PASS_FLAT[m & 8191], *PASS_FLAT[8192 | m >> 13 & 8191], *PASS_FLAT[16384 | m >> 26 & 8191],
            *PASS_FLAT[24576 | m >> 39]]


NATIVE: Final[bool] = not isinstance(_pass_list, types.FunctionType)
"""True when this module runs compiled (mypyc: its functions are not Python functions).

The two builds build the legal lists differently, to the same lists: the pure source joins the
entries of the 13-bit suit tables (``PLAY_FLAT``, ``PASS_FLAT``: one opcode per suit), the
compiled build goes card by card over the 52-entry tuple (:func:`engine.cards.mask_names`, a few native
operations a card).  The tables are 2 x 32,768 tuples, about 6 MB: an entry is most often out
of the cache, and touching it (its reference count) cost the compiled build more than the whole
list it stands for (bench/README.md, "The compiled build")."""


SUBSET_COUNT: Final[tuple[int, ...]] = tuple(m.bit_count() for m in range(8192))
"""The number of cards in each 13-bit subset of a suit (a table: ``int.bit_count`` is a method
call in the compiled build)."""


PASS_COUNT: Final = 3
DIRECTIONS: Final = ("none", "left", "across", "right")
"""Pass direction by offset: a seat passes to seat + offset (mod 4)."""
CYCLE: Final = (1, 3, 2, 0)
"""H1: left, right, across, no pass, by deal number (deal 1 = left)."""
MOON_MODES: Final = ("others_plus_26", "self_minus_26")


# A deal: the seat labels 0 x13, 1 x13, 2 x13, 3 x13 get one random key each; sorting the keys puts
# the labels in uniformly random order, and the k-th label is the seat of card k.  Each key is the
# IEEE-754 double 2**52 + r * 256 + label (r: 44 random bits) in one 64-bit lane of a single big
# random int, so the sort is one C call over floats and the labels come back as every eighth byte
# (the low byte of each double).  A tie between two keys (about 1e-10 a deal) keeps label order.
_KEY_RANDOM: Final = sum((((1 << 52) - 1) ^ 255) << (64 * i) for i in range(NCARDS))
_KEY_FIXED: Final = sum(((0x433 << 52) | (i // 13)) << (64 * i) for i in range(NCARDS))
_SEAT_DIGITS: Final = tuple(bytes.maketrans(bytes(range(4)), bytes(49 if s == p else 48 for s in range(4)))
                     for p in range(4))
"""Per seat: the byte translation seat label -> ASCII '1' for that seat, '0' for the others."""
_KEYS: Final = struct.Struct(f"<{NCARDS}d")
_SHAKE: Final = hashlib.shake_128


def deal_keys(seed: int, deal_no: int) -> int:
    """Deal ``deal_no``'s randomness in the match of ``seed``: 52 64-bit words (one int, word ``i``
    at bits ``64 i``), the SHAKE-128 stream of ``b"hartenjagen:<seed>:<deal_no>"``.

    One hash a deal, rather than a Mersenne Twister seeded per match (4.5 µs) or per deal from a
    string (a SHA-512 and the seeding): a match's deals depend on the seed alone, so a clone or a
    determinized world needs no copy of an RNG state, and no deal can be predicted from another's
    cards (the stream is a cryptographic hash's; a Mersenne Twister's can be solved for from its
    outputs).
    """
    return int.from_bytes(_SHAKE(f"hartenjagen:{seed}:{deal_no}".encode()).digest(8 * NCARDS), "little")


def deal_hands(y: int) -> list[int]:
    """Four random 13-card hands (bitmasks) of the 52-card pack, uniformly, from the 52 random
    words of ``y`` (:func:`deal_keys`).

    Word ``i`` keeps 44 random bits as the mantissa of a float in [2**52, 2**53) and carries the
    seat label ``i // 13`` in its low byte; sorting the 52 floats puts the labels in a uniformly
    random order, and the ``k``-th label in it is the seat of card ``k`` (ties, about 2**-34 a deal,
    are broken by the label).

    >>> h = deal_hands(deal_keys(1, 1))
    >>> [x.bit_count() for x in h], h[0] | h[1] | h[2] | h[3] == FULL
    ([13, 13, 13, 13], True)
    """
    keys: list[float] = sorted(_KEYS.unpack((y & _KEY_RANDOM | _KEY_FIXED).to_bytes(8 * NCARDS, "little")))
    if NATIVE:  # the same masks, card by card in native ints (the key is an integral float: its
        # low bits are the label; three int parses and a pack cost the build more)
        h0 = h1 = h2 = 0
        bit = 1
        for f in keys:
            lab = int(f) & 255
            if lab == 0:
                h0 |= bit
            elif lab == 1:
                h1 |= bit
            elif lab == 2:
                h2 |= bit
            bit <<= 1
    else:
        labels = _KEYS.pack(*keys)[::8]  # seat of card k
        h0 = int(labels.translate(_SEAT_DIGITS[0])[::-1], 2)
        h1 = int(labels.translate(_SEAT_DIGITS[1])[::-1], 2)
        h2 = int(labels.translate(_SEAT_DIGITS[2])[::-1], 2)
    return [h0, h1, h2, FULL ^ h0 ^ h1 ^ h2]


SUIT_LETTERS: Final[tuple[tuple[str, ...], ...]] = tuple(tuple(SUITS[s] for s in range(4) if m >> s & 1)
                                                        for m in range(16))
"""A 4-bit mask of suits -> their letters, in suit order."""
WHOLE_SUITS: Final[dict[int, int]] = {
    (SUIT_MASKS[0] if m & 1 else 0) | (SUIT_MASKS[1] if m & 2 else 0) | (SUIT_MASKS[2] if m & 4 else 0)
    | (SUIT_MASKS[3] if m & 8 else 0): m for m in range(16)}
"""A card mask made of whole suits -> the 4-bit mask of those suits (what the voids are)."""


def _suit_letters(m: int) -> list[str]:
    return list(SUIT_LETTERS[m])


# --------------------------------------------------------------------- the state
@dataclass(frozen=True)
class HartenjagenOptions:
    """Hartenjagen's options (``Hartenjagen.options_spec``: H1-H5), typed."""

    pass_cards: bool = True
    must_break_hearts: bool = True
    qs_breaks_hearts: bool = True
    no_pts_on_first_trick: bool = True
    target: int = 100
    moon_shot: str = "others_plus_26"


@final  # (mypyc: calls to its methods and its fields skip the vtable)
class HartenjagenState(TrickState):
    """A Hartenjagen match, on the trick kernel (:class:`engine.trickplay.TrickState`): the
    kernel's ``hands``, ``pts``, ``turn``, ``dealer``, ``led``, ``wcard`` and ``wseat``; its zones,
    hidden cards, deal parser, follow-suit void inference and ``determinize``, with the passed cards
    as its hooks (the pending passes a face-down pile, each seat's own passes known to it).  The
    trick in progress is the mask ``tmask``; the deal's plays are the last ``nplayed`` actions of
    ``history`` and the won cards are derived from them (:meth:`_won_cards`), not lists kept by the
    hot path.  The fields touched on every action are ints and
    short lists of int masks kept in ``__slots__`` (the base's ``history``, ``events`` and ``_over``
    too)."""
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "hand": "your cards (list[card])",
        "dealer": "the seat that dealt this deal (int)",
        "target": "the match ends when a seat's total reaches this (int)",
        "pass_direction": "where the cards are passed this deal: `left`, `right`, `across` or `none`",
        "hand_counts": "cards held per seat (list[int])",
        "passed": "the cards you passed (list[card]); only in a deal with passing",
        "passed_to": "the seat you pass to (int); only in a deal with passing",
        "passes_made": "cards passed so far per seat (list[int]), while passing",
        "received": "the cards passed to you (list[card]), after passing",
        "received_from": "the seat that passed them to you (int), after passing",
        "trick": "cards played to the current trick in play order, the first by `trick_leader` (list[card])",
        "trick_leader": "the seat that led the current trick (int); null after the last trick",
        "tricks": "the finished tricks of this deal, in order: `leader`, `cards` in play order, `winner`",
        "hearts_broken": "a heart (or the queen of spades, with `qs_breaks_hearts`) has been played this "
            "deal: hearts may be led (bool)",
        "points": "penalty points taken per seat in this deal so far (list[int])",
        "voids": "per seat, the suits it has shown it lacks by not following (list[list[suit letter]])",
    }
    PHASES: ClassVar[tuple[str, ...]] = (  # engine.rl: every phase, "over" included
        "pass", "play", "over")
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md)
        "scores": "seat_nums:130", "hand": "cards", "dealer": "seat", "target": "num:500",
        "pass_direction": "choice:left|right|across|none", "hand_counts": "seat_nums:13", "passed": "cards",
        "passed_to": "seat", "passes_made": "seat_nums:3", "received": "cards", "received_from": "seat",
        "trick": "trick:trick_leader", "trick_leader": "seat", "tricks": "tricks", "hearts_broken": "bool",
        "points": "seat_nums:26", "voids": "seat_suits",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    __slots__ = ("_info", "_lm", "_lt", "_over", "broken", "events", "hands", "history", "leader", "led",
                 "nplayed", "passed", "phase", "tmask", "turn", "wcard", "wseat")

    dealer: int
    pass_dir: int
    passing: int
    """1 while the seats are passing (H1), else 0."""
    hands: list[int]
    passed: list[int]
    """Cards each seat passed this deal (pending until all have passed, then in the receivers' hands)."""
    turn: int
    nplayed: int
    """Cards played this deal: the last ``nplayed`` actions of ``history``; the current trick holds
    the last ``nplayed & 3`` of them."""
    led: int
    leader: int
    tmask: int
    """The cards of the trick in progress."""
    wcard: int
    wseat: int
    """The highest card of the led suit in the trick in progress, and the seat that played it."""
    broken: bool
    pts: list[int]
    starts: list[int]
    """The seat that led the first trick, then the winner of each trick (trick i: starts[i] leads,
    starts[i + 1] wins)."""
    totals: list[int]
    _lm: int
    """The cards the seat to act may play (or pass, while passing), always up to date (0 once the
    match is over): checking an action is one bit test."""
    _lt: tuple[str, ...] | list[str] | None
    """The same as action strings: a suit's table entry while following suit (the pure build;
    the compiled one builds that list from ``_lm``), the list of the passer's cards (shrunk by
    each pass) while passing; None: :meth:`legal_actions` builds the list from ``_lm``."""
    _info: dict[str, tuple[int, int, int]]
    """PLAY_INFO or PASS_INFO, by phase."""
    _h3: FirstTrickBan
    """H3's rule (:data:`H3`), or :data:`~engine.tricks.NO_FIRST_TRICK_BAN` without option
    ``no_pts_on_first_trick``."""

    # ----------------------------------------------------------------- setup
    def _setup(self, deal: dict[str, Any] | None) -> None:
        game = self.game
        assert isinstance(game, Hartenjagen)
        (self._pass_cards, self._must_break, self._qs_breaks, self._h3, self._target,
         self._moon_self) = game.flags
        self.deck_mask = FULL
        self.totals = [0, 0, 0, 0]
        self._deal_seed = self.seed
        self.deal_no = 1
        if deal is None:
            self._start_deal(0, deal_hands(deal_keys(self.seed, 1)), CYCLE[0] if self._pass_cards else 0)
        else:
            dealer, hands, direction = self._read_deal(deal)
            self._start_deal(dealer, hands, direction)

    def _read_deal(self, deal: dict[str, Any]) -> tuple[int, list[int], int]:
        """The kernel's deal parser (:meth:`~engine.trickplay.TrickState._read_hands`: the whole
        pack in four hands of 13) plus ``pass_direction``."""
        d = self._read_hands(deal, [13] * 4, extra=("pass_direction",))
        if d.partial and any(len(h) != 13 for h in d.hands):
            raise ValueError(f"{self.game.id} deal: each hand holds 13 cards (no test positions: every "
                             "card is dealt)")
        direction = CYCLE[0] if self._pass_cards else 0
        if "pass_direction" in deal:
            name = deal["pass_direction"]
            if name not in DIRECTIONS:
                raise ValueError(f"deal['pass_direction'] must be one of {', '.join(DIRECTIONS)}, "
                                 f"got {name!r}")
            direction = DIRECTIONS.index(name)
            if direction and not self._pass_cards:
                raise ValueError("deal['pass_direction'] names a pass but the option pass_cards is off")
        return self.dealer, self.hands, direction

    def _next_deal_hands(self) -> list[int]:
        """Deal k >= 2, from the match seed and k (:func:`deal_keys`), so that a clone needs no
        copy of an RNG state (clones are hot in tree search)."""
        return deal_hands(deal_keys(self._deal_seed, self.deal_no))

    def _start_deal(self, dealer: int, hands: list[int], direction: int) -> None:
        self.dealer = dealer
        self.hands = hands
        self.pass_dir = direction
        self.passed = [0, 0, 0, 0]
        self.pts = [0, 0, 0, 0]
        self.starts = []
        self.nplayed = 0
        self.led = 0
        self.leader = 0
        self.tmask = 0
        self.wcard = 0
        self.wseat = 0
        self.broken = not self._must_break
        if direction:
            self.passing = 1
            self.phase = "pass"
            self.turn = 0  # X2: seats pass one at a time in seat order
            self._info = PASS_INFO
            self._lm = hands[0]
            self._lt = _pass_list(hands[0])
        else:
            self._begin_play()

    def _begin_play(self) -> None:
        self.passing = 0
        self.phase = "play"
        self._info = PLAY_INFO
        h = self.hands
        self.turn = self.leader = next(s for s in range(4) if h[s] & TWO_CLUBS_BIT)
        self.starts = [self.turn]
        self._lt = (PLAY[TWO_CLUBS],)  # the holder of 2C leads it
        self._lm = TWO_CLUBS_BIT

    # ----------------------------------------------------------------- the hot path
    def legal_actions(self) -> list[str]:
        lt = self._lt
        if lt is not None:
            return list(lt)
        m = self._lm  # cards of up to four suits (playing), built straight into one list, in card order
        if NATIVE:
            return mask_names(PLAY, m)
        return [*PLAY_FLAT[m & 8191], *PLAY_FLAT[8192 | m >> 13 & 8191],
                *PLAY_FLAT[16384 | m >> 26 & 8191], *PLAY_FLAT[24576 | m >> 39]]

    def _legal_actions(self) -> list[str]:
        return self.legal_actions()

    def apply(self, action: Any) -> None:
        """Play ``action``; an illegal or malformed one raises IllegalAction and changes nothing.

        The legal actions of the seat to act are kept up to date after every action (``_lm`` as
        a mask, ``_lt`` when it is a table entry), so checking an action is one dict lookup and
        one bit test.  The work is inlined (this runs 64 times a deal); the trick is settled when
        its fourth card falls.
        """
        try:
            code, su, bit = self._info[action]
        except (KeyError, TypeError):  # not an action string of this phase: _resolve says why
            bit = 0
        if not self._lm & bit:
            action = self._resolve(action, self.legal_actions())
            code, su, bit = self._info[action]
        t = self.turn
        hands = self.hands
        if su == PASS_SUIT:
            # ---- H1: pass one card; X2: the cards stay aside until all twelve are passed
            h = hands[t] ^ bit
            hands[t] = h
            passed = self.passed
            done = passed[t] = passed[t] | bit
            rest = done & (done - 1)  # done without its lowest card
            if rest & (rest - 1):  # a third card: PASS_COUNT (3) passed
                if t == 3:
                    self._exchange()
                    self.history.append(action)
                    return
                t = self.turn = t + 1
                h = hands[t]
                self._lt = _pass_list(h)
            else:
                lt = self._lt
                if isinstance(lt, list):  # (always, while passing)
                    lt.remove(action)
            self._lm = h
            self.history.append(action)
            return
        # ---- play a card
        h = hands[t]
        hands[t] = h ^ bit
        np = self.nplayed
        self.nplayed = np + 1
        n = np & 3
        if n:
            led = self.led
            self.tmask |= bit
            if su == led:
                if code > self.wcard:
                    self.wcard = code
                    self.wseat = t
            elif np < 4:
                self._first_trick_discard(t, h, code)
        else:
            led = self.led = su
            self.tmask = bit
            self.wcard = code
            self.wseat = t
            if su == 2 and not self.broken:
                # H2: a heart lead before hearts are broken: the leader holds only hearts.
                self._emit("forced_heart_lead", seat=t, card=TOKENS[code])
        if not self.broken and (su == 2 or (code == QUEEN_SPADES and self._qs_breaks)):
            # H2: the first heart (or the queen of spades, qs_breaks_hearts) breaks hearts.
            self.broken = True
            self.events.append({"event": self.game.id + ".hearts_broken", "deal": self.deal_no,
                                "ply": len(self.history), "seat": t, "card": TOKENS[code]})  # = _emit
        if n == 3:
            self._end_trick()
        else:
            t = self.turn = (t + 1) & 3
            h = hands[t]
            shift = 13 * led
            f = h >> shift & 8191
            if f:  # follow suit: one table entry
                self._lm = f << shift
                self._lt = None if NATIVE else PLAY_FLAT[led << 13 | f]  # (NATIVE: from _lm, card by card)
            else:
                if np < 3:  # H3 on the first trick (the rule object; off: bans nothing)
                    h = self._h3.legal(h)
                self._lm = h
                self._lt = None
        self.history.append(action)

    def _emit(self, name: str, seat: int | None = None, **data: JSON) -> None:
        """The base's rule event, built in one go (the same dict)."""
        self.events.append({"event": self.game.id + "." + name, "deal": self.deal_no,
                            "ply": len(self.history), "seat": seat, **data})

    def _first_trick_discard(self, seat: int, held: int, code: int) -> None:
        back = self._h3.held_back(held)
        if back:
            # H3: the seat held penalty cards it was not allowed to play here.
            self._emit("points_on_first_trick_blocked", seat=seat, card=TOKENS[code],
                       held=hand_tokens(back))

    def _end_trick(self) -> None:
        """The fourth card has fallen: the highest card of the led suit (``wcard``) takes the trick."""
        tm = self.tmask
        w = self.wseat
        self.turn = self.leader = w
        self.starts.append(w)
        self.tmask = 0
        if tm & PENALTY_MASK:
            self.pts[w] += SUBSET_COUNT[tm >> 26 & 8191] + (13 if tm & QS_BIT else 0)
            if tm & QS_BIT:
                self.events.append({"event": self.game.id + ".qs_taken", "deal": self.deal_no,
                                    "ply": len(self.history), "seat": w})  # = _emit
        if self.nplayed == NCARDS:
            self._end_deal()
            return
        h = self.hands[w]
        if not self.broken:
            # H2: no heart lead before hearts are broken, unless the leader holds only hearts.
            h = h & ~HEARTS_MASK or h
        self._lm = h
        self._lt = None

    def _exchange(self) -> None:
        """H1/X2: all have passed; the cards join the receivers' hands now."""
        d = self.pass_dir
        hands, passed = self.hands, self.passed
        for s in range(4):
            hands[(s + d) & 3] |= passed[s]
        self.events.append({"event": self.game.id + ".cards_passed", "deal": self.deal_no,
                            "ply": len(self.history), "seat": None, "direction": DIRECTIONS[d]})  # = _emit
        self._begin_play()

    def _end_deal(self) -> None:
        pts = self.pts
        if TOTAL_POINTS in pts:
            # H5: the shooter scores 0 and each other seat 26 (or: the shooter -26).
            shooter = pts.index(TOTAL_POINTS)
            self._emit("moon_shot", seat=shooter)
            if self._moon_self:
                row = [0, 0, 0, 0]
                row[shooter] = -TOTAL_POINTS
            else:
                row = [TOTAL_POINTS] * 4
                row[shooter] = 0
        else:
            row = list(pts)
        self.sheet.append([float(x) for x in row])
        totals = self.totals
        for s in range(4):
            totals[s] += row[s]
        top = max(totals)
        if top >= self._target:
            # H4: the match ends after a deal in which a total reaches the target.
            self._emit("match_over", seat=totals.index(top), scores=list(totals),
                       losers=[s for s in range(4) if totals[s] >= self._target],
                       winners=[s for s in range(4) if totals[s] == min(totals)])
            self._finish()
        elif self._deals_done():
            self._finish()
        else:
            self.deal_no += 1
            self._start_deal((self.dealer + 1) & 3, self._next_deal_hands(),
                             CYCLE[(self.deal_no - 1) % 4] if self._pass_cards else 0)

    def _finish(self) -> None:
        super()._finish()
        self._lt = None
        self._lm = 0

    # ----------------------------------------------------------------- derived views
    def _legal_mask(self) -> int:
        """The cards the seat to act may play or pass, from scratch (0 when the match is over)."""
        if self._over:
            return 0
        h = self.hands[self.turn]
        if self.passing:
            return h
        n = self.nplayed
        if n & 3:
            f = h & SUIT_MASKS[self.led]
            if f:
                return f
            return self._h3.legal(h) if n < 4 else h
        if not n:
            return TWO_CLUBS_BIT
        if not self.broken:
            f = h & ~HEARTS_MASK  # H2
            if f:
                return f
        return h

    def _refresh_legal(self) -> None:
        """Recompute the legal actions from scratch (after determinize)."""
        m = self._lm = self._legal_mask()
        self._lt = _pass_list(m) if self.passing else None

    def _deal_plays(self) -> list[int]:
        """This deal's plays in order, each ``seat << 6 | card`` (the kernel's form), from the last
        ``nplayed`` actions of ``history`` and the trick leaders in ``starts``."""
        n = self.nplayed
        if not n:
            return []
        st = self.starts
        hist = self.history
        base = len(hist) - n
        return [SEAT_BITS[st[i >> 2] + (i & 3)] | PLAY_CARD[hist[base + i]] for i in range(n)]

    def previous_trick(self) -> list[tuple[int, int]]:
        """The kernel's declared view (:meth:`engine.trickplay.TrickState.previous_trick`): the last
        finished trick of this deal as (seat, card) pairs in play order, [] before the first
        (``points_taken`` is the kernel's default, ``pts``)."""
        k = len(self.starts) - 1  # tricks finished (starts: the first leader, then each winner)
        if k <= 0:
            return []
        return trick_pairs(self._deal_plays()[4 * k - 4:4 * k])

    def _void_cards(self, plays: list[int] | None = None) -> list[int]:
        """Per seat, the cards everyone knows it does not hold, from this deal's ``plays`` (default:
        :meth:`_deal_plays`): the led suits it did not follow (the kernel's
        :func:`~engine.trickplay.voids_shown` under follow suit), and every card but the hearts
        after it led a heart before hearts were broken (H2)."""
        if plays is None:
            plays = self._deal_plays()
        absent = voids_shown(plays, 4, 4, None, ORDER, FOLLOW_SUIT)
        if self._must_break and self.broken:  # (not broken yet: no play broke them, no heart was led)
            # H2: only the play that breaks hearts can be a heart led before they were broken
            qs = QUEEN_SPADES if self._qs_breaks else -1
            for i, p in enumerate(plays):
                c = p & 63
                if c // 13 == 2 or c == qs:
                    if not i & 3 and c // 13 == 2:
                        absent[p >> 6] |= FULL & ~HEARTS_MASK  # the leader holds nothing but hearts
                    break
        return absent

    def voids(self, plays: list[int] | None = None) -> list[int]:
        """Per seat, a bitmask of the suits it has shown void in this deal (public): by not
        following suit, or by leading a heart before hearts were broken (H2)."""
        whole = WHOLE_SUITS
        return [whole[a] if a in whole else
                (1 if a & CLUBS_MASK else 0) | (2 if a & DIAMONDS_MASK else 0) | (4 if a & HEARTS_MASK else 0)
                | (8 if a & SPADES_MASK else 0) for a in self._void_cards(plays)]

    # ----------------------------------------------------------------- API
    def _apply(self, action: str) -> None:  # pragma: no cover - apply() is overridden
        raise NotImplementedError("HartenjagenState.apply does the work")

    def scores(self) -> list[float]:
        return [float(x) for x in self.totals]

    def ranking(self) -> list[int]:
        return rank_by(self.totals)  # H4: lowest total best, ties share a place

    # the kernel's zones and hidden cards (engine.trickplay), with the passes as its hooks
    def _trick_cards(self) -> int:
        return self.tmask

    def _won_cards(self) -> list[int]:
        """The cards each seat has taken this deal, from the plays and the winners in ``starts``:
        not kept by the hot path (one boxed int fewer a trick, 1.017x compiled: bench/README.md)."""
        won = [0, 0, 0, 0]
        plays = self._deal_plays()
        for i in range(len(plays) >> 2):
            won[self.starts[i + 1]] |= (1 << (plays[4 * i] & 63) | 1 << (plays[4 * i + 1] & 63)
                                        | 1 << (plays[4 * i + 2] & 63) | 1 << (plays[4 * i + 3] & 63))
        return won

    def _face_down(self, viewer: int) -> int:
        """H1/X2: while passing, the cards the other seats have passed, not yet received."""
        if not self.passing:
            return 0
        p = self.passed
        return (p[0] | p[1] | p[2] | p[3]) & ~p[viewer]

    def _known_to(self, viewer: int) -> int:
        """H1: the cards the viewer passed are known to it wherever they are."""
        return self.passed[viewer]

    def _pile_zones(self) -> dict[str, int]:
        return {f"passing{s}": self.passed[s] for s in range(4)} if self.passing else {}

    def _invariants(self) -> list[str]:
        out = []
        moon = -TOTAL_POINTS if self._moon_self else 3 * TOTAL_POINTS
        for i, row in enumerate(self.sheet):
            if sum(row) not in (TOTAL_POINTS, moon):
                out.append(f"deal {i + 1} scores {row} sum to {sum(row)}, not {TOTAL_POINTS} or {moon}")
        cols = [sum(r[s] for r in self.sheet) for s in range(4)]
        if cols != self.totals:
            out.append(f"totals {self.totals} differ from the score sheet's sums {cols}")
        if not self._over:
            out_there = self.tmask | self.hands[0] | self.hands[1] | self.hands[2] | self.hands[3]
            if self.passing:
                out_there |= self.passed[0] | self.passed[1] | self.passed[2] | self.passed[3]
            left = sum(PTS[c] for c in range(NCARDS) if out_there >> c & 1)
            if sum(self.pts) + left != TOTAL_POINTS:
                out.append(f"penalty points taken {self.pts} + {left} still out != {TOTAL_POINTS}")
        return out

    def _observe(self, seat: int) -> dict[str, JSON]:
        d = self.pass_dir
        obs: dict[str, JSON] = {
            "hand": hand_tokens(self.hands[seat]),
            "dealer": self.dealer,
            "target": self._target,
            "pass_direction": DIRECTIONS[d],
            "hand_counts": [self.hands[s].bit_count() for s in range(4)],
        }
        if d:
            obs["passed"] = hand_tokens(self.passed[seat])
            obs["passed_to"] = (seat + d) & 3
            if self.passing:
                obs["passes_made"] = [self.passed[s].bit_count() for s in range(4)]
            else:
                obs["received"] = hand_tokens(self.passed[(seat - d) & 3])
                obs["received_from"] = (seat - d) & 3
        if not self.passing:
            st = self.starts
            done = self._deal_plays()
            plays = [TOKENS[p & 63] for p in done]
            tricks: list[JSON] = [{"leader": st[i], "cards": plays[4 * i:4 * i + 4], "winner": st[i + 1]}
                                  for i in range(len(st) - 1)]
            obs.update({
                "trick": plays[self.nplayed & ~3:],
                "trick_leader": st[-1] if self.nplayed < NCARDS else None,
                "tricks": tricks,
                "hearts_broken": self.broken,
                "points": list(self.pts),
                "voids": [_suit_letters(v) for v in self.voids(done)],
            })
        return obs

    def _why_illegal(self, verb: str, args: tuple[str, ...]) -> str:
        t = self.turn
        if self.passing and verb != "pass":
            return f"seat {t} must first pass {PASS_COUNT} cards, one at a time (pass QS)"
        if not self.passing and verb != "play":
            return "play a card to the trick (play QS)"
        if len(args) != 1:
            return "one card per action"
        if not self.passing:
            return self._why_not_card(args[0])
        c = card(args[0])
        if self.passed[t] >> c & 1:
            return f"{args[0]} is already passed"
        return "" if self.hands[t] >> c & 1 else f"seat {t} does not hold {args[0]}"

    def _why_not_held_card(self, c: int) -> str:
        t = self.turn
        h = self.hands[t]
        if not self.nplayed:
            return "the holder of 2C leads it to the first trick"
        if self.nplayed & 3:
            if h & SUIT_MASKS[self.led]:
                return f"follow suit: seat {t} holds {SUITS[self.led]}"
            return self._h3.why_refused(h, c)  # void: only H3 refuses a card, on the first trick
        return "H2: hearts are not broken; lead a heart only when you hold nothing but hearts"

    def clone(self) -> HartenjagenState:
        """An independent copy, every field by name (no ``__dict__``: the compiled build has none):
        the lists are copied, the ints, strings, tuples and the game shared."""
        new = HartenjagenState.__new__(HartenjagenState)
        self._copy_base_into(new)
        new._pass_cards = self._pass_cards
        new._must_break = self._must_break
        new._qs_breaks = self._qs_breaks
        new._h3 = self._h3
        new._target = self._target
        new._moon_self = self._moon_self
        new._deal_seed = self._deal_seed
        new.totals = list(self.totals)
        new.dealer = self.dealer
        new.pass_dir = self.pass_dir
        new.passing = self.passing
        new.hands = list(self.hands)
        new.passed = list(self.passed)
        new.pts = list(self.pts)
        new.starts = list(self.starts)
        new.turn = self.turn
        new.nplayed = self.nplayed
        new.led = self.led
        new.leader = self.leader
        new.tmask = self.tmask
        new.wcard = self.wcard
        new.wseat = self.wseat
        new.broken = self.broken
        lt = self._lt
        new._lt = lt[:] if isinstance(lt, list) else lt  # a tuple is shared, the passing list copied
        new._info = self._info
        new._lm = self._lm
        return new

    # ----------------------------------------------------------------- determinize: the kernel's
    # (TrickState.determinize: one constrained deal of the hidden cards), with these hooks
    def _reseed(self, rng: random.Random) -> None:
        """Later deals come from ``_deal_seed`` (not an RNG): reseeded, unknown to the searcher."""
        self._deal_seed = rng.getrandbits(64)

    def _redeal_forbid(self, holders: list[int]) -> list[int]:
        """The voids each seat has shown; before the first lead, the two of clubs stays with the
        seat that must lead it."""
        absent = self._void_cards()
        lead = self.turn if not self.passing and not self.nplayed else -1
        return [absent[s] | (TWO_CLUBS_BIT if lead >= 0 and s != lead else 0) for s in holders]

    def _pile_sizes(self, hidden: int) -> list[int]:
        """While passing: each seat's pending passes hidden from the searcher (one pile a seat)."""
        if not self.passing:
            return []
        p = self.passed
        return [(p[0] & hidden).bit_count(), (p[1] & hidden).bit_count(), (p[2] & hidden).bit_count(),
                (p[3] & hidden).bit_count()]

    def _lay_piles(self, new: TrickState, piles: list[int], hidden: int, rng: random.Random) -> None:
        if piles:
            assert isinstance(new, HartenjagenState)
            for s in range(4):
                new.passed[s] = (self.passed[s] & ~hidden) | piles[s]

    def _redealt(self, seat: int) -> None:
        self._refresh_legal()


class Hartenjagen(Game):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "pass CARD", "play CARD")
    id = "hartenjagen"
    lower_score_wins = True
    name = "Hartenjagen (Hearts)"
    family = "trick-taking"
    rule_events = ("cards_passed", "hearts_broken", "qs_taken", "moon_shot",
                   "points_on_first_trick_blocked", "forced_heart_lead", "match_over")
    seed_ref = "seed 002, section hartenjagen"
    summary = ("Four players avoid penalty points: each heart 1, the queen of spades 13. Pass three cards "
               "(left, right, across, none), 2C leads, follow suit, no trumps; hearts may not be led "
               "before broken, no points on the first trick. Taking all 26 gives the others 26. The match "
               "ends when a player reaches 100; the lowest total wins.")
    notation = "pass QS  (passing: one card per action, three per seat)\nplay QS"
    min_players = 4
    max_players = 4
    default_players = 4
    options_spec = (
        Option("pass_cards", True, "H1: pass three cards before play (left, right, across, none by deal)"),
        Option("must_break_hearts", True, "H2: no heart lead before hearts are broken (unless only hearts)"),
        Option("qs_breaks_hearts", True, "H2: playing the queen of spades breaks hearts too"),
        Option("no_pts_on_first_trick", True, "H3: no heart or QS on the first trick unless nothing else"),
        Option("target", 100, "H4: the match ends when a total reaches this many points",
               check=lambda v: v > 0, max=10000),
        Option("moon_shot", "others_plus_26", "H5: taking all 26 gives the others 26 (or the shooter -26)",
               choices=MOON_MODES),
    )
    state_class = HartenjagenState
    tables = CardTables(rank_order("AKQJT98765432"), Points(PTS, PTS), penalty=True)  # ace high

    options_type = HartenjagenOptions
    flags: tuple[bool, bool, bool, FirstTrickBan, int, bool]
    """The options as each new match reads them, in one go (HartenjagenState._setup)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        o = self.opts(HartenjagenOptions)
        self.flags = (o.pass_cards, o.must_break_hearts, o.qs_breaks_hearts,
                      H3 if o.no_pts_on_first_trick else NO_FIRST_TRICK_BAN, o.target,
                      o.moon_shot == "self_minus_26")


register(Hartenjagen)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
