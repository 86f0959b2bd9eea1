"""The Dutch kruisjas family's base (not a game): :class:`KruisjasState` plays Kruisjassen
(``kruisjassen``) and is the base of Schutjassen (``schutjassen``) and Grevjas (``grevjas``):
four players, partners opposite, 32 cards "10 low" (:data:`engine.games.jass._jass.TEN_LOW`), eight
tricks, the meld round (K11-K13), Stuk and roem in de slag, ik dek, onder jan and the pit, played by
the jass presets of :mod:`engine.games.jass._jass` (``KRUISJAS_RULE``, ``WILD_JAS_RULE``; Grevjas's
``GREVJAS_RULE``).  Subclasses override the phases before play, the meld round and the checks;
the rules each game follows are in its own module's docstring.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards import JACK, KING, QUEEN, SUITS, TOKENS, bits, hand_tokens
from engine.core import JSON, Game, rank_by
from engine.games.jass._jass import (
    KRUISJAS_MELDS,
    KRUISJAS_RULE,
    SUIT_MASK,
    TEN_LOW,
    WILD_JAS_RULE,
    JassTable,
    Meld,
    MeldValues,
    announcements,
    key_cards_top,
    trick_melds,
)
from engine.trickplay import TrickState, trick_pairs, voids_shown
from engine.tricks import PLAY, MaskFunction, PlayRule, mask_function, mask_of_tokens, play_list

PLAY_CARD: dict[str, int] = {a: c for c, a in enumerate(PLAY)}
_BIT = tuple(1 << c for c in range(64))


def meld_text(combo: tuple[Meld, ...]) -> str:
    return "declare " + " + ".join(" ".join(m.tokens()) for m in combo)


@dataclass(frozen=True)
class KruisjasOptions:
    """The option every game of the Kruisjas family has (its games' options types subclass it)."""

    target: int


@dataclass(frozen=True)
class WildJasOptions(KruisjasOptions):
    """The family's games with K18's wild Jas option (Kruisjassen, Schutjassen)."""

    wild_jas: bool = False


@dataclass(frozen=True)
class KruisjassenOptions(WildJasOptions):
    """Kruisjassen's options (``Kruisjassen.options_spec``), typed; here because the family's
    ``_check`` reads ``pit_play_on`` (K1)."""

    target: int = 1100
    pit_play_on: bool = True


@dataclass(frozen=True)
class SchutjassenOptions(WildJasOptions):
    """Schutjassen's options (``Schutjassen.options_spec``), typed."""

    target: int = 1100


class KruisjasState(TrickState):
    """Kruisjassen; the base of Schutjassen and Grevjas (four players, partners opposite, 32 cards,
    eight tricks).  Subclasses override the phases before play, the meld round and the checks."""
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "hand": "your cards (list[card])",
        "dealer": "the seat that dealt this deal (int)",
        "partner": "your partner's seat (int)",
        "trump": "the trump suit letter, null before trump is fixed",
        "trump_card": "the card turned up for trump, null before it is turned",
        "trick": "the current trick as [seat, card] pairs in play order",
        "last_trick": "the previous trick as [seat, card] pairs in play order",
        "played": "every card played in this deal, in order (list[card])",
        "hand_sizes": "cards held per seat (list[int])",
        "tricks_won": "tricks won by team 0/2 and team 1/3 in this deal (list[int])",
        "running_totals": "card and meld points of team 0/2 and team 1/3 in this deal so far (list[int])",
        "carry_over": "points carried over per team from a deal played on (list[int])",
        "announced": "melds announced this deal: dicts with `seat`, `melds` (descriptions such as `run 3 to "
            "KS`) and `cards` (shown cards, or null)",
        "playing_on_for_pit": "the team playing on for a pit (all tricks), null if none (int)",
        "match_points": "match points of team 0/2 and team 1/3 (list[int])",
        "strokes": "strokes per team: hundreds of match points (list[int])",
    }
    PHASES: ClassVar[tuple[str, ...]] = (  # engine.rl: every phase, "over" included
        "meld", "play", "over")
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md)
        "scores": "seat_nums:1500", "hand": "cards", "dealer": "seat", "partner": "seat",
        "trump": "choice:C|D|H|S", "trump_card": "card", "trick": "trick", "last_trick": "trick",
        "played": "cards", "hand_sizes": "seat_nums:8", "tricks_won": "nums:2:8",
        "running_totals": "nums:2:300", "carry_over": "nums:2:300", "announced": "by_seat_cards",
        "playing_on_for_pit": "choice:0|1", "match_points": "nums:2:1500", "strokes": "nums:2:20",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    TABLE: ClassVar[JassTable] = TEN_LOW
    MELDS: ClassVar[MeldValues] = KRUISJAS_MELDS
    DEAL_PACKETS: ClassVar[tuple[int, ...]] = (4, 4)
    TARGET_POINTS: ClassVar[int] = 146

    trump: int
    trump_card: int
    last_trick: list[int]
    tricks: list[int]
    """Tricks won per side this deal."""
    ntricks: int
    run: list[int]
    """Running total per side (carry-over, melds, Stuk, trick melds, card points)."""
    carry: list[int]
    cardpts: list[int]
    """Card points (with the last-trick bonus) per side this deal."""
    bonus: list[int]
    """Meld, Stuk and trick-meld points that went into each side's running total this deal."""
    extra: list[int]
    """Match points of extra won hands per side this deal."""
    match: list[int]
    announced: list[tuple[int, tuple[Meld, ...]]]
    known: list[int]
    """Cards publicly known to be in each hand (turned trump, announced melds, Stuk partner)."""
    meld_turns: int
    playing_on: int
    deal_totals: list[int]
    _lmask: int
    _mf: MaskFunction

    # ------------------------------------------------------------------ setup
    def _setup(self, deal: dict[str, Any] | None) -> None:
        self.deck_mask = self.TABLE.deck
        self._deck_list = bits(self.deck_mask)
        self.match = [0, 0]
        self.carry = [0, 0]
        self.deal_totals = []
        self.deal_no = 1
        self._lmask = 0
        rule = self._rule()
        self._rule_obj = rule
        self._init_match()
        if deal is not None:
            self._reset_deal()
            self._inject(deal)
            self._after_deal()
            return
        self.dealer = self._first_dealer()
        self._new_deal()

    def _rule(self) -> PlayRule:
        o = self.game.opts(KruisjasOptions)
        return WILD_JAS_RULE if isinstance(o, WildJasOptions) and o.wild_jas else KRUISJAS_RULE  # K18

    def _init_match(self) -> None:
        """Hook: per-match fields of a subclass."""

    def _first_dealer(self) -> int:
        # K9: omboeren, cards dealt face up from seat 0, skipping seats that have a jack
        deck = self._shuffled()
        jacks: list[str | None] = [None] * 4
        first = -1
        seat = 0
        for c in deck:
            if c % 13 == JACK:
                jacks[seat] = TOKENS[c]
                if first < 0:
                    first = seat
                if all(jacks):
                    break
            seat = (seat + 1) % 4
            while jacks[seat]:
                seat = (seat + 1) % 4
        self._emit("omboeren_result", seat=first, jacks=jacks, dealer=first)
        return first

    def _shuffled(self) -> list[int]:
        r = self.rng.random
        return sorted(self._deck_list, key=lambda _: r())

    def _reset_deal(self) -> None:
        self.hands = [0, 0, 0, 0]
        self.trump = 0
        self.trump_card = -1
        self.tn = self.led = self.wcard = self.wseat = 0
        self.plays = []
        self.last_trick = []
        self.won = [0, 0, 0, 0]
        self.tricks = [0, 0]
        self.ntricks = 0
        self.run = list(self.carry)
        self.cardpts = [0, 0]
        self.bonus = [0, 0]
        self.extra = [0, 0]
        self.announced = []
        self.known = [0, 0, 0, 0]
        self.meld_turns = 0
        self.playing_on = -1
        self._lmask = 0

    def _new_deal(self) -> None:
        self._reset_deal()
        self._deal_cards(self._shuffled())
        self._after_deal()

    def _deal_cards(self, deck: list[int], packets: tuple[int, ...] | None = None) -> None:
        """Deal the packets from the dealer's left; the dealer's last card is the trump card."""
        pos = 0
        for size in packets or self.DEAL_PACKETS:
            for k in range(1, 5):
                s = (self.dealer + k) % 4
                for c in deck[pos:pos + size]:
                    self.hands[s] |= _BIT[c]
                pos += size
        self._set_trump(deck[31])

    def _set_trump(self, c: int) -> None:
        self.trump_card = c
        self.trump = c // 13
        self.known[self.dealer] |= _BIT[c]
        self._emit("trump_turned", seat=self.dealer, card=TOKENS[c], suit=SUITS[self.trump])
        self._mf = mask_function(self.TABLE.order, self._rule_obj, self.trump)

    def _inject(self, deal: dict[str, Any]) -> None:
        """X6 (the kernel's deal parser): ``dealer``, ``hands``, ``trump_card`` (a card of the
        dealer's hand, by default his last listed card) and ``carry``; a test position
        (``"partial"``) still gives 8 cards a hand."""
        d = self._read_hands(deal, [8] * 4, extra=("trump_card", "carry"))
        hands = d.hands
        for i, h in enumerate(hands):
            if len(h) != 8:
                raise ValueError(f"deal['hands'][{i}] must hold 8 cards")
        dealer = self.dealer
        tc = deal.get("trump_card", hands[dealer][-1])
        tm = mask_of_tokens([tc], self.deck_mask, "deal['trump_card']")
        if not tm & self.hands[dealer]:
            raise ValueError(f"deal['trump_card'] {tc} must be a card of the dealer's hand")
        carry = deal.get("carry")
        if carry is not None:
            self.carry = [int(carry[0]), int(carry[1])]
            self.run = list(self.carry)
        self._set_trump(tm.bit_length() - 1)

    def _after_deal(self) -> None:
        """Hook: the cards are dealt (bidding in Schutjassen); Kruisjassen goes to the meld round."""
        self._start_melds()

    def _start_melds(self) -> None:
        self.phase = "meld"
        self.meld_turns = 0
        self.turn = (self.dealer + 1) % 4

    # ------------------------------------------------------------------ API hooks
    def _legal_actions(self) -> list[str]:
        if self.phase == "play":
            return self._play_actions()
        if self.phase == "meld":
            return self._meld_actions()
        return self._other_actions()

    def _other_actions(self) -> list[str]:
        raise NotImplementedError

    def _play_actions(self) -> list[str]:
        return play_list(self._lmask)

    def _apply(self, action: str) -> None:
        if self.phase == "play":
            c = PLAY_CARD.get(action)
            if c is not None:
                self._play(c)
                return
            self._apply_talk(action)
        elif self.phase == "meld":
            self._apply_meld(action)
        else:
            self._apply_other(action)

    def _apply_talk(self, action: str) -> None:
        raise NotImplementedError

    def _apply_other(self, action: str) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------------ melds (K11-K13)
    def _best_key(self) -> tuple[int, ...] | None:
        best = None
        for _, combo in self.announced:
            for m in combo:
                k = key_cards_top(m)
                if best is None or k > best:
                    best = k
        return best

    def _meld_options(self) -> list[tuple[Meld, ...]]:
        best = self._best_key()
        out = []
        for combo in announcements(self.hands[self.turn], self.trump, self.MELDS):
            # K11: an announcement is as strong as its best meld and must beat every earlier meld
            if best is None or max(key_cards_top(m) for m in combo) > best:
                out.append(combo)
        return out

    def _meld_actions(self) -> list[str]:
        return ["pass", *(meld_text(c) for c in self._meld_options())]

    def _canonical(self, verb: str, args: tuple[str, ...]) -> str | None:
        if verb != "declare" or self.phase != "meld" or not args:
            return None
        want = _groups(args)
        if want is None:
            return None
        for combo in self._meld_options():
            if {frozenset(m.tokens()) for m in combo} == want:
                return meld_text(combo)
        return None

    def _apply_meld(self, action: str) -> None:
        seat = self.turn
        if action != "pass":
            combo = next(c for c in self._meld_options() if meld_text(c) == action)
            self._announce(seat, combo)
        self.meld_turns += 1
        self.turn = (seat + 1) % 4
        if self.meld_turns == 4:
            self._melds_done()

    def _best_so_far(self) -> tuple[int, Meld] | None:
        """The best meld announced so far and its announcer (the first of equals)."""
        best: tuple[int, Meld] | None = None
        for s, combo in self.announced:
            for m in combo:
                if best is None or key_cards_top(m) > key_cards_top(best[1]):
                    best = (s, m)
        return best

    def _announce(self, seat: int, combo: tuple[Meld, ...]) -> None:
        prev = self._best_so_far()
        self.announced.append((seat, combo))
        for m in combo:
            self.known[seat] |= m.cards  # K13: length and top card tell the cards
        self._emit("meld_announced", seat=seat, melds=[m.describe() for m in combo],
                   value=sum(m.value for m in combo))
        # K16: outbid only when this beats the best meld so far and that meld was the other side's
        if prev is not None and prev[0] % 2 != seat % 2 and \
                max(key_cards_top(m) for m in combo) > key_cards_top(prev[1]):
            self._emit("meld_outbid", seat=seat, outbid=prev[0], meld=prev[1].describe())

    def _melds_done(self) -> None:
        """K4: the side of the highest meld scores all its players' melds (K3: 100+ = extra hand)."""
        if self.announced:
            side = self.announced[-1][0] % 2  # each announcement beats every earlier one (K11)
            for seat, combo in self.announced:
                if seat % 2 != side:
                    continue
                for m in combo:
                    if m.value >= 100:
                        self._extra_hand(side, seat, m)
                    else:
                        self.run[side] += m.value
                        self.bonus[side] += m.value
        self._start_play((self.dealer + 1) % 4)

    def _extra_hand(self, side: int, seat: int, m: Meld, trick_meld: bool = False) -> None:
        """K3/K16: one extra won hand, +100 match points at once (``meld_100_extra_hand``)."""
        self.extra[side] += 100
        self.match[side] += 100
        self._emit("meld_100_extra_hand", seat=seat, meld=m.describe(), value=m.value, points=100,
                   trick_meld=trick_meld)

    # ------------------------------------------------------------------ trick play
    def _start_play(self, leader: int) -> None:
        self.phase = "play"
        self.turn = leader
        self.tn = 0
        self._lmask = self.hands[leader]

    def _set_mask(self) -> None:
        hand = self.hands[self.turn]
        self._lmask = self._mf(hand, self.led, self.wcard, False) if self.tn else hand

    def _play(self, c: int) -> None:
        seat = self.turn
        hand = self.hands[seat]
        legal = self._lmask
        self.hands[seat] = hand ^ _BIT[c]
        self.plays.append(seat << 6 | c)
        self.known[seat] &= ~_BIT[c]
        trump = self.trump
        if self.tn:
            led = self.led
            if led != trump:
                tm = SUIT_MASK[trump]
                if hand & tm & ~legal:
                    self._emit("undertrump_blocked", seat=seat, card=TOKENS[c],
                               barred=[TOKENS[x] for x in bits(hand & tm & ~legal)])
                if c // 13 == trump and hand & SUIT_MASK[led]:
                    self._emit("trump_instead_of_follow", seat=seat, card=TOKENS[c])
            w = self.wcard
            st = self.TABLE.order.strength
            if ((c // 13 == w // 13 and st(c, trump) > st(w, trump))
                    or (c // 13 == trump and w // 13 != trump)):
                self.wcard = c
                self.wseat = seat
        else:
            self.led = c // 13
            self.wcard = c
            self.wseat = seat
        self.tn += 1
        if self._card_played(seat, c, hand):
            return  # the deal ended (ik dek on a Stuk)
        if self.tn < 4:
            self.turn = (seat + 1) % 4
            self._set_mask()
            self._after_turn_change()
            return
        self._complete_trick()

    def _after_turn_change(self) -> None:
        """Hook: the turn passed to another player (Schutjassen's talk actions)."""

    def _card_played(self, seat: int, c: int, hand: int) -> bool:
        """K14: Stuk when a player plays the first of trump K and Q holding the other; the ik-dek
        check follows at once.  True when the deal ended."""
        t = self.trump
        if c == t * 13 + KING or c == t * 13 + QUEEN:
            other = (t * 13 + QUEEN) if c == t * 13 + KING else (t * 13 + KING)
            if hand >> other & 1:
                side = seat % 2
                v = self.MELDS.stuk
                self.run[side] += v
                self.bonus[side] += v
                self.known[seat] |= _BIT[other]
                self._emit("stuk_on_play", seat=seat, card=TOKENS[c], points=v)
                return self._check(side)
        return False

    def _complete_trick(self) -> None:
        taker = self.wseat
        side = taker % 2
        trick = self.plays[-4:]
        m = 0
        for p in trick:
            m |= _BIT[p & 63]
        pts = self.TABLE.card_points(m, self.trump)
        self.ntricks += 1
        if self.ntricks == 8:
            pts += self.TABLE.last_trick
        self.run[side] += pts
        self.cardpts[side] += pts
        self.tricks[side] += 1
        self.won[taker] |= m
        self.last_trick = trick
        self.tn = 0
        if self.ntricks == 1:
            for seat, combo in self.announced:  # K13: the melds are shown after trick 1
                self._emit_shown(seat, combo)
        self._trick_melds(taker, m)
        self.turn = taker
        if self._after_trick(taker):
            return
        if self.ntricks == 8:
            self._no_winner()
            return
        self._set_mask()
        self._after_turn_change()

    def _emit_shown(self, seat: int, combo: tuple[Meld, ...]) -> None:
        """Hook: melds shown after trick 1 (no event in Kruisjassen, K13)."""

    def _trick_melds(self, taker: int, m: int) -> None:
        """K5/K16: roem in de slag, auto-claimed for the trick winner."""
        side = taker % 2
        for meld in trick_melds(m, self.trump, self.MELDS):
            if meld.value >= 100:
                # K16: an extra won hand, logged as a trick meld and as a meld of 100 or more
                self._emit("trick_meld_claimed", seat=taker, meld=meld.describe(), value=meld.value,
                           extra_hand=True)
                self._extra_hand(side, taker, meld, trick_meld=True)
            else:
                self.run[side] += meld.value
                self.bonus[side] += meld.value
                self._emit("trick_meld_claimed", seat=taker, meld=meld.describe(), value=meld.value)

    def _after_trick(self, taker: int) -> bool:
        """K1 after a completed trick; True when the deal ended."""
        side = taker % 2
        po = self.playing_on
        if po >= 0:
            if side != po:  # the side playing on for the pit lost a trick: a normal win
                self._win(po, pit=False)
                return True
            if self.ntricks == 8:
                self._win(po, pit=True)
                return True
            return False
        return self._check(side)

    def _check(self, side: int) -> bool:
        """K1 ik dek: a side at 100 or more wins the deal (both: ``side``, the trick's or Stuk's)."""
        if self.playing_on >= 0:
            return False
        reached = [s for s in (0, 1) if self.run[s] >= 100]
        if not reached:
            return False
        s = side if side in reached else reached[0]
        self._emit("ik_dek", seat=None, side=s, points=self.run[s])
        pit = self.tricks[1 - s] == 0
        if pit and self.ntricks == 8:
            self._win(s, pit=True)
            return True
        if pit and self.game.opts(KruisjassenOptions).pit_play_on:  # K1: no trick lost yet: play on
            self.playing_on = s
            return False
        self._win(s, pit=False)
        return True

    # ------------------------------------------------------------------ deal end (K2)
    def _remaining_points(self) -> int:
        left = self._trick_cards()
        for h in self.hands:
            left |= h
        bonus = 0 if self.ntricks == 8 else self.TABLE.last_trick
        return self.TABLE.card_points(left, self.trump) + bonus

    def _close_deal(self, row_sides: list[int]) -> None:
        """Record the deal: the per-deal point check, the sheet row, then next deal or the end."""
        self.deal_totals.append(self.cardpts[0] + self.cardpts[1] + self._remaining_points())
        self._lmask = 0
        self.sheet.append([float(row_sides[s % 2]) for s in range(4)])
        if self._match_over() or self._deals_done():
            self._finish()
            return
        self._next_deal()

    def _match_over(self) -> bool:
        return max(self.match) >= self.game.opts(KruisjasOptions).target  # K8, K17

    def _next_deal(self) -> None:
        self.deal_no += 1
        self._new_deal()

    def _win(self, side: int, pit: bool) -> None:
        other = 1 - side
        if pit:
            # K2/K10: 3 x (146 + every meld, Stuk and trick-meld point of the deal + own carry-over)
            value = 3 * (self.TARGET_POINTS + self.bonus[0] + self.bonus[1] + self.carry[side])
            self._emit("pit_doormars", seat=None, side=side, points=value)
        else:
            value = self.run[side]
            if self.run[other] < 50:
                value *= 2
                self._emit("onder_jan", seat=None, side=other, points=self.run[other])
        self.match[side] += value
        row = list(self.extra)
        row[side] += value
        self.carry = [0, 0]
        self.dealer = (self.dealer + 1) % 4  # X1: the deal passes on
        self._close_deal(row)

    def _no_winner(self) -> None:
        """Nobody reached 100: the same dealer deals again, the running totals carry over."""
        self.carry = list(self.run)
        self._emit("no_100_carry_over", seat=None, carry=list(self.carry))
        self._close_deal(list(self.extra))

    # ------------------------------------------------------------------ views
    def previous_trick(self) -> list[tuple[int, int]]:
        return trick_pairs(self.last_trick)

    def points_taken(self) -> list[int]:
        """By side (seats 0 and 2, 1 and 3): the card points and last-trick bonus booked this deal."""
        return list(self.cardpts)

    def scores(self) -> list[float]:
        return [float(self.match[s % 2]) for s in range(4)]

    def ranking(self) -> list[int]:
        return rank_by(self.scores(), lower_is_better=False)

    def _meld_view(self) -> list[dict[str, JSON]]:
        shown = self.ntricks >= 1
        return [{"seat": s, "melds": [m.describe() for m in combo],
                 "cards": [m.tokens() for m in combo] if shown else None}
                for s, combo in self.announced]

    def _observe(self, seat: int) -> dict[str, JSON]:
        return {
            "hand": hand_tokens(self.hands[seat]),
            "dealer": self.dealer,
            "partner": (seat + 2) % 4,
            "trump": SUITS[self.trump] if self.trump_card >= 0 else None,
            "trump_card": TOKENS[self.trump_card] if self.trump_card >= 0 else None,
            "trick": self._trick_obs(),
            "last_trick": [[p >> 6, TOKENS[p & 63]] for p in self.last_trick],
            "played": [TOKENS[p & 63] for p in self.plays],
            "hand_sizes": [h.bit_count() for h in self.hands],
            "tricks_won": list(self.tricks),
            "running_totals": list(self.run),
            "carry_over": list(self.carry),
            "announced": self._meld_view(),
            "playing_on_for_pit": self.playing_on if self.playing_on >= 0 else None,
            "match_points": list(self.match),
            "strokes": [p // 100 for p in self.match],
        }

    # ------------------------------------------------------------------ the kernel's hooks
    def _pile_zones(self) -> dict[str, int]:
        return {"undealt": self._undealt()}

    def _public(self, seat: int) -> int:
        return self.known[seat]

    def _face_down(self, viewer: int) -> int:
        return self._undealt()

    def _undealt(self) -> int:
        """Cards not dealt (none once dealt; all of them before a Grevjas deal)."""
        m = self.deck_mask & ~self._trick_cards()
        for s in range(4):
            m &= ~(self.hands[s] | self.won[s])
        return m

    def _invariants(self) -> list[str]:
        out = []
        for i, t in enumerate(self.deal_totals):
            if t != self.TARGET_POINTS:
                out.append(f"deal {i + 1}: card points taken + still out = {t}, "
                           f"expected {self.TARGET_POINTS}")
        if self.phase == "play" and not self._over:
            have = self.cardpts[0] + self.cardpts[1] + self._remaining_points()
            if have != self.TARGET_POINTS:
                out.append(f"deal {self.deal_no}: card points {have}, expected {self.TARGET_POINTS}")
            for s in (0, 1):
                if self.run[s] != self.carry[s] + self.cardpts[s] + self.bonus[s]:
                    out.append(f"side {s}: running total {self.run[s]} is not carry-over + card points "
                               "+ melds")
        for side in (0, 1):
            booked = sum(row[side] for row in self.sheet) + (self.extra[side] if self.phase == "play" else 0)
            if booked != self.match[side]:
                out.append(f"side {side}: match points {self.match[side]}, but the sheet books {booked}")
        return out

    # ------------------------------------------------------------------ determinize
    def _absent(self) -> list[int]:
        return voids_shown(self.plays, 4, 4, self.trump, self.TABLE.order, self._rule_obj)

    def _redeal_hidden(self, seat: int) -> int:
        """The other hands' unknown cards (the undealt pack is not redealt)."""
        hidden = 0
        for s in range(4):
            if s != seat:
                hidden |= self.hands[s] & ~self.known[s]
        return hidden

    def _redeal_forbid(self, holders: list[int]) -> list[int]:
        absent = self._absent()
        return [absent[s] for s in holders]

    def _redealt(self, seat: int) -> None:
        if self.phase == "play" and not self._over:
            self._set_mask()


def _groups(args: tuple[str, ...]) -> set[frozenset[str]] | None:
    out: set[frozenset[str]] = set()
    cur: list[str] = []
    for a in (*args, "+"):
        if a == "+":
            if not cur:
                return None
            out.add(frozenset(cur))
            cur = []
        else:
            cur.append(a)
    return out


class KruisjasGame(Game):
    """The game side of the Kruisjas family (kruisjassen, schutjassen, grevjas): its learning
    agents' catalogue of announcements is every announcement of the deck under its state's melds."""

    def action_catalogue(self, form: str) -> list[str]:  # engine.rl: every announcement (K12, GJ10)
        from engine.rl.catalogues import deck_mask, jass_announcements
        cls = self.state_class
        assert issubclass(cls, KruisjasState)
        return jass_announcements(deck_mask(self.tables.deck), cls.MELDS)
