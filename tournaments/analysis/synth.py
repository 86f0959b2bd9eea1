"""Synthetic tournament logs: real matches played by the engine, written with :mod:`tournaments.log`.

Until (and besides) the tournament runner, the analysis needs logs it can replay.  :func:`write_log`
plays duplicate round-robin style matches (every rotation of one seating over each board's seed) with
simple seeded players and writes them through :class:`tournaments.log.BatchLog` and
:func:`tournaments.log.commit_batch`, exactly the schema the runner writes.

Players (``PLAYERS``): ``random`` (uniform choice), ``first`` (always the first legal action) and
``last`` (always the last).  They differ in strength, which gives the ratings something to find.

Seeds derive as a tournament's do (``tournaments.schedule``: HMAC of a secret with game and board for
the deal, with the match and seat for a player), from the secret ``secret_from_seed(seed)`` unless one
is given: synthetic logs are test data, reproducible from ``seed`` by design.

:func:`replicate` makes a big log fast for benchmarks: it copies every part ``factor`` times under new
match ids (the moves, events and results are those of real matches, so the copy replays and verifies).
"""
from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from bots.faults import Fault
from engine import game_class, load_game
from engine.core import State
from tournaments.log import TABLES, BatchLog, MoveRow, commit_batch, options_json, write_part
from tournaments.paths import all_parts, sibling_part
from tournaments.schedule import bot_seed, deal_seed, secret_from_seed

Chooser = Callable[[list[str], random.Random], str]

PLAYERS: dict[str, Chooser] = {
    "random": lambda legal, rng: rng.choice(legal),
    "first": lambda legal, rng: legal[0],
    "last": lambda legal, rng: legal[-1],
}
"""Built-in synthetic players: name -> choice function over the legal actions."""


def _player_kind(label: str) -> Chooser:
    """The chooser for an entrant label: ``random``, ``random-2``, ``first`` ... (text before '-')."""
    kind = label.split("-", 1)[0]
    if kind not in PLAYERS:
        raise ValueError(f"unknown synthetic player {label!r}; known: {', '.join(PLAYERS)} "
                         "(optionally with a suffix, e.g. random-2)")
    return PLAYERS[kind]


def match_id(tournament_seed: int, game: str, arrangement: Sequence[str], rotation: int, board: int) -> str:
    text = json.dumps([tournament_seed, game, list(arrangement), rotation, board])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def play_logged(state: State, bots: Sequence[str], seeds: Sequence[int]) -> list[MoveRow]:
    """Play ``state`` to its end, each seat's player from its own seed in ``seeds``; return the move
    rows :meth:`BatchLog.add_match` takes."""
    choosers = [_player_kind(b) for b in bots]
    if len(seeds) != len(bots):
        raise ValueError(f"{len(seeds)} seeds for {len(bots)} seats")
    rngs = [random.Random(s) for s in seeds]
    moves: list[MoveRow] = []
    ply = 0
    while not state.is_over():
        seat = state.current_player
        assert seat is not None
        legal = state.legal_actions()
        deal, phase = state.deal_no, state.phase
        t0 = time.perf_counter_ns()
        action = choosers[seat](legal, rngs[seat])
        think = (time.perf_counter_ns() - t0) // 1000
        state.apply(action)
        moves.append(MoveRow(deal, ply, seat, phase, action, len(legal), think, "ok"))
        ply += 1
    return moves


