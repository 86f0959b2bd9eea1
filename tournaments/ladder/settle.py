"""``ladder close``: the settlement, and the anti-collusion report.

1. **Drain and lock.**  The groups the ladder wrote but did not commit are played (a ``ladder run`` of
   no new group), then the ladder is marked closed: ``submit`` and ``run`` refuse from then on.
2. **Freeze** one version per author: the one the author chose (``ladder choose``), else the latest in
   placement or active.  The reference bots settle too, as anchors (author ``reference``).
3. **A fresh secret key**, never played or published: 32 bytes from the OS, kept in
   ``_tournaments/<ladder>-settle.secret`` (mode 0600) for a resumed close.  Its SHA-256 is written to
   ``_ladder/settlement.json`` before the first settlement board is dealt; the key itself is written
   there after the result, so anyone can check the deals (``cardarena verify`` replays every match).
   The settlement is a tournament of its own in the log (``<ladder>-settle``): its groups, matches,
   moves and events sit beside the ladder's, and the official result uses them only.
4. **Stage 1**: every frozen version plays ``settlement.stage1_groups`` groups per game on the
   balanced sampled schedule (:func:`tournaments.schedule.sampled_arrangements`).
5. **Stage 2**: rounds of every arrangement (every team split) of the top ``settlement.top_k`` that can
   still be among the first three (rank interval reaching 3 or better), each on a fresh board, until
   the bootstrap gives P(first > second) >= ``settlement.confidence`` and the top three rank intervals
   are disjoint, or the budget (``--budget``, else ``settlement.budget`` groups) runs out.  The rule is
   checked at :data:`LOOKS` looks only (after stage 1, then after each third of the remaining budget),
   each at the Bonferroni level ``1 - (1 - confidence) / LOOKS`` (0.9875 for 0.95), since a rule
   checked after every round would stop on a tie by chance far too often.
6. **Places**: by the batch fit (:mod:`tournaments.ladder.board`) over the settlement groups: 1 + the
   versions ahead with P at the looks' level (:func:`~tournaments.ladder.board.shared_places`), so
   places the fit cannot order are shared (1, 1, 3).

A ladder in an object store settles the same way (:func:`_close_remote`): the drain is a remote
``ladder run``, the ladder's lease is held while it is checked drained and marked closed, and the
settlement holds its own lease (its epoch fences its workers), plays on a local copy and publishes
every group's parts as ``ladder run`` does; ``_ladder/settlement.json`` is an object of the store
(created once with the key's hash, the result written under the lease), the key is kept apart as a
tournament's secret while it plays and joins the log with the result.  A settled ladder refuses a
second close in one line; ``ladder status`` and ``ladder board`` show the places.

**Anti-collusion report** (:func:`collusion_report`): for each pair of authors, over the ladder's
free-for-all groups where both sat, each one's place against the place its online rating predicted
(before the group); a pair where one did much better than predicted and the other much worse
(z >= 2 and z <= -2, at least 5 groups) is flagged for a human: a feeder bot.
"""
from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import math
import random
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tournaments.ladder import tables
from tournaments.ladder.board import Fit, fit, prob_ahead, shared_places
from tournaments.ladder.core import load_spec, load_view, teams_of
from tournaments.ladder.loop import Remote, execute, lock_ladder, make_batch, run_ladder
from tournaments.ladder.matchmaking import Table
from tournaments.ladder.online import group_outcome
from tournaments.ladder.spec import LadderSpec
from tournaments.ladder.state import REFERENCE, LadderError, LadderStore, Version, ladder_dir, now_iso
from tournaments.ledger import (
    Lease,
    begin_epoch,
    clean_orphans,
    read_secret,
    secret_fingerprint,
    write_manifest,
)
from tournaments.ledger import write_secret as keep_secret
from tournaments.log import engine_version
from tournaments.paths import manifest_path
from tournaments.runner import Batch, BatchResult
from tournaments.schedule import (
    count_arrangements,
    full_arrangements,
    group_id,
    new_secret,
    sampled_arrangements,
)
from tournaments.store import ObjectStore, is_uri, restore_uri


def settle_id(name: str) -> str:
    return f"{name}-settle"


def _settle_file(root: Path) -> Path:
    return ladder_dir(root) / "settlement.json"


