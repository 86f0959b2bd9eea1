"""Shared machinery of the shedding family: Genive (RULES.md 2.1) and Geneve (RULES.md 2.2).

Both games deal five cards, turn one card up as the first discard and let each player, in turn,
either ``call`` (show a low hand, ending the deal) or *exchange*: discard a single card, a group of
equal ranks or a run of one suit, **then** draw one card, either the top of the stock or one card
of the group the *previous* player discarded (single: that card; group: any; run: its lowest or
highest card only).  This module holds everything the two games share; the game modules add the
card values, call limit, scoring, match end and their own rule events.

Actions (CONTRACT.md):

* ``discard 5H`` / ``discard 5H 5D`` / ``discard 5H JK=6H 7H``: canonical forms list a run in
  ascending order and a group in suit order C, D, H, S; any other order of the same cards is
  accepted too.  A joker in a run names the card it stands for (``JK=6H``); it may only stand
  for a card the player does not hold (RULES.md clarification on G5/G6).  A lone joker may be
  discarded as a single (``discard JK``).
* ``draw stock`` or ``draw 5H`` (a card of the previous player's discard group; a joker at a run's
  end is drawn as ``draw JK``).  ``draw discard`` is accepted when only one card can be taken.
* ``call``: instead of discarding, when the hand total is at most the call limit.

Stock (X3, G4, V7): when the stock is empty after a draw, every discard except the group the next
player may still take is shuffled into a new stock (``stock_reshuffled``).  If no stock can be
formed and nothing can be taken either (only possible in a thin injected deal), the turn ends
after the discard.

Injected deal (X6): ``{"dealer": d, "hands": [[...], ...], "stock": [... top first],
"upcard": "QS" or None}``.  ``upcard: None`` turns the top stock card up, as the deal would.
Without a ``"stock"`` key the cards not named are shuffled into the stock; with one, only the
named cards are in play in that deal.  An optional ``"first"`` names the seat to play first, and
an optional ``"totals"`` (one int per seat) starts the match from those totals, as when a match
kept on paper is resumed (the games say which totals are allowed).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, cast

from engine.cards import DISCARD, IS_JOKER, MAX_PACKS, PACK, PHYS, TOKENS, bits, card, hand_tokens
from engine.core import Game
from engine.deal import check_deal, check_sizes, pack_tokens
from engine.errors import IllegalAction
from engine.melds import (
    GroupRule,
    Item,
    RunRule,
    check_group,
    check_run,
    enumerate_groups,
    enumerate_runs,
    item_token,
    parse_items,
)
from engine.stock import DrawDiscardState, ReformRule, deal_injected, match_start, read_seat, read_totals

HAND_SIZE = 5
REFORM = ReformRule("shuffle", None, keep=0)
"""X3: the dead discards (the pile holds no takeable card) are shuffled into a new stock, no cap."""
CACHE_LIMIT = 100_000
"""Discard lists cached per hand mask, per game object (cleared when full; about 230 bytes each)."""

RANK_CHAR: tuple[str, ...] = tuple(TOKENS[c][0] for c in range(MAX_PACKS * PACK))
DRAW: dict[str, str] = {t: "draw " + t for t in PHYS}


class SheddingGame(Game):
    """A shedding game (not registered itself): card values, call limit and meld rules."""
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "call", "draw stock", "draw CARD|JK", "discard CARD|JK", "discard COMBINATION")

    def action_catalogue(self, form: str) -> list[str]:  # engine.rl: every group and run of a hand
        from engine.rl.catalogues import discard_combinations
        return discard_combinations(self.group_rule(), self.run_rule, 1, HAND_SIZE)


    values: ClassVar[tuple[int, ...]]
    # G6 (and Geneve likewise): 3+ cards of one suit, at least one natural, the ace low only, no wrap
    run_rule: ClassVar[RunRule] = RunRule(min_len=3, ace_low=True, ace_high=False, min_naturals=1)
    discard_cache: dict[int, tuple[int, tuple[str, ...]]]
    """Hand mask -> (hand total, discard actions)."""
    groups: GroupRule

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.discard_cache = {}
        self.groups = self.group_rule()

    def group_rule(self) -> GroupRule:
        return GroupRule(min_size=2, max_size=4, jokers=False)  # G5: 2-4 natural cards, no joker

    def call_limit(self) -> int:
        return self.opts(SheddingOptions).call_limit


@dataclass(frozen=True)
class SheddingOptions:
    """The options every shedding game has; each game's options type (``Game.options_type``)
    subclasses it with its own default and options."""

    call_limit: int


class SheddingState(DrawDiscardState):
    """The deal machinery shared by Genive and Geneve; games add scoring and the match end."""
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "hand": "your cards (list[card])",
        "hand_value": "the total of your hand in the game's card values: you may `call` when it is at most "
            "`call_limit` (int)",
        "call_limit": "the highest hand total with which a `call` is allowed (int)",
        "dealer": "the seat that dealt this deal (int)",
        "first_player": "the seat that played first in this deal (int)",
        "offer": "the cards the previous player discarded, from which you may draw one (list[card]; a run "
            "in order)",
        "offer_kind": "how `offer` was discarded: `single`, `group` (equal ranks: any card may be taken) or "
            "`run` (only its lowest or highest card); empty before the first discard",
        "takeable": "the cards of `offer` you may draw now with `draw CARD` (list[card])",
        "discard_top": "the group on top of the discard pile: your own fresh discard after you discarded, "
            "else `offer` (list[card])",
        "pile_size": "dead discards (no longer takeable) under the top group (int)",
        "stock_size": "cards left in the face-down stock (int)",
        "hand_sizes": "cards held per seat (list[int])",
        "known_cards": "per seat, the cards it is publicly known to hold (drawn from a discard), "
            "list[list[card]]",
        "active": "per seat, whether it is still in the match (list[bool]; eliminated seats are false)",
        "last_deal": "the result of the previous deal, null before one ended (dict: `deal`, `caller`, "
            "`hand_values` and `points` per seat, and the game's own fields)",
    }
    PHASES: ClassVar[tuple[str, ...]] = (  # engine.rl: every phase, "over" included
        "discard", "draw", "over")
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md)
        "scores": "seat_nums:200", "hand": "cards", "hand_value": "num:100", "call_limit": "num:20",
        "dealer": "seat", "first_player": "seat", "offer": "named_cards",
        "offer_kind": "choice:single|group|run", "takeable": "cards", "discard_top": "named_cards",
        "pile_size": "num:108", "stock_size": "num:108",
        "hand_sizes": "seat_nums:6", "known_cards": "seat_cards", "active": "seat_nums:1",
    }
    TENSOR_SKIP: ClassVar[dict[str, str]] = {  # engine.rl: keys the tensor leaves out, and why
        "last_deal": "the previous deal's summary: its points are already in `scores`",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    upcard_joker_back: ClassVar[bool] = False
    """Genive: a joker turned up as the first open card goes back into the stock."""

    hands: list[int]
    known: list[int]
    """Cards each seat is publicly known to hold (drawn from the discard pile)."""
    stock: list[int]
    """The stock, top card last."""
    pile: int
    """Dead discards (no longer takeable), a mask."""
    offer: list[Item]
    """The previous player's discard group (what the player to act may take)."""
    offer_kind: str
    fresh: list[Item]
    """The group the player to act has just discarded (draw phase)."""
    fresh_kind: str
    turn: int
    dealer: int
    first: int
    active: list[bool]
    totals: list[int]
    start_totals: list[int]
    """The totals the match started from (0, or an injected deal's ``"totals"``)."""
    last: dict[str, Any] | None
    deck: list[int]

    # ----------------------------------------------------------------- deal set-up
    def _setup(self, deal: dict[str, Any] | None) -> None:
        self.totals, self.start_totals, self.active = match_start(self.players, 0)
        self.last = None
        self.deck = self._match_deck()
        if deal is None:
            dealer = self._first_dealer()
            self._start_deal(dealer, self._first_player(dealer))
        else:
            self._inject(deal)

    def _match_deck(self) -> list[int]:
        raise NotImplementedError

    def _start_from(self, totals: list[int], hands: list[Any]) -> None:
        """Hook: check and take an injected deal's starting ``totals``."""
        self.totals = list(totals)
        self.start_totals = list(totals)

    def _first_dealer(self) -> int:
        return 0  # X1

    def _first_player(self, dealer: int) -> int:
        return self._next_active(dealer)

    def _reset_deal(self) -> None:
        n = self.players
        self.hands = [0] * n
        self.known = [0] * n
        self.pile = 0
        self.offer = []
        self.offer_kind = ""
        self.fresh = []
        self.fresh_kind = ""
        self.deal_no += 1
        self._legal = None

    def _start_deal(self, dealer: int, first: int) -> None:
        """Shuffle the match deck, deal five cards to every seat still in, turn the upcard."""
        self._reset_deal()
        self.dealer, self.first, self.turn = dealer, first, first
        deck = list(self.deck)
        self.rng.shuffle(deck)
        self.deck_mask = 0
        for c in deck:
            self.deck_mask |= 1 << c
        seats = [s for s in range(self.players) if self.active[s]]
        k = seats.index(first) if first in seats else 0
        seats = seats[k:] + seats[:k]
        for _ in range(HAND_SIZE):
            for s in seats:
                self.hands[s] |= 1 << deck.pop()
        self.stock = deck
        self._turn_upcard()
        self.phase = "discard"

    def _turn_upcard(self) -> None:
        stock = self.stock
        if not stock:
            return
        up = stock.pop()
        while self.upcard_joker_back and IS_JOKER[up] and stock:
            # Genive: a joker turned up goes back into the stock at a random place (below the
            # top card, so that the next card is turned), and the next card is turned instead.
            at = self.rng.randrange(len(stock))
            stock.insert(at, up)
            self._emit("upcard_joker_reinserted", position_from_top=len(stock) - 1 - at)
            up = stock.pop()
        self.offer = [(up, None)]
        self.offer_kind = "single"

    def _inject(self, deal: dict[str, Any]) -> None:
        n = self.players
        d = check_deal(deal, game=self.game.id, players=n, pack=pack_tokens(self.deck), sizes=None,
                       stock="rest", upcard="optional", extra=("totals", "first"))
        totals = read_totals(deal, n, ints=True)
        if totals is not None:
            self._start_from(totals, d.hands)
        check_sizes(d, [HAND_SIZE if self.active[s] else 0 for s in range(n)])
        dealer = self._first_dealer() if d.dealer is None else d.dealer
        first = read_seat(deal, "first", self.active, self._first_player(dealer))
        self._reset_deal()
        self.dealer, self.first, self.turn = dealer, first, first
        dealt = deal_injected(d, self.deck, self.rng)
        self.hands = dealt.hands
        self.stock = dealt.stock
        if dealt.upcard is not None:
            self.stock.append(dealt.upcard)
        self._turn_upcard()
        self.deck_mask = dealt.mask
        self.phase = "discard"

    # ----------------------------------------------------------------- values
    def hand_value(self, seat: int) -> int:
        vals = cast(SheddingGame, self.game).values
        return sum(vals[c] for c in bits(self.hands[seat]))

    def _shown_values(self, shown: list[list[str]]) -> list[int]:
        """The values of the hands shown at a call (``last["hands"]``), from their tokens."""
        vals = cast(SheddingGame, self.game).values
        return [sum(vals[PHYS[tok][0]] for tok in h) for h in shown]

    def _last_row_check(self, expected: list[int]) -> list[str]:
        """Invariant: the sheet's last row is ``expected``, the last deal's points recomputed."""
        assert self.last is not None
        if [float(p) for p in expected] != self.sheet[-1]:
            return [f"deal {self.last['deal']} row {self.sheet[-1]} should be {expected}"]
        return []

    # ----------------------------------------------------------------- turn
    def _current(self) -> int:
        return self.turn

    def _discards(self, hand: int) -> tuple[int, tuple[str, ...]]:
        """The hand's total and its discard actions (cached per hand mask)."""
        g = cast(SheddingGame, self.game)
        cache = g.discard_cache
        out = cache.get(hand)
        if out is None:
            cards = bits(hand)
            vals = g.values
            seen: set[str] = set()
            lst: list[str] = []
            for c in cards:  # singles, in card order
                a = DISCARD[c]
                if a not in seen:
                    seen.add(a)
                    lst.append(a)
            if len(cards) >= 2:
                # quick filters before the melds machinery: a group needs a repeated rank, a run
                # a suit whose naturals and the jokers make three cards
                ranks = [RANK_CHAR[c] for c in cards if not IS_JOKER[c]]
                combos = (enumerate_groups(cards, g.groups)  # suit order C D H S
                          if len(set(ranks)) < len(ranks) else [])
                jokers = [c for c in cards if IS_JOKER[c]]
                per_suit = [0, 0, 0, 0]
                for c in cards:
                    if not IS_JOKER[c]:
                        per_suit[c % PACK // 13] += 1
                viable = [c for c in cards
                          if not IS_JOKER[c] and per_suit[c % PACK // 13] + len(jokers) >= 3]
                if viable:
                    combos += enumerate_runs(viable + jokers, g.run_rule)  # ascending
                for items in combos:
                    a = "discard " + " ".join(item_token(i) for i in items)
                    if a not in seen:
                        seen.add(a)
                        lst.append(a)
            out = (sum(vals[c] for c in cards), tuple(lst))
            if len(cache) >= CACHE_LIMIT:
                cache.clear()
            cache[hand] = out
        return out

    def _takeable(self) -> list[Item]:
        offer = self.offer
        if self.offer_kind == "run":
            return [offer[0], offer[-1]]
        return offer

    def _legal_actions(self) -> list[str]:
        if self.phase == "discard":
            total, discards = self._discards(self.hands[self.turn])
            if total <= cast(SheddingGame, self.game).call_limit():  # G8: on any turn, the first one included
                return ["call", *discards]
            return list(discards)
        out = ["draw stock"] if self.stock else []
        for c, _ in self._takeable():
            a = DRAW[TOKENS[c]]
            if a not in out:
                out.append(a)
        return out

    def _apply(self, action: str) -> None:
        seat = self.turn
        if action[0] == "d" and action[1] == "i":  # discard
            self._do_discard(seat, action.split()[1:])
        elif action[0] == "d":  # draw
            self._do_draw(seat, action[5:])
        else:  # call
            self._score_call(seat)

    def _pick(self, seat: int, hand: int, tok: str) -> int:
        """A physical card of ``hand`` with token ``tok``; publicly known copies first."""
        known = self.known[seat]
        cands = PHYS[tok]
        for c in cands:
            if (hand & known) >> c & 1:
                return c
        for c in cands:
            if hand >> c & 1:
                return c
        raise IllegalAction(f"seat {seat} does not hold {tok}")

    def _do_discard(self, seat: int, args: list[str]) -> None:
        hand = self.hands[seat]
        items: list[Item] = []
        joker_count = 0
        for a in args:
            if a[0] == "J" and a[1] == "K":
                c = self._pick(seat, hand, "JK")
                named = card(a[3:]) if len(a) > 2 else None
                if named is not None:
                    joker_count += 1
            else:
                c = self._pick(seat, hand, a)
                named = None
            hand &= ~(1 << c)
            items.append((c, named))
        removed = self.hands[seat] & ~hand
        self.hands[seat] = hand
        self.known[seat] &= ~removed
        if len(items) == 1:
            kind = "single"
        elif joker_count == 0 and all(RANK_CHAR[c] == RANK_CHAR[items[0][0]] for c, _ in items):
            kind = "group"
        else:
            kind = "run"
        self.fresh = items
        self.fresh_kind = kind
        self._discard_events(seat, kind, items, joker_count)
        self.phase = "draw"
        if not self.stock:
            self._reform_stock()
        if not self.stock and not self.offer:
            self._end_turn()  # X3 edge: nothing to draw at all

    def _do_draw(self, seat: int, what: str) -> None:
        offer = self.offer
        if what == "stock":
            c = self.stock.pop()
            self.hands[seat] |= 1 << c
            for o, _ in offer:
                self.pile |= 1 << o
        else:
            take = self._takeable()
            pick = next(it for it in take if TOKENS[it[0]] == what)
            c = pick[0]
            self.hands[seat] |= 1 << c
            self.known[seat] |= 1 << c
            if self.offer_kind == "run":  # which end: by card, not by identity (compiled code reboxes tuples)
                self._run_end_taken(seat, c, "low" if c == offer[0][0] else "high")
            for o, _ in offer:
                if o != c:
                    self.pile |= 1 << o
        self.offer = []
        self._end_turn()
        if not self.stock:
            self._reform_stock()

    def _end_turn(self) -> None:
        self.offer = self.fresh
        self.offer_kind = self.fresh_kind
        self.fresh = []
        self.fresh_kind = ""
        self.turn = self._next_active(self.turn)
        self.phase = "discard"

    def _reform_stock(self) -> None:
        """X3/G4/V7: every dead discard (not the group still takeable) becomes the new stock."""
        got = REFORM.reform(bits(self.pile), 0, self.rng)
        if got is None:
            return
        self.stock = got[0]
        self.pile = 0
        self._emit("stock_reshuffled", cards=len(self.stock))

    # ----------------------------------------------------------------- hooks for the games
    def _discard_events(self, seat: int, kind: str, items: list[Item], jokers: int) -> None:
        """Emit the game's events for a discard."""

    def _run_end_taken(self, seat: int, c: int, end: str) -> None:
        """Hook: a card was taken from an end of the previous player's run."""

    def _score_call(self, caller: int) -> None:
        raise NotImplementedError

    def _show_hands(self, caller: int) -> list[list[str]]:
        return [hand_tokens(h) for h in self.hands]

    # ----------------------------------------------------------------- canonical / reasons
    def _canonical(self, verb: str, args: tuple[str, ...]) -> str | None:
        legal = self.legal_actions()
        if verb == "discard":
            key = sorted(args)
            for a in legal:
                if a.startswith("discard ") and sorted(a.split()[1:]) == key:
                    return a
        elif verb == "draw" and args == ("discard",):
            takes = [a for a in legal if a != "draw stock"]
            if len(takes) == 1:
                return takes[0]
        return None

    def _why_illegal(self, verb: str, args: tuple[str, ...]) -> str:
        seat = self.turn
        hand = self.hands[seat]
        if verb not in ("discard", "draw", "call"):
            return "this game's actions are call, discard (then draw) and draw"
        if self.phase == "draw":
            if verb != "draw":
                return "you have discarded; now draw: 'draw stock' or a card the previous player discarded"
            take = sorted({TOKENS[c] for c, _ in self._takeable()})
            if args == ("stock",):
                return "the stock is empty and cannot be re-formed"
            if args == ("discard",):
                return f"name the card to take: {', '.join(take)}"
            where = {"run": " (from a run only its lowest or highest card)"}.get(self.offer_kind, "")
            return (f"you may take the top stock card or one of {', '.join(take) or 'nothing'} from "
                    f"the previous player's discard{where}")
        if verb == "draw":
            return "discard first, then draw (the order is mandatory)"
        if verb == "call":
            return (f"a call needs a hand total of at most {cast(SheddingGame, self.game).call_limit()}; "
                    f"yours is {self.hand_value(seat)}")
        try:
            items = parse_items(args, hand)
        except ValueError as e:
            return str(e)
        if len(items) == 1:
            if items[0][1] is not None:
                return "a lone joker is discarded as 'discard JK' (it names no card)"
            return ""
        named = [n for _, n in items if n is not None]
        bare = [c for c, n in items if n is None and IS_JOKER[c]]
        if bare:
            return ("a joker stands only in a run, where it names its card (JK=6H); "
                    "jokers do not stand in groups (G5)")
        if named and len({RANK_CHAR[c] for c, n in items if n is None} | {TOKENS[n][0] for n in named}) == 1:
            return "jokers do not stand in groups, only in runs (G5)"
        groups = cast(SheddingGame, self.game).groups
        try:
            if not named and len({RANK_CHAR[c] for c, _ in items}) == 1:
                if len(items) > groups.max_size:
                    return ("only pairs of equal rank may be discarded" if groups.max_size == 2 else
                            f"at most {groups.max_size} cards of equal rank may be discarded together")
                check_group(items, groups)
            else:
                check_run(items, cast(SheddingGame, self.game).run_rule)
        except ValueError as e:
            return str(e)
        held = {c % PACK for c in range(hand.bit_length()) if hand >> c & 1}
        if any(n in held for n in named):
            return "a joker stands only for a card you do not hold (G6)"
        return ""

    # ----------------------------------------------------------------- views
    def zones(self) -> dict[str, int]:
        z = {f"hand{s}": h for s, h in enumerate(self.hands)}
        stock = 0
        for c in self.stock:
            stock |= 1 << c
        offer = fresh = 0
        for c, _ in self.offer:
            offer |= 1 << c
        for c, _ in self.fresh:
            fresh |= 1 << c
        z.update(stock=stock, pile=self.pile, offer=offer, fresh=fresh)
        return z

    def _observe(self, seat: int) -> dict[str, Any]:
        top = self.fresh if self.fresh else self.offer
        last = _copy_json(self.last)
        if last is not None and not self._over:
            # the shown hands of an earlier deal are in the call event; here they would repeat
            # tokens that the new deal now hides
            del last["hands"]
        return {
            "hand": hand_tokens(self.hands[seat]),
            "hand_value": self.hand_value(seat),
            "call_limit": cast(SheddingGame, self.game).call_limit(),
            "dealer": self.dealer,
            "first_player": self.first,
            "offer": [item_token(i) for i in self.offer],
            "offer_kind": self.offer_kind,
            "takeable": sorted({TOKENS[c] for c, _ in self._takeable()}),
            "discard_top": [item_token(i) for i in top],
            "pile_size": self.pile.bit_count(),
            "stock_size": len(self.stock),
            "hand_sizes": [h.bit_count() for h in self.hands],
            "known_cards": [hand_tokens(k) for k in self.known],
            "active": list(self.active),
            "last_deal": last,
        }


def _copy_json(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _copy_json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_copy_json(x) for x in v]
    return v
