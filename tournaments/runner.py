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
import hashlib
import os
import pickle
import socket
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bots.api import Player
from bots.faults import Fault
from bots.match import close_players, make_players, play_match
from bots.records import MoveColumns
from bots.sandbox import Limits as BotLimits
from engine import game_class, load_game
from engine.core import Game, State
from tournaments.ladder.code import BotCode, worker_sources
from tournaments.log import BatchLog, commit_batch, options_json, stage_batch
from tournaments.schedule import GamePlan, Match, match_seat_seeds
from tournaments.spec import Limits
from tournaments.store import ObjectStore, is_uri, open_store


def bot_limits(limits: Limits) -> BotLimits:
    """The sandbox limits of the bots issue from the spec's ``[limits]``."""
    mem = limits.memory_mb << 20
    return BotLimits(move_time=limits.move_s, time_bank=limits.bank_s, memory=mem, group_memory=mem)


class SharedPlan:
    """A game's schedule (:class:`~tournaments.schedule.GamePlan`) as batches carry it to the workers:
    pickled once in the driver (:attr:`payload`, named by its SHA-256 :attr:`digest`), so that a batch
    pickles it as a copy of those bytes, and unpickled once per worker process (:data:`_PLANS`, by
    digest): a later batch of the same plan finds it there and does not unpickle it again."""

    __slots__ = ("digest", "payload", "plan")

    def __init__(self, plan: GamePlan, payload: bytes | None = None, digest: str | None = None) -> None:
        self.plan = plan
        self.payload = pickle.dumps(plan, protocol=pickle.HIGHEST_PROTOCOL) if payload is None else payload
        self.digest = hashlib.sha256(self.payload).hexdigest() if digest is None else digest

    def __reduce__(self) -> tuple[Callable[[str, bytes], SharedPlan], tuple[str, bytes]]:
        return _shared_plan, (self.digest, self.payload)

    def __repr__(self) -> str:
        return f"SharedPlan({self.plan.game.id}, {self.digest[:12]})"


_PLANS: dict[str, SharedPlan] = {}
"""This process's plans, by digest (a worker keeps the last :data:`PLANS_KEPT`)."""
PLANS_KEPT = 64


def _shared_plan(digest: str, payload: bytes) -> SharedPlan:
    """Unpickling a :class:`SharedPlan`: the one this process has under ``digest``, else ``payload``'s."""
    got = _PLANS.get(digest)
    if got is None:
        plan = pickle.loads(payload)
        if not isinstance(plan, GamePlan):
            raise TypeError(f"a shared plan holds a {type(plan).__name__}, not a GamePlan")
        while len(_PLANS) >= PLANS_KEPT:
            del _PLANS[next(iter(_PLANS))]
        got = _PLANS[digest] = SharedPlan(plan, payload, digest)
    return got


@dataclass(frozen=True)
class PlanSlice:
    """The matches of indices ``start`` .. ``stop`` - 1 of a game's schedule, in its order
    (:meth:`GamePlan.matches <tournaments.schedule.GamePlan.matches>`), but those in ``skip`` (already
    committed by an earlier run): what the driver sends instead of the matches themselves.  The worker
    makes the :class:`~tournaments.schedule.Match` objects with the same code the driver would have
    used, so the ids and seeds are the schedule's."""

    plan: SharedPlan
    start: int
    stop: int
    skip: frozenset[int] = frozenset()

    def matches(self) -> tuple[Match, ...]:
        ms = self.plan.plan.matches(False, self.start, self.stop)
        if not self.skip:
            return tuple(ms)
        return tuple(m for i, m in enumerate(ms, self.start) if i not in self.skip)


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
    span: PlanSlice | None = None
    """The matches as a slice of the game's schedule, which the worker expands (then ``matches`` is
    empty): the driver neither makes nor pickles a Match per match."""
    every: int = 0
    """Commit every ``every`` matches (a part set each, as if each were a batch of its own: one task
    then carries several commits); 0: one commit for the whole batch."""
    code: dict[str, BotCode] = field(default_factory=dict)
    """Bot ref (``NAME@VERSION``) -> its files in the store (a ladder in an object store): the worker
    copies them into its own machine's cache and checks them against the registered digest before a
    sandbox runs them, so no node needs the driver's registry (:attr:`bots_data`)."""

    def played(self) -> tuple[Match, ...]:
        """The batch's matches: ``matches``, or those of ``span``."""
        return self.span.matches() if self.span is not None else self.matches

    @property
    def match_ids(self) -> list[str]:
        return [m.match_id for m in self.played()]

    @property
    def key(self) -> str:
        """Names the batch among a run's (its first match id, or its slice), without expanding a slice."""
        if self.span is not None:
            return f"{self.span.plan.digest[:16]}:{self.span.start}"
        return self.matches[0].match_id if self.matches else ""


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
    cpu: float = 0.0
    """CPU seconds of the worker process over the batch, matches and writing (its sandboxed bots'
    processes not counted)."""


