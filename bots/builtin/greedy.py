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
* Rummies on the meld protocol (a meld built one card at a time, then ``confirm``; Jokeren, Loba,
  Ramino): take the top discard only when it joins two cards of the hand; lay off naturals, then
  start a meld with the card most connected in the hand (the card that must be used first),
  extend it with naturals and confirm it; never swap, and lay a joker off only when it must go;
  discard the least connected, highest card.  A turn whose table play ended in a take-back is not
  tried again the same way: after one take-back the player discards if it can, and it tries no
  table play in a later turn until it draws a card that connects with its hand (so an opening it
  cannot reach is not laid and taken back turn after turn).  Buy back in (Loba) whenever offered.
* Anything else: the sensible generic fallback, a seeded random choice that never uses
  conversation actions (``declare``) when something else is legal.
"""
from __future__ import annotations

import random
from typing import Any

from bots.builtin._common import (
    RANKS,
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
        self._turn: tuple[Any, ...] | None = None
        """The meld-protocol turn being played (deal, seat, pile and stock sizes, re-formings)."""
        self._tried: set[str] = set()
        """First table plays already taken back in this turn."""
        self._first: str | None = None
        """The first table play of the current attempt."""
        self._failed = False
        """This turn's table play ended in a take-back."""
        self._plan: list[list[str]] | None = None
        """This turn's opening melds still to lay (token lists, jokers as ``JK=XX``), or None."""
        self._stale: tuple[Any, frozenset[str]] | None = None
        """(deal, hand) after a turn whose table play was taken back: no new table play until
        a card that connects with the hand comes in."""

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
        if self.game == "zenuwen":
            return self.spit(obs, legal)
        if "building" in obs and self.family == "rummy":
            return self.meld_protocol(obs, legal, verbs)
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
        feeble = best is None or options[best] < MAKER_STRENGTH
        if self.game in MAKER_MUST_BEAT and "pass" in legal and feeble:
            return "pass"  # Klop: a maker who does not beat the defenders loses his points to them
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

    # ------------------------------------------------------------------ Zenuwen (Spit)
    def spit(self, obs: dict[str, Any], legal: list[str]) -> str:
        """Get rid of cards as fast as the ticks allow: a card onto a centre pile (from the hand
        first, then the layout), then a move into an empty space or a stack (they turn a face-down
        card up), then taking the last layout cards; pass only when nothing else is legal.  At the
        round's end, take the smallest centre pile."""
        piles = [a for a in legal if a.startswith("pile ")]
        if piles:
            sizes = obs.get("centre_sizes")
            if isinstance(sizes, list) and len(sizes) >= len(piles):
                return min(piles, key=lambda a: sizes[int(a.split()[1]) - 1])
            return piles[0]
        hand = {str(c) for c in obs.get("hand") or []}
        for verb in ("play ", "move ", "stack ", "take"):
            acts = [a for a in legal if a.startswith(verb)]
            if acts:
                if verb == "play ":
                    acts.sort(key=lambda a: a.split()[1].split("/")[0] not in hand)
                return acts[0]
        return "pass" if "pass" in legal else legal[0]

    # ------------------------------------------------------------------ meld protocol
    def meld_protocol(self, obs: dict[str, Any], legal: list[str], verbs: set[str]) -> str:
        hand = [str(c) for c in obs.get("hand", [])]
        if "declare" in verbs:  # Loba's buy-back: staying in beats being eliminated
            return next((a for a in legal if a.startswith("declare")), legal[0])
        phase = obs.get("phase")
        if phase not in ("draw", "play"):  # an up-card round: take it when it joins two cards
            if "draw discard" in legal:
                top = obs.get("discard_top")
                return "draw discard" if isinstance(top, str) and links(top, hand) >= 2 else "pass"
            return self.rummy_discard(hand, [a for a in legal if a.startswith("discard ")] or legal)
        deal = obs.get("deal")
        key = (deal, obs.get("seat"), obs.get("pile_size"), obs.get("stock_size"), obs.get("reforms"))
        if key != self._turn:
            self._turn, self._tried, self._first, self._failed = key, set(), None, False
            self._plan = None
        if phase == "draw":
            top = obs.get("discard_top")
            take = isinstance(top, str) and (top == "JK" or links(top, hand) >= 2)
            return "draw discard" if take and "draw discard" in legal else "draw stock"
        discards = [a for a in legal if a.startswith("discard ")]
        if obs.get("building"):
            if self._plan:
                meld = self._plan[0]
                built = [str(c) for c in obs["building"]]
                left = list(meld)
                for c in built:
                    if c in left:
                        left.remove(c)
                nxt = [f"meld {c}" for c in left if f"meld {c}" in legal]
                if nxt:
                    return nxt[0]
                if not left and "confirm" in legal:
                    self._plan.pop(0)
                    return "confirm"
                self._plan = []  # off the plan: finish the meld as it comes
            nat = [a for a in legal if a.startswith("meld ") and "=" not in a]
            if nat:
                return max(nat, key=lambda a: links(a[5:], hand))
            if "confirm" in legal:
                return "confirm"
            jk = [a for a in legal if a.startswith("meld ")]
            if jk:
                return jk[0]
            return self.give_up(legal)
        must = [str(c) for c in obs.get("must_use") or []]
        if self._failed and discards:
            self._stale = (deal, frozenset(hand))
            return self.rummy_discard(hand, discards)
        if (not must and discards and self._stale is not None and self._stale[0] == deal
                and not any(links(c, list(self._stale[1])) >= 1 for c in hand if c not in self._stale[1])):
            return self.rummy_discard(hand, discards)  # nothing new since table play failed
        if not must and not self._failed and self._first is None and self._plan is None:
            self._plan = opening_plan(obs, hand)
            if self._plan is not None and not self._plan and discards:
                return self.rummy_discard(hand, discards)  # the opening is out of reach
        if self._plan:
            start = f"meld {next((c for c in self._plan[0] if not c.startswith('JK')), '')}"
            if start in legal:
                if self._first is None:
                    self._first = start
                return start
            self._plan = []
        elif self._plan is not None and discards and not must:
            return self.rummy_discard(hand, discards)  # the opening melds are down
        plays = self.table_plays(legal, hand, must)
        fresh = [a for a in plays if a not in self._tried] or ([] if discards else plays)
        if fresh:
            a = fresh[0]
            if self._first is None:
                self._first = a
            return a
        if discards:
            if self._first is not None:
                self._stale = None  # table play worked this turn
            return self.rummy_discard(hand, discards)
        return self.give_up(legal)

    def give_up(self, legal: list[str]) -> str:
        """Take back this turn's table play (remembered, so that it is not tried the same way)."""
        if "takeback" in legal:
            if self._first is not None:
                self._tried.add(self._first)
            self._first = None
            self._failed = True
            return "takeback"
        return legal[0]

    def table_plays(self, legal: list[str], hand: list[str], must: list[str]) -> list[str]:
        """Table plays worth making, best first: the card that must be used, natural lay-offs,
        then meld starts by how connected the card is in the hand (jokers laid off only when owed
        or when the hand holds nothing else)."""
        only_jokers = all(c.startswith("JK") for c in hand)
        lay = [a for a in legal if a.startswith(("layoff ", "move ")) and not a.split()[1].startswith("JK")]
        jlay = [a for a in legal if a.startswith("layoff JK")] if ("JK" in must or only_jokers) else []
        starts = sorted((a for a in legal if a.startswith("meld ")), key=lambda a: -links(a[5:], hand))
        swaps = [a for a in legal if a.startswith("swap ")] if must else []
        if must:
            owed = [a for a in lay + starts + swaps if a.split()[1] in must] + (jlay if "JK" in must else [])
            return owed + [a for a in lay + starts + swaps if a not in owed]
        return jlay + lay + starts

    def rummy_discard(self, hand: list[str], discards: list[str]) -> str:
        """The least connected card, the highest first among equals; a joker last."""
        def cost(a: str) -> tuple[int, int, int]:
            c = a.split()[1]
            return (int(c.startswith("JK")), links(c, hand), -shed_value(c, self.face))
        return min(discards, key=cost)

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