def frozen_versions(versions: list[Version]) -> list[Version]:
    """One version per author: the chosen one, else the latest in placement or active; and the
    reference bots."""
    out = [v for v in versions if v.reference]
    by: dict[str, list[Version]] = defaultdict(list)
    for v in versions:
        if not v.reference and v.state in ("placement", "active"):
            by[v.author].append(v)
    for _, vs in sorted(by.items()):
        chosen = [v for v in vs if v.chosen]
        out.append(chosen[0] if chosen else max(vs, key=lambda v: (v.submitted_at, v.version)))
    return out


def _records(view_groups: list[dict[str, Any]], committed: dict[str, list[dict[str, Any]]]) -> list[Any]:
    from tournaments.analysis.ratings import MatchRec
    recs = []
    for g in view_groups:
        for m in committed.get(g["group_id"], []):
            if m["status"] != "error":
                recs.append(MatchRec(g["game"], m["match_id"], m["group_id"], m["bots"], m["teams"],
                                     m["ranking"], [0.0] * len(m["bots"])))
    return recs


LOOKS = 4
"""The stop rule is checked at most this often (after stage 1, then after each third of the rest of
the budget), each time at the confidence :func:`look_confidence` gives: a rule checked after every
round would stop on a tie by chance far more often than 1 - confidence (optional stopping)."""


def look_confidence(confidence: float, looks: int = LOOKS) -> float:
    """The confidence each look needs so that all of them together err at most ``1 - confidence``
    (Bonferroni): 0.95 over 4 looks is 0.9875 each."""
    return 1.0 - (1.0 - confidence) / looks


def stage2_round(f: Fit, top_k: int, games_of: dict[str, list[str]], games: dict[str, tuple[int, bool]],
                 played: int, budget: int, stage1: int, looks: int = LOOKS) -> tuple[list[str], list[Table]]:
    """The groups until the next look: the arrangements of :func:`stage2_tables` repeated (each on a
    fresh board) up to a third of the budget left after stage 1, at most the budget."""
    top, tables = stage2_tables(f, top_k, games_of, games)
    if not tables:
        return top, []
    chunk = max(len(tables), math.ceil((budget - stage1) / max(1, looks - 1)))
    chunk = min(chunk, budget - played)
    return top, [tables[i % len(tables)] for i in range(chunk)]


def decided(f: Fit, confidence: float) -> bool:
    """The stop rule: P(first > second) >= ``confidence`` and the top three rank intervals disjoint."""
    rows = f.rows()
    if len(rows) < 2:
        return True
    if prob_ahead(f, str(rows[0]["ref"]), str(rows[1]["ref"])) < confidence:
        return False
    top = rows[:3]
    return all(int(a["rank_hi"]) < int(b["rank_lo"]) for a, b in itertools.pairwise(top))


def settled_error(where: str, done: dict[str, Any]) -> LadderError:
    """A second ``ladder close`` of a settled ladder (one line)."""
    return LadderError(f"the ladder in {where} is already settled (at {done.get('settled_at')}, key SHA-256 "
                       f"{done.get('key_sha256')}); `ladder status` and `ladder board` show its places")


def read_settlement(root: Path) -> dict[str, Any] | None:
    """The settlement of the ladder in ``root`` (its directory or a local copy of a store's): the key's
    SHA-256 and the frozen versions from the close on, the result and the key once settled; None
    before ``ladder close``."""
    path = _settle_file(root)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise LadderError(f"{path} cannot be read ({e})") from None
    if not isinstance(data, dict):
        raise LadderError(f"{path} is not a settlement (not a JSON object)")
    return data


def settlement_summary(root: Path) -> dict[str, Any] | None:
    """What ``ladder status`` and ``ladder board`` show of the settlement: the settlement record
    without the anti-collusion report (``ladder close --json`` has it); ``places`` empty and
    ``settled_at`` None while it is under way; None before ``ladder close``."""
    done = read_settlement(root)
    if done is None:
        return None
    out = {k: v for k, v in done.items() if k != "collusion"}
    out.setdefault("places", [])
    out.setdefault("settled_at", None)
    return out


