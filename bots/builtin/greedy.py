"""The greedy player: one-move family heuristics, from the observation alone.

* Trick games that score points (the manille family and any game with a points table): lead a
  card no unseen card can beat, else a cheap card of a long side suit; win a trick with the
  cheapest card that wins it (when a later player cannot take it back, or it carries points);
  give points to a trick the partner is sure to win ("vetten"); otherwise throw the cheapest card.
  Name as trump the longest, strongest suit; bid, delegate or double by hand strength; in an
  exchange give up worthless side cards.
* Reverse trick games (Hartenjagen): pass the queen of spades, high spades and high hearts; duck
  under the winning card with the highest card that still loses; win a trick only when forced and
  then with the highest card; when void, throw the queen of spades, then high hearts, then the
  highest card.
* Shedding games (Genive, Geneve): call when the hand total allows and no opponent is likely to be
  as low; discard the combination worth the most; draw the visible card when it is low or pairs
  with the hand, else the stock.  Rummy games get the same, after laying down the largest meld or
  lay-off on offer and knocking whenever allowed.
* Anything else: the sensible generic fallback, a seeded random choice that never uses
  conversation actions (``declare``) when something else is legal.
"""
from __future__ import annotations

import random
from typing import Any

from bots.builtin._common import (
    SHEDDING_FACE,
    SUITS,
    TrickRules,
    TrickView,
    beats,
    family,
    is_card,
    is_master,
    rank,
    shed_value,
    suit,
    teams_of,
    trick_rules,
    trick_view,
    winner,
)

OPTIONS: tuple[()] = ()
"""No constructor options (``bots.builtin._common.check_options``)."""


