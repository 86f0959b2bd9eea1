"""``ladder run``: the scheduler loop.

One run takes the ladder's lock (the tournament lock of its log), starts a new epoch (the exactly-once
commit fence of ``tournaments.log``: a worker of a killed run can no longer commit) and removes the
orphans of an interrupted batch.  It then rebuilds the online ratings from the log and checks them
against the stored rows, and goes on:

1. the groups written but not committed (a stopped or killed run's) are submitted again under the same
   ids, so nothing is lost or doubled;
2. each time a worker is free: versions waiting for validation are validated in the sandbox (one smoke
   match per game against ``random``, and one with copies of the version in every seat, which
   exercises the partner path of the partnership games), rejected with the reason or moved to
   placement; a placement group (against reference bots) for a version in placement, else a
   matchmade group (:mod:`tournaments.ladder.matchmaking`).  Its ``groups`` row is written **before**
   the group is submitted;
3. every committed group is ingested: online ratings (in ``seq`` order, :mod:`tournaments.ladder.core`)
   appended to ``ratings_online``; placement finished -> active (the author's oldest active versions
   over ``quotas.active`` retire); a fault rate over ``rating.fault_threshold`` after
   ``rating.fault_min_groups`` groups -> probation; a group with an engine error is played again as a
   new group (``rerun_of``), never rated nor charged;
4. a board snapshot every ``rating.board_every_s`` seconds and at the end.  The driver only gathers
   the fit's inputs (:class:`~tournaments.ladder.core.BoardInputs`); the batch fit with its bootstrap
   runs in one background process (:class:`BoardWorker`, at most one snapshot in flight), and the
   board is stored when it is done, so a long ladder's growing fit never holds up scheduling.  At the
   end the run waits for the last one: the final board is of every rated group.

The groups run on the local pool of processes or on Ray exactly as a tournament's batches do (one
group = one batch: :func:`tournaments.runner.run_batch`); a lost worker or node re-runs the batch
with the same ids.  Ctrl-C stops scheduling and drains the groups in flight; the next run goes on.
"""
from __future__ import annotations

import contextlib
import math
import multiprocessing as mp
import random
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tournaments.ladder import tables
from tournaments.ladder.core import (
    BoardInputs,
    View,
    board_from_inputs,
    board_inputs,
    load_spec,
    load_view,
    rating_dicts,
    secret_of,
    store_board,
    sync_ratings,
    teams_of,
)
from tournaments.ladder.matchmaking import (
    Entry,
    Params,
    Table,
    choose_table,
    focus,
    pick_seed,
    placement_table,
    table_key,
    top_relevance,
)
from tournaments.ladder.online import OnlineRatings
from tournaments.ladder.remote import VERSIONS, Records
from tournaments.ladder.spec import LadderSpec
from tournaments.ladder.state import REFERENCE, LadderError, LadderStore, bots_root
from tournaments.ledger import Lease, begin_epoch, clean_orphans
from tournaments.paths import committed_parts
from tournaments.runner import Batch, BatchResult
from tournaments.schedule import Match, bot_seed, deal_seed, group_id, match_id, rotate
from tournaments.store import Mirror, ObjectStore, StoreError, is_uri, open_store, restore_uri

IDLE_S = 30.0
"""A run with ``--groups`` (no ``--for``) ends when no table could be seated for this long."""


@dataclass
class RunSummary:
    ladder: str
    groups_new: int = 0
    groups_resubmitted: int = 0
    groups_committed: int = 0
    groups_rerun: int = 0
    validated: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)
    snapshots: int = 0
    stopped: bool = False
    seconds: float = 0.0
    executor: str = ""
    lost_workers: int = 0
    resubmitted_batches: int = 0
    lost_nodes: list[dict[str, Any]] = field(default_factory=list)
    """Ray nodes lost while the run ran: ``node_id``, ``address``, ``batches_rerun``."""

    def to_json(self) -> dict[str, Any]:
        return dict(vars(self))