def write_log(out: str | Path, games: Sequence[str], bots: Sequence[str], boards: int = 2, seed: int = 1,
              tournament: str = "synth", max_deals: int | None = None,
              options: dict[str, dict[str, Any]] | None = None, batch_size: int = 16,
              players: int | None = None, secret: bytes | None = None, fault_reason: str | None = None,
              worker: str = "synth:0") -> int:
    """Play and log matches of ``games`` between ``bots``; return the number of matches written.

    For each game and board, the first ``players`` entrants of ``bots`` (the game's default seat
    count) sit in every rotation: entrant ``i`` at seat ``(i + rotation) % players``; all rotations of
    a board share its seed (duplicate deals).  Entrants rotate through ``bots`` board by board, so
    every bot plays when there are more bots than seats.

    ``fault_reason``: each match also records a crash of seat 0 at its first move with this reason,
    and ``worker`` names the worker (tests of how the commands show a log's text).
    """
    root = Path(out)
    written = 0
    key = secret if secret is not None else secret_from_seed(seed)
    for game_id in games:
        cls = game_class(game_id)
        opts = (options or {}).get(game_id, {})
        game = load_game(game_id, **opts)
        n = game.check_players(players)
        if len(bots) < n:
            raise ValueError(f"{game_id} needs {n} entrants, got {len(bots)}")
        log = BatchLog(tournament, game_id)
        for board in range(boards):
            arrangement = [bots[(board + i) % len(bots)] for i in range(n)]
            board_seed = deal_seed(key, game_id, board)
            group = match_id(seed, game_id, arrangement, -1, board)
            for rotation in range(n):
                seat_bots = [""] * n
                for i, b in enumerate(arrangement):
                    seat_bots[(i + rotation) % n] = b
                t0 = time.perf_counter()
                mid = match_id(seed, game_id, arrangement, rotation, board)
                state = game.new_match(seed=board_seed, players=n, max_deals=max_deals)
                own = [bot_seed(key, game_id, board, mid, s) for s in range(n)]
                moves = play_logged(state, seat_bots, own)
                ranking = state.ranking()
                log.add_match(
                    match_id=mid, group_id=group,
                    options=options_json(game.options), seed=board_seed, players=n, max_deals=max_deals,
                    board=board, rotation=rotation, bots=seat_bots, bot_refs=seat_bots,
                    teams=[s % 2 for s in range(n)] if cls.teams else list(range(n)),
                    scores=state.scores(), ranking=ranking, engine_ranking=ranking,
                    deals_played=state.deal_no, sheet=state.score_sheet(), moves=moves, events=state.events,
                    faults=[] if fault_reason is None else [Fault(0, "crash", fault_reason, "act", 1, 0, 1)],
                    duration_s=time.perf_counter() - t0, finished_at_ms=int(time.time() * 1000),
                    worker=worker)
                written += 1
                if len(log.match_ids) >= batch_size:
                    commit_batch(root, log, fsync=False)
                    log = BatchLog(tournament, game_id)
        if log.match_ids:
            commit_batch(root, log, fsync=False)
    return written


def replicate(src: str | Path, dst: str | Path, factor: int, per_part: int = 4) -> int:
    """Copy every match of the log ``src`` into ``dst`` ``factor`` times under new match ids.

    Copy ``k`` of a match gets id ``match_id[:12] + f"{k:04x}"`` (and its group likewise); ``per_part``
    copies of a batch share one part file, as a runner batch of that many matches would.  Returns the
    number of moves written.
    """
    src, dst = Path(src), Path(dst)
    total = 0
    for part in all_parts(src, "matches"):
        game_dir, name = part.parent.name, part.name
        tables = {t: pq.read_table(sibling_part(part, t)) for t in TABLES}
        stem = name[:-len(".parquet")]
        for k0 in range(0, factor, per_part):
            ks = range(k0, min(factor, k0 + per_part))
            for t, table in tables.items():
                copies = []
                for k in ks:
                    suffix = f"{k:04x}"
                    copy = table
                    for col in ("match_id", "group_id") if t == "matches" else ("match_id",):
                        i = copy.schema.get_field_index(col)
                        new = pc.binary_join_element_wise(pc.utf8_slice_codeunits(copy.column(col), 0, 12),
                                                          suffix, "")
                        copy = copy.set_column(i, copy.schema.field(col), new)
                    copies.append(copy)
                out = pa.concat_tables(copies)
                write_part(dst / t / game_dir / f"{stem[:-4]}{k0:04x}.parquet", out, fsync=False)
                if t == "moves":
                    total += out.num_rows
    return total


@dataclass(frozen=True)
class Shaped:
    """One match of :func:`shaped_matches`."""

    game: str
    group: str
    match_id: str
    board: int
    rotation: int
    bots: list[str]
    teams: list[int]
    ranking: list[int]