def close_ladder(root: Path | str, budget: int | None = None, executor: str = "auto",
                 address: str | None = None, say: Callable[[str], None] | None = None,
                 seed: int | None = None) -> dict[str, Any]:
    """Settle the ladder in ``root`` (its directory, or the URI of a ladder in an object store); the
    result.  A stopped close goes on where it stopped; a settled ladder is refused (one line)."""
    speak = say or (lambda text: print(text, flush=True))
    if is_uri(restore_uri(str(root))):
        return _close_remote(restore_uri(str(root)), budget, executor, address, speak, seed)
    root = Path(root)
    spec = load_spec(root)
    store = LadderStore(root)
    done = read_settlement(root)
    if done is not None and "places" in done:
        raise settled_error(str(root), done)
    if not store.closed():
        run_ladder(root, groups=0, executor=executor, address=address, say=speak)   # drain: written groups
        if load_view(root, spec).pending():
            raise LadderError("the ladder's groups in flight did not all finish; run `ladder close` again")
        store.set_meta(closed_at=now_iso())
        speak("submissions locked")
    budget = budget or spec.settlement.budget
    tid = settle_id(spec.name)
    held = lock_ladder(root, spec.name)
    try:
        epoch = begin_epoch(root, tid)
        clean_orphans(root, tid, before_epoch=epoch)
        result = _settle(Site(root, tid, epoch), spec, store, budget, executor, address, speak, seed)
    finally:
        held.close()
    return result


def _close_remote(uri: str, budget: int | None, executor: str, address: str | None,
                  speak: Callable[[str], None], seed: int | None) -> dict[str, Any]:
    """:func:`close_ladder` of a ladder in an object store, by the remote run's protocol: the drain is a
    ``ladder run`` of no new group; the lock is the ladder's lease, held while the ladder is checked
    drained and marked closed; the settlement (tournament ``<ladder>-settle``) holds its own lease,
    whose epoch fences its workers, plays on a local copy of the log and publishes every group's
    parts (:class:`~tournaments.ladder.loop.Remote`); its key is kept apart as a tournament's secret
    and joins the log with the result."""
    from tournaments.ladder.loop import Remote
    from tournaments.ladder.remote import RecordError, clean_store_orphans, local_copy, read_spec
    from tournaments.ledger import Fenced, LeaseHeld, acquire_lease, clean_staging, late_batches
    from tournaments.store import StoreError, open_store

    def lease_of(store: ObjectStore, tournament: str) -> Lease:
        try:
            return acquire_lease(store, tournament)
        except (LeaseHeld, ValueError) as e:
            raise LadderError(str(e).replace("tournament", "ladder", 1)) from None

    try:
        store = open_store(uri)
        spec = read_spec(store)
        done = _store_settlement(store)
        if done is not None and "places" in done:
            raise settled_error(uri, done)
        with local_copy(store, spec.name, []) as (root, _, _):
            closed = LadderStore(root).closed()
        if not closed:
            run_ladder(uri, groups=0, executor=executor, address=address, say=speak)   # drain
            held = lease_of(store, spec.name)
            try:
                with local_copy(store, spec.name, ["matches", "groups"]) as (root, _, _):
                    if load_view(root, spec).pending():
                        raise LadderError("the ladder's groups in flight did not all finish; run `ladder "
                                          "close` again")
                    LadderStore(root).set_meta(closed_at=now_iso())
            finally:
                with contextlib.suppress(StoreError):
                    held.release()
            speak("submissions locked")
        tid = settle_id(spec.name)
        lease = lease_of(store, tid)
        try:
            clean_staging(store, tid, before_epoch=lease.epoch)
            clean_store_orphans(store, tid, lease.epoch)
            with local_copy(store, [spec.name, tid], ["matches", *tables.SIDE_TABLES]) as (root, _, mirror):
                remote = Remote(uri, store, lease, mirror, b"")
                result = _settle(Site(root, tid, lease.epoch, remote), spec, LadderStore(root),
                                 budget or spec.settlement.budget, executor, address, speak, seed)
                try:
                    lease.check()
                except Fenced as e:
                    raise LadderError(str(e)) from None
                late_batches(store, tid, lease.epoch, mirror.keys)
                clean_staging(store, tid, before_epoch=lease.epoch + 1)
        finally:
            with contextlib.suppress(StoreError):
                lease.release()
    except (StoreError, RecordError) as e:
        raise LadderError(str(e)) from None
    return result


def _store_settlement(store: ObjectStore) -> dict[str, Any] | None:
    from tournaments.ladder.remote import SETTLEMENT
    try:
        data = json.loads(store.get(SETTLEMENT))
    except FileNotFoundError:
        return None
    except ValueError:
        raise LadderError(f"{store.where(SETTLEMENT)}: not a settlement (unreadable JSON)") from None
    if not isinstance(data, dict):
        raise LadderError(f"{store.where(SETTLEMENT)}: not a settlement (not a JSON object)")
    return data


