"""Manille for 2 to 7 players (each for himself, free trump). Seed 003 L81-102; RULES.md 2.10 and
the "Common rule for the manille family". Decisions followed: Q1-Q6 (and X1-X6).

* 32 cards (7-A); 10 (manille) > A > K > Q > J > 9 > 8 > 7; card points 10=5 A=4 K=3 Q=2 J=1 plus
  one per trick.
* Deal as many cards as possible evenly, one packet each from the dealer's left; the rest is a
  face-down stock: 2 players 16 each (no stock), 3: 10 + 2, 4: 8, 5: 6 + 2, 6: 5 + 2, 7: 4 + 4.
  X1: seat 0 deals first; the deal passes clockwise.
* Bidding (Q2): from voorhand clockwise, one round, each says ``play`` or ``pass``; the first
  ``play`` makes him declarer and ends the bidding.  If everyone passes (``all_passed_redeal``) the
  next dealer deals again; the passed deal counts as a deal played (``max_deals``) and scores
  nothing.
* Exchange (Q3): the declarer may ``discard XX`` any number of times up to the stock size: the
  card goes face down under the stock and he takes the top stock card.  ``trump C|D|H|S`` names
  trump and ends the exchange (with no stock, it is his only choice).
* Play (Q5): voorhand leads, even when he is not the declarer.  The family rule without partners
  (seed L98): follow suit; beat the winning card if you can; void, a winning trump if you can,
  else any card ("dan mag je bijgooien wat je wilt"; option ``no_losing_trump``, default off, bars
  a losing trump unless you hold only trumps).
* Contract (Q1): the declarer needs ``21`` (2-4 players) or ``15`` (5-7 players) points, cards and
  tricks together.  Q6: two players hold 16 cards each, cannot exchange and still need 21.
* Stakes (Q4): made, the declarer scores ``stake_no_exchange`` (2) without an exchange or
  ``stake_exchange`` (1) after one; failed, he loses ``stake_failed`` (2).  The others score
  nothing.  The first player to reach ``game_target`` (10) game points wins the match.  Engine
  default: as failed contracts cost points, a match could go on for ever; it also ends after
  ``deal_limit`` (100) deals (event ``deal_limit_reached``), ranked by game points.
* Per-deal invariant: the points won plus the points of the cards left in the stock make 60 plus
  one per trick (68 with 4 players, who have no stock).

Rule events (``manille_2_7.<name>``): ``declarer(player)``, ``exchanged(n)``, ``trump_named``,
``all_passed_redeal``, ``contract_made``, ``contract_failed``, and the family's
``overtake_forced``, ``overtrump_forced``, ``undertrump_blocked``, ``trick_point_awarded``.

Injected deal (X6): ``{"dealer": 0, "hands": [[...] x n], "stock": [... top card first]}``; play
starts at the bidding.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards import TOKENS, card, deck_32, mask_of
from engine.core import JSON, CardTables, Game, Option, rank_by, register
from engine.games.manille._manille import (
    PLAY_CARD,
    TRUMP,
    TRUMP_SUIT,
    ManilleState,
    family_rule,
    points_of,
)
from engine.tricks import mask_of_tokens

DECK = mask_of(deck_32())
DISCARD: tuple[str, ...] = tuple("discard " + TOKENS[c] for c in range(52))
DISCARD_CARD: dict[str, int] = {a: c for c, a in enumerate(DISCARD)}
BIDS = ("play", "pass")


def contract_points(players: int) -> int:
    """Q1: the declarer needs 21 points with 2-4 players, 15 with 5-7."""
    return 21 if players <= 4 else 15


@dataclass(frozen=True)
class Manille27Options:
    """Manille 2-7's options (``Manille27.options_spec``: the decisions they follow), typed."""

    game_target: int = 10
    stake_no_exchange: int = 2
    stake_exchange: int = 1
    stake_failed: int = 2
    no_losing_trump: bool = False
    deal_limit: int | None = 100


