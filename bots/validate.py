"""Validate a bot: load it in the sandbox, then one smoke match of every game it enters.

Every stage has a deadline: loading (``Limits.start_time``), each move (``move_time`` + time bank)
and each smoke match (``quiet_match_time``, not shown in the bot's clock), so validation never hangs.

Each smoke match is dealt from a fresh random 63-bit seed (``secrets``) unless the caller gives one,
and every seat's own seed is ``bots.match.seat_seed`` of it (HMAC): the bot cannot predict the deal
from its seed or from an earlier run.  The seed is reported (``GameCheck.seed``) so that a failure
replays with ``--seed``.
"""
from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bots.api import BotSource
from bots.builtin.random import Bot as RandomBot
from bots.match import SEED_BITS, Fault, play_match, seat_seeds
from bots.sandbox import DEFAULT_LIMITS, BotFault, Limits, Sandbox, SandboxPlayer, isolation, start_players
from bots.text import clean_lines
from engine import GAMES, game_class, load_game
from engine.core import RULES_ORDER

VALIDATE_LIMITS = Limits(quiet_match_time=60.0)
"""The sandbox limits of a validation: the tournament defaults plus 60 s of thinking per smoke match,
a cap the bot's ``clock`` does not show (``match_s`` is null as in a tournament: a bot cannot tell a
validation from a tournament match by what it observes)."""


@dataclass
class GameCheck:
    game: str
    ok: bool
    moves: int = 0
    """The bot's own moves in the smoke match."""
    seconds: float = 0.0
    """The bot's thinking time in the smoke match."""
    fault: Fault | None = None
    seed: int = 0
    """The smoke match's deal seed (``--seed`` replays it)."""
    place: int = 0
    """The bot's place in the smoke match (1 best; a faulting seat is last), against random bots."""
    players: int = 0
    """Seats in the smoke match."""
    output: str = ""
    """The start of the bot's stdout and stderr in the smoke match (``[stdout] ...``, ``[stderr] ...``)."""
    streams: dict[str, str] = field(default_factory=dict)
    """The start of each stream the bot wrote to, by name (``stdout``, ``stderr``), cleaned."""
    slow_moves: list[tuple[int, float]] = field(default_factory=list)
    """(its move number, seconds drawn from the time bank) of every move slower than the move limit."""
    move_limit: float = 0.0
    time_bank: float = 0.0

    def line(self) -> str:
        if self.ok:
            return (f"{self.game}: ok ({self.moves} moves, {self.seconds:.2f} s thinking; "
                    f"placed {self.place} of {self.players} against random bots)")
        assert self.fault is not None
        f = self.fault
        where = (f"at {f.stage}" if f.stage in ("start", "import", "init")
                 else f"at deal {f.deal}, its move {f.move} (ply {f.ply})")
        gave = f", it played {f.action!r}" if f.action is not None else ""
        return f"{self.game}: FAILED {where}{gave}: {f.outcome}: {f.reason} (seed {self.seed})"

    def bank_warning(self) -> str | None:
        """One line when a move went past the move limit into the time bank, else None."""
        if not self.slow_moves:
            return None
        drawn = sum(s for _, s in self.slow_moves)
        worst_move, worst = max(self.slow_moves, key=lambda x: x[1])
        return (f"{self.game}: warning: {len(self.slow_moves)} move(s) took longer than the move limit of "
                f"{self.move_limit:g} s and drew {drawn:.3f} s of the {self.time_bank:g} s time bank "
                f"(the slowest, its move {worst_move}, {self.move_limit + worst:.3f} s); once the bank is "
                "spent a slow move is a timeout")

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "ok": self.ok, "moves": self.moves, "seconds": round(self.seconds, 4),
                "seed": self.seed, "fault": self.fault.to_json() if self.fault else None,
                "place": self.place, "players": self.players, "output": self.output,
                "slow_moves": [{"move": m, "bank_s": round(b, 4)} for m, b in self.slow_moves],
                "bank_used_s": round(sum(b for _, b in self.slow_moves), 4)}