@dataclass
class Site:
    """Where a settlement is played and kept: a ladder's directory (under its lock), or a local copy
    of a ladder in an object store whose files go to the store under the settlement's lease
    (``remote``).  ``epoch``: the settlement run's (its fence)."""

    root: Path
    tid: str
    epoch: int
    remote: Remote | None = None

    @property
    def out(self) -> str | None:
        """Where the workers write: the store's URI, else the directory (None)."""
        return self.remote.uri if self.remote is not None else None

    def state(self) -> dict[str, Any]:
        if self.remote is not None:
            return _store_settlement(self.remote.store) or {}
        return read_settlement(self.root) or {}

    def save(self, state: dict[str, Any], first: bool = False) -> dict[str, Any]:
        """Write the settlement; ``first``: its first record (the key's hash), created only if there is
        none (then the one there is returned)."""
        path = _settle_file(self.root)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(state, indent=2) + "\n")
        if self.remote is not None:
            from tournaments.ladder.remote import SETTLEMENT
            if first:
                if not self.remote.store.put_if_absent(SETTLEMENT, path.read_bytes()):
                    state = self.state()   # another close's, first: it stands
                    path.write_text(json.dumps(state, indent=2) + "\n")
            else:
                self.remote.push(path)
        return state

    def keep_key(self, key: bytes) -> None:
        if self.remote is not None:
            from tournaments.ledger import write_store_secret
            write_store_secret(self.remote.store, self.tid, key)
        else:
            keep_secret(self.root, self.tid, key)

    def read_key(self) -> bytes | None:
        if self.remote is not None:
            from tournaments.ledger import read_store_secret
            return read_store_secret(self.remote.store, self.tid)
        return read_secret(self.root, self.tid)

    def publish_key(self, key: bytes) -> None:
        """The settlement is over: its key joins the log, so anyone can replay its deals."""
        if self.remote is not None:
            from tournaments.ledger import publish_secret
            publish_secret(self.remote.store, self.tid, key)

    def manifest(self, data: dict[str, Any]) -> None:
        write_manifest(self.root, self.tid, data)
        if self.remote is not None:
            self.remote.push(manifest_path(self.root, self.tid))

    def append(self, table: str, rows: list[dict[str, Any]], first: int) -> None:
        p = tables.append(self.root, table, self.tid, rows, first=first, fsync=self.remote is None)
        if p is not None and self.remote is not None:
            self.remote.push(p)

    def published(self, r: BatchResult) -> None:
        if self.remote is not None:
            self.remote.publish(r)