class Manille27State(ManilleState):
    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "declarer": "the seat that bid `play`, null before one did (int)",
        "bids": "the bids so far in this deal, in order (list[str]: `play` or `pass`)",
        "exchanges": "cards the declarer has exchanged with the stock (int)",
        "stock_size": "cards left in the stock (int)",
        "contract": "the points the declarer needs, cards and tricks together (int)",
        "game_points": "match (game) points per seat (list[int])",
        "under_stock": "the declarer only: the cards he put under the stock (list[card])",
    }
    PHASES: ClassVar[tuple[str, ...]] = (  # engine.rl: every phase, "over" included
        "bid", "exchange", "play", "over")
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md)
        "scores": "seat_nums:20", "declarer": "seat", "exchanges": "num:8", "stock_size": "num:32",
        "contract": "num:100", "game_points": "seat_nums:20", "under_stock": "cards",
    }
    TENSOR_SKIP: ClassVar[dict[str, str]] = {  # engine.rl: keys the tensor leaves out, and why
        "bids": "the order of this deal's bids: who bid `play` is `declarer`, the others passed",
    }
    """Observation keys -> meaning (docs/bots.md; :meth:`engine.core.State.observation_keys`)."""

    PARTNERS: ClassVar[bool] = False
    TRICK_POINT: ClassVar[int] = 1

    game_points: list[int]
    declarer: int
    """-1 until someone says ``play``."""
    bids: list[str]
    exchanges: int
    exchange_cap: int
    discarded: int
    """Cards the declarer put under the stock (he knows where they are)."""
    stock_left: list[int]
    """Points of the cards left in the stock, for each deal played out."""

    def _setup(self, deal: dict[str, Any] | None) -> None:
        o = self.game.opts(Manille27Options)
        self._init_family(family_rule(o.no_losing_trump, partner_exempt=False), DECK)  # L98
        self.game_points = [0] * self.players
        self.stock_left = []
        self.deal_no = 1
        self.dealer = 0  # X1
        if deal is not None:
            self._reset_deal()
            n = self.players
            self._injected_hands(deal, 32 // n, stock="rest")
            stock = deal.get("stock") or []
            sm = mask_of_tokens(stock, DECK, "deal['stock']")
            held = 0
            for h in self.hands:
                held |= h
            if sm & held or len(stock) != 32 % n:
                raise ValueError(f"deal['stock'] must hold the {32 % n} cards not dealt "
                                 f"({n} players get {32 // n} each)")
            self.stock = [card(t) for t in stock]
            self._open_bidding()
            return
        self._deal()

    def _reset_deal(self) -> None:
        super()._reset_deal()
        self.declarer = -1
        self.bids = []
        self.exchanges = 0
        self.discarded = 0
        self.exchange_cap = 0

    def _deal(self) -> None:
        self._reset_deal()
        n = self.players
        self.stock = self._deal_packets(self._shuffled(), (32 // n,))
        self._open_bidding()

    def _open_bidding(self) -> None:
        self.phase = "bid"
        self.turn = self.nxt[self.dealer]  # Q2: voorhand speaks first
        # Q3: up to the stock size (never more than the hand); no stock, no exchange (Q6)
        self.exchange_cap = min(len(self.stock), 32 // self.players)

    # ------------------------------------------------------------------ API hooks
    def _legal_actions(self) -> list[str]:
        ph = self.phase
        if ph == "play":
            return self._play_actions()
        if ph == "bid":
            return list(BIDS)
        out = list(TRUMP)
        if self.exchanges < self.exchange_cap:
            out += [DISCARD[c] for c in self._deck_list if self.hands[self.turn] >> c & 1]
        return out

    def _apply(self, action: str) -> None:
        ph = self.phase
        if ph == "play":
            self._play(PLAY_CARD[action])
        elif ph == "bid":
            self.bids.append(action)
            if action == "play":
                # Q2: the first player to say "play" is the declarer; the others no longer speak
                self.declarer = self.turn
                self._emit("declarer", seat=self.turn)
                self.phase = "exchange"
                return
            self.turn = self.nxt[self.turn]
            if len(self.bids) == self.players:
                self._emit("all_passed_redeal", seat=self.dealer)
                self.sheet.append([0.0] * self.players)
                self._next_deal()
        elif action in DISCARD_CARD:
            # Q3: the card goes under the stock, the declarer takes the top card
            c = DISCARD_CARD[action]
            seat = self.turn
            top = self.stock.pop(0)
            self.stock.append(c)
            self.hands[seat] = self.hands[seat] & ~(1 << c) | 1 << top
            self.discarded |= 1 << c
            self.exchanges += 1
        else:
            if self.exchanges:
                self._emit("exchanged", seat=self.turn, n=self.exchanges)
            self.trump = TRUMP_SUIT[action]
            self._emit("trump_named", seat=self.turn, suit=action[-1])
            self._start_play(self.nxt[self.dealer])  # Q5: voorhand leads

    def _why_illegal(self, verb: str, args: tuple[str, ...]) -> str:
        ph = self.phase
        if verb == "play" and not args and ph != "bid":
            return "bidding (play or pass) is over; play a card with 'play QS'"
        if verb == "play" and args and ph == "bid":
            return "first the bidding: say 'play' (to be declarer) or 'pass'"
        if verb == "trump":
            if args == ("none",):
                return "the declarer names a suit: trump C, D, H or S"
            return "only the declarer names trump, after the bidding and his exchange"
        if verb == "discard":
            if ph != "exchange":
                return "only the declarer exchanges with the stock, after the bidding"
            if self.exchanges >= self.exchange_cap:
                return (f"Q3: at most {self.exchange_cap} exchange(s) with "
                        f"{len(self.stock)} stock card(s); name trump now")
            return f"seat {self.turn} does not hold {' '.join(args)}"
        if verb == "pass" and ph != "bid":
            return "'pass' is a bid; the bidding is over"
        if verb == "play" and args and ph == "play":
            return self._why_not_card(args[0])
        return ""

    # ------------------------------------------------------------------ deal end
    def _deal_over(self) -> None:
        self.stock_left.append(points_of(mask_of(self.stock), self.POINTS))
        n = self.players
        need = contract_points(n)  # Q1: 21 with 2-4 players, 15 with 5-7
        got = self.pts[self.declarer]
        opts = self.game.opts(Manille27Options)
        row = [0.0] * n
        if got >= need:
            gain = opts.stake_exchange if self.exchanges else opts.stake_no_exchange
            row[self.declarer] = float(gain)
            self._emit("contract_made", seat=self.declarer, points=got, target=need, score=gain)
        else:
            row[self.declarer] = -float(opts.stake_failed)
            self._emit("contract_failed", seat=self.declarer, points=got, target=need,
                       score=-opts.stake_failed)
        self.game_points[self.declarer] += int(row[self.declarer])
        self.sheet.append(row)
        self._next_deal()

    def _next_deal(self) -> None:
        opts = self.game.opts(Manille27Options)
        limit = opts.deal_limit
        if max(self.game_points) >= opts.game_target or self._deals_done():
            self._finish()
            return
        if limit is not None and self.deal_no >= limit:
            # engine default: a match whose declarers keep failing still ends
            self._emit("deal_limit_reached", deals=self.deal_no, scores=list(self.game_points))
            self._finish()
            return
        self.deal_no += 1
        self.dealer = self.nxt[self.dealer]
        self._deal()

    def _deal_total_expected(self, i: int) -> int:
        return self._deal_total() - self.stock_left[i]

    # ------------------------------------------------------------------ views
    def scores(self) -> list[float]:
        return [float(p) for p in self.game_points]

    def ranking(self) -> list[int]:
        return rank_by(self.game_points, lower_is_better=False)

    def _observe(self, seat: int) -> dict[str, JSON]:
        obs = self._observe_play(seat)
        obs["declarer"] = self.declarer if self.declarer >= 0 else None
        obs["bids"] = list(self.bids)
        obs["exchanges"] = self.exchanges
        obs["stock_size"] = len(self.stock)
        obs["contract"] = contract_points(self.players)
        obs["game_points"] = list(self.game_points)
        if seat == self.declarer and self.discarded:
            obs["under_stock"] = [TOKENS[c] for c in self.stock if self.discarded >> c & 1]
        return obs

    def _known_to(self, viewer: int) -> int:
        # the declarer knows which of his discards lie under the stock
        return self.discarded if viewer == self.declarer else 0


class Manille27(Game):
    action_forms: ClassVar[tuple[str, ...]] = (  # engine.rl, docs/rl.md
        "play", "pass", "discard CARD", "trump SUIT", "play CARD")
    id = "manille_2_7"
    name = "Manille, 2-7 players (solo, free trump)"
    family = "trick-taking (manille)"
    seed_ref = "seed 003 L81-102 (Manille, 2-7 spelers)"
    summary = """
        2-7 players, each for himself, clockwise; 32 cards, 10 (manille) > A
        > K > Q > J > 9 > 8 > 7; card points 10=5 A=4 K=3 Q=2 J=1 plus 1 per
        trick.  The cards are dealt out evenly; the rest is a face-down
        stock.  From voorhand, each says play or pass; the first to play is
        declarer: he may exchange cards with the stock (one at a time, up to
        the stock size), then names trump.  Voorhand leads.  Follow suit;
        beat the winning card if you can; void, a winning trump if you can,
        else any card. The declarer needs 21
        points (2-4 players) or 15 (5-7): made +2 (+1 after an exchange),
        failed -2.  All pass: the next dealer deals.  First to 10 game
        points wins.
    """
    notation = """
        play                bid: be the declarer
        pass                bid: decline
        discard QS          the declarer puts a card under the stock and takes the top one
        trump C|D|H|S       the declarer names trump (ends the exchange)
        play QS             play a card to the trick
    """
    min_players = 2
    max_players = 7
    default_players = 4
    rule_events = (
        "declarer",
        "exchanged",
        "trump_named",
        "all_passed_redeal",
        "contract_made",
        "contract_failed",
        "overtake_forced",
        "overtrump_forced",
        "undertrump_blocked",
        "trick_point_awarded",
    )
    extra_verbs: ClassVar[dict[str, tuple[str, str]]] = {
        "play": ("cards0", "play QS, or play alone to bid"),
        "discard": ("cards1", "discard QS"),
    }
    options_spec = (
        Option("game_target", 10, "Q4: the first player to reach this many game points wins",
               check=lambda v: v > 0, max=1000),
        Option("stake_no_exchange", 2, "Q4: game points for a contract made without exchanging",
               check=lambda v: v >= 0),
        Option("stake_exchange", 1, "Q4: game points for a contract made after an exchange",
               check=lambda v: v >= 0),
        Option("stake_failed", 2, "Q4: game points lost for a failed contract",
               check=lambda v: v >= 0),
        Option("no_losing_trump", False, "void while an opponent wins and no trump of yours wins: "
               "no losing trump unless you hold only trumps (the family's earlier reading; seed "
               "L98 allows any card)"),
        Option("deal_limit", 100, "engine default (not in the seed): the match also ends after "
               "this many deals, highest game points first; None for no limit",
               check=lambda v: v > 0, nullable=True, max=1000),
    )
    options_type = Manille27Options
    state_class = Manille27State
    tables = CardTables(state_class.ORDER, state_class.POINTS, state_class.TRICK_POINT)


register(Manille27)  # a call, not a decorator: mypyc compiles this module (engine/_compiled.py)
