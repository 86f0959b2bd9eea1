"""Tonk.  Seed 003 L547-575; RULES.md 2.22 and "Common rummy definitions".  Decisions followed:
T1-T13, X1, X6, X7 (via T11).

2-6 players (more than 3 is not advised), 52 cards, 5 each, a fixed stake per deal (option
``stake``, 1).  Values (T1, T10): A 1, pips face value, J Q K 10; a player's count is the sum of the
cards in his hand.  Seat 0 deals first (X1); the deal passes left.

Dealt tonk (T9, T12): a player dealt 50 or more says "tonk" at once and wins a double stake from
every other player (``dealt_tonk``); if several have it, nobody wins and the next dealer deals
(``multiple_tonk_redeal``).  Both count as a deal played.

A turn (notation):

* at its start only: ``call`` drops (T2; the seed's "klopt, of laat vallen": CONTRACT's ``call``,
  "end the deal by showing a low hand", which is what a drop is): every hand is shown and
  counted (``drop``);
* ``draw stock`` or ``draw discard`` (the top discard);
* any number of ``meld 5H 6H 7H`` (a set of 3-4 cards of one rank, T6, or a run of 3+ cards of one
  suit, the ace low only, T5; listed as whole melds, in ascending order / suit order C D H S, other
  orders accepted) and ``layoff 8H 2`` (one card onto table meld 2, anybody's, T7: no meld of one's
  own needed; melds are numbered from 1 in the order laid);
* ``discard XX`` ends the turn.

Endings and stakes (``stake_transfer`` events, one per payment):

1. a player who empties his hand by melding or laying off wins a double stake from everyone
   (``tonk_out``);
2. a player whose final discard empties his hand wins a single stake from everyone
   (``out_by_discard``);
3. a drop: a dropper whose count is below every other player's wins a single stake from everyone;
   otherwise he is caught (T13: a tie catches him) and pays a double stake to each player whose
   count is at most his, and the lowest other player(s) each receive a single stake from every
   player other than the dropper and the co-lowest (T3; option ``dropper_pays_lowest``: the
   dropper pays them that single stake too, the seed's literal "van iedereen");
4. the stock exhausted (T11): at the end of the turn whose draw emptied the stock (unless that
   player went out), the lowest count wins a single stake from everyone; tied lowest players each
   receive a single stake from every other player (T4) (``stock_exhausted``).

The match is ``deals`` deals (T8, default 10); ``scores()`` are the net stakes, ranked highest first.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards import DISCARD, PHYS, TOKENS, bits, deck_52, hand_tokens, value_table
from engine.core import NO_CARD_TABLES, Game, Option, State, rank_by, register
from engine.deal import check_deal, pack_tokens
from engine.melds import GroupRule, RunRule, enumerate_groups, enumerate_runs, position
from engine.stock import DrawDiscardState, deal_injected

VALUES = value_table(ace=1)  # T1
HAND = 5
GROUPS = GroupRule(min_size=3, max_size=4, distinct_suits=True)  # T6
RUNS = RunRule(min_len=3, ace_low=True, ace_high=False)  # T5


def _place(c: int) -> int:
    return position(c, False)  # T5: the ace below the 2 only


@dataclass(frozen=True)
class TonkOptions:
    """Tonk's options (``Tonk.options_spec``), typed."""

    deals: int = 10
    stake: int = 1
    dropper_pays_lowest: bool = False
    tonk_min: int = 50


