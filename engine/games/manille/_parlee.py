"""The manille family's talking base (not a game): :class:`ParleeState` plays Manille Parlée
(``manille_parlee``, with talk) and Manille Muette (``manille_muette``, ``TALK = False``) on
:class:`engine.games.manille._manille.ManilleState`: 32 cards, 68 points per deal (60 card points + 8
tricks), 35 or more wins the deal, the family rule with partner exemption, the talk vocabulary
and its answers, and ``determinize`` that keeps what the talk revealed.  The rules each game
follows are in its own module's docstring.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards import RANKS, SUITS, TOKENS, card, deck_32, mask_of
from engine.core import JSON, Option, rank_by
from engine.games.manille._manille import (
    PLAY_CARD,
    SUIT_MASK,
    ManilleState,
    bits,
    family_rule,
    play_list,
)

DECK = mask_of(deck_32())


PARLEE_PLAY_EVENTS = ("deal_won", "deal_tied_34", "overtake_forced", "overtrump_forced",
                      "partner_exemption_used", "undertrump_blocked", "trick_point_awarded")
"""The rule events of a deal's play and its scoring, shared by manille_parlee and manille_muette."""


def parlee_options(seed_line: str) -> tuple[Option, ...]:
    """The options Manille Parlée and Manille Muette share (``seed_line``: where the seed allows
    any card when void with no winning trump)."""
    return (
        Option("no_losing_trump", False, "void while an opponent wins and no trump of yours wins: "
               "no losing trump unless you hold only trumps (the family's earlier reading; seed "
               f"{seed_line} allows any card)"),
        Option("deals_to_win", 2, "the first side to win this many deals wins the match",
               check=lambda v: v > 0, max=1000),
    )

@dataclass(frozen=True)
class ParleeOptions:
    """The options Manille Parlée and Manille Muette share (:func:`parlee_options`), typed."""

    no_losing_trump: bool = False
    deals_to_win: int = 2


@dataclass(frozen=True)
class ManilleParleeOptions(ParleeOptions):
    """Manille Parlée's options: the shared ones and who may talk (P2)."""

    talk_by: str = "each"


TOTAL = 68  # P6: seed-003 numbers (60 card points + 8 tricks), not manillen's 60
WIN_AT = 35
"""A side wins the deal with 35 or more of the 68 points."""

TOPICS = ("count", "highest", "has", "trumps")
TALK: dict[str, tuple[str, str, int]] = {}
"""Talk action -> (kind, topic, suit or card)."""
for _kind in ("ask", "tell"):
    for _s, _letter in enumerate(SUITS):
        TALK[f"declare {_kind} count {_letter}"] = (_kind, "count", _s)
        TALK[f"declare {_kind} highest {_letter}"] = (_kind, "highest", _s)
    TALK[f"declare {_kind} trumps"] = (_kind, "trumps", -1)
    for _c in range(52):
        TALK[f"declare {_kind} has {TOKENS[_c]}"] = (_kind, "has", _c)
ASK_FIXED = tuple(a for a, (k, t, _) in TALK.items() if k == "ask" and t != "has")
TELL_FIXED = tuple(a for a, (k, t, _) in TALK.items() if k == "tell" and t != "has")


def _rank_tables(prefix: str) -> tuple[tuple[tuple[str, ...], ...], ...]:
    """Per suit, ``prefix + card`` for every subset of the suit's ranks 7..A (32-card deck)."""
    out = []
    for s in range(4):
        table: list[tuple[str, ...]] = [()] * 256
        for x in range(1, 256):
            top = x.bit_length() - 1
            table[x] = table[x ^ (1 << top)] + (prefix + TOKENS[s * 13 + 5 + top],)
        out.append(tuple(table))
    return tuple(out)


ASK_HAS_T = _rank_tables("declare ask has ")
TELL_HAS_T = _rank_tables("declare tell has ")


def _has_list(t: tuple[tuple[tuple[str, ...], ...], ...], m: int) -> list[str]:
    return [*t[0][m >> 5 & 255], *t[1][m >> 18 & 255], *t[2][m >> 31 & 255], *t[3][m >> 44 & 255]]