def make_batch(spec: LadderSpec, root: Path, secret: bytes, g: dict[str, Any], epoch: int,
               refs: dict[str, str], options: dict[str, dict[str, Any]], fsync: bool = True,
               out: str | None = None) -> Batch:
    """The batch of one group: every rotation of its arrangement on its own board.  ``out``: where
    the workers write (a store's URI; default the directory ``root``).  In a store, the batch names
    where each submitted version's files are there (:func:`~tournaments.ladder.remote.code_of`): a
    worker on any machine reads them and checks their digest, never the driver's local copy."""
    ge = spec.game(g["game"])
    arr = tuple(g["arrangement"])
    board = int(g["board"])
    seed = deal_seed(secret, ge.id, board)
    gid = group_id(spec.seed, ge.id, arr, board)
    assert gid == g["group_id"], (gid, g["group_id"])
    ms = []
    for r in range(ge.players):
        mid = match_id(spec.seed, ge.id, arr, r, board)
        ms.append(Match(mid, gid, ge.id, board, r, rotate(arr, r), seed,
                        tuple(bot_seed(secret, ge.id, board, mid, s) for s in range(ge.players))))
    code = {}
    if out is not None and is_uri(out):
        from tournaments.ladder.remote import RecordError, code_of
        try:
            code = {a: code_of(root, a) for a in dict.fromkeys(arr) if a not in refs}
        except RecordError as e:
            raise LadderError(str(e)) from None
    return Batch(spec.name, out or str(root.resolve()), ge.id, ge.options, ge.players, ge.max_deals,
                 tuple(ms),
                 {a: refs.get(a, a) for a in arr}, {a: options[a] for a in arr if a in options},
                 spec.limits, str(bots_root(root).resolve()), fsync, epoch, code=code)


def group_row(spec: LadderSpec, seq: int, t: Table, rating_seq: int, rerun_of: str | None = None
              ) -> dict[str, Any]:
    return {"tournament": spec.name, "group_id": group_id(spec.seed, t.game, t.arrangement, seq), "seq": seq,
            "game": t.game, "board": seq, "arrangement": list(t.arrangement), "reason": t.reason,
            "probability": t.probability, "rating_seq": rating_seq, "rerun_of": rerun_of,
            "created_at": datetime.now(UTC)}


@dataclass
class Remote:
    """A run of a ladder in an object store (:mod:`tournaments.ladder.remote`): the driver works on a
    local copy (``mirror``) holding the store's lease; every table file it writes there is put in the
    store (:meth:`push`, the lease checked first), and every group a worker staged in the store is
    published by the driver (:meth:`publish`) and its matches part copied into the local copy."""

    uri: str
    store: ObjectStore
    lease: Lease
    mirror: Mirror
    secret: bytes

    def push(self, path: Path) -> None:
        from tournaments.ledger import Fenced
        key = path.relative_to(self.mirror.dir).as_posix()
        try:
            self.lease.check()
        except Fenced as e:
            raise LadderError(str(e)) from None
        self.store.put(key, path.read_bytes())
        self.mirror.keys.add(key)

    def publish(self, r: BatchResult) -> None:
        from tournaments.ledger import Fenced, publish_batch
        if r.attempt is None or not r.parts:
            return
        try:
            publish_batch(self.store, self.lease, r.attempt, r.parts)
        except Fenced as e:
            raise LadderError(str(e)) from None
        for key in r.parts:   # the matches parts (the commit records): all the driver reads
            if key.startswith("matches/"):
                target = self.mirror.dir / key
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(self.store.get(key))
        self.mirror.keys.update(r.parts)