def shaped_matches(games: Sequence[str], strengths: dict[str, float], matches: int, seed: int = 1,
                   shared: float = 0.5) -> Iterator[Shaped]:
    """The matches of a played tournament's shape with outcomes drawn from known strengths: matches
    of every game in ``games`` at its default seat count, in duplicate groups of every rotation of
    one seating over one board, the seatings drawn from the entrants of ``strengths`` (label ->
    log-strength).  About ``matches`` matches, spread evenly over the games.

    Outcomes: a Plackett-Luce draw (Gumbel noise on the utilities: places by decreasing utility plus
    noise) where a unit's utility is the sum of its members' strengths (partnerships: the seats of one
    team).  The deal is shared as a real board's is: each unit's (seat's or team's) noise is drawn
    once per board, and each rotation keeps it with probability ``shared``, else draws its own.  So
    the rotations of a board are correlated, and every match is still an exact Plackett-Luce draw of
    its entrants: the truth a fit should find is ``strengths``, centred."""
    import numpy as np
    rng = np.random.default_rng(seed)
    labels = sorted(strengths)
    for gi, game_id in enumerate(games):
        cls = game_class(game_id)
        n = load_game(game_id).check_players(None)
        if len(labels) < n:
            raise ValueError(f"{game_id} needs {n} entrants, got {len(labels)}")
        team_of = [s % 2 for s in range(n)] if cls.teams else list(range(n))
        units = sorted(set(team_of))
        per_game = matches * (gi + 1) // len(games) - matches * gi // len(games)
        for board in range(-(-per_game // n)):
            arrangement = [labels[i] for i in rng.permutation(len(labels))[:n]]
            deal_noise = rng.gumbel(size=len(units))
            group = match_id(seed, game_id, arrangement, -1, board)
            for rotation in range(n):
                seat_bots = [""] * n
                for i, b in enumerate(arrangement):
                    seat_bots[(i + rotation) % n] = b
                util = np.array([sum(strengths[seat_bots[s]] for s in range(n) if team_of[s] == t)
                                 for t in units])
                noise = deal_noise if rng.random() < shared else rng.gumbel(size=len(units))
                order = np.argsort(-(util + noise))
                place_of = {units[int(t)]: p + 1 for p, t in enumerate(order)}
                yield Shaped(game_id, group, match_id(seed, game_id, arrangement, rotation, board), board,
                             rotation, seat_bots, list(team_of), [place_of[team_of[s]] for s in range(n)])


def write_shaped(out: str | Path, games: Sequence[str], strengths: dict[str, float], matches: int,
                 seed: int = 1, shared: float = 0.5, played: int = 3, tournament: str = "shaped",
                 per_part: int = 64) -> tuple[int, int]:
    """The log of :func:`shaped_matches` (one-deal matches; ``scores`` = seats - place).  Moves and
    events: each match carries those of one of ``played`` one-deal matches of its game played at
    random (real sizes for the moves table; none with ``played=0``; not a replay of the drawn
    outcome, so ``verify`` does not apply).  Returns (matches, moves) written.  The benchmark of
    ``rank`` on a real-shaped log uses it (bench/rank_shaped.py)."""
    if len(games) == 0 or matches < 1:
        raise ValueError("write_shaped needs at least one game and one match")
    root = Path(out)
    done = moves_done = 0
    base: dict[str, list[tuple[list[MoveRow], list[dict[str, Any]]]]] = {}
    log: BatchLog | None = None
    loaded: dict[str, Any] = {}
    for m in shaped_matches(games, strengths, matches, seed, shared):
        n = len(m.bots)
        if m.game not in base:
            loaded[m.game] = load_game(m.game)
            base[m.game] = []
        game = loaded[m.game]
        if len(base[m.game]) < played:
            for k in range(played):
                state = game.new_match(seed=k, players=n, max_deals=1)
                base[m.game].append((play_logged(state, ["random"] * n, list(range(n))), state.events))
        if log is not None and (log.game != m.game or len(log.match_ids) >= per_part):
            commit_batch(root, log, fsync=False)
            log = None
        if log is None:
            log = BatchLog(tournament, m.game)
        mv, events = base[m.game][(m.board * n + m.rotation) % played] if played else ([], [])
        pts = [float(n - r) for r in m.ranking]
        log.add_match(
            match_id=m.match_id, group_id=m.group, options=options_json(game.options), seed=m.board,
            players=n, max_deals=1, board=m.board, rotation=m.rotation, bots=m.bots, bot_refs=m.bots,
            teams=m.teams, scores=pts, ranking=m.ranking, engine_ranking=m.ranking, deals_played=1,
            sheet=[pts], moves=mv, events=events, faults=[], duration_s=0.0, finished_at_ms=0,
            worker="synth:0")
        done += 1
        moves_done += len(mv)
    if log is not None and log.match_ids:
        commit_batch(root, log, fsync=False)
    return done, moves_done
