"""Sandboxed players for the match loop: :class:`SandboxPlayer` and :func:`start_players` (the
sandboxes of a match, started in parallel)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bots.api import BotSource, Observation
from bots.faults import BotFault
from bots.sandbox.limits import DEFAULT_LIMITS, Limits
from bots.sandbox.process import Sandbox


# --------------------------------------------------------------------------- a player for the match loop
@dataclass
class SandboxPlayer:
    """A seat played by a sandboxed bot (the :class:`bots.api.Player` protocol).

    A fault at start-up is kept and raised at the seat's first move, so that it is attributed to
    the match like any other fault.
    """

    sandbox: Sandbox
    game: str
    seat: int
    seed: int
    worlds: int = 0
    pending: BotFault | None = field(default=None)

    def act(self, observation: Observation) -> str:
        if self.pending is not None:
            raise self.pending
        return self.sandbox.act(observation)

    def clock(self) -> dict[str, float | None]:
        return self.sandbox.clock()

    def act_in_worlds(self, observation: Observation, worlds: Sequence[Any]) -> str:
        if self.pending is not None:
            raise self.pending
        return self.sandbox.act(observation, worlds)

    def close(self) -> None:
        self.sandbox.close()

    @property
    def output(self) -> str:
        return self.sandbox.output_excerpt()


def start_players(specs: Sequence[tuple[BotSource, bool, int]], game: str, seeds: Sequence[int],
                  limits: Limits = DEFAULT_LIMITS, seats: Sequence[int] | None = None) -> list[SandboxPlayer]:
    """Sandboxed players, started in parallel (each process's start-up overlaps the others').

    ``specs[i]`` is (source, trusted, worlds) of the bot for ``seats[i]`` (default: seat ``i``),
    constructed with ``seeds[i]``.  A fault at start-up is kept in :attr:`SandboxPlayer.pending`.
    """
    seat_of = list(seats) if seats is not None else list(range(len(specs)))
    boxes = [Sandbox(src, limits, trusted=trusted) for src, trusted, _ in specs]
    pending: list[BotFault | None] = [None] * len(boxes)
    for i, box in enumerate(boxes):
        try:
            box.spawn()
        except BotFault as f:
            pending[i] = f
    players = []
    for i, box in enumerate(boxes):
        if pending[i] is None:
            try:
                games = box.wait_ready()
                if games is not None and game not in games:
                    raise box._fail("crash", f"the bot does not enter {game} (its GAMES: {', '.join(games)})",
                                    "import")
                box.new_match(game, seat_of[i], seeds[i])
            except BotFault as f:
                pending[i] = f
        players.append(SandboxPlayer(box, game, seat_of[i], seeds[i], specs[i][2], pending[i]))
    return players