@dataclass
class Validation:
    source: BotSource
    declared: list[str] | None = None
    """The bot's ``GAMES`` (None: every game)."""
    load_error: BotFault | None = None
    checks: list[GameCheck] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    """Games not played, with why."""
    sandbox: str = ""

    @property
    def ok(self) -> bool:
        return self.load_error is None and bool(self.checks) and all(c.ok for c in self.checks)

    @property
    def games(self) -> list[str]:
        return [c.game for c in self.checks]

    def standing(self) -> dict[str, Any]:
        """How the bot placed against the random bots over its smoke matches: ``first`` and ``last``
        (games it won, games it came last in), ``beat`` (the mean share of the other seats placed
        below it, 0 to 1: a random bot expects 0.5) and ``games``."""
        played = [c for c in self.checks if c.players > 1 and c.place > 0]
        beat = [(c.players - c.place) / (c.players - 1) for c in played]
        return {"games": len(played), "first": sum(c.place == 1 for c in played),
                "last": sum(c.place == c.players for c in played),
                "beat": round(sum(beat) / len(beat), 4) if beat else None}

    def standing_line(self) -> str:
        st = self.standing()
        if not st["games"]:
            return "against the random bots: no smoke match played"
        import shlex
        game = next(c.game for c in self.checks if c.players > 1 and c.place > 0)
        return (f"against the random bots: first in {st['first']} of {st['games']} games, last in "
                f"{st['last']}; on average it placed above {st['beat']:.0%} of the other seats (a random "
                "bot expects 50%; one smoke match per game is a small sample, whatever --deals: "
                f"`cardarena bots eval {shlex.quote(str(self.source.path))} --game {game}` measures it "
                "on duplicate boards)")

    def to_json(self) -> dict[str, Any]:
        err = self.load_error
        return {"path": str(self.source.path), "ok": self.ok, "declared_games": self.declared,
                "load_error": None if err is None else {"outcome": err.outcome, "reason": err.reason,
                                                        "stage": err.stage, "traceback": err.traceback},
                "games": {c.game: c.to_json() for c in self.checks}, "skipped": self.skipped,
                "sandbox": self.sandbox, "against_random": self.standing()}

    def summary(self) -> dict[str, Any]:
        """What the registry keeps: per game ``ok`` or the failure line."""
        return {"ok": self.ok, "games": {c.game: "ok" if c.ok else c.line() for c in self.checks},
                "skipped": self.skipped, "sandbox": self.sandbox}


def load_check(src: BotSource, limits: Limits | None = None) -> tuple[list[str] | None, BotFault | None]:
    """Import the bot in the sandbox: (its GAMES, None) or (None, the fault)."""
    box = Sandbox(src, limits or VALIDATE_LIMITS)
    try:
        return box.start(), None
    except BotFault as f:
        return None, f
    finally:
        box.close()


def choose_games(declared: list[str] | None, wanted: Sequence[str] | None
                 ) -> tuple[list[str], dict[str, str]]:
    """(games to play, skipped with why) from the bot's GAMES and the ``--games`` asked for."""
    skipped: dict[str, str] = {}
    base = list(GAMES) if declared is None else []
    for g in declared or []:
        if g in GAMES:
            base.append(g)
        elif g in RULES_ORDER:
            skipped[g] = "not implemented yet"
        else:
            raise ValueError(f"the bot's GAMES names {g!r}, which is not a game id; "
                             f"ids: {', '.join(RULES_ORDER)}")
    if wanted is None:
        return base, skipped
    out = []
    for g in wanted:
        if g not in GAMES:
            raise ValueError(f"unknown game {g!r}; known games: {', '.join(GAMES)}")
        if g in base:
            out.append(g)
        else:
            skipped[g] = "the bot's GAMES leaves it out"
    return out, skipped


def fresh_seed() -> int:
    """A deal seed nobody can guess (63 bits from the OS's CSPRNG)."""
    return secrets.randbits(SEED_BITS)