MAKER_MUST_BEAT = frozenset(("klop_bela", "klop_bela_3p"))
"""Games whose trump maker must out-score the defenders (KB/KT1): greedy names trump only with a
strong suit and passes otherwise."""
MAKER_STRENGTH = 13.0
"""The :meth:`Bot.suit_scores` value a suit needs there (about the Jass and the Nel with a third
trump, or the Jass with three more)."""

RUN_ORDER = "A23456789TJQKA"
PIPS = {r: (10 if r in "TJQK" else 11 if r == "A" else int(r)) for r in RANKS}


def opening_plan(obs: dict[str, Any], hand: list[str]) -> list[list[str]] | None:
    """The melds to lay in an opening turn (best first), [] when the opening looks out of reach,
    or None when the seat has opened or the game has no opening requirement it can read
    (``threshold``: points, Jokeren; ``requirement``: Amerikaans Jokeren's ``set 3``, ``run 4``,
    ``points 40``, ``out 0``).  Two cards stay in hand (the card kept for the discard)."""
    seat = obs.get("seat")
    opened = obs.get("opened")
    if not isinstance(seat, int) or not isinstance(opened, list) or seat >= len(opened) or opened[seat]:
        return None
    need = obs.get("threshold")
    req = obs.get("requirement")
    kind, size = "points", need
    if isinstance(req, str) and " " in req:
        kind, _, sz = req.partition(" ")
        size = int(sz) if sz.isdigit() else 0
    if not isinstance(size, int) or kind not in ("points", "set", "run"):
        return [] if kind == "out" else None
    cands = candidate_melds(hand)
    budget = len(hand) - 2
    if kind != "points":
        fit = [m for m in cands if m[0] == kind and len(m[2]) >= size and len(m[2]) <= budget]
        return [max(fit, key=lambda m: (m[1], -len(m[2])))[2]] if fit else []
    best = best_melds(cands, hand, budget)
    return [m[2] for m in best] if sum(m[1] for m in best) >= size else []