class Bot:
    def __init__(self, game: str, seat: int, seed: int) -> None:
        self.game = game
        self.seat = seat
        self.rng = random.Random(seed)
        self.family = family(game)
        self.teams = teams_of(game)
        self._rules: TrickRules | None = None
        self.face = SHEDDING_FACE.get(game, 10)

    @property
    def rules(self) -> TrickRules:
        if self._rules is None:
            self._rules = trick_rules(self.game)
        return self._rules

    # ------------------------------------------------------------------ dispatch
    def act(self, obs: dict[str, Any]) -> str:
        legal: list[str] = obs["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        verbs = {a.split(" ", 1)[0] for a in legal}
        plays = [a for a in legal if a.startswith("play ") and len(a) == 7]
        if plays and verbs <= {"play", "declare"}:
            return self.play(obs, plays)
        if verbs == {"pass"} and all(len(a) == 7 for a in legal):
            return self.pass_card(obs, legal)
        if "trump" in verbs:
            return self.name_trump(obs, legal)
        if verbs & {"double", "redouble"}:
            return self.doubling(obs, legal)
        if set(legal) == {"play", "pass"}:
            return self.bid(obs, legal)
        if verbs & {"discard", "draw", "call"} and not self.family.startswith("trick"):
            return self.shed(obs, legal)
        if verbs <= {"cut", "knock"}:
            return "knock" if "knock" in legal else legal[0]
        if verbs & {"delegate"}:
            return self.name_trump(obs, legal)
        quiet = [a for a in legal if not a.startswith("declare")]
        return self.rng.choice(quiet or legal)

    # ------------------------------------------------------------------ trick play
    def play(self, obs: dict[str, Any], plays: list[str]) -> str:
        view = trick_view(obs, self.teams)
        cards = [a[5:] for a in plays]
        r = self.rules
        card = self.avoid_play(view, cards, r) if r.avoid else self.point_play(view, cards, r)
        return "play " + card

    def point_play(self, v: TrickView, cards: list[str], r: TrickRules) -> str:
        trump = v.trump

        def cheap(c: str) -> tuple[int, int, int]:
            return (r.value(c, trump), int(suit(c) == trump), r.strength(c, trump))

        if not v.trick:
            masters = [c for c in cards if suit(c) != trump and is_master(c, v, r)]
            if masters:
                return max(masters, key=lambda c: (r.value(c, trump), r.strength(c, trump)))
            side = [c for c in cards if suit(c) != trump] or cards
            length = {s: sum(1 for c in v.hand if suit(c) == s) for s in SUITS}
            return min(side, key=lambda c: (r.value(c, trump), -length[suit(c)], r.strength(c, trump)))
        wseat, wcard = winner(v.trick, trump, r)
        last = len(v.trick) == v.players - 1
        at_stake = sum(r.value(c, trump) for _, c in v.trick) + r.trick_point
        if v.partner is not None and wseat == v.partner:
            safe = last or is_master(wcard, v, r)
            if safe:  # vetten: give the partner's trick the most points without taking it over
                under = [c for c in cards if not beats(c, wcard, trump, r)] or cards
                return max(under, key=lambda c: (r.value(c, trump), -int(suit(c) == trump),
                                                 -r.strength(c, trump)))
            return min(cards, key=cheap)
        wins = [c for c in cards if beats(c, wcard, trump, r)]
        if wins:
            if last:
                return min(wins, key=lambda c: (r.strength(c, trump) if suit(c) == suit(wcard) else 99,
                                                 int(suit(c) == trump), r.strength(c, trump)))
            sure = [c for c in wins if is_master(c, v, r)]
            if sure and (at_stake > 0 or r.trick_point):
                return min(sure, key=cheap)
            if at_stake >= 3:
                return min(wins, key=cheap)
        return min(cards, key=cheap)

    def avoid_play(self, v: TrickView, cards: list[str], r: TrickRules) -> str:
        trump = v.trump
        if not v.trick:
            safe = [c for c in cards if suit(c) != "H" and c != "QS"] or cards
            spades_high = any(c in v.hand for c in ("QS", "KS", "AS"))
            count = {s: sum(1 for c in v.hand if suit(c) == s) for s in SUITS}

            def lead_key(c: str) -> tuple[int, int, int]:
                risky = int(suit(c) == "S" and spades_high)
                return (risky, r.strength(c, trump), count[suit(c)])
            return min(safe, key=lead_key)
        _, wcard = winner(v.trick, trump, r)
        led = v.led
        follows = [c for c in cards if suit(c) == led]
        if follows:
            under = [c for c in follows if not beats(c, wcard, trump, r)]
            if under:
                return max(under, key=lambda c: r.strength(c, trump))
            last = len(v.trick) == v.players - 1
            pts = sum(r.value(c, trump) for _, c in v.trick)
            if last and pts == 0:  # the trick is ours anyway and clean: unload the highest
                no_qs = [c for c in follows if c != "QS"] or follows
                return max(no_qs, key=lambda c: r.strength(c, trump))
            return min(follows, key=lambda c: r.strength(c, trump))
        # void: unload danger

        def danger(c: str) -> tuple[int, int]:
            if c == "QS":
                return (100, 0)
            if suit(c) == "S" and rank(c) in "AK" and "QS" not in v.seen:
                return (90, r.strength(c, trump))
            if suit(c) == "H":
                return (50, r.strength(c, trump))
            return (0, r.strength(c, trump))
        return max(cards, key=danger)

    def pass_card(self, obs: dict[str, Any], legal: list[str]) -> str:
        r = self.rules
        hand = [str(c) for c in obs.get("hand", [])]
        count = {s: sum(1 for c in hand if suit(c) == s) for s in SUITS}
        low_spades = sum(1 for c in hand if suit(c) == "S" and rank(c) not in "QKA")

        def urge(a: str) -> tuple[int, int]:
            c = a[5:]
            if c == "QS":
                return (100 if low_spades < 4 else 10, 0)
            if suit(c) == "S" and rank(c) in "AK":
                return (90 if "QS" not in hand or low_spades < 4 else 20, r.strength(c, None))
            if suit(c) == "H":
                return (40 + r.strength(c, None), 0)
            return (r.strength(c, None) + (8 if count[suit(c)] <= 2 else 0), 0)
        return max(legal, key=urge)

    # ------------------------------------------------------------------ bidding, trump, exchange
    def suit_scores(self, hand: list[str]) -> dict[str, float]:
        r = self.rules
        out = {}
        for s in SUITS:
            cards = [c for c in hand if suit(c) == s]
            top = max((r.trump.get(c, 0) for c in cards), default=0)
            out[s] = sum(1.0 + r.trump_points.get(c, 0) / 2 for c in cards) + top / 4
        return out

    def hand_points(self, hand: list[str]) -> int:
        r = self.rules
        return sum(r.points.get(c, 0) for c in hand)

    def name_trump(self, obs: dict[str, Any], legal: list[str]) -> str:
        hand = [str(c) for c in obs.get("hand", [])]
        scores = self.suit_scores(hand)
        trumps = {a.split()[1]: a for a in legal if a.startswith("trump ")}
        discards = [a for a in legal if a.startswith("discard ") and len(a.split()) == 2]
        options = {s: v for s, v in scores.items() if s in trumps}
        best = max(options, key=lambda s: options[s]) if options else None
        if discards and best is not None:  # exchange: give up a worthless side card
            r = self.rules
            weak = [a for a in discards if suit(a[8:]) != best and r.points.get(a[8:], 0) == 0
                    and not is_top_two(a[8:], r)]
            if weak:
                return min(weak, key=lambda a: r.plain.get(a[8:], 0))
        if "none" in trumps and self.no_trump_strength(hand) >= 4:
            return trumps["none"]
        if "delegate" in legal and (best is None or options[best] < 4.5):
            return "delegate"
        if best is not None:
            return trumps[best]
        return self.rng.choice(legal)

    def no_trump_strength(self, hand: list[str]) -> int:
        r = self.rules
        order = sorted(r.plain.values(), reverse=True)
        top2 = set(order[:2])
        return sum(1 for c in hand if r.plain.get(c, 0) in top2)

    def doubling(self, obs: dict[str, Any], legal: list[str]) -> str:
        hand = [str(c) for c in obs.get("hand", [])]
        strong = self.hand_points(hand) >= 2.2 * max(1, len(hand)) and self.no_trump_strength(hand) >= 3
        for a in ("redouble", "double"):
            if a in legal and strong:
                return a
        return "pass" if "pass" in legal else legal[0]

    def bid(self, obs: dict[str, Any], legal: list[str]) -> str:
        hand = [str(c) for c in obs.get("hand", [])]
        best = max(self.suit_scores(hand).values(), default=0.0)
        return "play" if best >= 5.0 and self.hand_points(hand) >= 1.5 * len(hand) else "pass"

    # ------------------------------------------------------------------ shedding
    def shed(self, obs: dict[str, Any], legal: list[str]) -> str:
        face = self.face
        hand = [str(c) for c in obs.get("hand", [])]
        total = obs.get("hand_value")
        if not isinstance(total, int):
            total = sum(shed_value(c, face) for c in hand)
        if "call" in legal and self.should_call(obs, total):
            return "call"
        melds = [a for a in legal if a.startswith(("meld ", "layoff "))]
        if melds:  # rummy games: lay down what can be laid down, the most cards first
            return max(melds, key=lambda a: (len(a.split()), sum(shed_value(c, face) for c in a.split()[1:])))
        if "knock" in legal:
            return "knock"
        discards = [a for a in legal if a.startswith("discard ")]
        if discards:
            keep_ranks = {rank(c) for c in obs.get("takeable", []) if isinstance(c, str)}

            def gain(a: str) -> tuple[int, int, int]:
                cards = a.split()[1:]
                value = sum(shed_value(c, face) for c in cards)
                # keep a card that pairs with a visible one we might take
                spoil = sum(1 for c in cards if rank(c) in keep_ranks and len(cards) == 1)
                return (value, len(cards), -spoil)
            return max(discards, key=gain)
        draws = [a for a in legal if a.startswith("draw ") and is_card(a.split()[1])]
        if draws:
            ranks = {rank(c) for c in hand if not c.startswith("JK")}

            def worth(a: str) -> int:
                c = a.split()[1]
                v = shed_value(c, face)
                return (100 if c.startswith("JK") else 0) + (30 if rank(c) in ranks else 0) + (10 - v)
            best = max(draws, key=worth)
            c = best.split()[1]
            if (c.startswith("JK") or shed_value(c, face) <= 3 or rank(c) in ranks
                    or "draw stock" not in legal):
                return best
        if "draw stock" in legal:
            return "draw stock"
        quiet = [a for a in legal if not a.startswith("declare")]
        return self.rng.choice(quiet or legal)

    def should_call(self, obs: dict[str, Any], total: int) -> bool:
        sizes = obs.get("hand_sizes") or []
        seat = int(obs.get("seat", self.seat))
        active = obs.get("active")
        others = [n for s, n in enumerate(sizes) if s != seat and (not isinstance(active, list) or
                                                                   s >= len(active) or active[s])]
        fewest = min(others, default=5)
        limit = obs.get("call_limit")
        limit = limit if isinstance(limit, int) else 5
        if fewest <= 1:
            return total <= max(0, limit // 5)
        if fewest == 2:
            return total <= max(1, limit // 2)
        return total <= limit


def is_top_two(card: str, r: TrickRules) -> bool:
    s = suit(card)
    ranks = sorted((v for t, v in r.plain.items() if suit(t) == s), reverse=True)
    return r.plain.get(card, -1) in ranks[:2]
