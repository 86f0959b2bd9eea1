"""The work of a run: its remaining matches in batches of about ``batch_s`` seconds each, the size
learnt per game from the batches done so far (:class:`Sizer`), the games taken in turn."""
from __future__ import annotations

from collections.abc import Iterator

from tournaments.runner import Batch, BatchResult
from tournaments.runners.preparation import Prepared
from tournaments.schedule import GamePlan, Match


class Sizer:
    """Matches per batch for each game, learnt from the batches done: about ``target`` seconds.

    A worker's first batch of a game is its warm-up (imports, the game's tables, the first
    Parquet writer: 0.3 s for two Hartenjagen matches that then take 10 ms each), so it counts only
    until another batch of that game is done: averaged in, it kept the next ten or so batches far
    below the target, each with the fixed cost of a batch (3 part files, 4 fsyncs, about 3.5 ms of
    CPU)."""

    def __init__(self, target: float, first: int = 2, cap: int = 1000) -> None:
        self.target, self.first, self.cap = target, first, cap
        self.seconds: dict[str, float] = {}
        self.matches: dict[str, int] = {}
        self.warm_seconds: dict[str, float] = {}
        self.warm_matches: dict[str, int] = {}
        self._warmed: set[tuple[str, str]] = set()

    def learn(self, r: BatchResult) -> None:
        key = (r.worker, r.game)
        if key not in self._warmed:   # this worker's first batch of the game
            self._warmed.add(key)
            self.warm_seconds[r.game] = self.warm_seconds.get(r.game, 0.0) + r.seconds
            self.warm_matches[r.game] = self.warm_matches.get(r.game, 0) + r.matches
            return
        self.seconds[r.game] = self.seconds.get(r.game, 0.0) + r.seconds
        self.matches[r.game] = self.matches.get(r.game, 0) + r.matches

    def size(self, game: str) -> int:
        seconds, n = self.seconds, self.matches
        if not n.get(game):
            seconds, n = self.warm_seconds, self.warm_matches
            if not n.get(game):
                return self.first
        per = max(seconds[game] / n[game], 1e-6)
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