def candidate_melds(hand: list[str]) -> list[tuple[str, int, list[str]]]:
    """(kind, opening points, tokens) of the sets and runs the hand can make (a joker named
    ``JK=XX``, counted 10; never two jokers side by side in a run)."""
    jokers = sum(1 for c in hand if c.startswith("JK"))
    nats = {c for c in hand if not c.startswith("JK")}
    out: list[tuple[str, int, list[str]]] = []
    for r in RANKS:
        have = [r + s for s in SUITS if r + s in nats]
        miss = [r + s for s in SUITS if r + s not in nats]
        if len(have) >= 3:
            out.append(("set", PIPS[r] * len(have), have))
        if jokers and len(have) in (2, 3):
            out.append(("set", PIPS[r] * len(have) + 10, [*have, "JK=" + miss[0]]))
    for s in SUITS:
        for a in range(14):
            toks: list[str] = []
            pts = nj = 0
            gap = False
            for p in range(a, min(14, a + 9)):
                t = RUN_ORDER[p] + s
                if t in nats:
                    toks.append(t)
                    pts += 1 if p == 0 else PIPS[t[0]]
                    gap = False
                elif jokers > nj and not gap and toks:
                    toks.append("JK=" + t)
                    pts += 10
                    nj += 1
                    gap = True
                else:
                    break
                if len(toks) >= 3 and not toks[-1].startswith("JK") and not (a == 0 and p == 13):
                    out.append(("run", pts, list(toks)))
    return out


def best_melds(cands: list[tuple[str, int, list[str]]], hand: list[str],
               budget: int) -> list[tuple[str, int, list[str]]]:
    """Disjoint candidate melds of the most points, at most ``budget`` cards (a bounded search)."""
    count: dict[str, int] = {}
    for c in hand:
        k = "JK" if c.startswith("JK") else c
        count[k] = count.get(k, 0) + 1
    order = sorted(cands, key=lambda m: -m[1])
    best: list[tuple[str, int, list[str]]] = []
    best_pts = -1
    nodes = 0

    def dfs(i: int, chosen: list[tuple[str, int, list[str]]], pts: int, cards: int) -> None:
        nonlocal best, best_pts, nodes
        nodes += 1
        if pts > best_pts:
            best, best_pts = list(chosen), pts
        if nodes > 4000:
            return
        for j in range(i, len(order)):
            m = order[j]
            use = ["JK" if t.startswith("JK") else t for t in m[2]]
            if cards + len(use) > budget or any(count.get(t, 0) < use.count(t) for t in set(use)):
                continue
            for t in use:
                count[t] -= 1
            chosen.append(m)
            dfs(j + 1, chosen, pts + m[1], cards + len(use))
            chosen.pop()
            for t in use:
                count[t] += 1

    dfs(0, [], 0, 0)
    return best


def links(card: str, hand: list[str]) -> int:
    """How many cards of ``hand`` could meld with ``card``: the same rank in another suit, or its
    suit within two ranks (an ace both low and high); a joker links with everything."""
    if card.startswith("JK") or len(card) != 2:
        return 2
    r, s = card[0], card[1]
    pos = {i for i, x in enumerate(RUN_ORDER) if x == r}
    n = 0
    for c in hand:
        if c == card or len(c) != 2:
            continue
        if c[0] == r:
            n += c[1] != s
        elif c[1] == s and any(abs(i - j) <= 2 for i in pos for j, x in enumerate(RUN_ORDER) if x == c[0]):
            n += 1
    return n


def is_top_two(card: str, r: TrickRules) -> bool:
    s = suit(card)
    ranks = sorted((v for t, v in r.plain.items() if suit(t) == s), reverse=True)
    return r.plain.get(card, -1) in ranks[:2]
