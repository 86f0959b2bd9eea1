"""Small tournaments for the dashboard tests, written the way the runner writes them.

:func:`run_tournament` plays a real spec with the tournament runner (``tournaments.schedule`` and
``tournaments.runner.run_batch``, in this process, no Ray) and writes its manifest, so the report is
made from the same logs ``cardarena tournament run`` leaves.  :func:`write_matches` writes logs for
shapes a spec cannot ask for (one bot in every seat) with ``tournaments.log``'s writer from real
engine matches with random play.
"""
from __future__ import annotations

import json
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine import game_class, load_game
from tournaments.log import BatchLog, commit_batch, options_json

CRASHY = '''\
"""A test bot: plays the first legal action, and crashes on its seventh move."""
class Bot:
    def __init__(self, game, seat, seed):
        self.moves = 0

    def act(self, observation):
        self.moves += 1
        if self.moves == 7:
            raise RuntimeError("crashy gives up on its seventh move")
        return observation["legal_actions"][0]
'''


def run_tournament(root: Path, spec_raw: dict[str, Any], files: dict[str, str] | None = None) -> Path:
    """Play ``spec_raw`` (TOML's shape) into ``root`` with the tournament runner; return ``root``.

    ``files`` maps an entrant label to bot source code: that entrant runs the file (sandboxed, as a
    submitted bot would) instead of the spec's bot.
    """
    from tournaments.runner import Batch, run_batch
    from tournaments.schedule import plan
    from tournaments.spec import parse_spec

    spec = parse_spec(spec_raw)
    refs = {e.label: e.bot for e in spec.bots}
    for label, code in (files or {}).items():
        path = root / "_bots" / f"{label}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
        refs[label] = str(path)
    total = 0
    for gp in plan(spec):
        matches = tuple(gp.matches())
        total += len(matches)
        batch = Batch(tournament=spec.name, root=str(root), game=gp.game.id,
                      options=load_game(gp.game.id, **gp.game.options).options, players=gp.game.players,
                      max_deals=gp.game.max_deals, matches=matches, bot_refs=refs, limits=spec.limits,
                      fsync=False)
        run_batch(batch)
    manifest = {"schema_version": 1, "tournament": spec.name, "spec_hash": spec.spec_hash(),
                "spec": spec.identity() | {"name": spec.name, "games": spec.game_entries()},
                "bots": refs, "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "total_matches": total}
    mdir = root / "_tournaments"
    mdir.mkdir(parents=True, exist_ok=True)
    (mdir / f"{spec.name}.json").write_text(json.dumps(manifest, indent=2))
    return root


def write_matches(root: Path, tournament: str, game: str, seatings: Sequence[Sequence[str]],
                  seed: int = 1, max_deals: int | None = 1, manifest: bool = True) -> Path:
    """Write one batch: a match per seating (entrant label by seat), random play from ``seed``."""
    g = load_game(game)
    cls = game_class(game)
    log = BatchLog(tournament, game)
    for i, seats in enumerate(seatings):
        mseed = seed * 1000 + i
        state = g.new_match(seed=mseed, players=len(seats), max_deals=max_deals)
        rng = random.Random(mseed)
        moves = []
        while not state.is_over():
            seat = state.current_player
            assert seat is not None
            legal = state.legal_actions()
            deal, phase = state.deal_no, state.phase
            state.apply(rng.choice(legal))
            moves.append((deal, len(state.history) - 1, seat, phase, state.history[-1], len(legal), 5, "ok"))
        teams = [s % 2 for s in range(len(seats))] if cls.teams else list(range(len(seats)))
        log.add_match(match_id=f"{seed:08x}{i:08x}", group_id=f"{seed:08x}{i:08x}",
                      options=options_json(g.options), seed=mseed, players=len(seats), max_deals=max_deals,
                      board=0, rotation=0, bots=list(seats), bot_refs=list(seats), teams=teams,
                      scores=state.scores(), ranking=state.ranking(), engine_ranking=state.ranking(),
                      deals_played=state.deal_no, sheet=state.score_sheet(), moves=moves, events=state.events,
                      faults=[],
                      duration_s=0.01, finished_at_ms=1_700_000_000_000 + i, worker="test:1")
    commit_batch(root, log, fsync=False)
    if manifest:
        (root / "_tournaments").mkdir(parents=True, exist_ok=True)
        (root / "_tournaments" / f"{tournament}.json").write_text(json.dumps({
            "schema_version": 1, "tournament": tournament, "spec_hash": "0" * 16,
            "spec": {"name": tournament, "games": [{"id": game}]},
            "bots": {b: b for s in seatings for b in s}, "created_at": "2024-01-01T00:00:00Z",
            "total_matches": len(seatings)}))
    return root


def empty_tournament(root: Path, tournament: str = "empty") -> Path:
    """A tournament directory with a manifest and no finished match."""
    (root / "_tournaments").mkdir(parents=True, exist_ok=True)
    (root / "_tournaments" / f"{tournament}.json").write_text(json.dumps({
        "schema_version": 1, "tournament": tournament, "spec_hash": "0" * 16,
        "spec": {"name": tournament, "games": "all"}, "bots": {}, "created_at": "2024-01-01T00:00:00Z",
        "total_matches": 0}))
    return root


ILLEGAL = '''\
"""A test bot with one bug: now and then it plays a card it does not hold (a different card each time)."""
import random

DECK = [r + s for r in "23456789TJQKA" for s in "CDHS"]


class Bot:
    def __init__(self, game, seat, seed):
        self.rng = random.Random(seed)

    def act(self, observation):
        legal = observation["legal_actions"]
        if self.rng.random() < 0.2 and any(a.startswith("play ") for a in legal):
            held = set(observation.get("hand") or [])
            return "play " + self.rng.choice([c for c in DECK if c not in held])
        return legal[0]
'''

FLAKY = '''\
"""A test bot with one bug: it crashes at a random move, the message naming the move and an address."""
import random


class Bot:
    def __init__(self, game, seat, seed):
        self.rng = random.Random(seed)
        self.moves = 0

    def act(self, observation):
        self.moves += 1
        if self.rng.random() < 0.15:
            raise IndexError(f"hand index {self.moves * 3} out of range at move {self.moves} in {object()!r}")
        return observation["legal_actions"][-1]
'''
