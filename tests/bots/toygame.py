"""A tiny trick-taking game for the bot tests, independent of the real games (not registered).

Four seats, 20 cards (T J Q K A of each suit), five each; follow suit, the highest card of the led
suit wins, one point per trick, one deal.  It implements ``determinize`` so that the built-in ISMCTS
can search it.
"""
from __future__ import annotations

import random
from typing import Any

from engine.cards import TOKENS, make
from engine.core import Game, State, rank_by

CARDS = [make(r, s) for s in range(4) for r in range(8, 13)]
PLAY = {c: "play " + TOKENS[c] for c in CARDS}
BY_ACTION = {a: c for c, a in PLAY.items()}


class ToyState(State):
    hands: list[int]
    trick: list[tuple[int, int]]
    won: list[int]
    taken: int

    def _setup(self, deal: dict[str, Any] | None) -> None:
        self.deck_mask = sum(1 << c for c in CARDS)
        if deal is not None:
            from engine.cards import card
            self.hands = [sum(1 << card(t) for t in h) for h in deal["hands"]]
        else:
            cards = list(CARDS)
            self.rng.shuffle(cards)
            self.hands = [sum(1 << c for c in cards[5 * s:5 * s + 5]) for s in range(4)]
        self.trick = []
        self.won = [0, 0, 0, 0]
        self.taken = 0
        self.leader = 0
        self.deal_no = 1
        self.phase = "play"

    def _current(self) -> int:
        return (self.leader + len(self.trick)) % 4

    def _legal_actions(self) -> list[str]:
        hand = self.hands[self._current()]
        if self.trick:
            led = self.trick[0][1] // 13
            follow = hand & (0x1FFF << (13 * led))
            if follow:
                hand = follow
        return [PLAY[c] for c in CARDS if hand >> c & 1]

    def _apply(self, action: str) -> None:
        c = BY_ACTION[action]
        seat = self._current()
        self.hands[seat] &= ~(1 << c)
        self.trick.append((seat, c))
        if len(self.trick) == 4:
            led = self.trick[0][1] // 13
            winner = max((x for x in self.trick if x[1] // 13 == led), key=lambda x: x[1])[0]
            self.won[winner] += 1
            for _, x in self.trick:
                self.taken |= 1 << x
            self.trick = []
            self.leader = winner
            if not any(self.hands):
                self.sheet.append([float(w) for w in self.won])
                self._finish()

    def _observe(self, seat: int) -> dict[str, Any]:
        return {"hand": [TOKENS[c] for c in CARDS if self.hands[seat] >> c & 1],
                "trick": [[s, TOKENS[c]] for s, c in self.trick], "tricks_won": list(self.won)}

    def scores(self) -> list[float]:
        return [float(w) for w in self.won]

    def ranking(self) -> list[int]:
        return rank_by(self.won, lower_is_better=False)

    def zones(self) -> dict[str, int]:
        z = {f"hand{s}": self.hands[s] for s in range(4)}
        z["trick"] = sum(1 << c for _, c in self.trick)
        z["taken"] = self.taken
        return z

    def hidden_cards(self, viewer: int) -> int:
        return sum(h for s, h in enumerate(self.hands) if s != viewer)

    def determinize(self, seat: int, rng: random.Random) -> State:
        new = self.clone()
        assert isinstance(new, ToyState)
        new.rng = random.Random(rng.getrandbits(64))
        pool = [c for c in CARDS if self.hidden_cards(seat) >> c & 1]
        rng.shuffle(pool)
        for s in range(4):
            if s != seat:
                k = self.hands[s].bit_count()
                new.hands[s] = sum(1 << c for c in pool[:k])
                pool = pool[k:]
        return new


class Toy(Game):
    id = "toy"
    name = "Toy tricks"
    family = "trick-taking"
    seed_ref = "tests only"
    summary = "Five cards each, follow suit, highest wins, a point per trick."
    notation = "play QS"
    min_players = max_players = default_players = 4
    state_class = ToyState


def toy() -> Toy:
    return Toy()
