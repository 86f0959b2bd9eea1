"""The work of a run: its remaining matches in batches of about ``batch_s`` seconds each, the size
learnt per game from the batches done so far (:class:`Sizer`), the games taken in turn."""
from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator

from tournaments.runner import Batch, BatchResult, PlanSlice, SharedPlan
from tournaments.runners.preparation import Prepared
from tournaments.schedule import GamePlan


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


def batches(p: Prepared, sizer: Sizer, fsync: bool = True, bots_data: str | None = None,
            group: int = 1) -> Iterator[Batch]:
    """The remaining matches in batches, taking the games in turn (so every game progresses).

    A batch is a slice of its game's schedule (:class:`~tournaments.runner.PlanSlice`: indices, and
    those of the slice already committed), which the worker expands: the driver makes no Match and
    derives no id per match (but once, on a resume, the ids of the schedule to find the committed
    ones' indices).  ``group`` > 1: once the game's batch size is learnt from a steady batch, a task
    carries ``group`` batches, each committed on its own (:attr:`Batch.every`): fewer, longer tasks
    where a task costs the driver more than a batch (Ray)."""
    options = {e.label: e.options for e in p.spec.bots if e.options}
    streams = [_Stream(gp, p.done) for gp in p.plans]
    while streams:
        alive = []
        for st in streams:
            g = st.plan.plan.game
            size = sizer.size(g.id)
            n = size * group if group > 1 and sizer.matches.get(g.id) else size
            span = st.next(n)
            if span is None:
                continue
            yield Batch(p.tournament, p.out, g.id, g.options, g.players, g.max_deals, (), p.refs, options,
                        p.spec.limits, bots_data, fsync, p.epoch, p.secret, span=span,
                        every=size if n > size else 0)
            alive.append(st)
        streams = alive


class _Stream:
    """A game's schedule as the driver walks it: the next index, and the sorted indices already
    committed (a resume)."""

    def __init__(self, plan: GamePlan, done: set[str]) -> None:
        self.plan = SharedPlan(plan)
        self.total = plan.total
        self.cursor = 0
        self.done = [i for i, mid in enumerate(plan.match_ids()) if mid in done] if done else []

    def next(self, n: int) -> PlanSlice | None:
        """The slice holding the next ``n`` matches still to play (fewer at the end); None at the end."""
        start, done = self.cursor, self.done
        stop = min(start + n, self.total)
        lo = bisect_left(done, start)
        hi = bisect_left(done, stop)
        while stop < self.total and (stop - start) - (hi - lo) < n:
            stop = min(stop + n - ((stop - start) - (hi - lo)), self.total)
            hi = bisect_left(done, stop)
        self.cursor = stop
        if (stop - start) - (hi - lo) <= 0:
            return None
        return PlanSlice(self.plan, start, stop, frozenset(done[lo:hi]))
