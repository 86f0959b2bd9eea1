"""Zenuwen (Spit / Speed).  Seed 002, section "Zenuwen" (L82-96); RULES.md card 2.6, decisions
Z1-Z14, the shared block "Real-time scheduler (simultaneous actions, first-come resolution)" and X2.

2 players with one 52-card pack (3-4 players: two packs, 104 cards; option ``packs``).  Suits do
not matter.  Each seat lays out five patience piles of 1, 2, 3, 4 and 5 cards, the top card of each
face up; the rest of its cards is its face-down spit pile.  Every seat flips its top spit card onto
its own centre pile (n centre piles, Z7) and then everybody plays at once: a face-up layout card
(or a card in hand) goes onto any centre pile whose top is one rank higher or lower, K-A-2 wrapping
(Z5).  A seat whose layout and hand are empty wins the round; he chooses a centre pile (Z4), every
seat gathers a pile, its spit pile and its unplayed cards and lays out again.  A player who wins a
round without a spit pile has no cards left and wins the match; the others are "gejast" (Z13).

Real time in a turn-based engine (Z1, X2, the real-time scheduler): play goes in **ticks**.  In a
tick every seat, in seat order 0, 1, ..., submits one action; ``current_player`` is the next seat
to submit and its ``legal_actions()`` are computed from the position at the start of the tick.  No
seat sees another's submission until the tick resolves.  The tick then resolves in priority order
starting at seat ``t mod n`` (``t`` = ticks played since the match began, from 0, shown as
``tick``) and going round.  A centre play that no longer fits when its turn comes fails, the card
stays where it was (``race_conflict``; a card that stays in a hand is then known to all).  One
action per tick stands in for the one-hand rule.  When every seat passes (``stuck_both``, Z8),
every seat flips its next spit card onto its own centre pile (``simultaneous_flip``); a seat with
an empty spit pile flips nothing (Z3; option ``spit_from_opponent``: it flips the top card of the
next seat's spit pile onto its own centre pile, ``spit_from_opponent``).  If every seat passes and
nobody can flip, the round is blocked (Z9, ``round_blocked``): it ends as if the seat with the
fewest layout and hand cards had emptied his layout (ties: the earlier in that tick's priority
order), and everybody, he too, keeps his unplayed cards.  Everything is deterministic from the
seed, so tournaments replay.

Decisions followed (RULES.md 2.6):

* **Z1** ticks as above.
* **Z2** the whole pack is dealt round robin from seat 0; a seat's cards in dealt order fill pile 1
  (1 card), pile 2 (the next 2) ... pile 5 (the next 5), the last card of each pile face up; the
  rest is his spit pile, first card on top.  Later rounds lay out each seat's cards, shuffled,
  the same way.
* **Z3** empty spit pile: flip nothing (option ``spit_from_opponent``).
* **Z4** the round winner chooses any centre pile with ``pile k`` (option ``round_end="slap"``:
  every seat submits ``pile k`` at once, X2, and the first in the priority order of the next tick
  gets his choice, ``slap_race``; the slap is not a tick).
* **Z5** K-A-2 wraps.
* **Z6** fewer than 15 cards: the piles are filled left to right until the cards run out, no spit
  pile (``no_spit_pile_round``).
* **Z7** 3-4 players: one centre pile per seat, each seat flips onto its own.
* **Z8** a seat may always ``pass``.
* **Z9** blocked round, as above.
* **Z10** no cycling layout moves: ``stack`` only a pile's single face-up card (the card beneath
  it is face down or absent), onto another pile's face-up top of the same rank; ``move`` a pile's
  face-up cards, all together, into an empty space only when a face-down card lies under them.  A
  face-down top card is turned up at once.
* **Z11** two seats emptying in one tick: the first play in priority order that empties a seat
  ends the round; the rest of the tick is void.
* **Z12** pile taking: the chooser takes the pile he chose, every other seat its own centre pile,
  except the owner of the chosen pile, who takes the chooser's own pile.
* **Z13** a round winner who started the round without a spit pile takes no pile (the pile he
  would take goes to the next seat), also under ``round_end="slap"``: such a round is settled
  without a slap; the match ends as soon as a seat holds no cards after the
  pile-taking (``match_won_gejast``).  ``scores()`` = cards held (at the start of the current
  round, or at the end), fewer is better; each ``score_sheet()`` row is the cards held after a
  round and sums to the pack size.
* **Z14** with 1-3 cards left in his layout (face-down ones included) a seat may ``take`` them all
  into his hidden hand (``took_last_three_in_hand``) and plays them from there.

Actions (verbs beyond CONTRACT.md's; centre piles are numbered 1..n, centre pile k is seat k-1's;
layout piles 1..5):

* ``play 6H 2``: a face-up layout top (or a card in hand) onto centre pile 2.
* ``stack 6H 3``: the face-up top 6H of one of your piles onto your pile 3 (same rank on top).
* ``move 3 5``: the face-up cards of your pile 3 into your empty space 5.
* ``take``: take your last 1-3 layout cards into your hand (Z14).
* ``pass``: no action this tick (Z8).
* ``pile 2``: at the round end, choose centre pile 2 (Z4).

With two packs, when the same token shows on two of your layout piles, the source pile is named:
``play 6H/4 2`` (from pile 4), ``stack 6H/1 3``.

Options (defaults = the card): ``spit_from_opponent`` (False, Z3), ``round_end`` ("choose";
"slap" = variant A, Z4), ``packs`` (None: one pack for 2 players, two for 3-4; Z2, Z7).

Injected deal (X6): ``{"dealer": 0, "hands": [[tokens in dealt order], ...], "stock": [],
"upcard": None}``, optionally ``"tick"`` (the ticks already played, for the priority order);
only the named cards are in play.  The match starts with the first flip.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards import PACK, RANKS, TOKENS, build_deck
from engine.core import JSON, NO_CARD_TABLES, Game, Option, State, rank_by, register
from engine.deal import check_deal, pack_tokens
from engine.errors import quoted

PILES = 5
LAYOUT_CARDS = 15
NIDS = 4 * PACK
RANK: tuple[int, ...] = tuple(c % PACK % 13 for c in range(NIDS))
ADJ: tuple[frozenset[int], ...] = tuple(frozenset(((r + 1) % 13, (r - 1) % 13)) for r in range(13))
"""Z5: the ranks that fit on a centre top of rank r (one higher or lower, K-A-2 wrapping)."""
FITS: tuple[tuple[bool, ...], ...] = tuple(tuple(b in ADJ[a] for b in range(13)) for a in range(13))

NUM: tuple[str, ...] = tuple(f" {k + 1}" for k in range(PILES))
MOVE: tuple[tuple[str, ...], ...] = tuple(tuple(f"move {i + 1} {j + 1}" for j in range(PILES))
                                          for i in range(PILES))
PASS = ("x",)
TAKE = ("t",)
Act = tuple[Any, ...]
"""A parsed action: ("p", src, centre, card) play (src -1 = hand), ("s", src, dst, card) stack,
("m", src, dst) move, ("t",) take, ("x",) pass, ("c", pile) pile choice."""


def _ids(tok: str) -> tuple[int, ...]:
    return tuple(p * PACK + b for p in range(4) for b in range(PACK) if TOKENS[b] == tok and b < 52)


PHYS: dict[str, tuple[int, ...]] = {TOKENS[b]: _ids(TOKENS[b]) for b in range(52)}


@dataclass(frozen=True)
class ZenuwenOptions:
    """Zenuwen's options (``Zenuwen.options_spec``), typed."""

    spit_from_opponent: bool = False
    round_end: str = "choose"
    packs: int | None = None