def smoke_match(src: BotSource, game_id: str, seed: int | None = None, deals: int | None = 1,
                limits: Limits | None = None, seat: int = 0) -> GameCheck:
    """One match of ``game_id``: the bot at ``seat``, random bots elsewhere, dealt from ``seed``
    (default: :func:`fresh_seed`).  When the first ``deals`` end before the bot's first turn (a Tonk
    deal can end on the first action), the whole match is played instead; and when even the whole
    match ends before the bot moves (Klop Rummy: the others knock at once, deal after deal), the bot
    takes the seat that acts first, so that it is always tried."""
    if seed is None:
        seed = fresh_seed()
    check = _smoke_match(src, game_id, seed, deals, limits or VALIDATE_LIMITS, seat)
    if check.ok and check.moves == 0 and deals is not None:
        check = _smoke_match(src, game_id, seed, None, limits or VALIDATE_LIMITS, seat)
    if check.ok and check.moves == 0:
        first = load_game(game_id).new_match(seed=seed).current_player
        if first is not None and first != seat:
            check = _smoke_match(src, game_id, seed, deals, limits or VALIDATE_LIMITS, first)
    return check


class _Watched:
    """A sandboxed seat whose moves past the move limit are noted: (its move number, seconds drawn
    from the time bank), read from the sandbox's own bank before and after each move."""

    def __init__(self, player: SandboxPlayer) -> None:
        self.player = player
        self.worlds = player.worlds
        self.slow: list[tuple[int, float]] = []
        self.moves = 0

    def _watch(self, call: Any, *args: Any) -> str:
        box = self.player.sandbox
        before = box.bank
        self.moves += 1
        action: str = call(*args)
        if box.bank < before:
            self.slow.append((self.moves, before - box.bank))
        return action

    def act(self, observation: dict[str, Any]) -> str:
        return self._watch(self.player.act, observation)

    def act_in_worlds(self, observation: dict[str, Any], worlds: Sequence[Any]) -> str:
        return self._watch(self.player.act_in_worlds, observation, worlds)

    def clock(self) -> dict[str, float | None]:
        return self.player.clock()

    def close(self) -> None:
        self.player.close()


def _streams(box: Sandbox, limit: int = 2000) -> dict[str, str]:
    """The start of the bot's stdout and stderr (each cleaned, at most ``limit`` bytes), those it wrote to."""
    return {name: clean_lines(bytes(buf[:limit]).decode("utf-8", "replace"), limit)
            for name, buf in (("stdout", box.stdout), ("stderr", box.stderr)) if buf}


def _smoke_match(src: BotSource, game_id: str, seed: int, deals: int | None, limits: Limits,
                 seat: int) -> GameCheck:
    game = load_game(game_id)
    n = game_class(game_id).default_players
    own = seat_seeds(seed, n)
    box = start_players([(src, False, 0)], game_id, [own[seat]], limits, [seat])[0]
    watched = _Watched(box)
    players: list[Any] = [RandomBot(game_id, s, own[s]) for s in range(n)]
    players[seat] = watched
    try:
        result = play_match(game, players, seed, max_deals=deals, seeds=own)
    finally:
        box.close()
    fault = next((f for f in result.faults if f.seat == seat), None)
    moves = sum(1 for s, _ in result.moves if s == seat) - result.fallback_moves[seat]
    return GameCheck(game_id, fault is None, moves, result.think_time[seat], fault, seed,
                     place=result.placement[seat], players=n, output=box.output,
                     streams=_streams(box.sandbox), slow_moves=watched.slow,
                     move_limit=limits.move_time, time_bank=limits.time_bank)


def validate(src: BotSource, games: Sequence[str] | None = None, seed: int | None = None,
             deals: int | None = 1, limits: Limits | None = None) -> Validation:
    """Load ``src`` in the sandbox, then play one smoke match of every game it enters (or of
    ``games``), each from a fresh seed (or every one from ``seed``).  ``ValueError`` for a game id
    that does not exist."""
    limits = limits or VALIDATE_LIMITS
    v = Validation(src, sandbox=isolation().describe())
    declared, err = load_check(src, limits)
    if err is not None:
        v.load_error = err
        return v
    v.declared = declared
    chosen, v.skipped = choose_games(declared, games)
    for g in chosen:
        v.checks.append(smoke_match(src, g, seed, deals, limits))
    return v


__all__ = ["DEFAULT_LIMITS", "VALIDATE_LIMITS", "GameCheck", "Validation", "choose_games", "fresh_seed",
           "load_check", "smoke_match", "validate"]