PlayersFactory = Callable[[Game, Sequence[str], int, Sequence[int]], list[Player]]
"""(game, bot refs by seat, deal seed, the seats' own seeds) -> players; default
``bots.match.make_players``."""


# ------------------------------------------------------------------------------------------ one match
@dataclass
class Played:
    state: State
    moves: MoveColumns
    """The match's moves, column by column (a sequence of :data:`~tournaments.log.MoveRow` records)."""
    faults: list[Fault]
    placement: list[int]
    seconds: float
    error: str | None = None


def play_logged(game: Game, players: Sequence[Player], seed: int, max_deals: int | None,
                seeds: Sequence[int] | None = None) -> Played:
    """Play one match with ``bots.match.play_match``, keeping its moves' fields column by column
    (``bots.records.MoveColumns``, what :meth:`~tournaments.log.BatchLog.add_match` takes; read row by
    row it gives the loop's ``MoveRecord``, a :data:`~tournaments.log.MoveRow`).
    ``seeds``: the seats' own seeds the players were made with (``play_match``'s).

    An exception from the engine itself (a bug) ends the match with ``error`` set: the tournament
    goes on and the match is recorded with status ``error``.  The players are not closed here.
    """
    moves = MoveColumns()
    r = play_match(game, players, seed, max_deals, log=moves, contain_errors=True, seeds=seeds)
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
    """Play ``batch`` and commit its part files (three parts and a digest record; one set for every
    ``batch.every`` matches, else one); return counts for the driver."""
    game = load_game(batch.game, **batch.options)
    if make is None:
        limits = bot_limits(batch.limits)
        sources = None
        if batch.code:   # (tournaments.ladder: the store's copy, checked against its digest)
            sources = worker_sources(_store(batch.root), batch.code)

        def make(g: Game, refs: Sequence[str], seed: int, seeds: Sequence[int]) -> list[Player]:
            return make_players(g, refs, seed, sandbox=batch.limits.sandbox_builtins, limits=limits,
                                data_dir=batch.bots_data, seeds=seeds, sources=sources)
    shown = {label: ref + _options_text(batch.bot_options.get(label, {}))
             for label, ref in batch.bot_refs.items()}
    opts = options_json(game.options)
    teams = ([s % 2 for s in range(batch.players)] if game_class(batch.game).teams
             else list(range(batch.players)))
    worker = worker_name()
    faults = errors = moves = 0
    t0, c0 = time.perf_counter(), time.process_time()
    played = writing = 0.0
    attempt = uuid.uuid4().hex[:12] if is_uri(batch.root) else None
    parts: list[str] = []
    log = BatchLog(batch.tournament, batch.game)

    def commit() -> None:
        """The matches so far as one part set: committed (local files) or staged (an object store:
        the driver publishes every part set of ``attempt`` together)."""
        nonlocal log, moves, played, writing
        t1 = time.perf_counter()
        played = t1 - t0 - writing
        if attempt is not None:   # no rename or lock there: stage, and the driver publishes
            parts.extend(stage_batch(_store(batch.root), log, batch.epoch, attempt))
        else:
            parts.extend(str(p) for p in commit_batch(batch.root, log, fsync=batch.fsync, epoch=batch.epoch))
        moves += log.moves_logged
        log = BatchLog(batch.tournament, batch.game)
        writing += time.perf_counter() - t1

    matches = batch.played()
    for k, m in enumerate(matches):
        if batch.every and k and k % batch.every == 0:
            commit()
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
    commit()
    return BatchResult(batch.game, len(matches), moves, faults, errors, played, writing, worker, parts,
                       attempt=attempt, cpu=time.process_time() - c0)


@functools.cache
def _store(uri: str) -> ObjectStore:
    """One resolved store per URI and process (a worker writes many batches)."""
    return open_store(uri)
