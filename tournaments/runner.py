"""Play a batch of matches and commit its logs: the work of one Ray task or local worker (no Ray in here).

A :class:`Batch` is a handful of scheduled matches of one game, about a second of work.
:func:`run_batch` plays them one after the other, keeps every move, event and result in a
:class:`~tournaments.log.BatchLog` and commits the three part files (matches last).  Given the same
batch it writes the same files with the same rows, which is what makes a retried task harmless.

The match loop is ``bots.match.play_match`` itself: players made by
``bots.match.make_players`` with the seats' own seeds of the match (``Match.seat_seeds``, derived from
the tournament secret: ``tournaments.schedule``; so ``bots.match.play(game, bots, seed, max_deals,
seeds=...)`` replays a tournament match), a faulting bot (timeout, crash, illegal or malformed
action, memory) forfeits, a seeded random player finishes its seat's moves so the match completes for
the others, and ``bots.match.placement`` places the faulting seats last.  Its ``on_move`` hook hands
over, per move, the seat's thinking time, the number of legal actions, the phase and the bot's
outcome, for the logs; engine errors are contained and logged as a match with status ``error``.

Every match starts its sandboxed bots afresh (about 0.1 s per submitted bot and match here): a bot
process kept from one match to the next could remember the hands of a board and use them when the
same deal comes back in the next rotation.
"""
from __future__ import annotations

import functools
import os
import socket
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bots.api import Player
from bots.faults import Fault
from bots.match import close_players, make_players, play_match
from bots.sandbox import Limits as BotLimits
from engine import game_class, load_game
from engine.core import Game, State
from tournaments.log import BatchLog, MoveRow, commit_batch, options_json, stage_batch
from tournaments.schedule import Match, match_seat_seeds
from tournaments.spec import Limits
from tournaments.store import ObjectStore, is_uri, open_store


def bot_limits(limits: Limits) -> BotLimits:
    """The sandbox limits of the bots issue from the spec's ``[limits]``."""
    mem = limits.memory_mb << 20
    return BotLimits(move_time=limits.move_s, time_bank=limits.bank_s, memory=mem, group_memory=mem)


@dataclass(frozen=True)
class Batch:
    """What one Ray task or local worker plays: small and picklable."""

    tournament: str
    root: str
    """Absolute output directory (shared by every node), or an object store's URI
    (:mod:`tournaments.store`: the batch is then staged, and the driver publishes it)."""
    game: str
    options: dict[str, Any]
    players: int
    max_deals: int | None
    matches: tuple[Match, ...]
    bot_refs: dict[str, str]
    """Entrant label -> bot: a built-in name or ``NAME@VERSION``."""
    bot_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Entrant label -> keyword arguments of its built-in bot's constructor (if any)."""
    limits: Limits = field(default_factory=Limits)
    bots_data: str | None = None
    """The data directory of the bots registry (None: its default)."""
    fsync: bool = True
    epoch: int = 0
    """The run this batch belongs to (:func:`tournaments.ledger.begin_epoch`); 0 commits unfenced."""
    secret: bytes = field(default=b"", repr=False)
    """The tournament secret, from which the worker derives the seat seeds of matches that carry none
    (``schedule.match_seat_seeds``: an HMAC per seat, off the driver).  Never given to a bot."""

    @property
    def match_ids(self) -> list[str]:
        return [m.match_id for m in self.matches]


@dataclass
class BatchResult:
    game: str
    matches: int
    moves: int
    faults: int
    errors: int
    seconds: float
    """Wall time of the matches (not counting the writing)."""
    write_seconds: float
    worker: str
    parts: list[str]
    node: str | None = None
    """The Ray node id that ran the batch (set by the Ray driver)."""
    attempt: str | None = None
    """On an object store: the staging folder of this attempt (``parts`` are then keys relative to it,
    matches part last, published by the driver: :func:`tournaments.ledger.publish_batch`)."""


PlayersFactory = Callable[[Game, Sequence[str], int, Sequence[int]], list[Player]]
"""(game, bot refs by seat, deal seed, the seats' own seeds) -> players; default
``bots.match.make_players``."""


# ------------------------------------------------------------------------------------------ one match
@dataclass
class Played:
    state: State
    moves: list[MoveRow]
    faults: list[Fault]
    placement: list[int]
    seconds: float
    error: str | None = None