class ZenuwenState(State):
    """A Zenuwen match (see the module docstring)."""
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "hand": "the cards in your hand (list[card])",
        "layout_up": "per seat, per layout pile, its face-up cards bottom to top (list[list[list[card]]])",
        "layout_down": "per seat, per layout pile, its face-down cards (list[list[int]])",
        "spit_sizes": "cards left in each seat's spit pile (list[int])",
        "hand_sizes": "cards in hand per seat (list[int])",
        "known_hands": "per seat, the cards in its hand you know (list[list[card]])",
        "centre_tops": "the top card of each centre pile, null for an empty one",
        "centre_sizes": "cards in each centre pile (list[int])",
        "had_spit": "per seat, whether it has turned a spit card this round (list[bool])",
        "tick": "the simultaneous-move tick being collected, from 0 (int)",
        "priority": "the seat whose action wins a conflict in this tick (int)",
        "submitted": "per seat, whether it has submitted its action for this tick (list[bool])",
        "my_submission": "the action you submitted this tick, null if none (str)",
        "last_tick": "the previous tick: `tick`, `priority` (seat order), `actions` and `results` "
            "(`ok`/`failed`) per seat, null before one",
        "round_winner": "the seat that emptied its layout first this round, null while none has (int)",
        "cards_held": "cards owned per seat: layout, hand and spit pile (list[int])",
    }
    PHASES: ClassVar[tuple[str, ...]] = (  # engine.rl: every phase, "over" included
        "play", "slap", "choose", "over")
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md)
        "scores": "seat_nums:104", "hand": "cards", "layout_up": "seat_piles:5",
        "layout_down": "seat_lists:5:4", "spit_sizes": "seat_nums:52", "hand_sizes": "seat_nums:5",
        "known_hands": "seat_cards", "centre_tops": "piles:4", "centre_sizes": "nums:4:104",
        "had_spit": "seat_nums:1", "tick": "num:2000", "priority": "seat", "submitted": "seat_nums:1",
        "round_winner": "seat", "cards_held": "seat_nums:104",
    }
    TENSOR_SKIP: ClassVar[dict[str, str]] = {  # engine.rl: keys the tensor leaves out, and why
        "my_submission": "your own action this tick: the agent chose it",
        "last_tick": "the previous tick's actions and results: their effect is in the layout and centre "
            "piles",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    piles: list[list[list[int]]]
    """seat -> five layout piles, bottom card first."""
    up: list[list[int]]
    """seat -> the number of face-up cards at the top of each pile."""
    spit: list[list[int]]
    """seat -> spit pile, top card last."""
    hand: list[list[int]]
    known: list[int]
    """seat -> mask of its hand cards that every seat knows (face up when taken, or shown)."""
    centre: list[list[int]]
    """centre pile k (seat k's), top card last."""
    had_spit: list[bool]
    held: list[int]
    packs: int
    deck: list[int]
    tick: int
    sub: int
    pending: list[Act | None]
    pending_str: list[str | None]
    last_tick: dict[str, Any] | None
    winner: int | None
    blocked: bool
    _amap: dict[str, Act]

    # ----------------------------------------------------------------- setup
    def _setup(self, deal: dict[str, Any] | None) -> None:
        n = self.players
        opts = self.game.opts(ZenuwenOptions)
        self.from_opp: bool = opts.spit_from_opponent
        self.slap: bool = opts.round_end == "slap"
        packs = self.packs = opts.packs or (1 if n == 2 else 2)
        self.deck = build_deck(packs=packs)
        if len(self.deck) < n * (LAYOUT_CARDS + 1):
            raise ValueError(f"zenuwen with {n} players needs two packs: {len(self.deck)} cards leave "
                             "no seat a spit pile (option packs=2)")
        self.tick = 0
        self.winner = None
        self.blocked = False
        self.last_tick = None
        self._amap = {}
        self.deal_no = 1
        if deal is None:
            deck = list(self.deck)
            self.rng.shuffle(deck)
            hands = [deck[s::n] for s in range(n)]  # Z2: round robin from seat 0
        else:
            hands = self._read_deal(deal)
        self.deck_mask = 0
        for h in hands:
            for c in h:
                self.deck_mask |= 1 << c
        self.held = [len(h) for h in hands]
        self._start_round(hands)

    def _read_deal(self, deal: dict[str, Any]) -> list[list[int]]:
        n = self.players
        check_deal(deal, game="zenuwen", players=n, pack=pack_tokens(self.deck),
                   sizes=[len(self.deck[s::n]) for s in range(n)], extra=("tick",))  # Z2: round robin
        if not isinstance(deal, dict) or "hands" not in deal:
            raise ValueError("an injected deal is a dict with 'hands' (one list of tokens per seat, "
                             "in dealt order), 'stock': [] and 'upcard': None")
        if deal.get("stock") or deal.get("upcard") is not None:
            raise ValueError("zenuwen deals every card (Z2): 'stock' must be empty and 'upcard' None")
        raw = deal["hands"]
        if not isinstance(raw, list) or len(raw) != n or not all(isinstance(h, list) for h in raw):
            raise ValueError(f"injected deal: 'hands' must list {n} hands (lists of tokens), one per seat")
        tick = deal.get("tick", 0)
        if not isinstance(tick, int) or isinstance(tick, bool) or tick < 0:
            raise ValueError(f"injected deal: 'tick' must be an int >= 0, got {tick!r}")
        self.tick = tick
        free = 0
        for c in self.deck:
            free |= 1 << c
        hands: list[list[int]] = []
        for h in raw:
            cards = []
            for tok in h:
                if not isinstance(tok, str) or tok not in PHYS:
                    raise ValueError(f"injected deal: bad card {quoted(tok)}; write rank then suit, "
                                     "e.g. 'TH' (no jokers in Zenuwen)")
                got = next((c for c in PHYS[tok] if free >> c & 1), None)
                if got is None:
                    raise ValueError(f"injected deal: {tok} appears more often than the pack(s) hold it")
                free &= ~(1 << got)
                cards.append(got)
            if not cards:
                raise ValueError("injected deal: every seat needs at least one card")
            hands.append(cards)
        return hands

    # ----------------------------------------------------------------- rounds
    def _start_round(self, hands: list[list[int]]) -> None:
        """Lay out each seat's cards (in the given order, Z2/Z6) and flip the first spit cards."""
        n = self.players
        self.piles = []
        self.up = []
        self.spit = []
        for cards in hands:
            piles: list[list[int]] = []
            up: list[int] = []
            k = 0
            for size in range(1, PILES + 1):  # Z2/Z6: 1, 2, 3, 4, 5 cards, left to right
                p = cards[k:k + size]
                k += len(p)
                piles.append(p)
                up.append(1 if p else 0)
            self.piles.append(piles)
            self.up.append(up)
            self.spit.append(cards[k:][::-1])  # the first card on top (top = last)
        self.hand = [[] for _ in range(n)]
        self.known = [0] * n
        self.centre = [[] for _ in range(n)]
        self.had_spit = [bool(s) for s in self.spit]
        for s in range(n):
            if not self.had_spit[s]:
                self._emit("no_spit_pile_round", seat=s, cards=len(hands[s]))  # Z6
        self.winner = None
        self.blocked = False
        self.last_tick = None  # its cards are now hidden in the new layouts
        self._new_tick()
        self._flip()

    def _new_tick(self) -> None:
        n = self.players
        self.phase = "play"
        self.sub = 0
        self.pending = [None] * n
        self.pending_str = [None] * n
        self._legal = None

    def _flip(self) -> bool:
        """Every seat flips its next spit card onto its own centre pile (Z3, Z7); True if any did."""
        n = self.players
        spit, centre = self.spit, self.centre
        flipped: list[str | None] = [None] * n
        for s in range(n):
            if spit[s]:
                c = spit[s].pop()
                centre[s].append(c)
                flipped[s] = TOKENS[c]
        if self.from_opp:  # Z3 option: a seat without spit cards flips the next seat's
            for s in range(n):
                if flipped[s] is None:
                    for k in range(1, n):
                        o = (s + k) % n
                        if spit[o]:
                            c = spit[o].pop()
                            centre[s].append(c)
                            flipped[s] = TOKENS[c]
                            self._emit("spit_from_opponent", seat=s, opponent=o, card=TOKENS[c])
                            break
        if any(f is not None for f in flipped):
            self._emit("simultaneous_flip", cards=flipped)
            return True
        return False

    # ----------------------------------------------------------------- turn
    def _current(self) -> int:
        return self.winner if self.phase == "choose" else self.sub  # type: ignore[return-value]

    def _legal_actions(self) -> list[str]:
        if self.phase != "play":
            choices: dict[str, Act] = {f"pile {k + 1}": ("c", k) for k in range(self.players)}
            self._amap = choices
            return list(choices)
        s = self.sub
        piles, up = self.piles[s], self.up[s]
        tops: list[tuple[int, int, str]] = [(i, p[-1], TOKENS[p[-1]]) for i, p in enumerate(piles) if p]
        if self.packs > 1 and len({t for _, _, t in tops}) < len(tops):
            # two packs: name the source pile of a token that shows on two piles
            counts = [t for _, _, t in tops]
            tops = [(i, c, t if counts.count(t) == 1 else f"{t}/{i + 1}") for i, c, t in tops]
        total = 0
        for p in piles:
            total += len(p)
        hand = self.hand[s]
        if hand:
            seen: set[str] = set()
            for c in hand:
                t = TOKENS[c]
                if t not in seen:
                    seen.add(t)
                    tops.append((-1, c, t))
        amap: dict[str, Act] = {}
        ctops = [(k, RANK[p[-1]]) for k, p in enumerate(self.centre) if p]
        for i, c, lab in tops:
            fit = FITS[RANK[c]]
            for k, r in ctops:
                if fit[r]:
                    amap["play " + lab + NUM[k]] = ("p", i, k, c)
        if total:
            top_rank = [RANK[p[-1]] if p else -1 for p in piles]
            empty = [j for j in range(PILES) if not piles[j]]
            for i, c, lab in tops:
                if i < 0:
                    continue
                if up[i] == 1:  # Z10: the card beneath is face down or absent
                    r = top_rank[i]
                    for j in range(PILES):
                        if j != i and top_rank[j] == r:
                            amap["stack " + lab + NUM[j]] = ("s", i, j, c)
                if empty and len(piles[i]) > up[i]:  # Z10: a face-down card lies under the face-up ones
                    for j in empty:
                        amap[MOVE[i][j]] = ("m", i, j)
            if total <= 3:  # Z14
                amap["take"] = TAKE
        amap["pass"] = PASS  # Z8
        self._amap = amap
        return list(amap)

    def _apply(self, action: str) -> None:
        a = self._amap[action]
        if self.phase == "choose":
            self._take_piles(self.winner, a[1])  # type: ignore[arg-type]
            return
        s = self.sub
        self.pending[s] = a
        self.pending_str[s] = action
        if s + 1 < self.players:
            self.sub = s + 1
            return
        if self.phase == "slap":
            self._resolve_slap()
        else:
            self._resolve_tick()

    # ----------------------------------------------------------------- a tick
    def _resolve_tick(self) -> None:
        n = self.players
        first = self.tick % n
        order = [(first + k) % n for k in range(n)]
        pending = self.pending
        results: list[str] = ["pass"] * n
        self.last_tick = {"tick": self.tick, "priority": order, "actions": list(self.pending_str),
                          "results": results}
        self.tick += 1
        if all(a is not None and a[0] == "x" for a in pending):
            self._emit("stuck_both")  # Z8: every seat passes
            if not self._flip():
                self._block(order)  # Z9
                return
            self._new_tick()
            return
        centre = self.centre
        touched: dict[int, int] = {}
        for s in order:
            a = pending[s]
            assert a is not None
            kind = a[0]
            if kind == "x":
                continue
            if kind == "p":
                _, src, k, c = a
                pile = centre[k]
                if not pile or RANK[c] not in ADJ[RANK[pile[-1]]]:
                    # Z1: the pile changed earlier in this tick; the card stays
                    results[s] = "failed"
                    if src < 0:
                        self.known[s] |= 1 << c  # the attempt showed the card
                    self._emit("race_conflict", seat=s, pile=k + 1, winner=touched.get(k), card=TOKENS[c])
                    continue
                if src < 0:
                    self.hand[s].remove(c)
                    self.known[s] &= ~(1 << c)
                else:
                    self._pop_top(s, src)
                pile.append(c)
                touched[k] = s
                results[s] = "ok"
                if not self.hand[s] and not any(self.piles[s]):
                    self._round_won(s, blocked=False)  # Z11: the rest of the tick is void
                    return
            elif kind == "s":
                _, i, j, c = a
                self._pop_top(s, i)
                self.piles[s][j].append(c)
                self.up[s][j] += 1
                results[s] = "ok"
            elif kind == "m":
                _, i, j = a
                p = self.piles[s][i]
                k = self.up[s][i]
                self.piles[s][j] = p[-k:]
                self.up[s][j] = k
                del p[-k:]
                self.up[s][i] = 1  # Z10: the face-down card under them is turned up
                results[s] = "ok"
            elif kind == "t":
                cards = [c for p in self.piles[s] for c in p]
                shown = 0
                for i, p in enumerate(self.piles[s]):
                    for c in p[len(p) - self.up[s][i]:]:
                        shown |= 1 << c
                self.hand[s] = cards
                self.known[s] = shown
                self.piles[s] = [[] for _ in range(PILES)]
                self.up[s] = [0] * PILES
                results[s] = "ok"
                self._emit("took_last_three_in_hand", seat=s, cards=len(cards))  # Z14
        self._new_tick()

    def _pop_top(self, s: int, i: int) -> None:
        p = self.piles[s][i]
        p.pop()
        u = self.up[s][i] - 1
        self.up[s][i] = u if u > 0 or not p else 1  # Z10: a face-down top is turned up at once

    def _block(self, order: list[int]) -> None:
        """Z9: nobody moves and nobody can flip: the seat with the fewest cards left wins the round."""
        counts = [len(self.hand[s]) + sum(len(p) for p in self.piles[s]) for s in range(self.players)]
        w = min(order, key=lambda s: (counts[s], order.index(s)))
        self._emit("round_blocked", seat=w, cards=counts)
        self._round_won(w, blocked=True)

    def _round_won(self, w: int, blocked: bool) -> None:
        self.winner = w
        self.blocked = blocked
        self._emit("round_won", seat=w, blocked=blocked)
        self.pending = [None] * self.players
        self.pending_str = [None] * self.players
        self._legal = None
        if not self.had_spit[w]:  # Z13: he "chooses" the non-existent pile, no slap either
            self._take_piles(w, None)
        elif self.slap:  # Z4 variant A: every seat slaps at once
            self.phase = "slap"
            self.sub = 0
        else:
            self.phase = "choose"  # Z4: the winner chooses a centre pile by his own action

    def _resolve_slap(self) -> None:
        n = self.players
        first = self.tick % n  # Z4: the next tick's priority order; the slap is not a tick
        self.last_tick = {"tick": self.tick, "priority": [(first + k) % n for k in range(n)],
                          "actions": list(self.pending_str), "results": ["slap"] * n}
        a = self.pending[first]
        assert a is not None
        self._emit("slap_race", seat=first, pile=a[1] + 1,
                   choices=[p[1] + 1 for p in self.pending if p is not None])
        self._take_piles(first, a[1])

    # ----------------------------------------------------------------- round end
    def _take_piles(self, chooser: int, chosen: int | None) -> None:
        """Z12/Z13: who takes which centre pile; everyone adds his spit pile and unplayed cards."""
        n = self.players
        w = self.winner
        assert w is not None
        gets = [[s] for s in range(n)]
        if chosen is not None and chosen != chooser:
            gets[chooser] = [chosen]  # Z12
            gets[chosen] = [chooser]
        if not self.had_spit[w]:  # Z13: no pile for him; the one he would take goes to the next seat
            nxt = (w + 1) % n
            gets[nxt] = gets[nxt] + gets[w]
            gets[w] = []
        size = len(self.centre[chosen]) if chosen is not None else 0
        self._emit("pile_choice", seat=chooser, pile=None if chosen is None else chosen + 1, size=size)
        cards: list[list[int]] = []
        for s in range(n):
            mine: list[int] = []
            for k in gets[s]:
                mine += self.centre[k]
            mine += self.spit[s]
            for p in self.piles[s]:
                mine += p
            mine += self.hand[s]
            cards.append(mine)
        self.held = [len(c) for c in cards]
        self.sheet.append([float(h) for h in self.held])
        self.phase = "play"
        self._legal = None
        empty = [s for s in range(n) if not cards[s]]
        if empty:
            self._emit("match_won_gejast", seat=empty[0], held=list(self.held))  # Z13
            self._end_round_state(cards)
            self._finish()
            return
        if self._deals_done():
            self._end_round_state(cards)
            self._finish()
            return
        self.deal_no += 1
        for c in cards:
            self.rng.shuffle(c)  # Z2: later rounds lay out each seat's cards, shuffled
        self._start_round(cards)

    def _end_round_state(self, cards: list[list[int]]) -> None:
        """At the match end every seat's cards lie in one face-down heap (its spit pile)."""
        n = self.players
        self.piles = [[[] for _ in range(PILES)] for _ in range(n)]
        self.up = [[0] * PILES for _ in range(n)]
        self.hand = [[] for _ in range(n)]
        self.known = [0] * n
        self.centre = [[] for _ in range(n)]
        self.spit = [list(c) for c in cards]
        self.pending = [None] * n
        self.pending_str = [None] * n
        self.last_tick = None

    # ----------------------------------------------------------------- scores
    def scores(self) -> list[float]:
        return [float(h) for h in self.held]  # Z13: cards held

    def ranking(self) -> list[int]:
        return rank_by(self.held)  # Z13: fewer cards is better; the gejast winner holds none

    def _invariants(self) -> list[str]:
        out: list[str] = []
        total = self.deck_mask.bit_count()
        for i, row in enumerate(self.sheet):
            if sum(row) != total or min(row) < 0:
                out.append(f"round {i + 1}: cards held {row} do not add up to the {total} cards in play")
        if sum(self.held) != total:
            out.append(f"cards held {self.held} do not add up to {total}")
        if self._over and self.sheet and 0 in self.held and rank_by(self.held).count(1) != 1:
            out.append("two seats hold no cards at the match end (Z13)")
        for s in range(self.players):
            for i, p in enumerate(self.piles[s]):
                u = self.up[s][i]
                if (p and not 1 <= u <= len(p)) or (not p and u):
                    out.append(f"seat {s} pile {i + 1}: {u} face-up of {len(p)} cards (Z10: tops face up)")
            if self.hand[s] and any(self.piles[s]):
                out.append(f"seat {s} holds a hand and a layout at once (Z14)")
        return out

    # ----------------------------------------------------------------- views
    def zones(self) -> dict[str, int]:
        z: dict[str, int] = {}
        for s in range(self.players):
            lay = spit = hand = 0
            for p in self.piles[s]:
                for c in p:
                    lay |= 1 << c
            for c in self.spit[s]:
                spit |= 1 << c
            for c in self.hand[s]:
                hand |= 1 << c
            cen = 0
            for c in self.centre[s]:
                cen |= 1 << c
            z[f"layout{s}"] = lay
            z[f"spit{s}"] = spit
            z[f"hand{s}"] = hand
            z[f"centre{s + 1}"] = cen
        return z

    def hidden_cards(self, viewer: int) -> int:
        m = 0
        for s in range(self.players):
            for i, p in enumerate(self.piles[s]):
                for c in p[:len(p) - self.up[s][i]]:
                    m |= 1 << c
            for c in self.spit[s]:
                m |= 1 << c
            if s != viewer:
                for c in self.hand[s]:
                    if not self.known[s] >> c & 1:
                        m |= 1 << c
        return m

    def determinize(self, seat: int, rng: random.Random) -> State:
        new = self.clone()
        assert isinstance(new, ZenuwenState)
        pool: list[int] = []
        for s in range(self.players):
            for i, p in enumerate(self.piles[s]):
                pool += p[:len(p) - self.up[s][i]]
            pool += self.spit[s]
            if s != seat:
                pool += [c for c in self.hand[s] if not self.known[s] >> c & 1]
        rng.shuffle(pool)
        for s in range(self.players):
            for i, p in enumerate(new.piles[s]):
                down = len(p) - new.up[s][i]
                for k in range(down):
                    p[k] = pool.pop()
            new.spit[s] = [pool.pop() for _ in new.spit[s]]
            if s != seat:
                new.hand[s] = [c if self.known[s] >> c & 1 else pool.pop() for c in new.hand[s]]
                if new.pending[s] is not None:  # X2: another seat's submission is unknown
                    slap = self.phase == "slap"
                    new.pending[s] = ("c", s) if slap else PASS
                    new.pending_str[s] = f"pile {s + 1}" if slap else "pass"
        new.rng = random.Random(rng.getrandbits(64))
        new._legal = None
        return new

    def _observe(self, seat: int) -> dict[str, JSON]:
        n = self.players
        return {
            "hand": [TOKENS[c] for c in self.hand[seat]],
            "layout_up": [[[TOKENS[c] for c in p[len(p) - u:]] if u else []
                           for p, u in zip(ps, us, strict=True)]
                          for ps, us in zip(self.piles, self.up, strict=True)],
            "layout_down": [[len(p) - u for p, u in zip(ps, us, strict=True)]
                            for ps, us in zip(self.piles, self.up, strict=True)],
            "spit_sizes": [len(x) for x in self.spit],
            "hand_sizes": [len(h) for h in self.hand],
            "known_hands": [[TOKENS[c] for c in self.hand[s] if self.known[s] >> c & 1] for s in range(n)],
            "centre_tops": [TOKENS[p[-1]] if p else None for p in self.centre],
            "centre_sizes": [len(p) for p in self.centre],
            "had_spit": list(self.had_spit),
            "tick": self.tick,
            "priority": self.tick % n,
            "submitted": [x is not None for x in self.pending_str],
            "my_submission": self.pending_str[seat],
            "last_tick": _copy(self.last_tick),
            "round_winner": self.winner,
            "cards_held": list(self.held),
        }

    def _why_illegal(self, verb: str, args: tuple[str, ...]) -> str:
        if verb not in ZENUWEN_VERBS:
            return "Zenuwen's actions are play, stack, move, take, pass and pile"
        for a in args:
            tok = a.split("/")[0]
            if not tok.isdigit() and tok not in PHYS:
                return (f"bad card {quoted(tok)}: write rank then suit, e.g. 'TH' or 'QS' "
                        f"(ranks {' '.join(RANKS)}, suits C D H S)")
        if self.phase != "play":
            return "the round is over: choose a centre pile with 'pile k'"
        if verb == "pile":
            return "a pile is chosen only at the round end"
        if verb == "play":
            return ("play a face-up layout card (or a card in hand) onto a centre pile whose top is one "
                    "rank higher or lower (K-A-2 wraps): 'play 6H 2'")
        if verb == "stack":
            return ("stack a pile's single face-up card (face down or nothing beneath it) onto another "
                    "pile's face-up top of the same rank (Z10)")
        if verb == "move":
            return ("move a pile's face-up cards into an empty space only when a face-down card lies "
                    "under them (Z10)")
        if verb == "take":
            return "take your layout into your hand only with 1-3 layout cards left (Z14)"
        return ""


def _copy(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _copy(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_copy(x) for x in v]
    return v


ZENUWEN_VERBS = ("play", "stack", "move", "take", "pass", "pile")


class Zenuwen(Game):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "play CARD 1..4", "play CARD/1..5 1..4", "stack CARD 1..5", "stack CARD/1..5 1..5", "move PILES",
        "take", "pass", "pile 1..4")

    def action_catalogue(self, form: str) -> list[str]:  # engine.rl: ``move i j``, two layout places
        return [f"{i} {j}" for i in range(1, 6) for j in range(1, 6) if i != j]

    id = "zenuwen"
    lower_score_wins = True
    name = "Zenuwen (Spit / Speed)"
    family = "real-time shedding"
    seed_ref = "seed 002, section 'Zenuwen' (L82-96); RULES.md 2.6"
    summary = ("2 players (3-4 with two packs). Each lays out 5 patience piles of 1-5 cards, top "
               "cards face up; the rest is his spit pile. Everyone flips a spit card onto his centre "
               "pile and plays at once: a face-up card onto any centre pile one rank higher or lower "
               "(K-A-2 wraps). Played in ticks: every seat submits one action, resolved in a rotating "
               "priority order; when all pass, everyone flips again. Emptying your layout wins the "
               "round and a centre pile; a round winner without a spit pile wins the match.")
    notation = ("play 6H 2    (a face-up layout card or a hand card onto centre pile 2)\n"
                "stack 6H 3   (your face-up 6H onto your pile 3, same rank)\n"
                "move 3 5     (the face-up cards of your pile 3 into your empty space 5)\n"
                "take         (your last 1-3 layout cards into your hand)\n"
                "pass\n"
                "pile 2       (round end: choose centre pile 2)")
    min_players = 2
    max_players = 4
    default_players = 2
    rule_events = ("simultaneous_flip", "race_conflict", "stuck_both", "spit_from_opponent",
                   "took_last_three_in_hand", "pile_choice", "slap_race", "no_spit_pile_round",
                   "match_won_gejast", "round_blocked", "round_won")
    extra_verbs: ClassVar[dict[str, tuple[str, str]]] = {
        "play": ("words", "play 6H 2 (a card onto centre pile 2)"),
        "stack": ("words", "stack 6H 3"),
        "move": ("words", "move 3 5"),
        "take": ("none", "take"),
        "pile": ("words", "pile 2"),
    }
    options_spec = (
        Option("spit_from_opponent", False, "Z3: with an empty spit pile, flip the next seat's top "
               "spit card (default: flip nothing)"),
        Option("round_end", "choose", "Z4: 'choose' (the round winner picks a centre pile) or "
               "'slap' (variant A: everyone slaps, the first in priority order picks; no slap "
               "when the winner started the round without a spit pile, Z13)",
               choices=("choose", "slap")),
        Option("packs", None, "Z2/Z7: packs in play (None: 1 for 2 players, 2 for 3-4)",
               choices=(None, 1, 2)),
    )
    options_type = ZenuwenOptions
    state_class = ZenuwenState
    tables = NO_CARD_TABLES  # no tricks, no card points


register(Zenuwen)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