class TonkState(DrawDiscardState):
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "hand": "your cards (list[card])",
        "count": "your hand's count (pip values; the lowest count wins a drop) (int)",
        "dealer": "the seat that dealt this deal (int)",
        "table": "the melds on the table: dicts with `number` (for `layoff`), `owner`, `kind` "
            "(`run`/`set`), `cards`",
        "pile": "the discard pile, top card last (list[card])",
        "stock_size": "cards left in the stock (int)",
        "hand_sizes": "cards held per seat (list[int])",
        "known_cards": "per seat, the cards it is publicly known to hold (taken from the discard pile), "
            "list[list[card]]",
        "net": "stakes won (positive) or lost per seat in the match so far (list[int])",
        "last_deal": "the previous deal's result, null before one ended: `deal`, `end` (how it ended: "
            "`drop`, `tonk`, ...), `seat` (who ended it), `row` (stakes per seat), `counts`",
    }
    PHASES: ClassVar[tuple[str, ...]] = (  # engine.rl: every phase, "over" included
        "draw", "play", "over")
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md)
        "scores": "seat_nums:50", "hand": "cards", "count": "num:100", "dealer": "seat", "table": "melds:17",
        "pile": "cards", "stock_size": "num:52", "hand_sizes": "seat_nums:10", "known_cards": "seat_cards",
        "net": "seat_nums:50",
    }
    TENSOR_SKIP: ClassVar[dict[str, str]] = {  # engine.rl: keys the tensor leaves out, and why
        "last_deal": "the previous deal's summary: its stakes are already in `net`",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    hands: list[int]
    known: list[int]
    stock: list[int]
    pile: list[int]
    table: list[tuple[int, str, list[int]]]
    """(owner, 'set'|'run', cards in order) per meld, numbered from 1."""
    net: list[int]
    turn: int
    dealer: int
    step: str
    last: dict[str, Any] | None

    # ----------------------------------------------------------------- deal
    def _setup(self, deal: dict[str, Any] | None) -> None:
        self.net = [0] * self.players
        self.last = None
        if deal is None:
            self._start_deal(0)  # X1
        else:
            self._inject(deal)

    def _reset(self, dealer: int) -> None:
        n = self.players
        self.hands = [0] * n
        self.known = [0] * n
        self.stock = []
        self.pile = []
        self.table = []
        self.dealer = dealer
        self.deal_no += 1
        self._legal = None

    def _start_deal(self, dealer: int) -> None:
        self._reset(dealer)
        deck = deck_52()
        self.rng.shuffle(deck)
        self.deck_mask = (1 << 52) - 1
        n = self.players
        for _ in range(HAND):
            for k in range(1, n + 1):
                self.hands[(dealer + k) % n] |= 1 << deck.pop()
        self.stock = deck
        self._after_deal()

    def _inject(self, deal: dict[str, Any]) -> None:
        n = self.players
        deck = deck_52()
        d = check_deal(deal, game="tonk", players=n, pack=pack_tokens(deck), sizes=[HAND] * n,
                       stock="rest", upcard="optional")
        self._reset(0 if d.dealer is None else d.dealer)
        dealt = deal_injected(d, deck, self.rng)
        self.hands = dealt.hands
        self.stock = dealt.stock
        if dealt.upcard is not None:
            self.stock.append(dealt.upcard)  # turned by _after_deal
        self.deck_mask = dealt.mask
        self._after_deal()

    def _after_deal(self) -> None:
        n = self.players
        # T9, T12: a dealt tonk is settled before play
        least = self.game.opts(TonkOptions).tonk_min
        counts = [self.count(s) for s in range(n)]
        tonks = [s for s in range(n) if counts[s] >= least]
        if len(tonks) == 1:
            s = tonks[0]
            self._emit("dealt_tonk", seat=s, points=counts[s])
            self._settle([(o, s, 2) for o in range(n) if o != s], "dealt_tonk", s)
            return
        if len(tonks) > 1:
            self._emit("multiple_tonk_redeal", seats=tonks, points=[counts[s] for s in tonks])
            self._settle([], "multiple_tonk_redeal", None)
            return
        if self.stock:
            self.pile.append(self.stock.pop())  # the first card turned for the discard pile
        self._begin_turn((self.dealer + 1) % n)

    def count(self, seat: int) -> int:
        """T10: the value of the cards in the hand."""
        return sum(VALUES[c] for c in bits(self.hands[seat]))

    # ----------------------------------------------------------------- turn
    def _begin_turn(self, seat: int) -> None:
        self.turn = seat
        self.step = "start"
        self.phase = "draw"
        self._legal = None
        if not self.stock:  # only a thin injected deal: nothing to draw
            self._stock_exhausted()

    def _current(self) -> int:
        return self.turn

    def _legal_actions(self) -> list[str]:
        if self.step == "start":
            out = ["call"]  # T2: drop at the start of one's own turn, before drawing
            if self.stock:
                out.append("draw stock")
            if self.pile:
                out.append("draw discard")
            return out
        hand = self.hands[self.turn]
        cards = bits(hand)
        out = []
        if len(cards) >= 3:
            for items in enumerate_groups(cards, GROUPS) + enumerate_runs(cards, RUNS):
                out.append("meld " + " ".join(TOKENS[c] for c, _ in items))
        for c in cards:
            for i, (_, kind, mc) in enumerate(self.table):
                if self._fits(c, kind, mc):
                    out.append(f"layoff {TOKENS[c]} {i + 1}")
        out += [DISCARD[c] for c in cards]
        return out

    @staticmethod
    def _fits(c: int, kind: str, meld: list[int]) -> bool:
        if kind == "set":
            return len(meld) < 4 and c % 13 == meld[0] % 13
        if c // 13 != meld[0] // 13:
            return False
        p = _place(c)
        return p == _place(meld[0]) - 1 or p == _place(meld[-1]) + 1

    def _canonical(self, verb: str, args: tuple[str, ...]) -> str | None:
        if verb == "meld":
            want = sorted(args)
            for a in self.legal_actions():
                if a.startswith("meld ") and sorted(a.split()[1:]) == want:
                    return a
        return None

    def _why_illegal(self, verb: str, args: tuple[str, ...]) -> str:
        if self.step == "start" and verb in ("meld", "layoff", "discard"):
            return "draw first (or call to drop, T2)"
        if self.step != "start" and verb in ("call", "draw"):
            return "a drop or a draw comes only at the start of the turn (T2)"
        if verb == "meld":
            return "a meld is 3-4 cards of one rank or 3+ cards in a row of one suit, the ace low (T5, T6)"
        return ""

    def _apply(self, action: str) -> None:
        seat = self.turn
        verb, _, rest = action.partition(" ")
        if verb == "call":
            self._drop(seat)
        elif verb == "draw":
            c = self.stock.pop() if rest == "stock" else self.pile.pop()
            self.hands[seat] |= 1 << c
            if rest == "discard":
                self.known[seat] |= 1 << c
            self.step = "play"
            self.phase = "play"
        elif verb == "meld":
            cs = [PHYS[t][0] for t in rest.split()]
            for c in cs:
                self.hands[seat] &= ~(1 << c)
            kind = "set" if len({c % 13 for c in cs}) == 1 else "run"
            if kind == "run":
                cs.sort(key=_place)
            self.table.append((seat, kind, cs))
            self._after_table_play(seat)
        elif verb == "layoff":
            tok, num = rest.split()
            c = PHYS[tok][0]
            _, kind, mc = self.table[int(num) - 1]
            self.hands[seat] &= ~(1 << c)
            if kind == "run" and _place(c) < _place(mc[0]):
                mc.insert(0, c)
            else:
                mc.append(c)
            self._after_table_play(seat)
        else:  # discard
            c = PHYS[rest][0]
            self.hands[seat] &= ~(1 << c)
            self.known[seat] &= ~(1 << c)
            self.pile.append(c)
            if not self.hands[seat]:
                self._emit("out_by_discard", seat=seat)
                self._settle([(o, seat, 1) for o in range(self.players) if o != seat], "out_by_discard", seat)
                return
            if not self.stock:  # T11: the turn whose draw emptied the stock ends the deal
                self._stock_exhausted()
                return
            self._begin_turn((seat + 1) % self.players)

    def _after_table_play(self, seat: int) -> None:
        self.known[seat] &= self.hands[seat]
        if not self.hands[seat]:  # ending 1: out without a discard
            self._emit("tonk_out", seat=seat)
            self._settle([(o, seat, 2) for o in range(self.players) if o != seat], "tonk_out", seat)

    # ----------------------------------------------------------------- endings
    def _drop(self, seat: int) -> None:
        n = self.players
        counts = [self.count(s) for s in range(n)]
        others = [s for s in range(n) if s != seat]
        low = min(counts[s] for s in others)
        if counts[seat] < low:  # T13: strictly below everyone else
            self._emit("drop", seat=seat, count=counts[seat], result="won", counts=counts)
            pays = [(o, seat, 1) for o in others]
        else:
            self._emit("drop", seat=seat, count=counts[seat], result="caught", counts=counts)
            # T3: the dropper pays a double stake to each player at or below his count ...
            pays = [(seat, o, 2) for o in others if counts[o] <= counts[seat]]
            lowest = [s for s in others if counts[s] == low]
            # ... and the lowest player(s) get a single stake from the others (not the dropper;
            # option dropper_pays_lowest: from him too, the seed's literal "van iedereen")
            payers = [*others, seat] if self.game.opts(TonkOptions).dropper_pays_lowest else others
            for w in lowest:
                pays += [(o, w, 1) for o in payers if o not in lowest]
        self._settle(pays, "drop", seat)

    def _stock_exhausted(self) -> None:
        n = self.players
        counts = [self.count(s) for s in range(n)]
        low = min(counts)
        lowest = [s for s in range(n) if counts[s] == low]
        self._emit("stock_exhausted", seat=None, counts=counts, lowest=lowest)
        pays = [(o, w, 1) for w in lowest for o in range(n) if o not in lowest]  # T4
        self._settle(pays, "stock_exhausted", None)

    def _settle(self, pays: list[tuple[int, int, int]], how: str, seat: int | None) -> None:
        n = self.players
        stake = self.game.opts(TonkOptions).stake
        row = [0] * n
        for a, b, k in pays:
            amount = k * stake
            self._emit("stake_transfer", seat=a, to=b, n=amount)
            row[a] -= amount
            row[b] += amount
        self.sheet.append([float(v) for v in row])
        for s in range(n):
            self.net[s] += row[s]
        self.last = {"deal": self.deal_no, "end": how, "seat": seat, "row": row,
                     "hands": [hand_tokens(h) for h in self.hands],
                     "counts": [self.count(s) for s in range(n)]}
        if self._deals_done() or self.deal_no >= self.game.opts(TonkOptions).deals:  # T8
            self._finish()
            return
        self._start_deal((self.dealer + 1) % n)

    # ----------------------------------------------------------------- match
    def scores(self) -> list[float]:
        return [float(v) for v in self.net]

    def ranking(self) -> list[int]:
        return rank_by(self.net, lower_is_better=False)

    def zones(self) -> dict[str, int]:
        z = {f"hand{s}": h for s, h in enumerate(self.hands)}
        st = pl = tb = 0
        for c in self.stock:
            st |= 1 << c
        for c in self.pile:
            pl |= 1 << c
        for _, _, mc in self.table:
            for c in mc:
                tb |= 1 << c
        z.update(stock=st, pile=pl, table=tb)
        return z

    def clone(self) -> State:
        new = super().clone()
        assert isinstance(new, TonkState)
        new.table = [(o, k, list(mc)) for o, k, mc in self.table]
        return new

    def _observe(self, seat: int) -> dict[str, Any]:
        last = self.last
        if last is not None and not self._over:
            last = {k: v for k, v in last.items() if k != "hands"}
        return {
            "hand": hand_tokens(self.hands[seat]),
            "count": self.count(seat),
            "dealer": self.dealer,
            "table": [{"number": i + 1, "owner": o, "kind": k, "cards": [TOKENS[c] for c in mc]}
                      for i, (o, k, mc) in enumerate(self.table)],
            "pile": [TOKENS[c] for c in self.pile],
            "stock_size": len(self.stock),
            "hand_sizes": [h.bit_count() for h in self.hands],
            "known_cards": [hand_tokens(k) for k in self.known],
            "net": list(self.net),
            "last_deal": last,
        }

    def _invariants(self) -> list[str]:
        out = []
        for row in self.sheet:
            if sum(row) != 0:
                out.append(f"deal row {row} does not sum to 0 (stakes change hands)")
        tot = [int(sum(r[s] for r in self.sheet)) for s in range(self.players)]
        if tot != self.net:
            out.append(f"net {self.net} differs from the sheet {tot}")
        for i, (_, kind, mc) in enumerate(self.table):
            if len(mc) < 3 or (kind == "set" and (len(mc) > 4 or len({c % 13 for c in mc}) != 1)):
                out.append(f"table meld {i + 1} is not a valid {kind}")
            start = _place(mc[0])
            if kind == "run" and [_place(c) for c in mc] != list(range(start, start + len(mc))):
                out.append(f"table meld {i + 1} is not a run")
        return out


class Tonk(Game):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "call", "draw stock", "draw discard", "meld COMBINATION", "layoff CARD 1..17", "discard CARD")

    def action_catalogue(self, form: str) -> list[str]:  # engine.rl: every meld of T5/T6 in a hand of 6
        from engine.rl.catalogues import natural_melds
        return natural_melds(GROUPS, RUNS, HAND + 1)

    id = "tonk"
    name = "Tonk"
    family = "rummy"
    seed_ref = "seed 003 L547-575; RULES.md 2.22"
    summary = ("2-6 players, 52 cards, 5 each, a stake per deal. Dealt 50+: tonk, double stake from "
               "everyone. A turn: drop (call) before drawing, or draw from the stock or the discard "
               "pile, meld sets/runs and lay off on anyone's melds, discard. Empty your hand without a "
               "discard: double stake; with the final discard: single. A drop wins a single stake if "
               "lowest, else the dropper pays double to each player at or below him. Stock empty: the "
               "lowest count wins a single stake. 10 deals, net stakes.")
    notation = "call\ndraw stock\ndraw discard\nmeld 5H 6H 7H\nmeld 7C 7D 7S\nlayoff 8H 2\ndiscard 5H"
    min_players = 2
    max_players = 6
    default_players = 3
    rule_events = ("dealt_tonk", "multiple_tonk_redeal", "tonk_out", "out_by_discard", "drop",
                   "stock_exhausted", "stake_transfer")
    options_spec = (
        Option("deals", 10, "T8: deals in a match [engine default]", check=lambda v: v >= 1, max=1000),
        Option("stake", 1, "The fixed stake per deal", check=lambda v: v >= 1),
        Option("dropper_pays_lowest", False, "T3: a caught dropper also pays the lowest player(s) a "
               "single stake (the seed's literal 'ontvangt een enkele inzet van iedereen')"),
        Option("tonk_min", 50, "T9: a dealt hand worth this or more is a tonk (seed 50; pagat 49)",
               choices=(49, 50)),
    )
    options_type = TonkOptions
    state_class = TonkState
    tables = NO_CARD_TABLES  # no tricks, no card points


register(Tonk)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