def play_logged(game: Game, players: Sequence[Player], seed: int, max_deals: int | None,
                seeds: Sequence[int] | None = None) -> Played:
    """Play one match with ``bots.match.play_match``, keeping a :data:`~tournaments.log.MoveRow` per
    action (the loop's ``MoveRecord`` is one as it stands: its fields are the row's, in order).
    ``seeds``: the seats' own seeds the players were made with (``play_match``'s).

    An exception from the engine itself (a bug) ends the match with ``error`` set: the tournament
    goes on and the match is recorded with status ``error``.  The players are not closed here.
    """
    moves: list[MoveRow] = []
    r = play_match(game, players, seed, max_deals, on_move=moves.append, contain_errors=True, seeds=seeds)
    return Played(r.state, moves, list(r.faults), r.placement, r.seconds, r.error)


# ------------------------------------------------------------------------------------------ a batch
def builtin_with_options(name: str, game: str, seat: int, seed: int, options: dict[str, Any]) -> Player:
    """A built-in bot constructed with keyword options, seeded as ``bots.match.make_players`` seeds it."""
    import importlib

    player: Player = importlib.import_module(f"bots.builtin.{name}").Bot(game, seat, seed, **options)
    return player


def _options_text(options: dict[str, Any]) -> str:
    """How a bot's options show in ``matches.bot_refs``: ``ismcts(iterations=50)``."""
    return "(" + ",".join(f"{k}={v}" for k, v in sorted(options.items())) + ")" if options else ""


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def run_batch(batch: Batch, make: PlayersFactory | None = None) -> BatchResult:
    """Play ``batch`` and commit its three part files; return counts for the driver."""
    game = load_game(batch.game, **batch.options)
    if make is None:
        limits = bot_limits(batch.limits)

        def make(g: Game, refs: Sequence[str], seed: int, seeds: Sequence[int]) -> list[Player]:
            return make_players(g, refs, seed, sandbox=batch.limits.sandbox_builtins, limits=limits,
                                data_dir=batch.bots_data, seeds=seeds)
    shown = {label: ref + _options_text(batch.bot_options.get(label, {}))
             for label, ref in batch.bot_refs.items()}
    opts = options_json(game.options)
    teams = ([s % 2 for s in range(batch.players)] if game_class(batch.game).teams
             else list(range(batch.players)))
    log = BatchLog(batch.tournament, batch.game)
    worker = worker_name()
    faults = errors = 0
    t0 = time.perf_counter()
    for m in batch.matches:
        refs = [batch.bot_refs[label] for label in m.seats]
        own = match_seat_seeds(batch.secret, m)
        if len(own) != batch.players:
            raise ValueError(f"match {m.match_id} has {len(own)} seat seeds for {batch.players} "
                             "seats (a schedule made without the tournament secret)")
        players = make(game, refs, m.seed, own)
        for seat, label in enumerate(m.seats):
            if batch.bot_options.get(label):   # a built-in with constructor options (spec.py)
                close_players([players[seat]])
                players[seat] = builtin_with_options(refs[seat], game.id, seat, own[seat],
                                                     batch.bot_options[label])
        try:
            p = play_logged(game, players, m.seed, batch.max_deals, own)
        finally:
            close_players(players)
        faults += len(p.faults)
        fl = list(p.faults)
        if p.error is not None:
            errors += 1
            fl.insert(0, Fault(None, "error", p.error, "engine", p.state.deal_no, len(p.state.history), 0))
        st = p.state
        log.add_match(match_id=m.match_id, group_id=m.group_id, options=opts, seed=m.seed,
                      players=batch.players, max_deals=batch.max_deals, board=m.board, rotation=m.rotation,
                      bots=m.seats, bot_refs=[shown[label] for label in m.seats], teams=teams,
                      scores=st.scores(), ranking=p.placement,
                      engine_ranking=st.ranking(), deals_played=st.deal_no,
                      sheet=st.score_sheet(), moves=p.moves,
                      events=st.events, faults=fl, duration_s=p.seconds,
                      finished_at_ms=int(time.time() * 1000), worker=worker)
    played = time.perf_counter() - t0
    attempt: str | None = None
    if is_uri(batch.root):   # no rename or lock there: stage, and the driver publishes
        attempt = uuid.uuid4().hex[:12]
        parts = stage_batch(_store(batch.root), log, batch.epoch, attempt)
    else:
        parts = [str(p) for p in commit_batch(batch.root, log, fsync=batch.fsync, epoch=batch.epoch)]
    return BatchResult(batch.game, len(batch.matches), log.moves_logged, faults, errors, played,
                       time.perf_counter() - t0 - played, worker, parts, attempt=attempt)


@functools.cache
def _store(uri: str) -> ObjectStore:
    """One resolved store per URI and process (a worker writes many batches)."""
    return open_store(uri)