def _settle(site: Site, spec: LadderSpec, store: LadderStore, budget: int, executor: str,
            address: str | None, speak: Callable[[str], None], seed: int | None) -> dict[str, Any]:
    from tournaments.runners import choose_executor

    root, tid = site.root, site.tid
    state = site.state()
    versions = {v.ref: v for v in store.versions()}
    if "frozen" not in state:
        frozen = frozen_versions(list(versions.values()))
        key = new_secret()
        site.keep_key(key)
        site.manifest({
            "tournament": tid, "ladder": spec.name, "settlement": True, "spec_hash": spec.spec_hash(),
            "name": tid, "games": spec.to_json()["games"],
            "bots": {v.ref: (v.ref if not v.reference else _ref_bot(spec, v.ref)) for v in frozen},
            "total_matches": None, "secret": "fresh", "secret_sha256": secret_fingerprint(key),
            "engine_version": engine_version(), "created_at": now_iso(), "complete": False})
        state = site.save({"ladder": spec.name, "tournament": tid, "closed_at": now_iso(),
                           "key_sha256": hashlib.sha256(key).hexdigest(), "frozen": [v.ref for v in frozen],
                           "budget": budget}, first=True)   # the key's hash, before any board is dealt
        speak(f"settlement key SHA-256 {state['key_sha256']}; frozen: {', '.join(state['frozen'])}")
    kept = site.read_key()
    if kept is None or hashlib.sha256(kept).hexdigest() != state["key_sha256"]:
        where = f"{site.remote.uri}.secrets/{tid}.secret" if site.remote is not None else \
            f"{root}/_tournaments/{tid}.secret"
        raise LadderError(f"the settlement key {where} is missing or not the one whose SHA-256 was published")
    key = kept
    frozen_refs: list[str] = state["frozen"]
    games_of = {r: (versions[r].games if r in versions else [g.id for g in spec.games]) for r in frozen_refs}
    rng = random.Random(seed if seed is not None else int.from_bytes(key[:8], "big"))
    refs = {r.label: r.bot for r in spec.reference}
    options = {r.label: r.options for r in spec.reference if r.options}
    executor = choose_executor(executor, address, spec.num_cpus)
    groups = sorted(tables.read(root, "groups", tid), key=lambda g: g["seq"])
    sspec = _as_settle(spec, tid)

    def write(ts: list[Table]) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        for t in ts:
            seq = 1 + max((g["seq"] for g in groups), default=0)
            rows.append({"tournament": tid, "group_id": group_id(spec.seed, t.game, t.arrangement, seq),
                         "seq": seq, "game": t.game, "board": seq, "arrangement": list(t.arrangement),
                         "reason": "settle", "probability": t.probability, "rating_seq": 0, "rerun_of": None,
                         "created_at": datetime.now(UTC)})
            groups.append(rows[-1])
        if rows:
            site.append("groups", rows, first=int(rows[0]["seq"]))
        return rows

    def play(rows: list[dict[str, Any]]) -> None:
        def work() -> Iterator[Batch]:
            for g in rows:
                yield make_batch(sspec, root, key, g, site.epoch, refs, options, fsync=site.remote is None,
                                 out=site.out)

        ex = execute(root, spec, executor, address, work(), site.published, store_uri=site.out)
        if ex.stopped:
            raise LadderError("the settlement was stopped; run `ladder close` again to go on")

    committed = tables.committed(root, tid).by_group
    play([g for g in groups if g["group_id"] not in committed])   # a stopped close's groups
    games = {ge.id: (ge.players, teams_of(ge.id)) for ge in spec.games}
    if not groups:   # stage 1: the balanced sampled schedule, stage1_groups per version and game
        stage1 = stage1_tables(frozen_refs, games_of, games, spec.settlement.stage1_groups, rng)
        speak(f"stage 1: {len(stage1[:budget])} groups")
        play(write(stage1[:budget]))
    stop = "budget"
    t0 = time.monotonic()
    level = look_confidence(spec.settlement.confidence)
    stage1_n = sum(1 for g in groups if g["seq"] <= state.setdefault("stage1", len(groups)))
    site.save(state)
    while True:
        committed = tables.committed(root, tid).by_group
        f = fit(_records(groups, committed), max(spec.rating.bootstrap, 200), seed=len(groups))
        if decided(f, level):
            stop = "decided"
            break
        left = budget - len(groups)
        if left <= 0:
            break
        top, stage2 = stage2_round(f, spec.settlement.top_k, games_of, games, len(groups), budget, stage1_n)
        if not stage2:
            break
        speak(f"stage 2: {min(len(stage2), left)} groups among {', '.join(top)} "
              f"({len(groups)} of {budget} played, {time.monotonic() - t0:.0f} s)")
        play(write(stage2[:left]))
    places = shared_places(f, level)
    by = {str(r["ref"]): r for r in f.rows()}
    authors = {r: (versions[r].author if r in versions else REFERENCE) for r in frozen_refs}
    result = {**state, "groups": len(groups), "stop": stop, "key": key.hex(), "settled_at": now_iso(),
              "places": [{"ref": ref, "author": authors.get(ref, REFERENCE), "place": place,
                          "shared": sum(1 for _, p in places if p == place) > 1,
                          "strength": by[ref]["strength"], "lo95": by[ref]["lo95"], "hi95": by[ref]["hi95"],
                          "rank_lo": by[ref]["rank_lo"], "rank_hi": by[ref]["rank_hi"]}
                         for ref, place in places],
              "p_first_over_second": (prob_ahead(f, places[0][0], places[1][0]) if len(places) > 1 else 1.0),
              "collusion": collusion_report(root)}
    site.publish_key(key)
    site.save(result)   # the key itself, after the result
    speak(f"settled: {result['groups']} groups ({stop}); key {key.hex()}")
    return result


def stage1_tables(frozen: list[str], games_of: dict[str, list[str]], games: dict[str, tuple[int, bool]],
                  per_version: int, rng: random.Random) -> list[Table]:
    """Stage 1: in every game, ``per_version`` groups per frozen version on the balanced sampled
    schedule (appearances equal, pair meetings as even as the seatings allow)."""
    out: list[Table] = []
    for gid, (players, teams) in games.items():
        ents = [r for r in frozen if gid in games_of[r]]
        if len(ents) < players:
            continue
        n = min(count_arrangements(len(ents), players, teams), math.ceil(per_version * len(ents) / players))
        out += [Table(gid, arr, "settle", 1.0) for arr in sampled_arrangements(ents, players, teams, n, rng)]
    return out


