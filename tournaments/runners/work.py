"""The work of a run: its remaining matches in batches of about ``batch_s`` seconds each, the size
learnt per game from the batches done so far (:class:`Sizer`), the games taken in turn."""
from __future__ import annotations

from collections.abc import Iterator

from tournaments.runner import Batch, BatchResult
from tournaments.runners.preparation import Prepared
from tournaments.schedule import GamePlan, Match


class Sizer:
    """Matches per batch for each game, learnt from the batches done: about ``target`` seconds."""

    def __init__(self, target: float, first: int = 2, cap: int = 1000) -> None:
        self.target, self.first, self.cap = target, first, cap
        self.seconds: dict[str, float] = {}
        self.matches: dict[str, int] = {}

    def learn(self, r: BatchResult) -> None:
        self.seconds[r.game] = self.seconds.get(r.game, 0.0) + r.seconds
        self.matches[r.game] = self.matches.get(r.game, 0) + r.matches

    def size(self, game: str) -> int:
        n = self.matches.get(game, 0)
        if not n:
            return self.first
        per = max(self.seconds[game] / n, 1e-6)
        return max(1, min(self.cap, round(self.target / per)))


def batches(p: Prepared, sizer: Sizer, fsync: bool = True, bots_data: str | None = None) -> Iterator[Batch]:
    """The remaining matches in batches, taking the games in turn (so every game progresses)."""
    streams: list[tuple[GamePlan, Iterator[Match]]] = [
        (gp, (m for m in gp.matches(seat_seeds=False) if m.match_id not in p.done)) for gp in p.plans]
    while streams:
        alive = []
        for gp, it in streams:
            chunk: list[Match] = []
            for m in it:
                chunk.append(m)
                if len(chunk) >= sizer.size(gp.game.id):
                    break
            if chunk:
                g = gp.game
                yield Batch(p.tournament, p.out, g.id, g.options, g.players, g.max_deals, tuple(chunk),
                            p.refs, {e.label: e.options for e in p.spec.bots if e.options}, p.spec.limits,
                            bots_data, fsync, p.epoch, p.secret)
                alive.append((gp, it))
        streams = alive