class Ladder:
    """The driver's state: the view of the log, the online ratings, what is scheduled."""

    def __init__(self, root: Path, say: Callable[[str], None], fsync: bool = True,
                 remote: Remote | None = None) -> None:
        self.root = root
        self.remote = remote
        self.spec = load_spec(root)
        self.store = LadderStore(root)
        self.say = say
        self.fsync = fsync
        self.secret = remote.secret if remote is not None else secret_of(root, self.spec.name)
        self.rng = random.Random()
        self.sink = remote.push if remote is not None else None
        if self.store.remote is not None:
            materialize(self.store.remote, root, say)
        self.view: View = load_view(root, self.spec)
        self.online: OnlineRatings = sync_ratings(self.view, self.sink)[0]
        self.rated = len(self.view.rateable_prefix())
        self.refs = {r.label: r.bot for r in self.spec.reference}
        self.options = {r.label: r.options for r in self.spec.reference if r.options}
        self.games = {g.id: (g.players, teams_of(g.id)) for g in self.spec.games}
        mm = self.spec.matchmaking
        self.mm = Params(mm.epsilon, mm.candidates, mm.recent, mm.lru_share, mm.starvation_s,
                         top_k=mm.top_k, top_weight=mm.top_weight, top_pairs=mm.top_pairs,
                         top_share=mm.top_share, top_margin=mm.top_margin)
        self.scheduled_at: dict[str, float] = {}
        self.rerun_queue: list[dict[str, Any]] = [
            g for g in self.view.groups if self.view.errored(g["group_id"])
            and not any(o["rerun_of"] == g["group_id"] for o in self.view.groups)]
        self.seen_parts: set[Path] = set(committed_parts(root, self.spec.name))

    # ------------------------------------------------------------------ scheduling
    def next_seq(self) -> int:
        return 1 + max((g["seq"] for g in self.view.groups), default=0)

    def entries(self) -> tuple[list[Entry], list[Entry]]:
        """(pool, placement): every schedulable version with its counts so far (in flight too)."""
        sched: dict[str, int] = {}
        per_game: dict[str, dict[str, int]] = {}
        placed: dict[str, int] = {}
        last: dict[str, float] = {}
        for g in self.view.groups:
            if self.view.errored(g["group_id"]):
                continue
            t = g["created_at"].timestamp()
            for ref in g["arrangement"]:
                sched[ref] = sched.get(ref, 0) + 1
                per_game.setdefault(ref, {})[g["game"]] = per_game.setdefault(ref, {}).get(g["game"], 0) + 1
                last[ref] = max(last.get(ref, -math.inf), t)
                if g["reason"] == "placement" and g["arrangement"][0] == ref:
                    placed[ref] = placed.get(ref, 0) + 1
        pool: list[Entry] = []
        placing: list[Entry] = []
        for v in self.view.versions:
            if v.state not in ("active", "placement"):
                continue
            e = Entry(v.ref, v.author, tuple(v.games), v.state, sched.get(v.ref, 0),
                      last.get(v.ref, -math.inf), per_game.get(v.ref, {}),
                      max(0, self.spec.matchmaking.placement_groups - placed.get(v.ref, 0)))
            (placing if v.state == "placement" else pool).append(e)
        return pool, placing

    def plan_next(self) -> Table | None:
        pool, placing = self.entries()
        refs = [e for e in pool if e.author == REFERENCE]
        for e in sorted(placing, key=lambda e: e.ref):
            if e.placement_left > 0:
                t = placement_table(e, refs, self.games, self.rng)
                if t is not None:
                    return t
        recent = self.recent_tables(pool)
        now = time.time()
        rel = top_relevance([e for e in pool if e.state == "active"], self.online.overall, self.mm.top_k)
        among = focus(pool, self.online.overall, self.mm, self.rng)
        seed = pick_seed(pool, now, self.mm, self.rng, rel, among)
        if seed is None:
            return None
        return choose_table(seed, pool, self.games, self.online.get, recent, self.mm,
                            self.spec.rating.beta, self.rng, rel, among)

    def recent_tables(self, pool: list[Entry]) -> set[tuple[str, frozenset[frozenset[str]]]]:
        """The tables of each game's last ``recent`` groups, the window shortened where the pool can
        seat fewer distinct tables (one table fewer than it can seat: a pool of exactly four versions
        in a 4-player game has one table, and would otherwise never play again)."""
        from tournaments.schedule import count_arrangements
        out: set[tuple[str, frozenset[frozenset[str]]]] = set()
        for gid, (players, teams) in self.games.items():
            n = sum(1 for e in pool if gid in e.games)
            window = min(self.mm.recent, count_arrangements(n, players, teams) - 1) if n >= players else 0
            if window <= 0:
                continue
            mine = [g for g in self.view.groups if g["game"] == gid][-window:]
            out |= {table_key(gid, g["arrangement"], teams) for g in mine}
        return out

    def write_group(self, t: Table, rerun_of: str | None = None) -> dict[str, Any]:
        with sigint_deferred():   # the file and the view together: a seq is never handed out twice
            row = group_row(self.spec, self.next_seq(), t, self.online.seq, rerun_of)
            self.append("groups", [row], row["seq"])
            self.view.groups.append(row)
        return row

    def append(self, table: str, rows: list[dict[str, Any]], first: int) -> None:
        """A new file of one of the ladder's tables (in the store too, on an object store)."""
        p = tables.append(self.root, table, self.spec.name, rows, first=first, fsync=self.fsync)
        if p is not None and self.sink is not None:
            self.sink(p)

    # ------------------------------------------------------------------ validation
    def validate_waiting(self, s: RunSummary) -> None:
        self.view.versions = self.store.versions()
        if self.store.remote is not None:
            materialize(self.store.remote, self.root, self.say)
        waiting = [v for v in self.view.versions if v.state == "validating"]
        if waiting:
            require_sandbox()
        for v in waiting:
            ok, reason, games = validate_version(self.spec, self.root, v.ref)
            if ok:
                self.store.move(v.ref, "placement", reason, games=games)
                s.validated.append(v.ref)
            else:
                self.store.move(v.ref, "rejected", reason)
                s.rejected.append(v.ref)
            self.say(f"{v.ref}: {'placement' if ok else 'rejected'}: {reason}")
        self.view.versions = self.store.versions()

    # ------------------------------------------------------------------ ingestion
    def ingest(self, s: RunSummary) -> None:
        """Read newly committed groups, rate them, apply governance.  A Ctrl-C meanwhile waits for the
        end (:func:`sigint_deferred`): interrupted mid-read, a part was marked seen and its group never
        rated, and every later group waited behind it (the ratings of a drained run stopped short)."""
        with sigint_deferred():
            self._ingest(s)

    def _ingest(self, s: RunSummary) -> None:
        new = tables.committed(self.root, self.spec.name, self.seen_parts).by_group
        fresh = [gid for gid in new if gid not in self.view.committed]
        self.view.committed.update(new)
        s.groups_committed += sum(1 for gid in fresh if gid in self.view.by_id)
        for gid in fresh:
            g = self.view.by_id.get(gid)
            if g is not None and self.view.errored(gid):
                self.rerun_queue.append(g)
                self.say(f"group {gid} ({g['game']}) hit an engine error: played again, not rated")
        self.rate_new()
        self.govern(s)

    def rate_new(self) -> None:
        """Rate the groups committed since the last call, in ``seq`` order (as :func:`sync_ratings`
        would from the whole log), and append their rows to ``ratings_online``."""
        prefix = self.view.rateable_prefix()
        nxt = self.online.copy()   # taken only once its rows are stored: a Ctrl-C in between changes nothing
        rows = []
        for g in prefix[self.rated:]:
            if not self.view.errored(g["group_id"]):
                rows += nxt.update(self.view.outcome(g))
        if rows:   # (written again after an interruption, the same rows make the same file)
            dicts = rating_dicts(rows, nxt, self.spec.name)
            self.append("ratings_online", dicts, dicts[0]["seq"])
        self.online, self.rated = nxt, len(prefix)

    def govern(self, s: RunSummary) -> None:
        self.view.versions = self.store.versions()
        stats = self.view.stats()
        need = self.spec.matchmaking.placement_groups
        r = self.spec.rating
        for v in self.view.versions:
            st = stats.get(v.ref)
            if v.reference or st is None:
                continue
            if v.state == "placement" and st.placement >= need:
                mu, sigma = self.online.overall(v.ref)
                c = self.store.move(v.ref, "active", f"placement done ({st.placement} groups; online mu "
                                    f"{mu:.2f} sigma {sigma:.2f})")
                s.changes.append(f"{c.ref}: {c.from_state} -> {c.to_state}")
                self.say(f"{v.ref}: active ({c.reason})")
                self.retire_over_quota(v.author, s)
            if v.state in ("placement", "active") and st.groups >= r.fault_min_groups and \
                    (st.fault_rate or 0.0) > r.fault_threshold:
                c = self.store.move(v.ref, "probation", f"fault rate {st.fault_rate:.2f} over "
                                    f"{r.fault_threshold} after {st.groups} groups")
                s.changes.append(f"{c.ref}: {c.from_state} -> probation")
                self.say(f"{v.ref}: probation ({c.reason})")
        self.view.versions = self.store.versions()

    def retire_over_quota(self, author: str, s: RunSummary) -> None:
        mine = sorted((v for v in self.store.versions() if v.author == author and v.state == "active"),
                      key=lambda v: (v.submitted_at, v.version))
        while len(mine) > self.spec.quotas.active:
            old = mine.pop(0)
            c = self.store.move(old.ref, "retired", f"over the active quota ({self.spec.quotas.active}) of "
                                f"{author}: the oldest retires")
            s.changes.append(f"{c.ref}: active -> retired")
            self.say(f"{old.ref}: retired ({c.reason})")

    def snapshot(self, s: RunSummary) -> None:
        """A board snapshot now, in the driver (the end of a run without a worker)."""
        self.publish_board(board_from_inputs(board_inputs(self.view, self.online)), s)

    def start_snapshot(self, worker: BoardWorker) -> bool:
        """Gather the board's inputs and hand them to ``worker``; False (nothing done) while the
        worker still has one in flight."""
        if worker.busy():
            return False
        worker.submit(board_inputs(self.view, self.online))
        return True

    def collect_snapshot(self, worker: BoardWorker, s: RunSummary, wait: bool = False) -> None:
        """Store and announce the board of ``worker`` if it is done (``wait``: once it is); an error
        of the fit is raised here."""
        board = worker.wait() if wait else worker.done()
        if board is not None:
            self.publish_board(board, s)

    def publish_board(self, board: dict[str, Any], s: RunSummary) -> None:
        store_board(self.view, board, self.sink)
        s.snapshots += 1
        top = ", ".join(f"{r['rank']}. {r['ref']} {r['strength']:+.2f}" for r in board["overall"][:5])
        self.say(f"board: {board['watermark']['groups']} groups rated; {top}")