def stage2_tables(f: Fit, top_k: int, games_of: dict[str, list[str]], games: dict[str, tuple[int, bool]]
                  ) -> tuple[list[str], list[Table]]:
    """Stage 2's next round: every arrangement (every split) of the top ``top_k`` whose rank interval
    still reaches the first three (the progressive cutoff), filled up to a table by the next best."""
    rows = f.rows()
    top = [str(r["ref"]) for r in rows[:top_k] if int(r["rank_lo"]) <= 3]
    for r in rows[len(top):]:   # a table needs its seats: the next best fill them
        if len(top) >= max(p for p, _ in games.values()):
            break
        top.append(str(r["ref"]))
    out: list[Table] = []
    for gid, (players, teams) in games.items():
        ents = [r for r in top if gid in games_of[r]]
        if len(ents) >= players:
            out += [Table(gid, a, "settle", 1.0) for a in full_arrangements(ents, players, teams)]
    return top, out


def _ref_bot(spec: LadderSpec, label: str) -> str:
    return next((r.bot for r in spec.reference if r.label == label), label)


def _as_settle(spec: LadderSpec, tid: str) -> LadderSpec:
    from dataclasses import replace
    return replace(spec, name=tid)


# ------------------------------------------------------------------------------------------ collusion
def _phi(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


SD_FLOOR = 0.25
"""The smallest spread (in places) a z score of the report divides by."""
Seen = tuple[dict[str, int], dict[str, tuple[float, float]]]
"""One group as the report sees it: each version's rank, and its online (mu, sigma) before the group."""


def collusion_report(root: Path, min_groups: int = 5, z: float = 2.0) -> list[dict[str, Any]]:
    """The report over a ladder's log (:func:`collusion_pairs` of its rated free-for-all groups)."""
    spec = load_spec(root)
    view = load_view(root, spec)
    before = {(r["group_id"], r["ref"]): (r["mu_before"], r["sigma_before"])
              for r in tables.read(root, "ratings_online", spec.name)}
    seen: list[Seen] = []
    for g in view.rateable():
        if teams_of(g["game"]):
            continue
        o = group_outcome(g["group_id"], g["game"], view.committed[g["group_id"]])
        refs = [u[0] for u in o.units]
        if all((g["group_id"], r) in before for r in refs):
            prior = {r: before[(g["group_id"], r)] for r in refs}
            seen.append((dict(zip(refs, o.ranks, strict=True)), prior))
    return collusion_pairs(seen, {v.ref: v.author for v in view.versions}, spec.rating.beta, min_groups, z)


def collusion_pairs(seen: list[Seen], authors: dict[str, str], beta: float, min_groups: int = 5,
                    z: float = 2.0) -> list[dict[str, Any]]:
    """Per pair of authors (groups where both sat): groups, and each one's mean place above the place
    its online rating predicted (positive: better than predicted), with a z score; ``flag`` when one
    is at least ``z`` better and the other at least ``z`` worse over ``min_groups`` groups or more."""
    beta2 = 2.0 * beta * beta
    resid: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for rank, before in seen:
        refs = list(rank)
        exp = {}
        for a in refs:
            ma, sa = before[a]
            exp[a] = 1.0 + sum(_phi((before[b][0] - ma) / math.sqrt(sa * sa + before[b][1] ** 2 + beta2))
                               for b in refs if b != a)
        by_author = {authors.get(r, REFERENCE): r for r in refs}
        names = sorted(a for a in by_author if a != REFERENCE)
        for a, b in itertools.combinations(names, 2):
            for who in (a, b):
                r = by_author[who]
                resid[(a, b)][who].append(exp[r] - rank[r])
    out = []
    for (a, b), d in sorted(resid.items()):
        n = len(d[a])
        row: dict[str, Any] = {"authors": [a, b], "groups": n}
        zs = []
        for who in (a, b):
            xs = d[who]
            m = sum(xs) / n
            sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
            sd = max(sd, SD_FLOOR)   # a feeder that never varies has sd 0: its z is large, not 0
            zz = m / (sd / math.sqrt(n))
            row[who] = {"above_predicted": round(m, 4), "z": round(zz, 3)}
            zs.append(zz)
        row["flag"] = n >= min_groups and ((zs[0] >= z and zs[1] <= -z) or (zs[1] >= z and zs[0] <= -z))
        out.append(row)
    return out