class ParleeState(ManilleState):
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "trump_card": "the card turned up to fix trump (card)",
        "trump_card_on_table": "the trump card still lies face up on the table (no card played yet this "
            "deal) (bool)",
        "deals_won": "deals won by team 0/2 and team 1/3 (list[int])",
        "talk": "the questions and answers so far: dicts with `trick`, `seat`, `kind` (`ask`/`tell`), "
            "`topic` (`count`, `highest`, `has`, `trumps`), `suit`, `rank`, `about` (the seat answering), "
            "`answer`",
        "may_talk": "you may ask or tell now (a `declare ...` action) (bool)",
    }
    PHASES: ClassVar[tuple[str, ...]] = (  # engine.rl: every phase, "over" included
        "play", "over")
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md)
        "scores": "seat_nums:3", "trump_card": "card", "trump_card_on_table": "bool", "deals_won": "nums:2:3",
        "may_talk": "bool",
    }
    TENSOR_SKIP: ClassVar[dict[str, str]] = {  # engine.rl: keys the tensor leaves out, and why
        "talk": "the log of questions and answers (free-form records; `observation_string` and the raw dict "
            "carry it)",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    TALK: ClassVar[bool] = True
    TRICK_POINT: ClassVar[int] = 1

    trump_card: int
    deals_won: list[int]
    """Deals won per seat (partners equal)."""
    talk: list[dict[str, Any]]
    talked: int
    """Seats (bits) that have spoken in trick ``talk_trick``."""
    talk_trick: int
    known_at: list[int]
    """Per seat: cards everyone knows the seat holds (the turned card, answers)."""
    known_not: list[int]
    """Per seat: cards everyone knows the seat does not hold (answers)."""
    counts: list[tuple[int, int, int, int, bool]]
    """Answered counts: (seat, suit, count, plays so far, at least) for determinize."""

    _leader_talk: bool

    def _setup(self, deal: dict[str, Any] | None) -> None:
        o = self.game.opts(ParleeOptions)
        self._init_family(family_rule(no_losing_trump=o.no_losing_trump), DECK)
        # P2: every player before his card (default), or only the player who leads the trick
        self._leader_talk = isinstance(o, ManilleParleeOptions) and o.talk_by == "leader"
        self.deals_won = [0] * 4
        self.deal_no = 1
        self.dealer = 0  # X1: seat 0 deals first
        if deal is not None:
            self._reset_deal()
            self._injected_hands(deal, 8, extra=("trump_card",))
            tc = deal.get("trump_card")
            if tc is None:
                last = deal["hands"][self.dealer][-1]
                tc = last
            c = card(tc)
            if not self.hands[self.dealer] >> c & 1:
                raise ValueError(f"deal['trump_card'] {tc} must be one of the dealer's cards "
                                 f"(seat {self.dealer})")
            self._open_deal(c)
            return
        self._deal()

    def _reset_deal(self) -> None:
        super()._reset_deal()
        self.talk = []
        self.talked = 0
        self.talk_trick = 0
        self.known_at = [0] * 4
        self.known_not = [0] * 4
        self.counts = []

    def _deal(self) -> None:
        self._reset_deal()
        deck = self._shuffled()
        rest = self._deal_packets(deck, (4, 4))
        assert not rest
        self._open_deal(deck[-1])  # the dealer's last card, dealt face up

    def _open_deal(self, trump_card: int) -> None:
        self.trump_card = trump_card
        self.trump = trump_card // 13
        self.known_at[self.dealer] |= 1 << trump_card
        self._emit("trump_card_exposed", seat=self.dealer, card=TOKENS[trump_card])
        self._start_play(self.nxt[self.dealer])

    # ------------------------------------------------------------------ API hooks
    def _may_talk(self) -> bool:
        # P1/P2: once per player per trick, before his card (talk_trick is the trick's number)
        return (self.TALK and self._fast
                and (self.talk_trick != len(self.plays) >> 2 or not self.talked >> self.turn & 1)
                and (not self._leader_talk or not self.tn))

    def legal_actions(self) -> list[str]:
        if self._fast:
            legal = self._legal
            if legal is None:
                legal = self._legal = self._legal_actions()
            return list(legal)
        return super().legal_actions()

    def _legal_actions(self) -> list[str]:
        out = play_list(self._lmask)
        if self._may_talk():
            out += self._talk_actions()
        return out

    def _talk_actions(self) -> list[str]:
        seat = self.turn
        hands = self.hands
        hand = hands[seat]
        won = self.won
        placed = (self._trick_cards() | won[0] | won[1] | won[2] | won[3]
                  | (self.known_at[0] & hands[0]) | (self.known_at[1] & hands[1])
                  | (self.known_at[2] & hands[2]) | (self.known_at[3] & hands[3]))
        return [*ASK_FIXED, *_has_list(ASK_HAS_T, DECK & ~hand & ~placed), *TELL_FIXED,
                *_has_list(TELL_HAS_T, hand & ~self.known_at[seat])]

    def _public_known(self) -> int:
        m = 0
        for s in range(4):
            m |= self.known_at[s] & self.hands[s]
        return m

    def _apply(self, action: str) -> None:
        if self.phase != "play":  # pragma: no cover - play is the only phase
            raise AssertionError(self.phase)
        if action in PLAY_CARD:
            self._play(PLAY_CARD[action])
        else:
            self._speak(*TALK[action])

    def _speak(self, kind: str, topic: str, arg: int) -> None:
        """P1: answer truthfully from the actual hand; the exchange is public."""
        seat = self.turn
        about = self.partner[seat] if kind == "ask" else seat
        hand = self.hands[about]
        suit: int | None = None
        rank: str | None = None
        if topic == "count":
            suit = arg
            n = (hand & SUIT_MASK[arg]).bit_count()
            answer = str(n)
            self.counts.append((about, arg, n, len(self.plays), False))
            if not n:
                self.known_not[about] |= SUIT_MASK[arg]
        elif topic == "highest":
            suit = arg
            held = bits(hand & SUIT_MASK[arg])
            if held:
                top = max(held, key=self.STRENGTH.__getitem__)
                answer = TOKENS[top]
                self.known_at[about] |= 1 << top
                self.known_not[about] |= self.ORDER.beaters(top, None)
            else:
                answer = "none"
                self.known_not[about] |= SUIT_MASK[arg]
        elif topic == "has":
            suit, rank = arg // 13, RANKS[arg % 13]
            if hand >> arg & 1:
                answer = "yes"
                self.known_at[about] |= 1 << arg
            else:
                answer = "no"
                self.known_not[about] |= 1 << arg
        else:
            assert self.trump is not None
            suit = self.trump
            if hand & SUIT_MASK[self.trump]:
                answer = "yes"
                self.counts.append((about, self.trump, 1, len(self.plays), True))
            else:
                answer = "no"
                self.known_not[about] |= SUIT_MASK[self.trump]
        trick = len(self.plays) >> 2
        if self.talk_trick != trick:
            self.talk_trick, self.talked = trick, 0
        self.talked |= 1 << seat
        self.talk.append({"trick": trick + 1, "seat": seat, "kind": kind, "topic": topic,
                          "suit": None if suit is None else SUITS[suit], "rank": rank,
                          "about": about, "answer": answer})
        self._emit("question_asked" if kind == "ask" else "info_revealed", seat=seat, type=topic,
                   about=about, answer=answer)

    def _why_illegal(self, verb: str, args: tuple[str, ...]) -> str:
        if verb == "trump":
            return (f"the dealer's turned card decides trump in {self.game.id} "
                    f"(trump is {SUITS[self.trump] if self.trump is not None else '?'}); nobody names it")
        if verb == "declare":
            if not self.TALK:
                return "Manille Muette is played in silence: there is no talk (declare) action"
            if self._fast and not self._may_talk():
                return (f"P1: seat {self.turn} has already spoken in this trick; one question or "
                        "statement per player per trick, before his card")
            return ("talk is 'declare ask|tell count S', 'declare ask|tell highest S', "
                    "'declare ask has AS' (a card you cannot place), 'declare tell has AS' (a card "
                    "you hold) or 'declare ask|tell trumps'")
        if verb == "play" and self._fast and args:
            return self._why_not_card(args[0])
        return ""

    # ------------------------------------------------------------------ deal end
    def _deal_over(self) -> None:
        # P4: card and trick points only; the turned card earns the dealer nothing
        side = [self.pts[s] + self.pts[self.partner[s]] for s in range(4)]
        row = [0.0] * 4
        if side[0] == side[1]:
            self._emit("deal_tied_34", points=side[0])  # P3: nobody wins the deal
        else:
            best = 0 if side[0] >= WIN_AT else 1
            for s in (best, self.partner[best]):
                row[s] = 1.0
                self.deals_won[s] += 1
            self._emit("deal_won", seat=best, side=sorted((best, self.partner[best])),
                       points=[side[best], side[1 - best]])
        self.sheet.append(row)
        if max(self.deals_won) >= self.game.opts(ParleeOptions).deals_to_win or self._deals_done():
            self._finish()
            return
        self.deal_no += 1
        self.dealer = self.nxt[self.dealer]  # P5: the deal passes to the left
        self._deal()

    # ------------------------------------------------------------------ views
    def scores(self) -> list[float]:
        return [float(d) for d in self.deals_won]  # P7: deals won, partners equal

    def ranking(self) -> list[int]:
        return rank_by(self.deals_won, lower_is_better=False)

    def _observe(self, seat: int) -> dict[str, JSON]:
        obs = self._observe_play(seat)
        obs["trump_card"] = TOKENS[self.trump_card]
        obs["trump_card_on_table"] = not self.plays
        obs["deals_won"] = [self.deals_won[0], self.deals_won[1]]
        if self.TALK:
            obs["talk"] = [dict(t) for t in self.talk]
            obs["may_talk"] = self.turn == seat and self._may_talk()
        return obs

    # ------------------------------------------------------------------ determinize
    def _known_to(self, viewer: int) -> int:
        return self._public_known()

    def _forbidden(self, seat: int) -> int:
        return self.known_not[seat]

    def _redeal_ok(self, hands: list[int]) -> bool:
        for seat, suit, n, at, at_least in self.counts:
            gone = sum(1 for p in self.plays[at:] if p >> 6 == seat and (p & 63) // 13 == suit)
            have = (hands[seat] & SUIT_MASK[suit]).bit_count()
            if have < n - gone if at_least else have != n - gone:
                return False
        return True