BOARD_FIT: Callable[[BoardInputs], dict[str, Any]] = board_from_inputs
"""What the board worker runs (a module-level function: it is pickled by name)."""


@contextlib.contextmanager
def sigint_deferred() -> Iterator[None]:
    """Run the block whole: a Ctrl-C (SIGINT) arriving inside it is held and delivered to the handler
    that was in place once the block ends.  Outside the main thread (where Python runs no signal
    handler) the block just runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []

    def hold(signum: int, _frame: object) -> None:
        held.append(signum)

    before = signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
    if held and callable(before):
        before(signal.SIGINT, None)


def _ignore_sigint() -> None:
    """The board worker leaves Ctrl-C to the driver, which drains and then waits for the last board."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class BoardWorker:
    """One background process (spawned: the driver may hold Ray's threads) computing the boards'
    batch fits, at most one in flight.  A thread would not do: the fit holds the GIL."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._future: Future[dict[str, Any]] | None = None

    def busy(self) -> bool:
        return self._future is not None

    def submit(self, inp: BoardInputs) -> None:
        assert self._future is None, "one snapshot in flight at most"
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=mp.get_context("spawn"),
                                             initializer=_ignore_sigint)
        # the process is spawned by this submit: it starts with SIGINT blocked (the mask survives the
        # exec), so a Ctrl-C to the process group while it still imports cannot interrupt it before
        # _ignore_sigint runs (a KeyboardInterrupt there left the driver's drain waiting on it)
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            self._future = self._pool.submit(BOARD_FIT, inp)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)

    def done(self) -> dict[str, Any] | None:
        """The board in flight if it is done (the worker's error raised here), else None."""
        if self._future is None or not self._future.done():
            return None
        return self.wait()

    def wait(self) -> dict[str, Any] | None:
        """The board in flight once it is done (None if there is none)."""
        if self._future is None:
            return None
        f, self._future = self._future, None
        return f.result()

    def close(self) -> None:
        """Stop the process; a fit in flight (a run ending on an error) is abandoned, not waited for."""
        if self._pool is not None:
            if self._future is not None:
                self._future.cancel()
            self._pool.shutdown(wait=self._future is None, cancel_futures=True)
            self._pool = None
            self._future = None


def materialize(records: Records, root: Path, say: Callable[[str], None] | None = None) -> list[str]:
    """Copy the files of every submitted version not yet in the bots registry under ``root`` (the
    local copy) into it, in version order (the registry numbers a name's versions as the records do);
    the refs added.  A version whose files do not hash to its record's content hash is left out."""
    from bots.api import BotSource
    from bots.registry import Registry
    from tournaments.ladder.state import REFERENCE, bots_root

    reg = Registry(bots_root(root))
    have = {e.spec for e in reg.entries()}
    added = []
    todo = sorted((b for k, b in records.bodies.items() if k.startswith(VERSIONS + "/")
                   and b["author"] != REFERENCE and b["ref"] not in have),
                  key=lambda b: (str(b["name"]), int(b["version"])))
    for b in todo:
        latest = max((e.version for e in reg.entries(str(b["name"]))), default=0)
        if int(b["version"]) != latest + 1:
            continue   # an earlier version's record is not listed yet
        with tempfile.TemporaryDirectory(prefix="cardarena-ladder-bot-") as tmp:
            path = records.get_code(b, Path(tmp))
            src = BotSource(path.resolve(), path.is_dir())
            if src.content_hash() != b["hash"]:
                if say is not None:
                    say(f"{b['ref']}: its stored files do not match its content hash; left out")
                continue
            reg.add(src, str(b["name"]), [], {"ladder": "queued"})
        added.append(str(b["ref"]))
    return added


def require_sandbox() -> None:
    """:class:`LadderError` (one line) when submitted bots cannot run here (no sandbox): an
    infrastructure problem, which must stop the run, never reject a version."""
    from bots.sandbox import SandboxUnavailable, isolation
    try:
        isolation().require_untrusted()
    except SandboxUnavailable as e:
        raise LadderError(str(e)) from None


def validate_version(spec: LadderSpec, root: Path, ref: str) -> tuple[bool, str, list[str]]:
    """Validate ``ref`` in the sandbox: one smoke match per ladder game it enters against ``random``,
    then one with copies of it in every seat.  (ok, reason, its games)."""
    from bots.match import close_players, make_players, play_match, seat_seeds
    from bots.registry import Registry
    from bots.validate import fresh_seed, validate
    from engine import load_game

    try:
        entry = Registry(bots_root(root)).resolve(ref)
    except LookupError as e:
        return False, f"its stored copy cannot be read: {e}", []
    wanted = [g.id for g in spec.games]
    try:
        v = validate(entry.source(), games=wanted)
    except ValueError as e:
        return False, str(e), []
    if v.load_error is not None:
        return False, f"it does not load: {v.load_error.outcome}: {v.load_error.reason}"[:300], []
    games = [c.game for c in v.checks if c.ok and c.game in wanted]
    failed = [c for c in v.checks if not c.ok and c.game in wanted]
    if failed:
        return False, failed[0].line()[:300], []
    if not games:
        return False, f"it enters none of the ladder's games ({', '.join(wanted)})", []
    for gid in games:
        ge = spec.game(gid)
        game = load_game(gid, **ge.options)
        seed = fresh_seed()
        seeds = seat_seeds(seed, ge.players)
        players = make_players(game, [ref] * ge.players, seed, data_dir=bots_root(root), seeds=seeds)
        try:
            r = play_match(game, players, seed, ge.max_deals or 1, seeds=seeds)
        finally:
            close_players(players)
        if r.faults:
            f = r.faults[0]
            return False, (f"{gid}: FAILED with a copy in every seat, seat {f.seat}: {f.outcome}: {f.reason} "
                           f"(seed {seed})")[:300], []
    return True, f"validated in {', '.join(games)} (a smoke match against random, and one with copies in " \
                 "every seat, per game)", games


@dataclass
class Executed:
    stopped: bool = False
    lost_workers: int = 0
    resubmitted: int = 0
    lost_nodes: list[dict[str, Any]] = field(default_factory=list)


def execute(root: Path, spec: LadderSpec, executor: str, address: str | None, work: Iterator[Batch],
            on_result: Callable[[BatchResult], None], max_in_flight: int | None = None,
            before: Callable[[], None] | None = None, store_uri: str | None = None) -> Executed:
    """Run the batches of ``work`` (lazily) on the local pool, Ray or inline, as a tournament's; each
    result goes to ``on_result`` in the driver.  ``before`` runs once the cluster is joined and before
    the first batch (under the ladder's lock, taken by the caller).  ``store_uri``: the store the
    workers write to (its settings go to a cluster's workers), else ``root``."""
    from tournaments.runners import (
        LocalExecutor,
        LocalPool,
        Progress,
        RayExecutor,
        RayOutput,
        Summary,
        TournamentError,
        check_address,
        job_env,
        machine_cpus,
        run_batches,
    )
    from tournaments.runners.inline import run_inline
    from tournaments.runners.ray import _join, _ray_shutdown

    with contextlib.ExitStack() as stack:
        ray_out: RayOutput | None = None
        if executor == "ray":
            if address is not None:
                check_address(address)
            ray_out = stack.enter_context(RayOutput())
            if address is not None and _join(address, ray_out, job_env(store_uri or root)):
                stack.callback(_ray_shutdown)
        if before is not None:
            before()
        summary = Summary(spec.name, root, 0, 0, executor=executor)
        out, err = (ray_out.out, ray_out.err) if ray_out is not None else (sys.stdout, sys.stderr)
        if ray_out is not None:
            summary.ray_log = ray_out.attach(root, f"cardarena ladder {spec.name}")
        workers = spec.num_cpus or machine_cpus()
        limit = max_in_flight or workers + 1
        pool = stack.enter_context(LocalPool(workers)) if executor == "local" else None
        with Progress(summary, False, out, err) as bar:
            try:
                if pool is not None:
                    run_batches(LocalExecutor(pool), work, on_result, summary, bar, limit)
                elif ray_out is None:
                    run_inline(work, on_result, summary)
                else:
                    run_batches(RayExecutor(address, spec.num_cpus), work, on_result, summary, bar, limit)
            except TournamentError as e:
                raise LadderError(str(e)) from None
    lost = [{"node_id": n.node_id, "address": n.address, "batches_rerun": n.rerun}
            for n in summary.lost_nodes.values()]
    return Executed(summary.stopped, summary.lost_workers, summary.resubmitted, lost)


def lock_ladder(root: Path, name: str) -> Any:
    """The ladder's lock (its tournament lock): one driver at a time."""
    from tournaments.runners.preparation import _lock
    from tournaments.runners.summary import TournamentError
    try:
        return _lock(root, name)
    except TournamentError as e:
        raise LadderError(str(e).replace("tournament", "ladder", 1)) from None


def run_ladder(root: Path | str, *, address: str | None = None, duration_s: float | None = None,
               groups: int | None = None, executor: str = "auto", say: Callable[[str], None] | None = None,
               fsync: bool = True, max_in_flight: int | None = None) -> RunSummary:
    """Run the ladder until ``duration_s`` passes, ``groups`` new groups are committed, or Ctrl-C.
    ``root``: its directory, or the URI of a ladder in an object store."""
    from tournaments.runners import choose_executor

    speak = say or (lambda text: print(text, flush=True))
    if is_uri(restore_uri(str(root))):
        return _run_remote(restore_uri(str(root)), address, duration_s, groups, executor, speak,
                           max_in_flight)
    root = Path(root)
    spec = load_spec(root)
    s = RunSummary(spec.name)
    executor = choose_executor(executor, address, spec.num_cpus)
    s.executor = executor
    if LadderStore(root).closed():
        raise LadderError(f"the ladder in {root} is closed; `ladder board` shows its last board")
    t0 = time.monotonic()
    held = lock_ladder(root, spec.name)
    try:
        epoch = begin_epoch(root, spec.name)
        clean_orphans(root, spec.name, before_epoch=epoch)
        _loop(root, spec, s, epoch, executor, address, duration_s, groups, speak, fsync, max_in_flight)
    finally:
        held.close()
    s.seconds = time.monotonic() - t0
    return s


def _run_remote(uri: str, address: str | None, duration_s: float | None, groups: int | None,
                executor: str, speak: Callable[[str], None], max_in_flight: int | None) -> RunSummary:
    """:func:`run_ladder` for a ladder in an object store: the lease (its epoch) instead of the lock
    file; the staged objects and orphaned parts of earlier runs removed; the loop on a local copy of
    the log and the records (:class:`Remote`); at the end the fence checked again (batches an earlier
    run published after this one read the log are quarantined, as a tournament's are)."""
    from tournaments.ladder.remote import RecordError, clean_store_orphans, local_copy, read_spec
    from tournaments.ledger import (
        Fenced,
        LeaseHeld,
        acquire_lease,
        clean_staging,
        late_batches,
        read_store_secret,
    )
    from tournaments.runners import choose_executor

    t0 = time.monotonic()
    try:
        store = open_store(uri)
        spec = read_spec(store)
    except (StoreError, RecordError) as e:
        raise LadderError(str(e)) from None
    s = RunSummary(spec.name)
    executor = choose_executor(executor, address, spec.num_cpus)
    s.executor = executor
    try:
        lease = acquire_lease(store, spec.name)
    except (LeaseHeld, StoreError, ValueError) as e:
        raise LadderError(str(e).replace("tournament", "ladder", 1)) from None
    try:
        clean_staging(store, spec.name, before_epoch=lease.epoch)
        clean_store_orphans(store, spec.name, lease.epoch)
        secret = read_store_secret(store, spec.name)
        if secret is None:
            raise LadderError(f"the ladder's secret ({uri}.secrets/{spec.name}.secret) is missing")
        with local_copy(store, spec.name, ["matches", *tables.SIDE_TABLES]) as (root, _, mirror):
            if LadderStore(root).closed():
                raise LadderError(f"the ladder in {uri} is closed; `ladder board` shows its last board")
            remote = Remote(uri, store, lease, mirror, secret)
            _loop(root, spec, s, lease.epoch, executor, address, duration_s, groups, speak, False,
                  max_in_flight, remote)
            try:
                lease.check()
            except Fenced as e:
                raise LadderError(str(e)) from None
            late = late_batches(store, spec.name, lease.epoch, mirror.keys)
            if late:
                speak(f"{len(late)} groups an earlier run published after this one read the log were "
                      "quarantined (this run played them)")
            clean_staging(store, spec.name, before_epoch=lease.epoch + 1)
    except (StoreError, RecordError) as e:
        raise LadderError(str(e)) from None
    finally:
        with contextlib.suppress(StoreError):
            lease.release()
    s.seconds = time.monotonic() - t0
    return s


def _loop(root: Path, spec: LadderSpec, s: RunSummary, epoch: int, executor: str, address: str | None,
          duration_s: float | None, groups: int | None, speak: Callable[[str], None], fsync: bool,
          max_in_flight: int | None, remote: Remote | None = None) -> None:
    """The scheduler loop of a run that holds the ladder (its lock or lease, ``epoch``)."""
    lad = Ladder(root, speak, fsync, remote)
    out = remote.uri if remote is not None else None
    if any(not v.reference and v.state in ("placement", "active") for v in lad.view.versions):
        require_sandbox()   # before a group of a submitted bot faults for want of a sandbox
    pending = lad.view.pending()
    deadline = None if duration_s is None else time.monotonic() + duration_s
    last_board = [time.monotonic()]
    submitted = [0]

    def done() -> bool:
        if deadline is not None and time.monotonic() >= deadline:
            return True
        return groups is not None and submitted[0] >= groups

    def work() -> Iterator[Batch]:
        for g in pending:
            s.groups_resubmitted += 1
            yield make_batch(spec, root, lad.secret, g, epoch, lad.refs, lad.options, fsync, out)
        idle_since: float | None = None
        while not done():
            lad.validate_waiting(s)
            if lad.rerun_queue:
                old = lad.rerun_queue.pop(0)
                t = Table(old["game"], tuple(old["arrangement"]), old["reason"], old["probability"])
                row = lad.write_group(t, rerun_of=old["group_id"])
                s.groups_rerun += 1
            else:
                t2 = lad.plan_next()
                if t2 is None:   # too few versions for a table: wait for submissions (--for), else end
                    idle_since = idle_since or time.monotonic()
                    if deadline is None and time.monotonic() - idle_since > IDLE_S:
                        speak(f"no table can be seated (too few versions) for {IDLE_S:.0f} s: stopping")
                        return
                    time.sleep(0.5)
                    lad.ingest(s)
                    lad.collect_snapshot(boards, s)
                    continue
                idle_since = None
                row = lad.write_group(t2)
            s.groups_new += 1
            submitted[0] += 1
            yield make_batch(spec, root, lad.secret, row, epoch, lad.refs, lad.options, fsync, out)

    def on_result(r: BatchResult) -> None:
        if remote is not None:
            remote.publish(r)
        lad.ingest(s)
        lad.collect_snapshot(boards, s)
        if time.monotonic() - last_board[0] >= spec.rating.board_every_s and lad.start_snapshot(boards):
            last_board[0] = time.monotonic()

    boards = BoardWorker()
    try:
        ex = execute(root, spec, executor, address, work(), on_result, max_in_flight, store_uri=out)
        s.stopped, s.lost_workers, s.resubmitted_batches = ex.stopped, ex.lost_workers, ex.resubmitted
        s.lost_nodes = ex.lost_nodes
        lad.ingest(s)
        lad.collect_snapshot(boards, s, wait=True)
        lad.start_snapshot(boards)   # the final board: of every rated group
        lad.collect_snapshot(boards, s, wait=True)
    finally:
        boards.close()
